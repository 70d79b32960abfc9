package main

import (
	"bytes"
	"encoding/json"
	"os"
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
	conf := s["properties"].(map[string]any)["benchmarks"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["configuration"].(map[string]any)["properties"].(map[string]any)
	for _, k := range []string{"DIM_1", "MEM_PATTERN", "EMULATED_COMPUTE_TIME_PER_TIMESTEP", "CSV_FILE", "MODE", "mode"} {
		if _, ok := conf[k]; !ok {
			t.Errorf("schema lacks configuration key %s", k)
		}
	}
}
