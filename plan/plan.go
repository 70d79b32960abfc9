package plan

import (
	"fmt"
	"io"
	"strings"
)

// OpKind names one HDF5-level operation.
type OpKind int

// The operations a plan can contain.
const (
	CreateFile OpKind = iota + 1
	OpenFile
	FlushFile
	CloseFile
	CreateGroup
	OpenGroup
	CloseGroup
	CreateDataset
	OpenDataset
	CloseDataset
	WriteAttribute
	Write
	Read
	// ExtendDataset grows a chunked dataset with unlimited dimensions to the extent in
	// Op.Dataset.Shape (H5Dset_extent; collective on a shared file). Only Shape is used.
	ExtendDataset
	// WaitBaton blocks until the rank in Op.Baton.Peer hands this rank the baton (an MPI
	// point-to-point receive on the session's communicator): a serial group's turn-taking,
	// as MACSio's multiple-independent-file mode does. It touches no file.
	WaitBaton
	// PassBaton hands the baton to the rank in Op.Baton.Peer (a synchronous MPI send), once
	// every operation this rank issued before it has completed, so the next holder finds
	// the file closed and whole.
	PassBaton
	// SelectFile makes the open file at Op.Path the current file, the one the object
	// operations after it apply to (they name no file). A program that keeps several files
	// open holds each one's handles and writes to either without reopening; a plan says
	// which with this operation. Opening a file makes it current; closing the current file
	// makes the file opened (or selected) before it current again. It makes no library
	// call: the session charges it no time and the census counts no call. It comes last
	// so that the kinds before it, each an HDF5 or MPI call, keep their numbers.
	SelectFile
	// CreateLink creates the link at Path (an absolute path in the current file) described
	// by Op.Link: a hard link to an existing object (H5Lcreate_hard), a soft link to a path
	// (H5Lcreate_soft) or an external link to an object of another file
	// (H5Lcreate_external). It comes after SelectFile so that the kinds before it keep
	// their numbers; the census counts it apart, by link kind.
	CreateLink
	// Scale makes the dataset at Path a dimension scale or attaches one to a dimension of
	// it, as Op.Scale says (scale.go: H5DSset_scale, H5DSattach_scale).
	Scale
	// ReadAttribute reads the attribute Op.Attribute.Name of the object at Path ("/": the
	// file's root, through the file's identifier; else an open group or dataset) as a
	// reader does: H5Aopen, H5Aread with Op.Attribute.Type as the memory type (or, with
	// Op.Attribute.Stored, H5Aget_type and the attribute's own type), H5Aclose. A value in
	// Op.Attribute.Value is what the writer wrote: the read is verified against it. It
	// comes after Scale so that the kinds before it keep their numbers; the census counts
	// it apart (H5Aread).
	ReadAttribute
)

// LinkKind is the kind of a link a CreateLink operation creates.
type LinkKind int

// The link kinds.
const (
	HardLink     LinkKind = iota + 1 // H5Lcreate_hard: another name of an existing object
	SoftLink                         // H5Lcreate_soft: a path, resolved when traversed
	ExternalLink                     // H5Lcreate_external: an object in another file
)

var linkNames = map[LinkKind]string{HardLink: "hard", SoftLink: "soft", ExternalLink: "external"}

// String names the kind as a description does (hard, soft, external).
func (k LinkKind) String() string {
	if s, ok := linkNames[k]; ok {
		return s
	}
	return fmt.Sprintf("link(%d)", int(k))
}

// LinkSpec is what a CreateLink operation creates.
type LinkSpec struct {
	Kind LinkKind
	// Target is the object's path: for a hard link an absolute path in the same file, for
	// a soft link the path stored as written (relative paths resolve from the link's
	// group when traversed), for an external link the path inside File.
	Target string
	// File is an external link's file name, stored as written (HDF5 resolves a relative
	// name from the linking file's directory, among others, when traversed).
	File string
}

var opNames = map[OpKind]string{
	CreateFile: "create-file", OpenFile: "open-file", FlushFile: "flush-file", CloseFile: "close-file",
	CreateGroup: "create-group", OpenGroup: "open-group", CloseGroup: "close-group",
	CreateDataset: "create-dataset", OpenDataset: "open-dataset", CloseDataset: "close-dataset",
	WriteAttribute: "write-attribute", Write: "write", Read: "read",
	ExtendDataset: "extend-dataset", WaitBaton: "wait-baton", PassBaton: "pass-baton",
	SelectFile: "select-file", CreateLink: "create-link", ReadAttribute: "read-attribute",
}

