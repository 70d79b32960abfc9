package proxy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	// Every built-in pattern is available to every program that uses the proxy.
	_ "github.com/h5proxy/h5proxy/patterns/all"
	// The layer that owns HDF5 access hands the e3sm pattern its map file reader: the
	// patterns import nothing that calls HDF5, nor anything of the proxy.
	_ "github.com/h5proxy/h5proxy/proxy/e3smmap"
)

// Phase is a phase of a session: the direction of its I/O. It is the session's word for
// what the patterns plan, so that the front ends (the C ABI, the command) need not name
// the patterns package.
type Phase = patterns.Phase

// The phases of a session.
const (
	PhaseWrite = patterns.PhaseWrite
	PhaseRead  = patterns.PhaseRead
)

// PatternNames lists the registered patterns, sorted.
func PatternNames() []string { return patterns.Names() }

// PatternHelp is a registered pattern's help: its name and summary, then its option
// table. The error for an unknown name (case is ignored) lists the registered ones.
func PatternHelp(name string) (string, error) {
	f, err := patterns.Lookup(name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %s\n\n", f.Name, f.Summary)
	if err := f.Options.WriteHelp(&b); err != nil {
		return "", err
	}
	if f.MoreHelp != nil {
		if err := f.MoreHelp(&b); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// A description's parameters share the option namespace with the session's keys: the
// description parser rejects a parameter named like one (it cannot import this package).
func init() {
	desc.SessionKey = func(name string) (string, bool) {
		s, ok := sessionTable.Lookup(name)
		if !ok {
			return "", false
		}
		if !strings.EqualFold(s.Key, name) {
			return s.Key + " (alias " + name + ")", true
		}
		return s.Key, true
	}
}
