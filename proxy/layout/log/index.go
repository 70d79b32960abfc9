package log

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
)

// This file holds what the log and subfiling layouts share without HDF5 or MPI: index
// entries, their binary encoding, and the resolution of a read against them.
// layout_convert.go converts elements, layout_coalesce.go merges selections' blocks.

// logEntry is one write request: which elements of which dataset, and where their data
// is. In the log layout the data lies in a data log (log number, byte offset, size); the
// subfiling layout records only the dataset and selection.
type logEntry struct {
	path string
	// members names the compound members of the dataset's file type the request wrote,
	// packed in this order; nil means whole elements.
	members []string
	// sel is the selection; entries of one stream with the same selection share it (and
	// its runs cache).
	sel   plan.Selection
	cache *runsCache
	// log is the data log number (-1 while the data is pending in memory); offset is the
	// byte offset in that log (or in the pending buffer), size the byte count.
	log          int
	offset, size int64
	// ref > 0 encodes the selection as "the same as ref records before" (set by
	// prepareStream).
	ref int
}

// runsCache holds a selection's runs in the last shape asked for.
type runsCache struct {
	runs  []plan.Run
	shape string
}

// entryRuns returns the entry's runs in shape, computed once per shape and selection.
func (e *logEntry) entryRuns(shape []uint64) []plan.Run {
	if e.cache == nil {
		e.cache = &runsCache{}
	}
	key := fmt.Sprint(shape)
	if e.cache.runs == nil || e.cache.shape != key {
		e.cache.runs, e.cache.shape = e.sel.Runs(shape), key
	}
	return e.cache.runs
}

// Index record layout (little-endian), one after the other in a metadata stream:
//
//	u32 record bytes (this field included)
//	u16 path bytes, path
//	u16 ndim
//	u16 members, each: u16 name bytes, name
//	u8  form: 0 hyperslabs, 1 blocks (count and stride 1), 2 the selection of the record
//	    ref records before (in the same rank's stream)
//	u32 blocks (forms 0 and 1) or ref (form 2)
//	u64 offset, u64 size (bytes in the data log)
//	form 0, per hyperslab: start, stride, count, block: ndim u64 each
//	form 1, per block: start, block: ndim u64 each
//
// indexVersion is the log layout's format version: 2 since the anchors carry _props (the
// records are the same in versions 1 and 2).
const indexVersion = 2

// Selection forms of an index record.
const (
	formHyperslabs = 0
	formBlocks     = 1
	formShared     = 2
)

// form returns how e's selection is encoded.
func (e *logEntry) form() int {
	if e.ref > 0 {
		return formShared
	}
	for _, h := range e.sel.Blocks {
		for d := range h.Count {
			if h.Count[d] != 1 {
				return formHyperslabs
			}
		}
	}
	return formBlocks
}

// encodedSize is the number of bytes encode appends for e.
func (e *logEntry) encodedSize() int {
	return e.headerSize() + e.selSize()
}

// headerSize is the bytes of e's record before its blocks.
func (e *logEntry) headerSize() int {
	n := 4 + 2 + len(e.path) + 2 + 2 + 1 + 4 + 16
	for _, m := range e.members {
		n += 2 + len(m)
	}
	return n
}

// selSize is the bytes of e's blocks in its record.
func (e *logEntry) selSize() int {
	switch e.form() {
	case formHyperslabs:
		return len(e.sel.Blocks) * 4 * 8 * e.ndim()
	case formBlocks:
		return len(e.sel.Blocks) * 2 * 8 * e.ndim()
	}
	return 0
}

func (e *logEntry) ndim() int {
	if len(e.sel.Blocks) == 0 {
		return 0
	}
	return len(e.sel.Blocks[0].Start)
}

