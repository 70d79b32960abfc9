package ior

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// short is one of IOR's single-letter options (parse_options.c: createGlobalOptions).
type short struct {
	key  string // the option's parameter (a key of Options)
	flag bool   // takes no argument (OPTION_FLAG)
}

// shorts are the letters h5proxy runs, with their parameters.
var shorts = map[byte]short{
	'a': {key: "api"}, 'A': {key: "refNum"}, 'b': {key: "blockSize"}, 'c': {key: "collective", flag: true},
	'C': {key: "reorderTasks", flag: true}, 'd': {key: "interTestDelay"}, 'e': {key: "fsync", flag: true},
	'F': {key: "filePerProc", flag: true}, 'g': {key: "intraTestBarriers", flag: true}, 'G': {key: "setTimeStampSignature"},
	'H': {key: "showHints", flag: true}, 'i': {key: "repetitions"}, 'J': {key: "setAlignment"}, 'k': {key: "keepFile", flag: true},
	'K': {key: "keepFileWithError", flag: true}, 'n': {key: "noFill", flag: true}, 'o': {key: "testFile"},
	'O': {}, 'Q': {key: "taskPerNodeOffset"}, 'r': {key: "readFile", flag: true}, 'R': {key: "checkRead", flag: true},
	's': {key: "segmentCount"}, 't': {key: "transferSize"}, 'U': {key: "hintsFileName"}, 'v': {key: "verbose", flag: true},
	'w': {key: "writeFile", flag: true}, 'W': {key: "checkWrite", flag: true}, 'x': {key: "singleXferAttempt", flag: true},
	'X': {key: "reorderTasksRandomSeed"}, 'Y': {key: "fsyncPerWrite", flag: true}, 'z': {key: "randomOffset", flag: true},
	'Z': {key: "reorderTasksRandom", flag: true}, 'V': {key: "useFileView", flag: true},
}

// longs are IOR 4's module options h5proxy runs (aiori-HDF5.c: HDF5_options;
// aiori-MPIIO.c: MPIIO_options for --mpiio.useFileView, IOR 3's -V), with their
// parameters: flags, and --hdf5.chunkSize, which IOR 4.0 declares a flag (chunks of one
// element) and h5proxy also takes as --hdf5.chunkSize=N.
var longs = map[string]short{
	"--hdf5.collectiveMetadata": {key: "collectiveMetadata", flag: true}, "--hdf5.noFill": {key: "noFill", flag: true},
	"--hdf5.chunkSize": {key: "chunkSize", flag: true}, "--hdf5.setAlignment": {key: "setAlignment"},
	"--hdf5.hintsFileName": {key: "hintsFileName"}, "--hdf5.showHints": {key: "showHints", flag: true},
	"--mpiio.useFileView": {key: "useFileView", flag: true},
}

// unsupported are IOR's other options, refused by name rather than as unknown.
var unsupported = map[string]string{
	"-D": "deadlineForStonewalling", "-E": "useExistingTestFile", "-f": "scriptFile", "-I": "individualDataSets",
	"-j": "outlierThreshold", "-l": "datapacket type", "-m": "multiFile", "-M": "memoryPerNode", "-N": "numTasks",
	"-p": "preallocate", "-P": "useSharedFilePointer", "-q": "quitOnError", "-S": "useStridedDatatype",
	"-T": "maxTimeDuration", "-u": "uniqueDir", "--dryRun": "dryRun",
}

// ArgError is a bad command line: IOR's option parser prints "Error invalid argument:
// ARG" then "Invalid options" (option.c); Reason says what is wrong with it.
type ArgError struct {
	Arg, Reason string
}

// Error returns IOR's two lines, the reason added to the first.
func (e *ArgError) Error() string {
	s := "Error invalid argument: " + e.Arg
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s + "\nInvalid options"
}

