// Command collective reproduces seed 001's study of where HDF5 breaks collective I/O
// (issue 25, docs/collective.md): it runs four IOR configurations through `h5proxy ior`
// under `h5proxy profile -trace` and prints, as Markdown tables, the MPI-IO collective and
// independent reads and writes, the collective and independent opens, the access sizes in
// Darshan's bins, and every independent read with the HDF5 call it happened in and the
// HDF5 structure at its offset (read from the kept file's signature bytes).
//
//	make build && go run ./bench/collective                 # 4 ranks, 1 MiB blocks
//	go run ./bench/collective -np 4 -b 4m -t 1m -s 4       # larger
//	go run ./bench/collective -ior /path/to/ior             # a real IOR as well (none here)
//
// The configurations: IOR -a MPIIO -c; the same through IOR's file view
// (--mpiio.useFileView, IOR 3's -V); -a HDF5 -c (contiguous); -a HDF5 -c chunked with
// --hdf5.noFill --hdf5.collectiveMetadata --hdf5.chunkSize=T/8 (one chunk per transfer).
// A real IOR (-ior) runs the same command lines, its chunked case with IOR 4.0's
// --hdf5.chunkSize flag (chunks of 1 element: IOR 4.0 declares the option without a value).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/patterns/ior"
)

// study is one IOR command line of the study.
type study struct {
	name string
	args []string
}

func main() {
	np := benchmain.NP(4, "ranks")
	block := flag.String("b", "1m", "IOR -b")
	xfer := flag.String("t", "256k", "IOR -t")
	segs := flag.String("s", "2", "IOR -s")
	bin := flag.String("h5proxy", "bin/h5proxy", "the h5proxy executable (make build)")
	real := flag.String("ior", "", "a real IOR executable to run the same command lines with (none installed here)")
	dir := benchmain.Dir()
	flag.Parse()
	benchmain.Exit("collective", 1, run(*np, *block, *xfer, *segs, *bin, *real, *dir, os.Stdout))
}

func run(np int, block, xfer, segs, bin, real, dir string, out io.Writer) error {
	t, err := ior.ParseSize(xfer)
	if err != nil {
		return fmt.Errorf("-t %s: %w", xfer, err)
	}
	dir, done, err := benchmain.TempDir("collective", dir)
	if err != nil {
		return err
	}
	defer done()
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	base := []string{"-b", block, "-t", xfer, "-s", segs, "-c", "-w", "-r", "-k"}
	studies := []study{
		{"MPIIO", append([]string{"-a", "MPIIO"}, base...)},
		{"MPIIO file view", append(append([]string{"-a", "MPIIO"}, base...), "--mpiio.useFileView")},
		{"HDF5 contiguous", append([]string{"-a", "HDF5"}, base...)},
		{"HDF5 chunked", append(append([]string{"-a", "HDF5"}, base...), "--hdf5.noFill", "--hdf5.collectiveMetadata", fmt.Sprintf("--hdf5.chunkSize=%d", t/8))},
	}
	fmt.Fprintf(out, "%d ranks, IOR %s (h5proxy ior; each case writes then reads back one shared file)\n\n", np, strings.Join(base, " "))
	var profs []*profile.Profile
	var files []string
	for i, s := range studies {
		file := filepath.Join(dir, fmt.Sprintf("case%d.dat", i))
		prof := filepath.Join(dir, fmt.Sprintf("case%d.json", i))
		args := append([]string{"profile", "-np", fmt.Sprint(np), "-trace", "-noplot", "-o", prof, "--", bin, "ior"}, s.args...)
		args = append(args, "-o", file)
		cmd := exec.Command(bin, args...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v\n%s", s.name, err, buf.String())
		}
		p, err := profile.Load(prof)
		if err != nil {
			return err
		}
		profs, files = append(profs, p), append(files, file)
	}
	names := make([]string, len(studies))
	for i, s := range studies {
		names[i] = s.name
	}
	counters(out, names, profs)
	for i, p := range profs {
		independentReads(out, names[i], p, files[i])
	}
	if real == "" {
		fmt.Fprintln(out, "No real IOR given (-ior): only h5proxy's runs above.")
	} else {
		fmt.Fprintf(out, "A real IOR (%s): run `h5proxy profile -np %d -trace -o real.json -- %s ARGS` with the command lines above and `h5proxy profile diff` against these.\n", real, np, real)
	}
	return nil
}

// counterRows are the table's rows: the MPI-IO counters seed 001 read, then the size bins.
var counterRows = []string{"MPIIO_COLL_OPENS", "MPIIO_INDEP_OPENS", "MPIIO_COLL_WRITES", "MPIIO_INDEP_WRITES",
	"MPIIO_COLL_READS", "MPIIO_INDEP_READS", "MPIIO_VIEWS", "POSIX_OPENS", "POSIX_WRITES", "POSIX_READS"}

// bins are Darshan's size bins, in order.
var bins = []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"}

