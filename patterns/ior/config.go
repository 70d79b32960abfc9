package ior

import (
	"fmt"

	"github.com/h5proxy/h5proxy/options"
)

// Access size: IOR transfers IOR_size_t (8-byte) elements; blocks and transfers are
// multiples of it.
const elemSize = 8

// IOR's defaults (ior.c: init_IOR_Param_t).
const (
	defaultBlockSize    = 1 << 20
	defaultTransferSize = 256 << 10
	defaultTestFile     = "testFile"
)

// APIs are the -a values h5proxy runs, each on the layout that issues that API's calls.
var APIs = []string{"POSIX", "MPIIO", "HDF5"}

// Options declares IOR's parameters under the names IOR's scripts and -O directives use
// (parse_options.c: DecodeDirective); ParseArgs maps the short letters onto them.
var Options = &options.Table{Name: "ior", Specs: []options.Spec{
	{Key: "api", Kind: options.Enum, Default: "POSIX", Allowed: APIs, Help: "-a: API for I/O: POSIX, MPIIO or HDF5; h5proxy ior runs it on the posix, mpiio or native layout (in configurations, set layout to match); HDF5 refuses -z and -n needs it, -e and -Y flush nothing under it, as in IOR"},
	{Key: "blockSize", Kind: options.Size, Default: fmt.Sprint(defaultBlockSize), Help: "-b: contiguous bytes each task writes per segment (8, 4k, 2m, 1g)"},
	{Key: "transferSize", Kind: options.Size, Default: fmt.Sprint(defaultTransferSize), Help: "-t: bytes of one write or read call; divides blockSize"},
	{Key: "segmentCount", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "-s: segments: the file holds segmentCount x tasks x blockSize bytes (shared) or segmentCount x blockSize per task (file per process)"},
	{Key: "filePerProc", Kind: options.Bool, Default: "0", Help: "-F: one file per task, testFile.NNNNNNNN"},
	{Key: "collective", Kind: options.Bool, Default: "0", Help: "-c: collective transfers (MPIIO, HDF5)"},
	{Key: "reorderTasks", Kind: options.Bool, Default: "0", Help: "-C: the read phase reads what task (rank + taskPerNodeOffset) % tasks wrote"},
	{Key: "taskPerNodeOffset", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "-Q: the task shift of -C (and the least shift of -Z on several nodes)"},
	{Key: "reorderTasksRandom", Kind: options.Bool, Default: "0", Help: "-Z: the read phase reads what a task drawn at random (seeded per rank) wrote"},
	{Key: "reorderTasksRandomSeed", Kind: options.Int, Default: "0", Help: "-X: seed of -Z; a negative seed adds the repetition number"},
	{Key: "randomOffset", Kind: options.Bool, Default: "0", Help: "-z: transfers at random offsets (seeded) instead of in order; not with HDF5"},
	{Key: "fsync", Kind: options.Bool, Default: "0", Help: "-e: fsync after all the writes of an iteration (POSIX, MPIIO)"},
	{Key: "fsyncPerWrite", Kind: options.Bool, Default: "0", Help: "-Y: fsync after every write (POSIX, MPIIO)"},
	{Key: "writeFile", Kind: options.Bool, Default: "0", Help: "-w: write the file (with none of -w -r -W -R: write and read)"},
	{Key: "readFile", Kind: options.Bool, Default: "0", Help: "-r: read the file"},
	{Key: "checkWrite", Kind: options.Bool, Default: "0", Help: "-W: read back and verify what was written"},
	{Key: "checkRead", Kind: options.Bool, Default: "0", Help: "-R: verify what the read phase reads"},
	{Key: "keepFile", Kind: options.Bool, Default: "0", Help: "-k: keep the file(s) (h5proxy ior removes them otherwise)"},
	{Key: "keepFileWithError", Kind: options.Bool, Default: "0", Help: "-K: keep the file(s) when verification fails"},
	{Key: "repetitions", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "-i: iterations: one h5proxy step each, the file created anew at each"},
	{Key: "interTestDelay", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "-d: seconds of delay between iterations (emulated compute between steps)"},
	{Key: "testFile", Kind: options.String, Default: defaultTestFile, Help: "-o: the test file; h5proxy ior sets the session's file to it (as a pattern key it has no effect: set file)"},
	{Key: "intraTestBarriers", Kind: options.Bool, Default: "0", Help: "-g: barriers between open, transfers and close (accepted; h5proxy's steps begin and end with barriers)"},
	{Key: "singleXferAttempt", Kind: options.Bool, Default: "0", Help: "-x: do not retry an incomplete transfer (accepted; POSIX only, as IOR)"},
	{Key: "showHints", Kind: options.Bool, Default: "0", Help: "-H: print the MPI hints passed (MPIIO, HDF5)"},
	{Key: "setAlignment", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "-J: HDF5 alignment in bytes: H5Pset_alignment(alignment, alignment)"},
	{Key: "noFill", Kind: options.Bool, Default: "0", Help: "-n: no fill in HDF5 dataset creation (H5D_FILL_TIME_NEVER); HDF5 only"},
	{Key: "refNum", Kind: options.Int, Default: "0", Help: "-A: reference number printed in the summary"},
	{Key: "setTimeStampSignature", Kind: options.Int, Default: "0", Help: "-G: IOR's time-stamp signature: the data are IOR's time-stamp packet of this signature (unset: one drawn from the session's seed); a read check of another run's file needs the writer's -G"},
	{Key: "verbose", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "-v: verbosity (accepted; the report is that of verbosity 0)"},
	{Key: "hintsFileName", Kind: options.String, Help: "-U: file of IOR_HINT__MPI__<key>=<value> lines: MPI hints (as the environment variables of that name)"},
	{Key: "collectiveMetadata", Kind: options.Bool, Default: "0", Help: "--hdf5.collectiveMetadata (IOR 4): H5Pset_all_coll_metadata_ops(1) and H5Pset_coll_metadata_write(1) on the file access list; HDF5 only"},
	{Key: "useFileView", Kind: options.Bool, Default: "0", Help: "-V, --mpiio.useFileView (IOR 4): MPI-IO through IOR's file view: set once per open (etype one transfer, filetype the task's block among the tasks'), then per transfer a seek and MPI_File_write_all or _write (read_all, read) of one transfer; MPIIO only"},
	{Key: "chunkSize", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "--hdf5.chunkSize (IOR 4): each segment's dataset chunked in chunks of this many elements (H5Pset_chunk; 0: contiguous); at most the dataset's length; HDF5 only"},
}}