// ParseArgs reads an IOR command line (without the program name) as users type it: "-t
// 1m" or "-t1m" or "-t=1m", flags alone ("-F", "-C"), sizes with k, m or g suffixes
// (×1024^n, IOR's string_to_bytes), -O with comma-separated key=value directives, -v
// repeated. It returns the option values under Options' keys, the last of repeated
// options winning as in IOR. It checks the form of each value, not their combination:
// Parse does both.
func ParseArgs(args []string) ([]options.KV, error) {
	vals := map[string]string{}
	var order []string
	set := func(key, val string) {
		if _, ok := vals[key]; !ok {
			order = append(order, key)
		}
		vals[key] = val
	}
	verbose := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, ok := unsupported[a]; ok {
			return nil, &ArgError{Arg: a, Reason: name + " is not supported by h5proxy ior"}
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a, "=")
			o, ok := longs[name]
			switch {
			case !ok:
				return nil, &ArgError{Arg: a}
			case o.flag && !hasVal:
				set(o.key, "1")
				continue
			case o.flag && o.key != "chunkSize":
				return nil, &ArgError{Arg: a, Reason: name + " takes no value"}
			case !hasVal:
				if i+1 >= len(args) {
					return nil, &ArgError{Arg: a, Reason: "missing value"}
				}
				i++
				val = args[i]
			}
			v, err := value(o.key, val)
			if err != nil {
				return nil, &ArgError{Arg: name + "=" + val, Reason: err.Error()}
			}
			set(o.key, v)
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			return nil, &ArgError{Arg: a}
		}
		o, ok := shorts[a[1]]
		if !ok {
			if name, ok := unsupported[a[:2]]; ok {
				return nil, &ArgError{Arg: a, Reason: name + " is not supported by h5proxy ior"}
			}
			return nil, &ArgError{Arg: a}
		}
		if o.flag {
			if len(a) > 2 {
				return nil, &ArgError{Arg: a}
			}
			if a[1] == 'v' {
				verbose++
				set(o.key, strconv.Itoa(verbose))
				continue
			}
			set(o.key, "1")
			continue
		}
		val := strings.TrimPrefix(a[2:], "=")
		if len(a) == 2 {
			if i+1 >= len(args) {
				return nil, &ArgError{Arg: a, Reason: "missing value"}
			}
			i++
			val = args[i]
		}
		if a[1] == 'O' {
			if err := directives(val, set); err != nil {
				return nil, err
			}
			continue
		}
		v, err := value(o.key, val)
		if err != nil {
			return nil, &ArgError{Arg: a[:2] + " " + val, Reason: err.Error()}
		}
		set(o.key, v)
	}
	kvs := make([]options.KV, len(order))
	for i, k := range order {
		kvs[i] = options.KV{Key: k, Value: vals[k]}
	}
	return kvs, nil
}

// directives parses -O's "key=value,key=value" (parse_options.c: ParseLine): keys are
// IOR's parameter names, case-insensitive.
func directives(line string, set func(key, val string)) error {
	for _, d := range strings.Split(line, ",") {
		k, v, ok := strings.Cut(d, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return &ArgError{Arg: "-O " + line, Reason: fmt.Sprintf("Syntax error in configuration options: %s", d)}
		}
		s, known := Options.Lookup(k)
		if !known {
			return &ArgError{Arg: "-O " + line, Reason: fmt.Sprintf("Unrecognized parameter \"%s\"", k)}
		}
		val, err := value(s.Key, v)
		if err != nil {
			return &ArgError{Arg: "-O " + d, Reason: err.Error()}
		}
		set(s.Key, val)
	}
	return nil
}

// value checks one option value's form: sizes (k, m, g suffixes) become byte counts,
// integers must be integers (IOR's atoi would take "abc" for 0), the API must be one h5proxy
// runs.
func value(key, v string) (string, error) {
	s, _ := Options.Lookup(key)
	switch s.Kind {
	case options.Size:
		n, err := ParseSize(v)
		if err != nil {
			return "", err
		}
		return strconv.FormatUint(n, 10), nil
	case options.Int:
		if _, err := strconv.Atoi(v); err != nil {
			return "", fmt.Errorf("%s must be an integer", key)
		}
	case options.Bool:
		if _, ok := options.ParseBool(v); !ok {
			return "", fmt.Errorf("%s must be 0 or 1", key)
		}
	case options.Enum:
		for _, a := range s.Allowed {
			if strings.EqualFold(a, v) {
				return a, nil
			}
		}
		return "", fmt.Errorf("Could not load backend API %s; h5proxy ior runs %s", v, strings.Join(s.Allowed, ", "))
	}
	return v, nil
}

// ParseSize is IOR's string_to_bytes: a number with an optional k, m or g suffix (either
// case), ×1024^n.
func ParseSize(s string) (uint64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q is not a number", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	shift := 0
	switch strings.ToLower(s[i:]) {
	case "":
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	default:
		return 0, fmt.Errorf("size %q: unknown suffix %q (k, m or g)", s, s[i:])
	}
	if n > (^uint64(0))>>shift {
		return 0, fmt.Errorf("size %q overflows", s)
	}
	return n << shift, nil
}

// Parse reads an IOR command line into a validated Config: ParseArgs, the option table,
// then IOR's checks. It returns the warnings IOR prints when it resets a value.
func Parse(args []string) (Config, []string, error) {
	kvs, err := ParseArgs(args)
	if err != nil {
		return Config{}, nil, err
	}
	v, err := Options.Parse(kvs)
	if err != nil {
		var oe *options.Error
		if errors.As(err, &oe) {
			return Config{}, nil, &ArgError{Arg: letterOf(oe.Key) + " " + oe.Value, Reason: oe.Reason}
		}
		return Config{}, nil, err
	}
	return FromValues(v)
}

// letterOf is the option a key comes from: "-s" for segmentCount.
func letterOf(key string) string {
	for l, o := range shorts {
		if strings.EqualFold(o.key, key) {
			return "-" + string(l)
		}
	}
	return key
}
