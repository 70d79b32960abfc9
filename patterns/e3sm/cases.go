package e3sm

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// Dim is a netCDF dimension of a history file; Len 0 is the unlimited one.
type Dim struct {
	Name string
	Len  uint64
}

// Var is one netCDF variable: a dataset at the file's root.
type Var struct {
	Name string
	// Type is the dataset's datatype (and the memory type of its transfers).
	Type plan.Type
	// Dims are the netCDF dimension names, the unlimited one first for record variables.
	Dims []string
	// Decomp is the 1-based decomposition of a partitioned variable, 0 for variables
	// written whole by rank 0.
	Decomp int
	// Attrs are the variable's attributes in definition order.
	Attrs []plan.AttributeSpec
	// Record reports a first dimension that is unlimited.
	Record bool
	// Shape is the extent of the non-record dimensions.
	Shape []uint64
	// recType marks E3SM-IO's REC_XTYPE variables: double, float with j.
	recType bool
}

// History is one output file: its dimensions, global attributes and variables.
type History struct {
	// Name is "h0" or "h1" (F and I) or "" (G).
	Name    string
	Dims    []Dim
	Globals []plan.AttributeSpec
	Vars    []Var
	// Records is the number of records written to the file.
	Records int
}

// Counts summarises a history file the way layouts.md 4.1 tabulates it.
type Counts struct {
	PerDecomp                 []int // partitioned variables per decomposition (index k-1)
	Partitioned, NotPartition int
	Fixed, Record             int
}

// Counts tallies the file's variables.
func (h *History) Counts(ndecomp int) Counts {
	c := Counts{PerDecomp: make([]int, ndecomp)}
	for _, v := range h.Vars {
		if v.Decomp > 0 {
			c.PerDecomp[v.Decomp-1]++
			c.Partitioned++
		} else {
			c.NotPartition++
		}
		if v.Record {
			c.Record++
		} else {
			c.Fixed++
		}
	}
	return c
}

// TextAttr is a text attribute as E3SM-IO's HDF5 driver writes it: a scalar fixed-length
// string of len+1 bytes, NUL-terminated.
func TextAttr(name, value string) plan.AttributeSpec {
	return plan.AttributeSpec{Name: name, Type: plan.Str(len(value) + 1), Value: append([]byte(value), 0)}
}

// NumAttr is a numeric attribute: 1-D of len(values) elements of t (I32, F32, F64 or U64).
func NumAttr(name string, t plan.Type, values ...float64) plan.AttributeSpec {
	b := make([]byte, len(values)*t.Size)
	ne := binary.NativeEndian
	for i, v := range values {
		switch t.Class {
		case plan.Int32:
			ne.PutUint32(b[i*4:], uint32(int32(v)))
		case plan.Float32:
			ne.PutUint32(b[i*4:], math.Float32bits(float32(v)))
		case plan.Float64:
			ne.PutUint64(b[i*8:], math.Float64bits(v))
		case plan.Uint64:
			ne.PutUint64(b[i*8:], uint64(v))
		}
	}
	return plan.AttributeSpec{Name: name, Type: t, Shape: []uint64{uint64(len(values))}, Value: b}
}

// fillOfVarType gives v's _FillValue v's own type: E3SM-IO's PUT_ATTR_FILL writes the fill
// value with the variable's external type, so a double variable gets an 8-byte _FillValue
// (the tables transcribe the real files' float one).
func fillOfVarType(v *Var) {
	for i, a := range v.Attrs {
		if a.Name != "_FillValue" || a.Type.Class == v.Type.Class || len(a.Value) != a.Type.Size {
			continue
		}
		var x float64
		ne := binary.NativeEndian
		switch a.Type.Class {
		case plan.Float32:
			x = float64(math.Float32frombits(ne.Uint32(a.Value)))
		case plan.Float64:
			x = math.Float64frombits(ne.Uint64(a.Value))
		case plan.Int32:
			x = float64(int32(ne.Uint32(a.Value)))
		default:
			continue
		}
		switch v.Type.Class {
		case plan.Float32, plan.Float64, plan.Int32:
			v.Attrs[i] = NumAttr(a.Name, v.Type, x)
		}
	}
}

