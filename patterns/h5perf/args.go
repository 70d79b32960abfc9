package h5perf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Size units of h5perf's size directives (parse_size_directive).
const (
	KB = 1024
	MB = KB * KB
	GB = MB * KB
)

// API bits: the I/O interfaces h5perf tests, in its order (POSIX, MPI-IO, PHDF5).
const (
	POSIX = 1 << iota
	MPIO
	PHDF5
)

// APIs lists the interfaces in h5perf's run order with their -A names.
var APIs = []struct {
	Bit        int
	Name       string // the -A name and the api key's value
	Label      string // the report's "IO API = " text
	Layout     string // the h5proxy layout that carries it out
	FileSuffix string // the suffix of its data files (pio_create_filename)
}{
	{POSIX, "posix", "POSIX", "posix", ".posix"},
	{MPIO, "mpiio", "MPIO", "mpiio", ".mpio"},
	{PHDF5, "phdf5", "PHDF5 (w/MPI-IO driver)", "native", ".h5"},
}

// Args is an h5perf command line, with h5perf's defaults applied and its adjustments made
// (parse_command_line in pio_perf.c).
type Args struct {
	APIs         int    // bitmask of POSIX, MPIO, PHDF5 (default all)
	Output       string // -o: the report's file ("" stdout)
	NumDsets     int64  // -d, default 1
	NumFiles     int64  // -F, default 1
	NumBPP       int64  // -e, bytes per process per dataset: default 256K (1-D) or 8K (2-D)
	NumIters     int    // -i, default 1
	MaxProcs     int    // -P, default all processes (WorldSize)
	MinProcs     int    // -p, default 1
	MaxXfer      int64  // -X, default NumBPP
	MinXfer      int64  // -x, default NumBPP/2
	BlkSize      int64  // -B, default NumBPP/2
	Interleaved  bool   // -I
	Collective   bool   // -C
	Dim2D        bool   // -g
	PrintTimes   bool   // -D t
	PrintRaw     bool   // -D r
	Verify       bool   // -D v (h5proxy always verifies its reads)
	Debug        int    // -D 1..4
	Align        int64  // -a, default 1
	Threshold    int64  // -T, default 1
	Chunk        bool   // -c
	WriteOnly    bool   // -w
	ProcsDefault bool   // -P not given: the whole world
}

// ErrUsage is returned for -h (h5perf prints its usage and exits with a failure status).
var ErrUsage = errors.New("h5perf: usage requested")

// shortOpts is h5perf's option string; m, n, s and t are declared but have no case in its
// switch (they print the usage and fail like -h).
const shortOpts = "a:A:B:cCd:D:e:F:ghi:Imno:p:P:stT:wx:X:"

// longOpts are h5perf's long options in its table's order; a long argument matches the
// first name it starts with (H5_get_option compares the name's length only). interleaved
// and write-only are declared with a required argument although their short forms take
// none: "--interleaved" needs a value, as in h5perf.
var longOpts = []struct {
	name   string
	hasArg bool
	short  byte
}{
	{"align", true, 'a'}, {"api", true, 'A'}, {"block-size", true, 'B'}, {"chunk", false, 'c'},
	{"collective", false, 'C'}, {"debug", true, 'D'}, {"geometry", false, 'g'}, {"help", false, 'h'},
	{"interleaved", true, 'I'}, {"max-num-processes", true, 'P'}, {"min-num-processes", true, 'p'},
	{"max-xfer-size", true, 'X'}, {"min-xfer-size", true, 'x'}, {"num-bytes", true, 'e'},
	{"num-dsets", true, 'd'}, {"num-files", true, 'F'}, {"num-iterations", true, 'i'},
	{"output", true, 'o'}, {"threshold", true, 'T'}, {"write-only", true, 'w'},
}

