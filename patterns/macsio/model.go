package macsio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Mesh is MACSio's time-zero problem: the parts' node counts, how the parts tile the
// global mesh and which rank owns each part (MACSIO_DATA_GenerateTimeZeroDumpObject).
type Mesh struct {
	Dim int
	// Nodes is a part's node count along x, y, z (1 beyond Dim).
	Nodes [3]int
	// Decomp is the number of parts along x, y, z (1 beyond Dim).
	Decomp [3]int
	// Total is the number of parts.
	Total int
	// owner[c] is the rank owning chunk c; first[r] is rank r's first chunk, count[r] its
	// number of chunks (consecutive chunk ids).
	owner, first, count []int
}

// Part is one mesh part (chunk) of a rank.
type Part struct {
	// Chunk is the global chunk id (MIF's domain_%07d).
	Chunk int
	// Index is the part's position in the decomposition (ipart, jpart, kpart).
	Index [3]int
}

// best2D is MACSIO_UTILS_Best2DFactors: the largest factor x <= sqrt(v), y = v / x; ok is
// false for v < 1.
func best2D(v int) (x, y int, ok bool) {
	for root := int(math.Sqrt(float64(v))); root > 0; root-- {
		if v%root == 0 {
			return root, v / root, true
		}
	}
	return 0, 0, false
}

// best3D is MACSIO_UTILS_Best3DFactors: the factorization z·(x·y) whose smallest factor is
// largest, searching down from the cube root and up to the square root.
func best3D(v int) (x, y, z int, ok bool) {
	var xb, yb, zb int
	mb, mf := -1, -1
	for root := int(math.Cbrt(float64(v))); root > 0; root-- {
		if v%root == 0 {
			if a, b, ok := best2D(v / root); ok {
				xb, yb, zb = a, b, v/(v/root)
				mb = min(xb, yb, zb)
				x, y, z = xb, yb, zb
				break
			}
		}
	}
	for root, root2 := int(math.Cbrt(float64(v))), int(math.Sqrt(float64(v))); root < root2; root++ {
		if root > 0 && v%root == 0 {
			if a, b, ok := best2D(v / root); ok {
				x, y, z = a, b, v/(v/root)
				mf = min(x, y, z)
				break
			}
		}
	}
	if mb == -1 {
		return 0, 0, 0, false
	}
	if mb > mf {
		x, y, z = xb, yb, zb
	}
	return x, y, z, true
}

// factor splits n into dim close factors, as MACSio splits a part's doubles and its total
// part count.
func factor(n, dim int) ([3]int, bool) {
	switch dim {
	case 1:
		return [3]int{n, 1, 1}, n > 0
	case 2:
		x, y, ok := best2D(n)
		return [3]int{x, y, 1}, ok
	}
	x, y, z, ok := best3D(n)
	return [3]int{x, y, z}, ok
}

// NewMesh builds the mesh of c on ranks ranks; seed draws which ranks get the extra part
// of a fractional --avg_num_parts (MACSio's rank-invariant PRNG; here the session's seed).
func NewMesh(c *Config, ranks int, seed uint64) (*Mesh, error) {
	m := &Mesh{Dim: c.PartDim, Total: int(math.Round(float64(ranks) * c.AvgNumParts))}
	if m.Total < 1 {
		return nil, fmt.Errorf("--avg_num_parts %g on %d ranks gives no part", c.AvgNumParts, ranks)
	}
	var ok bool
	var err error
	if c.MeshDecomp != nil && m.Dim > 1 {
		m.Decomp = *c.MeshDecomp
		for i := m.Dim; i < 3; i++ {
			m.Decomp[i] = 1
		}
		if n := m.Decomp[0] * m.Decomp[1] * m.Decomp[2]; n != m.Total {
			return nil, fmt.Errorf("--mesh_decomp %d %d %d gives %d parts, but --avg_num_parts %g on %d ranks makes %d",
				c.MeshDecomp[0], c.MeshDecomp[1], c.MeshDecomp[2], n, c.AvgNumParts, ranks, m.Total)
		}
	} else if m.Decomp, ok = factor(m.Total, m.Dim); !ok {
		return nil, fmt.Errorf("%d parts do not factor into %d dimensions", m.Total, m.Dim)
	}
	if m.Nodes, err = c.PartNodes(); err != nil {
		return nil, err
	}
	m.assign(c.AvgNumParts, ranks, seed)
	return m, nil
}

