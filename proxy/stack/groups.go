package stack

import (
	"sync"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// GroupComms keeps the communicators a session's file opens derive from its
// communicator: those of groups of consecutive ranks (the files of
// plan.FileSpec.GroupRanks), the subfiling layout's subfile groups, and the duplicate of
// MPI_COMM_SELF that per-rank files are opened on. Each is made once, at its first file
// open, and reused by every later open, as a program splits its communicator once and
// opens each step's file on it; the session frees them when it closes (MPI_Comm_free,
// before the host finalizes MPI). Safe for use from the caller's and a background mode's
// thread.
type GroupComms struct {
	mu    sync.Mutex
	comms map[groupKey]mpi.Comm
	// made counts the communicators made, by kind ("" the groups of GroupRanks, "self",
	// the layouts' own kinds): tests assert it.
	made map[string]int
}

// groupKey names a communicator: its kind, the parent communicator and the group size
// (or the layout's parameter of the split).
type groupKey struct {
	kind   string
	parent mpi.Comm
	size   int
}

// Comm returns the communicator of this rank's group of size consecutive ranks of
// parent (ranks rank/size*size ..): split at its first use (collective over parent, as
// MPI_Comm_split is), the same afterwards. The caller must not free it.
func (g *GroupComms) Comm(parent mpi.Comm, size int) (mpi.Comm, error) {
	return g.Keep("", parent, size, func() (mpi.Comm, error) {
		rank := parent.Rank()
		return parent.Split(rank/size, rank)
	})
}

// Self returns the session's duplicate of MPI_COMM_SELF, the communicator of per-rank
// files: duplicated at its first use (which involves no other rank), the same afterwards.
// The caller must not free it.
func (g *GroupComms) Self() (mpi.Comm, error) {
	return g.Keep("self", mpi.Self(), 1, mpi.Self().Dup)
}

// Keep returns the communicator of kind made from parent with parameter param: made by
// mk at its first use (collective as the split it does is), the same
// afterwards. The caller must not free it.
func (g *GroupComms) Keep(kind string, parent mpi.Comm, param int, mk func() (mpi.Comm, error)) (mpi.Comm, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := groupKey{kind, parent, param}
	if c, ok := g.comms[k]; ok {
		return c, nil
	}
	c, err := mk()
	if err != nil {
		return c, err
	}
	if g.comms == nil {
		g.comms, g.made = map[groupKey]mpi.Comm{}, map[string]int{}
	}
	g.comms[k] = c
	g.made[kind]++
	return c, nil
}

// Splits is the number of MPI_Comm_split calls made so far for groups of GroupRanks.
func (g *GroupComms) Splits() int { return g.Made("") }

// Made is the number of communicators of kind made so far.
func (g *GroupComms) Made(kind string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.made[kind]
}

// Free frees every communicator kept and forgets them; it returns the first error.
func (g *GroupComms) Free() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var first error
	for k, c := range g.comms {
		if err := c.Free(); err != nil && first == nil {
			first = err
		}
		delete(g.comms, k)
	}
	return first
}
