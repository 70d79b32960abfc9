package e3sm

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// Synthesized decompositions (no map file): the grid's horizontal points are laid out on a
// 2-D layout, ordered along a Hilbert curve and cut into P pieces of equal point counts
// (the space-filling-curve partition E3SM's components use), and each process's points
// become requests the way E3SM-IO's maps express them. See doc.go for the derivations.

// numbering is how a horizontal point's position on the layout maps to its file index.
type numbering int

const (
	// rowMajor: file index = position (y*W + x): F physics columns, MPAS cells, the land
	// lat×lon grid.
	rowMajor numbering = iota
	// scattered: file index = (position * K) mod N with K coprime to N near N/φ: the
	// file's order has nothing to do with the partition, so a process's points fall apart
	// into requests of length 1 spread over the whole range (the F dynamics maps D2/D3 and
	// the MPAS edge and vertex maps).
	scattered
)

// horizontal is one set of horizontal points and its partition among P processes.
type horizontal struct {
	n      int
	active [][]int // per process, sorted file indices of its active points
	holes  [][]int // per process, sorted file indices of the inactive points of its piece
}

// synthLayout partitions n points among P processes: positions 0..h*w-1 of an h×w grid
// (row-major) ordered along a Hilbert curve, then positions h*w..n-1 (points off the grid,
// like the cubed sphere's two extra columns) at the end of the curve. mask, when set,
// tells active positions; inactive ones (ocean in the land model) take no part in the
// balance and become the piece's holes.
func synthLayout(n, h, w, nprocs int, num numbering, mask func(pos int) bool) *horizontal {
	order := hilbertOrder(h, w)
	for pos := h * w; pos < n; pos++ {
		order = append(order, pos)
	}
	active := func(pos int) bool { return mask == nil || mask(pos) }
	var total int
	for _, pos := range order {
		if active(pos) {
			total++
		}
	}
	index := func(pos int) int { return pos }
	if num == scattered && n > 2 {
		k := coprimeNear(n, int(float64(n)/math.Phi))
		index = func(pos int) int { return int(uint64(pos) * uint64(k) % uint64(n)) }
	}
	hz := &horizontal{n: n, active: make([][]int, nprocs), holes: make([][]int, nprocs)}
	seen := 0
	for _, pos := range order {
		// The piece of a point: its rank among active points, scaled to P pieces; holes go
		// with the piece of the next active point.
		p := seen * nprocs / max(total, 1)
		if p >= nprocs {
			p = nprocs - 1
		}
		if active(pos) {
			hz.active[p] = append(hz.active[p], index(pos))
			seen++
		} else {
			hz.holes[p] = append(hz.holes[p], index(pos))
		}
	}
	for p := range hz.active {
		sort.Ints(hz.active[p])
		sort.Ints(hz.holes[p])
	}
	return hz
}