// PartNodes are a part's node counts along x, y, z: --part_mesh_dims, or part_size/8
// doubles split into part_dim close factors, each at least 2 (a zone-centred variable has
// one zone fewer than nodes along each axis).
func (c *Config) PartNodes() ([3]int, error) {
	if c.PartMeshDims != nil && c.PartDim > 1 {
		n := *c.PartMeshDims
		for i := c.PartDim; i < 3; i++ {
			n[i] = 1
		}
		return n, nil
	}
	doubles := int(c.PartSize / 8)
	n, ok := factor(doubles, c.PartDim)
	if !ok {
		return n, fmt.Errorf("--part_size %d holds %d doubles: too few to split into %d dimensions", c.PartSize, doubles, c.PartDim)
	}
	for i := 0; i < c.PartDim; i++ {
		if n[i] < 2 {
			return n, fmt.Errorf("--part_size %d (%d doubles) does not factor for --part_dim %d: MACSio's close factors are %s, and a part needs at least 2 nodes along each axis (its zone-centred variables have one zone fewer than nodes)",
				c.PartSize, doubles, c.PartDim, dimsText(n[:c.PartDim]))
		}
	}
	return n, nil
}

// dimsText renders dimensions as MACSio's arguments do: "25 x 50".
func dimsText(d []int) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " x ")
}

// assign hands out the chunks in id order, rank after rank: each rank takes K or K+1 of
// them (K = floor(avg)), drawn by a PRNG every rank runs alike, with the counts of each
// kept to what the total allows (choose_part_count).
func (m *Mesh) assign(avg float64, ranks int, seed uint64) {
	k := int(math.Floor(avg))
	q := m.Total - ranks*k // ranks with K+1 parts
	r := ranks - q         // ranks with K parts
	mod := 2
	if float64(k) == avg {
		mod = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d616373696f)) // "macsio"
	choose := func() int {
		n := k + rng.IntN(mod)
		if n == k {
			if r > 0 {
				r--
			} else if q > 0 {
				n = k + 1
				q--
			}
		} else {
			if q > 0 {
				q--
			} else if r > 0 {
				n = k
				r--
			}
		}
		return n
	}
	m.owner = make([]int, m.Total)
	m.first, m.count = make([]int, ranks), make([]int, ranks)
	rank, left := 0, choose()
	for c := 0; c < m.Total; c++ {
		if rank < ranks {
			if m.count[rank] == 0 {
				m.first[rank] = c
			}
			m.count[rank]++
		}
		m.owner[c] = rank
		if left--; left == 0 {
			rank++
			left = choose()
		}
	}
}

// Parts are the parts rank owns, in chunk order.
func (m *Mesh) Parts(rank int) []Part {
	if rank < 0 || rank >= len(m.count) {
		return nil
	}
	out := make([]Part, 0, m.count[rank])
	for c := m.first[rank]; c < m.first[rank]+m.count[rank]; c++ {
		out = append(out, m.part(c))
	}
	return out
}

// part is chunk c's position: chunks run with x slowest, z fastest (MACSio's loop nest).
func (m *Mesh) part(c int) Part {
	ny, nz := m.Decomp[1], m.Decomp[2]
	return Part{Chunk: c, Index: [3]int{c / (ny * nz), c / nz % ny, c % nz}}
}

// MaxParts is the most parts any rank owns: ceil(avg_num_parts), the number of writes each
// rank makes per variable in SIF mode.
func (m *Mesh) MaxParts() int {
	n := 0
	for _, c := range m.count {
		n = max(n, c)
	}
	return n
}

// Centering of a variable.
const (
	Zone = "zone"
	Node = "node"
)

// Var is one mesh variable of a part.
type Var struct {
	Name      string
	Centering string
	// Int is true for xlayers (int32), false for double.
	Int bool
	// Dims are the variable's extents listed x, y, z (MIF's dataset shape); nil for the
	// part's own shape (node counts, or one less for zone-centred variables).
	Dims []int
	// Expansion marks a variable added by --dataset_growth (on the rank's first part).
	Expansion bool
}

// kinds are MACSio's 8 variable kinds in order (make_mesh_vars).
var kinds = [8]Var{
	{Name: "constant", Centering: Zone}, {Name: "random", Centering: Zone}, {Name: "spherical", Centering: Zone},
	{Name: "xramp", Centering: Node}, {Name: "ysin", Centering: Node}, {Name: "noise", Centering: Node},
	{Name: "noise_sum", Centering: Node}, {Name: "xlayers", Centering: Zone, Int: true},
}

