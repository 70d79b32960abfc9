package vpic

import (
	"fmt"
	"os"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Options declares the h5bench write/read kernel keys this pattern understands, with
// h5bench's names. Session-level keys (compute time, CSV file, mode) belong to package
// proxy.
var Options = &options.Table{Name: "vpic", Specs: []options.Spec{
	{Key: "MEM_PATTERN", Kind: options.Enum, Default: "CONTIG", Allowed: []string{"CONTIG", "INTERLEAVED", "STRIDED"}, Help: "memory layout of the particle data"},
	{Key: "FILE_PATTERN", Kind: options.Enum, Default: "CONTIG", Allowed: []string{"CONTIG", "INTERLEAVED", "STRIDED"}, Help: "file layout: 8 datasets per timestep (CONTIG, STRIDED) or one compound dataset (INTERLEAVED)"},
	{Key: "NUM_DIMS", Kind: options.Int, Default: "1", Min: options.Bound(1), Max: options.Bound(3), Help: "dataset rank"},
	{Key: "DIM_1", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "per-rank extent along dim 1 (particles per rank = DIM_1*DIM_2*DIM_3)"},
	{Key: "DIM_2", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "extent along dim 2 (NUM_DIMS >= 2)"},
	{Key: "DIM_3", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "extent along dim 3 (NUM_DIMS = 3)"},
	{Key: "NUM_PARTICLES", Kind: options.Size, Help: "accepted like h5bench; the write kernel overwrites it with DIM_1*DIM_2*DIM_3", Ignored: true},
	{Key: "TIMESTEPS", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "number of Timestep_<i> groups"},
	{Key: "DELAYED_CLOSE_TIMESTEPS", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "async modes: keep this many timesteps open before closing (h5bench semantics)"},
	{Key: "COLLECTIVE_DATA", Kind: options.Bool, Default: "NO", Help: "collective H5Dwrite/H5Dread"},
	{Key: "COLLECTIVE_METADATA", Kind: options.Bool, Default: "NO", Help: "collective metadata reads and writes (write kernel; the read kernel always uses them)"},
	{Key: "COMPRESS", Kind: options.Bool, Default: "NO", Help: "chunked datasets (CHUNK_DIM_<n>) compressed with COMPRESS_FILTER; forces collective data"},
	{Key: "COMPRESS_FILTER", Kind: options.Enum, Default: "GZIP", Allowed: []string{"GZIP", "SZIP", "N_BIT", "SZ3", "ZFP"},
		Help: "COMPRESS=YES: GZIP deflate level 9 (h5bench's filter without this key), SZIP (nearest neighbour, 16 pixels per block), N_BIT, SZ3 (plugin 32024) or ZFP (plugin 32013); a filter HDF5 cannot load is an error before any I/O (plugins: HDF5_PLUGIN_PATH)"},
	{Key: "CHUNK_DIM_1", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "chunk extent along dim 1 (COMPRESS)"},
	{Key: "CHUNK_DIM_2", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "chunk extent along dim 2 (COMPRESS)"},
	{Key: "CHUNK_DIM_3", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "chunk extent along dim 3 (COMPRESS)"},
	{Key: "STRIDE_SIZE", Kind: options.Size, Default: "0", Help: "strided pattern: distance between block starts; CS read: stride along dim 1"},
	{Key: "STRIDE_SIZE_2", Kind: options.Size, Default: "0", Help: "CS read: stride along dim 2"},
	{Key: "STRIDE_SIZE_3", Kind: options.Size, Default: "0", Help: "accepted like h5bench", Ignored: true},
	{Key: "BLOCK_SIZE", Kind: options.Size, Default: "0", Help: "strided pattern: block length; LDC/RDC/PRL/CS read: block extent along dim 1"},
	{Key: "BLOCK_SIZE_2", Kind: options.Size, Default: "0", Help: "LDC/RDC/PRL/CS read: block extent along dim 2"},
	{Key: "BLOCK_SIZE_3", Kind: options.Size, Default: "0", Help: "accepted like h5bench", Ignored: true},
	{Key: "BLOCK_CNT", Kind: options.Size, Default: "0", Help: "strided pattern: number of blocks per rank"},
	{Key: "READ_OPTION", Kind: options.Enum, Default: "FULL", Allowed: []string{"FULL", "PARTIAL", "STRIDED", "LDC", "RDC", "PRL", "CS"}, Help: "read kernel selection"},
	{Key: "TO_READ_NUM_PARTICLES", Kind: options.Size, Default: "0", Help: "PARTIAL read: particles per rank (0: DIM_1*DIM_2*DIM_3)"},
	{Key: "FILE_PER_PROC", Kind: options.Bool, Default: "NO", Help: "one file per rank (rank_<r>_<name>) through the serial driver"},
	{Key: "ALIGN", Kind: options.Bool, Default: "NO", Help: "H5Pset_alignment(ALIGN_THRESHOLD, ALIGN_LEN)"},
	{Key: "ALIGN_THRESHOLD", Kind: options.Size, Default: "0", Help: "alignment threshold in bytes"},
	{Key: "ALIGN_LEN", Kind: options.Size, Default: "0", Help: "alignment in bytes"},
	{Key: "IO_OPERATION", Kind: options.Enum, Allowed: []string{"READ", "WRITE"}, Help: "h5bench's per-program operation; the phase to run is taken from it when given"},
	{Key: "STDEV_DIM_1", Kind: options.Int, Help: "write_var_normal_dist only", Ignored: true},
}}

// Config is the validated VPIC-IO / BD-CATS-IO configuration.
type Config struct {
	MemPattern, FilePattern string
	NumDims                 int
	Dims                    [3]uint64
	Timesteps               int
	DelayedClose            int
	CollectiveData          bool
	CollectiveMetadata      bool
	Compress                bool
	CompressFilter          string
	ChunkDims               [3]uint64
	Stride, Stride2         uint64
	Block, Block2           uint64
	BlockCount              uint64
	ReadOption              string
	ToRead                  uint64
	FilePerProc             bool
	Align                   bool
	AlignThreshold          uint64
	AlignLen                uint64
	// Kernel is the h5bench program (KernelVPIC: h5bench_write and h5bench_read).
	Kernel Kernel
	// StdevDim1 is the normal-distribution kernel's standard deviation of the count.
	StdevDim1 uint64
}

// FromValues builds and validates the vpic pattern's Config from parsed options.
func FromValues(v *options.Values) (Config, error) { return fromValues(v, KernelVPIC) }

// fromValues builds and validates the Config of kernel k from its table's values.
func fromValues(v *options.Values, k Kernel) (Config, error) {
	c := Config{Kernel: k, StdevDim1: v.Uint("STDEV_DIM_1"),
		MemPattern: v.String("MEM_PATTERN"), FilePattern: v.String("FILE_PATTERN"),
		NumDims:   int(v.Int("NUM_DIMS")),
		Dims:      [3]uint64{v.Uint("DIM_1"), v.Uint("DIM_2"), v.Uint("DIM_3")},
		Timesteps: int(v.Int("TIMESTEPS")), DelayedClose: int(v.Int("DELAYED_CLOSE_TIMESTEPS")),
		CollectiveData: v.Bool("COLLECTIVE_DATA"), CollectiveMetadata: v.Bool("COLLECTIVE_METADATA"),
		Compress: v.Bool("COMPRESS"), CompressFilter: v.String("COMPRESS_FILTER"),
		ChunkDims: [3]uint64{v.Uint("CHUNK_DIM_1"), v.Uint("CHUNK_DIM_2"), v.Uint("CHUNK_DIM_3")},
		Stride:    v.Uint("STRIDE_SIZE"), Stride2: v.Uint("STRIDE_SIZE_2"),
		Block: v.Uint("BLOCK_SIZE"), Block2: v.Uint("BLOCK_SIZE_2"), BlockCount: v.Uint("BLOCK_CNT"),
		ReadOption: v.String("READ_OPTION"), ToRead: v.Uint("TO_READ_NUM_PARTICLES"),
		FilePerProc: v.Bool("FILE_PER_PROC"), Align: v.Bool("ALIGN"),
		AlignThreshold: v.Uint("ALIGN_THRESHOLD"), AlignLen: v.Uint("ALIGN_LEN"),
	}
	// h5bench ignores DIM_2/DIM_3 beyond NUM_DIMS; they stay 1.
	for d := c.NumDims; d < 3; d++ {
		c.Dims[d] = 1
		c.ChunkDims[d] = 1
	}
	if err := c.validate(v); err != nil {
		return c, err
	}
	return c, c.validateKernel(v)
}

// pattern names the write pattern as h5bench's matrix does (layouts.md 1.3).
func (c Config) pattern() string { return c.MemPattern[:1] + c.FilePattern[:1] }

func (c Config) validate(v *options.Values) error {
	switch c.pattern() {
	case "CC":
	case "CI", "IC", "II":
		if c.NumDims > 2 {
			return v.Errorf("NUM_DIMS", "MEM_PATTERN=%s FILE_PATTERN=%s supports NUM_DIMS 1 or 2", c.MemPattern, c.FilePattern)
		}
	case "CS":
		if c.NumDims != 1 {
			return v.Errorf("NUM_DIMS", "FILE_PATTERN=STRIDED supports NUM_DIMS 1 only")
		}
		if c.Stride < 1 || c.Block < 1 || c.BlockCount < 1 {
			return v.Errorf("FILE_PATTERN", "STRIDED needs STRIDE_SIZE, BLOCK_SIZE and BLOCK_CNT >= 1 (got %d, %d, %d)", c.Stride, c.Block, c.BlockCount)
		}
		if c.BlockCount > 1 && c.Stride < c.Block {
			return v.Errorf("STRIDE_SIZE", "is the distance between block starts and must be >= BLOCK_SIZE %d", c.Block)
		}
		if (c.Stride+c.Block)*c.BlockCount > c.Dims[0] {
			return v.Errorf("BLOCK_CNT", "(STRIDE_SIZE + BLOCK_SIZE) * BLOCK_CNT = %d exceeds DIM_1 = %d", (c.Stride+c.Block)*c.BlockCount, c.Dims[0])
		}
	case "SC", "SI", "SS":
		return v.Errorf("MEM_PATTERN", "STRIDED memory is not a pattern of the h5bench write kernel; allowed with FILE_PATTERN=%s: CONTIG, INTERLEAVED", c.FilePattern)
	case "IS":
		return v.Errorf("FILE_PATTERN", "STRIDED files need MEM_PATTERN=CONTIG")
	}
	if c.DelayedClose > c.Timesteps {
		return v.Errorf("DELAYED_CLOSE_TIMESTEPS", "exceeds TIMESTEPS=%d", c.Timesteps)
	}
	if c.Compress {
		// Dim 1's dataset extent scales with the rank count: the plan checks it.
		for d := 1; d < c.NumDims; d++ {
			if c.ChunkDims[d] > c.Dims[d] {
				return v.Errorf(fmt.Sprintf("CHUNK_DIM_%d", d+1), "exceeds DIM_%d = %d", d+1, c.Dims[d])
			}
		}
		if n := c.ChunkDims[0] * c.ChunkDims[1] * c.ChunkDims[2]; c.CompressFilter == "SZIP" && n < szipPixelsPerBlock {
			return v.Errorf("COMPRESS_FILTER", "SZIP needs chunks of at least %d elements (its pixels per block); CHUNK_DIM_1*CHUNK_DIM_2*CHUNK_DIM_3 = %d", szipPixelsPerBlock, n)
		}
	}
	if c.Align && c.AlignLen == 0 {
		return v.Errorf("ALIGN_LEN", "must be > 0 when ALIGN=YES")
	}
	switch c.ReadOption {
	case "LDC", "RDC", "PRL":
		if c.NumDims != 2 {
			return v.Errorf("READ_OPTION", "needs NUM_DIMS=2")
		}
		if err := c.inRange(v, "BLOCK_SIZE", c.Block, c.Dims[0], "DIM_1"); err != nil {
			return err
		}
		if err := c.inRange(v, "BLOCK_SIZE_2", c.Block2, c.Dims[1], "DIM_2"); err != nil {
			return err
		}
	case "CS":
		if c.NumDims != 2 {
			return v.Errorf("READ_OPTION", "needs NUM_DIMS=2")
		}
		if c.Block < 1 || c.Block2 < 1 || c.Stride < 1 {
			return v.Errorf("READ_OPTION", "CS needs BLOCK_SIZE, BLOCK_SIZE_2 and STRIDE_SIZE >= 1")
		}
		if c.Stride2 >= c.Stride {
			return v.Errorf("STRIDE_SIZE_2", "must be < STRIDE_SIZE = %d for READ_OPTION=CS (h5bench reads nothing otherwise)", c.Stride)
		}
	case "STRIDED":
		if c.FilePattern != "STRIDED" && !c.Kernel.modify() {
			return v.Errorf("READ_OPTION", "STRIDED reads need FILE_PATTERN=STRIDED")
		}
	}
	return nil
}

// inRange enforces h5bench's corner-read rule dim/10 <= block <= dim/5, which h5bench
// silently turns into an empty read; here it is an error.
func (c Config) inRange(v *options.Values, key string, block, dim uint64, dimKey string) error {
	if block < dim/10 || block > dim/5 || block == 0 {
		return v.Errorf(key, "READ_OPTION=%s needs %s/10 <= %s <= %s/5, i.e. %d..%d (h5bench reads nothing otherwise)",
			c.ReadOption, dimKey, key, dimKey, dim/10, dim/5)
	}
	return nil
}

// Particles is the number of particles per rank the write kernel writes (P).
func (c Config) Particles() uint64 { return c.Dims[0] * c.Dims[1] * c.Dims[2] }

// szipPixelsPerBlock is the SZIP block h5proxy uses (HDF5's SZIP needs chunks at least that
// large).
const szipPixelsPerBlock = 16

// compressFilter is what one COMPRESS_FILTER value adds to a chunked dataset: a deflate
// level or a filter, and the plugin that provides a filter HDF5 does not build in.
type compressFilter struct {
	deflate int
	filter  *plan.Filter
	plugin  string
}

// compressFilters maps COMPRESS_FILTER's values to HDF5 filters.
var compressFilters = map[string]compressFilter{
	"GZIP":  {deflate: 9},
	"SZIP":  {filter: &plan.Filter{ID: plan.FilterSZIP, CDValues: []uint32{plan.SZIPNearestNeighbour, szipPixelsPerBlock}}},
	"N_BIT": {filter: &plan.Filter{ID: plan.FilterNBit}},
	"SZ3":   {filter: &plan.Filter{ID: plan.FilterSZ3}, plugin: "SZ3's H5Z filter plugin"},
	"ZFP":   {filter: &plan.Filter{ID: plan.FilterZFP}, plugin: "the H5Z-ZFP filter plugin"},
}

// compression sets the compression of a chunked dataset as COMPRESS_FILTER says.
func (c Config) compression(ds *plan.DatasetSpec) {
	f := compressFilters[c.CompressFilter]
	ds.Deflate = f.deflate
	if f.filter != nil {
		ds.Filters = []plan.Filter{{ID: f.filter.ID, CDValues: append([]uint32(nil), f.filter.CDValues...)}}
	}
}

// checkFilter fails when the write kernel compresses with a filter HDF5 cannot load here
// (h5bench's H5Dcreate would fail on it), naming the key, the value and what is missing.
func (c Config) checkFilter(env patterns.Env) error {
	f := compressFilters[c.CompressFilter]
	if !c.Compress || f.filter == nil || env.FilterAvailable == nil || env.FilterAvailable(f.filter.ID) {
		return nil
	}
	what := fmt.Sprintf("HDF5 cannot write with filter %d", f.filter.ID)
	if f.plugin != "" {
		what += fmt.Sprintf(": %s is not installed or not on HDF5_PLUGIN_PATH (%q; h5bench sets it from vol.path)", f.plugin, os.Getenv("HDF5_PLUGIN_PATH"))
	} else {
		what += ": this HDF5 was built without its encoder"
	}
	return &options.Error{Table: kernelNames[c.Kernel].pattern, Key: "COMPRESS_FILTER", Value: c.CompressFilter, Reason: what}
}
