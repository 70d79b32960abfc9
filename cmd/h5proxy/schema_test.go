package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaDocIsCurrent keeps docs/h5bench-config.schema.json equal to what
// `h5proxy schema` prints, so the published schema cannot drift from the option tables.
func TestSchemaDocIsCurrent(t *testing.T) {
	var out bytes.Buffer
	if err := cmdSchema(nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/h5bench-config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), doc) {
		t.Fatal("docs/h5bench-config.schema.json is stale: regenerate with `go run ./cmd/h5proxy schema > docs/h5bench-config.schema.json`")
	}
	var s map[string]any
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	// The configuration of the benchmarks but app (whose branch TestSchemaAppEntries checks).
	rule := s["properties"].(map[string]any)["benchmarks"].(map[string]any)["items"].(map[string]any)["allOf"].([]any)[0].(map[string]any)
	conf := rule["else"].(map[string]any)["properties"].(map[string]any)["configuration"].(map[string]any)["properties"].(map[string]any)
	for _, k := range []string{"DIM_1", "MEM_PATTERN", "EMULATED_COMPUTE_TIME_PER_TIMESTEP", "CSV_FILE", "MODE", "mode"} {
		if _, ok := conf[k]; !ok {
			t.Errorf("schema lacks configuration key %s", k)
		}
	}
}

// TestSchemaAppEntries: an app entry's configuration is the session's keys, description
// (required) and free-form parameter keys shaped like parameter names; `h5proxy schema
// DESCRIPTION` lists that description's parameters exactly (no free-form keys), with
// their defaults; a bad description is its parse error.
func TestSchemaAppEntries(t *testing.T) {
	appConf := func(args ...string) map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := cmdSchema(args, &out, &out); err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		items := s["properties"].(map[string]any)["benchmarks"].(map[string]any)["items"].(map[string]any)
		branch := items["allOf"].([]any)[0].(map[string]any)
		if c := branch["if"].(map[string]any)["properties"].(map[string]any)["benchmark"].(map[string]any)["const"]; c != "app" {
			t.Fatalf("first rule is for benchmark %v", c)
		}
		other := branch["else"].(map[string]any)["properties"].(map[string]any)["configuration"].(map[string]any)["properties"].(map[string]any)
		if _, ok := other["description"]; ok {
			t.Error("the other benchmarks' configuration takes the app's description key")
		}
		if _, ok := other["DIM_1"]; !ok {
			t.Error("the other benchmarks' configuration lacks DIM_1")
		}
		return branch["then"].(map[string]any)["properties"].(map[string]any)["configuration"].(map[string]any)
	}
	generic := appConf()
	props := generic["properties"].(map[string]any)
	for _, k := range []string{"description", "mode", "layout", "compute_time", "EMULATED_COMPUTE_TIME_PER_TIMESTEP", "async.staging_bytes"} {
		if _, ok := props[k]; !ok {
			t.Errorf("app configuration lacks %s", k)
		}
	}
	if req := generic["required"].([]any); len(req) != 1 || req[0] != "description" {
		t.Errorf("app configuration requires %v", req)
	}
	if pp := generic["patternProperties"].(map[string]any); pp[paramKey] == nil || generic["additionalProperties"] != false {
		t.Errorf("app configuration's free-form keys: %v, additionalProperties %v", pp, generic["additionalProperties"])
	}
	ex := "../../examples/apps/particles.yaml"
	one := appConf(ex)
	props = one["properties"].(map[string]any)
	for k, def := range map[string]string{"particles": "64Ki", "steps": "4", "vars": "x,y,z", "ckpt_every": "2", "compute": "0.1s"} {
		p, ok := props[k].(map[string]any)
		if !ok || p["default"] != def || !strings.Contains(p["description"].(string), "particles.yaml:") {
			t.Errorf("parameter %s: %v, want default %s and its position", k, p, def)
		}
	}
	if _, ok := one["patternProperties"]; ok {
		t.Error("a description's schema still takes free-form keys")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("params: {seed: 1}\nfiles: {o: {name: o.h5}}\ntimeline: [{write: o}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := cmdSchema([]string{bad}, &out, &out); err == nil || !strings.Contains(err.Error(), "bad.yaml:1:10: key params.seed") {
		t.Errorf("bad description: %v", err)
	}
}
