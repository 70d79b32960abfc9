// Package native is the layout that writes the real code's file: the plan's groups,
// datasets and attributes through the HDF5 C library, shared through MPI-IO or per rank.
package native

import (
	"fmt"
	"time"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// nativeLayout writes the canonical layout of the real code: one HDF5 file (shared through
// MPI-IO, or per rank when the plan says so) with the plan's groups and datasets.
type nativeLayout struct {
	env   stack.Env
	open  Opener
	files plan.FileStack[*openFile]
}

// Opener creates (op.Kind plan.CreateFile) or opens the file of op with the access
// settings a.
type Opener func(op *plan.Op, a h5.Access) (h5.ID, error)

// Open is the native layout's Opener: h5.CreateFile or h5.OpenFile.
func Open(op *plan.Op, a h5.Access) (h5.ID, error) {
	if op.Kind == plan.CreateFile {
		return h5.CreateFile(op.Path, a)
	}
	return h5.OpenFile(op.Path, a)
}

// New returns the native layout with its files created and opened by open: a layout that
// differs from the native one only in how HDF5 opens files (the subfiling-vfd layout,
// whose parallel files go through HDF5 1.14's subfiling VFD) is this layout.
func New(env stack.Env, open Opener) stack.Layout { return &nativeLayout{env: env, open: open} }

type openFile struct {
	path     string
	id       h5.ID
	parallel bool
	objs     h5layout.ObjTable
}

// FilePath is the plan path the file was opened at.
func (f *openFile) FilePath() string { return f.path }

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "native", Caps: stack.StoresData | stack.MultiDataset | stack.MemorySpaces,
		Summary:   "the real file: one HDF5 file (shared through MPI-IO, or per rank when the plan says so) with the plan's groups and datasets",
		NewLayout: func(env stack.Env) (stack.Layout, error) { return New(env, Open), nil }})
}

// access is the file access of fs and the communicator to free once the file is open
// (a group's: HDF5 keeps a duplicate of the communicator it opens a file on).
func (l *nativeLayout) access(fs *plan.FileSpec) (h5.Access, mpi.Comm, bool, error) {
	a := h5.Access{FileSpec: *fs}
	switch {
	case fs.Parallel:
		c, own, err := h5layout.FileComm(l.env, fs)
		if err != nil {
			return a, c, false, err
		}
		a.Comm, a.Info = c.Fortran(), h5layout.Hints(l.env, fs)
		return a, c, own, nil
	case fs.SelfMPIIO: // the MPI-IO driver on this rank alone
		a.Parallel, a.Comm, a.Info = true, mpi.Self().Fortran(), h5layout.Hints(l.env, fs)
	}
	return a, mpi.Comm{}, false, nil
}

