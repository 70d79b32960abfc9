package app

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// parsed caches the descriptions read from files. A run asks for its description many
// times before the first operation (the option table of every configuration check, the
// session's, the pattern's own, without and with the parameter overrides): each parse of
// a large description (NOvA's thousand datasets, E3SM's hundreds of variables) takes tens
// of milliseconds per rank, which made a description start later than the built-in
// pattern it re-expresses. So a file is read and parsed once (desc.Load) per path and
// identity (size, modification time, inode: a stat, not a read, keys a request; an
// edited file is parsed again), and each set of overrides expands that one parse
// (desc.With) once. A Description is not changed after With (its expression cache is
// safe for concurrent use), so patterns share it.
var parsed struct {
	mu sync.Mutex
	m  map[fileKey]*loaded
	// parses counts the files read and parsed (not served from the cache): tests assert it.
	parses int
}

// fileKey names one version of a description file without reading it.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
	inode uint64
}

// loaded is one parsed file and its expansions by overrides.
type loaded struct {
	d    *desc.Description
	with map[string]*desc.Description
}

// parsedMax bounds the cache: a sweep over a parameter expands one description per value.
const parsedMax = 64

// loadFile returns the description at path as desc.Load returns it (its parameters
// before overrides: what the option table lists), read and parsed once per version.
func loadFile(path string) (*loaded, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("description: %w", err)
	}
	k := fileKey{path: path, size: st.Size(), mtime: st.ModTime(), inode: inodeOf(st)}
	parsed.mu.Lock()
	defer parsed.mu.Unlock()
	if l := parsed.m[k]; l != nil {
		return l, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("description: %w", err)
	}
	parsed.parses++
	d, err := desc.Load(path, b)
	if err != nil {
		return nil, err
	}
	if parsed.m == nil || len(parsed.m) >= parsedMax {
		parsed.m = map[fileKey]*loaded{}
	}
	l := &loaded{d: d, with: map[string]*desc.Description{}}
	parsed.m[k] = l
	return l, nil
}

// parseFile is desc.ParseFile, cached: the file parsed once (loadFile), expanded once per
// set of overrides.
func parseFile(path string, ov []desc.Override) (*desc.Description, error) {
	l, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	return l.expand(ov)
}

// expand returns l's description with overrides ov, made once.
func (l *loaded) expand(ov []desc.Override) (*desc.Description, error) {
	key := fmt.Sprintf("%q", ov)
	parsed.mu.Lock()
	defer parsed.mu.Unlock()
	if d, hit := l.with[key]; hit {
		return d, nil
	}
	d, err := l.d.With(ov)
	if err != nil {
		return nil, err
	}
	if len(l.with) >= parsedMax {
		clear(l.with)
	}
	l.with[key] = d
	return d, nil
}

// inodeOf returns a file's inode number (0 where the system does not say): a file
// replaced by another of the same size and time is still a new version.
func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}

// MPIThreadLevel is the MPI thread level `h5proxy run` asks for the description at path
// (its mpi_thread key; multiple without), read through the same once-per-process parse.
func MPIThreadLevel(path string) (string, error) {
	l, err := loadFile(path)
	if err != nil {
		return "", err
	}
	return l.d.MPIThreadLevel(), nil
}

// DefaultRanks is the number of ranks `h5proxy run` launches for the description at path
// when no -np is given (its ranks key; 1 without), read through the same once-per-process
// parse the pattern uses.
func DefaultRanks(path string) (int, error) {
	l, err := loadFile(path)
	if err != nil {
		return 0, err
	}
	return l.d.DefaultRanks(), nil
}
