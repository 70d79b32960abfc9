package background

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// mode=cache through the real Cache VOL (hpc-io/vol-cache, connector "cache_ext"). The
// connector is loaded by HDF5 itself when the library starts, from HDF5_VOL_CONNECTOR
// ("cache_ext config=FILE;under_vol=N;under_info={...}"): it reads its storage from FILE
// then (lines "HDF5_CACHE_STORAGE_TYPE: SSD", HDF5_CACHE_STORAGE_PATH, _SCOPE, _SIZE,
// HDF5_CACHE_WRITE_BUFFER_SIZE, HDF5_CACHE_REPLACEMENT_POLICY), and at every file create or
// open it reads HDF5_CACHE_WR and HDF5_CACHE_RD from the environment: only "yes" turns the
// write (read) cache on. With the cache on, a dataset write copies the selection into a
// memory-mapped file in that storage and hands the copy to the connector below: over the
// Async VOL (under_vol=512) it migrates in the background and the file's close waits for
// it; over the native connector (under_vol=0) it is written in the same call. h5proxy makes
// every HDF5 call inline on the caller's thread, as an application does (the sync mode's
// calls); what the connector does with them is its own, and the report's file_close_time is
// the flush at close.

// cacheVOLName is the Cache VOL's registered name (H5VL_CACHE_EXT_NAME).
const cacheVOLName = "cache_ext"

// asyncVOLValue is the Async VOL's registered value, the under_vol of a Cache VOL stacked on
// it as vol-cache's documentation stacks them.
const asyncVOLValue = 512

// cacheVOL is the Cache VOL as the process loaded it.
type cacheVOL struct {
	// spec is HDF5_VOL_CONNECTOR; config its config= file; under the under_vol value.
	spec, config string
	under        int
	// storage holds the config file's settings by key (HDF5_CACHE_STORAGE_PATH, ...).
	storage map[string]string
}

// cacheVOLChoice chooses how mode=cache runs from cache.connector: the loaded Cache VOL
// (vol non-nil), or the model and why; YES without the connector is refused naming the key.
func cacheVOLChoice(setting string) (vol *cacheVOL, why string, err error) {
	if strings.EqualFold(setting, "NO") {
		return nil, "cache.connector=NO", nil
	}
	c, cerr := h5.DefaultConnector()
	switch {
	case !h5.HaveEventSets(): // HDF5 1.10: no VOL layer to load a connector into
		why = "HDF5 " + h5.Version() + " has no VOL connectors (HDF5 1.13 and later; build HDF5=1.14)"
	case cerr != nil:
		why = "the VOL connector in use is unknown: " + cerr.Error()
	case c.Name != cacheVOLName:
		why = "no Cache VOL loaded (HDF5_VOL_CONNECTOR names " + cacheVOLName + "; connector " + c.Name + ")"
	default:
		vol, err = loadedCacheVOL(os.Getenv("HDF5_VOL_CONNECTOR"))
		if err != nil {
			return nil, "", stack.Unsupported{Err: &options.Error{Table: "background", Key: "cache.connector", Value: setting, Reason: err.Error()}}
		}
		return vol, "", nil
	}
	if strings.EqualFold(setting, "YES") {
		return nil, "", stack.Unsupported{Err: &options.Error{Table: "background", Key: "cache.connector", Value: setting,
			Reason: why + "; load it with HDF5_PLUGIN_PATH=<dir of libh5cache_vol.so> HDF5_VOL_CONNECTOR=\"cache_ext config=FILE;under_vol=0;under_info={}\" (scripts/vol-connectors.sh builds it), or use mode=cache-model"}}
	}
	return nil, why, nil
}

