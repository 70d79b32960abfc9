//go:build cgo

package main

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/proxy"
)

// kind tags what a handle refers to. It is stored in the handle's top byte and in the
// entry, so a handle of the wrong kind is diagnosed as such.
type kind uint8

// Handle kinds.
const (
	kindSession kind = 1
)

// known reports whether k is a kind this library issues.
func (k kind) known() bool { return k == kindSession }

func (k kind) String() string {
	switch k {
	case kindSession:
		return "session"
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

const (
	kindShift = 56
	seqMask   = 1<<kindShift - 1
)

// entry is one live handle.
type entry struct {
	id   uint64
	kind kind
	// busy is set while a call uses the entry: a second concurrent call (another thread)
	// is refused instead of racing on a session that is not thread-safe.
	busy atomic.Bool

	sess *proxy.Session
	// Constant facts cached at creation, so the cheap queries involve no MPI call.
	rank, size, steps int
	computePerStep    time.Duration
	pattern, file     string
	// report is the last reduction, reused by report_metric until a phase begins or ends.
	report *proxy.Report
}

// registry maps handles to entries. Ids only increase and are never reused: a stale
// handle can never reach a newer object.
//
// Every call of the ABI looks its handle up, so a lookup takes no lock: the map is
// copied on each add and remove (rare: a session's create and close) and published
// whole, and a lookup reads the current copy with one atomic load.
type registry struct {
	mu      sync.Mutex // serializes add and remove
	last    atomic.Uint64
	entries atomic.Pointer[map[uint64]*entry]
}

var handles registry

// update publishes a copy of the entries changed by change. Called with r.mu held.
func (r *registry) update(change func(m map[uint64]*entry)) {
	m := map[uint64]*entry{}
	if old := r.entries.Load(); old != nil {
		for id, e := range *old {
			m[id] = e
		}
	}
	change(m)
	r.entries.Store(&m)
}

// add registers e under a new id of its kind and returns the id.
func (r *registry) add(e *entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.id = uint64(e.kind)<<kindShift | (r.last.Load() + 1)
	r.update(func(m map[uint64]*entry) { m[e.id] = e })
	r.last.Add(1)
	return e.id
}

// get returns the live entry of handle h of kind k, or an error message saying why the
// handle is not valid.
func (r *registry) get(h uint64, k kind) (*entry, string) {
	if m := r.entries.Load(); m != nil {
		if e := (*m)[h]; e != nil && e.kind == k {
			return e, ""
		}
	}
	return nil, r.diagnose(h, k, r.last.Load())
}

func (r *registry) diagnose(h uint64, k kind, last uint64) string {
	hk, seq := kind(h>>kindShift), h&seqMask
	switch {
	case h == 0:
		return fmt.Sprintf("%s handle 0 is never valid (did the create call succeed?)", k)
	case hk != k && hk.known():
		return fmt.Sprintf("handle %#x is a %s handle, not a %s handle", h, hk, k)
	case hk != k || seq > last:
		return fmt.Sprintf("%s handle %#x was never issued by this library", k, h)
	}
	return fmt.Sprintf("%s handle %#x is closed (by an earlier close or h5proxy_finalize)", k, h)
}

// acquire returns the entry of h for the duration of one call, marked busy; release it
// with e.busy.Store(false).
func (r *registry) acquire(h uint64, k kind) (*entry, status, string) {
	e, why := r.get(h, k)
	if e == nil {
		return nil, errInvalidHandle, why
	}
	if !e.busy.CompareAndSwap(false, true) {
		return nil, errState, fmt.Sprintf("%s handle %#x is in use by a call on another thread "+
			"(all calls on a session must come from one thread)", k, h)
	}
	return e, statusOK, ""
}

// remove unregisters h and reports whether it was registered.
func (r *registry) remove(h uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := false
	r.update(func(m map[uint64]*entry) {
		_, ok = m[h]
		delete(m, h)
	})
	return ok
}

// all returns the live entries in creation order.
func (r *registry) all() []*entry {
	var out []*entry
	if m := r.entries.Load(); m != nil {
		for _, e := range *m {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id&seqMask < out[j].id&seqMask })
	return out
}
