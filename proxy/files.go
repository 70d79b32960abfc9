package proxy

// File bookkeeping: the files a phase creates, opens, removes and measures, and the fills of
// those this session wrote.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// writtenFile is how a session filled a file it wrote: what a later read verifies against.
type writtenFile struct {
	seed uint64
	fill emulate.FillKind
}

// phaseFiles is a phase's file bookkeeping: the files it created or opened (the report names
// them rather than the configured path), those open now (a mismatch names the file read
// from), the one a failure names, and the extents of the datasets a read phase asked for.
type phaseFiles struct {
	files     []string              // files created or opened, in order (executed)
	open      plan.OpenFiles        // the files open as the operations executed so far left them
	file      string                // the file created or opened last: failures name it (fail)
	stepFiles []string              // file at the end of each step done: background failures name it
	opens     int                   // file creates and opens executed so far
	shapes    map[shapeKey][]uint64 // extents queried, per opened file (Session.shape)
}

// executed books a file operation that ran (a selection, create, open or close): the files
// open after it and, for a create or open, the file noted, counted and named by failures.
func (f *phaseFiles) executed(op *plan.Op) {
	f.open.Apply(op)
	if op.Kind != plan.CreateFile && op.Kind != plan.OpenFile {
		return
	}
	if !slices.Contains(f.files, op.Path) {
		f.files = append(f.files, op.Path)
	}
	f.opens++
	f.file = op.Path
}

// shapeKey names a dataset of the file open at a point of a read phase.
type shapeKey struct {
	opens int
	path  string
}

// shape is env.Shape of a read phase: a read-only file's extents do not change, so each is
// queried once per opened file; the real readers query them once, before their timers,
// where the plans would otherwise open and close a dataset in every step.
func (s *Session) shape(p *phaseRun) func(string) ([]uint64, error) {
	return func(path string) ([]uint64, error) {
		k := shapeKey{p.opens, path}
		if d, ok := p.shapes[k]; ok {
			return slices.Clone(d), nil
		}
		d, err := s.stack.Shape(path)
		if err != nil {
			return nil, err
		}
		if p.shapes == nil {
			p.shapes = map[shapeKey][]uint64{}
		}
		p.shapes[k] = slices.Clone(d)
		return d, nil
	}
}

// preflight catches what would otherwise fail deep inside HDF5 on every rank: a missing
// output directory, a missing input file.
func (s *Session) preflight(ph patterns.Phase) error {
	if !s.stores {
		return nil
	}
	switch ph {
	case patterns.PhaseWrite:
		dir := filepath.Dir(s.cfg.File)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("h5proxy: write phase: output directory %q of file %q does not exist", dir, s.cfg.File)
		}
	case patterns.PhaseRead:
		if _, err := os.Stat(s.cfg.File); err != nil && !s.perRankFiles() && !s.rankFiles {
			return fmt.Errorf("h5proxy: read phase: input file %q: %w", s.cfg.File, err)
		}
	}
	return nil
}

// perRankFiles reports whether the pattern writes one file per rank (not at the
// configured path itself).
func (s *Session) perRankFiles() bool {
	type perRank interface{ FilePath(patterns.Env) string }
	if p, ok := s.pat.(perRank); ok {
		return p.FilePath(patterns.Env{Rank: s.Rank(), Size: s.Size(), Path: s.cfg.File}) != s.cfg.File
	}
	return false
}

// removeAfter deletes, outside the step's clock, the files the pattern's program deletes
// after the step: every rank's I/O done (a barrier), then rank 0 removes them.
func (s *Session) removeAfter(p *phaseRun, step int) error {
	c, ok := s.pat.(patterns.StepCleaner)
	if !ok {
		return nil
	}
	files := c.RemoveAfter(p.ph, step, p.env)
	if len(files) == 0 {
		return nil
	}
	if err := s.stack.Wait(); err != nil {
		return err
	}
	if err := s.comm.Barrier(); err != nil {
		return err
	}
	if s.Rank() != 0 || !s.stores {
		return nil
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// diskSize is patterns.Env.DiskSize: this rank's I/O completed, the ranks synchronized,
// the sizes on disk of the named files summed; ok is false when the layout keeps no file
// under these names.
func (s *Session) diskSize(paths []string) (int64, bool, error) {
	if err := s.stack.Wait(); err != nil {
		return 0, false, err
	}
	if err := s.comm.Barrier(); err != nil {
		return 0, false, err
	}
	if !s.stores {
		return 0, false, nil
	}
	var n int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return 0, false, nil
		}
		n += st.Size()
	}
	return n, true, nil
}

// filesSize is what the files rank 0 created or opened in the phase take on disk once
// closed (what H5Fget_filesize reports for a native file); 0 on other ranks, for layouts
// that store nothing and for files that are not there under their own names.
func (s *Session) filesSize(p *phaseRun) float64 {
	if s.Rank() != 0 || !s.stores {
		return 0
	}
	var n float64
	for _, f := range p.files {
		if st, err := os.Stat(f); err == nil {
			n += float64(st.Size())
		}
	}
	return n
}

// cleanup removes, on rank 0 after the phase's closing barrier, the files a pattern's
// program deletes when it ends (the exerciser without keepfile).
func (s *Session) cleanup(p *phaseRun) {
	c, ok := s.pat.(interface{ Cleanup(patterns.Env) []string })
	if !ok || !s.stores || s.Rank() != 0 {
		return
	}
	for _, f := range c.Cleanup(p.env) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn().Err(err).Str("file", f).Msg("removing the pattern's file")
		}
	}
}
