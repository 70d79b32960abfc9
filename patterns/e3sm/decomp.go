package e3sm

import (
	"fmt"
	"sort"
	"sync"

	"github.com/h5proxy/h5proxy/plan"
)

// Decomp is one decomposition (D<k> of a map file): the decomposed array shape and every
// map process's contiguous requests (offset, length) into that array flattened in C order.
type Decomp struct {
	// Dims is the decomposed shape, slowest first (D<k>.dims), e.g. [lev, ncol].
	Dims []uint64
	// Starts[p] is the index into Offsets/Lengths of map process p's first request;
	// Starts has NProcs+1 entries (the last is len(Offsets)).
	Starts []int
	// Used[p] is the number of requests of process p that are written: D<k>.fill_starts
	// (requests past it only exist to fill uncovered elements), or all of them in fill mode.
	Used []int
	// Fill[p] is the number of requests of process p including the fill-only ones
	// (D<k>.nreqs).
	Fill []int
	// Offsets and Lengths are the 0-based flattened start and the length of every request,
	// processes concatenated in order. A request never crosses a row of the last dimension.
	Offsets, Lengths []int64
	// FullyCovered is D<k>.fully_covered: false for land-only (I case) decompositions.
	FullyCovered bool
}

// Map is a decomposition map: what E3SM-IO reads from its map file, as plain values.
type Map struct {
	// Source names where the map came from (a file path, or "synthesized ...").
	Source string
	// NProcs is the number of processes that produced the map (decomp_nprocs).
	NProcs int
	// Decomps are D1, D2, ... in order.
	Decomps []Decomp
	// gen, when set, makes process p's requests of decomposition k on demand (synthesized
	// maps); the Decomps then hold only Dims and FullyCovered.
	gen func(k, p int, fill bool) []Request
}

// Synthetic reports whether the map was synthesized (requests made on demand).
func (m *Map) Synthetic() bool { return m.gen != nil }

// Case returns the case the map's decomposition count selects: 3 → F, 6 → G, 5 → I.
func (m *Map) Case() (string, error) {
	switch len(m.Decomps) {
	case 3:
		return "F", nil
	case 6:
		return "G", nil
	case 5:
		return "I", nil
	}
	return "", fmt.Errorf("e3sm map %s: %d decompositions; E3SM-IO knows 3 (F), 6 (G) and 5 (I)", m.Source, len(m.Decomps))
}

// Validate checks the map's internal consistency: process counts, request bounds and
// that no request crosses a row.
func (m *Map) Validate() error {
	if m.NProcs < 1 {
		return fmt.Errorf("e3sm map %s: decomp_nprocs = %d", m.Source, m.NProcs)
	}
	for k := range m.Decomps {
		d := &m.Decomps[k]
		if len(d.Dims) == 0 {
			return fmt.Errorf("e3sm map %s: D%d has no dims", m.Source, k+1)
		}
		if m.gen != nil {
			continue
		}
		if len(d.Starts) != m.NProcs+1 || len(d.Used) != m.NProcs || len(d.Fill) != m.NProcs {
			return fmt.Errorf("e3sm map %s: D%d has per-process arrays of %d/%d/%d entries, decomp_nprocs = %d",
				m.Source, k+1, len(d.Starts)-1, len(d.Used), len(d.Fill), m.NProcs)
		}
		if len(d.Offsets) != len(d.Lengths) || d.Starts[m.NProcs] != len(d.Offsets) {
			return fmt.Errorf("e3sm map %s: D%d has %d offsets, %d lengths, nreqs sum %d", m.Source, k+1, len(d.Offsets), len(d.Lengths), d.Starts[m.NProcs])
		}
		row := int64(d.Dims[len(d.Dims)-1])
		total := int64(plan.Product(d.Dims))
		for p := 0; p < m.NProcs; p++ {
			if d.Used[p] < 0 || d.Used[p] > d.Fill[p] || d.Starts[p+1]-d.Starts[p] != d.Fill[p] {
				return fmt.Errorf("e3sm map %s: D%d process %d: fill_starts %d, nreqs %d", m.Source, k+1, p, d.Used[p], d.Fill[p])
			}
		}
		for i, off := range d.Offsets {
			n := d.Lengths[i]
			if off < 0 || n < 1 || off+n > total || off/row != (off+n-1)/row {
				return fmt.Errorf("e3sm map %s: D%d request %d (offset %d, length %d) is outside %v or crosses a row", m.Source, k+1, i, off, n, d.Dims)
			}
		}
	}
	return nil
}

