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
	"strconv"
	"syscall"

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
}}

// envOf maps the keys the VFD also reads from the environment to their variables.
var envOf = map[string]string{KeyStripeSize: EnvStripeSize, KeyIOCPerNode: EnvIOCPerNode, KeyThreadPool: EnvThreadPool,
	KeySubfileDir: EnvSubfileDir, KeyConfigDir: EnvConfigDir}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: Name, Caps: stack.StoresData | stack.Subfiles | stack.ThreadMultiple | stack.MemorySpaces, Options: Options,
		Summary:   "the native file through HDF5 1.14's subfiling VFD: a stub, a .config and subfiles striped by I/O concentrator threads (HDF5=1.14 builds)",
		Available: Available,
		Validate:  func(v *options.Values) error { _, err := Resolve(v); return err },
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			s, err := Resolve(env.Setting())
			if err != nil {
				return nil, err
			}
			l := &vfdLayout{env: env, s: s}
			return native.New(env, l.open), nil
		}})
}

// Settings are the VFD settings of a session: the keys, or the environment the VFD reads.
type Settings struct {
	StripeSize            int64
	IOCPerNode            int
	StripeCount           int
	ThreadPool            int
	SubfileDir, ConfigDir string
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
// I/O concentrators: a one-rank file would be one subfile). A create first removes the
// files an earlier VFD file of the same path left (collective on the file's communicator).
func (l *vfdLayout) open(op *plan.Op, a h5.Access) (h5.ID, error) {
	if !a.Parallel {
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
	return native.Open(op, a)
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
