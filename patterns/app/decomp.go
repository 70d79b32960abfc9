package app

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/plan"
)

// DimsCreate chooses a balanced process grid of nranks over len(dims) dimensions as
// MPI_Dims_create does: entries given (> 0) are kept, the others get the prime factors of
// the remaining ranks, largest first, each to the dimension with the smallest product, and
// the chosen entries end up in non-increasing order.
func DimsCreate(nranks int, dims []int) ([]int, error) {
	out := slices.Clone(dims)
	rest := nranks
	var free []int
	for i, d := range dims {
		switch {
		case d > 0:
			if rest%d != 0 {
				return nil, fmt.Errorf("grid entry %d does not divide the %d ranks left", d, rest)
			}
			rest /= d
		case d == 0:
			free = append(free, i)
		default:
			return nil, fmt.Errorf("grid entry %d is negative", d)
		}
	}
	if len(free) == 0 {
		if rest != 1 {
			return nil, fmt.Errorf("grid %v holds %d ranks, not %d", dims, nranks/rest, nranks)
		}
		return out, nil
	}
	var factors []int
	for n, p := rest, 2; n > 1; {
		if p*p > n {
			factors = append(factors, n)
			break
		}
		if n%p == 0 {
			factors = append(factors, p)
			n /= p
		} else {
			p++
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(factors)))
	vals := make([]int, len(free))
	for i := range vals {
		vals[i] = 1
	}
	for _, f := range factors {
		k := 0
		for i := range vals {
			if vals[i] < vals[k] {
				k = i
			}
		}
		vals[k] *= f
	}
	sort.Sort(sort.Reverse(sort.IntSlice(vals)))
	for i, idx := range free {
		out[idx] = vals[i]
	}
	return out, nil
}

// part is one rank's share of a dataset: the file selection and the memory shape.
type part struct {
	sel plan.Selection
	mem []uint64
}

// decomposer computes ranks' parts of one dataset shape; made once per dataset and
// shape, it caches what is shared by all ranks (counts, maps).
type decomposer struct {
	kind   string
	shape  []uint64
	nranks int
	grid   []int    // block
	block  uint64   // cyclic
	counts []uint64 // uneven: per rank
	starts []uint64 // uneven: prefix sums
	m      *e3sm.Map
	k      int
	sorted bool   // map: requests sorted and merged (order: sorted)
	hyper  bool   // rank0, replicated: the whole extent as a hyperslab, not H5S_ALL (select: hyperslab)
	parts  []part // map: every rank's part, made once (the coverage check needs them all)
	points map[int][][]uint64
}

func rowOf(shape []uint64) uint64 {
	if len(shape) == 0 {
		return 1
	}
	return shape[len(shape)-1]
}