// DimAttr is the root attribute of a dimension: -DIM_<name>, u64 scalar, H5S_UNLIMITED for
// the unlimited one.
func DimAttr(d Dim) plan.AttributeSpec {
	v := d.Len
	if v == 0 {
		v = plan.MaxUnlimited
	}
	b := make([]byte, 8)
	binary.NativeEndian.PutUint64(b, v)
	return plan.AttributeSpec{Name: "-DIM_" + d.Name, Type: plan.U64, Value: b}
}

// typeOf maps the table letters to types: d f64, f f32, i i32, c NC_CHAR, which E3SM-IO
// stores as H5T_NATIVE_CHAR: a signed byte (i8), x REC_XTYPE (f64 until j makes it f32).
func typeOf(c string) (plan.Type, error) {
	switch c {
	case "d", "x":
		return plan.F64, nil
	case "f":
		return plan.F32, nil
	case "i":
		return plan.I32, nil
	case "c":
		return plan.I8, nil
	}
	return plan.Type{}, fmt.Errorf("e3sm: variable type %q", c)
}

// parseVars reads "type name dims decomp | k=v; k=v" lines (dims comma-separated, - for
// a scalar); an attribute k:t=v is a number of type letter t, the others are text.
func parseVars(text string) ([]Var, error) {
	var out []Var
	for _, line := range tableLines(text) {
		head, attrs, _ := strings.Cut(line, "|")
		f := strings.Fields(head)
		if len(f) != 4 {
			return nil, fmt.Errorf("e3sm: bad variable line %q", line)
		}
		t, err := typeOf(f[0])
		if err != nil {
			return nil, err
		}
		k, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("e3sm: bad decomposition in %q", line)
		}
		v := Var{Name: f[1], Type: t, Decomp: k, recType: f[0] == "x"}
		if f[2] != "-" {
			v.Dims = strings.Split(f[2], ",")
		}
		for _, kv := range strings.Split(attrs, ";") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			name, val, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("e3sm: bad attribute %q of %s", kv, v.Name)
			}
			name, tl, numeric := strings.Cut(name, ":")
			if !numeric {
				v.Attrs = append(v.Attrs, TextAttr(name, val))
				continue
			}
			at, err := typeOf(tl)
			if err != nil {
				return nil, fmt.Errorf("e3sm: attribute %s of %s: %w", name, v.Name, err)
			}
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("e3sm: attribute %s of %s: value %q", name, v.Name, val)
			}
			v.Attrs = append(v.Attrs, NumAttr(name, at, x))
		}
		out = append(out, v)
	}
	return out, nil
}

// tableLines are the non-empty lines of a table, trimmed.
func tableLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// parseGlobals reads "t name=text", "i name=int", "d name=double" lines; a malformed line
// is an error, so that a typo in a table cannot turn into a silent zero.
func parseGlobals(text string) ([]plan.AttributeSpec, error) {
	var out []plan.AttributeSpec
	for _, line := range tableLines(text) {
		kind, kv, _ := strings.Cut(line, " ")
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("e3sm: bad global attribute line %q", line)
		}
		if kind == "t" {
			out = append(out, TextAttr(name, strings.ReplaceAll(val, `\n`, "\n")))
			continue
		}
		t := map[string]plan.Type{"i": plan.I32, "d": plan.F64}[kind]
		n, err := strconv.ParseFloat(val, 64)
		if t.Size == 0 || err != nil || (kind == "i" && n != math.Trunc(n)) {
			return nil, fmt.Errorf("e3sm: bad global attribute line %q", line)
		}
		out = append(out, NumAttr(name, t, n))
	}
	return out, nil
}

