package stack

import (
	"sync"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// GroupComms keeps the communicators of groups of consecutive ranks (the files of
// plan.FileSpec.GroupRanks) for a session: each (parent communicator, group size) is
// split once, at its first file open, and reused by every later open, as a program splits
// its communicator once and opens each step's file on it; the session frees them when it
// closes (MPI_Comm_free, before the host finalizes MPI). Safe for use from the caller's
// and a background mode's thread.
type GroupComms struct {
	mu     sync.Mutex
	comms  map[groupKey]mpi.Comm
	splits int
}

// groupKey names a split: the parent communicator and the group size.
type groupKey struct {
	parent mpi.Comm
	size   int
}

// Comm returns the communicator of this rank's group of size consecutive ranks of
// parent (ranks rank/size*size ..): split at its first use (collective over parent, as
// MPI_Comm_split is), the same afterwards. The caller must not free it.
func (g *GroupComms) Comm(parent mpi.Comm, size int) (mpi.Comm, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := groupKey{parent, size}
	if c, ok := g.comms[k]; ok {
		return c, nil
	}
	rank := parent.Rank()
	c, err := parent.Split(rank/size, rank)
	if err != nil {
		return c, err
	}
	if g.comms == nil {
		g.comms = map[groupKey]mpi.Comm{}
	}
	g.comms[k] = c
	g.splits++
	return c, nil
}

// Splits is the number of MPI_Comm_split calls made so far.
func (g *GroupComms) Splits() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.splits
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