// String returns the kebab-case name of the operation.
func (k OpKind) String() string {
	if s, ok := opNames[k]; ok {
		return s
	}
	return fmt.Sprintf("op(%d)", int(k))
}

// Category is the metric bucket an operation's time is charged to, as h5bench splits it.
type Category int

// Metric categories.
const (
	CatFile     Category = iota + 1 // file create/open/flush/close
	CatMetadata                     // group, dataset and attribute operations
	CatRaw                          // dataset reads and writes
)

// String returns file, metadata or raw.
func (c Category) String() string {
	switch c {
	case CatFile:
		return "file"
	case CatMetadata:
		return "metadata"
	case CatRaw:
		return "raw"
	}
	return fmt.Sprintf("category(%d)", int(c))
}

// Category returns the metric category of an operation kind.
func (k OpKind) Category() Category {
	switch k {
	case CreateFile, OpenFile, FlushFile, CloseFile, WaitBaton, PassBaton, SelectFile:
		return CatFile
	case Write, Read:
		return CatRaw
	}
	return CatMetadata
}

// FileSpec holds the file-access settings of a create or open.
type FileSpec struct {
	// Parallel opens the file through MPI-IO on the session communicator; false means each
	// rank opens its own file with the default (sec2) driver.
	Parallel bool
	// TruncateEveryRank creates a shared file on the posix layout as h5perf's POSIX
	// do_fopen does: every rank opens it with O_CREAT|O_TRUNC and keeps that descriptor,
	// then all synchronize, instead of rank 0 truncating it alone first. On ext4 a file
	// truncated by open is written back at its close (auto_da_alloc), inside the
	// program's Open-Close timer; the other layouts ignore it.
	TruncateEveryRank bool
	// GroupRanks, when > 0 with Parallel and less than the ranks, makes the file one of a
	// group of ranks (N-to-M files): ranks rank/GroupRanks*GroupRanks .. share it (the last
	// group may be smaller), open it through MPI-IO on the group's communicator (the
	// layout's split by group) and take part in its collective operations alone. Every
	// rank opens its group's file at the same operation: the split is collective over the
	// layout's communicator.
	GroupRanks int
	// SelfMPIIO opens a per-rank file (Parallel false) through MPI-IO on MPI_COMM_SELF
	// rather than the default driver, as IOR's HDF5 backend opens its files per process
	// (HDF5 then allocates datasets early, as for every MPI-IO file).
	SelfMPIIO bool
	// SharedLater marks a per-rank create (Parallel false) of a file that one rank creates
	// alone before the ranks that share it open it (AMReX's headers, a description's
	// create: rank0). The layouts create it as any per-rank file, but for a layout that
	// keeps a shared file in a form of its own, which must create it in that form on this
	// rank: the subfiling VFD creates it through the VFD on MPI_COMM_SELF, so that the
	// ranks' later open finds its subfiles.
	SharedLater bool
	// ReadOnly applies to opens.
	ReadOnly bool
	// CollMetadataOps and CollMetadataWrite map to H5Pset_all_coll_metadata_ops and
	// H5Pset_coll_metadata_write.
	CollMetadataOps, CollMetadataWrite bool
	// AlignThreshold and AlignLen map to H5Pset_alignment when AlignLen > 0.
	AlignThreshold, AlignLen uint64
	// MDCInitialSize, when > 0, sets the metadata cache initial size with automatic
	// resizing off and, unless MDCEvictions, evictions off too (h5bench's hard-coded cache
	// configuration). MDCMinSize and MDCMaxSize, when > 0, bound the cache (E3SM-IO: 32 and
	// 128 MiB, evictions on).
	MDCInitialSize, MDCMinSize, MDCMaxSize uint64
	MDCEvictions                           bool
	// MDCAdjust, when set, edits HDF5's default metadata cache configuration in place, its
	// automatic resizing kept on (MACSio's settings), instead of fixing it as MDCInitialSize.
	MDCAdjust *MDCAdjust
	// CloseSemi sets the file close degree to H5F_CLOSE_SEMI (closing with objects still
	// open fails), as MACSio's multiple-independent-file mode opens its files.
	CloseSemi bool
	// LibverLatest sets the library version bounds to LATEST/LATEST (the newest object
	// formats, as E3SM-IO's canonical files use).
	LibverLatest bool
	// MetaBlockSize, when > 0, maps to H5Pset_meta_block_size.
	MetaBlockSize uint64
	// FlushLocal flushes with H5F_SCOPE_LOCAL (h5bench) rather than GLOBAL.
	FlushLocal bool
	// MakeDirs creates the missing parent directories of a created file first, as
	// applications that write a directory tree do (AMReX's pltNNNNN/particle0/).
	MakeDirs bool
	// Tuning holds the session knobs' further access and creation properties.
	Tuning FileTuning
	// Hints passes an MPI_Info object at every MPI-IO open (the session's hints, or none)
	// instead of MPI_INFO_NULL when there are none, as programs that always create one do
	// (IOR's SetHints, utilities.c): profilers count the open as passing hints (Darshan's
	// MPIIO_HINTS), and HDF5's MPI-IO driver passes the object at every set_view too. The
	// native and mpiio layouts honour it.
	Hints bool
	// LinkOrder and AttrOrder track and index the creation order of the root group's
	// links and attributes (H5Pset_link_creation_order, H5Pset_attr_creation_order on the
	// file creation list: OrderTracked, OrderIndexed); 0: untracked.
	LinkOrder, AttrOrder int
	// NoTimes leaves the root group's object times untracked (H5Pset_obj_track_times
	// false on the file creation list), as netCDF-4 and h5py create their files: its
	// object header is 16 bytes smaller.
	NoTimes bool
	// Info are the file's own MPI-IO hints (a description's files.ID.hints), passed in
	// its MPI-IO opens' MPI_Info beneath the session's hints, which win key by key.
	Info map[string]string
	// UniqueOpen adds MPI_MODE_UNIQUE_OPEN to the mpiio layout's opens (IOR's MPIIO_Open).
	UniqueOpen bool
	// Complete says that the program's transfers write every byte of the datasets the file
	// lays out before anything reads it (IOR's blocks), so the raw layouts (mpiio, posix)
	// need not ask the file's size: no growth check at close (fstat, MPI_File_get_size) and
	// no bound of collective reads by it, calls the program does not make.
	Complete bool
	// CreateEveryRank, on the posix layout, creates a shared file as IOR's POSIX_Create
	// does (aiori-POSIX.c): every rank opens it with O_CREAT|O_RDWR, no truncation and no
	// synchronization (IOR removed the file before).
	CreateEveryRank bool
	// Mode is the permission bits of a posix create (0: 0644); IOR's are 0664.
	Mode uint32
	// Seek makes the posix layout's transfers an lseek, then a write (read) loop, as IOR's
	// POSIX_Xfer, instead of pwrite (pread).
	Seek bool
	// View, on the mpiio layout, opens the file with IOR's MPI-IO file view
	// (--mpiio.useFileView, -V); the other layouts ignore it.
	View *FileView
	// Written, on an open of a file another process wrote (NOvA's inputs, each written by
	// one rank of the write phase and read by another), lists the file's datasets as
	// their writer created them, in creation order. The raw layouts (mpiio, posix), whose
	// files carry no metadata, lay a file their session has not laid out out from it, as
	// the writer's creates did; the HDF5 layouts read the file's own metadata and ignore
	// it. Entries may share a DatasetSpec: readers must not change them.
	Written []WrittenDataset
}