// parseRecordTable expands the F record-variable table (see fH0).
func parseRecordTable(text string) ([]Var, error) {
	var out []Var
	add := func(name string, threeD bool, units, long, std, cm, flags string) {
		v := Var{Name: name, Type: plan.F32, Dims: []string{"time", "ncol"}, Decomp: 2}
		if threeD {
			v.Dims, v.Decomp = []string{"time", "lev", "ncol"}, 3
			v.Attrs = append(v.Attrs, NumAttr("mdims", plan.I32, 1))
		}
		if strings.Contains(flags, "S") {
			v.Attrs = append(v.Attrs, TextAttr("Sampling_Sequence", "rad_lwsw"))
		}
		if strings.Contains(flags, "F") {
			v.Attrs = append(v.Attrs, NumAttr("_FillValue", plan.F32, 1e20), NumAttr("missing_value", plan.F32, 1e20))
		}
		if units != "-" {
			v.Attrs = append(v.Attrs, TextAttr("units", units))
		}
		if strings.Contains(flags, "w") {
			v.Attrs = append(v.Attrs, TextAttr("mixing_ratio", "wet"))
		}
		if strings.Contains(flags, "d") {
			v.Attrs = append(v.Attrs, TextAttr("mixing_ratio", "dry"))
		}
		v.Attrs = append(v.Attrs, TextAttr("long_name", long))
		if std != "" {
			v.Attrs = append(v.Attrs, TextAttr("standard_name", std))
		}
		if cm == "" {
			cm = "mean"
		}
		v.Attrs = append(v.Attrs, TextAttr("cell_methods", "time: "+cm))
		out = append(out, v)
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "*"):
			f := strings.Fields(line[1:])
			for _, sp := range f[1:] {
				switch f[0] {
				case "AQ_":
					add("AQ_"+sp, false, "kg/m2/s", sp+" aqueous chemistry (for gas species)", "", "", "")
				case "DF_":
					add("DF_"+sp, false, "kg/m2/s", "dry deposition flux", "", "", "")
				case "SF":
					u := "kg/m2/s"
					if strings.HasPrefix(sp, "num") {
						u = " 1/m2/s"
					}
					add("SF"+sp, false, u, sp+" surface flux", "", "", "")
				default:
					return nil, fmt.Errorf("e3sm: unknown family %q", f[0])
				}
			}
		case strings.HasPrefix(line, "+"):
			f := strings.Fields(line[1:])
			sp := f[0]
			num := strings.HasPrefix(sp, "num")
			flux, mass := "kg/m2/s", "kg/kg"
			if num {
				flux, mass = " 1/m2/s", " 1/kg"
			}
			for _, suf := range f[1:] {
				switch suf {
				case "DDF":
					add(sp+suf, false, flux, sp+" dry deposition flux at bottom (grav + turb)", "", "", "")
				case "SFWET":
					long := "Wet deposition flux at surface"
					if strings.Contains(sp, "_c") {
						long = sp + " wet deposition flux at surface"
					}
					add(sp+suf, false, flux, long, "", "", "")
				case "SF":
					kind := "dust"
					if strings.HasPrefix(sp, "mom") || strings.HasPrefix(sp, "ncl") {
						kind = "seasalt"
					}
					add(sp+suf, false, "kg/m2/s", sp+" "+kind+" surface emission", "", "", "")
				case "_SRF":
					add(sp+suf, false, mass, sp+" in bottom layer", "", "", "")
				case "_sfgaex1":
					add(sp+suf, false, "kg/m2/s", sp+" gas-aerosol-exchange primary column tendency", "", "", "")
				case "_CLXF":
					add(sp+suf, false, "molec/cm2/s", "vertically intergrated external forcing for "+sp, "", "", "")
				default:
					return nil, fmt.Errorf("e3sm: unknown aerosol suffix %q", suf)
				}
			}
		default:
			f := strings.Split(line, "|")
			if len(f) != 7 {
				return nil, fmt.Errorf("e3sm: bad record variable line %q", line)
			}
			add(f[0], f[1] == "3", f[2], f[3], f[4], f[5], f[6])
		}
	}
	return out, nil
}

