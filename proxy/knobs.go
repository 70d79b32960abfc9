package proxy

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Knobs are session keys that override, for every pattern, what its plans ask of HDF5 and
// MPI-IO: MPI-IO hints, file access and creation properties, dataset creation properties
// and the transfer mode. Unset knobs leave the pattern's choices (so h5bench fidelity is
// unchanged by default); a set knob replaces the pattern's value for every file, dataset
// or transfer it applies to. The keys of phaseKnobs also take a "write." or "read." prefix
// that applies them to that phase only (and overrides the unprefixed key there).

// onOff are the values of knobs that turn a property on or off.
var onOff = []string{"on", "off"}

// Knob key names the session applies (see knobSpecs for their help).
const (
	kImpl          = "mpiio.impl"
	kHints         = "mpiio.hints"
	kAlignThresh   = "hdf5.align_threshold"
	kAlignment     = "hdf5.alignment"
	kMDCInitial    = "hdf5.mdc_initial"
	kMDCMin        = "hdf5.mdc_min"
	kMDCMax        = "hdf5.mdc_max"
	kMDCResize     = "hdf5.mdc_resize"
	kMetaBlock     = "hdf5.meta_block_size"
	kSmallData     = "hdf5.small_data_block_size"
	kSieve         = "hdf5.sieve_buf_size"
	kLibverLow     = "hdf5.libver_low"
	kLibverHigh    = "hdf5.libver_high"
	kCollMetaOps   = "hdf5.coll_metadata_ops"
	kCollMetaWrite = "hdf5.coll_metadata_write"
	kCore          = "hdf5.core"
	kFSStrategy    = "hdf5.file_space_strategy"
	kFSPageSize    = "hdf5.file_space_page_size"
	kPageBuffer    = "hdf5.page_buffer_size"
	kChunk         = "hdf5.chunk"
	kDeflate       = "hdf5.deflate"
	kShuffle       = "hdf5.shuffle"
	kFillTime      = "hdf5.fill_time"
	kAllocTime     = "hdf5.alloc_time"
	kTransfer      = "hdf5.transfer"
	kCollOpt       = "hdf5.collective_opt"
	kChunkOpt      = "hdf5.chunk_opt"
	kSelectionIO   = "hdf5.selection_io"
	kMultiDataset  = "hdf5.multi_dataset"
)

// knobs114 are the knobs of HDF5 1.14 features, with the value that leaves HDF5 as 1.10
// has it (accepted by every build); any other value needs the HDF5=1.14 build.
var knobs114 = map[string]string{kSelectionIO: "", kMultiDataset: "no"}

// hintKeys are the MPI-IO hints with keys of their own (mpiio.<hint>); mpiio.hints takes
// any other.
var hintKeys = []options.Spec{
	{Key: "mpiio.cb_nodes", Kind: options.Int, Min: options.Bound(1), Help: "MPI-IO hint cb_nodes: number of collective-buffering aggregators"},
	{Key: "mpiio.cb_buffer_size", Kind: options.Size, Min: options.Bound(1), Help: "MPI-IO hint cb_buffer_size: collective buffer per aggregator (bytes)"},
	{Key: "mpiio.romio_cb_write", Kind: options.Enum, Allowed: []string{"enable", "disable", "automatic"}, Help: "MPI-IO hint romio_cb_write: collective buffering of writes"},
	{Key: "mpiio.romio_cb_read", Kind: options.Enum, Allowed: []string{"enable", "disable", "automatic"}, Help: "MPI-IO hint romio_cb_read: collective buffering of reads"},
	{Key: "mpiio.romio_ds_write", Kind: options.Enum, Allowed: []string{"enable", "disable", "automatic"}, Help: "MPI-IO hint romio_ds_write: data sieving of writes"},
	{Key: "mpiio.romio_ds_read", Kind: options.Enum, Allowed: []string{"enable", "disable", "automatic"}, Help: "MPI-IO hint romio_ds_read: data sieving of reads"},
	{Key: "mpiio.striping_factor", Kind: options.Int, Min: options.Bound(1), Help: "MPI-IO hint striping_factor: stripe count of a created file (Lustre)"},
	{Key: "mpiio.striping_unit", Kind: options.Size, Min: options.Bound(1), Help: "MPI-IO hint striping_unit: stripe size of a created file (Lustre, bytes)"},
}

