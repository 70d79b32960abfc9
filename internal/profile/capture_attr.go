package profile

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// attrEvent is what the library traces of an attribute at H5Acreate2 and H5Awrite
// (docs/profile.md's record format): the object it hangs on, its name, its file type and
// dims, and at H5Awrite the memory type and the value's bytes (hex) when they were few.
type attrEvent struct {
	Object     string       `json:"object"`
	Name       string       `json:"name"`
	TypeClass  int          `json:"type_class"`
	TypeSize   int          `json:"type_size"`
	TypeSign   int          `json:"type_sign"`
	StrPad     int          `json:"type_str_pad"`
	Cset       int          `json:"type_cset"`
	VLen       bool         `json:"type_vlen"`
	Dims       []int64      `json:"dims"`
	Members    []typeMember `json:"type_members"`
	MemMembers []typeMember `json:"mem_members"`
	MemClass   *int         `json:"mem_class"`
	MemSize    int          `json:"mem_size"`
	MemSign    int          `json:"mem_sign"`
	Value      *string      `json:"value"`
	// Refs are a written value's references per element when its memory type is a
	// variable-length sequence of references (H5DS's DIMENSION_LIST), in hex.
	Refs [][]string `json:"refs"`
	// Strings are a written value's variable-length strings.
	Strings []string `json:"strings"`
	// Tree and MemTree are the file and memory types whole where the fields above cannot
	// say them (capture_tree.go).
	Tree    *typeTree `json:"type_tree"`
	MemTree *typeTree `json:"mem_tree"`
}

// capAttr is one attribute of the description: the last create and write events of an
// (object, name) pair on rank 0.
type capAttr struct {
	name  string
	ev    attrEvent // file type and dims from the create, memory type and value from the write
	value []byte    // nil: never written, or too large to be traced
	mem   attrEvent
	// targets are the description's values of a reference attribute (its value's
	// references matched to the H5Rcreate events that made them; nil when one is not
	// traced); inexact names a region that is not its bounding box.
	targets []desc.Value
	inexact string
	// seqTargets are the targets of a value of variable-length sequences of references
	// per element (nil when one is not traced).
	seqTargets [][]string
	// file is the traced file, events the indices in the profile's events of its
	// H5Acreate2 and H5Awrite calls (step 0's); at and writes are its placement read from
	// them (capture_place.go): "" for at its object's creation, and how many times it is
	// written there.
	file   string
	events []int
	at     string
	writes int
}

// The 1.8 API's object references are 8 bytes (hobj_ref_t), its region references 12
// (hdset_reg_ref_t); H5Rcreate makes both.
const (
	objRefSize       = 8
	regionRefSize    = 12
	refCall          = "H5Rcreate"
	regionTargetNote = "a region reference to a selection that is not a box (written as its bounding box)"
)

// seqTargets resolves the references of each element of a variable-length value (hex,
// as traced) to their H5Rcreate events' targets; nil when one was not made in the trace.
func seqTargets(refs [][]string, made map[string]Event) [][]string {
	out := make([][]string, len(refs))
	for i, el := range refs {
		out[i] = []string{}
		for _, r := range el {
			e, ok := made[r]
			if !ok {
				return nil
			}
			out[i] = append(out[i], e.Target)
		}
	}
	return out
}

// refTargets matches the references in value (elements of size bytes) with the
// references rank 0 made in the file (made: hex bytes → H5Rcreate event) and returns
// their targets as a description's values, and the first whose selection was not a box.
func refTargets(value []byte, size int, made map[string]Event) (out []desc.Value, inexact string, ok bool) {
	if size <= 0 || len(value)%size != 0 {
		return nil, "", false
	}
	for i := 0; i < len(value); i += size {
		e, found := made[hex.EncodeToString(value[i:i+size])]
		if !found {
			return nil, "", false
		}
		if e.Box != nil && !*e.Box && inexact == "" {
			inexact = e.Target
		}
		out = append(out, desc.V(e.Target))
	}
	return out, inexact, true
}