// Exec performs one plan operation through the HDF5 C library.
func (l *nativeLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		if op.Kind == plan.CreateFile {
			if err := h5layout.MakeDirs(op); err != nil {
				return err
			}
		}
		a, comm, own, err := l.access(op.File)
		if err != nil {
			return err
		}
		id, err := l.open(op, a)
		if own {
			if ferr := comm.Free(); err == nil && ferr != nil {
				h5.CloseFile(id)
				err = ferr
			}
		}
		if err != nil {
			return err
		}
		l.files.Push(&openFile{path: op.Path, id: id, parallel: op.File.Parallel, objs: h5layout.NewObjTable()})
		return nil
	}
	if ok, err := l.files.FileOp(op, l.closeFile); ok {
		return err
	}
	f, err := l.files.Current()
	if err != nil {
		return err
	}
	switch op.Kind {
	case plan.FlushFile:
		local := op.File != nil && op.File.FlushLocal
		return h5.FlushFile(f.id, local)
	case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
		return f.objs.Open(f.id, op)
	case plan.CloseGroup, plan.CloseDataset:
		return f.objs.Close(op.Path)
	case plan.CreateLink: // by absolute paths from the file's identifier
		return h5.CreateLink(f.id, op.Path, *op.Link)
	case plan.Scale:
		return l.scale(f, op)
	case plan.ExtendDataset:
		id, ok := f.objs.IDs[op.Path]
		if !ok {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		return h5.SetExtent(id, op.Dataset.Shape)
	case plan.WriteAttribute, plan.ReadAttribute:
		loc, err := f.objs.AttributeLoc(f.id, op)
		if err != nil {
			return err
		}
		if op.Kind == plan.ReadAttribute {
			_, err := h5.ReadAttributeAs(loc, *op.Attribute)
			return err
		}
		return h5.WriteAttribute(loc, *op.Attribute)
	case plan.Write, plan.Read:
		id, ok := f.objs.IDs[op.Path]
		if !ok {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		// Serial (per-rank) files have no MPI-IO transfer mode to set.
		coll := op.Collective && f.parallel
		if op.Kind == plan.Write {
			return h5.Write(id, op.Transfer, coll, buf)
		}
		return h5.Read(id, op.Transfer, coll, buf)
	}
	return fmt.Errorf("native layout: unsupported operation %s", op.Kind)
}

// Runs reports whether op can be made in a run (stack.RunExec): a write or read of a
// dataset of the current file that is open, whose transfer h5.TransferRun's C loop makes
// (h5.Runnable). Every other operation calls HDF5 (IOR's H5Dclose and H5Dopen1 between
// its segments end a run).
func (l *nativeLayout) Runs(op *plan.Op) bool {
	if op.Transfer == nil || op.Kind != plan.Write && op.Kind != plan.Read {
		return false
	}
	f, err := l.files.Current()
	if err != nil {
		return false
	}
	_, ok := f.objs.IDs[op.Path]
	return ok && h5.Runnable(op.Transfer)
}

// ExecRun makes the transfers ops of the current file from one C loop (h5.TransferRun):
// the HDF5 calls of Exec for each, in order (stack.RunExec). A dataset that is not open
// ends the run before its transfer, with Exec's error.
func (l *nativeLayout) ExecRun(ops []*plan.Op, bufs [][]byte, took []time.Duration) (int, error) {
	f, err := l.files.Current()
	if err != nil {
		return 0, err
	}
	ids := make([]h5.ID, 0, len(ops))
	ts := make([]*plan.Transfer, 0, len(ops))
	coll := make([]bool, 0, len(ops))
	var perr error
	for _, op := range ops {
		id, ok := f.objs.IDs[op.Path]
		if !ok || op.Transfer == nil || op.Kind != ops[0].Kind {
			perr = fmt.Errorf("dataset %s is not open", op.Path)
			if ok {
				perr = fmt.Errorf("native layout: a run of %ss holds %s %s", ops[0].Kind, op.Kind, op.Path)
			}
			break
		}
		// Serial (per-rank) files have no MPI-IO transfer mode to set.
		ids, ts, coll = append(ids, id), append(ts, op.Transfer), append(coll, op.Collective && f.parallel)
	}
	clear(took)
	done, err := h5.TransferRun(ids, ts, coll, bufs[:len(ids)], ops[0].Kind == plan.Write, took)
	if err != nil {
		return done, err
	}
	return done, perr
}

// EventSets reports that the layout's operations are HDF5's object calls, which the
// event-set mode issues as their _async forms.
func (l *nativeLayout) EventSets() bool { return true }

// ExecMulti writes or reads the datasets of ops in one H5Dwrite_multi or H5Dread_multi
// (HDF5 1.14): the session's batch of a step's consecutive transfers of the current file.
func (l *nativeLayout) ExecMulti(ops []*plan.Op, bufs [][]byte) error {
	f, err := l.files.Current()
	if err != nil {
		return err
	}
	ids := make([]h5.ID, len(ops))
	ts := make([]*plan.Transfer, len(ops))
	for i, op := range ops {
		id, ok := f.objs.IDs[op.Path]
		if !ok {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		ids[i], ts[i] = id, op.Transfer
	}
	// Serial (per-rank) files have no MPI-IO transfer mode to set.
	return h5.TransferMulti(ids, ts, ops[0].Collective && f.parallel, bufs, ops[0].Kind == plan.Write)
}

// closeFile closes the file; objects the plan left open are closed first and reported,
// because a plan that leaks handles is a bug that would change HDF5's close behaviour.
func (l *nativeLayout) closeFile(f *openFile) error {
	leaked := f.objs.CloseForFileClose()
	l.files.Remove(f.path)
	if err := h5.CloseFile(f.id); err != nil {
		return err
	}
	return leaked
}

// Shape returns a dataset's current extent, opening it briefly if the plan has not.
func (l *nativeLayout) Shape(path string) ([]uint64, error) {
	f, err := l.files.Current()
	if err != nil {
		return nil, err
	}
	return f.objs.Shape(f.id, path)
}

// Abort closes everything still open, innermost file first.
func (l *nativeLayout) Abort() error {
	return l.files.Abort(func(f *openFile) error {
		f.objs.CloseAll()
		return h5.CloseFile(f.id)
	})
}
