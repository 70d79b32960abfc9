package proxy

import (
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy/internal/mpi"
)

// mpiioLayout writes the plan's raw data through plain MPI-IO, without HDF5: the baseline
// of IOR's and h5perf's HDF5-versus-MPI-IO comparison on the same access pattern. Every
// dataset gets a contiguous region of one shared file, allocated in creation order the way
// HDF5 allocates contiguous datasets; groups and attributes cost nothing. A read phase can
// read what the same session wrote (the regions are kept in memory, the file has no
// metadata).
type mpiioLayout struct {
	env     layoutEnv
	file    *mpi.File
	self    mpi.Comm // for per-rank files
	next    int64
	regions map[string]region
}

type region struct {
	offset int64
	shape  []uint64
	elem   int
}

func init() {
	registerLayout("mpiio", func(env layoutEnv) (Layout, error) {
		return &mpiioLayout{env: env, regions: map[string]region{}}, nil
	})
}

func (l *mpiioLayout) Exec(op *patterns.Op, buf []byte) error {
	switch op.Kind {
	case patterns.CreateFile, patterns.OpenFile:
		if l.file != nil {
			return errors.New("mpiio layout: one file at a time")
		}
		comm := l.env.comm.c
		if !op.File.Parallel {
			self, err := comm.Split(comm.Rank(), 0)
			if err != nil {
				return err
			}
			l.self, comm = self, self
		}
		f, err := mpi.OpenFile(comm, op.Path, op.Kind == patterns.CreateFile)
		if err != nil {
			return err
		}
		l.file = f
		if op.Kind == patterns.CreateFile {
			l.next, l.regions = 0, map[string]region{}
		}
		return nil
	case patterns.FlushFile:
		return l.open(func(f *mpi.File) error { return f.Sync() })
	case patterns.CloseFile:
		return l.open(func(f *mpi.File) error { return l.close() })
	case patterns.CreateDataset:
		d := op.Dataset
		l.regions[op.Path] = region{offset: l.next, shape: d.Shape, elem: d.Type.Size}
		l.next += int64(patterns.Product(d.Shape)) * int64(d.Type.Size)
		return nil
	case patterns.ExtendDataset:
		return fmt.Errorf("mpiio layout: %s: datasets cannot grow in a raw file (regions are laid out at creation)", op.Path)
	case patterns.OpenDataset:
		if _, ok := l.regions[op.Path]; !ok {
			return fmt.Errorf("mpiio layout: dataset %s was not written by this session (raw files carry no metadata)", op.Path)
		}
		return nil
	case patterns.Write, patterns.Read:
		return l.open(func(f *mpi.File) error { return l.transfer(f, op, buf) })
	}
	return nil // groups, dataset closes and attributes have no raw-file counterpart
}

func (l *mpiioLayout) open(do func(*mpi.File) error) error {
	if l.file == nil {
		return errors.New("mpiio layout: no file is open")
	}
	return do(l.file)
}

// transfer moves the selection's runs. A collective transfer must be a single run per
// rank so every rank makes exactly one collective call.
func (l *mpiioLayout) transfer(f *mpi.File, op *patterns.Op, buf []byte) error {
	t := op.Transfer
	r, ok := l.regions[op.Path]
	if !ok {
		return fmt.Errorf("mpiio layout: dataset %s unknown", op.Path)
	}
	if t.MemType.Size != r.elem {
		return fmt.Errorf("mpiio layout: %s: memory element %d bytes, file element %d: raw MPI-IO cannot convert types (partial compound transfers)", op.Path, t.MemType.Size, r.elem)
	}
	runs := t.Selection.Runs(t.FileShape)
	es := int64(r.elem)
	write := op.Kind == patterns.Write
	if op.Collective {
		if len(runs) > 1 {
			return fmt.Errorf("mpiio layout: %s: a collective transfer needs one contiguous run per rank, this rank has %d (use independent transfers)", op.Path, len(runs))
		}
		off, n := r.offset, int64(0)
		if len(runs) == 1 {
			off, n = r.offset+int64(runs[0].Start)*es, int64(runs[0].Len)*es
		}
		if write && l.env.fileView {
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
		off := r.offset + int64(run.Start)*es
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

func (l *mpiioLayout) close() error {
	err := l.file.Close()
	l.file = nil
	if !l.self.IsNull() {
		if ferr := l.self.Free(); err == nil {
			err = ferr
		}
		l.self = mpi.Comm{}
	}
	return err
}

func (l *mpiioLayout) Shape(path string) ([]uint64, error) {
	r, ok := l.regions[path]
	if !ok {
		return nil, fmt.Errorf("mpiio layout: dataset %s was not written by this session", path)
	}
	return r.shape, nil
}

func (l *mpiioLayout) Abort() error {
	if l.file == nil {
		return nil
	}
	return l.close()
}
