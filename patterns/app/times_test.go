package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// timesSrc has a file created without object times beside one with them.
const timesSrc = `
files:
  nc:
    name: nc.h5
    track_times: false
    datasets: {x: {type: f64, shape: [4 * nranks]}}
    groups: {g: {datasets: {y: {type: f64, shape: [4]}}}}
  plain:
    name: plain.h5
    datasets: {x: {type: f64, shape: [4]}}
    groups: {g: {}}
timeline: [{write: nc}, {write: plain}]
`

// TestTrackTimesPlanned: every create of a track_times: false file (the file, its groups
// and datasets) leaves the times untracked, the other file's none; a value that is no
// boolean is an error naming file:line:col, key and value.
func TestTrackTimesPlanned(t *testing.T) {
	var got []string
	for _, pl := range planSrc(t, timesSrc, 2) {
		file := ""
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateFile:
				file = filepath.Base(op.Path)
				got = append(got, fmt.Sprintf("%s %v", file, op.File.NoTimes))
			case plan.CreateGroup:
				got = append(got, fmt.Sprintf("%s:%s %v", file, op.Path, op.Group != nil && op.Group.NoTimes))
			case plan.CreateDataset:
				got = append(got, fmt.Sprintf("%s:%s %v", file, op.Path, op.Dataset.NoTimes))
			}
		}
	}
	want := []string{"nc.h5 true", "nc.h5:/g true", "nc.h5:/x true", "nc.h5:/g/y true", "plain.h5 false", "plain.h5:/g false", "plain.h5:/x false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("creates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	err := planErr(t, strings.Replace(timesSrc, "track_times: false", "track_times: never", 1), 2)
	if err == nil || !strings.Contains(err.Error(), `d.yaml:5:18: key files.nc.track_times value "never"`) {
		t.Errorf("track_times: never: %v", err)
	}
}
