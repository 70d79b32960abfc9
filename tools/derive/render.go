package derive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// filters renders a chunked dataset's pipeline. The binding reports deflate apart from
// the others, so shuffle (which precedes compression wherever codes set it) comes first.
func filters(i h5.Info) string {
	var out, rest []string
	for _, f := range i.Filters {
		switch f.ID {
		case plan.FilterShuffle:
			out = append(out, "shuffle")
		case plan.FilterFletcher32:
			rest = append(rest, "fletcher32")
		case plan.FilterNBit:
			rest = append(rest, "nbit")
		case plan.FilterSZIP:
			rest = append(rest, "szip")
		case plan.FilterScaleOffset:
			rest = append(rest, "scaleoffset")
		default:
			rest = append(rest, fmt.Sprintf("filter%d", f.ID))
		}
	}
	if i.Deflate > 0 {
		out = append(out, fmt.Sprintf("{deflate: %d}", i.Deflate))
	}
	return strings.Join(append(out, rest...), ", ")
}

// typeName names a datatype in the description: an atomic name, strN, or a compound
// declared under types (named after the first dataset or attribute that uses it).
func (d *deriver) typeName(t plan.Type, user string) string {
	switch t.Class {
	case plan.String:
		return stringName(t)
	case plan.Compound:
		for _, n := range d.types {
			// Equal, or written alike: a compound attribute's variable-length members are
			// read as long as its longest value, a dataset's as long as a pointer.
			if n.t.Equal(t) || t.HasVarLen() && d.members(n.t) == d.members(t) {
				return n.name
			}
		}
		name := ident(user)
		for _, n := range d.types {
			if n.name == name {
				name += "_t"
			}
		}
		d.types = append(d.types, namedType{name, t})
		if off := packed(t); off != nil {
			d.notes = append(d.notes, fmt.Sprintf("type %s: the file's member offsets %v are not C's natural alignment (the description packs as C would)", name, off))
		}
		return name
	}
	return t.Class.String()
}

// stringName names a string type: strN, or vstr for a variable-length one (a literal value
// sizes it; generated values take vstr's length); ustrN and uvstr for UTF-8.
func stringName(t plan.Type) string {
	s := fmt.Sprintf("str%d", t.Size)
	if t.VarLen {
		s = "vstr"
	}
	if t.UTF8 {
		s = "u" + s
	}
	return s
}

// packed returns the member offsets of t when they differ from C's natural alignment.
func packed(t plan.Type) []int {
	off, bad := 0, false
	var offs []int
	for _, m := range t.Members {
		a := m.Type.Align()
		off = (off + a - 1) / a * a
		if m.Offset != off {
			bad = true
		}
		offs = append(offs, m.Offset)
		off += m.Type.Size
	}
	if bad {
		return offs
	}
	return nil
}

// members renders a compound's members as a flow map, nested compounds inline.
func (d *deriver) members(t plan.Type) string {
	var f []string
	for _, m := range t.Members {
		s := ""
		switch m.Type.Class {
		case plan.Compound:
			s = d.members(m.Type)
		case plan.String:
			s = stringName(m.Type)
		default:
			s = m.Type.Class.String()
		}
		f = append(f, key(m.Name)+": "+s)
	}
	return "{" + strings.Join(f, ", ") + "}"
}

// attrs renders attributes: small numeric and string ones with their values, the others
// with generated values.
func (d *deriver) attrs(w *bytes.Buffer, as []plan.AttributeSpec, ind string) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "%sattributes:\n", ind)
	for _, a := range as {
		f := []string{"type: " + d.typeName(a.Type, a.Name)}
		n := plan.Product(a.Shape)
		if len(a.Shape) > 0 {
			f = append(f, fmt.Sprintf("shape: [%d]", n))
		}
		comment := ""
		if len(a.Shape) > 1 {
			comment = fmt.Sprintf("    # %v in the file: descriptions have 1-D attributes", a.Shape)
		}
		if v, ok := values(a, d.o.SmallValues); ok {
			f = append(f, "value: "+v)
		} else {
			f = append(f, "generate: seeded")
		}
		fmt.Fprintf(w, "%s  %s: {%s}%s\n", ind, key(a.Name), strings.Join(f, ", "), comment)
	}
}

// values renders an attribute's value (a scalar or a list) when it is small: numbers,
// a string, or compounds as maps of their members' values.
func values(a plan.AttributeSpec, limit int) (string, bool) {
	n := int(plan.Product(a.Shape))
	if n > limit {
		return "", false
	}
	var out []string
	for i := 0; i < n; i++ {
		b := a.Value[i*a.Type.Size : (i+1)*a.Type.Size]
		out = append(out, element(a.Type, b))
	}
	if len(a.Shape) == 0 {
		return out[0], true
	}
	return "[" + strings.Join(out, ", ") + "]", true
}

// element renders one element: a compound as a flow map of its members by name (nested
// compounds as nested maps), anything else as a scalar.
func element(t plan.Type, b []byte) string {
	if t.Class != plan.Compound {
		return scalar(t, b)
	}
	parts := make([]string, len(t.Members))
	for i, m := range t.Members {
		parts[i] = key(m.Name) + ": " + element(m.Type, b[m.Offset:m.Offset+m.Type.Size])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func scalar(t plan.Type, b []byte) string {
	le := binary.LittleEndian
	switch t.Class {
	case plan.Float32:
		return fmtFloat(float64(math.Float32frombits(le.Uint32(b))), 32)
	case plan.Float64:
		return fmtFloat(math.Float64frombits(le.Uint64(b)), 64)
	case plan.Int8:
		return strconv.Itoa(int(int8(b[0])))
	case plan.Uint8:
		return strconv.Itoa(int(b[0]))
	case plan.Int16:
		return strconv.Itoa(int(int16(le.Uint16(b))))
	case plan.Uint16:
		return strconv.Itoa(int(le.Uint16(b)))
	case plan.Int32:
		return strconv.Itoa(int(int32(le.Uint32(b))))
	case plan.Uint32:
		return strconv.FormatUint(uint64(le.Uint32(b)), 10)
	case plan.Int64:
		return strconv.FormatInt(int64(le.Uint64(b)), 10)
	case plan.Uint64:
		return strconv.FormatUint(le.Uint64(b), 10)
	case plan.String:
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return strconv.Quote(string(b))
	}
	return "0"
}

// fmtFloat renders a float so that YAML reads it back as a float (1.0, not 1).
func fmtFloat(v float64, bits int) string {
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.${}:-]*$`)

// key renders a map key or name: plain when YAML reads it back unchanged, else quoted.
func key(s string) string {
	if plainKey.MatchString(s) && !strings.Contains(s, ": ") {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		default:
			return s
		}
	}
	return strconv.Quote(s)
}

func quoteIf(s string) string { return key(s) }

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// ident turns an HDF5 name into a parameter or type name.
func ident(s string) string {
	s = strings.Trim(nonIdent.ReplaceAllString(s, "_"), "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "x" + s
	}
	return s
}
