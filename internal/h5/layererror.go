package h5

import "fmt"

// LayerError is an error the HDF5 binding reports other than a failed library call (which is an
// *Error): invalid arguments, limits, missing build support. Callers classify errors by
// type (errors.As), never by message.
type LayerError struct{ err error }

func (e *LayerError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped cause, if any.
func (e *LayerError) Unwrap() error { return e.err }

// errorf returns a *LayerError with fmt.Errorf's message and wrapping.
func errorf(format string, a ...any) error { return &LayerError{fmt.Errorf(format, a...)} }
