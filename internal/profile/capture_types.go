package profile

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// h5tCompound is HDF5's H5T_COMPOUND class number, h5tReference its H5T_REFERENCE.
const (
	h5tCompound  = 6
	h5tReference = 7
)

// typeMember is one member of a traced compound type: [name, H5T class, size, sign
// (-1 but for integers), offset].
type typeMember struct {
	Name                      string
	Class, Size, Sign, Offset int
}

// UnmarshalJSON reads a member from the library's array form.
func (m *typeMember) UnmarshalJSON(b []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) != 5 {
		return fmt.Errorf("compound member %s: want [name, class, size, sign, offset]", b)
	}
	if err := json.Unmarshal(a[0], &m.Name); err != nil {
		return err
	}
	for i, p := range []*int{&m.Class, &m.Size, &m.Sign, &m.Offset} {
		if err := json.Unmarshal(a[i+1], p); err != nil {
			return err
		}
	}
	return nil
}

// compound is a compound type of the description: its members' key (their names and
// types in order, to share one type between objects) and its declaration.
type compound struct {
	key  string
	decl *desc.Compound
}

// compoundName names the compound type of ms (size bytes) in the description's types,
// defining it the first time (named after hint, the first object of that type): its
// members, in H5Tinsert order, must be integers, floats or fixed strings; where they do
// not sit at the offsets a C struct gives them (FLASH's {int value; char name[80]}
// tables, name inserted first at offset 4) each member's offset is written (TYPE@N), and
// the size where it is not the C struct's (trailing padding). False when the trace has no
// members or one of another class; the caller writes a stand-in (compoundStandIn).
func (c *Description) compoundName(hint string, ms []typeMember, size int) (name string, ok bool) {
	members, csize, ok := compoundMembers(ms, size)
	if !ok {
		return "", false
	}
	key := fmt.Sprint(members, csize.Text)
	for _, t := range c.compounds {
		if t.key == key {
			return t.decl.Name, true
		}
	}
	name = plainWord(hint, "t")
	for taken := true; taken; {
		taken = false
		for _, t := range c.compounds {
			if t.decl.Name == name {
				name, taken = name+"_", true
			}
		}
	}
	c.compounds = append(c.compounds, compound{key, &desc.Compound{Name: name, Members: members, Size: csize}})
	return name, true
}

// compoundMembers are ms as a description's compound members, in their order, with each
// member's offset (Offset set on all) when one is not where a C struct of these members in
// this order puts it, and the size (set) when it is not that struct's.
func compoundMembers(ms []typeMember, size int) ([]desc.CompoundMember, desc.Value, bool) {
	if len(ms) == 0 {
		return nil, desc.Value{}, false
	}
	var out []desc.CompoundMember
	off, end, align, explicit := 0, 0, 1, false
	for _, m := range ms {
		typ, ok := typeName(datasetInfo{TypeClass: m.Class, TypeSize: m.Size, TypeSign: m.Sign})
		if !ok || m.Name == "" || m.Offset < 0 || m.Offset+m.Size > size {
			return nil, desc.Value{}, false
		}
		a := m.Size
		if m.Class == 3 { // strings align on bytes
			a = 1
		}
		if (off+a-1)/a*a != m.Offset {
			explicit = true
		}
		off = m.Offset + m.Size
		end, align = max(end, off), max(align, a)
		out = append(out, desc.CompoundMember{Name: m.Name, Type: desc.V(typ)})
	}
	if explicit {
		for i, m := range ms {
			out[i].Offset = desc.V(strconv.Itoa(m.Offset))
		}
	}
	var sz desc.Value
	if (end+align-1)/align*align != size {
		sz = desc.V(strconv.Itoa(size))
	}
	return out, sz, true
}

// compoundStandIn is the valid type written for a compound the description cannot
// express (members with padding, or of other classes): a fixed string of the same size,
// so each element keeps its bytes in the file.
func compoundStandIn(size int) string { return fmt.Sprintf("str%d", max(size, 1)) }
