// Package subfilingvfd is the subfiling-vfd layout: the native layout's file written and
// read through HDF5 1.14's subfiling VFD (a stub file, a .config file and subfiles the
// VFD's I/O concentrators stripe the logical file over), with its settings as keys; Fuse
// turns the VFD's files into one plain HDF5 file, as HDF5's h5fuse does.
//
// The layout needs an h5proxy built against HDF5 1.14 with the subfiling VFD
// (HDF5=1.14 make build): on any other build it is refused when the configuration is
// validated. It needs MPI_THREAD_MULTIPLE (stack.ThreadMultiple): the VFD's I/O
// concentrator threads call MPI.
package subfilingvfd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/native"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Name is the layout's name.
const Name = "subfiling-vfd"

// The VFD's environment variables (H5FDsubfiling.h, H5FDioc.h of HDF5 1.14.5).
const (
	EnvStripeSize   = "H5FD_SUBFILING_STRIPE_SIZE"
	EnvIOCPerNode   = "H5FD_SUBFILING_IOC_PER_NODE"
	EnvIOCSelection = "H5FD_SUBFILING_IOC_SELECTION_CRITERIA"
	EnvSubfileDir   = "H5FD_SUBFILING_SUBFILE_PREFIX"
	EnvConfigDir    = "H5FD_SUBFILING_CONFIG_FILE_PREFIX"
	EnvThreadPool   = "H5FD_IOC_THREAD_POOL_SIZE"
)

// Keys of the layout's option table.
const (
	KeyStripeSize  = "subfiling_vfd.stripe_size"
	KeyIOCPerNode  = "subfiling_vfd.ioc_per_node"
	KeyStripeCount = "subfiling_vfd.stripe_count"
	KeyThreadPool  = "subfiling_vfd.thread_pool"
	KeySubfileDir  = "subfiling_vfd.subfile_dir"
	KeyConfigDir   = "subfiling_vfd.config_dir"
	KeyStall       = "subfiling_vfd.stall_timeout"
)

// Options are the layout's keys. Defaults are the VFD's; a key not given takes the value
// of the environment variable the VFD reads, when it is set (as the VFD itself would).
var Options = &options.Table{Name: Name, Specs: []options.Spec{
	{Key: KeyStripeSize, Kind: options.Size, Default: "32MiB", Min: options.Bound(1),
		Help: "subfiling-vfd layout: bytes of each stripe of the logical file (positive; the VFD's default 32 MiB; environment " + EnvStripeSize + ")"},
	{Key: KeyIOCPerNode, Kind: options.Int, Default: "1", Min: options.Bound(1),
		Help: "subfiling-vfd layout: I/O concentrators (and so subfiles) per node; the VFD uses at most every rank of a node (environment " + EnvIOCPerNode + ")"},
	{Key: KeyStripeCount, Kind: options.Int, Default: "0", Min: options.Bound(0),
		Help: "subfiling-vfd layout: at most this many subfiles (H5FD_subfiling_config_t's stripe_count); 0: one per I/O concentrator"},
	{Key: KeyThreadPool, Kind: options.Int, Default: "4", Min: options.Bound(1),
		Help: "subfiling-vfd layout: worker threads of each I/O concentrator (H5FD_ioc_config_t's thread_pool_size; environment " + EnvThreadPool + ")"},
	{Key: KeySubfileDir, Kind: options.String, Default: "",
		Help: "subfiling-vfd layout: existing, writable directory of the subfiles; empty: next to the file (environment " + EnvSubfileDir + ")"},
	{Key: KeyConfigDir, Kind: options.String, Default: "",
		Help: "subfiling-vfd layout: existing, writable directory of the .config file; empty: next to the file (environment " + EnvConfigDir + ")"},
	{Key: KeyStall, Kind: options.Duration, Default: "10 min", Min: options.Bound(0),
		Help: "subfiling-vfd layout: an operation on a shared file that has not returned after this long ends the job with an error naming it (the VFD can lose a failed write and wait forever); 0: wait"},
}}