// WrittenDataset is one dataset of plan.FileSpec.Written: its path and creation.
type WrittenDataset struct {
	Path    string
	Dataset *DatasetSpec
}

// FileView is IOR's MPI-IO file view (aiori-MPIIO.c, MPIIO_Open and MPIIO_Xfer): set once
// at open with an etype of one transfer (Transfer/8 MPI_LONG_LONG_INT) and a filetype
// showing task Task's block of Block bytes among Tasks blocks, repeated every segment;
// each transfer then seeks the individual file pointer to its place in the view (in
// transfers) and moves one transfer with MPI_File_write_all or _write (read_all, read).
type FileView struct {
	// Transfer and Block are IOR's transfer and block sizes in bytes (Block a multiple of
	// Transfer, Transfer of 8).
	Transfer, Block uint64
	// Tasks are the tasks sharing the file (1 with a file per process) and Task the one
	// whose blocks the view shows (IOR's offsetFactor: the rank, shifted by a read's
	// reordering).
	Tasks, Task int
}

// Offset is the place of the transfer at file byte offset off in the view, in transfers
// (IOR's SeekOffset); ok is false when off does not start one of the view's transfers.
func (v *FileView) Offset(off uint64) (pos uint64, ok bool) {
	per := v.Block * uint64(v.Tasks)
	in := off % per
	lo := uint64(v.Task) * v.Block
	if v.Transfer == 0 || in < lo || in >= lo+v.Block || (in-lo)%v.Transfer != 0 {
		return 0, false
	}
	return v.Block/v.Transfer*(off/per) + (in-lo)/v.Transfer, true
}

