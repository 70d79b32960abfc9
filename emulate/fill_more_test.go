package emulate

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestEnumFill: every generated element of an enumeration (alone, a compound's member, an
// array's element) is one of its values, under seeded and random fills; the values vary
// with the index; seeded data verifies, and a value no name has is a mismatch.
func TestEnumFill(t *testing.T) {
	phase := plan.EnumOf(plan.I16, plan.EnumValue{Name: "LOW", Value: 1}, plan.EnumValue{Name: "HIGH", Value: 513}, plan.EnumValue{Name: "NEG", Value: -7})
	members := []int64{1, 513, -7}
	for _, typ := range []plan.Type{
		phase,
		plan.Struct("", 8, plan.Field("x", 0, plan.F32), plan.Field("p", 4, phase)),
		plan.ArrayOf(phase, 3),
	} {
		fs := Fields(typ, "v")
		l := &Layout{Elem: typ.Size, Fields: fs, Runs: []plan.Run{{Start: 0, Len: 40}, {Start: 100, Len: 24}}}
		for _, kind := range []FillKind{Seeded, Random} {
			buf := make([]byte, int(l.Points())*typ.Size)
			if err := Fill(kind, buf, l, 9, 2, 1); err != nil {
				t.Fatal(err)
			}
			seen := map[int64]bool{}
			for _, f := range fs {
				if f.Enum == nil {
					continue
				}
				for e := range int(l.Points()) {
					v := int64(int16(binary.NativeEndian.Uint16(buf[e*typ.Size+f.Offset:])))
					if !slices.Contains(members, v) {
						t.Fatalf("%s %s: element %d of %s holds %d, not a member", typ, kind, e, f.Variable, v)
					}
					seen[v] = true
				}
			}
			if len(seen) != len(members) {
				t.Errorf("%s %s: values %v, want every member of %v", typ, kind, seen, members)
			}
			if kind != Seeded {
				continue
			}
			if bad, first, err := Verify(buf, l, 9, 2); err != nil || bad != 0 {
				t.Errorf("%s: Verify = %d, %v, %v", typ, bad, first, err)
			}
			off := slices.IndexFunc(fs, func(f Field) bool { return f.Enum != nil })
			binary.NativeEndian.PutUint16(buf[fs[off].Offset:], 2) // no name has 2
			if bad, first, _ := Verify(buf, l, 9, 2); bad != 1 || first == nil || first.Index != 0 {
				t.Errorf("%s: a value no name has: Verify = %d, %v", typ, bad, first)
			}
		}
	}
}