// envOf maps the keys the VFD also reads from the environment to their variables.
var envOf = map[string]string{KeyStripeSize: EnvStripeSize, KeyIOCPerNode: EnvIOCPerNode, KeyThreadPool: EnvThreadPool,
	KeySubfileDir: EnvSubfileDir, KeyConfigDir: EnvConfigDir}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: Name, Caps: stack.StoresData | stack.Subfiles | stack.ThreadMultiple | stack.MemorySpaces, Options: Options,
		Summary:      "the native file through HDF5 1.14's subfiling VFD: a stub, a .config and subfiles striped by I/O concentrator threads (HDF5=1.14 builds)",
		Available:    Available,
		Validate:     func(v *options.Values) error { _, err := Resolve(v); return err },
		CheckDataset: CheckDataset,
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			s, err := Resolve(env.Setting())
			if err != nil {
				return nil, err
			}
			l := &vfdLayout{env: env, s: s}
			if env.Comm.Rank() == 0 {
				if w := Oversubscribed(env.Comm.Size(), runtime.NumCPU(), s, os.Getenv(EnvYield)); w != "" {
					warnOnce.Do(func() { fmt.Fprintln(os.Stderr, "h5proxy: warning:", w) })
				}
			}
			return &guarded{Layout: native.New(env, l.open), rank: env.Comm.Rank(), size: env.Comm.Size(), subfileDir: s.SubfileDir, stall: s.Stall,
				abort: func(msg string) {
					fmt.Fprintln(os.Stderr, "h5proxy:", msg)
					env.Comm.Abort(1)
				}}, nil
		}})
}

// EnvYield is OpenMPI's MCA parameter that makes a rank waiting in MPI give up its core
// (sched_yield) instead of polling.
const EnvYield = "OMPI_MCA_mpi_yield_when_idle"

var warnOnce sync.Once

// Oversubscribed returns a warning when ranks ranks and their I/O concentrators' threads
// (1 + thread_pool per concentrator, every one polling MPI) outnumber the cpus of one
// node and waiting ranks poll too (yield, the value of EnvYield, is unset or 0); "" when
// they fit or ranks yield. Each request a rank sends then waits for a concentrator
// thread's time slice: E3SM's canonical write (71,256 small runs per rank) through the
// VFD at 2 ranks on 2 cores took 159 s, and 17 s with OMPI_MCA_mpi_yield_when_idle=1
// (docs/studies.md). h5proxy does not set it: the real program on that node pays the same.
func Oversubscribed(ranks, cpus int, s Settings, yield string) string {
	iocs := min(max(s.IOCPerNode, 1), ranks)
	threads := iocs * (1 + max(s.ThreadPool, 1))
	if ranks+threads <= cpus || (yield != "" && yield != "0") {
		return ""
	}
	return fmt.Sprintf("subfiling-vfd: %d ranks and %d I/O concentrator threads poll MPI on %d cores, so each request waits for a time slice (E3SM's small writes at 2 ranks on 2 cores: 159 s, against 17 s when ranks yield); %s=1 makes waiting ranks yield their core", ranks, threads, cpus, EnvYield)
}

// ErrFiltered is wrapped by the refusal of a filtered dataset in a file shared by more
// than one rank (CheckDataset).
var ErrFiltered = errors.New("subfiling-vfd layout: filtered datasets need collective writes, which the subfiling VFD does not do")

// ErrChunkFill is wrapped by the refusal of a chunked dataset with a fill value in a
// file shared by more than one rank (CheckDataset): see guarded.Exec.
var ErrChunkFill = errors.New("subfiling-vfd layout: HDF5 1.14.5 writes a new chunk's fill value through the I/O concentrators unordered with the other ranks' writes into it, so a rank's data can read back as the fill")

