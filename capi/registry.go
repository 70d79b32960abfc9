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
type registry struct {
	mu      sync.RWMutex
	last    uint64 // last sequence number issued
	entries map[uint64]*entry
}

var handles = registry{entries: map[uint64]*entry{}}

// add registers e under a new id of its kind and returns the id.
func (r *registry) add(e *entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last++
	e.id = uint64(e.kind)<<kindShift | r.last
	r.entries[e.id] = e
	return e.id
}

// get returns the live entry of handle h of kind k, or an error message saying why the
// handle is not valid.
func (r *registry) get(h uint64, k kind) (*entry, string) {
	r.mu.RLock()
	e := r.entries[h]
	last := r.last
	r.mu.RUnlock()
	if e != nil && e.kind == k {
		return e, ""
	}
	return nil, r.diagnose(h, k, last)
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
	_, ok := r.entries[h]
	delete(r.entries, h)
	return ok
}

// all returns the live entries in creation order.
func (r *registry) all() []*entry {
	r.mu.RLock()
	out := make([]*entry, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id&seqMask < out[j].id&seqMask })
	return out
}
