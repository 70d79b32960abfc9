// Package mpiio is the layout that moves the same bytes as the real file through plain
// MPI-IO, without HDF5: a baseline for what HDF5 adds.
package mpiio

import (
	"fmt"
	"time"

	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/rawfile"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// mpiioLayout writes the plan's raw data through plain MPI-IO, without HDF5: the baseline
// of IOR's and h5perf's HDF5-versus-MPI-IO comparison on the same access pattern. Every
// dataset gets a contiguous region of one shared file, allocated in creation order the way
// HDF5 allocates contiguous datasets (package rawfile); groups and attributes cost nothing.
// A read phase can read what the same session wrote (the regions are kept in memory per
// file, the file has no metadata); a file reopened for writing gains regions after its
// earlier ones. Several files can be open at once, as in HDF5: operations apply to the
// current one (the last opened or selected, plan.SelectFile).
type mpiioLayout struct {
	env stack.Env
	// fileView writes through file views, as HDF5's MPI-IO driver does.
	fileView bool
	files    rawfile.Set
	opened   plan.FileStack[*mpiioFile]
	cur      *mpiioFile    // the current file (nil: none is open)
	last     *rawfile.File // the regions of the last file opened, for Shape once it is closed
}

// mpiioFile is one open file.
type mpiioFile struct {
	path string // its plan path
	file *mpi.File
	comm mpi.Comm // the file's communicator
	own  bool     // comm is the layout's to free (per-rank files)
	raw  *rawfile.File
	// view is the file's IOR file view (plan.FileSpec.View), nil without one.
	view *plan.FileView
	// complete: the program writes every byte laid out (plan.FileSpec.Complete), so the
	// close asks no size to grow the file and reads are not bounded by it.
	complete bool
}

// FilePath is the plan path the file was opened at.
func (f *mpiioFile) FilePath() string { return f.path }

// Options are the mpiio layout's keys.
var Options = &options.Table{Name: "mpiio", Specs: []options.Spec{
	{Key: "mpiio.file_view", Kind: options.Bool, Default: "NO", Help: "mpiio layout: collective writes and reads through a file view of each rank's byte ranges (set_view + write_at_all or read_at_all + reset), the MPI call sequence of HDF5's MPI-IO driver, instead of explicit offsets; carries selections of several ranges per rank"},
}}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "mpiio", Caps: stack.StoresData, Options: Options,
		Summary: "the same bytes through plain MPI-IO, no HDF5 (each dataset a contiguous region of one raw file)",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			return &mpiioLayout{env: env, fileView: env.Setting().Bool("mpiio.file_view"), files: rawfile.Set{Layout: "mpiio"}}, nil
		}})
}

func (l *mpiioLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		if op.Kind == plan.CreateFile {
			if err := h5layout.MakeDirs(op); err != nil {
				return err
			}
		}
		comm, own, err := h5layout.FileComm(l.env, op.File)
		if err != nil {
			return err
		}
		access := mpi.ReadWrite
		switch {
		case op.Kind == plan.CreateFile:
			access = mpi.Create
		case op.File.ReadOnly:
			access = mpi.ReadOnly
		}
		o := mpi.OpenOptions{Unique: op.File.UniqueOpen}
		if op.File.Hints { // the session's hints, in an object even without any
			o.Info, o.AlwaysInfo = l.env.MPIInfo, true
		}
		if len(op.File.Info) > 0 { // the file's own hints (a description's files.ID.hints)
			o.Info = h5layout.Hints(l.env, op.File)
		}
		f, err := mpi.OpenFileWith(comm, op.Path, access, o)
		if err != nil {
			if own {
				comm.Free()
			}
			return err
		}
		of := &mpiioFile{path: op.Path, file: f, comm: comm, own: own, raw: l.files.Begin(op), complete: op.File.Complete}
		if of.complete {
			f.TrustReads()
		}
		if v := op.File.View; v != nil {
			if err := f.SetIORView(int64(v.Transfer), int64(v.Block), v.Tasks, v.Task); err != nil {
				l.close(of)
				return err
			}
			of.view = v
		}
		if op.Kind == plan.OpenFile && op.File.Parallel {
			if of.raw, err = l.files.Agree(comm, op.Path); err != nil {
				l.release(of)
				return err
			}
		}
		l.opened.Push(of)
		l.cur, l.last = of, of.raw
		return nil
	}
	if ok, err := l.opened.FileOp(op, func(f *mpiioFile) error { l.opened.Remove(f.path); return l.close(f) }); ok {
		l.cur, _ = l.opened.Current()
		return err
	}
	if l.cur == nil {
		return fmt.Errorf("mpiio layout: %s %s: no file is open", op.Kind, op.Path)
	}
	if ok, err := l.files.Define(l.cur.raw, op); ok {
		return err
	}
	switch op.Kind {
	case plan.FlushFile:
		return l.cur.file.Sync()
	case plan.Write, plan.Read:
		return l.transfer(l.cur, op, buf)
	}
	return nil // groups, dataset closes and attributes have no raw-file counterpart
}