// guarded runs the native layout's operations through the VFD around two faults of HDF5
// 1.14.5's VFD, a chunk's fill racing the ranks' writes and a full file system hanging
// the writer, which the doc comments of Exec's cases describe.
type guarded struct {
	stack.Layout
	rank, size int    // the layout's communicator
	subfileDir string // the subfiles' directory; "": the file's
	shared     bool   // the file last created or opened is opened through the VFD
	ranks      int    // how many ranks share it (plan.FileSpec.Ranks)
	dir        string // the directory of its subfiles
	// stall, when > 0, bounds an operation on a shared file: past it, abort is called
	// with a message naming the operation (it ends the job: the operation cannot be
	// interrupted).
	stall time.Duration
	abort func(msg string)
}

// EventSets passes the native layout's capability on (stack.EventSetter): the VFD's files
// are made with the same HDF5 object calls, which mode=async issues as their _async forms
// into event sets (async.event_sets).
func (u *guarded) EventSets() bool {
	l, ok := u.Layout.(stack.EventSetter)
	return ok && l.EventSets()
}

// SpaceMargin is the free space a write through the VFD must leave on the subfiles' file
// system (for the metadata HDF5 writes at flush and close): see guarded.Exec.
const SpaceMargin = 64 << 10

// ErrNoSpace is wrapped by the refusal of a write that would leave less than
// SpaceMargin free on the subfiles' file system; it wraps syscall.ENOSPC.
var ErrNoSpace = fmt.Errorf("subfiling-vfd layout: no space left for the write (%w)", syscall.ENOSPC)

// Exec runs op after these adjustments.
//
// A chunked dataset created in a shared file at more than one rank gets
// H5D_FILL_TIME_NEVER, unless it has a fill value (which CheckDataset refuses) or leaves
// it undefined. In parallel HDF5 allocates a chunked dataset's chunks when it creates or
// extends it and writes their fill values then (H5D__chunk_collective_fill, a vector
// write since HDFGroup/hdf5 pull request 3826), relying on the MPI-IO driver, whose write
// is in the file when it returns, to put the fill before the ranks' data. Through the
// subfiling VFD a write returns once the concentrator has its request, and the fill of a
// chunk can reach the subfile after another rank's write into that chunk: two ranks
// writing one chunk each read back a zero where one rank's value was, in 2 to 4 runs of 5
// (HDF5 1.14.5, a chunk of 2 elements written by 2 ranks; never with a chunk per rank, a
// contiguous dataset, fill_time never or an undefined fill value). Without the fill
// write the unwritten elements of new chunks read as zeros all the same: the chunks are
// new space of new subfiles. The file's fill time (its only difference from the native
// layout's) says never.
//
// A write into a shared file is refused (ErrNoSpace) when the subfiles' file system has
// less free space than the write's bytes plus SpaceMargin: HDF5 1.14.5's I/O
// concentrator does not send a failed pwrite (ENOSPC) back to the rank whose data it
// was, whose H5Dwrite then waits forever. The check is per rank and a bound, not a
// reservation: ranks writing at once may together still fill the file system.
//
// An operation on a shared file that has not returned after the stall timeout
// (subfiling_vfd.stall_timeout) ends the job with an error naming it: a write whose
// concentrator lost its failure (a file system the check above did not see fill, the
// metadata written at close) would otherwise wait forever.
func (u *guarded) Exec(op *plan.Op, buf []byte) error {
	if err := u.prepare(&op, buf); err != nil {
		return err
	}
	if u.shared && u.stall > 0 && u.abort != nil {
		start := time.Now()
		t := time.AfterFunc(u.stall, func() {
			u.abort(fmt.Sprintf("subfiling-vfd layout: %s %s has not returned after %v (since %s; subfiling_vfd.stall_timeout): HDF5 1.14.5's I/O concentrator can lose a failed write (a full file system) and leave the rank waiting forever; ending the job",
				op.Kind, op.Path, u.stall, start.Format(time.TimeOnly)))
		})
		defer t.Stop()
	}
	return u.Layout.Exec(op, buf)
}

