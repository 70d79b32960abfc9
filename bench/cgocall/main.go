// Command cgocall measures what a Go program pays, on a rank bound to one core, for each
// blocking C call it makes: the reads of `h5proxy ior -a MPIIO` are each one cgo call into
// MPI, where IOR's are plain C calls. It reads a file of -size bytes from the page cache
// in -xfer transfers into one page-aligned buffer, two ways, interleaved (A B A B):
//
//   - "C loop": one cgo call that makes every pread itself (the C program's case);
//   - "cgo per read": one cgo call per pread (h5proxy's case).
//
// Each round runs first with every thread of the process bound to the first core of its
// affinity mask (as mpirun binds each of 2 ranks), then unbound. It prints the medians of
// -reps rounds (GiB/s) and the voluntary and involuntary context switches per read (getrusage), which show where
// the time goes: the Go runtime wakes its monitor and hands the P on around every C call
// that outlasts its 20 µs tick, and on a single core those threads take turns with the
// copying one.
//
// With -mpi (the default) two more ways read the same file through MPI-IO in this process
// (a one-rank singleton), as `h5proxy ior -a MPIIO -c` reads: "MPI run", every
// MPI_File_read_at_all from one C loop (mpi.File.Run, what the session's runs of transfers
// use, transfer_runs=YES), and "MPI per read", one cgo call per MPI_File_read_at_all
// (mpi.File.ReadAtAll, transfer_runs=NO).
//
//	go run ./bench/cgocall                       # 512 MiB in 4 MiB reads, 9 rounds
//	go run ./bench/cgocall -size 256MiB -xfer 1MiB -reps 15
//	go run ./bench/cgocall -mpi=false            # without MPI
package main

