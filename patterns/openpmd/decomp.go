package openpmd

import (
	"fmt"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// Mesh is the 8a decomposition of a run: the global mesh viewed as a grid of mini blocks,
// cut into one patch (a box of mini blocks) per rank, patches numbered in C order over
// the patch grid (layouts.md 3.5).
type Mesh struct {
	Ranks int
	// MinBlock is the mini block extent, Units the mesh extent in mini blocks (grid with
	// x resolved), Global the mesh extent in cells: Units × MinBlock.
	MinBlock, Units, Global []uint64
	// Patch is a rank's patch in mini blocks; PatchGrid the number of patches per
	// dimension (their product is Ranks).
	Patch, PatchGrid []uint64
	// Ratio is the number of particles per cell.
	Ratio uint64
}

// NewMesh decomposes the configured mesh over ranks as 8a does. Decompositions 8a
// cannot make are errors naming grid (or minBlock) and the rank count.
func NewMesh(c Config, ranks int) (*Mesh, error) {
	if ranks < 1 {
		return nil, fmt.Errorf("openpmd: %d ranks", ranks)
	}
	dim := len(c.MinBlock)
	m := &Mesh{Ranks: ranks, MinBlock: c.MinBlock, Units: append([]uint64(nil), c.Grid...), Ratio: c.Ratio}
	if m.Units[0] == 0 {
		m.Units[0] = uint64(ranks)
	}
	m.Global = make([]uint64, dim)
	for d := range m.Global {
		m.Global[d] = m.Units[d] * m.MinBlock[d]
	}
	R := uint64(ranks)
	U := m.Units
	total := plan.Product(U)
	fail := func(why string) (*Mesh, error) {
		return nil, &options.Error{Table: "openpmd", Key: "grid", Value: gridText(c.Grid),
			Reason:  fmt.Sprintf("%d-D mesh of %v mini blocks on %d ranks: %s", dim, U, ranks, why),
			Allowed: "a grid 8a can cut into one patch per rank (layouts.md 3.5); change grid or the rank count"}
	}
	if total%R != 0 {
		return fail(fmt.Sprintf("%d mini blocks are not divisible by the rank count", total))
	}
	per := total / R // mini blocks per rank
	switch dim {
	case 1:
		m.Patch = []uint64{per}
	case 2:
		switch {
		case U[0]%R == 0:
			m.Patch = []uint64{U[0] / R, U[1]}
		case U[1]%R == 0:
			m.Patch = []uint64{U[0], U[1] / R}
		case U[0]%per == 0:
			m.Patch = []uint64{per, 1}
		case U[1]%per == 0:
			m.Patch = []uint64{1, per}
		default:
			return fail(fmt.Sprintf("no patch of %d mini blocks along one axis fits", per))
		}
	case 3:
		switch {
		case per == 1: // MaxOverMin, [1 1 1] unless given on 8a's command line
			m.Patch = []uint64{1, 1, 1}
		case U[0]%R == 0:
			m.Patch = []uint64{U[0] / R, U[1], U[2]}
		case U[1]%R == 0:
			m.Patch = []uint64{U[0], U[1] / R, U[2]}
		case U[0]%per == 0:
			m.Patch = []uint64{per, 1, 1}
		case U[1]%per == 0:
			m.Patch = []uint64{1, per, 1}
		case U[2]%per == 0:
			m.Patch = []uint64{1, 1, per}
		default:
			if (U[0]*U[1])%R == 0 {
				p := U[0] * U[1] / R
				if U[0]%p == 0 {
					m.Patch = []uint64{p, 1, U[2]}
					break
				}
				if U[1]%p == 0 {
					m.Patch = []uint64{1, p, U[2]}
					break
				}
			}
			return fail(fmt.Sprintf("no 8a patch shape of %d mini blocks fits", per))
		}
	default:
		return nil, fmt.Errorf("openpmd: dim %d", dim)
	}
	m.PatchGrid = make([]uint64, dim)
	for d := range U {
		m.PatchGrid[d] = U[d] / m.Patch[d]
	}
	return m, nil
}

func gridText(g []uint64) string {
	s := ""
	for i, v := range g {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprint(v)
	}
	return s
}

// Dim returns the mesh dimensionality.
func (m *Mesh) Dim() int { return len(m.Global) }

// Particles is the total number of particles: ratio × cells.
func (m *Mesh) Particles() uint64 { return m.Ratio * plan.Product(m.Global) }

// PatchCells is the number of cells of one patch.
func (m *Mesh) PatchCells() uint64 { return plan.Product(m.Patch) * plan.Product(m.MinBlock) }

// coord returns the patch grid coordinate of patch index p (C order, last index fastest).
func (m *Mesh) coord(p uint64) []uint64 {
	c := make([]uint64, len(m.PatchGrid))
	for d := len(c) - 1; d >= 0; d-- {
		c[d] = p % m.PatchGrid[d]
		p /= m.PatchGrid[d]
	}
	return c
}

// PatchBox returns the cell offset and extent of patch p.
func (m *Mesh) PatchBox(p uint64) (offset, extent []uint64) {
	c := m.coord(p)
	offset = make([]uint64, len(c))
	extent = make([]uint64, len(c))
	for d := range c {
		extent[d] = m.Patch[d] * m.MinBlock[d]
		offset[d] = c[d] * extent[d]
	}
	return offset, extent
}

// Patches returns the patches rank writes at 8a iteration it (numbered from 1): its own,
// except on unbalanced iterations it % 3 == 1 with at least 2 ranks, where ranks
// r % k == 0 hand their patch to rank r+1 (k = 4; 10 in 1-D), which writes both. A rank
// whose successor does not exist keeps its patch: 8a leaves it unwritten (see doc.go).
func (m *Mesh) Patches(rank, it int, balanced bool) []uint64 {
	r, R := uint64(rank), uint64(m.Ranks)
	if balanced || R < 2 || it%3 != 1 {
		return []uint64{r}
	}
	k := uint64(4)
	if m.Dim() == 1 {
		k = 10
	}
	switch {
	case r%k == 0 && r+1 < R:
		return nil
	case r%k == 1:
		return []uint64{r - 1, r}
	}
	return []uint64{r}
}

// Block is one storeChunk of a rank: a box of the mesh (cell offset and extent) and the
// particle range [POffset, POffset+PCount) stored with it.
type Block struct {
	Offset, Extent  []uint64
	POffset, PCount uint64
}

// Blocks returns what a rank stores at iteration it: with perRank, one block per patch;
// otherwise one block per mini block of its patches (i, j, k loops, last index fastest)
// with consecutive particle ranges. Particle ranges start at the rank's first patch ×
// cells per patch × ratio.
func (m *Mesh) Blocks(rank, it int, balanced, perRank bool) []Block {
	var out []Block
	patches := m.Patches(rank, it, balanced)
	if len(patches) == 0 {
		return nil
	}
	poff := patches[0] * m.PatchCells() * m.Ratio
	for _, p := range patches {
		off, ext := m.PatchBox(p)
		if perRank {
			n := plan.Product(ext) * m.Ratio
			out = append(out, Block{Offset: off, Extent: ext, POffset: poff, PCount: n})
			poff += n
			continue
		}
		n := plan.Product(m.MinBlock) * m.Ratio
		idx := make([]uint64, len(m.Patch))
		for {
			o := make([]uint64, len(idx))
			for d := range idx {
				o[d] = off[d] + idx[d]*m.MinBlock[d]
			}
			out = append(out, Block{Offset: o, Extent: append([]uint64(nil), m.MinBlock...), POffset: poff, PCount: n})
			poff += n
			d := len(idx) - 1
			for ; d >= 0; d-- {
				if idx[d]++; idx[d] < m.Patch[d] {
					break
				}
				idx[d] = 0
			}
			if d < 0 {
				break
			}
		}
	}
	return out
}

// merge joins mesh boxes that together form one box (two patches adjacent along one
// dimension), so a rank covering two patches writes one hyperslab where it can.
func merge(blocks []Block) []Block {
	if len(blocks) != 2 {
		return blocks
	}
	a, b := blocks[0], blocks[1]
	diff := -1
	for d := range a.Offset {
		if a.Offset[d] == b.Offset[d] && a.Extent[d] == b.Extent[d] {
			continue
		}
		if diff >= 0 || a.Offset[d]+a.Extent[d] != b.Offset[d] {
			return blocks
		}
		diff = d
	}
	if diff < 0 {
		return blocks
	}
	ext := append([]uint64(nil), a.Extent...)
	ext[diff] += b.Extent[diff]
	return []Block{{Offset: a.Offset, Extent: ext, POffset: a.POffset, PCount: a.PCount + b.PCount}}
}
