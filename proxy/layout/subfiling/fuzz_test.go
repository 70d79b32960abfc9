package subfiling

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzMasterDescription decodes the master descriptions rank 0 reads from a subfiled
// file reopened for writing and broadcasts: no input may panic, a malformed description
// is an error naming the master and the bad part, and an accepted one encodes back (in
// describeMaster's format) to a description that decodes the same.
func FuzzMasterDescription(f *testing.F) {
	f.Add([]byte("1"))
	f.Add([]byte("3\ng /Step#0\nd /Step#0/x\nd /Step#0/y"))
	f.Add([]byte("2\nd /a b\ng /c\n"))
	f.Add([]byte("-4\nx /y"))
	f.Fuzz(func(t *testing.T, desc []byte) {
		const master = "m.h5"
		gen, existing, err := parseDescription(master, desc)
		if err != nil {
			if !strings.Contains(err.Error(), master+": bad master description") {
				t.Fatalf("%q: error %v does not name the master", desc, err)
			}
			return
		}
		b := []byte(fmt.Sprint(gen))
		for _, p := range slices.Sorted(maps.Keys(existing)) {
			kind := "g"
			if existing[p] {
				kind = "d"
			}
			b = fmt.Appendf(b, "\n%s %s", kind, p)
		}
		gen2, existing2, err := parseDescription(master, b)
		if err != nil || gen2 != gen || !maps.Equal(existing, existing2) {
			t.Fatalf("%q: re-encoded as %q decodes to %d %v %v", desc, b, gen2, existing2, err)
		}
	})
}
