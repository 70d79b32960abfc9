package subfiling

import "testing"

// TestSubfileNames follows the subfiling VFD's numbering (from 1, zero-padded).
func TestSubfileNames(t *testing.T) {
	if got := subfileName("/d/f.h5", 0, 0, 1); got != "/d/f.h5.subfile_1_of_1" {
		t.Errorf("got %s", got)
	}
	if got := subfileName("/d/f.h5", 0, 8, 12); got != "/d/f.h5.subfile_09_of_12" {
		t.Errorf("got %s", got)
	}
	if got := subfileName("/d/f.h5", 2, 0, 2); got != "/d/f.h5.subfile_1_of_2.2" {
		t.Errorf("generation 2: got %s", got)
	}
	if got := globEscape("/a[1]/b*?.h5"); got != `/a\[1]/b\*\?.h5` {
		t.Errorf("globEscape = %s", got)
	}
}