// prepare applies Exec's adjustments to *op (replaced by a copy when changed) and checks
// the free space of a write.
func (u *guarded) prepare(opp **plan.Op, buf []byte) error {
	op := *opp
	switch {
	case (op.Kind == plan.CreateFile || op.Kind == plan.OpenFile) && op.File != nil:
		u.shared, u.ranks, u.dir = op.File.Parallel, op.File.Ranks(u.rank, u.size), u.subfileDir
		if u.dir == "" {
			u.dir = filepath.Dir(op.Path)
		}
	case op.Kind == plan.CreateDataset && u.shared && u.ranks > 1 && op.Dataset != nil && op.Dataset.Chunk != nil &&
		!op.Dataset.FillNever && !op.Dataset.FillUndefined && op.Dataset.FillValue == nil:
		o, d := *op, *op.Dataset
		d.FillNever = true
		o.Dataset = &d
		*opp = &o
	case op.Kind == plan.Write && u.shared:
		var st unix.Statfs_t
		if err := unix.Statfs(u.dir, &st); err == nil {
			if free, need := int64(st.Bavail)*st.Bsize, int64(len(buf)); free < need+SpaceMargin {
				return fmt.Errorf("%w: %s has %d bytes free, the write needs %d and %d more for the file's metadata; HDF5 1.14.5's I/O concentrator does not return a failed write to the rank whose data it was, which would wait forever",
					ErrNoSpace, u.dir, free, need, SpaceMargin)
			}
		}
	}
	return nil
}

// CheckDataset refuses, in a file ranks > 1 ranks share and before any I/O, a chunked
// dataset with a fill value (ErrChunkFill: see guarded.Exec), and a filtered dataset (deflate
// or any filter of its pipeline, ErrFiltered): HDF5 writes filtered chunks in parallel only
// through collective MPI-IO, and the subfiling VFD transfers independently, so HDF5
// 1.14.5 fails at the dataset's first write ("Can't perform independent write with
// filters in pipeline"), after the file and the datasets before it were created. At one
// rank the VFD writes filtered datasets.
func CheckDataset(path string, spec *plan.DatasetSpec, ranks int) error {
	if ranks < 2 {
		return nil
	}
	if spec.Chunk != nil && spec.FillValue != nil && !spec.FillNever {
		return fmt.Errorf("%w: dataset %s is chunked with a fill value, at %d ranks; allowed: fill_time never, no fill value, or one rank", ErrChunkFill, path, ranks)
	}
	if spec.Deflate == 0 && len(spec.Filters) == 0 {
		return nil
	}
	var names []string
	for _, f := range spec.Filters {
		name := FilterName(f.ID)
		if f.ID == plan.FilterDeflate && len(f.CDValues) == 1 {
			name += fmt.Sprintf(" (level %d)", f.CDValues[0])
		}
		names = append(names, name)
	}
	if spec.Deflate > 0 {
		names = append(names, fmt.Sprintf("deflate (level %d)", spec.Deflate))
	}
	what := "filter"
	if len(names) > 1 {
		what = "filters"
	}
	return fmt.Errorf("%w: dataset %s has the %s %s, at %d ranks; allowed: the dataset without filters, one rank, or layout=native or subfiling (collective MPI-IO)",
		ErrFiltered, path, what, strings.Join(names, ", "), ranks)
}

// FilterName names an HDF5 filter identifier of plan's as HDF5 does (H5Z_FILTER_*), or
// by its number.
func FilterName(id uint32) string {
	switch id {
	case plan.FilterDeflate:
		return "deflate"
	case plan.FilterShuffle:
		return "shuffle"
	case plan.FilterFletcher32:
		return "fletcher32"
	case plan.FilterSZIP:
		return "szip"
	case plan.FilterNBit:
		return "nbit"
	case plan.FilterScaleOffset:
		return "scaleoffset"
	case plan.FilterZFP:
		return "zfp (32013)"
	case plan.FilterSZ3:
		return "sz3 (32024)"
	}
	return fmt.Sprintf("filter %d", id)
}

