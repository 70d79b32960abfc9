// Package tracefile is the file format of a session's timeline (the session key
// trace_file): Chrome's trace-event JSON, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. The proxy package writes it; Read gives it back to Go programs
// that analyse a run (bench/overlap, tests) so that the format is declared once.
package tracefile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Event is one trace event: a complete event ("ph":"X", Ts and Dur in microseconds) or
// a metadata event ("ph":"M") naming a process (a rank) or a thread track.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// File is a whole trace file.
type File struct {
	TraceEvents     []Event `json:"traceEvents"`
	DisplayTimeUnit string  `json:"displayTimeUnit,omitempty"`
}

// Read reads the trace file at path.
func Read(path string) (File, error) {
	var f File
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Write writes f to path through a temporary file in the same directory and a rename,
// so that a reader never sees half a trace.
func Write(path string, f File) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
