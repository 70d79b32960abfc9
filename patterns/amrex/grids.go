package amrex

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Box is a cell-centred AMReX box in three dimensions: the inclusive index corners Lo and
// Hi, with x first.
type Box struct {
	Lo, Hi [3]int
}

// NewBox returns the box from (lo...) to (hi...).
func NewBox(lo0, lo1, lo2, hi0, hi1, hi2 int) Box {
	return Box{Lo: [3]int{lo0, lo1, lo2}, Hi: [3]int{hi0, hi1, hi2}}
}

// Size is the number of cells along dimension d.
func (b Box) Size(d int) int { return b.Hi[d] - b.Lo[d] + 1 }

// NumPts is the number of cells of the box (0 for an empty box).
func (b Box) NumPts() uint64 {
	n := uint64(1)
	for d := 0; d < 3; d++ {
		if b.Hi[d] < b.Lo[d] {
			return 0
		}
		n *= uint64(b.Size(d))
	}
	return n
}

// Refine returns the box at a level r times finer (AMReX's refine of a cell box).
func (b Box) Refine(r int) Box {
	var o Box
	for d := 0; d < 3; d++ {
		o.Lo[d], o.Hi[d] = b.Lo[d]*r, (b.Hi[d]+1)*r-1
	}
	return o
}

// Intersect returns the cells the two boxes share; the result is empty (NumPts 0) when
// they are disjoint.
func (b Box) Intersect(o Box) Box {
	var x Box
	for d := 0; d < 3; d++ {
		x.Lo[d], x.Hi[d] = max(b.Lo[d], o.Lo[d]), min(b.Hi[d], o.Hi[d])
	}
	return x
}

// Contains reports whether o lies inside b.
func (b Box) Contains(o Box) bool {
	for d := 0; d < 3; d++ {
		if o.Lo[d] < b.Lo[d] || o.Hi[d] > b.Hi[d] {
			return false
		}
	}
	return true
}

// String renders the box as AMReX prints it: ((lo) (hi) (0,0,0)).
func (b Box) String() string {
	return fmt.Sprintf("((%d,%d,%d) (%d,%d,%d) (0,0,0))", b.Lo[0], b.Lo[1], b.Lo[2], b.Hi[0], b.Hi[1], b.Hi[2])
}

// MaxSize chops every box into boxes of at most chunk cells per side, as AMReX's
// BoxList::maxSize does: along each dimension the length is first reduced by the powers of
// two it shares with chunk, cut into ceil(len/chunk) blocks of near-equal size (the first
// len%blocks blocks one unit longer), and the pieces of one box are enumerated with x
// fastest, then y, then z. Boxes that need no cut are kept as they are, in order.
func MaxSize(boxes []Box, chunk int) []Box {
	var out []Box
	for _, bx := range boxes {
		var ratio, numblk, sz, extra [3]int
		chopped := false
		for d := 0; d < 3; d++ {
			ratio[d], numblk[d], sz[d] = 1, 1, bx.Size(d)
			if n := bx.Size(d); n > chunk {
				bs, nlen := chunk, n
				for bs%2 == 0 && nlen%2 == 0 {
					ratio[d] *= 2
					bs /= 2
					nlen /= 2
				}
				numblk[d] = (nlen + bs - 1) / bs
				sz[d] = nlen / numblk[d]
				extra[d] = nlen - sz[d]*numblk[d]
				chopped = chopped || numblk[d] > 1
			}
		}
		if !chopped {
			out = append(out, bx)
			continue
		}
		piece := func(d, i int) (lo, hi int) {
			if i < extra[d] {
				lo = i * (sz[d] + 1) * ratio[d]
				hi = lo + (sz[d]+1)*ratio[d] - 1
			} else {
				lo = (i*sz[d] + extra[d]) * ratio[d]
				hi = lo + sz[d]*ratio[d] - 1
			}
			return lo + bx.Lo[d], hi + bx.Lo[d]
		}
		for k := 0; k < numblk[2]; k++ {
			klo, khi := piece(2, k)
			for j := 0; j < numblk[1]; j++ {
				jlo, jhi := piece(1, j)
				for i := 0; i < numblk[0]; i++ {
					ilo, ihi := piece(0, i)
					out = append(out, NewBox(ilo, jlo, klo, ihi, jhi, khi))
				}
			}
		}
	}
	return out
}

// Level is one AMR level: its index domain, its boxes in BoxArray order and the
// refinement ratio to the next finer level (1 on the finest).
type Level struct {
	Domain Box
	Boxes  []Box
	Ratio  int
}

// Cells is the number of cells the level's boxes cover.
func (l Level) Cells() uint64 {
	var n uint64
	for _, b := range l.Boxes {
		n += b.NumPts()
	}
	return n
}

// NestedLevels is the benchmark's default grid (set_grids_nested): one level on the domain
// [0, ncells-1]^3, chopped by max_grid_size.
func NestedLevels(ncells, maxGridSize int) []Level {
	d := NewBox(0, 0, 0, ncells-1, ncells-1, ncells-1)
	return []Level{{Domain: d, Boxes: MaxSize([]Box{d}, maxGridSize), Ratio: 1}}
}