// encode appends e's record to b.
func (e *logEntry) encode(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(e.encodedSize()))
	b = le.AppendUint16(b, uint16(len(e.path)))
	b = append(b, e.path...)
	nd := e.ndim()
	b = le.AppendUint16(b, uint16(nd))
	b = le.AppendUint16(b, uint16(len(e.members)))
	for _, m := range e.members {
		b = le.AppendUint16(b, uint16(len(m)))
		b = append(b, m...)
	}
	form := e.form()
	b = append(b, byte(form))
	if form == formShared {
		b = le.AppendUint32(b, uint32(e.ref))
	} else {
		b = le.AppendUint32(b, uint32(len(e.sel.Blocks)))
	}
	b = le.AppendUint64(b, uint64(e.offset))
	b = le.AppendUint64(b, uint64(e.size))
	for _, h := range e.sel.Blocks {
		switch form {
		case formHyperslabs:
			for _, v := range [][]uint64{h.Start, h.Stride, h.Count, h.Block} {
				for d := 0; d < nd; d++ {
					b = le.AppendUint64(b, v[d])
				}
			}
		case formBlocks:
			for _, v := range [][]uint64{h.Start, h.Block} {
				for d := 0; d < nd; d++ {
					b = le.AppendUint64(b, v[d])
				}
			}
		}
	}
	return b
}

// checkEncodable refuses what the record's fixed-width fields cannot hold.
func (e *logEntry) checkEncodable() error {
	if len(e.sel.Blocks) > math.MaxUint32 {
		return fmt.Errorf("index entry for %s: path, member list, rank or block count too large for the index format", e.path)
	}
	for _, h := range e.sel.Blocks {
		if len(h.Start) != e.ndim() || len(h.Stride) != e.ndim() || len(h.Count) != e.ndim() || len(h.Block) != e.ndim() {
			return fmt.Errorf("index entry for %s: hyperslabs of mixed ranks (stride and block must be given)", e.path)
		}
	}
	return e.checkEncodableSized(e.selSize())
}

// checkEncodableSized is checkEncodable for an entry whose selection passed it already
// (with selSize bytes of blocks): only the path, members, rank and size are checked.
func (e *logEntry) checkEncodableSized(selSize int) error {
	if len(e.path) > math.MaxUint16 || len(e.members) > math.MaxUint16 || e.ndim() > math.MaxUint16 {
		return fmt.Errorf("index entry for %s: path, member list, rank or block count too large for the index format", e.path)
	}
	if n := e.headerSize() + selSize; n > math.MaxUint32 {
		return fmt.Errorf("index entry for %s: %d bytes exceed the index format's 4 GiB per entry", e.path, n)
	}
	return nil
}

// checkedSel is a selection normalized and checked for the index format, with the bytes
// its blocks take in a record.
type checkedSel struct {
	sel   plan.Selection
	bytes int
}

// selKey identifies a selection by its storage: plans reuse one selection for many
// writes (E3SM writes every variable of a decomposition with the same one).
type selKey struct {
	first *plan.Hyperslab
	n     int
}

// prepareStream returns copies of entries ready to encode as one rank's stream: the first
// entry of each selection carries it coalesced into fewer blocks, the others refer back
// to it (the Log VOL's metadata sharing).
func prepareStream(entries []*logEntry, cc *coalesced) []*logEntry {
	seen := map[selKey]int{}
	out := make([]*logEntry, len(entries))
	for i, e := range entries {
		c := *e
		c.cache, c.ref = nil, 0
		if len(e.sel.Blocks) > 0 {
			k := selKey{&e.sel.Blocks[0], len(e.sel.Blocks)}
			if j, ok := seen[k]; ok {
				c.ref = i - j
			} else {
				seen[k] = i
				c.sel = cc.coalesce(e.sel)
			}
		}
		out[i] = &c
	}
	return out
}

// coalesced keeps the coalesced forms of large selections across flushes and files (plans
// share selections between steps, E3SM's between its files). A nil *coalesced keeps none.
type coalesced struct {
	m      map[plan.Ref]plan.Selection
	blocks int // blocks of the selections held as keys
}

// coalescedMaxBlocks bounds the blocks of the selections a coalesced holds.
const coalescedMaxBlocks = 1 << 18

// coalesce returns h5layout.Coalesce(sel), from the cache for a selection seen before.
func (cc *coalesced) coalesce(sel plan.Selection) plan.Selection {
	k, large := sel.Ref()
	if cc == nil || !large {
		return h5layout.Coalesce(sel)
	}
	if c, ok := cc.m[k]; ok {
		return c
	}
	c := h5layout.Coalesce(sel)
	if cc.blocks+len(sel.Blocks) <= coalescedMaxBlocks {
		if cc.m == nil {
			cc.m = map[plan.Ref]plan.Selection{}
		}
		cc.m[k] = c
		cc.blocks += len(sel.Blocks)
	}
	return c
}