// Ranks returns how many of size ranks share the file rank opens with these settings:
// size for a shared file, its group's ranks for a group file (GroupRanks), 1 for a
// per-rank file.
func (f *FileSpec) Ranks(rank, size int) int {
	switch {
	case !f.Parallel:
		return 1
	case f.GroupRanks > 0 && f.GroupRanks < size:
		return min(f.GroupRanks, size-rank/f.GroupRanks*f.GroupRanks)
	}
	return size
}

// MDCAdjust are metadata cache settings applied over HDF5's defaults (H5Pget_mdc_config,
// then H5Pset_mdc_config), automatic resizing left as it is.
type MDCAdjust struct {
	Initial, Min uint64
	EpochLength  int
	LowerHitRate float64
}

// DatasetSpec describes a dataset's creation properties.
type DatasetSpec struct {
	Type     Type
	Shape    []uint64
	MaxShape []uint64 // nil: same as Shape; MaxUnlimited entries are H5S_UNLIMITED
	Chunk    []uint64 // nil: contiguous
	Deflate  int      // 0: no filter; 1..9: H5Pset_deflate level
	// Filters are further filters of the pipeline, applied before deflate (chunked datasets
	// only): N-Bit packs values that deflate then compresses.
	Filters []Filter
	// FillNever sets H5D_FILL_TIME_NEVER.
	FillNever bool
	// Compact stores the raw data in the object header (H5D_COMPACT): for small datasets
	// only (under 64 KiB), never chunked or filtered; ph5concat creates its zero-size
	// datasets so.
	Compact bool
	// AttrOrder tracks (OrderTracked) and indexes (OrderIndexed) the creation order of
	// the dataset's attributes (H5Pset_attr_creation_order); 0: HDF5's default, untracked.
	AttrOrder int
	// NoTimes leaves the dataset's object times untracked (H5Pset_obj_track_times false).
	NoTimes bool
	// Virtual, when set, makes the dataset virtual (H5D_VIRTUAL) with these mappings: it
	// holds no data of its own and is never written.
	Virtual []VirtualSource
	// FillUndefined leaves the fill value undefined (H5Pset_fill_value with a NULL value),
	// as E3SM-IO's HDF5 driver creates its datasets; otherwise HDF5 stores its default
	// (zero) fill value.
	FillUndefined bool
	// FillValue, when set, is the fill value's bytes in Type (H5Pset_fill_value).
	FillValue []byte
	// Tuning holds the session knobs' further creation properties.
	Tuning DatasetTuning
	// API1 creates the dataset with H5Dcreate1 and opens it with H5Dopen1, HDF5's
	// deprecated calls, as programs written for the 1.6 API do (IOR's aiori-HDF5.c):
	// profilers mark such datasets (Darshan's H5D_USE_DEPRECATED). The creation then has
	// no link or access list: the native layout's HDF5 calls only.
	API1 bool
}

// Filter is one HDF5 filter of a dataset's pipeline: its filter identifier and the client
// data values passed to the filter when the dataset is created (none: the filter's own
// defaults, which its set-local callback completes).
type Filter struct {
	ID       uint32
	CDValues []uint32
}

// HDF5 filter identifiers beyond deflate: the two built-in compressors of HDF5 1.10 and
// the registered identifiers of two plugins (loaded from HDF5_PLUGIN_PATH).
const (
	FilterDeflate     uint32 = 1     // H5Z_FILTER_DEFLATE in the pipeline's order (CDValues: level)
	FilterShuffle     uint32 = 2     // H5Z_FILTER_SHUFFLE
	FilterFletcher32  uint32 = 3     // H5Z_FILTER_FLETCHER32
	FilterScaleOffset uint32 = 6     // H5Z_FILTER_SCALEOFFSET (CDValues: scale type, factor)
	FilterSZIP        uint32 = 4     // H5Z_FILTER_SZIP (libaec or szip)
	FilterNBit        uint32 = 5     // H5Z_FILTER_NBIT
	FilterZFP         uint32 = 32013 // H5Z-ZFP plugin
	FilterSZ3         uint32 = 32024 // SZ3's H5Z plugin
)

// SZIP parameters (H5Pset_szip's options mask): nearest-neighbour coding.
const SZIPNearestNeighbour uint32 = 32 // H5_SZIP_NN_OPTION_MASK

