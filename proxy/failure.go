package proxy

// Failure handling: a failed phase aborted, named by its phase and file, and the failure
// agreed among the ranks or found to be this rank's alone.

import (
	"errors"
	"fmt"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
)

// fail aborts the running phase: every open object and file is closed so nothing leaks
// and the host can go on; the error is returned as is.
func (s *Session) fail(err error) error {
	if p := s.phase; p != nil {
		// A failure names the phase and the file it was writing or reading (the step and
		// operation come from the caller): with several files per phase (a file per step,
		// per-rank files), the configured path alone would not say which one.
		file := p.file
		var be *BackgroundError
		if errors.As(err, &be) && be.Step >= 0 && be.Step < len(p.stepFiles) {
			file = p.stepFiles[be.Step] // the step that failed in the background is past
		}
		if file == "" {
			file = s.cfg.File
		}
		err = &PhaseError{Phase: p.ph.String(), File: file, Err: err, Free: -1}
		if p.ph == patterns.PhaseWrite {
			err.(*PhaseError).Free = freeBytes(file)
		}
		p.failed = err
		s.phase = nil
	}
	if s.failedAlone() {
		// Closing the files is collective: it would wait for ever too. They stay open;
		// the host ends the job (h5proxy run does).
		s.alone = fmt.Errorf("%w: rank %d of %d: the other ranks did not fail within %v and wait in a collective call; its files are left open: end the job (MPI_Abort): %w",
			ErrFailedAlone, s.Rank(), s.Size(), failAgreeWithin, err)
		s.log.Error().Err(err).Msg("phase failed on this rank alone")
		return s.alone
	}
	if aerr := s.stack.Abort(); aerr != nil {
		s.log.Warn().Err(aerr).Msg("closing files after a failure")
	}
	s.log.Error().Err(err).Msg("phase failed")
	return err
}

// failAgreeWithin is how long a failed rank waits for the others to fail too.
const failAgreeWithin = 10 * time.Second

// failedAlone reports whether this rank failed and the others did not follow within
// failAgreeWithin. A failure seen by one rank only (a collective write whose error only
// its aggregator saw, a file system that filled under one rank) leaves the others in the
// next collective call, where they wait for ever; a failure every rank sees (a read-only
// directory, a missing input) agrees at once.
func (s *Session) failedAlone() bool {
	if s.Size() < 2 {
		return false
	}
	all, err := s.failComm.BarrierWithin(failAgreeWithin)
	return err == nil && !all
}

// ErrFailedAlone marks the failure of a phase on some ranks only: the others wait in a
// collective call. The session can only be closed (locally, its files left open); the
// host must end the job, with MPI_Abort (Comm.Abort), as h5proxy run does.
var ErrFailedAlone = errors.New("h5proxy: the phase failed on this rank alone")
