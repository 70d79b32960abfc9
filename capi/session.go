package main

/*
#cgo pkg-config: ompi
#cgo CFLAGS: -I${SRCDIR}/../include
#include <stdlib.h>
#include "h5p_internal.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/proxy"
)

// The calls behind the exports. Each takes the export's name for its messages, validates
// its handle through the registry and maps errors to status codes.

// maxComputeSeconds bounds h5proxy_compute's argument.
const maxComputeSeconds = 1e6

// mpiActive checks that MPI can be used, which the library never arranges itself.
func mpiActive() (status, string) {
	if !proxy.MPIInitialized() {
		return errMPI, "MPI is not initialized, or already finalized (the host must call MPI_Init or MPI_Init_thread first; h5proxy never initializes MPI)"
	}
	return statusOK, ""
}

// createSession builds and validates the configuration, then creates the session
// (collective) on the communicator with Fortran handle fcomm.
func createSession(fn string, fcomm int, pattern, opts, cfgFile *C.char) (uint64, C.int) {
	pat, _ := goString(pattern)
	text, _ := goString(opts)
	path, hasFile := goString(cfgFile)
	cfg, code, err := buildConfig(strings.TrimSpace(pat), text, path, hasFile)
	if err != nil {
		return 0, failErr(fn, err, code)
	}
	comm, err := proxy.CommFromFortran(fcomm)
	if err != nil {
		return 0, failErr(fn, fmt.Errorf("comm: %w", err), errMPI)
	}
	s, err := proxy.NewSession(comm, cfg)
	if err != nil {
		return 0, failErr(fn, err, errInternal)
	}
	e := &entry{kind: kindSession, sess: s, rank: s.Rank(), size: s.Size(), steps: s.Steps(),
		computePerStep: cfg.ComputePerStep, pattern: cfg.Pattern, file: cfg.File}
	return handles.add(e), C.int(statusOK)
}

// use runs body on the entry of session handle h, marked busy for the call.
func use(fn string, h uint64, body func(e *entry) C.int) C.int {
	e, code, why := handles.acquire(h, kindSession)
	if e == nil {
		return fail(fn, code, "%s", why)
	}
	defer e.busy.Store(false)
	return body(e)
}

// query writes one cached integer of a session: the no-op call of the ABI.
func query(fn string, h uint64, out *C.int, get func(e *entry) int) C.int {
	e := handles.lookup(h, kindSession)
	if e == nil {
		_, why := handles.get(h, kindSession)
		return fail(fn, errInvalidHandle, "%s", why)
	}
	if out == nil {
		return fail(fn, errInvalidArgument, "the output pointer is NULL")
	}
	*out = C.int(get(e))
	return C.int(statusOK)
}

func closeSession(fn string, h uint64) C.int {
	return use(fn, h, func(e *entry) C.int {
		handles.remove(h)
		if err := e.sess.Close(); err != nil {
			return failErr(fn, err, errInternal)
		}
		return C.int(statusOK)
	})
}

func run(fn string, h uint64) C.int {
	return use(fn, h, func(e *entry) C.int {
		e.report = nil
		if err := e.sess.Run(); err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func wait(fn string, h uint64) C.int {
	return use(fn, h, func(e *entry) C.int {
		if err := e.sess.Wait(); err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func phaseBegin(fn string, h uint64, phase int) C.int {
	return use(fn, h, func(e *entry) C.int {
		var ph proxy.Phase
		switch phase {
		case phaseWrite:
			ph = proxy.PhaseWrite
		case phaseRead:
			ph = proxy.PhaseRead
		default:
			return fail(fn, errInvalidArgument, "phase %d is neither H5PROXY_PHASE_WRITE (%d) nor H5PROXY_PHASE_READ (%d)", phase, phaseWrite, phaseRead)
		}
		e.report = nil
		if err := e.sess.BeginPhase(ph); err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func phaseStep(fn string, h uint64, step int) C.int {
	return use(fn, h, func(e *entry) C.int {
		if step < 0 || step >= e.steps {
			return fail(fn, errInvalidArgument, "step %d out of range: the session has %d steps (0..%d)", step, e.steps, e.steps-1)
		}
		if err := e.sess.Step(step); err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func phaseEnd(fn string, h uint64) C.int {
	return use(fn, h, func(e *entry) C.int {
		e.report = nil
		if err := e.sess.EndPhase(); err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func compute(fn string, h uint64, seconds float64) C.int {
	return use(fn, h, func(e *entry) C.int {
		if math.IsNaN(seconds) || math.IsInf(seconds, 0) || seconds > maxComputeSeconds {
			return fail(fn, errInvalidArgument, "seconds %g: want a number <= %g (negative: the configured compute_time)", seconds, float64(maxComputeSeconds))
		}
		d := e.computePerStep
		if seconds >= 0 {
			d = time.Duration(seconds * float64(time.Second))
		}
		e.sess.Compute(d)
		return C.int(statusOK)
	})
}

func reportWrite(fn string, h uint64, summary bool) C.int {
	return use(fn, h, func(e *entry) C.int {
		var out bytes.Buffer
		var w io.Writer
		if summary {
			w = &out
		}
		r, err := e.sess.WriteReports(w)
		if r != nil {
			e.report = r
		}
		if out.Len() > 0 {
			cs := C.CBytes(out.Bytes())
			rc := C.h5p_stdout_write((*C.char)(cs), C.size_t(out.Len()))
			C.free(cs)
			if rc != 0 && err == nil {
				err = fmt.Errorf("writing the summary to stdout failed")
			}
		}
		if err != nil {
			return failErr(fn, err, errIO)
		}
		return C.int(statusOK)
	})
}

func reportMetric(fn string, h uint64, index int, metric string) (v float64, rc C.int) {
	rc = use(fn, h, func(e *entry) C.int {
		if !slices.Contains(proxy.Metrics, metric) {
			return fail(fn, errInvalidArgument, "unknown metric %q; available: %s", metric, strings.Join(proxy.Metrics, ", "))
		}
		if index < 0 {
			return fail(fn, errInvalidArgument, "phase_index %d is negative", index)
		}
		if e.report == nil {
			r, err := e.sess.Report()
			if err != nil {
				return failErr(fn, err, errInternal)
			}
			e.report = r
		}
		if index >= len(e.report.Phases) {
			return fail(fn, errInvalidArgument, "phase_index %d out of range: %d phases finished", index, len(e.report.Phases))
		}
		v, _ = e.report.Phases[index].Metric(metric)
		return C.int(statusOK)
	})
	return v, rc
}

// patternsList is the text of h5proxy_patterns_list.
func patternsList() string { return strings.Join(proxy.PatternNames(), "\n") }

// optionsHelp is the text of h5proxy_options_help.
func optionsHelp(name string) (string, status, error) {
	var b bytes.Buffer
	if strings.EqualFold(name, "session") {
		b.WriteString("Session keys (shared by every pattern; h5bench spellings accepted as aliases):\n")
		if err := proxy.SessionOptions().WriteHelp(&b); err != nil {
			return "", errInternal, err
		}
		return b.String(), statusOK, nil
	}
	help, err := proxy.PatternHelp(name)
	if err != nil {
		return "", errConfig, fmt.Errorf("%w (or \"session\" for the session keys)", err)
	}
	return help, statusOK, nil
}

// finalize closes the sessions left open, in creation order, logging each leak.
func finalize(fn string) C.int {
	left := handles.all()
	if len(left) == 0 {
		return C.int(statusOK)
	}
	if !proxy.MPIInitialized() {
		for _, e := range left {
			handles.remove(e.id)
			if e.rank != 0 {
				continue
			}
			fmt.Fprintf(os.Stderr, "h5proxy: %s: dropping leaked session %#x (pattern %s, file %q, rank %d of %d) without closing it: MPI is already finalized\n",
				fn, e.id, e.pattern, e.file, e.rank, e.size)
		}
		return fail(fn, errMPI, "called after MPI_Finalize: %d leaked sessions were dropped without releasing their resources (call h5proxy_finalize before MPI_Finalize)", len(left))
	}
	rc := C.int(statusOK)
	for _, e := range left {
		if e.rank == 0 {
			fmt.Fprintf(os.Stderr, "h5proxy: %s: closing leaked session %#x (pattern %s, file %q, %d ranks)\n", fn, e.id, e.pattern, e.file, e.size)
		}
		if c := closeSession(fn, e.id); c != C.int(statusOK) && rc == C.int(statusOK) {
			rc = c
		}
	}
	return rc
}
