package e3sm

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
)

// refTypeName is the reference header's type word for a pattern type; 1-byte variables are
// E3SM-IO's NC_CHAR ones (H5T_NATIVE_CHAR).
func refTypeName(t plan.Type, variable bool) string {
	if t.Class == plan.Int8 && variable {
		return "char"
	}
	return t.Class.String()
}

// RefHeader renders the history in the header format of bench/ref/e3sm_canonical.c (the
// reference program of E3SM-IO's canonical write): its file, global attributes,
// dimensions and variables with their attributes, one per line.
func (h *History) RefHeader() []byte {
	var b bytes.Buffer
	hist := h.Name
	if hist == "" {
		hist = "-"
	}
	fmt.Fprintf(&b, "file %s %d\n", hist, h.Records)
	attr := func(kw string, a plan.AttributeSpec) {
		n := a.Type.Size
		if a.Type.Class != plan.String {
			n = len(a.Value) / a.Type.Size
		}
		fmt.Fprintf(&b, "%s %s %s %d %s\n", kw, a.Name, refTypeName(a.Type, false), n, hex.EncodeToString(a.Value))
	}
	for _, a := range h.Globals {
		attr("gattr", a)
	}
	for _, d := range h.Dims {
		fmt.Fprintf(&b, "dim %s %d\n", d.Name, d.Len)
	}
	for _, v := range h.Vars {
		rec := 0
		if v.Record {
			rec = 1
		}
		fmt.Fprintf(&b, "var %s %s %d %d %d", v.Name, refTypeName(v.Type, true), v.Decomp, rec, len(v.Shape))
		for _, n := range v.Shape {
			fmt.Fprintf(&b, " %d", n)
		}
		b.WriteByte('\n')
		for _, a := range v.Attrs {
			attr("attr", a)
		}
	}
	return b.Bytes()
}
