package darshan

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// Captured is a description folded from a Darshan log: the model, its YAML, and what the
// log could not tell (each also a "# guess:" comment beside its key in the YAML).
type Captured struct {
	Desc    *desc.Description
	YAML    string
	Guesses []string
}

// stepGroup is a group name ending in a number (Timestep_0): one per step when a file has
// several numbers of the same name.
var stepGroup = regexp.MustCompile(`^(.*?)(\d+)$`)

// typeGuess names the type a dataset of an element size most likely has: Darshan
// records the size (H5D_DATATYPE_SIZE), not the class or sign.
var typeGuess = map[int64]string{1: "u8", 2: "i16", 4: "f32", 8: "f64"}

// capDS is one dataset of the log: its H5D records over the ranks.
type capDS struct {
	file, path string
	recs       []*Record
}

func (d *capDS) max(counter string) int64 {
	var v int64
	for _, r := range d.recs {
		v = max(v, r.Counter(counter))
	}
	return v
}

func (d *capDS) sum(counter string) int64 {
	var v int64
	for _, r := range d.recs {
		v += r.Counter(counter)
	}
	return v
}

// Capture folds the log into an application description as far as the log allows: the
// HDF5 files (H5F records) and their datasets (H5D names: groups, and groups whose names
// differ only in a number become one group per step), each dataset's type from its
// element size, its shape from its points and dimensions, its chunk, and the timeline
// (written files, collective or not, flushed when the program flushed; read files).
// Ranks come from the job. What the log does not record (type classes, extents of more
// than one dimension, the decomposition, attributes, the compute time) is chosen and
// marked "# guess:". With DXT, each rank's POSIX and MPI-IO offsets and sizes are listed
// under the file.
func (l *Log) Capture(name string) (*Captured, error) {
	d := &desc.Description{Name: desc.V(name)}
	c := &Captured{Desc: d}
	guess := func(path, text string) {
		d.Guess(path, text)
		c.Guesses = append(c.Guesses, path+": "+text)
	}
	// files: H5F records by name, in log order
	var files []string
	for _, r := range l.Records {
		if r.Module.Name == "H5F" && !slices.Contains(files, l.Names[r.ID]) {
			files = append(files, l.Names[r.ID])
		}
	}
	dsets := map[string]*capDS{}
	var order []string
	for _, r := range l.Records {
		if r.Module.Name != "H5D" {
			continue
		}
		file, path := l.RecordName(r)
		if !slices.Contains(files, file) {
			files = append(files, file)
		}
		k := file + "\x00" + path
		if dsets[k] == nil {
			dsets[k] = &capDS{file: file, path: path}
			order = append(order, k)
		}
		dsets[k].recs = append(dsets[k].recs, r)
	}
	if n := splitJoinedNames(dsets, order); n > 0 {
		guess("files", fmt.Sprintf("%d dataset names split into a numbered group and a name (Darshan joins a group's path and a dataset's name without '/': /Timestep_0x)", n))
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("the log has no H5D records (no HDF5 dataset I/O, or Darshan ran without its HDF5 module): nothing to describe")
	}
	nranks := max(l.Job.Nprocs, 1)
	steps := 1
	ids := map[string]bool{}
	for _, file := range files {
		// step groups: the numbers of each group name per file
		numbers := map[string]map[int]bool{}
		for _, k := range order {
			ds := dsets[k]
			if ds.file != file {
				continue
			}
			for _, part := range groupsOf(ds.path) {
				if m := stepGroup.FindStringSubmatch(part); m != nil {
					n, _ := strconv.Atoi(m[2])
					if numbers[m[1]] == nil {
						numbers[m[1]] = map[int]bool{}
					}
					numbers[m[1]][n] = true
				}
			}
		}
		id := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		id = regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(id, "_")
		for ids[id] || id == "" {
			id += "_"
		}
		ids[id] = true
		f := &desc.File{ID: id, Name: desc.V(filepath.Base(file))}
		fpath := "files." + id
		seen := map[string]bool{}
		var writes, reads, flushes, coll int64
		for _, k := range order {
			ds := dsets[k]
			if ds.file != file {
				continue
			}
			writes += ds.sum("H5D_WRITES")
			reads += ds.sum("H5D_READS")
			coll = max(coll, ds.max("H5D_USE_MPIIO_COLLECTIVE"))
			var gpath []string
			for _, part := range groupsOf(ds.path) {
				if m := stepGroup.FindStringSubmatch(part); m != nil && len(numbers[m[1]]) > 1 {
					part = m[1] + "${step}"
					steps = max(steps, len(numbers[m[1]]))
				}
				gpath = append(gpath, part)
			}
			dname := ds.path[strings.LastIndex(ds.path, "/")+1:]
			key := strings.Join(append(gpath, dname), "/")
			if seen[key] {
				continue // the same dataset at another step
			}
			seen[key] = true
			content, cpath := &f.Content, fpath
			for _, g := range gpath {
				cpath += ".groups." + g
				content = groupIn(content, g)
			}
			content.Datasets = append(content.Datasets, l.capDataset(ds, dname, cpath+".datasets."+dname, nranks, guess))
		}
		for _, r := range l.Records {
			if r.Module.Name == "H5F" && l.Names[r.ID] == file {
				flushes += r.Counter("H5F_FLUSHES")
			}
		}
		d.Files = append(d.Files, f)
		if writes > 0 {
			a := &desc.Action{Write: desc.V(id)}
			if coll == 0 {
				a.Collective = desc.V("false")
			}
			d.Timeline = append(d.Timeline, a)
		}
		if flushes > 0 && writes > 0 {
			d.Timeline = append(d.Timeline, &desc.Action{Flush: desc.V(id), At: desc.V("end")})
			guess(fmt.Sprintf("timeline[%d]", len(d.Timeline)-1), fmt.Sprintf("flushed at the end (the log counts %d flushes, not when)", flushes))
		}
		if reads > 0 {
			a := &desc.Action{Read: desc.V(id)}
			if writes > 0 {
				a.At = desc.V("restart")
			}
			d.Timeline = append(d.Timeline, a)
		}
		if lines := l.dxtSummary(file); len(lines) > 0 {
			d.Comment(fpath, append([]string{"DXT: each rank's accesses to the file (offsets and sizes)"}, lines...)...)
		}
		guess(fpath, "attributes: none (Darshan records no attributes)")
	}
	d.Steps = desc.V(strconv.Itoa(steps))
	if steps > 1 {
		guess("steps", fmt.Sprintf("%d steps from the numbered groups; compute between them: none (the log has no step times)", steps))
	}
	d.Comment("", fmt.Sprintf("Folded from a Darshan %s log of %s (%d rank(s)) by h5proxy capture -from; run it with -np %d.", l.Version, l.Exe, nranks, nranks))
	b, err := desc.Marshal(d)
	if err != nil {
		return nil, err
	}
	if _, err := desc.Parse("(captured from Darshan)", b, nil); err != nil {
		return nil, fmt.Errorf("capture wrote a description h5proxy check refuses (a capture bug): %w\n%s", err, b)
	}
	c.YAML = string(b)
	return c, nil
}