// newDecomposer validates a decomposition against a dataset shape for nranks. shape[0]
// may be 0 with auto (uneven: the sum of the counts fills it in).
func newDecomposer(ds *desc.Dataset, dc *desc.Decompose, sc *desc.Scope, shape []uint64, auto bool, nranks int, dir string) (*decomposer, error) {
	kind := strings.ToLower(dc.Kind.Text)
	if kind == "" {
		kind = "block"
	}
	d := &decomposer{kind: kind, shape: shape, nranks: nranks, hyper: strings.EqualFold(dc.Select.Text, "hyperslab")}
	if d.hyper && kind != "rank0" && kind != "replicated" {
		return nil, errAt(dc.Select, "select applies to rank0 and replicated", "select: all, or kind: rank0 or replicated")
	}
	if len(shape) == 0 && kind != "rank0" && kind != "replicated" {
		return nil, errAt(dc.Kind, "a scalar dataset cannot be decomposed", "rank0 or replicated")
	}
	switch kind {
	case "block":
		g := make([]int, len(shape))
		if len(dc.Grid) > 0 {
			if len(dc.Grid) != len(shape) {
				return nil, errAt(dc.Grid[0], "the grid has %d entries, the shape %d dimensions", "one entry per dimension", len(dc.Grid), len(shape))
			}
			for i, v := range dc.Grid {
				n, err := sc.Int(v)
				if err != nil {
					return nil, err
				}
				g[i] = n
			}
		}
		grid, err := DimsCreate(nranks, g)
		if err != nil {
			v := dc.Kind
			if len(dc.Grid) > 0 {
				v = dc.Grid[0]
			}
			return nil, errAt(v, "process grid for %d ranks: %v", "a grid whose product is nranks (0 entries are chosen)", nranks, err)
		}
		for i, n := range grid {
			if shape[i]%uint64(n) != 0 {
				return nil, &desc.Error{Pos: ds.Pos, Key: ds.Decompose.Kind.Path, Value: "block",
					Reason: fmt.Sprintf("shape[%d] = %d of dataset %s is not divisible by the %d ranks of grid %v over %d ranks",
						i, shape[i], ds.Name, n, grid, nranks),
					Allowed: "a shape each grid dimension divides; or decompose: {kind: uneven} (1-D), or a grid that fits"}
			}
		}
		d.grid = grid
	case "cyclic":
		b, err := sc.Uint(dc.Block)
		if err != nil {
			return nil, err
		}
		if b == 0 {
			return nil, errAt(dc.Block, "a block of 0 elements", "block >= 1")
		}
		d.block = b
	case "uneven":
		if err := d.unevenCounts(dc, sc, nranks, dir); err != nil {
			return nil, err
		}
		total := d.starts[nranks]
		if auto {
			d.shape[0] = total
		} else if total != shape[0] {
			return nil, &desc.Error{Pos: ds.Pos, Key: dc.Kind.Path, Value: "uneven",
				Reason:  fmt.Sprintf("the %d ranks' counts sum to %d, shape[0] of %s is %d", nranks, total, ds.Name, shape[0]),
				Allowed: "shape: [auto, ...] (the sum), or counts that sum to shape[0]"}
		}
	case "map":
		if !dc.File.Set {
			return nil, errAt(dc.Kind, "a map decomposition needs file", "decompose: {kind: map, file: MAP.h5, decomp: 1}")
		}
		path, err := sc.Text(dc.File)
		if err != nil {
			return nil, err
		}
		m, err := e3sm.LoadMap(relTo(dir, path))
		if err != nil {
			return nil, errAt(dc.File, "%v", "an E3SM-IO map file (HDF5)", err)
		}
		k, err := sc.Int(dc.Decomp)
		if err != nil {
			return nil, err
		}
		if k < 1 || k > len(m.Decomps) {
			return nil, errAt(dc.Decomp, "the map has %d decompositions", fmt.Sprintf("1..%d", len(m.Decomps)), len(m.Decomps))
		}
		dims := m.Decomps[k-1].Dims
		if plan.Product(dims) != plan.Product(shape) || rowOf(dims) != rowOf(shape) {
			return nil, &desc.Error{Pos: ds.Pos, Key: dc.Decomp.Path, Value: dc.Decomp.Text,
				Reason:  fmt.Sprintf("decomposition D%d of %s has dims %v, dataset %s has shape %v", k, path, dims, ds.Name, shape),
				Allowed: "a shape with the decomposition's element count and last dimension"}
		}
		d.m, d.k, d.sorted = m, k-1, strings.EqualFold(dc.Order.Text, "sorted")
		d.parts = make([]part, nranks)
		for r := range d.parts {
			d.parts[r] = d.mapPart(r)
		}
		if err := d.coverage(!m.Decomps[k-1].FullyCovered); err != nil {
			return nil, errAt(dc.File, "decomposition D%d over %d ranks: %v", "a map whose requests cover each element once", k, nranks, err)
		}
	case "points":
		if !dc.File.Set {
			return nil, errAt(dc.Kind, "a points decomposition needs file", "decompose: {kind: points, file: POINTS.txt}")
		}
		path, err := sc.Text(dc.File)
		if err != nil {
			return nil, err
		}
		pts, err := readPoints(relTo(dir, path), len(shape), shape)
		if err != nil {
			return nil, errAt(dc.File, "%v", "lines `rank i [j ...]` inside the shape", err)
		}
		d.points = pts
		if err := d.coverage(false); err != nil {
			return nil, errAt(dc.File, "over %d ranks: %v", "a point list naming each element of the shape once", nranks, err)
		}
	case "rank0", "replicated":
	default:
		return nil, errAt(dc.Kind, "unknown decomposition", "block, uneven, cyclic, map, points, rank0, replicated")
	}
	return d, nil
}

func errAt(v desc.Value, reason, allowed string, args ...any) error {
	return &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: fmt.Sprintf(reason, args...), Allowed: allowed}
}

func relTo(dir, path string) string {
	if filepath.IsAbs(path) || dir == "" {
		return path
	}
	return filepath.Join(dir, path)
}

