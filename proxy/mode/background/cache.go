package background

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// The cache mode is modelled on the Cache VOL with node-local storage: a write copies the
// data into a memory-mapped file of the rank's own in node-local storage
// (<cache.path>/<file name>-cache/mmap-<rank>.dat, as the Cache VOL names it) and
// returns; the background migrates it to the target layout. Data stays cached after
// migration until capacity pressure evicts it (oldest first), so a later read of the same
// selection is served locally. When the cache is full of data not yet migrated the caller
// waits (measured); a write larger than the whole cache is written through synchronously.
func init() {
	stack.RegisterMode(stack.Strategy{Name: "cache-model", Caps: stack.Background, Options: Options,
		Summary:  "modelled on the Cache VOL: writes land in node-local storage and migrate in h5proxy's background thread; cached reads are served locally",
		Validate: cacheValidate,
		NewMode: func(under stack.Layout, env stack.Env) (stack.Mode, error) {
			return newCacheMode(under, env, "cache-model", "h5proxy's background thread (mode=cache-model)")
		}})
	stack.RegisterMode(stack.Strategy{Name: "cache", Caps: stack.Background, Options: Options,
		Summary: "through the Cache VOL (cache_ext) where HDF5_VOL_CONNECTOR loads it (or cache.connector=YES), else the cache-model, and the report says which ran",
		// Either way the copy is the write to node-local storage (the Cache VOL's too, into
		// its memory-mapped file), so async.write_memcpy=NO is refused before any choice.
		Validate: cacheValidate,
		NewMode: func(under stack.Layout, env stack.Env) (stack.Mode, error) {
			v := env.Setting()
			vol, why, err := cacheVOLChoice(v.String("cache.connector"))
			if err != nil {
				return nil, err
			}
			if vol == nil {
				return newCacheMode(under, env, "cache", "h5proxy's background thread (the cache-model: "+why+")")
			}
			return newCacheVOLMode(under, env, vol)
		}})
}

// cacheValidate refuses async.write_memcpy=NO: the cache mode's copy is its write.
func cacheValidate(v *options.Values) error {
	if !v.Bool("async.write_memcpy") {
		return &options.Error{Table: "session", Key: "async.write_memcpy", Value: "NO",
			Reason: "the cache mode always copies: its copy is the write to node-local storage", Allowed: "YES with mode=cache"}
	}
	return nil
}

// newCacheMode returns the cache model (mode names it in a refusal, impl in the report).
func newCacheMode(under stack.Layout, env stack.Env, mode, impl string) (stack.Mode, error) {
	if err := modelAllowed(mode); err != nil {
		return nil, err
	}
	v := env.Setting()
	store, err := newCacheStore(env.File, v.String("cache.path"), int(v.Int("cache.capacity")), env.SessionComm.Rank())
	if err != nil {
		return nil, err
	}
	m := newBackground(under, store, nil)
	m.impl = impl
	m.memLimit = v.Uint("async.mem_limit")
	comm := env.SessionComm
	m.local = func(op *plan.Op, buf []byte) (bool, error) {
		hit := store.lookup(op, buf)
		if hit && op.Collective {
			// Every rank must make the same collective call: serve locally only if all hit.
			all, err := comm.AllreduceInt64([]int64{1}, mpi.OpMin)
			if err != nil {
				return false, err
			}
			hit = all[0] == 1
		} else if op.Collective {
			if _, err := comm.AllreduceInt64([]int64{0}, mpi.OpMin); err != nil {
				return false, err
			}
		}
		if hit {
			m.hits.Add(1)
		}
		return hit, nil
	}
	return &cacheMode{asyncMode: m, store: store}, nil
}

// cacheMode is the background machinery with the cache store, which it tells which file
// each operation applies to: cached data is keyed by file too, since a pattern that writes
// one file per step (AMReX plotfiles) writes the same dataset paths and selections in
// every file.
type cacheMode struct {
	*asyncMode
	store *cacheStore
}

// Exec records file opens and closes, then submits op.
func (m *cacheMode) Exec(op *plan.Op, buf []byte) error {
	m.store.track(op)
	return m.asyncMode.Exec(op, buf)
}

// Abort forgets the open files, then aborts the background work.
func (m *cacheMode) Abort() error {
	m.store.mu.Lock()
	m.store.files.Reset()
	m.store.mu.Unlock()
	return m.asyncMode.Abort()
}

// cacheStore allocates write copies in the rank's cache file.
type cacheStore struct {
	mu       sync.Mutex
	cond     *sync.Cond
	dir      string
	path     string
	lock     *os.File // the cache file, held open with an exclusive flock until release
	mem      []byte
	entries  []*cacheEntry // insertion order, for FIFO eviction
	index    map[cacheKey]*cacheEntry
	used     int
	high     int
	blocked  time.Duration
	released bool
	// files are the open files as the caller's operations open, select and close them;
	// the current one names the file of cached data.
	files plan.OpenFiles
}

type cacheEntry struct {
	off, n     int
	key        cacheKey
	migrated   bool
	superseded bool
}

// cacheKey identifies cached data: the file, the dataset and the exact selection and
// element size.
type cacheKey struct {
	file string
	path string
	sel  string
	elem int
}

