package main

/*
#cgo pkg-config: ompi
#cgo CFLAGS: -I${SRCDIR}/../include
#include <stdint.h>
#include <stdlib.h>
#include "h5p_internal.h"

typedef uint64_t h5proxy_session_t;
*/
import "C"

// The exported functions of include/h5proxy.h, in the header's order. Each one defers the
// panic guard first, converts its arguments and hands over to session.go.

//export h5proxy_abi_version
func h5proxy_abi_version() C.int { return abiVersion }

//export h5proxy_last_error
func h5proxy_last_error() *C.char { return C.h5p_error_get() }

//export h5proxy_last_error_copy
func h5proxy_last_error_copy(buf *C.char, n C.size_t, needed *C.size_t) C.int {
	// The stored message must survive this call: no fail() here.
	if C.h5p_error_copy(buf, n, needed) != 0 {
		return C.int(errInvalidArgument)
	}
	return C.int(statusOK)
}

//export h5proxy_strerror
func h5proxy_strerror(code C.int) *C.char { return C.h5p_strerror(code) }

//export h5proxy_patterns_list
func h5proxy_patterns_list(buf *C.char, n C.size_t, needed *C.size_t) (rc C.int) {
	const fn = "h5proxy_patterns_list"
	defer guard(fn, &rc)
	return copyOut(fn, patternsList(), buf, n, needed)
}

//export h5proxy_options_help
func h5proxy_options_help(pattern *C.char, buf *C.char, n C.size_t, needed *C.size_t) (rc C.int) {
	const fn = "h5proxy_options_help"
	defer guard(fn, &rc)
	name, ok := goString(pattern)
	if !ok {
		return fail(fn, errInvalidArgument, `pattern is NULL (pass a pattern name or "session")`)
	}
	text, code, err := optionsHelp(name)
	if err != nil {
		return failErr(fn, err, code)
	}
	return copyOut(fn, text, buf, n, needed)
}

//export h5proxy_finalize
func h5proxy_finalize() (rc C.int) {
	const fn = "h5proxy_finalize"
	defer guard(fn, &rc)
	return finalize(fn)
}

//export h5proxy_session_create
func h5proxy_session_create(comm C.MPI_Comm, pattern, opts, cfgFile *C.char, out *C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_session_create"
	defer guard(fn, &rc)
	if out == nil {
		return fail(fn, errInvalidArgument, "session (the output handle pointer) is NULL")
	}
	*out = 0
	if code, msg := mpiActive(); code != statusOK {
		return fail(fn, code, "%s", msg)
	}
	var isNull C.int
	f := C.h5p_comm_c2f(comm, &isNull)
	if isNull != 0 {
		return fail(fn, errInvalidArgument, "comm is MPI_COMM_NULL")
	}
	h, rc := createSession(fn, int(f), pattern, opts, cfgFile)
	*out = C.h5proxy_session_t(h)
	return rc
}

//export h5proxy_session_create_f
func h5proxy_session_create_f(comm C.MPI_Fint, pattern, opts, cfgFile *C.char, out *C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_session_create_f"
	defer guard(fn, &rc)
	if out == nil {
		return fail(fn, errInvalidArgument, "session (the output handle pointer) is NULL")
	}
	*out = 0
	if code, msg := mpiActive(); code != statusOK {
		return fail(fn, code, "%s", msg)
	}
	h, rc := createSession(fn, int(comm), pattern, opts, cfgFile)
	*out = C.h5proxy_session_t(h)
	return rc
}

//export h5proxy_session_close
func h5proxy_session_close(s C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_session_close"
	defer guard(fn, &rc)
	return closeSession(fn, uint64(s))
}

//export h5proxy_session_steps
func h5proxy_session_steps(s C.h5proxy_session_t, steps *C.int) (rc C.int) {
	const fn = "h5proxy_session_steps"
	defer guard(fn, &rc)
	return query(fn, uint64(s), steps, func(e *entry) int { return e.steps })
}

//export h5proxy_session_rank
func h5proxy_session_rank(s C.h5proxy_session_t, rank *C.int) (rc C.int) {
	const fn = "h5proxy_session_rank"
	defer guard(fn, &rc)
	return query(fn, uint64(s), rank, func(e *entry) int { return e.rank })
}

//export h5proxy_session_size
func h5proxy_session_size(s C.h5proxy_session_t, size *C.int) (rc C.int) {
	const fn = "h5proxy_session_size"
	defer guard(fn, &rc)
	return query(fn, uint64(s), size, func(e *entry) int { return e.size })
}

//export h5proxy_session_run
func h5proxy_session_run(s C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_session_run"
	defer guard(fn, &rc)
	return run(fn, uint64(s))
}

//export h5proxy_session_wait
func h5proxy_session_wait(s C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_session_wait"
	defer guard(fn, &rc)
	return wait(fn, uint64(s))
}

//export h5proxy_phase_begin
func h5proxy_phase_begin(s C.h5proxy_session_t, phase C.int) (rc C.int) {
	const fn = "h5proxy_phase_begin"
	defer guard(fn, &rc)
	return phaseBegin(fn, uint64(s), int(phase))
}

//export h5proxy_phase_step
func h5proxy_phase_step(s C.h5proxy_session_t, step C.int) (rc C.int) {
	const fn = "h5proxy_phase_step"
	defer guard(fn, &rc)
	return phaseStep(fn, uint64(s), int(step))
}

//export h5proxy_phase_end
func h5proxy_phase_end(s C.h5proxy_session_t) (rc C.int) {
	const fn = "h5proxy_phase_end"
	defer guard(fn, &rc)
	return phaseEnd(fn, uint64(s))
}

//export h5proxy_compute
func h5proxy_compute(s C.h5proxy_session_t, seconds C.double) (rc C.int) {
	const fn = "h5proxy_compute"
	defer guard(fn, &rc)
	return compute(fn, uint64(s), float64(seconds))
}

//export h5proxy_report_write
func h5proxy_report_write(s C.h5proxy_session_t, printSummary C.int) (rc C.int) {
	const fn = "h5proxy_report_write"
	defer guard(fn, &rc)
	return reportWrite(fn, uint64(s), printSummary != 0)
}

//export h5proxy_report_metric
func h5proxy_report_metric(s C.h5proxy_session_t, phaseIndex C.int, metric *C.char, value *C.double) (rc C.int) {
	const fn = "h5proxy_report_metric"
	defer guard(fn, &rc)
	name, ok := goString(metric)
	if !ok {
		return fail(fn, errInvalidArgument, "metric is NULL")
	}
	if value == nil {
		return fail(fn, errInvalidArgument, "value (the output pointer) is NULL")
	}
	v, code := reportMetric(fn, uint64(s), int(phaseIndex), name)
	if code == C.int(statusOK) {
		*value = C.double(v)
	}
	return code
}
