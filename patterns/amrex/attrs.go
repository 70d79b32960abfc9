package amrex

import (
	"encoding/binary"
	"math"

	"github.com/h5proxy/h5proxy/plan"
)

// BoxType is AMReX's box compound (plotfile and particle `boxes`, `prob_domain`): six
// native ints, packed.
var BoxType = plan.Struct("box", 24,
	plan.Field("lo_i", 0, plan.I32), plan.Field("lo_j", 4, plan.I32), plan.Field("lo_k", 8, plan.I32),
	plan.Field("hi_i", 12, plan.I32), plan.Field("hi_j", 16, plan.I32), plan.Field("hi_k", 20, plan.I32))

// CenterType is the `boxcenter` compound: one native int per dimension, 1 where the box
// is nodal.
var CenterType = plan.Struct("boxcenter", 12,
	plan.Field("i", 0, plan.I32), plan.Field("j", 4, plan.I32), plan.Field("k", 8, plan.I32))

// Version strings of the two files.
const (
	// PlotfileVersion is the plotfile's version_name (AMReX's default versionName).
	PlotfileVersion = "HyperCLaw-V1.1"
	// PlotfileType is the plotfile's plotfile_type.
	PlotfileType = "VanillaHDF5"
	// CheckpointVersion is the particle file's version_name in checkpoint mode with double
	// precision reals.
	CheckpointVersion = "Version_Two_Dot_One_double"
)

var le = binary.LittleEndian

func strAttr(name, s string) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.Str(len(s) + 1), Value: append([]byte(s), 0)}
}

func i32Attr(name string, vals ...int32) plan.AttributeSpec {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		le.PutUint32(b[4*i:], uint32(v))
	}
	return plan.AttributeSpec{Name: name, Type: plan.I32, Shape: []uint64{uint64(len(vals))}, Value: b}
}

func i64Attr(name string, vals ...int64) plan.AttributeSpec {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		le.PutUint64(b[8*i:], uint64(v))
	}
	return plan.AttributeSpec{Name: name, Type: plan.I64, Shape: []uint64{uint64(len(vals))}, Value: b}
}

func f64Attr(name string, vals ...float64) plan.AttributeSpec {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		le.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return plan.AttributeSpec{Name: name, Type: plan.F64, Shape: []uint64{uint64(len(vals))}, Value: b}
}

// boxAttr is a scalar attribute of BoxType.
func boxAttr(name string, b Box) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: BoxType, Value: boxBytes([]Box{b})}
}

// boxBytes packs boxes as BoxType elements.
func boxBytes(boxes []Box) []byte {
	out := make([]byte, 0, 24*len(boxes))
	for _, b := range boxes {
		for _, v := range append(b.Lo[:], b.Hi[:]...) {
			out = le.AppendUint32(out, uint32(int32(v)))
		}
	}
	return out
}

// DecodeBoxes unpacks BoxType elements (for readers and tests).
func DecodeBoxes(b []byte) []Box {
	out := make([]Box, len(b)/24)
	for i := range out {
		for d := 0; d < 3; d++ {
			out[i].Lo[d] = int(int32(le.Uint32(b[24*i+4*d:])))
			out[i].Hi[d] = int(int32(le.Uint32(b[24*i+12+4*d:])))
		}
	}
	return out
}

func u64Bytes(vals []uint64) []byte {
	out := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		out = le.AppendUint64(out, v)
	}
	return out
}

func i32Bytes(vals []int32) []byte {
	out := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		out = le.AppendUint32(out, uint32(v))
	}
	return out
}
