package h5perf

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is one h5perf run: per iteration, per file, the write of every dataset from
// open to close, then (unless write-only) its read from open to close.
type Pattern struct {
	patterns.Base[Config]

	mu    sync.Mutex
	data  map[int][]byte         // each rank's transfer buffer, by rank
	fresh map[[2]int]bufferState // where (rank, iteration)'s buffer comes from
	zero  []byte                 // a fresh buffer's contents
}

// Factory builds the h5perf pattern; package patterns/all registers it. Its one phase is
// write: h5perf reads each file back right after writing it (the next file or iteration
// recreates it), so the reads are steps of the write phase.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "h5perf", Options: Options, Config: FromValues, Phases: []patterns.Phase{patterns.PhaseWrite},
	Summary: "HDF5's parallel h5perf (pio_perf): per iteration and file, every rank writes then reads its contiguous or interleaved blocks of 1-D or 2-D byte datasets through POSIX, MPI-IO or PHDF5"})

// Halves is the number of steps per file and iteration: the write, then the read.
func (p *Pattern) Halves() int {
	if p.C.WriteOn {
		return 1
	}
	return 2
}

// Steps is one step per iteration, file and half (write, read).
func (p *Pattern) Steps() int { return p.C.NumIters * p.C.NumFiles * p.Halves() }

// BarrierBefore is true for every step: h5perf synchronizes its processes before each
// file's write and read timers start (MPI_Barrier in do_pio).
func (p *Pattern) BarrierBefore(patterns.Phase, int) bool { return true }

// FileName is the data file n (1-based) of an API in dir: #pio_tmp_<n> and the API's
// suffix (pio_create_filename).
func FileName(dir, api string, n int) string {
	for _, a := range APIs {
		if a.Name == api {
			return filepath.Join(dir, fmt.Sprintf("#pio_tmp_%d%s", n, a.FileSuffix))
		}
	}
	return filepath.Join(dir, fmt.Sprintf("#pio_tmp_%d", n))
}

// DatasetName is dataset n (1-based): Dataset_<n>.
func DatasetName(n int) string { return fmt.Sprintf("/Dataset_%d", n) }

// Begin checks the run on the session's ranks (h5perf's do_pio checks) before any I/O.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	if ph != patterns.PhaseWrite {
		return plan.Plan{}, fmt.Errorf("h5perf: no %s phase (each file is read back inside the write phase)", ph)
	}
	_, err := p.C.Check(env.Size)
	return plan.Plan{}, err
}

// End has nothing to do: every file is closed in its step.
func (p *Pattern) End(patterns.Phase, int, patterns.Env) (plan.Plan, error) { return plan.Plan{}, nil }

// RemoveAfter removes each file once it has been written and read back, as do_pio's
// do_cleanupfile does after its barrier, unless HDF5_NOCLEANUP (nocleanup).
func (p *Pattern) RemoveAfter(_ patterns.Phase, step int, env patterns.Env) []string {
	if p.C.NoCleanup || step%p.Halves() != p.Halves()-1 {
		return nil
	}
	return []string{FileName(filepath.Dir(env.Path), p.C.API, step/p.Halves()%p.C.NumFiles+1)}
}

// zeros is n zero bytes, shared: what a fresh buffer holds.
func (p *Pattern) zeros(n int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if int64(len(p.zero)) != n {
		p.zero = make([]byte, n)
	}
	return p.zero
}

// buffer is rank's transfer buffer: seeded bytes, the same for every transfer (h5perf
// writes one buffer over and over), so a read checks against it.
func (p *Pattern) buffer(rank int, seed uint64, n int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.data[rank]; ok && int64(len(b)) == n {
		return b
	}
	if p.data == nil {
		p.data = map[int][]byte{}
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(emulate.Bits(seed, "h5perf", rank, uint64(i)))
	}
	p.data[rank] = b
	return b
}

// Selections are the file selections of one rank's transfers into one dataset, in h5perf's
// order (do_write: the hyperslab set once, moved with H5Soffset_simple per transfer).
func (c Config) Selections(g Geometry, rank int) []plan.Hyperslab {
	P, r, blk, buf := uint64(g.Procs), uint64(rank), uint64(c.Block), uint64(c.Xfer)
	n := uint64(g.PerRank / g.PerXfer)
	out := make([]plan.Hyperslab, 0, n)
	if !c.Dim2D {
		begin := uint64(g.Bytes) * r / P
		stride := blk
		if c.Interleaved {
			begin, stride = blk*r, blk*P
		}
		for k := uint64(0); k < n; k++ {
			off := k * buf
			if c.Interleaved {
				off *= P
			}
			out = append(out, plan.Hyperslab{Start: []uint64{begin + off}, Stride: []uint64{stride}, Count: []uint64{buf / blk}, Block: []uint64{blk}})
		}
		return out
	}
	sn := uint64(g.Side)
	for k := uint64(0); k < n; k++ {
		x := k * buf * blk // bytes this rank moved before transfer k
		if !c.Interleaved {
			o0, o1 := x/(sn*blk)*blk, x%(sn*blk)/blk
			out = append(out, plan.Hyperslab{Start: []uint64{sn*r/P + o0, o1}, Stride: []uint64{1, blk}, Count: []uint64{1, buf / blk}, Block: []uint64{blk, blk}})
		} else {
			o0, o1 := x*P/(sn*buf)*buf, x*P%(sn*buf)/buf
			out = append(out, plan.Hyperslab{Start: []uint64{o0, blk*r + o1}, Stride: []uint64{blk, blk * P}, Count: []uint64{buf / blk, 1}, Block: []uint64{blk, blk}})
		}
	}
	return out
}

