//go:build cgo

package main

import (
	"fmt"
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
// Every call of the ABI looks its handle up, so a lookup takes no lock and no hashing:
// the entries are a table indexed by sequence number (slot 0 unused), copied on each add
// and remove (rare: a session's create and close) and published whole; a lookup reads
// the current table with one atomic load and checks the slot's id.
type registry struct {
	mu      sync.Mutex // serializes add and remove
	entries atomic.Pointer[[]*entry]
}

var handles registry

// table returns the current table (nil before the first add).
func (r *registry) table() []*entry {
	if t := r.entries.Load(); t != nil {
		return *t
	}
	return nil
}

// add registers e under a new id of its kind and returns the id.
func (r *registry) add(e *entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.table()
	t := make([]*entry, max(len(old), 1)+1)
	copy(t, old)
	seq := uint64(len(t) - 1)
	e.id = uint64(e.kind)<<kindShift | seq
	t[seq] = e
	r.entries.Store(&t)
	return e.id
}

// get returns the live entry of handle h of kind k, or an error message saying why the
// handle is not valid.
func (r *registry) get(h uint64, k kind) (*entry, string) {
	if e := r.lookup(h, k); e != nil {
		return e, ""
	}
	return nil, r.diagnose(h, k, uint64(max(len(r.table()), 1)-1))
}

// lookup returns the live entry of handle h of kind k, or nil: get's fast path, small
// enough to be inlined into each call (an id carries its kind, so one comparison checks
// both).
func (r *registry) lookup(h uint64, k kind) *entry {
	t := r.entries.Load()
	if t == nil || h&seqMask >= uint64(len(*t)) || h>>kindShift != uint64(k) {
		return nil
	}
	if e := (*t)[h&seqMask]; e != nil && e.id == h {
		return e
	}
	return nil
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
	old := r.table()
	seq := h & seqMask
	if seq >= uint64(len(old)) || old[seq] == nil || old[seq].id != h {
		return false
	}
	t := append([]*entry(nil), old...)
	t[seq] = nil
	r.entries.Store(&t)
	return true
}

// all returns the live entries in creation order.
func (r *registry) all() []*entry {
	var out []*entry
	for _, e := range r.table() {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