// keyOfTransfer is the key of op's data in the innermost open file. Called with s.mu held.
func (s *cacheStore) keyOfTransfer(op *plan.Op) cacheKey {
	t := op.Transfer
	return cacheKey{file: s.files.Current(), path: op.Path, sel: fmt.Sprint(t.FileShape, t.Selection.Blocks), elem: t.MemType.Size}
}

// track follows the caller's file opens, selections and closes.
func (s *cacheStore) track(op *plan.Op) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files.Apply(op)
}

// newCacheStore creates rank's cache file for file under the directory base.
func newCacheStore(file, base string, capacity, rank int) (*cacheStore, error) {
	if base == "" {
		base = os.TempDir()
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("config: key %q value %q: the cache directory does not exist", "cache.path", base)
	}
	name := filepath.Base(file)
	if name == "." || name == "/" || name == "" {
		name = "h5proxy"
	}
	dir := filepath.Join(base, name+"-cache")
	path := filepath.Join(dir, fmt.Sprintf("mmap-%d.dat", rank))
	// Opened without O_TRUNC and locked before it is sized: another run (or session) that
	// writes a file of the same name through the same cache directory maps this same
	// file, and truncating it under that run's mapping would end it with SIGBUS.
	// The directory is made again if the last store in it released it (and removed it)
	// between MkdirAll and the open.
	var f *os.File
	for try := 0; ; try++ {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		var err error
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
			break
		} else if !os.IsNotExist(err) || try == 3 {
			return nil, fmt.Errorf("cache: %w", err)
		}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("config: key %q value %q: the cache file %s is in use by another run writing a file named %s: give each run its own cache.path (%w)",
			"cache.path", base, path, name, err)
	}
	fail := func(err error) (*cacheStore, error) {
		os.Remove(path)
		os.Remove(dir) // only when empty, as in release
		f.Close()
		return nil, err
	}
	if err := f.Truncate(0); err != nil {
		return fail(fmt.Errorf("cache: emptying %s: %w", path, err))
	}
	if err := f.Truncate(int64(capacity)); err != nil {
		return fail(fmt.Errorf("cache: sizing %s to %d bytes: %w", path, capacity, err))
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, capacity, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return fail(fmt.Errorf("cache: mapping %s: %w", path, err))
	}
	s := &cacheStore{dir: dir, path: path, lock: f, mem: mem, index: map[cacheKey]*cacheEntry{}}
	s.cond = sync.NewCond(&s.mu)
	return s, nil
}

// stage allocates room for a write, evicting migrated entries oldest first and waiting
// for migrations when everything cached is still pending.
func (s *cacheStore) stage(op *plan.Op, n int) ([]byte, func(), error) {
	if n > len(s.mem) {
		return nil, nil, errTooBig
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	off := -1
	for {
		if off = s.gap(n); off >= 0 {
			break
		}
		if !s.evictOne() {
			s.cond.Wait()
		}
	}
	s.blocked += time.Since(start)
	e := &cacheEntry{off: off, n: n, key: s.keyOfTransfer(op)}
	if old := s.index[e.key]; old != nil {
		old.superseded = true // its migration may still be pending: dropped when done
		if old.migrated {
			s.remove(old)
		}
	}
	s.index[e.key] = e
	s.entries = append(s.entries, e)
	s.used += n
	s.high = max(s.high, s.used)
	return s.mem[off : off+n : off+n], func() {
		s.mu.Lock()
		e.migrated = true
		if e.superseded {
			s.remove(e)
		}
		s.mu.Unlock()
		s.cond.Broadcast()
	}, nil
}

// gap returns the lowest offset with n free bytes, or -1.
func (s *cacheStore) gap(n int) int {
	ext := make([]*cacheEntry, len(s.entries))
	copy(ext, s.entries)
	sort.Slice(ext, func(i, j int) bool { return ext[i].off < ext[j].off })
	at := 0
	for _, e := range ext {
		if e.off-at >= n {
			return at
		}
		at = e.off + e.n
	}
	if len(s.mem)-at >= n {
		return at
	}
	return -1
}

// evictOne drops the oldest migrated entry; false when none can go.
func (s *cacheStore) evictOne() bool {
	for _, e := range s.entries {
		if e.migrated {
			s.remove(e)
			return true
		}
	}
	return false
}

func (s *cacheStore) remove(e *cacheEntry) {
	for i, x := range s.entries {
		if x == e {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			s.used -= e.n
			break
		}
	}
	if s.index[e.key] == e {
		delete(s.index, e.key)
	}
}

// lookup copies cached data of the same dataset and selection into buf.
func (s *cacheStore) lookup(op *plan.Op, buf []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.index[s.keyOfTransfer(op)]
	if e == nil || e.n != len(buf) {
		return false
	}
	copy(buf, s.mem[e.off:e.off+e.n])
	return true
}

func (s *cacheStore) takeStats() (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	high, blocked := s.high, s.blocked
	s.high, s.blocked = s.used, 0
	return high, blocked
}

// release unmaps and deletes the rank's cache file (the data has been migrated: Close
// drains first).
func (s *cacheStore) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	syscall.Munmap(s.mem)
	// The file goes before its lock, so the next run to lock this name makes a new one.
	// The directory goes with the last file in it (rmdir refuses one that is not empty:
	// another rank's or session's file keeps it), so that runs without cache.path leave
	// nothing in the temporary directory; a store being made in it meanwhile makes it
	// again (newCacheStore).
	os.Remove(s.path)
	os.Remove(s.dir)
	s.lock.Close()
}