// Assign returns the map processes rank r of R takes, as E3SM-IO's read_decomp does:
// [start, start+count) with count = P/R, plus one for the first P%R ranks. Ranks >= P get
// none (count 0) but still take part in every collective call.
func Assign(nprocs, rank, size int) (start, count int) {
	if rank >= nprocs {
		return nprocs, 0
	}
	count = nprocs / size
	rem := nprocs % size
	if rank < rem {
		return rank * (count + 1), count + 1
	}
	return rem*(count+1) + (rank-rem)*count, count
}

// Request is one contiguous piece of a decomposition a rank writes.
type Request struct {
	Offset, Length int64
}

// Requests returns the requests of decomposition k (0-based) that rank r of R writes, in
// map order; fill includes the fill-only requests (E3SM-IO's -u).
func (m *Map) Requests(k, rank, size int, fill bool) []Request {
	start, count := Assign(m.NProcs, rank, size)
	var out []Request
	if m.gen != nil {
		for p := start; p < start+count; p++ {
			out = append(out, m.gen(k, p, fill)...)
		}
		return out
	}
	d := &m.Decomps[k]
	for p := start; p < start+count; p++ {
		n := d.Used[p]
		if fill {
			n = d.Fill[p]
		}
		for i := d.Starts[p]; i < d.Starts[p]+n; i++ {
			out = append(out, Request{d.Offsets[i], d.Lengths[i]})
		}
	}
	return out
}

// SortCoalesce orders requests by offset and merges each with the next when they touch,
// unless the next starts a row of the last dimension (length row): the order of E3SM-IO's
// read_decomp before its pull request 165 (October 2022), which h5bench's E3SM-IO
// (map_f_case_16p.h5 and later) no longer does. reqs is sorted in place; the result
// shares its storage.
func SortCoalesce(reqs []Request, row int64) []Request {
	if len(reqs) < 2 {
		return reqs
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Offset < reqs[j].Offset })
	j := 0
	for _, q := range reqs[1:] {
		last := &reqs[j]
		if q.Offset%row == 0 || q.Offset > last.Offset+last.Length {
			j++
			reqs[j] = q
		} else {
			last.Length += q.Length
		}
	}
	return reqs[:j+1]
}

// Selection turns requests into the union of 1-element-thick hyperslabs E3SM-IO selects:
// each request (off, len) of a decomposition of shape dims becomes start [rec, row…, col],
// block [1, 1…, len] (record variables, rec >= 0) or start [row…, col], block [1…, len]
// (fixed-size variables, rec < 0). Stride and count are all ones. It also returns the
// number of elements selected.
func Selection(reqs []Request, dims []uint64, rec int) (plan.Selection, uint64) {
	if len(reqs) == 0 {
		return plan.None(), 0
	}
	rank := len(dims)
	if rec >= 0 {
		rank++
	}
	ones := make([]uint64, rank)
	for i := range ones {
		ones[i] = 1
	}
	// Backing arrays shared by all hyperslabs: one allocation for the starts, one block
	// shape per distinct length (most requests share a few lengths).
	starts := make([]uint64, rank*len(reqs))
	blocks := map[int64][]uint64{}
	sel := plan.Selection{Blocks: make([]plan.Hyperslab, len(reqs))}
	var n uint64
	for i, q := range reqs {
		st := starts[i*rank : (i+1)*rank : (i+1)*rank]
		unflatten(st[rank-len(dims):], uint64(q.Offset), dims)
		if rec >= 0 {
			st[0] = uint64(rec)
		}
		b, ok := blocks[q.Length]
		if !ok {
			b = make([]uint64, rank)
			copy(b, ones)
			b[rank-1] = uint64(q.Length)
			blocks[q.Length] = b
		}
		sel.Blocks[i] = plan.Hyperslab{Start: st, Stride: ones, Count: ones, Block: b}
		n += uint64(q.Length)
	}
	return sel, n
}