// Shape is a dataset's extent; MemShape a transfer buffer's; Chunk the chunk (nil without
// -c).
func (c Config) Shape(g Geometry) []uint64 {
	if c.Dim2D {
		return []uint64{uint64(g.Side), uint64(g.Side)}
	}
	return []uint64{uint64(g.Bytes)}
}

// MemShape is the transfer buffer's shape: [xfer], or [block, xfer] in 2-D ([xfer, block]
// interleaved).
func (c Config) MemShape() []uint64 {
	switch {
	case !c.Dim2D:
		return []uint64{uint64(c.Xfer)}
	case c.Interleaved:
		return []uint64{uint64(c.Xfer), uint64(c.Block)}
	}
	return []uint64{uint64(c.Block), uint64(c.Xfer)}
}

// ChunkShape is the chunk shape with -c: block-size, or block-size squared in 2-D.
func (c Config) ChunkShape() []uint64 {
	switch {
	case !c.Chunk:
		return nil
	case c.Dim2D:
		return []uint64{uint64(c.Block), uint64(c.Block)}
	}
	return []uint64{uint64(c.Block)}
}

// Step is half step%Halves of file step/Halves%files of iteration step/(Halves×files):
// create (open) the file, then per dataset create (open) it, write (read) the rank's
// transfers one buffer at a time, close it; close the file.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if ph != patterns.PhaseWrite {
		return pl, fmt.Errorf("h5perf: no %s phase", ph)
	}
	g, err := p.C.Geometry(env.Size)
	if err != nil {
		return pl, err
	}
	read := step%p.Halves() == 1
	file := step/p.Halves()%p.C.NumFiles + 1
	path := FileName(filepath.Dir(env.Path), p.C.API, file)
	data := p.buffer(env.Rank, env.Seed, g.PerXfer)
	it := step / (p.Halves() * p.C.NumFiles)
	state := p.iterationBuffer(env.Rank, it, g.PerXfer)
	fresh, bufName, freshOffset := state != resident, writeBuffer, 0
	if state == freshMapped {
		freshOffset = mappedOffset
	}
	if fresh && read {
		bufName = freshBuffer(it)
	}
	shape, mem, sels := p.C.Shape(g), p.C.MemShape(), p.C.Selections(g, env.Rank)
	// POSIX: every process opens the file with O_CREAT|O_TRUNC (do_fopen's POSIXCREATE),
	// which on ext4 makes the close write the file back, inside Write Open-Close.
	fs := &plan.FileSpec{Parallel: true, ReadOnly: read, TruncateEveryRank: p.C.API == "posix" && !read}
	if p.C.Align > 1 {
		fs.AlignThreshold, fs.AlignLen = uint64(p.C.Threshold), uint64(p.C.Align)
	}
	kind, dkind, xkind := plan.CreateFile, plan.CreateDataset, plan.Write
	if read {
		kind, dkind, xkind = plan.OpenFile, plan.OpenDataset, plan.Read
	}
	pl.Add(plan.Op{Kind: kind, Path: path, Collective: true, Step: step, File: fs})
	for d := 1; d <= p.C.NumDsets; d++ {
		name := DatasetName(d)
		op := plan.Op{Kind: dkind, Path: name, Collective: true, Step: step}
		if !read {
			op.Dataset = &plan.DatasetSpec{Type: plan.U8, Shape: shape, Chunk: p.C.ChunkShape()}
		}
		pl.Add(op)
		for k, h := range sels {
			t := &plan.Transfer{Variable: "h5perf", Buffer: bufName, MemType: plan.U8, MemShape: mem, FileType: plan.U8, FileShape: shape,
				Selection: plan.Selection{Blocks: []plan.Hyperslab{h}}, Data: data}
			if fresh && file == 1 && d == 1 && k == 0 {
				// The iteration's first transfer: h5perf's fresh buffer, written untouched.
				t.Data = p.zeros(g.PerXfer)
				if !read {
					t.Buffer, t.AsIs = freshBuffer(it), true
				}
			}
			if t.Buffer == freshBuffer(it) {
				t.BufferOffset = freshOffset
			}
			pl.Add(plan.Op{Kind: xkind, Path: name, Collective: p.C.Collective, Step: step, Transfer: t})
		}
		pl.Add(plan.Op{Kind: plan.CloseDataset, Path: name, Collective: true, Step: step})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Collective: true, Step: step})
	return pl, nil
}