// Parse reads an h5perf command line (without the program name) as h5perf does on a world
// of worldSize processes: short options (clustered, values attached or next), long
// options (--name=value or --name value), stopping at "--" or the first argument that is
// not an option. Errors carry h5perf's message; h5proxy is stricter in one place:
// an integer option whose value is not an integer is an error (h5perf's atoi reads 0).
// Pure Go, no MPI.
func Parse(args []string, worldSize int) (Args, error) {
	a := Args{NumDsets: 1, NumFiles: 1, NumIters: 1, MaxProcs: worldSize, MinProcs: 1, Align: 1, Threshold: 1, ProcsDefault: true}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" || len(arg) < 2 || arg[0] != '-' {
			break
		}
		if strings.HasPrefix(arg, "--") {
			name := arg[2:]
			found := false
			for _, l := range longOpts {
				if !strings.HasPrefix(name, l.name) {
					continue
				}
				found = true
				val, rest := "", name[len(l.name):]
				switch {
				case l.hasArg && strings.HasPrefix(rest, "="):
					val = rest[1:]
				case l.hasArg && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
					i++
					val = args[i]
				case l.hasArg:
					return a, fmt.Errorf("h5perf: option required for \"--%s\" flag", name)
				case strings.HasPrefix(rest, "="):
					return a, fmt.Errorf("h5perf: no option required for \"%s\" flag", name)
				}
				if err := a.set(l.short, val, "--"+l.name); err != nil {
					return a, err
				}
				break
			}
			if !found {
				return a, fmt.Errorf("h5perf: unknown option \"%s\"", name)
			}
			continue
		}
		for sp := 1; sp < len(arg); sp++ {
			c := arg[sp]
			k := strings.IndexByte(shortOpts, c)
			if c == ':' || k < 0 {
				return a, fmt.Errorf("h5perf: unknown option \"%c\"", c)
			}
			if k+1 < len(shortOpts) && shortOpts[k+1] == ':' {
				val := arg[sp+1:]
				if val == "" {
					if i+1 >= len(args) {
						return a, fmt.Errorf("h5perf: value expected for option \"%c\"", c)
					}
					i++
					val = args[i]
				}
				if err := a.set(c, val, "-"+string(c)); err != nil {
					return a, err
				}
				break
			}
			if err := a.set(c, "", "-"+string(c)); err != nil {
				return a, err
			}
		}
	}
	a.finish()
	return a, nil
}

// set applies one option; name is how the user spelled it, for errors.
func (a *Args) set(c byte, val, name string) error {
	var err error
	size := func(dst *int64) {
		if err == nil {
			*dst, err = ParseSize(val, name)
		}
	}
	integer := func() int64 {
		n, e := atoi(val, name)
		if e != nil && err == nil {
			err = e
		}
		return n
	}
	switch c {
	case 'a':
		size(&a.Align)
	case 'A':
		err = a.setAPIs(val)
	case 'B':
		size(&a.BlkSize)
	case 'c':
		a.Chunk = true
	case 'C':
		a.Collective = true
	case 'd':
		a.NumDsets = integer()
	case 'D':
		err = a.setDebug(val)
	case 'e':
		size(&a.NumBPP)
	case 'F':
		a.NumFiles = integer()
	case 'g':
		a.Dim2D = true
	case 'i':
		a.NumIters = int(integer())
	case 'I':
		a.Interleaved = true
	case 'o':
		a.Output = val
	case 'p':
		a.MinProcs = int(integer())
	case 'P':
		a.MaxProcs, a.ProcsDefault = int(integer()), false
	case 'T':
		size(&a.Threshold)
	case 'w':
		a.WriteOnly = true
	case 'x':
		size(&a.MinXfer)
	case 'X':
		size(&a.MaxXfer)
	case 'h':
		return ErrUsage
	default: // m, n, s, t: in h5perf's option string, without a case
		return fmt.Errorf("h5perf: option \"%c\" is declared but not implemented by h5perf (it prints its usage and exits): %w", c, ErrUsage)
	}
	return err
}