// Settings are the VFD settings of a session: the keys, or the environment the VFD reads.
type Settings struct {
	StripeSize            int64
	IOCPerNode            int
	StripeCount           int
	ThreadPool            int
	SubfileDir, ConfigDir string
	// Stall is how long an operation on a shared file may take before the job is ended
	// (0: no limit).
	Stall time.Duration
}

// Available reports whether this build has the subfiling VFD, and if not why (a
// stack.Unsupported naming the build that has it).
func Available() error {
	if h5.HaveSubfiling() {
		return nil
	}
	return stack.Unsupported{Err: &options.Error{Table: "session", Key: "layout", Value: Name,
		Reason:  fmt.Sprintf("this h5proxy is built against HDF5 %s, which has no subfiling VFD", versionText()),
		Allowed: "a build against HDF5 1.14 with the subfiling VFD (HDF5=1.14 make build), or layout=subfiling (the model of it)"}}
}

func versionText() string {
	if v := h5.Version(); v != "" {
		return v
	}
	return "(none: built without cgo)"
}

// Resolve checks the build and reads the settings: a key given wins, else the VFD's
// environment variable, else the key's default. Directories must exist and be writable.
func Resolve(v *options.Values) (Settings, error) {
	if err := Available(); err != nil {
		return Settings{}, err
	}
	get := func(key string) (*options.Values, error) {
		env, ok := envOf[key]
		raw, set := os.LookupEnv(env)
		if !ok || v.IsSet(key) || !set {
			return v, nil
		}
		spec, _ := Options.Lookup(key)
		ev, err := (&options.Table{Name: "environment " + env, Specs: []options.Spec{*spec}}).Parse([]options.KV{{Key: key, Value: raw}})
		if err != nil {
			err.(*options.Error).Reason += " (the value of " + env + ", which the subfiling VFD reads, stands for the key when it is not given)"
			return nil, err
		}
		return ev, nil
	}
	var s Settings
	var errs []error
	s.Stall = v.Duration(KeyStall)
	for _, key := range []string{KeyStripeSize, KeyIOCPerNode, KeyStripeCount, KeyThreadPool, KeySubfileDir, KeyConfigDir} {
		ev, err := get(key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch key {
		case KeyStripeSize:
			s.StripeSize = ev.Int(key)
		case KeyIOCPerNode:
			s.IOCPerNode = int(ev.Int(key))
		case KeyStripeCount:
			s.StripeCount = int(ev.Int(key))
		case KeyThreadPool:
			s.ThreadPool = int(ev.Int(key))
		case KeySubfileDir, KeyConfigDir:
			dir := ev.String(key)
			if err := writableDir(dir); err != nil {
				reason := err.Error()
				if ev != v {
					reason += " (the value of " + envOf[key] + ", which the subfiling VFD reads, stands for the key when it is not given)"
				}
				errs = append(errs, &options.Error{Table: "session", Key: key, Value: dir, Reason: reason, Allowed: "an existing directory this user can write, or empty (next to the file)"})
			}
			if key == KeySubfileDir {
				s.SubfileDir = dir
			} else {
				s.ConfigDir = dir
			}
		}
	}
	return s, errors.Join(errs...)
}

// writableDir checks that dir ("" passes) is an existing directory the process may
// create files in: the VFD would fail in the middle of H5Fcreate otherwise.
func writableDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("not a directory")
	}
	if err := syscall.Access(dir, 2 /* W_OK */ |1 /* X_OK */); err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	return nil
}

// vfdLayout opens the native layout's parallel files through the subfiling VFD.
type vfdLayout struct {
	env stack.Env
	s   Settings
}