// KindNames lists the 8 variable kinds in MACSio's order.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// Vars are the n variables of every part: kind i mod 8, named after the kind for the first
// 8 and <kind>_%03d with index (i-8)/8 after.
func Vars(n int) []Var {
	out := make([]Var, n)
	for i := range out {
		v := kinds[i%8]
		if i >= 8 {
			v.Name = fmt.Sprintf("%s_%03d", v.Name, (i-8)/8)
		}
		out[i] = v
	}
	return out
}

// PartShape is a variable's extents on one part, listed x, y, z.
func (m *Mesh) PartShape(v Var) []uint64 {
	if v.Dims != nil {
		out := make([]uint64, len(v.Dims))
		for i, d := range v.Dims {
			out[i] = uint64(d)
		}
		return out
	}
	out := make([]uint64, m.Dim)
	for i := range out {
		out[i] = uint64(m.Nodes[i])
		if v.Centering == Zone {
			out[i]--
		}
	}
	return out
}

// GlobalShape is a variable's SIF dataset shape, slowest first ([z,] y, x): node-centred,
// the parts' nodes times the parts along each axis; zone-centred, that less the parts
// along each axis.
func (m *Mesh) GlobalShape(v Var) []uint64 {
	out := make([]uint64, m.Dim)
	for i := 0; i < m.Dim; i++ {
		n := m.Nodes[i] * m.Decomp[i]
		if v.Centering == Zone {
			n -= m.Decomp[i]
		}
		out[m.Dim-1-i] = uint64(n)
	}
	return out
}

// PartBlock is a part's hyperslab in a SIF dataset (slowest first): the part's global
// origin, zone-centred origins shifted back by the part's index.
func (m *Mesh) PartBlock(p Part, v Var) (start, count []uint64) {
	start, count = make([]uint64, m.Dim), make([]uint64, m.Dim)
	for i := 0; i < m.Dim; i++ {
		s, n := p.Index[i]*m.Nodes[i], m.Nodes[i]
		if v.Centering == Zone {
			s -= p.Index[i]
			n--
		}
		start[m.Dim-1-i], count[m.Dim-1-i] = uint64(s), uint64(n)
	}
	return start, count
}

// Growth is the state of --dataset_growth on one rank: the variables added to its first
// part after each dump (MACSIO_DATA_EvolveDataset) and the counter that names them.
type Growth struct {
	// Added[d] are the variables added after dump d.
	Added   [][]Var
	evolved int
}

// Evolve adds the variables of one growth step of growthBytes bytes: whole arrays of the
// part's node shape named expansion_NNN, then one smaller remainder whose node count is
// split as the part size is. As in MACSio, the remainder takes the current name without
// advancing the counter, so the next step's first array repeats it: that dataset's create
// fails in MACSio and the file keeps the first.
func (g *Growth) Evolve(m *Mesh, growthBytes int) {
	total := m.Nodes[0] * m.Nodes[1] * m.Nodes[2]
	doubles := float64(growthBytes / 8)
	arrays := doubles / float64(total)
	var added []Var
	whole := 1
	for ; float64(whole) < arrays; whole++ {
		added = append(added, Var{Name: fmt.Sprintf("expansion_%03d", g.evolved), Centering: Node, Expansion: true})
		g.evolved++
	}
	partial := arrays - float64(whole) + 1
	n := int(float64(total) * partial)
	dims := []int{n}
	switch m.Dim {
	case 2:
		x, y, ok := best2D(n)
		if !ok {
			x, y = n, 1
		}
		dims = []int{x, y}
	case 3:
		x, y, z, ok := best3D(n)
		if !ok {
			x, y, z = n, 1, 1
		}
		dims = []int{x, y, z}
	}
	added = append(added, Var{Name: fmt.Sprintf("expansion_%03d", g.evolved), Centering: Node, Dims: dims, Expansion: true})
	g.Added = append(g.Added, added)
}

// GrowthBytes is what MACSio adds after a dump whose files take size bytes: size·f − size
// computed in single precision (MACSio's factor is a float), truncated to an int.
func GrowthBytes(size int64, f float64) int {
	prod := float32(size) * float32(f)
	return int(prod - float32(size))
}