// MaxUnlimited marks an unlimited maximum extent.
const MaxUnlimited = ^uint64(0)

// AttributeSpec is an attribute write: a 1-D (or scalar, when Shape is nil) attribute of
// the given type whose bytes are Value; or, on a ReadAttribute, the read: the memory type
// and shape read and the bytes expected (nil: not verified).
type AttributeSpec struct {
	Name  string
	Type  Type
	Shape []uint64
	Value []byte
	// Stored, on a ReadAttribute, reads with the attribute's own datatype (H5Aget_type,
	// closed after the read) instead of a memory type of Type, as a reader that learns a
	// string's length from the file does (AMReX's version_name); Type and Shape then say
	// what the writer stored, and so the bytes read.
	Stored bool
	// Exists, on a WriteAttribute, writes an attribute an earlier write created again: it
	// is opened (H5Aopen) and written, not created, as a code rewrites an attribute in
	// place (netCDF-4's _Netcdf4Dimid, PETSc's timestepping).
	Exists bool
}

// CheckReadType reports why a read of the attribute could not go into a buffer of
// len(Value) bytes: a read takes a fixed-size Type without references (a variable-length
// or reference value would be read as pointers into library memory). nil when it can.
func (a AttributeSpec) CheckReadType() error {
	if a.Type.Class == Reference || a.Type.HasVarLen() {
		return fmt.Errorf("attribute %s: a read takes a fixed-size type without references (type %s)", a.Name, a.Type)
	}
	return nil
}

// Transfer is a dataset read or write: the selection in the file dataspace, the memory
// type and shape (the whole memory space is selected unless MemSelection says otherwise)
// and the buffer that holds the data.
type Transfer struct {
	// Variable names the data when MemType is atomic; compound members name themselves.
	Variable string
	// Buffer names the memory buffer. Writes of one step that name the same buffer share it
	// (and must select the same file elements).
	Buffer   string
	MemType  Type
	MemShape []uint64
	// MemSelection, when set, selects the elements of the memory space (MemShape) the
	// transfer moves, as hyperslabs: a buffer larger than the selection, such as a block
	// with ghost cells around it. Its elements pair in row-major order with the file
	// selection's, as many of them. Nil selects the whole memory space. Layouts that hand
	// HDF5 a memory space (stack.MemorySpaces) select it there; the session gives the
	// others the selected elements packed.
	MemSelection *Selection
	// FileType is the dataset's datatype; with compound types HDF5 converts the members
	// present in both, by name.
	FileType  Type
	FileShape []uint64
	Selection Selection
	// Data, when set, holds the exact memory bytes (MemType × MemShape) of a write instead
	// of the session's fill: index datasets whose values carry meaning (AMReX's boxes and
	// offsets). A read with Data set is verified against these bytes.
	Data []byte
	// BufferOffset places the buffer this many bytes past a page boundary (0: aligned).
	// A C program's large malloc'd buffer starts 16 bytes past one, and the kernel copies
	// into or out of it more slowly than into an aligned one; a proxy of such a program
	// (h5perf) places its buffer where the program's malloc does.
	BufferOffset int
	// AsIs marks a write of the buffer's current bytes, not filled first: Data must hold
	// them (zeros for a buffer no operation has touched yet). A program that writes a
	// freshly allocated, uninitialized buffer (h5perf) then maps its pages inside the write,
	// as the program does.
	AsIs bool
	// Unchecked marks a read whose contents depend on how the file was written (e.g. on
	// the writer's rank count) and are not verified.
	Unchecked bool
	// Tuning holds the session knobs' transfer properties (collective transfers only).
	Tuning TransferTuning
}

// memSelection checks a memory selection: hyperslabs inside the memory space, as many
// elements as the file selection, no H5S_ALL file side, no explicit data.
func (t *Transfer) memSelection() error {
	ms := t.MemSelection
	if ms.Kind != Hyperslabs || t.Selection.Kind == Whole {
		return fmt.Errorf("a memory selection is hyperslabs, with a file selection other than the whole dataspace (H5S_ALL)")
	}
	if err := ms.Validate(t.MemShape); err != nil {
		return fmt.Errorf("memory selection: %w", err)
	}
	if n, m := t.Selection.NPoints(t.FileShape), ms.NPoints(t.MemShape); n != m {
		return fmt.Errorf("file selection has %d points, memory selection in %v has %d", n, t.MemShape, m)
	}
	if t.Data != nil {
		return fmt.Errorf("a transfer with a memory selection takes the session's data, not Data")
	}
	return nil
}

