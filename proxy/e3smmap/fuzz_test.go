package e3smmap

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// memSource is a map file in memory: decompositions D1..Dn all hold the same arrays.
type memSource struct {
	nprocs, ndecomp               uint64
	dims, nreqs, fill, offs, lens []byte
	covered                       string
}

func (m memSource) attribute(name string) (plan.AttributeSpec, error) {
	u64 := func(v uint64) plan.AttributeSpec {
		return plan.AttributeSpec{Name: name, Type: plan.U64, Value: binary.NativeEndian.AppendUint64(nil, v)}
	}
	switch {
	case name == "-DIM_decomp_nprocs":
		return u64(m.nprocs), nil
	case name == "-DIM_num_decomp":
		return u64(m.ndecomp), nil
	case m.has(name, "dims"):
		return plan.AttributeSpec{Name: name, Type: plan.I32, Shape: []uint64{uint64(len(m.dims) / 4)}, Value: m.dims}, nil
	case m.has(name, "fully_covered") && m.covered != "":
		return plan.AttributeSpec{Name: name, Value: []byte(m.covered)}, nil
	}
	return plan.AttributeSpec{}, fmt.Errorf("attribute %s not found", name)
}

func (m memSource) ints(name string) ([]int64, error) {
	for _, f := range []struct {
		suffix string
		b      []byte
	}{{"nreqs", m.nreqs}, {"fill_starts", m.fill}, {"offsets", m.offs}, {"lengths", m.lens}} {
		if m.has(name, f.suffix) {
			return ints(f.b), nil
		}
	}
	return nil, fmt.Errorf("dataset %s not found", name)
}

// has reports whether name is D<k>.<suffix> for a decomposition the file holds (at most 3).
func (m memSource) has(name, suffix string) bool {
	for k := uint64(1); k <= min(m.ndecomp, 3); k++ {
		if name == fmt.Sprintf("D%d.%s", k, suffix) {
			return true
		}
	}
	return false
}

func i32s(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.NativeEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// FuzzMapDecode decodes E3SM-IO decomposition maps from fuzzed attributes and datasets
// (decode is Load without the HDF5 file): no input may panic, every rejection names the
// map file and, past the header, the decomposition; an accepted map gives each rank
// requests inside its decomposition.
func FuzzMapDecode(f *testing.F) {
	// A valid 2-process map: dims 4x3, process 0 has two requests, process 1 one.
	f.Add(uint64(2), uint64(1), i32s(4, 3), i32s(2, 1), i32s(2, 1), i32s(0, 3, 9), i32s(3, 2, 3), "true")
	f.Add(uint64(1), uint64(2), i32s(5), i32s(1), i32s(0), i32s(4), i32s(1), "false")
	f.Add(uint64(1<<40), uint64(1), i32s(-1), i32s(-3), i32s(0), []byte{}, []byte{}, "")
	f.Add(uint64(2), uint64(1), i32s(65536, 65536, 65536), i32s(1, 0), i32s(1, 0), i32s(0), i32s(1), "")
	f.Fuzz(func(t *testing.T, nprocs, ndecomp uint64, dims, nreqs, fill, offs, lens []byte, covered string) {
		const path = "fuzz_map.h5"
		src := memSource{nprocs, ndecomp, dims, nreqs, fill, offs, lens, covered}
		m, err := decode(path, src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "e3sm map "+path+": ") {
				t.Fatalf("error %q does not name the map file", err)
			}
			return
		}
		if len(m.Decomps) != int(min(ndecomp, 3)) {
			t.Fatalf("%d decompositions from num_decomp %d", len(m.Decomps), ndecomp)
		}
		for k, d := range m.Decomps {
			total := int64(plan.Product(d.Dims))
			for _, size := range []int{1, 2, 3} {
				for r := 0; r < size; r++ {
					for _, q := range m.Requests(k, r, size, true) {
						if q.Offset < 0 || q.Length < 1 || q.Offset+q.Length > total {
							t.Fatalf("D%d rank %d of %d: request %+v outside %v", k+1, r, size, q, d.Dims)
						}
					}
				}
			}
		}
	})
}