// transfer moves the selection's byte ranges. A collective transfer is one collective call
// on every rank: through a file view of the rank's ranges with mpiio.file_view, else at an
// explicit offset, which needs a single range per rank.
func (l *mpiioLayout) transfer(of *mpiioFile, op *plan.Op, buf []byte) error {
	if op.Collective && l.fileView && of.view == nil {
		pieces, err := l.files.Pieces(of.raw, op.Path, op.Transfer)
		if err != nil {
			return err
		}
		runs := make([]mpi.Run, len(pieces))
		for i, p := range pieces {
			runs[i] = mpi.Run{Off: p.Off, Mem: p.Mem, Len: p.Len}
		}
		return of.file.RunsViewAll(op.Kind == plan.Write, runs, buf)
	}
	xs, err := l.xfers(of, op, buf, nil)
	if err == nil {
		_, err = of.file.Run(xs, nil)
	}
	return err
}

// xfers appends to xs the MPI transfers of op (not one through mpiio.file_view's views):
// one of IOR's view transfers, one collective call at an explicit offset, or an
// independent call per byte range.
func (l *mpiioLayout) xfers(of *mpiioFile, op *plan.Op, buf []byte, xs []mpi.Xfer) ([]mpi.Xfer, error) {
	pieces, err := l.files.Pieces(of.raw, op.Path, op.Transfer)
	if err != nil {
		return xs, err
	}
	write := op.Kind == plan.Write
	if of.view != nil {
		x, err := viewXfer(of, op, pieces, buf)
		return append(xs, x), err
	}
	if op.Collective {
		if len(pieces) > 1 {
			return xs, fmt.Errorf("mpiio layout: %s: a collective transfer needs one contiguous run per rank, this rank has %d (use independent transfers, or mpiio.file_view=YES)", op.Path, len(pieces))
		}
		x := mpi.Xfer{Kind: mpi.ReadAtAll}
		if write {
			x.Kind = mpi.WriteAtAll
		}
		if len(pieces) == 1 {
			p := pieces[0]
			x.Off, x.Buf = p.Off, buf[p.Mem:p.Mem+p.Len]
		}
		return append(xs, x), nil
	}
	kind := mpi.ReadAt
	if write {
		kind = mpi.WriteAt
	}
	for _, p := range pieces {
		xs = append(xs, mpi.Xfer{Kind: kind, Off: p.Off, Buf: buf[p.Mem : p.Mem+p.Len]})
	}
	return xs, nil
}

// viewXfer is one of IOR's transfers through its file view (MPIIO_Xfer with
// useFileView): the transfer's bytes must be one of the view's transfers, sought to by
// their place in the view.
func viewXfer(of *mpiioFile, op *plan.Op, pieces []rawfile.Piece, buf []byte) (mpi.Xfer, error) {
	v := of.view
	if len(pieces) != 1 || uint64(pieces[0].Len) != v.Transfer {
		return mpi.Xfer{}, fmt.Errorf("mpiio layout: %s: IOR's file view moves one transfer of %d bytes per call, this one has %d runs", op.Path, v.Transfer, len(pieces))
	}
	p := pieces[0]
	pos, ok := v.Offset(uint64(p.Off))
	if !ok {
		return mpi.Xfer{}, fmt.Errorf("mpiio layout: %s: the transfer at file offset %d is not one of task %d's in the view (blocks of %d bytes, %d tasks)", op.Path, p.Off, v.Task, v.Block, v.Tasks)
	}
	kind := mpi.ViewRead
	if op.Kind == plan.Write {
		kind = mpi.ViewWrite
	}
	if op.Collective {
		kind-- // the collective kind precedes the independent one
	}
	return mpi.Xfer{Kind: kind, Off: int64(pos), Buf: buf[p.Mem : p.Mem+p.Len]}, nil
}