// Packed returns the transfer with its memory selection's elements packed in a buffer
// of their own (MemShape the element count, no memory selection), t itself when it has
// no memory selection: the same file elements with the same values, for a layout that
// has no memory space to select in.
func (t *Transfer) Packed() *Transfer {
	if t.MemSelection == nil {
		return t
	}
	c := *t
	c.MemShape, c.MemSelection = []uint64{t.Selection.NPoints(t.FileShape)}, nil
	return &c
}

// ElemBytes is the number of bytes moved per selected element: the members common to the
// memory and file compound types, or the element size.
func (t *Transfer) ElemBytes() uint64 {
	if t.MemType.Class != Compound || t.FileType.Class != Compound {
		return uint64(t.MemType.Size)
	}
	var n uint64
	for _, m := range t.MemType.Members {
		for _, f := range t.FileType.Members {
			if f.Name == m.Name {
				n += uint64(m.Type.Size)
			}
		}
	}
	return n
}

// Bytes is the number of bytes moved between memory and file.
func (t *Transfer) Bytes() uint64 { return t.Selection.NPoints(t.FileShape) * t.ElemBytes() }

// Op is one operation of a plan.
type Op struct {
	Kind OpKind
	// Path is the file path for file operations, else the object's absolute path in the
	// file. A close-file closes the open file at Path, current or not (an empty Path: the
	// current file).
	Path       string
	Collective bool
	// CollMetadata asks, for an open-dataset operation, for collective metadata reads on
	// its dataset access list (H5Pset_all_coll_metadata_ops), as h5bench's read kernel
	// sets them: the file access list's setting does not reach a dataset opened with the
	// default access list in HDF5 1.10 (docs/fidelity-notes.md §7); for an open-group
	// operation on its group access list (openPMD-api's parent groups).
	CollMetadata bool
	// AsObject asks, for an open-group or open-dataset operation, for HDF5's generic
	// H5Oopen (closed with H5Oclose) instead of H5Gopen2 or H5Dopen2: openPMD-api opens an
	// object that way to write each attribute, and profilers that follow H5Dopen (Darshan's
	// H5D module, libh5proxy-profile.so) count no dataset open for it. With CollMetadata the
	// link access list asks for collective metadata reads. Set on the matching close too,
	// which the layout makes an H5Oclose (it knows from the open) and the census counts as
	// one. Layouts that do not open HDF5 objects ignore it.
	AsObject bool
	// API1 asks, for a create-group operation, for HDF5's 1.6 call H5Gcreate1(loc, name, 0)
	// instead of H5Gcreate2, as programs written for that API create their groups (MACSio's
	// plugin). Datasets say so in DatasetSpec.API1. Layouts that make no HDF5 groups ignore
	// it.
	API1 bool
	// InParent asks, for a create-group or create-dataset operation, for the create in its
	// parent group, which the plan holds open (an OpenGroup of the parent before it), by
	// the last component of Path (H5Gcreate2 or H5Dcreate2(parent, name)), as openPMD-api's
	// createPath and createDataset make them. Darshan names an H5D record by H5Iget_name of
	// the location and the name passed, so such a create gets a record of its own
	// ("FILE:/a/bx") apart from the opens by the full path ("FILE://a/b/x"). Layouts that
	// make no HDF5 objects ignore it.
	InParent  bool
	Step      int
	File      *FileSpec
	Dataset   *DatasetSpec
	Attribute *AttributeSpec
	Transfer  *Transfer
	// Baton names the peer of a WaitBaton or PassBaton.
	Baton *Baton
	// Link is what a CreateLink creates.
	Link *LinkSpec
	// Scale is what a Scale operation does.
	Scale *ScaleSpec
	// Group, on a CreateGroup, is the group's creation properties (nil: the defaults).
	Group *GroupSpec
}

// Baton is one hand-off of a serial group's baton: ranks that must take turns on a file
// (a group of ranks sharing one file through the default driver, which has no parallel
// access) order themselves with these point-to-point messages instead of a collective.
// A plan waits for the baton from the rank before it (unless it is the group's first),
// does its I/O, closes, and passes the baton to the rank after it (unless it is the last).
type Baton struct {
	// Peer is the rank (in the session's communicator) the baton comes from or goes to.
	Peer int
	// Tag is the MPI message tag (MACSio's MIF uses 3).
	Tag int
	// Stat, on a PassBaton, names a file whose size on disk the rank records once it has
	// closed it, before the hand-off: the file as this rank left it, which is what a
	// program that stats its files right after its turn sees (MACSio's
	// MACSIO_UTILS_StatFiles after its dump, racing the next rank's turn).
	// patterns.Env.DiskSize returns the recorded size.
	Stat string
}

