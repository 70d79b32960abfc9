package app

import (
	"sync"

	"github.com/h5proxy/h5proxy/patterns"
)

// writerRuns caches a restart reader's replays of the writers' runs. A reader plans
// each restart read more than once (the file it opens first, Begin's check of every
// read, then each read's step), and a reader of several files replays their writers for
// every read: without the cache each writer's whole write phase was replayed once per
// file, per read and per call. The runs held are those of one reader (its rank and rank
// count), so a process that plans many readers in turn (h5proxy plan, tests) keeps one
// reader's writers at a time.
type writerRuns struct {
	mu     sync.Mutex
	reader runKey
	runs   map[runKey]*sim
	// replays counts the writers' runs replayed (not served from the cache): tests
	// assert it.
	replays int
}

// runKey names a run: a rank of a rank count, with the file path and the seeds its
// plans depend on.
type runKey struct {
	rank, size int
	path       string
	seed       uint64 // the session's
	attrSeed   uint64 // the engine's (attribute values)
}

// writerRun returns the replayed run of writer wenv, as reader env reads it: made once
// per writer for a reader. The run is shared: its users set its scope's step before
// evaluating in it and change nothing else.
func (e *engine) writerRun(wenv, env patterns.Env) (*sim, error) {
	c := &e.writers
	c.mu.Lock()
	defer c.mu.Unlock()
	reader := runKey{env.Rank, env.Size, env.Path, env.Seed, e.seed}
	if c.runs == nil || c.reader != reader {
		c.reader, c.runs = reader, map[runKey]*sim{}
	}
	k := runKey{wenv.Rank, wenv.Size, wenv.Path, wenv.Seed, e.seed}
	if w, ok := c.runs[k]; ok {
		return w, nil
	}
	w, err := e.newSim(wenv)
	if err != nil {
		return nil, err
	}
	c.replays++
	if err := w.run(); err != nil {
		return nil, err
	}
	c.runs[k] = w
	return w, nil
}