// HDF5's string padding (H5T_str_t) the description's fixed strings have (strN are
// NUL-terminated), and its UTF-8 character set (H5T_cset_t: ustrN, uvstr).
const (
	strNullTerm = 0
	strNullPad  = 1 // H5T_STR_NULLPAD
	csetUTF8    = 1
)

// recordRef adds e to made (file → reference bytes → its H5Rcreate) when e is rank 0's
// H5Rcreate with its bytes traced, and says whether it was.
func recordRef(made map[string]map[string]Event, e Event) bool {
	if e.Rank != 0 || e.Call != refCall || e.Ref == "" {
		return false
	}
	if made[e.File] == nil {
		made[e.File] = map[string]Event{}
	}
	made[e.File][e.Ref] = e
	return true
}

// attributes collects rank 0's traced attributes per file and object template (the
// object's path with ${step} for a step group's number: the first step's values), in the
// order the program created them.
func attributes(p *Profile, template func(file, object string) (string, int)) map[string]map[string][]*capAttr {
	out := map[string]map[string][]*capAttr{}
	made := map[string]map[string]Event{} // file → reference bytes → its H5Rcreate
	defer func() { placeAttributes(p, out) }()
	for i, e := range p.Events {
		if recordRef(made, e) {
			continue
		}
		if e.Rank > 0 || len(e.Attribute) == 0 || (e.Call != "H5Acreate2" && e.Call != "H5Awrite") {
			continue
		}
		var a attrEvent
		if json.Unmarshal(e.Attribute, &a) != nil {
			continue
		}
		tmpl, step := template(e.File, a.Object)
		if e.fileStep > 0 { // a file per step
			step = e.fileStep - 1
		}
		if step != 0 {
			continue
		}
		if out[e.File] == nil {
			out[e.File] = map[string][]*capAttr{}
		}
		var c *capAttr
		for _, x := range out[e.File][tmpl] {
			if x.name == a.Name {
				c = x
			}
		}
		if c == nil {
			c = &capAttr{name: a.Name, file: e.File}
			out[e.File][tmpl] = append(out[e.File][tmpl], c)
		}
		c.events = append(c.events, i)
		c.ev.Object, c.ev.Name, c.ev.TypeClass, c.ev.TypeSize, c.ev.TypeSign = a.Object, a.Name, a.TypeClass, a.TypeSize, a.TypeSign
		c.ev.StrPad, c.ev.Cset, c.ev.VLen, c.ev.Dims, c.ev.Members, c.ev.Tree = a.StrPad, a.Cset, a.VLen, a.Dims, a.Members, a.Tree
		if e.Call == "H5Awrite" && a.MemClass != nil {
			c.mem = a
			c.value = nil
			if a.Value != nil {
				if b, err := hex.DecodeString(*a.Value); err == nil {
					c.value = b
				}
			}
			c.targets, c.inexact, c.seqTargets = nil, "", nil
			if a.Refs != nil {
				c.seqTargets = seqTargets(a.Refs, made[e.File])
			}
			if a.TypeClass == h5tReference && *a.MemClass == h5tReference && c.value != nil {
				if t, in, ok := refTargets(c.value, a.MemSize, made[e.File]); ok {
					c.targets, c.inexact = t, in
				}
			}
		}
	}
	return out
}

