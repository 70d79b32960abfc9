// Package mpiio is the layout that moves the same bytes as the real file through plain
// MPI-IO, without HDF5: a baseline for what HDF5 adds.
package mpiio

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// mpiioLayout writes the plan's raw data through plain MPI-IO, without HDF5: the baseline
// of IOR's and h5perf's HDF5-versus-MPI-IO comparison on the same access pattern. Every
// dataset gets a contiguous region of one shared file, allocated in creation order the way
// HDF5 allocates contiguous datasets; groups and attributes cost nothing. A read phase can
// read what the same session wrote (the regions are kept in memory per file, the file
// has no metadata); a file reopened for writing gains regions after its earlier ones.
type mpiioLayout struct {
	env stack.Env
	// fileView writes through file views, as HDF5's MPI-IO driver does.
	fileView bool
	file     *mpi.File
	comm     mpi.Comm // the open file's communicator
	own      bool     // comm is the layout's to free (per-rank files)
	files    map[string]*rawFile
	cur      *rawFile // the open file's
}

// rawFile is the layout of one raw file: its datasets' regions and the next free offset.
type rawFile struct {
	Next    int64
	Regions map[string]region
}

type region struct {
	Offset int64
	Shape  []uint64
	Elem   int
}

// agreeOnRegions gives every rank rank 0's layout of a file opened in parallel (collective
// on the file's communicator). Plans create some files on rank 0 alone before every rank
// reopens them (AMReX's headers); the other ranks never saw those datasets laid out.
func (l *mpiioLayout) agreeOnRegions(path string) error {
	var b []byte
	if l.comm.Rank() == 0 {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(l.files[path]); err != nil {
			return fmt.Errorf("mpiio layout: %s: encoding the regions: %w", path, err)
		}
		b = buf.Bytes()
	}
	b, err := l.comm.BcastBytes(b, 0)
	if err != nil {
		return err
	}
	var rf rawFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rf); err != nil {
		return fmt.Errorf("mpiio layout: %s: decoding rank 0's regions: %w", path, err)
	}
	if rf.Regions == nil {
		rf.Regions = map[string]region{}
	}
	l.files[path] = &rf
	return nil
}

// Options are the mpiio layout's keys.
var Options = &options.Table{Name: "mpiio", Specs: []options.Spec{
	{Key: "mpiio.file_view", Kind: options.Bool, Default: "NO", Help: "mpiio layout: collective writes through a file view (set_view + write_at_all + reset), the MPI call sequence of HDF5's MPI-IO driver, instead of explicit offsets"},
}}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "mpiio", Caps: stack.StoresData, Options: Options,
		Summary: "the same bytes through plain MPI-IO, no HDF5 (each dataset a contiguous region of one raw file)",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			return &mpiioLayout{env: env, fileView: env.Setting().Bool("mpiio.file_view"), files: map[string]*rawFile{}}, nil
		}})
}

func (l *mpiioLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		if l.file != nil {
			return errors.New("mpiio layout: one file at a time")
		}
		if op.Kind == plan.CreateFile {
			if err := h5layout.MakeDirs(op); err != nil {
				return err
			}
		}
		comm, own, err := h5layout.FileComm(l.env, op.File.Parallel)
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
		f, err := mpi.OpenFile(comm, op.Path, access)
		if err != nil {
			if own {
				comm.Free()
			}
			return err
		}
		l.file, l.comm, l.own = f, comm, own
		if l.files[op.Path] == nil || op.Kind == plan.CreateFile {
			l.files[op.Path] = &rawFile{Regions: map[string]region{}}
		}
		l.cur = l.files[op.Path]
		if op.Kind == plan.OpenFile && op.File.Parallel {
			if err := l.agreeOnRegions(op.Path); err != nil {
				l.close()
				return err
			}
			l.cur = l.files[op.Path]
		}
		return nil
	}
	if l.file == nil {
		return fmt.Errorf("mpiio layout: %s %s: no file is open", op.Kind, op.Path)
	}
	switch op.Kind {
	case plan.FlushFile:
		return l.file.Sync()
	case plan.CloseFile:
		return l.close()
	case plan.CreateDataset:
		d := op.Dataset
		l.cur.Regions[op.Path] = region{Offset: l.cur.Next, Shape: d.Shape, Elem: d.Type.Size}
		l.cur.Next += int64(plan.Product(d.Shape)) * int64(d.Type.Size)
		return nil
	case plan.ExtendDataset:
		return fmt.Errorf("mpiio layout: %s: datasets cannot grow in a raw file (regions are laid out at creation)", op.Path)
	case plan.OpenDataset:
		if _, ok := l.cur.Regions[op.Path]; !ok {
			return fmt.Errorf("mpiio layout: dataset %s was not written by this session (raw files carry no metadata)", op.Path)
		}
		return nil
	case plan.Write, plan.Read:
		return l.transfer(l.file, op, buf)
	}
	return nil // groups, dataset closes and attributes have no raw-file counterpart
}