// Runs reports whether op can be made in a run (stack.RunExec): a transfer of the current
// file whose calls are the layout's plain transfers (not mpiio.file_view's set_view,
// write_at_all or read_at_all and reset, which build datatypes per call), or a dataset
// open or close, which makes no MPI call (regions are the layout's own bookkeeping).
func (l *mpiioLayout) Runs(op *plan.Op) bool {
	if l.cur == nil {
		return false
	}
	if op.Transfer == nil {
		return op.Kind == plan.OpenDataset || op.Kind == plan.CloseDataset
	}
	return (op.Kind == plan.Write || op.Kind == plan.Read) && !(op.Collective && l.fileView && l.cur.view == nil)
}

// ExecRun makes the transfers ops of the current file from one MPI transfer loop
// (mpi.File.Run): the MPI calls of Exec for each, in order (stack.RunExec). Dataset opens
// and closes among them are made here, in order, before the loop: they only look up or
// lay out regions, which the later transfers' offsets come from. An op that cannot be
// made (its ranges, IOR's view, a dataset never laid out) ends the run before it, with
// the error Exec would give.
func (l *mpiioLayout) ExecRun(ops []*plan.Op, bufs [][]byte, took []time.Duration) (int, error) {
	of := l.cur
	if of == nil {
		return 0, fmt.Errorf("mpiio layout: a run of %d transfers: no file is open", len(ops))
	}
	var xs []mpi.Xfer
	last := make([]int, 0, len(ops)) // ops[i]'s transfers end before xs[last[i]]
	var perr error
	for i, op := range ops {
		if op.Transfer == nil {
			_, perr = l.files.Define(of.raw, op) // an open or close (Runs): no MPI call
		} else {
			xs, perr = l.xfers(of, op, bufs[i], xs)
		}
		if perr != nil {
			break
		}
		last = append(last, len(xs))
	}
	n := 0 // the transfers of the ops that could be made (a failed op may have added one)
	if len(last) > 0 {
		n = last[len(last)-1]
	}
	xs = xs[:n]
	clear(took)
	xt := make([]time.Duration, len(xs))
	k, err := of.file.Run(xs, xt)
	// Charge each transfer to its op; the op of transfer k (failed) is the one that stopped.
	op := 0
	for i := 0; i < len(xs) && i <= k; i++ {
		for op < len(last) && i >= last[op] {
			op++
		}
		if op < len(took) {
			took[op] += xt[i]
		}
	}
	if err != nil {
		done := 0
		for done < len(last) && last[done] <= k {
			done++
		}
		return done, err
	}
	return len(last), perr
}

// close closes an open file the layout has forgotten. A written file first grows to
// cover every region laid out, as HDF5 extends a file to its end of allocation at close,
// so parts nobody wrote read as zeros (HDF5's fill value) instead of ending the file early.
func (l *mpiioLayout) close(f *mpiioFile) error {
	var err error
	if f.file.Writable() && !f.complete {
		err = grow(f)
	}
	if rerr := l.release(f); err == nil {
		err = rerr
	}
	return err
}

// release closes f's MPI file and frees its communicator when it is the layout's.
func (l *mpiioLayout) release(f *mpiioFile) error {
	err := f.file.Close()
	if f.own {
		if ferr := f.comm.Free(); err == nil {
			err = ferr
		}
	}
	return err
}

// grow extends f to the end of its last region when it is shorter (collective on the
// file's communicator: every rank takes the same decision from reduced values).
func grow(f *mpiioFile) error {
	size, err := f.file.Size()
	if err != nil {
		return err
	}
	m, err := f.comm.AllreduceInt64([]int64{f.raw.Next, size}, mpi.OpMax)
	if err != nil || m[1] >= m[0] {
		return err
	}
	return f.file.SetSize(m[0])
}

func (l *mpiioLayout) Shape(path string) ([]uint64, error) {
	if l.cur != nil {
		return l.files.Shape(l.cur.raw, path)
	}
	return l.files.Shape(l.last, path)
}

// Abort closes every open file, the current one first.
func (l *mpiioLayout) Abort() error {
	l.cur = nil
	return l.opened.Abort(l.close)
}
