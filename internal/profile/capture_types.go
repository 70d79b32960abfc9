package profile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// h5tCompound is HDF5's H5T_COMPOUND class number.
const h5tCompound = 6

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
// members must be integers, floats or fixed strings at the offsets a C struct gives them
// (the description packs members so). Members stored out of declaration order (FLASH's
// {int value; char name[80]} tables with the name after the value) are declared in
// offset order, which is the same layout: reordered says so. False when neither order
// packs, or the trace has no members; the caller writes a stand-in (compoundStandIn).
func (c *Description) compoundName(hint string, ms []typeMember, size int) (name string, reordered, ok bool) {
	members, ok := packedMembers(ms, size)
	if !ok {
		byOffset := slices.SortedStableFunc(slices.Values(ms), func(a, b typeMember) int { return cmp.Compare(a.Offset, b.Offset) })
		if members, ok = packedMembers(byOffset, size); !ok {
			return "", false, false
		}
		reordered = true
	}
	key := fmt.Sprint(members)
	for _, t := range c.compounds {
		if t.key == key {
			return t.decl.Name, reordered, true
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
	c.compounds = append(c.compounds, compound{key, &desc.Compound{Name: name, Members: members}})
	return name, reordered, true
}

// packedMembers are ms as a description's compound members when they sit, in this
// order, at the offsets a C struct of size bytes gives them.
func packedMembers(ms []typeMember, size int) ([]desc.CompoundMember, bool) {
	if len(ms) == 0 {
		return nil, false
	}
	var out []desc.CompoundMember
	off, align := 0, 1
	for _, m := range ms {
		typ, ok := typeName(datasetInfo{TypeClass: m.Class, TypeSize: m.Size, TypeSign: m.Sign})
		if !ok || m.Name == "" {
			return nil, false
		}
		a := m.Size
		if m.Class == 3 { // strings align on bytes
			a = 1
		}
		off = (off + a - 1) / a * a
		if m.Offset != off {
			return nil, false
		}
		off += m.Size
		align = max(align, a)
		out = append(out, desc.CompoundMember{Name: m.Name, Type: desc.V(typ)})
	}
	if (off+align-1)/align*align != size {
		return nil, false
	}
	return out, true
}

// compoundStandIn is the valid type written for a compound the description cannot
// express (members with padding, or of other classes): a fixed string of the same size,
// so each element keeps its bytes in the file.
func compoundStandIn(size int) string { return fmt.Sprintf("str%d", max(size, 1)) }