// loadedCacheVOL parses spec (HDF5_VOL_CONNECTOR naming cache_ext) and the config file it
// names, as the connector read them at start.
func loadedCacheVOL(spec string) (*cacheVOL, error) {
	v := &cacheVOL{spec: spec, storage: map[string]string{}}
	_, rest, _ := strings.Cut(strings.TrimSpace(spec), " ")
	for _, f := range strings.Split(rest, ";") {
		k, val, _ := strings.Cut(strings.TrimSpace(f), "=")
		switch k {
		case "config":
			v.config = val
		case "under_vol":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, fmt.Errorf("HDF5_VOL_CONNECTOR=%q: under_vol %q is not a connector value", spec, val)
			}
			v.under = n
		}
		if k == "under_info" { // the rest is the connector below's own information
			break
		}
	}
	if v.config == "" {
		return nil, fmt.Errorf("HDF5_VOL_CONNECTOR=%q names no config=FILE, which the Cache VOL needs for its storage", spec)
	}
	f, err := os.Open(v.config)
	if err != nil {
		return nil, fmt.Errorf("the Cache VOL's config file (HDF5_VOL_CONNECTOR config=): %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, val, ok := strings.Cut(sc.Text(), ":"); ok {
			v.storage[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
	}
	return v, sc.Err()
}

// checkKeys refuses cache.path or cache.capacity set for the session to values the
// connector's config file contradicts: the connector took its storage from the file when
// HDF5 started, and a key h5proxy cannot honour is an error, not a silent difference.
func (v *cacheVOL) checkKeys(set *options.Values) error {
	if set.IsSet("cache.path") && set.String("cache.path") != v.storage["HDF5_CACHE_STORAGE_PATH"] {
		return &options.Error{Table: "background", Key: "cache.path", Value: set.String("cache.path"),
			Reason: fmt.Sprintf("the Cache VOL took its storage path from %s (HDF5_CACHE_STORAGE_PATH: %q) when HDF5 started; set it there, or use mode=cache-model", v.config, v.storage["HDF5_CACHE_STORAGE_PATH"])}
	}
	if set.IsSet("cache.capacity") {
		got := strconv.FormatUint(set.Uint("cache.capacity"), 10)
		if got != v.storage["HDF5_CACHE_STORAGE_SIZE"] {
			return &options.Error{Table: "background", Key: "cache.capacity", Value: got,
				Reason: fmt.Sprintf("the Cache VOL took its storage size from %s (HDF5_CACHE_STORAGE_SIZE: %q) when HDF5 started; set it there, or use mode=cache-model", v.config, v.storage["HDF5_CACHE_STORAGE_SIZE"])}
		}
	}
	return nil
}

// describe says how the connector runs, for the report's mode_impl: writeCache is
// HDF5_CACHE_WR from the environment when fromEnv, else the mode sets the file access
// property.
func (v *cacheVOL) describe(writeCache string, fromEnv bool) string {
	under := fmt.Sprintf("connector %d below: migrated by it", v.under)
	switch v.under {
	case 0:
		under = "over the native connector: each write copied to the cache and migrated in the same call"
	case asyncVOLValue:
		under = "over the Async VOL: migrated in the background, the file's close waits for it"
	}
	cache := "write cache on for the files accessed through MPI-IO (their file access property HDF5_CACHE_WR, as H5Pset_fapl_cache sets it; serial files uncached)"
	switch {
	case fromEnv && writeCache == "yes":
		cache = "write cache on (HDF5_CACHE_WR=yes in the environment: every file)"
	case fromEnv:
		cache = fmt.Sprintf("write cache off (HDF5_CACHE_WR=%q in the environment): writes go straight to the connector below", writeCache)
	}
	return fmt.Sprintf("the Cache VOL (%s, config %s: %s storage %s, %s bytes), %s, %s; HDF5 calls inline on the caller's thread; the flush at close is file_close_time",
		cacheVOLName, v.config, v.storage["HDF5_CACHE_STORAGE_TYPE"], v.storage["HDF5_CACHE_STORAGE_PATH"], v.storage["HDF5_CACHE_STORAGE_SIZE"], cache, under)
}

// checkRoom refuses a config file whose write buffer, times the ranks on a node, leaves
// no room in the storage: vol-cache 1.2.1 claims HDF5_CACHE_WRITE_BUFFER_SIZE times the
// node's ranks of HDF5_CACHE_STORAGE_SIZE at each file create and, unless strictly less
// is claimed (H5LSclaim_space), prints "Unable to claim space, turning off write cache"
// and writes straight through: mode=cache would then run uncached. Collective on comm
// (the node's ranks are counted); a config without both sizes is left to the connector.
func (v *cacheVOL) checkRoom(comm mpi.Comm) error {
	buf, err1 := strconv.ParseUint(v.storage["HDF5_CACHE_WRITE_BUFFER_SIZE"], 10, 64)
	size, err2 := strconv.ParseUint(v.storage["HDF5_CACHE_STORAGE_SIZE"], 10, 64)
	if err1 != nil || err2 != nil || comm.IsNull() {
		return nil
	}
	node, err := comm.SplitNode()
	if err != nil {
		return err
	}
	ppn := node.Size()
	node.Free()
	if buf*uint64(ppn) >= size {
		return fmt.Errorf("mode=cache: the Cache VOL's config %s: HDF5_CACHE_WRITE_BUFFER_SIZE %d times the %d ranks on this node is %d, not less than HDF5_CACHE_STORAGE_SIZE %d: the connector would turn its write cache off at every file create (\"Unable to claim space\") and run uncached; lower the buffer or raise the storage size",
			v.config, buf, ppn, buf*uint64(ppn), size)
	}
	return nil
}

// cacheVOLMode is mode=cache through the Cache VOL: the sync mode's inline calls, which the
// connector caches.
type cacheVOLMode struct {
	stack.Mode
	under stack.Layout
	impl  string
	// property: the mode turned the write cache on with the file access property
	// (h5.SetCacheWrite), to be turned off at Close.
	property bool
}

// newCacheVOLMode returns mode=cache through vol. The write cache is on unless the
// environment says otherwise: mode=cache asks for the cache, and the Cache VOL reads
// HDF5_CACHE_WR from the environment at each file create and open, else the file access
// property of the same name. h5proxy sets the property (h5.SetCacheWrite) on the files it
// accesses through MPI-IO while the mode lives, rather than the process's environment,
// which would outlive the session and reach files vol-cache 1.2.1 cannot cache (a serial
// file: it aborts in MPI_Comm_dup). A value the user set in the environment is kept.
func newCacheVOLMode(under stack.Layout, env stack.Env, vol *cacheVOL) (stack.Mode, error) {
	if err := vol.checkKeys(env.Setting()); err != nil {
		return nil, err
	}
	if err := vol.checkRoom(env.SessionComm); err != nil {
		return nil, err
	}
	wr, fromEnv := os.LookupEnv("HDF5_CACHE_WR")
	sync, err := stack.LookupMode("sync")
	if err != nil {
		return nil, err
	}
	m, err := sync.NewMode(under, env)
	if err != nil {
		return nil, err
	}
	if !fromEnv {
		h5.SetCacheWrite(true)
	}
	return &cacheVOLMode{Mode: m, under: under, impl: vol.describe(wr, fromEnv), property: !fromEnv}, nil
}

// Close turns the per-file write-cache switch off again, then closes the sync mode.
func (m *cacheVOLMode) Close() error {
	if m.property {
		h5.SetCacheWrite(false)
		m.property = false
	}
	return m.Mode.Close()
}

// Impl says how the mode runs (the report's mode_impl).
func (m *cacheVOLMode) Impl() string { return m.impl }

// ExecMulti passes a multi-dataset transfer to the layout inline, as the sync mode does.
func (m *cacheVOLMode) ExecMulti(ops []*plan.Op, bufs [][]byte) error {
	return stack.ExecMulti(m.under, ops, bufs)
}
