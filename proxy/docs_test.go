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
