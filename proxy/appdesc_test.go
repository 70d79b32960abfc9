package proxy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
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

// TestAppComputeAgainstSessionComputeKeys: a description that sets compute computes on its
// own, as DLIO and IOR do: the session's compute_time and compute_trace would be ignored,
// so they are errors naming the key, its value and the description's compute at
// file:line:col; without compute in the description both apply as for any pattern.
func TestAppComputeAgainstSessionComputeKeys(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.txt")
	withCompute, without := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "n.yaml")
	body := "files: {out: {name: o.h5, datasets: {x: {shape: [4]}}}}\ntimeline: [{write: out}]\n"
	for p, src := range map[string]string{trace: "10ms\n20ms\n", withCompute: "steps: 2\ncompute: 0.01s\n" + body, without: "steps: 2\n" + body} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "o.h5")
	parse := func(pattern string, kv ...string) error {
		kvs := []options.KV{{Key: "file", Value: file}}
		for _, s := range kv {
			k, v, _ := strings.Cut(s, "=")
			kvs = append(kvs, options.KV{Key: k, Value: v})
		}
		_, err := proxy.ParseOptions(pattern, kvs)
		return err
	}
	for _, c := range []struct {
		pattern string
		kv      []string
		want    string
	}{
		{"app", []string{"description=" + withCompute, "compute_trace=" + trace},
			fmt.Sprintf(`key "compute_trace" value %q: the description sets compute (%s:2:10: compute: 0.01s), the time after each write step, in place of the session's compute_time and compute_trace: compute_trace would be ignored; allowed: no compute_time or compute_trace with this description; remove its compute (%s:2:10)`, trace, withCompute, withCompute)},
		{"app", []string{"description=" + withCompute, "compute_time=1s"}, `key "compute_time" value "1s": the description sets compute (` + withCompute + ":2:10"},
		{"app", []string{"description=" + withCompute, "EMULATED_COMPUTE_TIME_PER_TIMESTEP=2s"}, `key "compute_time" value "2s"`},
		{"dlio", []string{"generate-data=true", "compute_trace=" + trace}, `key "compute_trace" value "` + trace + `": pattern dlio computes for times of its own after each step`},
	} {
		err := parse(c.pattern, c.kv...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want %q", c.pattern, c.kv, err, c.want)
		}
	}
	for _, kv := range [][]string{{"description=" + withCompute}, {"description=" + withCompute, "compute_time=0s"},
		{"description=" + without, "compute_trace=" + trace}, {"description=" + without, "compute_time=1s"}} {
		if err := parse("app", kv...); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// TestAppStringsAndSeriesEveryLayout runs examples/apps/features.yaml (variable-length
// string datasets in a file per rank and attributes, compound attributes with literal
// values, a series grown along its second dimension) at 2 ranks through every layout that
// stores data (the subfiling VFD where built) under every mode: every value read back and
// verified.
func TestAppStringsAndSeriesEveryLayout(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "features.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "../examples/apps/features.yaml", desc)
	everyStoringLayout(t, dir, desc, 2, func(layout string) string {
		if layout == "mpiio" {
			return ";mpiio.file_view=YES" // a rank's columns of the series are a run per row
		}
		return ""
	}, nil)
}
