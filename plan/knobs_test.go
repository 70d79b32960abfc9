package plan

import "testing"

// TestTimeNames: every fill and allocation time name parses to the value that prints
// (fill times) under that name, in the order of the constants; other names are refused.
func TestTimeNames(t *testing.T) {
	for i, name := range FillTimeNames {
		ft, ok := ParseFillTime(name)
		if !ok || ft != FillTimeIfSet+FillTime(i) || ft.String() != name {
			t.Errorf("fill time %q: %v %v (%s)", name, ft, ok, ft)
		}
	}
	if ft, ok := ParseFillTime("IFSET"); ok || ft != FillTimeUnset {
		t.Errorf("IFSET parsed: %v", ft)
	}
	if FillTimeUnset.String() != "unset" || FillTime(9).String() != "filltime(9)" {
		t.Errorf("names of unset and unknown: %s %s", FillTimeUnset, FillTime(9))
	}
	for i, name := range AllocTimeNames {
		if at, ok := ParseAllocTime(name); !ok || at != AllocTimeDefault+AllocTime(i) {
			t.Errorf("alloc time %q: %v %v", name, at, ok)
		}
	}
	if _, ok := ParseAllocTime("never"); ok {
		t.Error("alloc time never parsed")
	}
}
