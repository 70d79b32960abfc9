package tracefile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	want := File{DisplayTimeUnit: "ms", TraceEvents: []Event{
		{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": "rank 1"}},
		{Name: "write", Cat: "io", Ph: "X", Ts: 12.5, Dur: 3, Pid: 1, Tid: 1, Args: map[string]any{"step": 2.0}},
	}}
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, wrote %+v", got, want)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestReadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"traceEvents": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Read of a truncated trace: %v, want an error naming %s", err, path)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.json")); !os.IsNotExist(err) {
		t.Fatalf("Read of a missing file: %v, want not-exist", err)
	}
}
