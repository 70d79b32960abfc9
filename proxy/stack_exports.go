package proxy

import "github.com/h5proxy/h5proxy/proxy/stack"

// BackgroundError is a failure of an operation that ran in the background (async and
// cache modes), reported at the next wait or close: it names the step, the operation and
// the object.
type BackgroundError = stack.BackgroundError

// Layouts lists the registered layouts.
func Layouts() []string { return stack.Layouts() }

// Modes lists the registered modes.
func Modes() []string { return stack.Modes() }
