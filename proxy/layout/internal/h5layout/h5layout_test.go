package h5layout

import (
	"testing"
)

// TestEscaping: user names with a leading '_' get one more; the layout's own names (one
// '_') are recognised.
func TestEscaping(t *testing.T) {
	for _, c := range []struct{ user, stored string }{
		{"/Timestep_0/x", "/Timestep_0/x"}, {"/_a/__b/c_", "/__a/___b/c_"}, {"_dims", "__dims"},
	} {
		if got := EscapePath(c.user); got != c.stored {
			t.Errorf("EscapePath(%q) = %q, want %q", c.user, got, c.stored)
		}
		if back, internal := UnescapePath(c.stored); back != c.user || internal {
			t.Errorf("UnescapePath(%q) = %q, %v", c.stored, back, internal)
		}
	}
	if _, internal := UnescapePath("/_LOG/_ld_0"); !internal {
		t.Error("/_LOG/_ld_0 not recognised as the layout's")
	}
	if _, internal := UnescapeName("_dims"); !internal {
		t.Error("_dims not recognised as the layout's")
	}
}

// TestSlabs covers copies bounded in memory: whole rows, the rest in the last slab.
func TestSlabs(t *testing.T) {
	s := Slabs([]uint64{10, 4}, 4, 48) // 3 rows of 16 bytes per slab
	if len(s) != 4 || s[3].Blocks[0].Start[0] != 9 || s[3].Blocks[0].Block[0] != 1 {
		t.Errorf("Slabs: %+v", s)
	}
	var n uint64
	for _, sel := range s {
		n += sel.NPoints([]uint64{10, 4})
	}
	if n != 40 {
		t.Errorf("Slabs cover %d elements, want 40", n)
	}
	if len(Slabs(nil, 8, 1)) != 1 || Slabs([]uint64{0, 3}, 4, 10) != nil {
		t.Error("scalar or empty dataset Slabs")
	}
}
