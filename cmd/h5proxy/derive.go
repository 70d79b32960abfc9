package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/h5proxy/h5proxy/tools/derive"
)

// cmdDerive writes a description (docs/apps.md) of existing HDF5 files: h5proxy derive
// FILE.h5 [FILE.h5 ...] [-np N] [-o my-app.yaml]. Flags may come before or after the files.
func cmdDerive(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("derive", "derive FILE.h5 [FILE.h5 ...] [-np N] [-o my-app.yaml]", stderr)
	np := fs.Int("np", 1, "ranks the description decomposes each dataset over (a block over the slowest dimension)")
	out := fs.String("o", "", "write the description to this file (default: standard output)")
	var files []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		return usageError{error: fmt.Errorf("need at least one HDF5 file")}
	}
	if *np < 1 {
		return usageError{error: fmt.Errorf("flag -np value %d: need at least one rank", *np)}
	}
	for _, f := range files {
		if err := checkHDF5(f); err != nil {
			return err
		}
	}
	read, err := derive.Read(files)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := derive.Write(&b, read, derive.Options{Ranks: *np}); err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(b.Bytes())
		return err
	}
	return os.WriteFile(*out, b.Bytes(), 0o644)
}