// open creates or opens a file: parallel files through the subfiling VFD with the
// session's settings (their environment variables set for the call, then restored),
// per-rank files as the native layout does (the VFD stripes a file over a communicator's
// I/O concentrators: a one-rank file would be one subfile), except a file one rank
// creates before the ranks sharing it open it (plan.FileSpec.SharedLater), which goes
// through the VFD on MPI_COMM_SELF (one subfile) so that their open finds it. A create
// first removes the files an earlier VFD file of the same path left (collective on the
// file's communicator).
func (l *vfdLayout) open(op *plan.Op, a h5.Access) (h5.ID, error) {
	switch {
	case !a.Parallel && op.Kind == plan.CreateFile && op.File.SharedLater:
		a.Parallel, a.Comm = true, mpi.Self().Fortran()
	case !a.Parallel:
		return native.Open(op, a)
	}
	a.Subfiling = &h5.Subfiling{StripeSize: l.s.StripeSize, StripeCount: l.s.StripeCount, ThreadPool: l.s.ThreadPool}
	if op.Kind == plan.CreateFile {
		dir := l.s.SubfileDir
		if dir == "" {
			dir = filepath.Dir(op.Path)
		}
		// The file's communicator: the layout's, or a group's (plan.FileSpec.GroupRanks).
		comm, err := mpi.FromFortran(a.Comm)
		if err != nil {
			return 0, err
		}
		err = writableDir(dir)
		if err != nil {
			err = fmt.Errorf("subfiling-vfd layout: the subfiles of %s go to %s: %w", op.Path, dir, err)
		} else if comm.Rank() == 0 {
			err = Remove(op.Path, l.s)
		}
		if err := comm.Agree(err, "subfiling-vfd layout: preparing "+op.Path); err != nil {
			return 0, err
		}
	}
	restore := l.s.setEnv()
	defer restore()
	var id h5.ID
	err := unbound(func() (err error) { id, err = native.Open(op, a); return err })
	return id, err
}

// unbound runs open, which starts the VFD's I/O concentrator threads (its main thread and
// its worker pool), on an OS thread allowed every CPU of the machine, then gives the
// thread its own CPUs back: the concentrator threads inherit the wide set, the rank's
// thread keeps the launcher's binding. OpenMPI binds each rank to one core by default
// (bind-to core at 2 ranks or fewer); bound, the concentrator threads share that core with
// the rank's thread, which polls MPI while it waits (a barrier in H5Fclose, a request's
// MPI_Wait), and every request another rank sends waits for a time slice: the E3SM
// pattern's 71,000 small writes per rank at ne=2 were on course for a quarter of an
// hour at 2 ranks (stopped after 2 minutes), 40 seconds unbound (docs/layouts.md). The kernel keeps the set within the process's
// cpuset. A thread whose CPUs cannot be read or widened runs open as it is.
func unbound(open func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		return open()
	}
	var all unix.CPUSet
	for cpu := 0; cpu < len(all)*64; cpu++ {
		all.Set(cpu)
	}
	if err := unix.SchedSetaffinity(0, &all); err != nil {
		return open()
	}
	defer unix.SchedSetaffinity(0, &own)
	return open()
}

// setEnv sets the environment variables the VFD reads at open to the settings (the
// selection criteria unset: the layout selects I/O concentrators per node) and returns
// the function that restores them.
func (s Settings) setEnv() (restore func()) {
	want := map[string]string{
		EnvStripeSize: strconv.FormatInt(s.StripeSize, 10), EnvIOCPerNode: strconv.Itoa(s.IOCPerNode),
		EnvThreadPool: strconv.Itoa(s.ThreadPool), EnvSubfileDir: s.SubfileDir, EnvConfigDir: s.ConfigDir, EnvIOCSelection: "",
	}
	type old struct {
		v  string
		ok bool
	}
	saved := map[string]old{}
	for k, v := range want {
		ov, ok := os.LookupEnv(k)
		saved[k] = old{ov, ok}
		if v == "" {
			os.Unsetenv(k)
		} else {
			os.Setenv(k, v)
		}
	}
	return func() {
		for k, o := range saved {
			if o.ok {
				os.Setenv(k, o.v)
			} else {
				os.Unsetenv(k)
			}
		}
	}
}
