package app

import (
	"fmt"
	"os"
	"sync"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// parsed caches the descriptions read from files, by path, contents and parameter
// overrides. A run asks for its description many times before the first operation (the
// option table of every configuration check, the session's, the pattern's own, once
// without and once with the overrides): each parse of a large description (NOvA's
// thousand datasets, E3SM's hundreds of variables) took tens of milliseconds per rank,
// which made a description start 1-2 s later than the built-in pattern it re-expresses.
// The contents are part of the key, so an edited file is parsed again. A parsed
// Description is not changed after Parse (its expression cache is safe for concurrent
// use), so patterns share it.
var parsed struct {
	mu sync.Mutex
	m  map[parseKey]*desc.Description
	// parses counts the parses made (not served from the cache): tests assert it.
	parses int
}

type parseKey struct{ path, data, overrides string }

// parsedMax bounds the cache: a sweep over a parameter parses one description per value.
const parsedMax = 64

// parseFile is desc.ParseFile, cached.
func parseFile(path string, ov []desc.Override) (*desc.Description, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("description: %w", err)
	}
	k := parseKey{path, string(b), fmt.Sprintf("%q", ov)}
	parsed.mu.Lock()
	defer parsed.mu.Unlock()
	if d, ok := parsed.m[k]; ok {
		return d, nil
	}
	parsed.parses++
	d, err := desc.Parse(path, b, ov)
	if err != nil {
		return nil, err
	}
	if parsed.m == nil || len(parsed.m) >= parsedMax {
		parsed.m = map[parseKey]*desc.Description{}
	}
	parsed.m[k] = d
	return d, nil
}