// Plan is the ordered list of operations one rank issues for one phase step.
type Plan struct {
	Ops []Op
}

// Add appends operations.
func (p *Plan) Add(ops ...Op) { p.Ops = append(p.Ops, ops...) }

// RawBytes sums the bytes of all reads and writes.
func (p *Plan) RawBytes() uint64 {
	var n uint64
	for i := range p.Ops {
		if t := p.Ops[i].Transfer; t != nil {
			n += t.Bytes()
		}
	}
	return n
}

// Print writes a human-readable listing, one operation per line.
func (p *Plan) Print(w io.Writer) error {
	for i := range p.Ops {
		if _, err := fmt.Fprintln(w, p.Ops[i].String()); err != nil {
			return err
		}
	}
	return nil
}

// String renders one operation on one line.
func (o Op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-15s %s", o.Kind, o.Path)
	if o.Collective {
		b.WriteString(" [collective]")
	}
	if o.AsObject {
		b.WriteString(" [H5Oopen]")
	}
	if o.API1 {
		b.WriteString(" [1.6 API]")
	}
	if o.InParent {
		b.WriteString(" [in parent]")
	}
	if d := o.Dataset; d != nil && o.Kind == ExtendDataset {
		fmt.Fprintf(&b, " extent=%v", d.Shape)
	} else if d != nil {
		fmt.Fprintf(&b, " type=%s shape=%v", d.Type, d.Shape)
		if d.Chunk != nil {
			fmt.Fprintf(&b, " chunk=%v", d.Chunk)
		}
		if d.Deflate > 0 {
			fmt.Fprintf(&b, " deflate=%d", d.Deflate)
		}
		if d.Compact {
			b.WriteString(" compact")
		}
		if d.NoTimes {
			b.WriteString(" untimed")
		}
		for _, f := range d.Filters {
			fmt.Fprintf(&b, " filter=%d%v", f.ID, f.CDValues)
		}
	}
	if (o.Group != nil && o.Group.NoTimes) || (o.File != nil && o.File.NoTimes && o.Kind == CreateFile) {
		b.WriteString(" untimed") // created without object times (track_times: false)
	}
	if o.Baton != nil {
		fmt.Fprintf(&b, " peer=%d tag=%d", o.Baton.Peer, o.Baton.Tag)
	}
	if l := o.Link; l != nil {
		fmt.Fprintf(&b, " %s=", l.Kind)
		if l.File != "" {
			b.WriteString(l.File + ":")
		}
		b.WriteString(l.Target)
	}
	if o.Scale != nil {
		b.WriteString(" " + o.Scale.String())
	}
	if a := o.Attribute; a != nil {
		fmt.Fprintf(&b, " @%s type=%s shape=%v", a.Name, a.Type, a.Shape)
		if a.Stored {
			b.WriteString(" [stored type]")
		}
	}
	if t := o.Transfer; t != nil {
		fmt.Fprintf(&b, " mem=%s%v buffer=%s", t.MemType, t.MemShape, t.Buffer)
		switch sel := t.Selection; {
		case sel.IsNone():
			b.WriteString(" select=none")
		case sel.Kind == Whole:
			b.WriteString(" select=all")
		case sel.Kind == Points:
			fmt.Fprintf(&b, " select=points")
			for _, h := range sel.Blocks {
				fmt.Fprintf(&b, " %v", h.Start)
			}
		default:
			for _, h := range sel.Blocks {
				fmt.Fprintf(&b, " start=%v stride=%v count=%v block=%v", h.Start, h.Stride, h.Count, h.Block)
			}
		}
	}
	return b.String()
}

// Validate checks the internal consistency of every operation: datatypes, shapes,
// selections inside datasets, memory sizes matching selections.
func (p *Plan) Validate() error {
	for i := range p.Ops {
		o := &p.Ops[i]
		if err := o.validate(); err != nil {
			return fmt.Errorf("plan op %d (%s %s): %w", i, o.Kind, o.Path, err)
		}
	}
	return nil
}