// coprimeNear returns the integer closest to k (>= 1) that is coprime to n.
func coprimeNear(n, k int) int {
	if k < 1 {
		k = 1
	}
	for d := 0; ; d++ {
		for _, c := range []int{k - d, k + d} {
			if c >= 1 && c < n && gcd(c, n) == 1 {
				return c
			}
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// hilbertOrder returns the row-major positions of an h×w grid in Hilbert-curve order
// (the curve of the enclosing power-of-two square, skipping cells outside the grid).
func hilbertOrder(h, w int) []int {
	side := 1
	for side < h || side < w {
		side *= 2
	}
	out := make([]int, 0, h*w)
	for d := 0; d < side*side; d++ {
		x, y := hilbertXY(side, d)
		if x < w && y < h {
			out = append(out, y*w+x)
		}
	}
	return out
}

// hilbertXY converts distance d along the Hilbert curve of an n×n square (n a power of
// two) to coordinates.
func hilbertXY(n, d int) (x, y int) {
	t := d
	for s := 1; s < n; s *= 2 {
		rx := 1 & (t / 2)
		ry := 1 & (t ^ rx)
		if ry == 0 {
			if rx == 1 {
				x, y = s-1-x, s-1-y
			}
			x, y = y, x
		}
		x += s * rx
		y += s * ry
		t /= 4
	}
	return x, y
}

// grid2 returns a near-square h×w layout for n points (h*w <= n, the rest off the grid).
func grid2(n int) (h, w int) {
	w = int(math.Sqrt(float64(n)))
	if w < 1 {
		w = 1
	}
	return n / w, w
}

// synthDecomp describes one synthesized decomposition.
type synthDecomp struct {
	dims []uint64    // decomposed shape
	hz   *horizontal // partition of the horizontal points
	// lead: the horizontal dimension is dims[0] and each point owns a full row of the
	// remaining dims (MPAS: nCells × nVertLevels); otherwise the horizontal points are the
	// trailing dims flattened (F lev × ncol, I lev × lat × lon) and the leading dims are
	// levels that repeat each process's runs.
	lead bool
	row  int // the last dimension's length: no request crosses a row
}

// requests builds process p's requests: the active points' runs (or, with fill, also the
// holes' runs after them, as E3SM-IO's maps list fill requests after fill_starts).
func (s *synthDecomp) requests(p int, fill bool) (used, all []Request) {
	used = s.runs(s.hz.active[p])
	all = used
	if fill {
		all = append(append([]Request(nil), used...), s.runs(s.hz.holes[p])...)
	}
	return used, all
}

// runs turns sorted point indices into requests.
func (s *synthDecomp) runs(points []int) []Request {
	var out []Request
	if s.lead {
		rowLen := int64(1)
		for _, d := range s.dims[1:] {
			rowLen *= int64(d)
		}
		for _, c := range points {
			out = append(out, Request{int64(c) * rowLen, rowLen})
		}
		return out
	}
	// Runs of consecutive indices, split at row ends, repeated for every level.
	type run struct{ start, n int }
	var rs []run
	for i := 0; i < len(points); {
		j := i + 1
		for j < len(points) && points[j] == points[j-1]+1 && points[j]%s.row != 0 {
			j++
		}
		rs = append(rs, run{points[i], j - i})
		i = j
	}
	levels := 1
	for _, d := range s.dims {
		levels *= int(d)
	}
	levels /= s.hz.n
	for l := 0; l < levels; l++ {
		base := int64(l) * int64(s.hz.n)
		for _, r := range rs {
			out = append(out, Request{base + int64(r.start), int64(r.n)})
		}
	}
	return out
}

// SynthSpec selects a synthesized decomposition map.
type SynthSpec struct {
	Case   string // F, G or I
	NProcs int    // map processes P
	// F: cubed-sphere resolution ne (ncol = 54·ne²+2) and levels.
	NE, Lev int
	// G: MPAS cells (edges = 3·cells−6, vertices = 2·cells−4) and vertical levels.
	Cells, GLev int
	// I: lat × lon grid and the land fraction (the rest is ocean: holes in the maps).
	Lat, Lon int
	Land     float64
}

// I-case level dimensions of the 16p map (levgrnd = levdcmp, levlak, ltype, natpft).
const (
	iLevgrnd = 15
	iLevlak  = 10
	iLtype   = 9
	iNatpft  = 17
)

// Synthesize builds a decomposition map of the spec's case and size. Requests are made
// per process on demand, so maps for large grids cost only the partition.
func Synthesize(s SynthSpec) (*Map, error) {
	if s.NProcs < 1 {
		return nil, fmt.Errorf("e3sm synthesize: %d map processes", s.NProcs)
	}
	var ds []*synthDecomp
	src := ""
	switch s.Case {
	case "F":
		if s.NE < 1 || s.Lev < 1 {
			return nil, fmt.Errorf("e3sm synthesize F: ne %d, lev %d must be >= 1", s.NE, s.Lev)
		}
		side := 3 * s.NE
		ncol := 54*s.NE*s.NE + 2 // 6 faces of (3ne)² GLL columns + 2
		// The six cube faces side by side in a 2×3 arrangement.
		phys := synthLayout(ncol, 2*side, 3*side, s.NProcs, rowMajor, nil)
		dyn := synthLayout(ncol, 2*side, 3*side, s.NProcs, scattered, nil)
		n := uint64(ncol)
		ds = []*synthDecomp{
			{dims: []uint64{n}, hz: phys, row: ncol},
			{dims: []uint64{n}, hz: dyn, row: ncol},
			{dims: []uint64{uint64(s.Lev), n}, hz: dyn, row: ncol},
		}
		src = fmt.Sprintf("synthesized F ne%d (ncol %d, lev %d) on %d processes", s.NE, ncol, s.Lev, s.NProcs)
	case "G":
		if s.Cells < 3 || s.GLev < 1 {
			return nil, fmt.Errorf("e3sm synthesize G: cells %d must be >= 3, levels %d >= 1", s.Cells, s.GLev)
		}
		cells, edges, verts := s.Cells, 3*s.Cells-6, 2*s.Cells-4
		lay := func(n int, num numbering) *horizontal {
			h, w := grid2(n)
			return synthLayout(n, h, w, s.NProcs, num, nil)
		}
		hc, he, hv := lay(cells, rowMajor), lay(edges, scattered), lay(verts, scattered)
		l := uint64(s.GLev)
		ds = []*synthDecomp{
			{dims: []uint64{uint64(cells)}, hz: hc, row: cells},
			{dims: []uint64{uint64(edges)}, hz: he, row: edges},
			{dims: []uint64{uint64(cells), l}, hz: hc, lead: true, row: s.GLev},
			{dims: []uint64{uint64(edges), l}, hz: he, lead: true, row: s.GLev},
			{dims: []uint64{uint64(verts), l}, hz: hv, lead: true, row: s.GLev},
			{dims: []uint64{uint64(cells), l + 1}, hz: hc, lead: true, row: s.GLev + 1},
		}
		src = fmt.Sprintf("synthesized G (nCells %d, nEdges %d, nVertices %d, nVertLevels %d) on %d processes", cells, edges, verts, s.GLev, s.NProcs)
	case "I":
		if s.Lat < 1 || s.Lon < 1 || s.Land <= 0 || s.Land > 1 {
			return nil, fmt.Errorf("e3sm synthesize I: lat %d, lon %d must be >= 1, land fraction %g in (0, 1]", s.Lat, s.Lon, s.Land)
		}
		mask := landMask(s.Lat, s.Lon, s.Land)
		n := s.Lat * s.Lon
		hz := synthLayout(n, s.Lat, s.Lon, s.NProcs, rowMajor, func(pos int) bool { return mask[pos] })
		la, lo := uint64(s.Lat), uint64(s.Lon)
		ds = []*synthDecomp{{dims: []uint64{la, lo}, hz: hz, row: s.Lon}}
		for _, lev := range []int{iLevgrnd, iLevlak, iLtype, iNatpft} {
			ds = append(ds, &synthDecomp{dims: []uint64{uint64(lev), la, lo}, hz: hz, row: s.Lon})
		}
		src = fmt.Sprintf("synthesized I (lat %d, lon %d, land %.2f) on %d processes", s.Lat, s.Lon, s.Land, s.NProcs)
	default:
		return nil, fmt.Errorf("e3sm synthesize: case %q; allowed F, G, I", s.Case)
	}
	m := &Map{Source: src, NProcs: s.NProcs}
	for _, d := range ds {
		m.Decomps = append(m.Decomps, Decomp{Dims: d.dims, FullyCovered: s.Case != "I"})
	}
	m.gen = func(k, p int, fill bool) []Request {
		used, all := ds[k].requests(p, fill)
		if fill {
			return all
		}
		return used
	}
	return m, nil
}

// landMask marks round(land·lat·lon) cells of a lat×lon grid as land: the cells where a
// smooth deterministic field (a few long waves, continents rather than noise) is highest.
func landMask(lat, lon int, land float64) []bool {
	n := lat * lon
	type cell struct {
		v   float64
		pos int
	}
	cs := make([]cell, n)
	for y := 0; y < lat; y++ {
		phi := math.Pi * (float64(y) + 0.5) / float64(lat)
		for x := 0; x < lon; x++ {
			lam := 2 * math.Pi * (float64(x) + 0.5) / float64(lon)
			v := math.Sin(2*lam+0.3)*math.Sin(phi) + 0.7*math.Sin(3*lam+1.1)*math.Sin(2*phi+0.4) +
				0.4*math.Cos(5*lam+0.2)*math.Sin(3*phi) + 0.3*math.Cos(phi)
			cs[y*lon+x] = cell{v, y*lon + x}
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].v > cs[j].v })
	k := int(math.Round(land * float64(n)))
	mask := make([]bool, n)
	for i := 0; i < k && i < n; i++ {
		mask[cs[i].pos] = true
	}
	return mask
}

// synthCache keeps synthesized maps per spec: every rank of a run plans from the same map.
var (
	synthMu    sync.Mutex
	synthCache = map[SynthSpec]*Map{}
)

func synthesizeCached(s SynthSpec) (*Map, error) {
	synthMu.Lock()
	defer synthMu.Unlock()
	if m, ok := synthCache[s]; ok {
		return m, nil
	}
	m, err := Synthesize(s)
	if err == nil {
		synthCache[s] = m
	}
	return m, err
}