// sum adds a counter over the records of the data file (the records named like it),
// leaving out the lock-test and directory records.
func sum(p *profile.Profile, module, counter string) int64 {
	var n int64
	for _, r := range p.Records {
		if r.Module == module && strings.HasSuffix(r.File, ".dat") {
			n += r.Counters[counter]
		}
	}
	return n
}

func counters(out io.Writer, names []string, profs []*profile.Profile) {
	fmt.Fprintf(out, "| counter | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---:|", len(names)))
	row := func(label, module, counter string) {
		fmt.Fprintf(out, "| %s |", label)
		for _, p := range profs {
			fmt.Fprintf(out, " %d |", sum(p, module, counter))
		}
		fmt.Fprintln(out)
	}
	for _, c := range counterRows {
		row(c, strings.SplitN(c, "_", 2)[0], c)
	}
	for _, dir := range []string{"WRITE", "READ"} {
		for _, b := range bins {
			c := "MPIIO_SIZE_" + dir + "_AGG_" + b
			if anyNonZero(profs, c) {
				row(c, "MPIIO", c)
			}
		}
	}
	for _, dir := range []string{"WRITE", "READ"} {
		for _, b := range bins {
			c := "POSIX_SIZE_" + dir + "_" + b
			if anyNonZero(profs, c) {
				row(c, "POSIX", c)
			}
		}
	}
	fmt.Fprintln(out)
}

func anyNonZero(profs []*profile.Profile, c string) bool {
	for _, p := range profs {
		if sum(p, strings.SplitN(c, "_", 2)[0], c) != 0 {
			return true
		}
	}
	return false
}

// readKey groups identical independent reads across ranks.
type readKey struct {
	within       string
	offset, size int64
}

// independentReads lists the independent MPI-IO reads of the data file: in which HDF5
// call (the H5 event enclosing it on the same rank), at what offset and size, on how
// many ranks, and what HDF5 structure lies there.
func independentReads(out io.Writer, name string, p *profile.Profile, file string) {
	ranks := map[readKey]map[int]bool{}
	var order []readKey
	for _, e := range p.Events {
		if e.Module != "MPIIO" || (e.Call != "MPI_File_read_at" && e.Call != "MPI_File_read") || !strings.HasSuffix(e.File, ".dat") {
			continue
		}
		k := readKey{within: enclosing(p.Events, e), offset: e.Offset, size: e.Length}
		if ranks[k] == nil {
			ranks[k] = map[int]bool{}
			order = append(order, k)
		}
		ranks[k][e.Rank] = true
	}
	fmt.Fprintf(out, "%s: %d independent MPI-IO reads", name, sum(p, "MPIIO", "MPIIO_INDEP_READS"))
	if len(order) == 0 {
		fmt.Fprint(out, "\n\n")
		return
	}
	fmt.Fprint(out, "\n\n| in | offset | bytes | ranks | at the offset |\n|---|---:|---:|---:|---|\n")
	sort.SliceStable(order, func(i, j int) bool { return order[i].offset < order[j].offset })
	for _, k := range order {
		fmt.Fprintf(out, "| %s | %d | %d | %d | %s |\n", k.within, k.offset, k.size, len(ranks[k]), structureAt(file, k.offset))
	}
	fmt.Fprintln(out)
}

// enclosing names the HDF5 call of the same rank whose interval holds e ("file open"
// when none: the superblock reads of H5Fopen's driver happen before the H5F event ends,
// so they are found too).
func enclosing(events []profile.Event, e profile.Event) string {
	for _, h := range events {
		if h.Rank == e.Rank && strings.HasPrefix(h.Module, "H5") && h.Start <= e.Start && e.End <= h.End {
			return h.Call
		}
	}
	return "(no HDF5 call)"
}

// structureAt reads the signature at off in an HDF5 file and names the structure (HDF5
// file format specification, version 0 superblock and version 1 B-trees):
// TREE with node type 0 (group) or 1 (raw data chunks), HEAP, SNOD, the superblock; an
// object header of version 1 has no signature.
func structureAt(file string, off int64) string {
	f, err := os.Open(file)
	if err != nil {
		return "?"
	}
	defer f.Close()
	b := make([]byte, 8)
	if _, err := f.ReadAt(b, off); err != nil {
		return "?"
	}
	switch {
	case string(b[:8]) == "\x89HDF\r\n\x1a\n":
		return "superblock"
	case off < 96: // a version 0 superblock with 8-byte addresses is 96 bytes
		return "superblock (its addresses and the root group's entry)"
	case off == 96 && b[0] == 1:
		return "object header, version 1 (the root group's, after the superblock)"
	case string(b[:4]) == "TREE" && b[4] == 1:
		return "v1 B-tree node, chunk index (H5D__chunk_lookup → H5B_find)"
	case string(b[:4]) == "TREE":
		return "v1 B-tree node, group symbol table (H5G lookup)"
	case string(b[:4]) == "HEAP":
		return "local heap (group link names)"
	case string(b[:4]) == "SNOD":
		return "symbol table node (group entries)"
	case b[0] == 1:
		return "object header, version 1 (a dataset's)"
	}
	return fmt.Sprintf("% x", b[:4])
}