// unevenCounts sets every rank's count (needed for offsets): an expression over rank, a
// seeded distribution, or a file.
func (d *decomposer) unevenCounts(dc *desc.Decompose, sc *desc.Scope, nranks int, dir string) error {
	d.counts = make([]uint64, nranks)
	switch {
	case dc.Count.Set:
		save, _ := sc.Var("rank")
		defer sc.SetVar("rank", save)
		for r := range nranks {
			sc.SetVar("rank", r)
			n, err := sc.Uint(dc.Count)
			if err != nil {
				return err
			}
			d.counts[r] = n
		}
	case dc.Distribution.Set:
		seed, err := sc.Uint(dc.Seed)
		if err != nil {
			return err
		}
		num := func(v desc.Value, def float64) (float64, error) {
			if !v.Set {
				return def, nil
			}
			return sc.Float(v)
		}
		mean, err := num(dc.Mean, 0)
		if err != nil {
			return err
		}
		sd, err := num(dc.Stddev, 0)
		if err != nil {
			return err
		}
		lo, err := num(dc.Min, mean)
		if err != nil {
			return err
		}
		hi, err := num(dc.Max, mean)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(seed, 0x68357078))
		for r := range nranks {
			var x float64
			switch strings.ToLower(dc.Distribution.Text) {
			case "uniform":
				if hi < lo {
					return errAt(dc.Max, "max %g < min %g", "max >= min", hi, lo)
				}
				x = lo + math.Floor(rng.Float64()*(hi-lo+1))
			case "normal":
				x = math.Round(mean + sd*rng.NormFloat64())
			case "lognormal":
				mu := math.Log(max(mean, 1))
				x = math.Round(math.Exp(mu + sd*rng.NormFloat64()))
			}
			d.counts[r] = uint64(max(0, x))
		}
	case dc.File.Set:
		path, err := sc.Text(dc.File)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(relTo(dir, path))
		if err != nil {
			return errAt(dc.File, "%v", "a text file of one count per rank")
		}
		f := strings.Fields(string(b))
		if len(f) < nranks {
			return errAt(dc.File, "%d counts for %d ranks", "at least one count per rank", len(f), nranks)
		}
		for r := range nranks {
			n, err := strconv.ParseUint(f[r], 10, 64)
			if err != nil {
				return errAt(dc.File, "count %d (rank %d) %q is not a count", "non-negative integers", r, r, f[r])
			}
			d.counts[r] = n
		}
	default:
		return errAt(dc.Kind, "uneven needs the counts", "count: EXPR, distribution: uniform|normal|lognormal, or file: COUNTS")
	}
	d.starts = make([]uint64, nranks+1)
	for r, c := range d.counts {
		d.starts[r+1] = d.starts[r] + c
	}
	return nil
}

// readPoints reads lines "rank i [j ...]" (comments after #) into each rank's points.
func readPoints(path string, ndims int, shape []uint64) (map[int][][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int][][]uint64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if i := strings.IndexByte(t, '#'); i >= 0 {
			t = t[:i]
		}
		fs := strings.Fields(t)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != ndims+1 {
			return nil, fmt.Errorf("%s:%d: %d fields, want rank and %d coordinates", path, line, len(fs), ndims)
		}
		r, err := strconv.Atoi(fs[0])
		if err != nil || r < 0 {
			return nil, fmt.Errorf("%s:%d: rank %q", path, line, fs[0])
		}
		p := make([]uint64, ndims)
		for i := range p {
			p[i], err = strconv.ParseUint(fs[i+1], 10, 64)
			if err != nil || p[i] >= shape[i] {
				return nil, fmt.Errorf("%s:%d: coordinate %q outside extent %d", path, line, fs[i+1], shape[i])
			}
		}
		out[r] = append(out[r], p)
	}
	return out, sc.Err()
}

// part returns rank r's share.
func (d *decomposer) part(r int) part {
	n := len(d.shape)
	switch d.kind {
	case "block":
		start, ext := make([]uint64, n), make([]uint64, n)
		rem := r
		for i := n - 1; i >= 0; i-- {
			g := d.grid[i]
			c := rem % g
			rem /= g
			ext[i] = d.shape[i] / uint64(g)
			start[i] = uint64(c) * ext[i]
		}
		if plan.Product(ext) == 0 {
			return part{sel: plan.None(), mem: []uint64{0}}
		}
		return part{sel: plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}, mem: ext}
	case "uneven":
		c := d.counts[r]
		if c == 0 || plan.Product(d.shape[1:]) == 0 {
			return part{sel: plan.None(), mem: []uint64{0}}
		}
		start, ext := make([]uint64, n), slices.Clone(d.shape)
		start[0], ext[0] = d.starts[r], c
		return part{sel: plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}, mem: ext}
	case "cyclic":
		return d.cyclic(r)
	case "map":
		return d.parts[r]
	case "points":
		// One H5Sselect_elements of the rank's points, sorted (the file's row-major order
		// pairs them with the memory buffer's elements, as every layout does).
		pts := slices.Clone(d.points[r])
		sortPoints(pts)
		if len(pts) == 0 {
			return part{sel: plan.None(), mem: []uint64{0}}
		}
		return part{sel: plan.PointList(pts), mem: []uint64{uint64(len(pts))}}
	case "rank0":
		if r != 0 {
			return part{sel: plan.None(), mem: []uint64{0}}
		}
		fallthrough
	default: // replicated
		// The whole dataset from one buffer: H5S_ALL, as a code writing it alone passes
		// (a scalar always), or its extent as a hyperslab (select: hyperslab).
		if n == 0 {
			return part{sel: plan.WholeSpace(nil), mem: nil}
		}
		if d.hyper {
			return part{sel: plan.All(d.shape), mem: slices.Clone(d.shape)}
		}
		return part{sel: plan.WholeSpace(d.shape), mem: slices.Clone(d.shape)}
	}
}