/*
#include <unistd.h>

// cgocall_loop reads n transfers of xfer bytes at successive offsets into buf and returns
// the bytes read (stops at the first short read).
static long long cgocall_loop(int fd, void *buf, long long xfer, long long n) {
	long long done = 0;
	for (long long i = 0; i < n; i++) {
		ssize_t r = pread(fd, buf, (size_t)xfer, (off_t)(i * xfer));
		if (r <= 0) break;
		done += r;
		if (r < xfer) break;
	}
	return done;
}

// cgocall_one reads one transfer of xfer bytes at off into buf.
static long long cgocall_one(int fd, void *buf, long long xfer, long long off) {
	return (long long)pread(fd, buf, (size_t)xfer, (off_t)off);
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
)

const name = "cgocall bench"

func main() {
	size := flag.String("size", "512MiB", "bytes of the file read per round")
	xfer := flag.String("xfer", "4MiB", "bytes per read")
	reps := benchmain.Reps(9, "rounds (medians are reported)")
	dir := benchmain.Dir()
	withMPI := flag.Bool("mpi", true, "also read through MPI-IO: one C loop of MPI_File_read_at_all (mpi.File.Run) against one cgo call each")
	flag.Parse()
	n, err := options.ParseSize(*size)
	benchmain.Check(name, 2, err)
	x, err := options.ParseSize(*xfer)
	benchmain.Check(name, 2, err)
	if x == 0 || n < x {
		benchmain.Check(name, 2, fmt.Errorf("-xfer %s must be positive and at most -size %s", *xfer, *size))
	}
	os.Exit(run(int64(n), int64(x), *reps, *dir, *withMPI))
}

// way is one of the two ways of reading.
type way struct {
	label string
	read  func(fd int, buf []byte) (int64, error)
}

func run(size, xfer int64, reps int, dir string, withMPI bool) int {
	d, done, err := benchmain.TempDir("cgocall-bench", dir)
	benchmain.Check(name, 1, err)
	defer done()
	path := filepath.Join(d, "data")
	count := size / xfer
	buf, err := emulate.Alloc(int(xfer))
	benchmain.Check(name, 1, err)
	defer buf.Free()
	benchmain.Check(name, 1, writeFile(path, buf.Bytes(), count))
	f, err := os.Open(path)
	benchmain.Check(name, 1, err)
	defer f.Close()
	fd := int(f.Fd())
	ways := []*way{
		{label: "C loop", read: func(fd int, b []byte) (int64, error) {
			return int64(C.cgocall_loop(C.int(fd), unsafe.Pointer(&b[0]), C.longlong(xfer), C.longlong(count))), nil
		}},
		{label: "cgo per read", read: func(fd int, b []byte) (int64, error) {
			var got int64
			for i := int64(0); i < count; i++ {
				r := int64(C.cgocall_one(C.int(fd), unsafe.Pointer(&b[0]), C.longlong(xfer), C.longlong(i*xfer)))
				if r != xfer {
					return got, fmt.Errorf("read %d of %d bytes at %d", r, xfer, i*xfer)
				}
				got += r
			}
			return got, nil
		}},
	}
	// Every read happens on this goroutine's thread; bound rounds bind every thread.
	runtime.LockOSThread()
	if withMPI {
		mf, closeMPI, err := openMPI(path)
		benchmain.Check(name, 1, err)
		defer closeMPI()
		ways = append(ways, mpiWays(mf, xfer, count)...)
	}
	var all unix.CPUSet
	benchmain.Check(name, 1, unix.SchedGetaffinity(0, &all))
	first := firstCPU(&all)
	type result struct{ rate, vol, invol []float64 }
	res := map[string]*result{}
	for r := 0; r < reps; r++ {
		for _, bound := range []bool{true, false} {
			set := all
			if bound {
				set.Zero()
				set.Set(first)
			}
			benchmain.Check(name, 1, bindAll(&set))
			for _, w := range ways {
				start := time.Now()
				vol0, invol0 := switches()
				got, err := w.read(fd, buf.Bytes())
				el := time.Since(start)
				vol1, invol1 := switches()
				if err == nil && got != count*xfer {
					err = fmt.Errorf("%s: read %d of %d bytes", w.label, got, count*xfer)
				}
				benchmain.Check(name, 1, err)
				k := key(w.label, bound)
				if res[k] == nil {
					res[k] = &result{}
				}
				res[k].rate = append(res[k].rate, float64(got)/el.Seconds()/(1<<30))
				res[k].vol = append(res[k].vol, float64(vol1-vol0)/float64(count))
				res[k].invol = append(res[k].invol, float64(invol1-invol0)/float64(count))
			}
		}
	}
	benchmain.Check(name, 1, bindAll(&all))
	fmt.Printf("%d reads of %d bytes from the page cache per round, %d rounds, medians; Go %s, GOMAXPROCS %d\n",
		count, xfer, reps, runtime.Version(), runtime.GOMAXPROCS(0))
	// Voluntary switches (a thread blocked: the runtime's hand-offs) do not depend on
	// what else runs on the machine; involuntary ones (preemptions) do.
	fmt.Printf("%-10s %-14s %10s %28s\n", "threads", "reads", "GiB/s", "switches per read: vol invol")
	for _, bound := range []bool{true, false} {
		var c float64
		for _, w := range ways {
			r := res[key(w.label, bound)]
			rate := median(r.rate)
			if w == ways[0] {
				c = rate
			}
			fmt.Printf("%-10s %-14s %10.2f %24.2f %5.2f\n", map[bool]string{true: "one core", false: "unbound"}[bound], w.label, rate, median(r.vol), median(r.invol))
		}
		fmt.Printf("%-10s %-14s %10.3f\n", "", "per read / loop", median(res[key(ways[1].label, bound)].rate)/c)
		if len(ways) == 4 {
			fmt.Printf("%-10s %-14s %10.3f\n", "", "MPI per read / MPI run", median(res[key(ways[3].label, bound)].rate)/median(res[key(ways[2].label, bound)].rate))
		}
	}
	return 0
}

func key(label string, bound bool) string { return label + "/" + strconv.FormatBool(bound) }

// writeFile writes count copies of buf (filled with a pattern) to path, so that the
// rounds read from the page cache.
func writeFile(path string, buf []byte, count int64) error {
	for i := range buf {
		buf[i] = byte(i)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for i := int64(0); i < count; i++ {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// bindAll sets the affinity of every thread of the process (threads created later
// inherit their creator's).
func bindAll(set *unix.CPUSet) error {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("binding thread %d: %w", tid, err)
		}
	}
	return nil
}

func firstCPU(s *unix.CPUSet) int {
	for i := 0; i < 1024; i++ {
		if s.IsSet(i) {
			return i
		}
	}
	return 0
}

// switches is the process's voluntary and involuntary context switches so far.
func switches() (vol, invol int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Nvcsw, ru.Nivcsw
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// openMPI initializes MPI in this process (a one-rank singleton; as root, with OpenMPI's
// consent variables, as internal/launch sets them for launched ranks) and opens path
// read-only on it. The returned function closes the file and finalizes MPI.
func openMPI(path string) (*mpi.File, func(), error) {
	if os.Getuid() == 0 {
		os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
		os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	}
	if _, _, err := mpi.Init(); err != nil {
		return nil, nil, err
	}
	f, err := mpi.OpenFile(mpi.World(), path, mpi.ReadOnly)
	if err != nil {
		mpi.Finalize()
		return nil, nil, err
	}
	return f, func() { f.Close(); mpi.Finalize() }, nil
}

// mpiWays read the file's count transfers of xfer bytes with MPI_File_read_at_all: from one
// C loop (File.Run) and with one cgo call each (File.ReadAtAll).
func mpiWays(f *mpi.File, xfer, count int64) []*way {
	return []*way{
		{label: "MPI run", read: func(_ int, b []byte) (int64, error) {
			xs := make([]mpi.Xfer, count)
			for i := range xs {
				xs[i] = mpi.Xfer{Kind: mpi.ReadAtAll, Off: int64(i) * xfer, Buf: b}
			}
			n, err := f.Run(xs, nil)
			return int64(n) * xfer, err
		}},
		{label: "MPI per read", read: func(_ int, b []byte) (int64, error) {
			var got int64
			for i := int64(0); i < count; i++ {
				if err := f.ReadAtAll(i*xfer, b); err != nil {
					return got, err
				}
				got += xfer
			}
			return got, nil
		}},
	}
}