// errIndex is wrapped by the errors of corrupt metadata streams.
var errIndex = errors.New("corrupt index")

// decodeEntries parses a metadata stream; every entry gets log number log.
func decodeEntries(b []byte, log int) ([]*logEntry, error) {
	le := binary.LittleEndian
	var out []*logEntry
	for pos := 0; pos < len(b); {
		if len(b)-pos < 4 {
			return nil, fmt.Errorf("%w: %d trailing bytes at offset %d", errIndex, len(b)-pos, pos)
		}
		n := int(le.Uint32(b[pos:]))
		if n < 4 || n > len(b)-pos {
			return nil, fmt.Errorf("%w: record of %d bytes at offset %d of %d", errIndex, n, pos, len(b))
		}
		e, err := decodeEntry(b[pos+4:pos+n], out)
		if err != nil {
			return nil, fmt.Errorf("%w at offset %d", err, pos)
		}
		e.log = log
		out = append(out, e)
		pos += n
	}
	return out, nil
}

// decodeEntry parses one record; before are the records decoded so far (for references).
func decodeEntry(r []byte, before []*logEntry) (*logEntry, error) {
	le := binary.LittleEndian
	short := fmt.Errorf("%w: truncated record", errIndex)
	take := func(n int) ([]byte, error) {
		if n > len(r) {
			return nil, short
		}
		v := r[:n]
		r = r[n:]
		return v, nil
	}
	u16 := func() (int, error) {
		v, err := take(2)
		if err != nil {
			return 0, err
		}
		return int(le.Uint16(v)), nil
	}
	str := func() (string, error) {
		n, err := u16()
		if err != nil {
			return "", err
		}
		v, err := take(n)
		return string(v), err
	}
	e := &logEntry{}
	var err error
	if e.path, err = str(); err != nil {
		return nil, err
	}
	nd, err := u16()
	if err != nil {
		return nil, err
	}
	nm, err := u16()
	if err != nil {
		return nil, err
	}
	for i := 0; i < nm; i++ {
		m, err := str()
		if err != nil {
			return nil, err
		}
		e.members = append(e.members, m)
	}
	fixed, err := take(1 + 4 + 16)
	if err != nil {
		return nil, err
	}
	form, nb := int(fixed[0]), int(le.Uint32(fixed[1:]))
	e.offset, e.size = int64(le.Uint64(fixed[5:])), int64(le.Uint64(fixed[13:]))
	arrays := 0
	switch form {
	case formHyperslabs:
		arrays = 4
	case formBlocks:
		arrays = 2
	case formShared:
		if len(r) != 0 || nb < 1 || nb > len(before) {
			return nil, fmt.Errorf("%w: reference %d back with %d records before", errIndex, nb, len(before))
		}
		src := before[len(before)-nb]
		if src.ndim() != nd {
			return nil, fmt.Errorf("%w: reference to a selection of rank %d from rank %d", errIndex, src.ndim(), nd)
		}
		if src.cache == nil {
			src.cache = &runsCache{}
		}
		e.sel, e.cache = src.sel, src.cache
		return e, nil
	default:
		return nil, fmt.Errorf("%w: selection form %d", errIndex, form)
	}
	if nb*arrays*8*nd != len(r) || (nd == 0 && nb > 1) {
		return nil, fmt.Errorf("%w: %d blocks of rank %d in %d bytes", errIndex, nb, nd, len(r))
	}
	for i := 0; i < nb; i++ {
		var v [4][]uint64
		for k := 0; k < arrays && nd > 0; k++ { // a scalar's block keeps nil arrays, as plan.All(nil)
			v[k] = make([]uint64, nd)
			for d := range v[k] {
				v[k][d] = le.Uint64(r)
				r = r[8:]
			}
		}
		h := plan.Hyperslab{Start: v[0], Stride: v[1], Count: v[2], Block: v[3]}
		if form == formBlocks {
			h = plan.Hyperslab{Start: v[0], Stride: plan.OnesIfNil(nil, nd), Count: plan.OnesIfNil(nil, nd), Block: v[1]}
		}
		e.sel.Blocks = append(e.sel.Blocks, h)
	}
	return e, nil
}

