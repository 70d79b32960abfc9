package sweep

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Flatten turns a run's JSON reports (h5proxy's report_file, one per benchmark) into
// named numbers: the report's top-level numbers (ranks, nodes), then each phase's
// numbers prefixed by the phase's name ("write.observed_rate"), statistics over ranks as
// name.min, name.max, name.mean, name.sum ("write.raw_time.max"), booleans as 0 or 1 and
// a kernel's own metrics as phase.kernel.NAME. A phase name seen in an earlier report
// or phase of the run gets a suffix: write, write_2. Per-step lists are left out: a row
// is one run.
func Flatten(reports [][]byte) (map[string]float64, error) {
	out := map[string]float64{}
	used := map[string]int{}
	for i, data := range reports {
		var rep map[string]any
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("report %d: %w", i, err)
		}
		for k, v := range rep {
			if k == "phases" || k == "schema_version" {
				continue
			}
			flattenValue(out, k, v)
		}
		phases, _ := rep["phases"].([]any)
		for _, ph := range phases {
			m, ok := ph.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["phase"].(string)
			if name == "" {
				name = "phase"
			}
			used[name]++
			if n := used[name]; n > 1 {
				name += "_" + strconv.Itoa(n)
			}
			for k, v := range m {
				if k == "kernel_metrics" {
					kernelMetrics(out, name+".kernel.", v)
					continue
				}
				flattenValue(out, name+"."+k, v)
			}
		}
	}
	return out, nil
}

// flattenValue adds v under name: numbers and booleans as they are, objects of numbers
// (statistics over ranks) member by member; text and lists are not metrics.
func flattenValue(out map[string]float64, name string, v any) {
	switch x := v.(type) {
	case float64:
		out[name] = x
	case bool:
		out[name] = 0
		if x {
			out[name] = 1
		}
	case map[string]any:
		for k, sub := range x {
			if f, ok := sub.(float64); ok {
				out[name+"."+k] = f
			}
		}
	}
}

// kernelMetrics adds a kernel's own report lines (name, value as text, unit) whose values
// are numbers.
func kernelMetrics(out map[string]float64, prefix string, v any) {
	list, _ := v.([]any)
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		var name, value string
		for k, f := range m {
			s, _ := f.(string)
			switch strings.ToLower(k) {
			case "name":
				name = s
			case "value":
				value = s
			}
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil && name != "" {
			out[prefix+strings.ReplaceAll(strings.ToLower(name), " ", "_")] = f
		}
	}
}
