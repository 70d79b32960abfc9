package main

import (
	"fmt"
	"io"

	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"
	"github.com/h5proxy/h5proxy/proxy/layout/subfilingvfd"
)

// cmdFuse turns a subfiled file into one plain HDF5 file (serial): the subfiling layout's
// master and subfiles, or the subfiling VFD's stub, .config and subfiles (the
// subfiling-vfd layout's, or any HDF5 1.14 program's).
func cmdFuse(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fuse", "fuse [-config-dir DIR] MASTER.h5 OUT.h5", stderr)
	configDir := fs.String("config-dir", "", "subfiling VFD files: the directory of the .config file (default: $"+subfilingvfd.EnvConfigDir+", else next to the file)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	in, out, err := inOut(fs.Args())
	if err != nil {
		return err
	}
	fuse := subfiling.Fuse
	if subfilingvfd.IsVFDFile(in, *configDir) {
		fuse = func(in, out string) error { return subfilingvfd.Fuse(in, out, *configDir) }
	}
	if err := fuse(in, out); err != nil {
		return fmt.Errorf("fuse %s into %s: %w", in, out, err)
	}
	fmt.Fprintf(stdout, "fused %s into %s\n", in, out)
	return nil
}
