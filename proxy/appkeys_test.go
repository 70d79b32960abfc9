package proxy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppParamsCollidingWithSessionKeys: a description's parameter named like any
// session key, alias or the pattern's own key (in any case) is an error naming the file,
// line and column, the parameter and the key it collides with, before any I/O; the
// session's keys all reach the check (every key of the session table is tried).
func TestAppParamsCollidingWithSessionKeys(t *testing.T) {
	dir := t.TempDir()
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	type probe struct{ name, key string }
	probes := []probe{{"description", "app pattern key description"}, {"Description", "app pattern key description"}}
	for _, s := range proxy.SessionOptions().Specs {
		for i, n := range append([]string{s.Key}, s.Aliases...) {
			if !ident.MatchString(n) { // dotted keys (async.*, mpiio.*) cannot be parameter names
				continue
			}
			key := "session key " + s.Key
			if i > 0 && !strings.EqualFold(n, s.Key) {
				key += " (alias " + n + ")"
			}
			probes = append(probes, probe{n, key})
		}
	}
	if len(probes) < 15 {
		t.Fatalf("only %d probes: the session table lost its keys?", len(probes))
	}
	for _, p := range probes {
		path := filepath.Join(dir, "d.yaml")
		src := fmt.Sprintf("params:\n  n: 4\n  %s: 1\nfiles: {out: {name: o.h5, datasets: {x: {shape: [n]}}}}\ntimeline: [{write: out}]\n", p.name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := proxy.ParseOptions("app", []options.KV{{Key: "description", Value: path}, {Key: "file", Value: filepath.Join(dir, "o.h5")}})
		want := fmt.Sprintf("%s:3:3: key params.%s value %q: the parameter's name collides with the %s", path, p.name, p.name, p.key)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parameter %s: error %v, want %q", p.name, err, want)
		}
	}
	// A name that only starts like a session key is a parameter.
	path := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(path, []byte("params: {seeds: 2, file_count: 1}\nfiles: {out: {name: o.h5, datasets: {x: {shape: [seeds]}}}}\ntimeline: [{write: out}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := proxy.ParseOptions("app", []options.KV{{Key: "description", Value: path}, {Key: "file", Value: filepath.Join(dir, "o.h5")}, {Key: "seeds", Value: "3"}}); err != nil {
		t.Fatal(err)
	}
}