// attrValues decodes an attribute's traced bytes (in its memory type) into n values as
// a description holds them: exact integers, shortest floats, strings without their
// trailing NULs, a compound's members by name.
func attrValues(a *capAttr, typ string, n int64) ([]desc.Value, bool) {
	if a.ev.VLen && a.ev.TypeClass == 3 && a.mem.Strings != nil && int64(len(a.mem.Strings)) == n { // variable-length strings
		return desc.Vs(a.mem.Strings...), true
	}
	if a.value == nil || a.mem.MemClass == nil || a.ev.VLen {
		return nil, false
	}
	size := a.mem.MemSize
	if size <= 0 || int64(len(a.value)) != n*int64(size) {
		return nil, false
	}
	out := make([]desc.Value, 0, n)
	for i := range int(n) {
		b := a.value[i*size : (i+1)*size]
		if mt := a.mem.MemTree; mt != nil { // an enumeration's name, a big-endian number
			v, ok := treeValue(b, mt)
			if !ok {
				return nil, false
			}
			out = append(out, desc.V(v))
			continue
		}
		if *a.mem.MemClass != h5tCompound {
			v, ok := elemValue(b, *a.mem.MemClass, a.mem.MemSign, typ)
			if !ok {
				return nil, false
			}
			out = append(out, desc.V(v))
			continue
		}
		// A compound: a map of its members by name, each decoded from its offset in the
		// memory type.
		if len(a.mem.MemMembers) == 0 {
			return nil, false
		}
		el := desc.Value{Set: true, Map: make([]desc.Value, 0, len(a.mem.MemMembers))}
		for _, m := range a.mem.MemMembers {
			if m.Offset < 0 || m.Offset+m.Size > len(b) {
				return nil, false
			}
			v, ok := elemValue(b[m.Offset:m.Offset+m.Size], m.Class, m.Sign, "str")
			if !ok {
				return nil, false
			}
			mv := desc.V(v)
			mv.Key = m.Name
			el.Map = append(el.Map, mv)
		}
		out = append(out, el)
	}
	return out, true
}

// elemValue decodes one element's bytes of an atomic memory type (H5T class, sign) into
// the text of a value: exact integers, shortest floats, strings (typ strN) without their
// trailing NULs.
func elemValue(b []byte, class, sign int, typ string) (string, bool) {
	ne := binary.NativeEndian
	switch class {
	case 0: // H5T_INTEGER
		var u uint64
		switch len(b) {
		case 1:
			u = uint64(b[0])
		case 2:
			u = uint64(ne.Uint16(b))
		case 4:
			u = uint64(ne.Uint32(b))
		case 8:
			u = ne.Uint64(b)
		default:
			return "", false
		}
		if sign == 0 {
			return strconv.FormatUint(u, 10), true
		}
		shift := 64 - 8*uint(len(b))
		return strconv.FormatInt(int64(u<<shift)>>shift, 10), true
	case 1: // H5T_FLOAT
		switch len(b) {
		case 4:
			return floatLiteral(float64(math.Float32frombits(ne.Uint32(b))), 32), true
		case 8:
			return floatLiteral(math.Float64frombits(ne.Uint64(b)), 64), true
		}
	case 3: // H5T_STRING
		if strings.HasPrefix(typ, "str") {
			return strings.TrimRight(string(b), "\x00"), true
		}
	}
	return "", false
}

// floatLiteral is the shortest literal that reads back as the same float of bits bits,
// always with a point or exponent (so the engine does not read an integer).
func floatLiteral(f float64, bits int) string {
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

// attributeOwner names an object for the listing of what is not expressed.
func attributeOwner(id, object string) string {
	if object == "/" {
		return id
	}
	return id + " " + filepath.ToSlash(object)
}

// attrReads is what rank 0 read of file's attributes (its H5Aread events, in order, each
// once) that the description writes, as a read action's attributes key names them: NAME
// on the root group, PATH/NAME on another object. Attributes of variable-length or
// reference types, or of objects the description names by template (a step group's), are
// left out: a description's read verifies fixed-size values it wrote.
func attrReads(p *Profile, file string, written map[string][]*capAttr) []desc.Value {
	var out []desc.Value
	seen := map[string]bool{}
	for _, e := range p.Events {
		if e.Rank > 0 || e.Call != "H5Aread" || e.File != file || len(e.Attribute) == 0 {
			continue
		}
		var a attrEvent
		if json.Unmarshal(e.Attribute, &a) != nil || a.VLen || a.TypeClass == h5tReference {
			continue
		}
		ok := false
		for _, w := range written[a.Object] {
			ok = ok || w.name == a.Name
		}
		key := strings.TrimPrefix(a.Object+"/"+a.Name, "/")
		if a.Object == "/" {
			key = a.Name
		}
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, desc.V(key))
	}
	return out
}
