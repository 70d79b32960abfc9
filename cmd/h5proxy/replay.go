package main

import (
	"fmt"
	"io"
	"path/filepath"

	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
)

// cmdReplay rewrites a log-layout file into the canonical layout (serial).
func cmdReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "replay LOG.h5 OUT.h5", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	in, out, err := inOut(fs.Args())
	if err != nil {
		return err
	}
	if err := logl.Replay(in, out); err != nil {
		return fmt.Errorf("replay %s into %s: %w", in, out, err)
	}
	fmt.Fprintf(stdout, "replayed %s into %s\n", in, out)
	return nil
}

// inOut checks an INPUT OUTPUT argument pair: two different paths, the input an HDF5 file.
func inOut(args []string) (string, string, error) {
	if len(args) != 2 {
		return "", "", usageError{error: fmt.Errorf("need an input and an output file, got %d arguments", len(args))}
	}
	in, out := args[0], args[1]
	if err := checkHDF5(in); err != nil {
		return "", "", err
	}
	a, _ := filepath.Abs(in)
	b, _ := filepath.Abs(out)
	if a == b {
		return "", "", usageError{error: fmt.Errorf("the output %q is the input", out)}
	}
	return in, out, nil
}
