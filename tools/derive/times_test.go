package derive

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// TestTrackTimes: a file whose datasets were all created without their times (netCDF-4's)
// is read and written track_times: false; a file where only some were keeps the default,
// with a comment counting them; a file with times has neither.
func TestTrackTimes(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, off ...bool) string {
		path := filepath.Join(dir, name)
		f, err := h5.CreateFile(path, h5.Access{FileSpec: plan.FileSpec{LibverLatest: true}})
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range off {
			d, err := h5.CreateDataset(f, "/"+string(rune('a'+i)), plan.DatasetSpec{Type: plan.I32, Shape: []uint64{4}, NoTimes: o})
			if err != nil {
				t.Fatal(err)
			}
			if err := h5.CloseDataset(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := h5.CloseFile(f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		off        []bool
		want, dont string
	}{
		{[]bool{true, true}, "track_times: false", "record no times"},
		{[]bool{true, false}, "1 of the file's 2 datasets record no times", "track_times: false"},
		{[]bool{false, false}, "", "track_times"},
	} {
		files, err := Read([]string{mk("t.h5", c.off...)})
		if err != nil {
			t.Fatal(err)
		}
		text := render(t, files, 2)
		if (c.want != "" && !strings.Contains(text, c.want)) || strings.Contains(text, c.dont) {
			t.Errorf("untimed %v: want %q and no %q:\n%s", c.off, c.want, c.dont, text)
		}
	}
}
