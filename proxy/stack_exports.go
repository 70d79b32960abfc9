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

// LayoutAvailable reports whether this build can run the registered layout name: nil, or
// an error naming the build that can, wrapping ErrUnsupported (subfiling-vfd without HDF5
// 1.14's subfiling VFD). Configurations selecting an unavailable layout are refused with
// that error.
func LayoutAvailable(name string) error {
	s, err := stack.LookupLayout(name)
	if err != nil || s.Available == nil {
		return err
	}
	return s.Available()
}
