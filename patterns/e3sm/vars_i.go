package e3sm

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// I case (ELM land) history files, transcribed from E3SM-IO's header_def_I_case.cpp as
// its pull request 184 defines them (the change that makes record variables double, as the
// 8-byte _FillValues of the F files the issue measured in h5bench's E3SM-IO show): global
// attributes from add_gattrs, the 21 dimensions, then the fixed-size variables before the
// record ones. Type x is E3SM-IO's REC_XTYPE: double, float with j (the land model's own
// files, and E3SM-IO's header without that change, have these variables float).
// Decompositions: D1 lat × lon, D2 levgrnd|levdcmp × lat × lon, D3 levlak, D4 ltype, D5
// natpft (each × lat × lon).

// iGlobals are both files' global attributes in definition order; iGlobalsH1 follow them
// in h1 only.
//
//go:embed vars/i_globals.txt
var iGlobals string

//go:embed vars/i_globals_h1.txt
var iGlobalsH1 string

// iFixed are the fixed-size variables of both files (5 not partitioned, 5 on D1), iFixedH0
// the 8 that h0 adds (6 on D2 over levgrnd, 2 on D3), iRecHead the 9 non-partitioned record
// variables that precede the partitioned ones. Fields as fHead's; an attribute name:t=v is
// numeric of type t.
//
//go:embed vars/i_fixed.txt
var iFixed string

//go:embed vars/i_fixed_h0.txt
var iFixedH0 string

//go:embed vars/i_rec_head.txt
var iRecHead string

// iRecords are the 533 partitioned record variables of both files, in definition order.
// Line: name|L|units|long_name[|standard_name|cell_methods] with L the dimensions after
// time: 1 lat,lon (D1), 2g levgrnd,lat,lon and 2d levdcmp,lat,lon (D2), 3 levlak, 4 ltype,
// 5 natpft (D3..D5, each × lat,lon); cell_methods empty for "time: mean". Every one is
// REC_XTYPE with attributes long_name, [standard_name], units, cell_methods, _FillValue and
// missing_value (1e36f).
//
//go:embed vars/i_records.txt
var iRecords string

// iLayouts maps the record table's layout codes to dimensions and decomposition.
var iLayouts = map[string]struct {
	dims   []string
	decomp int
}{
	"1":  {[]string{"time", "lat", "lon"}, 1},
	"2g": {[]string{"time", "levgrnd", "lat", "lon"}, 2},
	"2d": {[]string{"time", "levdcmp", "lat", "lon"}, 2},
	"3":  {[]string{"time", "levlak", "lat", "lon"}, 3},
	"4":  {[]string{"time", "ltype", "lat", "lon"}, 4},
	"5":  {[]string{"time", "natpft", "lat", "lon"}, 5},
}

// parseIRecords expands iRecords.
func parseIRecords(text string) ([]Var, error) {
	var out []Var
	for _, line := range tableLines(text) {
		f := strings.Split(line, "|")
		if len(f) != 4 && len(f) != 6 {
			return nil, fmt.Errorf("e3sm: bad I record variable line %q", line)
		}
		lay, ok := iLayouts[f[1]]
		if !ok {
			return nil, fmt.Errorf("e3sm: I record variable %s: layout %q", f[0], f[1])
		}
		v := Var{Name: f[0], Type: plan.F64, recType: true, Decomp: lay.decomp, Dims: append([]string(nil), lay.dims...)}
		v.Attrs = append(v.Attrs, TextAttr("long_name", f[3]))
		cm := "mean"
		if len(f) == 6 {
			if f[4] != "" {
				v.Attrs = append(v.Attrs, TextAttr("standard_name", f[4]))
			}
			if f[5] != "" {
				cm = f[5]
			}
		}
		v.Attrs = append(v.Attrs, TextAttr("units", f[2]), TextAttr("cell_methods", "time: "+cm),
			NumAttr("_FillValue", plan.F32, 1e36), NumAttr("missing_value", plan.F32, 1e36))
		out = append(out, v)
	}
	return out, nil
}

// iHistory gives an I history file's global attributes and variables in definition order.
func iHistory(hist string) ([]plan.AttributeSpec, []Var, error) {
	gtext, fixed := iGlobals, iFixed
	if hist == "h0" {
		fixed += iFixedH0
	} else {
		gtext += iGlobalsH1
	}
	globals, err := parseGlobals(gtext)
	if err != nil {
		return nil, nil, err
	}
	vars, err := parseVars(fixed + iRecHead)
	if err != nil {
		return nil, nil, err
	}
	rec, err := parseIRecords(iRecords)
	if err != nil {
		return nil, nil, err
	}
	return globals, append(vars, rec...), nil
}
