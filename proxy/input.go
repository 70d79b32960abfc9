package proxy

import (
	"fmt"
	"os"

	"github.com/h5proxy/h5proxy/internal/libc"
	"github.com/h5proxy/h5proxy/patterns"
)

// InputFile is a file the program's launcher writes before starting it: h5bench's runner
// writes each C++ kernel's input file from the configuration (amrex.ini, openpmd.input).
type InputFile struct {
	Path, Text string
}

// readInput makes the program's read of its input file (patterns.InputReader), once per
// session, before the first phase: rank 0 first writes the launcher's files (Config.Inputs)
// through Go, as the launcher's writes are no I/O of the program, then the ranks read the
// pattern's input with the calls of the program's C++ streams. Collective; a failure on
// any rank fails every rank.
func (s *Session) readInput() error {
	if s.inputRead {
		return nil
	}
	s.inputRead = true
	var err error
	if s.Rank() == 0 {
		for _, f := range s.cfg.Inputs {
			if err = os.WriteFile(f.Path, []byte(f.Text), 0o644); err != nil {
				err = fmt.Errorf("writing the program's input file: %w", err)
				break
			}
		}
	}
	if err = s.comm.Agree(err, "writing the input file"); err != nil {
		return err
	}
	r, ok := s.pat.(patterns.InputReader)
	if !ok {
		return nil
	}
	path, how := r.InputFile()
	if path == "" {
		return nil
	}
	switch how {
	case patterns.InputWholeOnRoot:
		// ReadAndBcastFile: the I/O rank reads, then broadcasts the length and the bytes.
		var data []byte
		if s.Rank() == 0 {
			data, err = libc.ReadWhole(path)
		}
		if err = s.comm.Agree(err, "reading the input file"); err == nil {
			_, err = s.comm.BcastBytes(data, 0)
		}
	case patterns.InputLinesOnEveryRank:
		_, err = libc.ReadLines(path)
		err = s.comm.Agree(err, "reading the input file")
	default:
		err = fmt.Errorf("pattern %s: input file %s: no such way of reading it (%d)", s.pat.Name(), path, how)
	}
	if err != nil {
		return fmt.Errorf("input_file=%s: %w", path, err)
	}
	return nil
}

// phaseReads makes the pattern's reads around phase ph (patterns.PhaseReader) on rank 0:
// those before its file is created or opened, or those after it is closed. A file that
// cannot be read is skipped, as the program skips a stream that did not open.
func (s *Session) phaseReads(ph patterns.Phase, after bool) {
	r, ok := s.pat.(patterns.PhaseReader)
	if !ok || s.Rank() != 0 {
		return
	}
	files, afterFiles := r.PhaseReads(ph)
	if after {
		files = afterFiles
	}
	for _, f := range files {
		_, _ = libc.ReadLines(f) // the program prints what it read; h5proxy has no use for it
	}
}
