package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/tools/concat"
)

// tableFlag collects one key of an options table given as a flag, in order, so that the
// table parses (units, ranges, enums) and reports errors as for every other key.
type tableFlag struct {
	key    string
	kvs    *[]options.KV
	isBool bool
}

func (f *tableFlag) String() string { return "" }

func (f *tableFlag) Set(v string) error {
	*f.kvs = append(*f.kvs, options.KV{Key: f.key, Value: v})
	return nil
}

// IsBoolFlag lets a bool key be given alone (-partition-key).
func (f *tableFlag) IsBoolFlag() bool { return f.isBool }

func cmdConcat(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("concat", "concat -o OUT.h5 [flags] INPUT.h5... (or -inputs LIST)", stderr)
	out := fs.String("o", "", "output file (required)")
	force := fs.Bool("f", false, "replace the output if it exists")
	list := fs.String("inputs", "", "file listing input files, one per line (# comments and blank lines skipped), before the INPUT arguments")
	np := fs.Int("np", 1, "number of ranks to launch with mpirun (inside an MPI launcher: ignored, the launcher's ranks run)")
	jsonOut := fs.String("json", "", "also write the breakdown as JSON to this file (rank 0)")
	quiet := fs.Bool("quiet", false, "do not print the breakdown")
	var kvs []options.KV
	for _, s := range concat.Table.Specs {
		// The flag package shows the first back-quoted word as the value's name.
		help := s.Help
		switch s.Kind {
		case options.Enum:
			help = "`" + strings.Join(s.Allowed, "|") + "`: " + help
		case options.Size:
			help = "`BYTES` (units: 1MiB, 64 K): " + help
		case options.Int:
			help = "`N`: " + help
		}
		help += " (default " + s.Default + ")"
		fs.Var(&tableFlag{key: s.Key, kvs: &kvs, isBool: s.Kind == options.Bool}, s.Key, help)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o, err := concat.Parse(kvs)
	if err != nil {
		return usageError{error: err}
	}
	o.Overwrite = *force
	if *out == "" {
		return usageError{error: errors.New("-o OUT.h5 is required")}
	}
	if *np < 1 {
		return usageError{error: fmt.Errorf("-np %d: the number of ranks must be at least 1", *np)}
	}
	inputs, err := concatInputs(*list, fs.Args())
	if err != nil {
		return usageError{error: err}
	}
	if !launch.Underneath() {
		// Checked once here rather than by every launched rank.
		if _, err := os.Stat(*out); err == nil && !*force {
			return fmt.Errorf("concat: output %s exists (-f replaces it)", *out)
		}
		for _, in := range inputs {
			if _, err := os.Stat(in); err != nil {
				return fmt.Errorf("concat: input %s: %w", in, errors.Unwrap(err))
			}
		}
		if *np > 1 {
			return relaunch(&job{ranks: *np, command: "concat"}, args, stdout, stderr)
		}
	}
	world, done, err := startRank("warn")
	if err != nil {
		return err
	}
	defer done()
	b, err := concat.Run(world.Fortran(), inputs, *out, o)
	if err != nil || world.Rank() != 0 {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "h5proxy concat: %s\n", *out)
		if err := b.WriteText(stdout); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return err
		}
		err = b.WriteJSON(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}

// concatInputs returns the inputs of the list file (if any) followed by the arguments.
func concatInputs(list string, args []string) ([]string, error) {
	var inputs []string
	if list != "" {
		f, err := os.Open(list)
		if err != nil {
			return nil, fmt.Errorf("-inputs %s: %w", list, errors.Unwrap(err))
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			inputs = append(inputs, line)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("-inputs %s: %w", list, err)
		}
	}
	inputs = append(inputs, args...)
	if len(inputs) == 0 {
		return nil, errors.New("no input files (give INPUT.h5 arguments or -inputs LIST)")
	}
	return inputs, nil
}
