package e3smmap

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// Decomposition is one decomposition D<k> to write into a map file: its shape and each map
// process's requests (flattened offset and length, none crossing a row of the last
// dimension), all of them written (fill_starts = nreqs).
type Decomposition struct {
	Dims             []uint64
	Offsets, Lengths [][]int64 // per map process
	// FullyCovered is false when the requests leave elements unwritten.
	FullyCovered bool
}

// Write writes a map file in E3SM-IO's HDF5 format (what Load reads), serially: the root
// attributes -DIM_decomp_nprocs and -DIM_num_decomp, and per decomposition the attributes
// D<k>.dims and D<k>.fully_covered and the i32 datasets D<k>.nreqs, D<k>.fill_starts,
// D<k>.offsets and D<k>.lengths. Every decomposition has the same number of map
// processes; values must fit E3SM-IO's 32-bit integers.
func Write(path string, ds []Decomposition) (err error) {
	if len(ds) == 0 {
		return fmt.Errorf("e3sm map %s: no decompositions", path)
	}
	nprocs := len(ds[0].Offsets)
	for k, d := range ds {
		if len(d.Offsets) != nprocs || len(d.Lengths) != nprocs {
			return fmt.Errorf("e3sm map %s: D%d has %d/%d processes, D1 %d", path, k+1, len(d.Offsets), len(d.Lengths), nprocs)
		}
	}
	// Every value is checked before the file is created: a refused map leaves nothing.
	for k, d := range ds {
		for _, vs := range append(append([][]int64{toInt64(d.Dims)}, d.Offsets...), d.Lengths...) {
			if _, err := encodeI32(vs); err != nil {
				return fmt.Errorf("e3sm map %s: D%d: %w", path, k+1, err)
			}
		}
	}
	f, err := h5.CreateFile(path, h5.Access{})
	if err != nil {
		return fmt.Errorf("e3sm map %s: %w", path, err)
	}
	defer func() {
		if cerr := h5.CloseFile(f); err == nil && cerr != nil {
			err = cerr
		}
	}()
	u64 := func(name string, v uint64) error {
		b := make([]byte, 8)
		binary.NativeEndian.PutUint64(b, v)
		return h5.WriteAttribute(f, plan.AttributeSpec{Name: "-DIM_" + name, Type: plan.U64, Value: b})
	}
	if err := u64("decomp_nprocs", uint64(nprocs)); err != nil {
		return err
	}
	if err := u64("num_decomp", uint64(len(ds))); err != nil {
		return err
	}
	for k, d := range ds {
		name := func(s string) string { return fmt.Sprintf("D%d.%s", k+1, s) }
		dims, err := encodeI32(toInt64(d.Dims))
		if err != nil {
			return fmt.Errorf("e3sm map %s: %s: %w", path, name("dims"), err)
		}
		if err := h5.WriteAttribute(f, plan.AttributeSpec{Name: name("dims"), Type: plan.I32, Shape: []uint64{uint64(len(d.Dims))}, Value: dims}); err != nil {
			return err
		}
		cov := fmt.Sprint(d.FullyCovered)
		if err := h5.WriteAttribute(f, plan.AttributeSpec{Name: name("fully_covered"), Type: plan.Str(len(cov)), Value: []byte(cov)}); err != nil {
			return err
		}
		var nreqs, offs, lens []int64
		for p := range nprocs {
			nreqs = append(nreqs, int64(len(d.Offsets[p])))
			offs, lens = append(offs, d.Offsets[p]...), append(lens, d.Lengths[p]...)
		}
		for _, v := range []struct {
			name string
			vals []int64
		}{{"nreqs", nreqs}, {"fill_starts", nreqs}, {"offsets", offs}, {"lengths", lens}} {
			if err := writeInts(f, name(v.name), v.vals); err != nil {
				return fmt.Errorf("e3sm map %s: %w", path, err)
			}
		}
	}
	return nil
}

func toInt64(v []uint64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// encodeI32 encodes values as native i32s, refusing any outside their range.
func encodeI32(v []int64) ([]byte, error) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("value %d does not fit E3SM-IO's 32-bit integers", x)
		}
		binary.NativeEndian.PutUint32(b[4*i:], uint32(int32(x)))
	}
	return b, nil
}

// writeInts writes a whole 1-D i32 dataset.
func writeInts(f h5.ID, name string, vals []int64) error {
	buf, err := encodeI32(vals)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	shape := []uint64{uint64(len(vals))}
	d, err := h5.CreateDataset(f, name, plan.DatasetSpec{Type: plan.I32, Shape: shape})
	if err != nil {
		return err
	}
	if len(vals) > 0 {
		t := &plan.Transfer{Variable: name, Buffer: name, MemType: plan.I32, MemShape: shape, FileType: plan.I32, FileShape: shape, Selection: plan.All(shape)}
		if err := h5.Write(d, t, false, buf); err != nil {
			h5.CloseDataset(d)
			return err
		}
	}
	return h5.CloseDataset(d)
}