// Config is a validated IOR test.
type Config struct {
	API                                        string
	BlockSize, TransferSize                    uint64
	Segments                                   int
	FilePerProc, Collective                    bool
	ReorderTasks, ReorderRandom                bool
	TaskPerNodeOffset, ReorderSeed             int
	RandomOffset                               bool
	Fsync, FsyncPerWrite                       bool
	WriteFile, ReadFile, CheckWrite, CheckRead bool
	KeepFile, KeepFileWithError                bool
	Repetitions, InterTestDelay                int
	TestFile                                   string
	IntraTestBarriers, SingleXferAttempt       bool
	ShowHints, NoFill                          bool
	Alignment                                  uint64
	// CollMetadata is IOR 4's --hdf5.collectiveMetadata; ChunkSize its --hdf5.chunkSize
	// (elements, 0 contiguous).
	CollMetadata bool
	ChunkSize    uint64
	// UseFileView is -V (IOR 4: --mpiio.useFileView).
	UseFileView                bool
	RefNum, Verbose, Signature int
	HintsFile                  string
}

// FromValues builds a Config from parsed options and applies IOR's checks (ior.c:
// ValidateTests, parse_options.c: CheckRunSettings) that need no rank count. Checks IOR
// answers with a warning and a reset (WARN_RESET) reset the value here too; their
// messages are returned.
func FromValues(v *options.Values) (Config, []string, error) {
	c := Config{API: v.String("api"), BlockSize: v.Uint("blockSize"), TransferSize: v.Uint("transferSize"), Segments: int(v.Int("segmentCount")),
		FilePerProc: v.Bool("filePerProc"), Collective: v.Bool("collective"), ReorderTasks: v.Bool("reorderTasks"), ReorderRandom: v.Bool("reorderTasksRandom"),
		TaskPerNodeOffset: int(v.Int("taskPerNodeOffset")), ReorderSeed: int(v.Int("reorderTasksRandomSeed")), RandomOffset: v.Bool("randomOffset"),
		Fsync: v.Bool("fsync"), FsyncPerWrite: v.Bool("fsyncPerWrite"), WriteFile: v.Bool("writeFile"), ReadFile: v.Bool("readFile"),
		CheckWrite: v.Bool("checkWrite"), CheckRead: v.Bool("checkRead"), KeepFile: v.Bool("keepFile"), KeepFileWithError: v.Bool("keepFileWithError"),
		Repetitions: int(v.Int("repetitions")), InterTestDelay: int(v.Int("interTestDelay")), TestFile: v.String("testFile"),
		IntraTestBarriers: v.Bool("intraTestBarriers"), SingleXferAttempt: v.Bool("singleXferAttempt"), ShowHints: v.Bool("showHints"),
		NoFill: v.Bool("noFill"), Signature: int(v.Int("setTimeStampSignature")), Alignment: v.Uint("setAlignment"), RefNum: int(v.Int("refNum")), Verbose: int(v.Int("verbose")),
		HintsFile: v.String("hintsFileName"), CollMetadata: v.Bool("collectiveMetadata"), ChunkSize: v.Uint("chunkSize"), UseFileView: v.Bool("useFileView")}
	if !c.WriteFile && !c.ReadFile && !c.CheckWrite && !c.CheckRead {
		c.WriteFile, c.ReadFile = true, true
	}
	warns, err := c.validate()
	if err != nil {
		return c, warns, &Error{Msg: err.Error()}
	}
	return c, warns, nil
}

