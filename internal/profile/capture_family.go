package profile

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// stepField matches a name template's step field (${step}, ${step:05d}, ${div(step, 2):04d})
// with a separator before it: out_${step:02d}.h5's file id is out.
var stepField = regexp.MustCompile(`[_.-]?\$\{[^}]*step[^}]*\}`)

// cadence is when a file that is not the run's own file per step is written: the steps
// of a family with its own numbering (FLASH's checkpoints every second plot step:
// restart_${div(step, 2):04d}.h5), or the one step of a file written once (a forced plot
// file after the last step's), as the action's every and when keys.
type cadence struct {
	every, when string
}

// fileFamilies is what foldFilesPerStep found: each folded file's name template and the
// cadences of the files written at some steps only, both by the path of the file that
// stands for them (a family's first).
type fileFamilies struct {
	names    map[string]string
	cadences map[string]cadence
}

// family is the files whose names differ only in a number, the numbers 0..N-1, holding the
// same datasets: member[k] is the file numbered k.
type family struct {
	members []string
	tmpl    func(index string) string // the name with the number's field replaced
}

// foldFilesPerStep finds the HDF5 files written one per step (AMReX's plt00000.h5,
// plt00001.h5: names that differ only in a number, the numbers the steps 0..N-1, the same
// datasets in each) and returns a copy of p where each family is one file whose records
// and events carry their member's number (fileStep, 1 + the number), with the family's
// name template by its first file's path (plt${step:05d}.h5). The first file's H5F record
// stands for the family's.
//
// The family with the most files is the run's step counter. Another family (FLASH's
// checkpoints beside its plot files) keeps its own numbering and cadence: each of its
// files is placed at the step of the counter's file it was written with (before the
// counter's file of that step when its first file came first, else after it), and when
// those steps are start + k*every it is folded with its number computed from the step
// (chk_${div(step, 2):04d}); files written once (a forced plot file) are placed the same
// way, each at its step.
func foldFilesPerStep(p *Profile) (*Profile, fileFamilies) {
	out := fileFamilies{names: map[string]string{}, cadences: map[string]cadence{}}
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
	groups := map[string][]member{}
	var keys []string
	for _, f := range order {
		m := fileNumber.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		k := filepath.Join(filepath.Dir(f), m[1]+"\x00"+m[3]) + "\x00" + strings.Join(slices.Sorted(maps.Keys(datasets[f])), "\x00")
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], member{f, m[2]})
	}
	var families []family
	for _, k := range keys {
		ms := groups[k]
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
		byNumber := map[string]string{}
		for _, x := range ms {
			byNumber[x.digits] = x.file
		}
		fam := family{}
		for n := range ms {
			fam.members = append(fam.members, byNumber[num(n)])
		}
		if slices.Contains(fam.members, "") {
			continue
		}
		m := fileNumber.FindStringSubmatch(filepath.Base(ms[0].file))
		fam.tmpl = func(index string) string {
			if padded && width > 1 {
				return fmt.Sprintf("%s${%s:0%dd}%s", m[1], index, width, m[3])
			}
			return m[1] + "${" + index + "}" + m[3]
		}
		families = append(families, fam)
	}
	if len(families) == 0 {
		return p, out
	}
	// the counter: the family with the most files (the first of those)
	clock := slices.MaxFunc(families, func(a, b family) int { return cmp.Compare(len(a.members), len(b.members)) })
	canon := map[string]string{} // file -> the family's path
	number := map[string]int{}
	fold := func(fam family, name string) {
		out.names[fam.members[0]] = name
		for n, f := range fam.members {
			canon[f], number[f] = fam.members[0], n
		}
	}
	fold(clock, clock.tmpl("step"))
	// Where each file was written, in rank 0's events: its first and last event's index.
	first, last := map[string]int{}, map[string]int{}
	for i, e := range p.Events {
		if e.Rank != 0 || e.File == "" {
			continue
		}
		if _, ok := first[e.File]; !ok {
			first[e.File] = i
		}
		last[e.File] = i
	}
	// stepOf places a file written once between the counter's files: at the step of the
	// counter's next file (before) or of its last (after); false when the file was written
	// across the counter's files (written at several steps) or not traced.
	clockAt := make([]int, len(clock.members))
	for n, f := range clock.members {
		clockAt[n] = first[f]
	}
	placed := func(f string, after bool) (int, bool) {
		a, ok := first[f]
		if !ok {
			return 0, false
		}
		before := 0
		for _, at := range clockAt {
			if at < a {
				before++
			}
		}
		if before < len(clockAt) && last[f] > clockAt[before] {
			return 0, false // written across the next file of the counter
		}
		if after {
			before--
		}
		return before, before >= 0 && before < len(clockAt)
	}
	isMember := map[string]bool{}
	for _, fam := range families {
		for _, f := range fam.members {
			isMember[f] = true
		}
	}
	for _, fam := range families {
		if fam.members[0] == clock.members[0] {
			continue
		}
		// after the counter's file when its first file came after one
		after := false
		if a, ok := first[fam.members[0]]; ok {
			after = a > clockAt[0]
		}
		var steps []int
		for _, f := range fam.members {
			s, ok := placed(f, after)
			if !ok {
				steps = nil
				break
			}
			steps = append(steps, s)
		}
		if len(steps) == 0 {
			continue
		}
		start, every := steps[0], steps[1]-steps[0]
		regular := every > 0
		for k, s := range steps {
			regular = regular && s == start+k*every
		}
		if !regular {
			for k, f := range fam.members {
				out.cadences[f] = cadence{when: fmt.Sprintf("step == %d", steps[k])}
			}
			continue
		}
		index, c := fmt.Sprintf("div(step, %d)", every), cadence{every: strconv.Itoa(every)}
		if start != 0 {
			index, c = fmt.Sprintf("div(step - %d, %d)", start, every), cadence{when: fmt.Sprintf("step >= %d && (step - %d) %% %d == 0", start, start, every)}
		}
		fold(fam, fam.tmpl(index))
		out.cadences[fam.members[0]] = c
	}
	// the files written once beside the counter (a forced plot file)
	for _, f := range order {
		if isMember[f] {
			continue
		}
		after := first[f] > clockAt[0]
		if s, ok := placed(f, after); ok {
			out.cadences[f] = cadence{when: fmt.Sprintf("step == %d", s)}
		}
	}
	q := *p
	q.Records = nil
	for _, r := range p.Records {
		if c, ok := canon[r.File]; ok {
			if r.Module == "H5F" && c != r.File {
				continue // the family's H5F record is its first file's
			}
			r.File, r.fileStep = c, number[r.File]+1
		}
		q.Records = append(q.Records, r)
	}
	q.Events = slices.Clone(p.Events)
	for i, e := range q.Events {
		if c, ok := canon[e.File]; ok {
			q.Events[i].File, q.Events[i].fileStep = c, number[e.File]+1
		}
	}
	return &q, out
}
