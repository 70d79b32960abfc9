package openpmd

import (
	"encoding/binary"
	"math"

	"github.com/h5proxy/h5proxy/plan"
)

// Attribute values as openPMD-api's HDF5 backend stores them (layouts.md 3.3): a string
// is a scalar fixed-length C string of its length + 1 (NUL-terminated); a vector of
// strings is 1-D with the longest length + 1; numbers are scalars, vectors 1-D.

func strAttr(name, s string) plan.AttributeSpec {
	v := make([]byte, len(s)+1)
	copy(v, s)
	return plan.AttributeSpec{Name: name, Type: plan.Str(len(s) + 1), Value: v}
}

func strsAttr(name string, ss ...string) plan.AttributeSpec {
	n := 0
	for _, s := range ss {
		n = max(n, len(s))
	}
	n++
	v := make([]byte, n*len(ss))
	for i, s := range ss {
		copy(v[i*n:], s)
	}
	return plan.AttributeSpec{Name: name, Type: plan.Str(n), Shape: []uint64{uint64(len(ss))}, Value: v}
}

func f64Attr(name string, x float64) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.F64, Value: binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))}
}

func f64sAttr(name string, xs ...float64) plan.AttributeSpec {
	var v []byte
	for _, x := range xs {
		v = binary.LittleEndian.AppendUint64(v, math.Float64bits(x))
	}
	return plan.AttributeSpec{Name: name, Type: plan.F64, Shape: []uint64{uint64(len(xs))}, Value: v}
}

func f32Attr(name string, x float32) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.F32, Value: binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))}
}

func u32Attr(name string, x uint32) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.U32, Value: binary.LittleEndian.AppendUint32(nil, x)}
}

func i32Attr(name string, x int32) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.I32, Value: binary.LittleEndian.AppendUint32(nil, uint32(x))}
}

func u64Attr(name string, x uint64) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.U64, Value: binary.LittleEndian.AppendUint64(nil, x)}
}

func u64sAttr(name string, xs ...uint64) plan.AttributeSpec {
	var v []byte
	for _, x := range xs {
		v = binary.LittleEndian.AppendUint64(v, x)
	}
	return plan.AttributeSpec{Name: name, Type: plan.U64, Shape: []uint64{uint64(len(xs))}, Value: v}
}

// Standard and library constants the files carry.
const (
	// Standard is the openPMD standard version openPMD-api 0.15 writes.
	Standard = "1.1.0"
	// Software and SoftwareVersion are what openPMD-api 0.15.1 writes by default (its
	// version header at the h5bench pin still says 0.15.0).
	Software        = "openPMD-api"
	SoftwareVersion = "0.15.0"
	// BasePath is fixed by the 1.x standard.
	BasePath = "/data/%T/"
	// MeshesPath is what 8a sets ("fields", stored with a trailing slash) and
	// ParticlesPath openPMD-api's default.
	MeshesPath    = "fields/"
	ParticlesPath = "particles/"
	// DateFormat is strftime's "%F %T %z" in Go notation.
	DateFormat = "2006-01-02 15:04:05 -0700"
)

// unitL is the unitDimension of a length (position, positionOffset).
var unitL = []float64{1, 0, 0, 0, 0, 0, 0}

// zeros7 is the dimensionless unitDimension.
var zeros7 = make([]float64, 7)

// meshAttrs are the mesh record attributes openPMD-api writes for 8a's meshes (defaults,
// 8a sets none), in the alphabetical order it writes them.
func meshAttrs() []plan.AttributeSpec {
	return []plan.AttributeSpec{
		strsAttr("axisLabels", "x"),
		strAttr("dataOrder", "C"),
		strAttr("geometry", "cartesian"),
		f64sAttr("gridGlobalOffset", 0),
		f64sAttr("gridSpacing", 1),
		f64Attr("gridUnitSI", 1),
		f32Attr("timeOffset", 0),
		f64sAttr("unitDimension", zeros7...),
	}
}

// meshComponentAttrs are a mesh component's attributes.
func meshComponentAttrs() []plan.AttributeSpec {
	return []plan.AttributeSpec{f64sAttr("position", 0), f64Attr("unitSI", 1)}
}

// recordAttrs are a particle record's attributes.
func recordAttrs(unitDimension []float64) []plan.AttributeSpec {
	return []plan.AttributeSpec{f32Attr("timeOffset", 0), f64sAttr("unitDimension", unitDimension...)}
}

// componentAttrs are a particle record component's attributes.
func componentAttrs() []plan.AttributeSpec {
	return []plan.AttributeSpec{f64Attr("unitSI", 1)}
}

// constantAttrs are a constant component's attributes: value, shape (written when the
// group is created), then unitSI.
func constantAttrs(value float64, n uint64) []plan.AttributeSpec {
	return []plan.AttributeSpec{f64Attr("value", value), u64sAttr("shape", n), f64Attr("unitSI", 1)}
}

// speciesAttrs are the attributes 8a sets on the species `ion` at iteration it.
func speciesAttrs(it int, ratio uint64) []plan.AttributeSpec {
	return []plan.AttributeSpec{i32Attr("openPMD_STEP", int32(it)), i32Attr("p2mRatio", int32(ratio)), strAttr("particleSmoothing", "none")}
}

// iterationAttrs are iteration it's attributes (openPMD-api's defaults) in the order the
// flush writes them, by name; the variable-based encoding adds snapshot, which
// Iteration::flushVariableBased sets in memory before the iteration's members are written
// but which is flushed with the others (the real 8a's /data header: dt, snapshot, time,
// timeUnitSI, all after the members).
func iterationAttrs(enc Encoding, it int) []plan.AttributeSpec {
	if enc == VariableBased {
		return []plan.AttributeSpec{f64Attr("dt", 1), u64Attr("snapshot", uint64(it)), f64Attr("time", 0), f64Attr("timeUnitSI", 1)}
	}
	return []plan.AttributeSpec{f64Attr("dt", 1), f64Attr("time", 0), f64Attr("timeUnitSI", 1)}
}

// particlesPathAttr is the series' particlesPath. 8a sets the meshes' path but not the
// particles': Iteration::flush then sets it and writes it at once (Series::
// flushParticlesPath), before the species are flushed, and the series' attribute flush
// at the end writes it again (writeAttribute: H5Aexists, then H5Aopen and H5Awrite).
func particlesPathAttr() plan.AttributeSpec { return strAttr("particlesPath", ParticlesPath) }

// rootAttrs are the series attributes on "/", in the order openPMD-api writes them (by
// name); particlesPath was created before the particles (particlesPathAttr) and is
// written again.
func rootAttrs(enc Encoding, format, date string) []plan.AttributeSpec {
	again := particlesPathAttr()
	again.Exists = true
	return []plan.AttributeSpec{
		strAttr("basePath", BasePath),
		strAttr("date", date),
		strAttr("iterationEncoding", enc.String()),
		strAttr("iterationFormat", format),
		strAttr("meshesPath", MeshesPath),
		strAttr("openPMD", Standard),
		u32Attr("openPMDextension", 0),
		again,
		strAttr("software", Software),
		strAttr("softwareVersion", SoftwareVersion),
	}
}