// validate is ValidateTests' list, in its order, for the parameters h5proxy models.
func (c *Config) validate() ([]string, error) {
	var warns []string
	reset := func(msg string, field *bool) {
		warns = append(warns, fmt.Sprintf("%s.  Using value of 0.", msg))
		*field = false
	}
	hdf5 := c.API == "HDF5"
	switch {
	case c.Signature == 0 && !c.WriteFile && c.CheckRead:
		return warns, fmt.Errorf("using readCheck only requires to write a timeStampSignature -- use -G")
	case c.BlockSize%elemSize != 0:
		return warns, fmt.Errorf("block size must be a multiple of access size")
	case c.TransferSize%elemSize != 0:
		return warns, fmt.Errorf("transfer size must be a multiple of access size")
	case c.TransferSize == 0:
		return warns, fmt.Errorf("test will not complete with zero transfer size")
	case c.BlockSize%c.TransferSize != 0:
		return warns, fmt.Errorf("block size must be a multiple of transfer size")
	case c.BlockSize < c.TransferSize:
		return warns, fmt.Errorf("block size must not be smaller than transfer size")
	}
	if c.API != "POSIX" && c.SingleXferAttempt {
		reset("retry only available in POSIX", &c.SingleXferAttempt)
	}
	if hdf5 && c.Fsync {
		reset("fsync() not supported in selected backend", &c.Fsync)
	}
	if c.API == "POSIX" && c.ShowHints {
		reset("hints not available in POSIX", &c.ShowHints)
	}
	if c.API == "POSIX" && c.Collective {
		reset("collective not available in POSIX", &c.Collective)
	}
	switch {
	case c.ReorderTasks && c.ReorderRandom:
		return warns, fmt.Errorf("Both Constant and Random task re-ordering specified. Choose one and resubmit")
	case c.RandomOffset && c.ReorderRandom && !c.FilePerProc:
		return warns, fmt.Errorf("random offset and random reorder tasks specified with single-shared-file. Choose one and resubmit")
	case c.RandomOffset && c.ReorderTasks && !c.FilePerProc:
		return warns, fmt.Errorf("random offset and constant reorder tasks specified with single-shared-file. Choose one and resubmit")
	case c.RandomOffset && c.CheckRead:
		return warns, fmt.Errorf("random offset not available with read check option (use write check)")
	case c.API == "MPIIO" && c.RandomOffset && c.Collective:
		return warns, fmt.Errorf("random offset not available with collective MPIIO")
	case hdf5 && c.RandomOffset:
		return warns, fmt.Errorf("random offset not available with HDF5")
	case c.NoFill && !hdf5:
		return warns, fmt.Errorf("'no fill' option only available in HDF5")
	case (c.CollMetadata || c.ChunkSize > 0) && !hdf5:
		return warns, fmt.Errorf("--hdf5.collectiveMetadata and --hdf5.chunkSize (collectiveMetadata, chunkSize) are options of the HDF5 backend: use -a HDF5")
	case c.UseFileView && c.API != "MPIIO":
		return warns, fmt.Errorf("--mpiio.useFileView (-V, useFileView) is an option of the MPIIO backend: use -a MPIIO")
	case c.UseFileView && c.RandomOffset: // aiori-MPIIO.c: MPIIO_check_params
		return warns, fmt.Errorf("random offset not available with MPIIO fileviews")
	}
	return warns, nil
}

// Error is one of IOR's errors (its ERR macro): the text IOR prints after "ior ERROR: ".
type Error struct{ Msg string }

// Error returns IOR's line.
func (e *Error) Error() string { return "ior ERROR: " + e.Msg }

// Layout is the h5proxy layout that issues the calls of the API: POSIX pwrite/pread,
// MPI-IO, or HDF5 over MPI-IO.
func (c Config) Layout() string {
	switch c.API {
	case "MPIIO":
		return "mpiio"
	case "HDF5":
		return "native"
	}
	return "posix"
}

// elems is a byte count in IOR_size_t elements.
func elems(bytes uint64) uint64 { return bytes / elemSize }

// transfers is the number of transfers per block.
func (c Config) transfers() int { return int(c.BlockSize / c.TransferSize) }
