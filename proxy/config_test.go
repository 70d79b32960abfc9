package proxy_test

import (
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestOptionTablesHaveNoDuplicates guards every table a user's keys are parsed with: a
// key declared twice would make help and schema list it twice and Lookup take the first.
func TestOptionTablesHaveNoDuplicates(t *testing.T) {
	if d := proxy.SessionOptions().Duplicates(); len(d) != 0 {
		t.Errorf("session options declared more than once: %v", d)
	}
	for _, name := range patterns.Names() {
		f, err := patterns.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := f.Options.Duplicates(); len(d) != 0 {
			t.Errorf("pattern %s: options declared more than once: %v", name, d)
		}
	}
}