// piece says that n consecutive elements of a read's buffer, from element buf on, come
// from entry entry's data from element src on.
type piece struct {
	buf, n, src uint64
	entry       int
}

// resolve maps the elements a read selects (sel in a dataset of the given shape) to the
// entries holding them. entries are in precedence order: where several cover an element,
// the last one wins (a later write overwrites an earlier one). Elements no entry covers
// are absent from the result (they read as the fill value). The pieces are sorted by
// buffer position.
func resolve(sel plan.Selection, shape []uint64, entries []*logEntry) ([]piece, error) {
	if sel.IsNone() || len(entries) == 0 {
		return nil, nil
	}
	want := sel.Runs(shape)
	var all []piece
	for i, e := range entries {
		if err := e.sel.Validate(shape); err != nil {
			return nil, fmt.Errorf("index entry %d of %s does not fit the extent %v: %w", i, e.path, shape, err)
		}
		all = intersect(all, want, e.entryRuns(shape), i)
	}
	return winners(all), nil
}

// intersect appends the pieces where the requested runs (a buffer position each, in order)
// meet entry i's runs (a data position each, in order). Both run lists are sorted and
// disjoint.
func intersect(out []piece, want, have []plan.Run, entry int) []piece {
	var wpos, hpos uint64 // elements before want[i] / have[j]
	i, j := 0, 0
	for i < len(want) && j < len(have) {
		w, h := want[i], have[j]
		lo, hi := max(w.Start, h.Start), min(w.Start+w.Len, h.Start+h.Len)
		if lo < hi {
			p := piece{buf: wpos + lo - w.Start, n: hi - lo, src: hpos + lo - h.Start, entry: entry}
			if k := len(out) - 1; k >= 0 && out[k].entry == entry && out[k].buf+out[k].n == p.buf && out[k].src+out[k].n == p.src {
				out[k].n += p.n
			} else {
				out = append(out, p)
			}
		}
		if w.Start+w.Len <= h.Start+h.Len {
			wpos += w.Len
			i++
		} else {
			hpos += h.Len
			j++
		}
	}
	return out
}

// winners keeps, for every buffer element, the piece of the highest entry index.
func winners(all []piece) []piece {
	sort.SliceStable(all, func(a, b int) bool { return all[a].buf < all[b].buf })
	overlap := false
	for k := 1; k < len(all) && !overlap; k++ {
		overlap = all[k].buf < all[k-1].buf+all[k-1].n
	}
	if !overlap {
		return all
	}
	// Sweep over the boundaries with a max-heap of the pieces covering the position.
	var cuts []uint64
	for _, p := range all {
		cuts = append(cuts, p.buf, p.buf+p.n)
	}
	sort.Slice(cuts, func(a, b int) bool { return cuts[a] < cuts[b] })
	var h pieceHeap
	var out []piece
	next := 0
	for c := 0; c+1 < len(cuts); c++ {
		lo, hi := cuts[c], cuts[c+1]
		if lo == hi {
			continue
		}
		for next < len(all) && all[next].buf <= lo {
			heap.Push(&h, all[next])
			next++
		}
		for h.Len() > 0 && h[0].buf+h[0].n <= lo {
			heap.Pop(&h)
		}
		if h.Len() == 0 {
			continue
		}
		top := h[0]
		p := piece{buf: lo, n: hi - lo, src: top.src + lo - top.buf, entry: top.entry}
		if k := len(out) - 1; k >= 0 && out[k].entry == p.entry && out[k].buf+out[k].n == p.buf && out[k].src+out[k].n == p.src {
			out[k].n += p.n
		} else {
			out = append(out, p)
		}
	}
	return out
}

// pieceHeap is a max-heap of pieces by entry index; expired pieces are popped lazily.
type pieceHeap []piece

func (h pieceHeap) Len() int { return len(h) }
func (h pieceHeap) Less(a, b int) bool {
	if h[a].entry != h[b].entry {
		return h[a].entry > h[b].entry
	}
	return h[a].buf+h[a].n > h[b].buf+h[b].n
}
func (h pieceHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *pieceHeap) Push(x any)   { *h = append(*h, x.(piece)) }
func (h *pieceHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