// groupsOf lists the groups of a dataset path (/Timestep_0/x: [Timestep_0]).
func groupsOf(path string) []string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return parts[:len(parts)-1]
}

// groupIn returns the group of that name in c, added when absent.
func groupIn(c *desc.Content, name string) *desc.Content {
	for _, g := range c.Groups {
		if g.Name.Text == name {
			return &g.Content
		}
	}
	g := &desc.Group{Name: desc.V(name)}
	c.Groups = append(c.Groups, g)
	return &g.Content
}

// capDataset describes one dataset from its records.
func (l *Log) capDataset(ds *capDS, name, path string, nranks int64, guess func(string, string)) *desc.Dataset {
	out := &desc.Dataset{Name: name}
	size := ds.max("H5D_DATATYPE_SIZE")
	t, ok := typeGuess[size]
	if !ok {
		t = fmt.Sprintf("str%d", max(size, 1))
	}
	out.Type = desc.V(t)
	guess(path+".type", fmt.Sprintf("%s (the log gives a %d-byte type, not its class or sign)", t, size))
	ndims, npoints := ds.max("H5D_DATASPACE_NDIMS"), ds.max("H5D_DATASPACE_NPOINTS")
	// per rank: the most common selection's length in each dimension, slowest first
	// (Darshan puts dimension k in D(5-k): a 1-D selection's length is D5)
	lens := make([]int64, max(ndims, 1))
	for k := range lens {
		if k < 5 {
			lens[k] = ds.max(fmt.Sprintf("H5D_ACCESS1_LENGTH_D%d", 5-k))
		}
	}
	switch {
	case ndims == 0:
		out.Shape = nil
		out.Give("shape")
	case ndims == 1 && lens[0] > 0 && lens[0]*nranks == npoints:
		out.Shape = desc.Vs(fmt.Sprintf("%d * nranks", lens[0]))
		guess(path+".shape", "block decomposition along dimension 0 (each rank's selection is 1/nranks of the points; the log keeps no offsets per dataset)")
	case ndims == 1:
		out.Shape = desc.Vs(strconv.FormatInt(npoints, 10))
	default:
		// the log keeps the points, not the extents: the selection's lengths, slowest
		// first, with the slowest grown to make the points
		shape := make([]string, ndims)
		inner := int64(1)
		for i := int64(1); i < ndims; i++ {
			v := max(lens[i], 1)
			shape[i] = strconv.FormatInt(v, 10)
			inner *= v
		}
		shape[0] = strconv.FormatInt(max(npoints/inner, 1), 10)
		out.Shape = desc.Vs(shape...)
		guess(path+".shape", fmt.Sprintf("[%s] (the log gives %d dimensions and %d points, not the extents)", strings.Join(shape, ", "), ndims, npoints))
	}
	var chunk []string
	for dim := ndims; dim >= 1 && dim <= 5; dim-- {
		if v := ds.max(fmt.Sprintf("H5D_CHUNK_SIZE_D%d", dim)); v > 0 {
			chunk = append(chunk, strconv.FormatInt(v, 10))
		}
	}
	if len(chunk) == int(ndims) && ndims > 0 {
		out.Chunk = desc.Vs(chunk...)
	}
	return out
}

