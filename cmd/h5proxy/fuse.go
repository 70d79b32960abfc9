package main

import (
	"fmt"
	"io"

	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"
)

// cmdFuse turns a subfiled file (master and subfiles) into one plain HDF5 file (serial).
func cmdFuse(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fuse", "fuse MASTER.h5 OUT.h5", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	in, out, err := inOut(fs.Args())
	if err != nil {
		return err
	}
	if err := subfiling.Fuse(in, out); err != nil {
		return fmt.Errorf("fuse %s into %s: %w", in, out, err)
	}
	fmt.Fprintf(stdout, "fused %s into %s\n", in, out)
	return nil
}
