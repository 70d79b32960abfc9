package proxy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/internal/mpi"
)

// Layout is a terminal of the I/O stack: it carries out plan operations on storage, the
// way an HDF5 terminal VOL connector does. Implementations are not safe for concurrent use.
type Layout interface {
	// Exec performs one operation. buf holds the transfer's memory for reads and writes.
	Exec(op *plan.Op, buf []byte) error
	// Shape returns the extent of a dataset of the current file.
	Shape(path string) ([]uint64, error)
	// Abort releases every open object and file after a failure, best effort.
	Abort() error
}

// Mode is a passthrough above a layout (sync, async, cache), the way an HDF5 passthrough
// VOL connector stacks on a terminal one.
type Mode interface {
	Layout
	// Wait blocks until every operation issued so far has completed and returns the first
	// error of a background operation (then cleared: event-set semantics).
	Wait() error
	// Background reports whether operations complete on another thread.
	Background() bool
	// Prefetch starts a plan's operations that the caller will Exec later (read-ahead).
	Prefetch(pl *plan.Plan) error
	// InFlight is the number of staged bytes not yet written.
	InFlight() int
	// TakeStats returns and resets the background statistics of the phase.
	TakeStats() modeStats
	// Close stops background work after draining it.
	Close() error
}

// modeStats are a background mode's measurements of one phase.
type modeStats struct {
	busy        map[int]float64 // background execution seconds per step (-1: begin, >= steps: end)
	stagingHigh int             // staging bytes high-water mark
	blocked     float64         // seconds callers waited for staging room
	localReads  int             // reads served from node-local storage (cache mode)
}

// layoutEnv is what a layout needs from the session.
type layoutEnv struct {
	comm    Comm
	mpiInfo map[string]string
	// fileView makes the mpiio layout write through file views, as HDF5 does.
	fileView bool
	// cfg is the session's configuration (layout keys such as subfiling.count); nil in
	// layouts built outside a session.
	cfg *Config
}

type layoutFactory func(env layoutEnv) (Layout, error)
type modeFactory func(under Layout, env modeEnv) (Mode, error)

// modeEnv is what a mode needs from the session: the configuration and the session's
// communicator (for agreement between ranks; the layout has its own).
type modeEnv struct {
	cfg  *Config
	comm mpi.Comm
}

var (
	layouts = map[string]layoutFactory{}
	modes   = map[string]modeFactory{}
	// unavailable names strategies that are declared but not built, with the reason.
	unavailable = map[string]string{}
)

func registerLayout(name string, f layoutFactory) { layouts[name] = f }
func registerMode(name string, f modeFactory)     { modes[name] = f }

func lookupLayout(name string) (layoutFactory, error) {
	if f, ok := layouts[name]; ok {
		return f, nil
	}
	return nil, unknown("layout", name, layouts)
}

func lookupMode(name string) (modeFactory, error) {
	if f, ok := modes[name]; ok {
		return f, nil
	}
	return nil, unknown("mode", name, modes)
}

func unknown[T any](kind, name string, m map[string]T) error {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	if why := unavailable[kind+" "+name]; why != "" {
		return fmt.Errorf("config: key %q value %q: %s", kind, name, why)
	}
	return fmt.Errorf("config: key %q value %q: unknown %s; available: %s", kind, name, kind, strings.Join(names, ", "))
}

// Layouts lists the registered layout names.
func Layouts() []string { return keys(layouts) }

// Modes lists the registered mode names.
func Modes() []string { return keys(modes) }

func keys[T any](m map[string]T) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// syncMode issues every operation inline on the caller's thread.
type syncMode struct{ Layout }

func (syncMode) Wait() error               { return nil }
func (syncMode) Background() bool          { return false }
func (syncMode) Prefetch(*plan.Plan) error { return nil }
func (syncMode) InFlight() int             { return 0 }
func (syncMode) TakeStats() modeStats      { return modeStats{} }
func (syncMode) Close() error              { return nil }

func init() {
	registerMode("sync", func(under Layout, _ modeEnv) (Mode, error) { return syncMode{under}, nil })
}