// transfer moves the selection's runs. A collective transfer must be a single run per
// rank so every rank makes exactly one collective call.
func (l *mpiioLayout) transfer(f *mpi.File, op *plan.Op, buf []byte) error {
	t := op.Transfer
	r, ok := l.cur.Regions[op.Path]
	if !ok {
		return fmt.Errorf("mpiio layout: dataset %s unknown", op.Path)
	}
	if t.MemType.Size != r.Elem {
		return fmt.Errorf("mpiio layout: %s: memory element %d bytes, file element %d: raw MPI-IO cannot convert types (partial compound transfers)", op.Path, t.MemType.Size, r.Elem)
	}
	runs := t.Selection.Runs(t.FileShape)
	es := int64(r.Elem)
	write := op.Kind == plan.Write
	if op.Collective {
		if len(runs) > 1 {
			return fmt.Errorf("mpiio layout: %s: a collective transfer needs one contiguous run per rank, this rank has %d (use independent transfers)", op.Path, len(runs))
		}
		off, n := r.Offset, int64(0)
		if len(runs) == 1 {
			off, n = r.Offset+int64(runs[0].Start)*es, int64(runs[0].Len)*es
		}
		if write && l.fileView {
			return f.WriteViewAll(off, buf[:n])
		}
		if write {
			return f.WriteAtAll(off, buf[:n])
		}
		return f.ReadAtAll(off, buf[:n])
	}
	var pos int64
	for _, run := range runs {
		n := int64(run.Len) * es
		off := r.Offset + int64(run.Start)*es
		var err error
		if write {
			err = f.WriteAt(off, buf[pos:pos+n])
		} else {
			err = f.ReadAt(off, buf[pos:pos+n])
		}
		if err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// close closes the open file. A written file first grows to cover every region laid out,
// as HDF5 extends a file to its end of allocation at close, so parts nobody wrote read as
// zeros (HDF5's fill value) instead of ending the file early.
func (l *mpiioLayout) close() error {
	var err error
	if l.file.Writable() {
		err = l.grow()
	}
	if cerr := l.file.Close(); err == nil {
		err = cerr
	}
	l.file = nil
	if l.own {
		if ferr := l.comm.Free(); err == nil {
			err = ferr
		}
	}
	l.comm, l.own = mpi.Comm{}, false
	return err
}

// grow extends the open file to the end of its last region when it is shorter (collective
// on the file's communicator: every rank takes the same decision from reduced values).
func (l *mpiioLayout) grow() error {
	size, err := l.file.Size()
	if err != nil {
		return err
	}
	m, err := l.comm.AllreduceInt64([]int64{l.cur.Next, size}, mpi.OpMax)
	if err != nil || m[1] >= m[0] {
		return err
	}
	return l.file.SetSize(m[0])
}

func (l *mpiioLayout) Shape(path string) ([]uint64, error) {
	if l.cur == nil {
		return nil, errors.New("mpiio layout: no file is open")
	}
	r, ok := l.cur.Regions[path]
	if !ok {
		return nil, fmt.Errorf("mpiio layout: dataset %s was not written by this session", path)
	}
	return r.Shape, nil
}

func (l *mpiioLayout) Abort() error {
	if l.file == nil {
		return nil
	}
	return l.close()
}