// phaseKnobs are the knobs that take a phase prefix: those of access and transfer, which
// a read may want different from the write.
var phaseKnobs = []options.Spec{
	{Key: kSieve, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_sieve_buf_size: data sieve buffer (bytes)"},
	{Key: kMDCInitial, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_mdc_config: metadata cache initial size (bytes; resizing off unless hdf5.mdc_resize=on)"},
	{Key: kMDCMin, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_mdc_config: metadata cache minimum size (bytes)"},
	{Key: kMDCMax, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_mdc_config: metadata cache maximum size (bytes)"},
	{Key: kMDCResize, Kind: options.Enum, Allowed: onOff, Help: "H5Pset_mdc_config: automatic resizing of the metadata cache"},
	{Key: kCollMetaOps, Kind: options.Bool, Help: "H5Pset_all_coll_metadata_ops: collective metadata reads"},
	{Key: kPageBuffer, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_page_buffer_size: page buffer (bytes; paged files only; the parallel build of HDF5 1.10 refuses it at open)"},
	{Key: kCore, Kind: options.Enum, Allowed: []string{"memory", "backing"}, Help: "H5Pset_fapl_core: the core driver, the file in memory (serial: one rank, or reads), without (memory) or with (backing) the backing store"},
	{Key: kTransfer, Kind: options.Enum, Allowed: []string{"independent"}, Help: "H5Pset_dxpl_mpio: independent turns the pattern's collective transfers independent (collective ones cannot be forced: a pattern's independent transfer may be one rank's alone; the patterns' own keys, e.g. COLLECTIVE_DATA, ask for them)"},
	{Key: kCollOpt, Kind: options.Enum, Allowed: []string{"collective", "individual"}, Help: "H5Pset_dxpl_mpio_collective_opt: individual carries collective transfers out as individual I/O (H5FD_MPIO_INDIVIDUAL_IO)"},
	{Key: kChunkOpt, Kind: options.Enum, Allowed: []string{"default", "one_io", "multi_io"}, Help: "H5Pset_dxpl_mpio_chunk_opt: collective chunk optimisation (H5FD_MPIO_CHUNK_ONE_IO, _MULTI_IO)"},
	{Key: kSelectionIO, Kind: options.Enum, Allowed: []string{"default", "on", "off"}, Help: "H5Pset_selection_io: HDF5 1.14's selection I/O mode of every transfer (HDF5=1.14 build only; the census reports the path each took)"},
	{Key: kMultiDataset, Kind: options.Bool, Help: "yes: a step's consecutive writes (reads) of several datasets go out in one H5Dwrite_multi (H5Dread_multi) call, as E3SM-IO's hdf5_md driver flushes its posted requests (HDF5=1.14 build, native layout, sync mode)"},
}

// phasePrefixes are the prefixes of per-phase knobs.
var phasePrefixes = map[string]patterns.Phase{"write.": patterns.PhaseWrite, "read.": patterns.PhaseRead}

// knobTable holds every knob: the implementation and hints, the access, creation and
// transfer knobs, then the per-phase spellings of phaseKnobs.
var knobTable = func() *options.Table {
	specs := []options.Spec{
		{Key: kImpl, Kind: options.Enum, Allowed: []string{"ompio", "romio"}, Help: "OpenMPI's MPI-IO implementation, chosen at launch (OMPI_MCA_io=ompio or romio321; h5proxy run sets it, hosts must be launched with it); the report gives the one in use"},
		{Key: kHints, Kind: options.String, Help: "further MPI-IO hints, KEY=VALUE separated by commas (over the configuration's mpi_info)"},
	}
	specs = append(specs, hintKeys...)
	specs = append(specs,
		options.Spec{Key: kAlignThresh, Kind: options.Size, Help: "H5Pset_alignment threshold (bytes; with hdf5.alignment, default the pattern's or 1)"},
		options.Spec{Key: kAlignment, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_alignment alignment (bytes) for every pattern"},
		options.Spec{Key: kMetaBlock, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_meta_block_size (bytes)"},
		options.Spec{Key: kSmallData, Kind: options.Size, Min: options.Bound(1), Help: "H5Pset_small_data_block_size (bytes)"},
		options.Spec{Key: kLibverLow, Kind: options.Enum, Allowed: libverNames, Help: "H5Pset_libver_bounds low bound"},
		options.Spec{Key: kLibverHigh, Kind: options.Enum, Allowed: libverNames, Help: "H5Pset_libver_bounds high bound"},
		options.Spec{Key: kCollMetaWrite, Kind: options.Bool, Help: "H5Pset_coll_metadata_write: collective metadata writes"},
		options.Spec{Key: kFSStrategy, Kind: options.Enum, Allowed: []string{"fsm_aggr", "page", "aggr", "none"}, Help: "H5Pset_file_space_strategy of created files"},
		options.Spec{Key: kFSPageSize, Kind: options.Size, Min: options.Bound(512), Help: "H5Pset_file_space_page_size of created files (bytes)"},
		options.Spec{Key: kChunk, Kind: options.String, Help: "H5Pset_chunk: chunk dimensions (e.g. 1024 or 64x64) for every dataset of that rank, clamped to fixed dimensions"},
		options.Spec{Key: kDeflate, Kind: options.Int, Min: options.Bound(0), Max: options.Bound(9), Help: "H5Pset_deflate level of chunked datasets (0: none)"},
		options.Spec{Key: kShuffle, Kind: options.Bool, Help: "H5Pset_shuffle on chunked datasets (ahead of the other filters)"},
		options.Spec{Key: kFillTime, Kind: options.Enum, Allowed: plan.FillTimeNames, Help: "H5Pset_fill_time of every dataset"},
		options.Spec{Key: kAllocTime, Kind: options.Enum, Allowed: plan.AllocTimeNames, Help: "H5Pset_alloc_time of every dataset"},
	)
	specs = append(specs, phaseKnobs...)
	for _, pre := range []string{"write.", "read."} {
		for _, s := range phaseKnobs {
			s.Key, s.Help = pre+s.Key, s.Help+" ("+strings.TrimSuffix(pre, ".")+" phase only)"
			specs = append(specs, s)
		}
	}
	return &options.Table{Name: "session", Specs: specs}
}()

// libverNames spell plan.Libver values in order (latest is v110 in HDF5 1.10).
var libverNames = []string{"earliest", "v18", "v110", "latest"}

// setKnob records a knob after checking its value alone (combinations are checked by
// knobsFor).
func (c *Config) setKnob(s *options.Spec, value string) error {
	v, err := knobTable.Parse([]options.KV{{Key: s.Key, Value: value}})
	if err != nil {
		return err
	}
	switch s.Key {
	case kChunk:
		if _, err := parseChunk(value); err != nil {
			return err
		}
	case kHints:
		if _, err := parseHints(value); err != nil {
			return err
		}
	}
	if err := check114(s.Key, v); err != nil {
		return err
	}
	c.Knobs = slices.DeleteFunc(c.Knobs, func(o options.KV) bool { return o.Key == s.Key })
	c.Knobs = append(c.Knobs, options.KV{Key: s.Key, Value: value})
	c.Warnings = appendNew(c.Warnings, v.Warnings...)
	return nil
}

func parseChunk(value string) ([]uint64, error) {
	var dims []uint64
	for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == 'x' || r == ',' || r == ' ' }) {
		n, err := options.ParseSize(f)
		if err != nil || n == 0 {
			return nil, &options.Error{Table: "session", Key: kChunk, Value: value, Reason: "not a list of positive dimensions", Allowed: "e.g. 1024, 64x64 or 1,8,8"}
		}
		dims = append(dims, n)
	}
	if len(dims) == 0 {
		return nil, &options.Error{Table: "session", Key: kChunk, Value: value, Reason: "no dimensions", Allowed: "e.g. 1024, 64x64 or 1,8,8"}
	}
	return dims, nil
}

func parseHints(value string) (map[string]string, error) {
	m := map[string]string{}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &options.Error{Table: "session", Key: kHints, Value: value, Reason: fmt.Sprintf("hint %q is not KEY=VALUE", item), Allowed: "e.g. cb_nodes=2,romio_cb_write=enable"}
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

// MPIHints returns the MPI-IO hints of a run: the configuration's mpi_info, then
// mpiio.hints, then the hints with keys of their own.
func (c *Config) MPIHints() map[string]string {
	m := maps.Clone(c.MPIInfo)
	if m == nil {
		m = map[string]string{}
	}
	for _, kv := range c.Knobs {
		if kv.Key == kHints {
			h, _ := parseHints(kv.Value) // checked by setKnob
			maps.Copy(m, h)
		}
	}
	for _, kv := range c.Knobs {
		for _, s := range hintKeys {
			if kv.Key == s.Key {
				v := kv.Value
				if s.Kind == options.Size {
					n, _ := options.ParseSize(v)
					v = strconv.FormatUint(n, 10)
				}
				m[strings.TrimPrefix(s.Key, "mpiio.")] = v
			}
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// sessionHints are the MPI-IO hints the session opens its files with: those the pattern's
// program passes (patterns.Hinter), then the configuration's (MPIHints), which win.
func sessionHints(pat patterns.Pattern, c *Config) map[string]string {
	h, ok := pat.(patterns.Hinter)
	if !ok {
		return c.MPIHints()
	}
	m := maps.Clone(h.MPIHints())
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, c.MPIHints())
	if len(m) == 0 {
		return nil
	}
	return m
}

// MPIIOImpl returns the MPI-IO implementation the configuration asks for ("ompio",
// "romio") or "" for OpenMPI's default.
func (c *Config) MPIIOImpl() string {
	for _, kv := range c.Knobs {
		if kv.Key == kImpl {
			return strings.ToLower(kv.Value)
		}
	}
	return ""
}

// check114 refuses, in a build without HDF5 1.14 (the system's 1.10.8), a value of an
// HDF5 1.14 knob other than the one that leaves HDF5 alone, naming the build that has it.
func check114(key string, v *options.Values) error {
	base := knobBase(key)
	off, is114 := knobs114[base]
	if !is114 || h5.HasMultiDataset() {
		return nil
	}
	if base == kMultiDataset && !v.Bool(key) || base != kMultiDataset && v.String(key) == off {
		return nil
	}
	return v.Errorf(key, "needs HDF5 1.14 (H5Dwrite_multi/H5Dread_multi, H5Pset_selection_io); this h5proxy is built against HDF5 %s (HDF5=%s): build it with `HDF5=1.14 make build`", h5.Version(), h5.Build())
}

// knobBase is a knob key without its phase prefix.
func knobBase(key string) string {
	for pre := range phasePrefixes {
		if b, ok := strings.CutPrefix(key, pre); ok {
			return b
		}
	}
	return key
}

// checkMultiDataset refuses hdf5.multi_dataset=yes (any phase) with a layout that cannot
// carry several datasets' transfers in one call or a mode that issues them from a
// background thread one by one.
func (c *Config) checkMultiDataset(mode, layout stack.Strategy) error {
	for _, kv := range c.Knobs {
		base := knobBase(kv.Key)
		if yes, _ := options.ParseBool(kv.Value); base != kMultiDataset || !yes {
			continue
		}
		if !layout.Has(stack.MultiDataset) {
			return &options.Error{Table: "session", Key: kv.Key, Value: kv.Value, Reason: fmt.Sprintf("the %s layout has no multi-dataset I/O (the native layout has)", layout.Name)}
		}
		if mode.Has(stack.Background) {
			return &options.Error{Table: "session", Key: kv.Key, Value: kv.Value, Reason: fmt.Sprintf("the %s mode issues each transfer on its own from a background thread (use mode=sync)", mode.Name)}
		}
	}
	return nil
}

// multiDataset reports whether the phase batches its consecutive transfers into
// multi-dataset calls (hdf5.multi_dataset=yes).
func (k *knobs) multiDataset() bool {
	return k != nil && k.multi
}

// knobs are the parsed knobs of one phase.
type knobs struct {
	v     *options.Values
	chunk []uint64
	size  int // ranks of the session, for the core driver's check
	// files, datasets and transfers: some knob applies to that kind of operation.
	files, datasets, transfers bool
	// multi is hdf5.multi_dataset=yes, read once: every step asks (a key lookup in the
	// option table compares names case-insensitively, a few thousand instructions).
	multi bool
}

// datasetKnobs and transferKnobs are the keys of dataset creates and of transfers; every
// other hdf5.* key is a file knob (mpiio.* keys reach MPI-IO through stack.Env).
var (
	datasetKnobs  = []string{kChunk, kDeflate, kShuffle, kFillTime, kAllocTime}
	transferKnobs = []string{kTransfer, kCollOpt, kChunkOpt, kSelectionIO}
)

// knobsFor parses the knobs that apply in phase ph: the unprefixed keys, then the ones
// prefixed with the phase's name in their place.
func (c *Config) knobsFor(ph patterns.Phase, size int) (*knobs, error) {
	byKey := map[string]string{}
	for _, kv := range c.Knobs {
		byKey[kv.Key] = kv.Value
	}
	for pre, p := range phasePrefixes {
		for _, kv := range c.Knobs {
			if k, ok := strings.CutPrefix(kv.Key, pre); ok && p == ph {
				byKey[k] = kv.Value
			}
		}
	}
	var kvs []options.KV
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if !strings.HasPrefix(k, "write.") && !strings.HasPrefix(k, "read.") {
			kvs = append(kvs, options.KV{Key: k, Value: byKey[k]})
		}
	}
	v, err := knobTable.Parse(kvs)
	if err != nil {
		return nil, err
	}
	k := &knobs{v: v, size: size}
	for _, kv := range kvs {
		switch {
		case slices.Contains(datasetKnobs, kv.Key):
			k.datasets = true
		case slices.Contains(transferKnobs, kv.Key):
			k.transfers = true
		case kv.Key == kMultiDataset: // the session's batching, no property of any op
		case strings.HasPrefix(kv.Key, "hdf5."):
			k.files = true
		}
	}
	k.multi = v.IsSet(kMultiDataset) && v.Bool(kMultiDataset)
	if v.IsSet(kChunk) {
		if k.chunk, err = parseChunk(v.String(kChunk)); err != nil {
			return nil, err
		}
	}
	if v.IsSet(kMDCMin) && v.IsSet(kMDCMax) && v.Uint(kMDCMin) > v.Uint(kMDCMax) {
		return nil, v.Errorf(kMDCMin, "above %s=%s", kMDCMax, byKey[kMDCMax])
	}
	if v.IsSet(kAlignThresh) && !v.IsSet(kAlignment) {
		return nil, v.Errorf(kAlignThresh, "needs %s (the alignment itself)", kAlignment)
	}
	return k, nil
}

// chunkOpts are the values of hdf5.chunk_opt ("" leaves HDF5's choice).
var chunkOpts = map[string]plan.ChunkOpt{"one_io": plan.ChunkOptOneIO, "multi_io": plan.ChunkOptMultiIO}

// selectionIOs are the values of hdf5.selection_io ("" leaves HDF5's default).
var selectionIOs = map[string]plan.SelectionIO{"default": plan.SelectionIODefault, "on": plan.SelectionIOOn, "off": plan.SelectionIOOff}

// apply returns op with the knobs applied: op itself when none applies, else a copy (a
// plan's specs may be shared by its steps and with the pattern).
func (k *knobs) apply(op *plan.Op) (*plan.Op, error) {
	if k == nil || !(k.files || k.datasets || k.transfers) { // no knobs: every operation of every step passes here
		return op, nil
	}
	file := op.File != nil && (op.Kind == plan.CreateFile || op.Kind == plan.OpenFile)
	dataset := op.Dataset != nil && op.Kind == plan.CreateDataset
	transfer := op.Transfer != nil && (op.Kind == plan.Write || op.Kind == plan.Read)
	if !(file && k.files || dataset && k.datasets || transfer && k.transfers) {
		return op, nil
	}
	o := *op
	if file {
		fs := *op.File
		if err := k.file(&fs, op.Kind == plan.CreateFile); err != nil {
			return nil, err
		}
		o.File = &fs
	}
	if dataset {
		ds := *op.Dataset
		k.dataset(&ds)
		o.Dataset = &ds
	}
	if transfer {
		v := k.v
		if v.IsSet(kTransfer) {
			o.Collective = false
		}
		if v.IsSet(kCollOpt) || v.IsSet(kChunkOpt) || v.IsSet(kSelectionIO) {
			t := *op.Transfer
			t.Tuning.Individual = v.String(kCollOpt) == "individual"
			t.Tuning.ChunkOpt = chunkOpts[v.String(kChunkOpt)]
			t.Tuning.SelectionIO = selectionIOs[v.String(kSelectionIO)]
			o.Transfer = &t
		}
	}
	return &o, nil
}

// file applies the access and creation knobs to fs.
func (k *knobs) file(fs *plan.FileSpec, create bool) error {
	v := k.v
	setU := func(key string, dst *uint64) {
		if v.IsSet(key) {
			*dst = v.Uint(key)
		}
	}
	if v.IsSet(kAlignment) {
		fs.AlignLen = v.Uint(kAlignment)
		if v.IsSet(kAlignThresh) {
			fs.AlignThreshold = v.Uint(kAlignThresh)
		} else if fs.AlignThreshold == 0 {
			fs.AlignThreshold = 1 // HDF5's default threshold
		}
	}
	setU(kMDCInitial, &fs.MDCInitialSize)
	setU(kMDCMin, &fs.MDCMinSize)
	setU(kMDCMax, &fs.MDCMaxSize)
	if (v.IsSet(kMDCMin) || v.IsSet(kMDCMax)) && fs.MDCInitialSize == 0 {
		fs.MDCInitialSize = 2 << 20 // HDF5's default initial size (H5AC__DEFAULT_CACHE_CONFIG)
	}
	if v.IsSet(kMDCResize) {
		fs.Tuning.MDCResize = map[string]plan.Toggle{"on": plan.ToggleOn, "off": plan.ToggleOff}[v.String(kMDCResize)]
	}
	setU(kMetaBlock, &fs.MetaBlockSize)
	setU(kSmallData, &fs.Tuning.SmallDataBlockSize)
	setU(kSieve, &fs.Tuning.SieveBufSize)
	setU(kPageBuffer, &fs.Tuning.PageBufferSize)
	libver := func(key string) plan.Libver {
		return plan.Libver(min(slices.Index(libverNames, v.String(key)), 2) + 1)
	}
	if v.IsSet(kLibverLow) {
		fs.Tuning.LibverLow = libver(kLibverLow)
	}
	if v.IsSet(kLibverHigh) {
		fs.Tuning.LibverHigh = libver(kLibverHigh)
	}
	if fs.LibverLatest && (v.IsSet(kLibverLow) || v.IsSet(kLibverHigh)) {
		fs.LibverLatest = false // the knobs' bounds replace the pattern's
	}
	if v.IsSet(kCollMetaOps) {
		fs.CollMetadataOps = v.Bool(kCollMetaOps)
	}
	if v.IsSet(kCollMetaWrite) {
		fs.CollMetadataWrite = v.Bool(kCollMetaWrite)
	}
	if create {
		if v.IsSet(kFSStrategy) {
			fs.Tuning.FileSpaceStrategy = v.String(kFSStrategy)
		}
		setU(kFSPageSize, &fs.Tuning.FileSpacePageSize)
	}
	if v.IsSet(kCore) {
		if fs.Parallel && k.size > 1 && (create || !fs.ReadOnly) {
			return v.Errorf(kCore, "the core driver is serial: %d ranks cannot write one shared file through it (use it with one rank, for reads, or with a pattern's per-rank files)", k.size)
		}
		fs.Parallel, fs.CollMetadataOps, fs.CollMetadataWrite = false, false, false
		fs.Tuning.Core, fs.Tuning.CoreBacking = true, v.String(kCore) == "backing"
	}
	return nil
}

// dataset applies the creation knobs to ds: chunk dimensions to datasets of the chunk's
// rank (clamped to fixed dimensions, as HDF5 requires), filters to chunked datasets only
// (HDF5 filters need chunks), fill and allocation times to every dataset.
func (k *knobs) dataset(ds *plan.DatasetSpec) {
	v := k.v
	if len(k.chunk) > 0 && len(k.chunk) == len(ds.Shape) {
		c := slices.Clone(k.chunk)
		for i := range c {
			limit := ds.Shape[i]
			if ds.MaxShape != nil {
				limit = ds.MaxShape[i]
			}
			if limit != plan.MaxUnlimited && limit > 0 {
				c[i] = min(c[i], limit)
			}
		}
		ds.Chunk = c
	}
	if ds.Chunk != nil {
		if v.IsSet(kDeflate) {
			ds.Deflate = int(v.Int(kDeflate))
		}
		if v.IsSet(kShuffle) {
			ds.Tuning.Shuffle = v.Bool(kShuffle)
		}
	}
	if v.IsSet(kFillTime) {
		ft, _ := plan.ParseFillTime(v.String(kFillTime)) // the table allows only its names
		ds.Tuning.FillTime, ds.FillNever = ft, ft == plan.FillTimeNever
	}
	if v.IsSet(kAllocTime) {
		ds.Tuning.AllocTime, _ = plan.ParseAllocTime(v.String(kAllocTime))
	}
}

// mcaIO is OpenMPI's io component of each implementation.
var mcaIO = map[string]string{"ompio": "ompio", "romio": "romio321"}

// MPIIOEnv returns the environment entry (OMPI_MCA_io=...) that selects impl ("ompio" or
// "romio") in launched ranks, or "" for OpenMPI's default.
func MPIIOEnv(impl string) string {
	if c, ok := mcaIO[impl]; ok {
		return "OMPI_MCA_io=" + c
	}
	return ""
}

// MPIIOInUse names OpenMPI's MPI-IO implementation this process loaded: "ompio" when
// OMPIO's collective-I/O components are mapped (OpenMPI opens ROMIO too while selecting),
// "romio" when only ROMIO is, "" before any MPI-IO file was opened or with another MPI.
func MPIIOInUse() string {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	s := string(data)
	switch {
	case strings.Contains(s, "mca_io_ompio"):
		return "ompio"
	case strings.Contains(s, "mca_io_romio"):
		return "romio"
	}
	return ""
}
