package darshan

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The fixtures in testdata are logs a real Darshan 3.5.0 wrote (testdata/README.md has
// the commands), each with darshan-parser's and darshan-dxt-parser's output for it:
// what the real parser prints is what this reader must read, counter by counter.

// parserCounters reads darshan-parser's counter lines: "MODULE\tRANK\tID\tCOUNTER\tVALUE\t
// NAME\tMOUNT\tFS", keyed "MODULE RANK ID COUNTER"; and its header lines "# key: value".
func parserCounters(t *testing.T, path string) (map[string]string, map[string]string, []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counters, header := map[string]string{}, map[string]string{}
	var mounts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ln := sc.Text()
		if m, ok := strings.CutPrefix(ln, "# mount entry:\t"); ok {
			mounts = append(mounts, m)
			continue
		}
		if h, ok := strings.CutPrefix(ln, "# "); ok {
			if k, v, ok := strings.Cut(h, ": "); ok {
				header[k] = v
			}
			continue
		}
		fs := strings.Split(ln, "\t")
		if len(fs) != 8 || strings.HasPrefix(ln, "#") {
			continue
		}
		counters[fs[0]+" "+fs[1]+" "+fs[2]+" "+fs[3]] = fs[4] + "\t" + fs[5]
	}
	return counters, header, mounts
}

func TestFixtures(t *testing.T) {
	logs, _ := filepath.Glob("testdata/*.darshan")
	if len(logs) == 0 {
		t.Fatal("no testdata/*.darshan fixtures")
	}
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, header, mounts := parserCounters(t, strings.TrimSuffix(path, ".darshan")+".parser.txt")
			if header["darshan log version"] != l.Version || header["exe"] != l.Exe ||
				header["nprocs"] != fmt.Sprint(l.Job.Nprocs) || header["start_time"] != fmt.Sprint(l.Job.StartSec) ||
				header["end_time"] != fmt.Sprint(l.Job.EndSec) || header["uid"] != fmt.Sprint(l.Job.UID) {
				t.Errorf("job: %+v exe %q, parser says %v", l.Job, l.Exe, header)
			}
			var gotMounts []string
			for _, m := range l.Mounts {
				gotMounts = append(gotMounts, m.Path+"\t"+m.Type)
			}
			sort.Strings(gotMounts)
			sort.Strings(mounts)
			if strings.Join(gotMounts, "\n") != strings.Join(mounts, "\n") {
				t.Errorf("mounts %q, parser %q", gotMounts, mounts)
			}
			seen := 0
			check := func(r *Record, counter, value string) {
				key := fmt.Sprintf("%s %d %d %s", r.Module.Name, r.Rank, r.ID, counter)
				w, ok := want[key]
				if !ok {
					t.Errorf("%s: darshan-parser prints no such counter", key)
					return
				}
				seen++
				wv, wname, _ := strings.Cut(w, "\t")
				if wname != l.Names[r.ID] {
					t.Errorf("%s: name %q, parser %q", key, l.Names[r.ID], wname)
				}
				if strings.Contains(wv, ".") {
					a, _ := strconv.ParseFloat(wv, 64)
					b, _ := strconv.ParseFloat(value, 64)
					if math.Abs(a-b) > 5e-7 {
						t.Errorf("%s = %s, parser %s", key, value, wv)
					}
				} else if wv != value {
					t.Errorf("%s = %s, parser %s", key, value, wv)
				}
			}
			for _, r := range l.Records {
				for i, c := range r.Module.Counters {
					check(r, c, fmt.Sprint(r.Counters[i]))
				}
				for i, c := range r.Module.FCounters {
					check(r, c, fmt.Sprint(r.FCounters[i]))
				}
				if r.Module.FileID {
					check(r, "H5D_FILE_REC_ID", fmt.Sprint(r.FileID))
				}
			}
			// every line of a module this package reads is matched; the others' modules
			// (HEATMAP) are listed as skipped
			n := 0
			for k := range want {
				mod, _, _ := strings.Cut(k, " ")
				if ModuleByName(mod) != nil {
					n++
				} else if !slices.Contains(l.Skipped, mod) {
					t.Errorf("darshan-parser prints module %s, the log's Skipped %q lacks it", mod, l.Skipped)
				}
			}
			if seen != n || seen == 0 {
				t.Errorf("matched %d of darshan-parser's %d counter lines of the modules read", seen, n)
			}
			checkDXT(t, l, strings.TrimSuffix(path, ".darshan")+".dxt.txt")
		})
	}
}

// checkDXT compares the DXT records with darshan-dxt-parser's segment lines
// ("X_POSIX RANK write|read SEG OFFSET LENGTH START END", times to 4 decimals).
func checkDXT(t *testing.T, l *Log, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		if len(l.DXT) > 0 {
			t.Errorf("the log has DXT records and no %s", path)
		}
		return
	}
	var want []string
	file := ""
	for _, ln := range strings.Split(string(b), "\n") {
		if _, rest, ok := strings.Cut(ln, "# DXT, file_id: "); ok {
			_, file, _ = strings.Cut(rest, ", file_name: ")
			continue
		}
		fs := strings.Fields(ln)
		if len(fs) >= 8 && (fs[0] == "X_POSIX" || fs[0] == "X_MPIIO") {
			want = append(want, strings.Join(append([]string{file}, fs[:8]...), " "))
		}
	}
	var got []string
	for _, d := range l.DXT {
		mod := map[string]string{"DXT_POSIX": "X_POSIX", "DXT_MPIIO": "X_MPIIO"}[d.Module.Name]
		for kind, segs := range map[string][]Segment{"write": d.Writes, "read": d.Reads} {
			for i, s := range segs {
				got = append(got, fmt.Sprintf("%s %s %d %s %d %d %d %.4f %.4f", l.Names[d.ID], mod, d.Rank, kind, i, s.Offset, s.Length, s.Start, s.End))
			}
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("DXT segments (%d) differ from darshan-dxt-parser's (%d):\n%s\nwant\n%s", len(got), len(want),
			strings.Join(got[:min(5, len(got))], "\n"), strings.Join(want[:min(5, len(want))], "\n"))
	}
}
