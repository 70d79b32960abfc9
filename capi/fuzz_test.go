//go:build cgo

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
)

// cString is what the library sees of a Go string passed as a C string: the bytes before
// the first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// FuzzSessionStrings feeds the strings of h5proxy_session_create (pattern, options and
// the config file's contents; the file at a fixed path) and h5proxy_options_help to the
// functions the exports call: no input may panic; every rejection is a configuration-class
// status (never OK, PANIC or INTERNAL) with a message, and one from an option table names
// its key.
func FuzzSessionStrings(f *testing.F) {
	f.Add("vpic", "file=a.h5;TIMESTEPS=2", "", false)
	f.Add(" e3sm ", "MAP=x.h5\nfile=a.h5", "", false)
	f.Add("", "TIMESTEPS=3", `{"pattern":"vpic","session":{"file":"a.h5"},"options":{"TIMESTEPS":2}}`, true)
	f.Add("amrex", "mode=cache", `{"pattern":"vpic"}`, true)
	f.Add("vpic", "file=a\x00.h5;DIM_1=x", `[1,2]`, true)
	f.Add("session", "layout=subfiling;file=x.h5", `{"options":[]}`, true)
	f.Fuzz(func(t *testing.T, pattern, opts, doc string, useFile bool) {
		path := ""
		if useFile {
			path = filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		pat, text := strings.TrimSpace(cString(pattern)), cString(opts)
		cfg, code, err := buildConfig(pat, text, path, useFile)
		switch {
		case err == nil && code == statusOK:
			if cfg.Pattern == "" {
				t.Fatalf("buildConfig(%q, %q) accepted without a pattern", pat, text)
			}
		case err == nil || code == statusOK || code == errPanic || code == errInternal || err.Error() == "":
			t.Fatalf("buildConfig(%q, %q, %q) = %d, %v: want a classified error with a message", pat, text, doc, code, err)
		default:
			var oe *options.Error
			if errors.As(err, &oe) && !strings.Contains(err.Error(), strconv.Quote(oe.Key)) {
				t.Fatalf("buildConfig(%q, %q): error %q does not name key %q", pat, text, err, oe.Key)
			}
		}
		help, code, err := optionsHelp(pat)
		if (err == nil) != (code == statusOK) || (err == nil && help == "") || (err != nil && !strings.Contains(err.Error(), strconv.Quote(pat))) {
			t.Fatalf("optionsHelp(%q) = %d, %v and %d bytes", pat, code, err, len(help))
		}
	})
}
