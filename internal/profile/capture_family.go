package profile

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// stepField matches a name template's step field (${step}, ${step:05d}) with a separator
// before it: out_${step:02d}.h5's file id is out.
var stepField = regexp.MustCompile(`[_.-]?\$\{step[^}]*\}`)

// foldFilesPerStep finds the HDF5 files written one per step (AMReX's plt00000.h5,
// plt00001.h5: names that differ only in a number, the numbers the steps 0..N-1, the same
// datasets in each) and returns a copy of p where each family is one file whose records
// and events carry their step (fileStep), and the family's name template by its path
// (plt${step:05d}.h5). The first file's H5F record stands for the family's.
func foldFilesPerStep(p *Profile) (*Profile, map[string]string) {
	datasets := map[string]map[string]bool{} // file -> its dataset paths
	var order []string
	for _, r := range p.Records {
		if r.Module != "H5D" || r.Rank > 0 {
			continue
		}
		if datasets[r.File] == nil {
			datasets[r.File] = map[string]bool{}
			order = append(order, r.File)
		}
		datasets[r.File][r.Name] = true
	}
	type member struct {
		file   string
		digits string
	}
	families := map[string][]member{}
	var keys []string
	for _, f := range order {
		m := fileNumber.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		k := filepath.Join(filepath.Dir(f), m[1]+"\x00"+m[3]) + "\x00" + strings.Join(slices.Sorted(maps.Keys(datasets[f])), "\x00")
		if families[k] == nil {
			keys = append(keys, k)
		}
		families[k] = append(families[k], member{f, m[2]})
	}
	canon := map[string]string{} // file -> the family's path
	step := map[string]int{}
	names := map[string]string{}
	for _, k := range keys {
		ms := families[k]
		if len(ms) < 2 {
			continue
		}
		width := len(ms[0].digits)
		padded := true
		for _, x := range ms {
			padded = padded && len(x.digits) == width
		}
		num := func(n int) string {
			if padded && width > 1 {
				return fmt.Sprintf("%0*d", width, n)
			}
			return strconv.Itoa(n)
		}
		byStep := map[string]string{}
		for _, x := range ms {
			byStep[x.digits] = x.file
		}
		ok := true
		for n := range ms {
			ok = ok && byStep[num(n)] != ""
		}
		if !ok {
			continue
		}
		m := fileNumber.FindStringSubmatch(filepath.Base(ms[0].file))
		first := byStep[num(0)]
		tmpl := m[1] + "${step}" + m[3]
		if padded && width > 1 {
			tmpl = fmt.Sprintf("%s${step:0%dd}%s", m[1], width, m[3])
		}
		names[first] = tmpl
		for n := range ms {
			canon[byStep[num(n)]], step[byStep[num(n)]] = first, n
		}
	}
	if len(canon) == 0 {
		return p, nil
	}
	q := *p
	q.Records = nil
	for _, r := range p.Records {
		if c, ok := canon[r.File]; ok {
			if r.Module == "H5F" && c != r.File {
				continue // the family's H5F record is its first file's
			}
			r.File, r.fileStep = c, step[r.File]+1
		}
		q.Records = append(q.Records, r)
	}
	q.Events = slices.Clone(p.Events)
	for i, e := range q.Events {
		if c, ok := canon[e.File]; ok {
			q.Events[i].File, q.Events[i].fileStep = c, step[e.File]+1
		}
	}
	return &q, names
}