// GridFile is the path of level lev's box list, relative to the working directory, as the
// benchmark's set_grids_file reads it.
func GridFile(dir string, lev int) string {
	return strings.TrimSuffix(dir, "/") + "/Level_" + strconv.Itoa(lev)
}

// ReadBoxList parses an AMReX box-list file (readBoxList in the benchmark): the level's
// domain box on the first line, then a BoxArray as AMReX writes it:
//
//	((0,0,0) (31,31,31) (0,0,0))
//	(2 0
//	((0,0,0) (15,31,31) (0,0,0))
//	((16,0,0) (31,31,31) (0,0,0))
//	)
//
// Only cell-centred boxes (index type (0,0,0)) are accepted.
func ReadBoxList(path string) (domain Box, boxes []Box, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Box{}, nil, err
	}
	return ParseBoxList(string(data))
}

// ParseBoxList parses the text of a box-list file (see ReadBoxList).
func ParseBoxList(text string) (domain Box, boxes []Box, err error) {
	s := &scanner{text: text}
	if domain, err = s.box(); err != nil {
		return Box{}, nil, fmt.Errorf("domain box: %w", err)
	}
	// The benchmark ignores the rest of the domain's line.
	if i := strings.IndexByte(s.text[s.pos:], '\n'); i >= 0 {
		s.pos += i + 1
	} else {
		s.pos = len(s.text)
	}
	if err := s.skipTo('('); err != nil {
		return Box{}, nil, fmt.Errorf("box array: %w", err)
	}
	n, err := s.int()
	if err != nil {
		return Box{}, nil, fmt.Errorf("box array: count: %w", err)
	}
	if n < 1 {
		return Box{}, nil, fmt.Errorf("box array: count %d, want >= 1", n)
	}
	if _, err := s.int(); err != nil { // the obsolete hash value
		return Box{}, nil, fmt.Errorf("box array: hash after the count: %w", err)
	}
	for i := 0; i < n; i++ {
		b, err := s.box()
		if err != nil {
			return Box{}, nil, fmt.Errorf("box %d of %d: %w", i, n, err)
		}
		if !domain.Contains(b) {
			return Box{}, nil, fmt.Errorf("box %d %s lies outside the domain %s", i, b, domain)
		}
		boxes = append(boxes, b)
	}
	return domain, boxes, nil
}

// scanner reads the tokens of AMReX's box notation.
type scanner struct {
	text string
	pos  int
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.text) && strings.ContainsRune(" \t\r\n", rune(s.text[s.pos])) {
		s.pos++
	}
}

func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos < len(s.text) {
		return s.text[s.pos]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if got := s.peek(); got != c {
		if got == 0 {
			return fmt.Errorf("unexpected end of file, want %q", c)
		}
		return fmt.Errorf("at byte %d: %q, want %q", s.pos, got, c)
	}
	s.pos++
	return nil
}

func (s *scanner) skipTo(c byte) error {
	i := strings.IndexByte(s.text[s.pos:], c)
	if i < 0 {
		return fmt.Errorf("no %q", c)
	}
	s.pos += i + 1
	return nil
}

func (s *scanner) int() (int, error) {
	s.skipSpace()
	start := s.pos
	if s.pos < len(s.text) && (s.text[s.pos] == '-' || s.text[s.pos] == '+') {
		s.pos++
	}
	for s.pos < len(s.text) && s.text[s.pos] >= '0' && s.text[s.pos] <= '9' {
		s.pos++
	}
	n, err := strconv.Atoi(s.text[start:s.pos])
	if err != nil {
		return 0, fmt.Errorf("at byte %d: not an integer", start)
	}
	return n, nil
}

// intVect reads "(i,j,k)".
func (s *scanner) intVect() ([3]int, error) {
	var v [3]int
	if err := s.expect('('); err != nil {
		return v, err
	}
	for d := 0; d < 3; d++ {
		if d > 0 {
			if err := s.expect(','); err != nil {
				return v, err
			}
		}
		n, err := s.int()
		if err != nil {
			return v, err
		}
		v[d] = n
	}
	return v, s.expect(')')
}

// box reads "((lo) (hi) (type))", the type being optional.
func (s *scanner) box() (Box, error) {
	var b Box
	var err error
	if err = s.expect('('); err != nil {
		return b, err
	}
	if b.Lo, err = s.intVect(); err != nil {
		return b, err
	}
	if b.Hi, err = s.intVect(); err != nil {
		return b, err
	}
	if s.peek() == '(' {
		typ, err := s.intVect()
		if err != nil {
			return b, err
		}
		if typ != [3]int{} {
			return b, fmt.Errorf("box %v-%v has index type %v: only cell-centred boxes (0,0,0) are supported", b.Lo, b.Hi, typ)
		}
	}
	if err := s.expect(')'); err != nil {
		return b, err
	}
	for d := 0; d < 3; d++ {
		if b.Hi[d] < b.Lo[d] {
			return b, fmt.Errorf("box %v-%v is empty along dimension %d", b.Lo, b.Hi, d)
		}
	}
	return b, nil
}