// dxtSummary lists each rank's traced accesses to file: count, offsets and sizes.
func (l *Log) dxtSummary(file string) []string {
	var out []string
	for _, d := range l.DXT {
		if l.Names[d.ID] != file {
			continue
		}
		for kind, segs := range map[string][]Segment{"writes": d.Writes, "reads": d.Reads} {
			if len(segs) == 0 {
				continue
			}
			sizes := map[int64]int{}
			lo, hi, unknown := int64(-1), int64(-1), 0
			for _, s := range segs {
				sizes[s.Length]++
				if s.Offset < 0 {
					unknown++ // DXT_MPIIO keeps no offset for some calls
					continue
				}
				if lo < 0 || s.Offset < lo {
					lo = s.Offset
				}
				hi = max(hi, s.Offset+s.Length)
			}
			var ks []int64
			for k := range sizes {
				ks = append(ks, k)
			}
			sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
			var parts []string
			for _, k := range ks {
				parts = append(parts, fmt.Sprintf("%d B x%d", k, sizes[k]))
			}
			where := fmt.Sprintf("in [%d, %d)", lo, hi)
			if lo < 0 {
				where = "at offsets not recorded"
			} else if unknown > 0 {
				where += fmt.Sprintf(", %d at offsets not recorded", unknown)
			}
			out = append(out, fmt.Sprintf("%s rank %d: %d %s %s: %s", strings.TrimPrefix(d.Module.Name, "DXT_"), d.Rank, len(segs), kind, where, strings.Join(parts, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

// joinedName is a Darshan H5D name of a dataset in a numbered group, group and name
// joined without '/' (/Timestep_0x, /Timestep_1id_1): the group's name up to its
// number, the number, the dataset's name.
var joinedName = regexp.MustCompile(`^/([^/]*?[^/\d])(\d+)([^/\d][^/]*)$`)

// splitJoinedNames gives the datasets whose names Darshan joined (see joinedName) their
// paths back: /Timestep_0/x, where a file has names of the same group prefix with at
// least two numbers (one alone could as well be a dataset named so). It returns how many
// it split.
func splitJoinedNames(dsets map[string]*capDS, order []string) int {
	numbers := map[string]map[string]bool{} // file and group prefix -> numbers
	for _, k := range order {
		ds := dsets[k]
		if m := joinedName.FindStringSubmatch(ds.path); m != nil {
			key := ds.file + "\x00" + m[1]
			if numbers[key] == nil {
				numbers[key] = map[string]bool{}
			}
			numbers[key][m[2]] = true
		}
	}
	n := 0
	for _, k := range order {
		ds := dsets[k]
		if m := joinedName.FindStringSubmatch(ds.path); m != nil && len(numbers[ds.file+"\x00"+m[1]]) > 1 {
			ds.path = "/" + m[1] + m[2] + "/" + m[3]
			n++
		}
	}
	return n
}
