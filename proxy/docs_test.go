package proxy_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestDocsNameTheRegistries: the lists of modes, layouts and patterns in the C header and
// the C ABI contract are the registries' (in any order).
func TestDocsNameTheRegistries(t *testing.T) {
	want := map[string][]string{"modes": proxy.Modes(), "layouts": proxy.Layouts(), "patterns": patterns.Names()}
	list := regexp.MustCompile(`(?m)^\s*\*?\s*-\s*(modes|layouts|patterns):\s*(.+)$`)
	for _, doc := range []string{"../include/h5proxy.h", "../capi/CONTRACT.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, m := range list.FindAllStringSubmatch(string(b), -1) {
			got := strings.Split(strings.TrimSuffix(strings.TrimSpace(m[2]), "."), ", ")
			slices.Sort(got)
			w := slices.Sorted(slices.Values(want[m[1]]))
			if !slices.Equal(got, w) {
				t.Errorf("%s lists %s %v; the registry has %v", doc, m[1], got, w)
			}
			found[m[1]] = true
		}
		for kind := range want {
			if !found[kind] {
				t.Errorf("%s has no list of %s", doc, kind)
			}
		}
	}
}

// TestLeakCheckCoversTheRegistries: the C leak check (tests/capi/leaks.c) runs every
// layout and every mode; a layout or mode added to a registry must join its loops.
func TestLeakCheckCoversTheRegistries(t *testing.T) {
	b, err := os.ReadFile("../tests/capi/leaks.c")
	if err != nil {
		t.Fatal(err)
	}
	array := regexp.MustCompile(`static const char \*(layouts|modes)\[\] = \{([^}]*)\};`)
	want := map[string][]string{"modes": proxy.Modes(), "layouts": proxy.Layouts()}
	found := 0
	for _, m := range array.FindAllStringSubmatch(string(b), -1) {
		var got []string
		for _, q := range strings.Split(m[2], ",") {
			got = append(got, strings.Trim(strings.TrimSpace(q), `"`))
		}
		slices.Sort(got)
		if w := slices.Sorted(slices.Values(want[m[1]])); !slices.Equal(got, w) {
			t.Errorf("tests/capi/leaks.c runs %s %v; the registry has %v", m[1], got, w)
		}
		found++
	}
	if found != len(want) {
		t.Errorf("tests/capi/leaks.c: found %d of the layouts and modes arrays, want %d", found, len(want))
	}
}
