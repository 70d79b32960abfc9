// Package e3smmap reads E3SM-IO decomposition map files (the HDF5 version of
// map_<case>_<n>p.nc: -DIM_* root attributes, D<k>.* datasets and attributes) into
// e3sm.Map values. Importing it installs Load as the e3sm pattern's map reader; package
// proxy imports it (patterns import nothing that calls HDF5, nor the proxy).
//
// The file is opened serially and read-only on each rank that loads it.
package e3smmap

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/plan"
)

// init hands the reader to the e3sm pattern, which calls it when a configuration names a
// map file.
func init() { e3sm.RegisterMapReader(Load) }

// Load reads a map file in E3SM-IO's HDF5 format. Under a VOL connector other than the
// native one (HDF5_VOL_CONNECTOR) it reads through the native connector: the map is the
// proxy's input, not the I/O it stands for, and through the connectors the read failed
// or hung before any of that I/O (the Cache VOL 1.2.1 with its write cache on aborts at
// any serial open, in MPI_Comm_dup; the Async VOL printed "[ASYNC VOL ERROR] ...
// ABT_thread_self" for the launcher's read, which is not on HDF5's first thread, and can
// hang in its implicit calls: docs/modes.md).
func Load(path string) (_ *e3sm.Map, err error) {
	acc := h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}}
	if c, cerr := h5.DefaultConnector(); cerr == nil && !c.Native {
		acc.VOL = "native"
	}
	f, err := h5.OpenFile(path, acc)
	if err != nil {
		return nil, fmt.Errorf("e3sm map %s: %w", path, err)
	}
	defer func() {
		if cerr := h5.CloseFile(f); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return decode(path, fileSource{f})
}

// source is where a map's attributes and datasets come from: the HDF5 file, or (in the
// fuzz test) values built in memory, so that the decoding below is tested apart from HDF5.
type source interface {
	// attribute reads a root attribute.
	attribute(name string) (plan.AttributeSpec, error)
	// ints reads a whole 1-D i32 dataset.
	ints(name string) ([]int64, error)
}

// fileSource reads an open map file.
type fileSource struct{ f h5.ID }

func (s fileSource) attribute(name string) (plan.AttributeSpec, error) {
	return h5.ReadAttribute(s.f, name)
}

func (s fileSource) ints(name string) ([]int64, error) { return readInts(s.f, name) }

// maxDims bounds a decomposition's rank (E3SM-IO's maps have at most 3 dims).
const maxDims = 8

// decode builds and validates the map of the file at path from its contents.
func decode(path string, src source) (*e3sm.Map, error) {
	nprocs, err := dimAttr(src, "decomp_nprocs")
	if err != nil {
		return nil, fmt.Errorf("e3sm map %s: %w", path, err)
	}
	ndecomp, err := dimAttr(src, "num_decomp")
	if err != nil {
		return nil, fmt.Errorf("e3sm map %s: %w", path, err)
	}
	m := &e3sm.Map{Source: path, NProcs: int(nprocs)}
	for k := uint64(1); k <= ndecomp; k++ {
		d, err := readDecomp(src, int(k), int(nprocs))
		if err != nil {
			return nil, fmt.Errorf("e3sm map %s: D%d: %w", path, k, err)
		}
		m.Decomps = append(m.Decomps, d)
	}
	return m, m.Validate()
}

// dimAttr reads the netCDF dimension stored as root attribute -DIM_<name>.
func dimAttr(src source, name string) (uint64, error) {
	a, err := src.attribute("-DIM_" + name)
	if err != nil {
		return 0, err
	}
	if a.Type.Class != plan.Uint64 || len(a.Value) != 8 {
		return 0, fmt.Errorf("attribute -DIM_%s is %s %v, want a u64 scalar", name, a.Type, a.Shape)
	}
	return binary.NativeEndian.Uint64(a.Value), nil
}

// ints decodes an i32 attribute or dataset payload.
func ints(b []byte) []int64 {
	out := make([]int64, len(b)/4)
	for i := range out {
		out[i] = int64(int32(binary.NativeEndian.Uint32(b[4*i:])))
	}
	return out
}

func readDecomp(src source, k, nprocs int) (e3sm.Decomp, error) {
	var d e3sm.Decomp
	a, err := src.attribute(fmt.Sprintf("D%d.dims", k))
	if err != nil {
		return d, err
	}
	if a.Type.Class != plan.Int32 {
		return d, fmt.Errorf("D%d.dims is %s, want i32", k, a.Type)
	}
	dims := ints(a.Value)
	if len(dims) > maxDims {
		return d, fmt.Errorf("D%d.dims has %d entries, want at most %d", k, len(dims), maxDims)
	}
	total := uint64(1)
	for _, v := range dims {
		if v < 1 {
			return d, fmt.Errorf("D%d.dims holds %d", k, v)
		}
		d.Dims = append(d.Dims, uint64(v))
		if total *= uint64(v); total > math.MaxInt64/2 {
			return d, fmt.Errorf("D%d.dims %v: more than 2^62 elements", k, dims)
		}
	}
	if c, err := src.attribute(fmt.Sprintf("D%d.fully_covered", k)); err == nil {
		d.FullyCovered = strings.TrimRight(string(c.Value), "\x00") == "true"
	} else {
		d.FullyCovered = true
	}
	nreqs, err := src.ints(fmt.Sprintf("D%d.nreqs", k))
	if err != nil {
		return d, err
	}
	fill, err := src.ints(fmt.Sprintf("D%d.fill_starts", k))
	if err != nil {
		return d, err
	}
	if len(nreqs) != nprocs || len(fill) != nprocs {
		return d, fmt.Errorf("nreqs has %d entries, fill_starts %d, decomp_nprocs = %d", len(nreqs), len(fill), nprocs)
	}
	if d.Offsets, err = src.ints(fmt.Sprintf("D%d.offsets", k)); err != nil {
		return d, err
	}
	if d.Lengths, err = src.ints(fmt.Sprintf("D%d.lengths", k)); err != nil {
		return d, err
	}
	d.Starts = []int{0}
	for p := 0; p < nprocs; p++ {
		d.Fill = append(d.Fill, int(nreqs[p]))
		d.Used = append(d.Used, int(fill[p]))
		d.Starts = append(d.Starts, d.Starts[p]+int(nreqs[p]))
	}
	return d, nil
}

// readInts reads a whole 1-D i32 dataset.
func readInts(f h5.ID, name string) ([]int64, error) {
	d, err := h5.OpenDataset(f, name)
	if err != nil {
		return nil, err
	}
	defer h5.CloseDataset(d)
	info, err := h5.DatasetInfo(d)
	if err != nil {
		return nil, err
	}
	if info.Type.Class != plan.Int32 || len(info.Shape) != 1 {
		return nil, fmt.Errorf("%s is %s %v, want 1-D i32", name, info.Type, info.Shape)
	}
	n := info.Shape[0]
	if n == 0 {
		return nil, nil
	}
	buf := make([]byte, 4*n)
	t := &plan.Transfer{Variable: name, Buffer: name, MemType: plan.I32, MemShape: []uint64{n},
		FileType: plan.I32, FileShape: info.Shape, Selection: plan.All(info.Shape)}
	if err := h5.Read(d, t, false, buf); err != nil {
		return nil, err
	}
	return ints(buf), nil
}