// listItems splits an -A or -D list as h5perf does: comma-separated items of at most 10
// alphanumeric characters (others are dropped).
func listItems(val string) []string {
	var out []string
	if val == "" {
		return nil
	}
	for _, it := range strings.Split(val, ",") {
		var b strings.Builder
		for _, r := range it {
			if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) && b.Len() < 10 {
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	if strings.HasSuffix(val, ",") { // h5perf stops at the string's end after a comma
		out = out[:len(out)-1]
	}
	return out
}

func (a *Args) setAPIs(val string) error {
	for _, it := range listItems(val) {
		ok := false
		for _, api := range APIs {
			if strings.EqualFold(it, api.Name) {
				a.APIs |= api.Bit
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("pio_perf: invalid --api option %s", it)
		}
	}
	return nil
}

func (a *Args) setDebug(val string) error {
	for _, it := range listItems(val) {
		if len(it) > 1 || (len(it) == 1 && it[0] >= '0' && it[0] <= '9') {
			n, err := strconv.Atoi(it)
			if err != nil {
				return fmt.Errorf("pio_perf: invalid --debug option %s", it)
			}
			a.Debug = min(max(n, 0), 4)
			continue
		}
		switch it {
		case "r":
			a.PrintRaw = true
		case "t":
			a.PrintTimes = true
		case "v":
			a.Verify = true
		default:
			return fmt.Errorf("pio_perf: invalid --debug option %s", it)
		}
	}
	return nil
}

// finish applies h5perf's defaults and silent adjustments after parsing.
func (a *Args) finish() {
	if a.NumBPP == 0 {
		a.NumBPP = 256 * KB
		if a.Dim2D {
			a.NumBPP = 8 * KB
		}
	}
	if a.MaxXfer == 0 {
		a.MaxXfer = a.NumBPP
	}
	if a.MinXfer == 0 {
		a.MinXfer = a.NumBPP / 2
	}
	if a.BlkSize == 0 {
		a.BlkSize = a.NumBPP / 2
	}
	if a.APIs == 0 {
		a.APIs = POSIX | MPIO | PHDF5
	}
	if !a.Dim2D {
		a.MinXfer = min(a.MinXfer, a.NumBPP)
		a.MaxXfer = min(a.MaxXfer, a.NumBPP)
	}
	a.MinXfer = min(a.MinXfer, a.MaxXfer)
	a.BlkSize = min(a.BlkSize, a.NumBPP)
	if a.MinProcs <= 0 {
		a.MinProcs = 1
	}
	if a.MaxProcs <= 0 {
		a.MaxProcs = 1
	}
	a.MinProcs = min(a.MinProcs, a.MaxProcs)
	if a.NumIters <= 0 {
		a.NumIters = 1
	}
}

// ParseSize reads h5perf's size directive: an integer, then optionally blanks and K, M or
// G (either case; what follows the unit is ignored). Anything else is h5perf's "Illegal
// size specifier"; a negative size, which h5perf would wrap, is refused.
func ParseSize(s, name string) (int64, error) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	var n int64
	if k > j {
		v, err := strconv.ParseInt(s[i:k], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("h5perf: %s value %q is out of range", name, s)
		}
		n = v
	} else {
		k = 0 // strtol consumed nothing: the whole string is the unit
	}
	rest := strings.TrimLeft(s[k:], " \t")
	if rest != "" {
		mult := map[byte]int64{'K': KB, 'k': KB, 'M': MB, 'm': MB, 'G': GB, 'g': GB}[rest[0]]
		if mult == 0 {
			return 0, fmt.Errorf("Illegal size specifier '%c'", rest[0])
		}
		if n > math.MaxInt64/mult || n < math.MinInt64/mult {
			return 0, fmt.Errorf("h5perf: %s value %q is out of range", name, s)
		}
		n *= mult
	}
	if n < 0 {
		return 0, fmt.Errorf("h5perf: %s value %q is negative (S is an integer >= 0 followed by a size indicator)", name, s)
	}
	return n, nil
}

// atoi reads an integer option. h5perf's atoi reads garbage as 0; h5proxy refuses it.
func atoi(s, name string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("h5perf: %s value %q is not an integer (N is an integer >= 0)", name, s)
	}
	return n, nil
}
