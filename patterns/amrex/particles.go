package amrex

import (
	"math/bits"
	"sort"
)

// The benchmark's particle container: 4 struct reals + 1 struct int + 8 array reals + 3
// array ints, all written in checkpoint mode.
const (
	// IntsPerParticle is the int record of a particle in `data:datatype=0`: id, cpu, the
	// struct int and the 3 array ints.
	IntsPerParticle = 2 + 1 + 3
	// RealsPerParticle is the real record in `data:datatype=1`: x, y, z, the 4 struct reals
	// and the 8 array reals.
	RealsPerParticle = 3 + 4 + 8
	// NumRealComps and NumIntComps are the named components (num_component_real/int).
	NumRealComps = 4 + 8
	NumIntComps  = 1 + 3
	// BytesPerParticle is what one particle occupies in the two datasets (doubles).
	BytesPerParticle = IntsPerParticle*4 + RealsPerParticle*8
)

// ParticleCounts returns the particles of every box of every level. The benchmark draws
// nppc*ncells^3 particles uniformly inside the domain (InitRandom, seed 451) and each
// lands on the finest level whose grids contain it; here every box gets its expected
// share instead: the particles are split in proportion to the volume each box covers that
// no finer box covers, rounded by largest remainder so the total is exact. On one level
// that is nppc particles per cell.
func ParticleCounts(levels []Level, total uint64) [][]uint64 {
	n := len(levels)
	// unit[l] is the volume of a level-l cell in finest-level cells.
	unit := make([]uint64, n)
	unit[n-1] = 1
	for l := n - 2; l >= 0; l-- {
		r := uint64(levels[l].Ratio)
		unit[l] = unit[l+1] * r * r * r
	}
	type share struct {
		l, b int
		w    uint64
		rem  uint64
	}
	var shares []share
	var sum uint64
	for l, lev := range levels {
		for b, box := range lev.Boxes {
			w := box.NumPts() * unit[l]
			if l+1 < n {
				fine := box.Refine(levels[l].Ratio)
				var covered uint64
				for _, f := range levels[l+1].Boxes {
					covered += fine.Intersect(f).NumPts() * unit[l+1]
				}
				if covered >= w {
					w = 0
				} else {
					w -= covered
				}
			}
			shares = append(shares, share{l: l, b: b, w: w})
			sum += w
		}
	}
	counts := make([][]uint64, n)
	for l, lev := range levels {
		counts[l] = make([]uint64, len(lev.Boxes))
	}
	if sum == 0 || total == 0 {
		return counts
	}
	var given uint64
	for i := range shares {
		hi, lo := bits.Mul64(total, shares[i].w)
		q, r := bits.Div64(hi, lo, sum)
		counts[shares[i].l][shares[i].b] = q
		shares[i].rem = r
		given += q
	}
	sort.SliceStable(shares, func(a, b int) bool { return shares[a].rem > shares[b].rem })
	for i := 0; given < total; i++ {
		counts[shares[i].l][shares[i].b]++
		given++
	}
	return counts
}

// ParticleLayout is how one level's particles sit in a particle file written by nprocs
// ranks (WriteParticlesHDF5).
type ParticleLayout struct {
	// Grids lists, per rank, its non-empty grids in local (BoxArray) order: the order of
	// its writes.
	Grids [][]int
	// Start is each non-empty grid's first particle in the file: ranks in ascending order,
	// each rank's grids appended at its running offset.
	Start map[int]uint64
	// Total is the level's particle count; MaxGrids the most non-empty grids of any rank
	// (every rank issues that many collective writes per dataset).
	Total    uint64
	MaxGrids int
	// NParticlesGrid is `nparticles_grid`: each rank's per-grid counts, ranks in order.
	NParticlesGrid []int32
	// GridOffset is each rank's first entry in NParticlesGrid.
	GridOffset []int
}

// NewParticleLayout places a level's particles (counts per box) owned as owner says.
func NewParticleLayout(counts []uint64, owner []int, nprocs int) ParticleLayout {
	p := ParticleLayout{Grids: make([][]int, nprocs), Start: map[int]uint64{}, GridOffset: make([]int, nprocs)}
	for r, grids := range byOwner(owner, nprocs) {
		p.GridOffset[r] = len(p.NParticlesGrid)
		for _, g := range grids {
			if counts[g] == 0 {
				continue
			}
			p.Grids[r] = append(p.Grids[r], g)
			p.Start[g] = p.Total
			p.Total += counts[g]
			p.NParticlesGrid = append(p.NParticlesGrid, int32(counts[g]))
		}
		p.MaxGrids = max(p.MaxGrids, len(p.Grids[r]))
	}
	return p
}

// RestartRanges returns the particle ranges AMReX's RestartHDF5 reads for a level: grid g
// (owned by its reader) gets count[g] particles from offset[g], where count is
// `nparticles_grid` as stored (ranks' grids in file order) taken by grid index and offset
// its prefix sum. When the file order is not the grid order these are not grid g's own
// particles (AMReX's behaviour, mirrored); together they still cover the data once.
func (p ParticleLayout) RestartRanges(ngrids int) (start, count []uint64) {
	start, count = make([]uint64, ngrids), make([]uint64, ngrids)
	var off uint64
	for g := 0; g < ngrids; g++ {
		start[g] = off
		if g < len(p.NParticlesGrid) {
			count[g] = uint64(p.NParticlesGrid[g])
		}
		off += count[g]
	}
	return start, count
}

// MaxNextID is the `maxnextid` attribute: InitRandom without serialisation gives each rank
// total/nprocs particles, rank 0 also the remainder, ids counting from 1 per rank, and the
// next id after the largest share is the maximum over ranks.
func MaxNextID(total uint64, nprocs int) int64 {
	n := uint64(nprocs)
	return int64(total/n + total%n + 1)
}