// unflatten writes the C-order coordinates of flat index off in an array of shape dims.
func unflatten(dst []uint64, off uint64, dims []uint64) {
	for d := len(dims) - 1; d >= 0; d-- {
		dst[d] = off % dims[d]
		off /= dims[d]
	}
}

// Stats summarises a decomposition the way the map file's attributes do.
type Stats struct {
	TotalReqs          int   // D<k>.total_nreqs (all requests, fill included)
	MinReqs, MaxReqs   int   // D<k>.min_nreqs / max_nreqs over processes (fill included)
	MinLen, MaxLen     int64 // D<k>.lengths min/max
	Elements           int64 // elements covered by written requests
	MeanLen            float64
	ProcsWithNoRequest int
}

// Stats computes the statistics of decomposition k (of a synthesized map, by making every
// process's requests).
func (m *Map) Stats(k int) Stats {
	d := &m.Decomps[k]
	if m.gen != nil {
		e := Decomp{Dims: d.Dims, Starts: []int{0}}
		for p := 0; p < m.NProcs; p++ {
			used, all := m.gen(k, p, false), m.gen(k, p, true)
			for _, q := range all {
				e.Offsets, e.Lengths = append(e.Offsets, q.Offset), append(e.Lengths, q.Length)
			}
			e.Used, e.Fill = append(e.Used, len(used)), append(e.Fill, len(all))
			e.Starts = append(e.Starts, len(e.Offsets))
		}
		d = &e
	}
	s := Stats{TotalReqs: len(d.Offsets), MinReqs: -1, MinLen: -1}
	for p := 0; p < m.NProcs; p++ {
		n := d.Fill[p]
		if s.MinReqs < 0 || n < s.MinReqs {
			s.MinReqs = n
		}
		if n > s.MaxReqs {
			s.MaxReqs = n
		}
		if d.Used[p] == 0 {
			s.ProcsWithNoRequest++
		}
		for i := d.Starts[p]; i < d.Starts[p]+d.Used[p]; i++ {
			s.Elements += d.Lengths[i]
		}
	}
	for _, l := range d.Lengths {
		if s.MinLen < 0 || l < s.MinLen {
			s.MinLen = l
		}
		if l > s.MaxLen {
			s.MaxLen = l
		}
	}
	if len(d.Lengths) > 0 {
		var t int64
		for _, l := range d.Lengths {
			t += l
		}
		s.MeanLen = float64(t) / float64(len(d.Lengths))
	}
	return s
}

// MapReader loads a map file into plain values. Package proxy installs the HDF5 reader
// (proxy/e3smmap): patterns import nothing that calls HDF5, nor the proxy.
type MapReader func(path string) (*Map, error)

var (
	readerMu sync.Mutex
	reader   MapReader
	cache    = map[string]*Map{}
)

// RegisterMapReader installs the map file reader; the last registration wins.
func RegisterMapReader(r MapReader) {
	readerMu.Lock()
	defer readerMu.Unlock()
	reader = r
	cache = map[string]*Map{}
}

// LoadMap reads a map file through the registered reader, once per path per process (the
// configuration is validated several times per run).
func LoadMap(path string) (*Map, error) {
	readerMu.Lock()
	defer readerMu.Unlock()
	if m, ok := cache[path]; ok {
		return m, nil
	}
	if reader == nil {
		return nil, fmt.Errorf("e3sm: no map reader is registered to read %s (import github.com/h5proxy/h5proxy/proxy, which installs the HDF5 one)", path)
	}
	if err := checkMapFile(path); err != nil {
		return nil, err
	}
	m, err := reader(path)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	cache[path] = m
	return m, nil
}