// buildHistory assembles one history file of case c for map m.
func buildHistory(c, hist string, m *Map, float bool, records int) (*History, error) {
	h := &History{Name: hist, Records: records}
	dd := func(k, i int) uint64 { return m.Decomps[k].Dims[i] }
	var vars []Var
	var err error
	switch c {
	case "F":
		lev, ncol := dd(2, 0), dd(2, 1)
		h.Dims = []Dim{{"time", 0}, {"nbnd", 2}, {"chars", 8}, {"lev", lev}, {"ilev", lev + 1}, {"ncol", ncol}}
		if h.Globals, err = parseGlobals(fGlobals); err != nil {
			return nil, err
		}
		freq := "day_5"
		table := fH0
		if hist == "h1" {
			freq, table = "hour_1", fH1
		}
		h.Globals = append(h.Globals, TextAttr("time_period_freq", freq))
		if vars, err = parseVars(fHead); err != nil {
			return nil, err
		}
		rec, err := parseRecordTable(table)
		if err != nil {
			return nil, err
		}
		vars = append(vars, rec...)
	case "G":
		// E3SM-IO's order (its -DIM_ attributes follow it).
		h.Dims = []Dim{{"Time", 0}, {"nCells", dd(0, 0)}, {"nEdges", dd(1, 0)}, {"nVertices", dd(4, 0)},
			{"nVertLevelsP1", dd(5, 1)}, {"nVertLevels", dd(2, 1)}, {"StrLen", 64}}
		if h.Globals, err = parseGlobals(gGlobals); err != nil {
			return nil, err
		}
		if vars, err = parseVars(gVars); err != nil {
			return nil, err
		}
	case "I":
		// E3SM-IO's order; the land model's unstructured sizes (gridcell ... pft) are the
		// production run's constants, unused by any variable.
		h.Dims = []Dim{{"time", 0}, {"lon", dd(0, 1)}, {"lat", dd(0, 0)}, {"gridcell", 62482}, {"topounit", 62482},
			{"landunit", 271014}, {"column", 1020642}, {"pft", 2020354}, {"levgrnd", dd(1, 0)}, {"levurb", 5},
			{"levlak", dd(2, 0)}, {"numrad", 2}, {"month", 12}, {"levsno", 5}, {"ltype", dd(3, 0)}, {"nvegwcs", 4},
			{"natpft", dd(4, 0)}, {"string_length", 16}, {"levdcmp", dd(1, 0)}, {"levtrc", 10}, {"hist_interval", 2}}
		if h.Globals, vars, err = iHistory(hist); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("e3sm: case %q", c)
	}
	lens := map[string]uint64{}
	for _, d := range h.Dims {
		lens[d.Name] = d.Len
	}
	for i := range vars {
		v := &vars[i]
		for j, name := range v.Dims {
			n, ok := lens[name]
			if !ok {
				return nil, fmt.Errorf("e3sm: variable %s: unknown dimension %s", v.Name, name)
			}
			if n == 0 {
				if j != 0 {
					return nil, fmt.Errorf("e3sm: variable %s: unlimited dimension %s not first", v.Name, name)
				}
				v.Record = true
				continue
			}
			v.Shape = append(v.Shape, n)
		}
		if v.Decomp > 0 {
			if v.Decomp > len(m.Decomps) {
				return nil, fmt.Errorf("e3sm: variable %s on D%d, the map has %d decompositions", v.Name, v.Decomp, len(m.Decomps))
			}
			if want := m.Decomps[v.Decomp-1].Dims; fmt.Sprint(want) != fmt.Sprint(v.Shape) {
				return nil, fmt.Errorf("e3sm: variable %s has shape %v, its decomposition D%d has %v", v.Name, v.Shape, v.Decomp, want)
			}
			// E3SM-IO's types: partitioned record variables are double (float with j; G
			// always double); fixed ones keep the header's.
			if v.Record && v.Type.Class != plan.Int32 {
				v.Type = plan.F64
				if float && c != "G" {
					v.Type = plan.F32
				}
			}
		}
		if v.recType && float {
			v.Type = plan.F32
		}
		fillOfVarType(v)
	}
	h.Vars = vars
	return h, nil
}