func (o *Op) validate() error {
	switch o.Kind {
	case CreateFile, OpenFile:
		if o.File == nil {
			return fmt.Errorf("missing file spec")
		}
	case CreateDataset:
		d := o.Dataset
		if d == nil {
			return fmt.Errorf("missing dataset spec")
		}
		if err := d.Type.Validate(); err != nil {
			return err
		}
		if d.MaxShape != nil && len(d.MaxShape) != len(d.Shape) {
			return fmt.Errorf("max shape rank %d != shape rank %d", len(d.MaxShape), len(d.Shape))
		}
		if d.Chunk != nil && len(d.Chunk) != len(d.Shape) {
			return fmt.Errorf("chunk rank %d != shape rank %d", len(d.Chunk), len(d.Shape))
		}
		for i, c := range d.Chunk {
			max := d.Shape[i]
			if d.MaxShape != nil {
				max = d.MaxShape[i]
			}
			if c == 0 || (max != MaxUnlimited && c > max) {
				return fmt.Errorf("chunk %v does not fit max shape: dim %d chunk %d, extent %d", d.Chunk, i, c, max)
			}
		}
		if d.Deflate < 0 || d.Deflate > 9 {
			return fmt.Errorf("deflate level %d outside 0..9", d.Deflate)
		}
		if len(d.Filters) > 0 && d.Chunk == nil {
			return fmt.Errorf("filter %d needs a chunked dataset", d.Filters[0].ID)
		}
		if d.Compact && (d.Chunk != nil || d.Deflate > 0 || len(d.Filters) > 0) {
			return fmt.Errorf("a compact dataset has no chunks and no filters")
		}
	case SelectFile:
		if o.Path == "" {
			return fmt.Errorf("missing file path")
		}
	case CreateLink:
		if l := o.Link; l == nil || linkNames[l.Kind] == "" || l.Target == "" || (l.Kind == ExternalLink) != (l.File != "") {
			return fmt.Errorf("missing or malformed link (a kind, a target, and a file for an external link only)")
		}
		if o.Link.Kind == HardLink && !strings.HasPrefix(o.Link.Target, "/") {
			return fmt.Errorf("hard link target %q is not an absolute path", o.Link.Target)
		}
	case Scale:
		if err := o.Scale.validate(); err != nil {
			return err
		}
	case WaitBaton, PassBaton:
		if o.Baton == nil || o.Baton.Peer < 0 || o.Baton.Tag < 0 {
			return fmt.Errorf("missing or negative baton peer or tag")
		}
	case ExtendDataset:
		if o.Dataset == nil || len(o.Dataset.Shape) == 0 {
			return fmt.Errorf("missing extent (Dataset.Shape)")
		}
	case WriteAttribute, ReadAttribute:
		a := o.Attribute
		if a == nil || a.Name == "" {
			return fmt.Errorf("missing attribute spec or name")
		}
		if err := a.Type.Validate(); err != nil {
			return err
		}
		if o.Kind == WriteAttribute && a.Stored {
			return fmt.Errorf("attribute %s: a write has no stored type to read with (Stored is for reads)", a.Name)
		}
		if o.Kind == ReadAttribute {
			if err := a.CheckReadType(); err != nil {
				return err
			}
		}
		if want := Product(a.Shape) * uint64(a.Type.Size); uint64(len(a.Value)) != want && (o.Kind == WriteAttribute || a.Value != nil) {
			return fmt.Errorf("attribute %s value has %d bytes, want %d", a.Name, len(a.Value), want)
		}
	case Write, Read:
		t := o.Transfer
		if t == nil {
			return fmt.Errorf("missing transfer")
		}
		if err := t.MemType.Validate(); err != nil {
			return err
		}
		if err := t.Selection.Validate(t.FileShape); err != nil {
			return err
		}
		if ms := t.MemSelection; ms != nil {
			if err := t.memSelection(); err != nil {
				return err
			}
		} else if n, m := t.Selection.NPoints(t.FileShape), Product(t.MemShape); n != m && !(t.Selection.IsNone() && n == 0) {
			return fmt.Errorf("file selection has %d points, memory space %v has %d", n, t.MemShape, m)
		}
		if want := Product(t.MemShape) * uint64(t.MemType.Size); t.Data != nil && uint64(len(t.Data)) != want {
			return fmt.Errorf("data has %d bytes, memory space %v of %s needs %d", len(t.Data), t.MemShape, t.MemType, want)
		}
		if t.BufferOffset < 0 || t.BufferOffset >= 4096 {
			return fmt.Errorf("buffer offset %d: want 0 to 4095 bytes past a page boundary", t.BufferOffset)
		}
		if t.AsIs && (o.Kind != Write || t.Data == nil) {
			return fmt.Errorf("an as-is transfer must be a write with Data (the buffer's bytes)")
		}
	}
	return nil
}