// mapPart is rank r's requests of the map as a union of blocks.
func (d *decomposer) mapPart(r int) part {
	reqs := d.m.Requests(d.k, r, d.nranks, false)
	if d.sorted {
		reqs = e3sm.SortCoalesce(reqs, int64(rowOf(d.shape)))
	}
	return runsPart(d.shape, reqs)
}

func sortPoints(pts [][]uint64) {
	sort.Slice(pts, func(a, b int) bool { return slices.Compare(pts[a], pts[b]) < 0 })
}

// cyclic is rank r's round-robin blocks along dim 0: full blocks as one strided hyperslab,
// a last partial block apart.
func (d *decomposer) cyclic(r int) part {
	n0, b, R := d.shape[0], d.block, uint64(d.nranks)
	nb := (n0 + b - 1) / b
	if uint64(r) >= nb {
		return part{sel: plan.None(), mem: []uint64{0}}
	}
	full := n0 / b // blocks of b elements
	rest := slices.Clone(d.shape[1:])
	inner := plan.Product(rest)
	var hs []plan.Hyperslab
	var count uint64
	if uint64(r) < full {
		cnt := (full-1-uint64(r))/R + 1
		h := plan.Hyperslab{Start: append([]uint64{uint64(r) * b}, make([]uint64, len(rest))...),
			Stride: append([]uint64{R * b}, ones(len(rest))...), Count: append([]uint64{cnt}, ones(len(rest))...),
			Block: append([]uint64{b}, rest...)}
		hs = append(hs, h)
		count += cnt * b
	}
	if nb > full && (nb-1)%R == uint64(r) { // the partial last block
		tail := n0 - full*b
		hs = append(hs, plan.Block(append([]uint64{full * b}, make([]uint64, len(rest))...), append([]uint64{tail}, rest...)))
		count += tail
	}
	if count*inner == 0 {
		return part{sel: plan.None(), mem: []uint64{0}}
	}
	// The rank's rows as a local array: count rows of the other dimensions.
	return part{sel: plan.Selection{Blocks: hs}, mem: append([]uint64{count}, rest...)}
}

func ones(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// runsPart turns flattened (offset, length) requests, none crossing a row of the last
// dimension, into a union of hyperslabs.
func runsPart(shape []uint64, reqs []e3sm.Request) part {
	n := len(shape)
	var blocks []plan.Hyperslab
	var total uint64
	for _, q := range reqs {
		if q.Length <= 0 {
			continue
		}
		start := make([]uint64, n)
		off := uint64(q.Offset)
		for i := n - 1; i >= 0; i-- {
			start[i] = off % shape[i]
			off /= shape[i]
		}
		ext := ones(n)
		ext[n-1] = uint64(q.Length)
		blocks = append(blocks, plan.Block(start, ext))
		total += uint64(q.Length)
	}
	if total == 0 {
		return part{sel: plan.None(), mem: []uint64{0}}
	}
	return part{sel: plan.Selection{Blocks: blocks}, mem: []uint64{total}}
}

// coverage checks that the ranks' parts write every element exactly once (map and
// points; block, uneven and cyclic do by construction): it names the first element
// written twice, with both ranks, or the first left unwritten.
func (d *decomposer) coverage(holesAllowed bool) error {
	type run struct {
		start, end uint64
		rank       int
	}
	var runs []run
	for r := range d.nranks {
		p := d.part(r)
		for _, x := range p.sel.Runs(d.shape) {
			runs = append(runs, run{x.Start, x.Start + x.Len, r})
		}
	}
	sort.Slice(runs, func(a, b int) bool { return runs[a].start < runs[b].start })
	var next uint64
	prev := -1
	for _, x := range runs {
		if x.start < next {
			return fmt.Errorf("element %v is written by rank %d and rank %d", unflatten(x.start, d.shape), prev, x.rank)
		}
		if x.start > next && !holesAllowed {
			return fmt.Errorf("element %v is written by no rank", unflatten(next, d.shape))
		}
		next, prev = x.end, x.rank
	}
	if total := plan.Product(d.shape); next < total && !holesAllowed {
		return fmt.Errorf("element %v is written by no rank", unflatten(next, d.shape))
	}
	return nil
}

func unflatten(g uint64, shape []uint64) []uint64 {
	c := make([]uint64, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		c[i] = g % shape[i]
		g /= shape[i]
	}
	return c
}
