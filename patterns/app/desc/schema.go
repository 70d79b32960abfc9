package desc

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// Kind is the form a key's value takes in a description.
type Kind int

// Value forms.
const (
	// Map is a mapping with the fixed keys of Node.Fields.
	Map Kind = iota + 1
	// Named is a mapping from names the user chooses to entries of form Node.Elem, kept in
	// document order. A name "${list}" (or a YAML sequence as the key) makes one entry per
	// name in the list parameter.
	Named
	// List is a sequence of Node.Elem.
	List
	// Expr is a number or an expression over the parameters, nranks, rank, step and
	// count (a file family's number, families.go)
	// (expr-lang syntax); sizes take units (8Mi, 16MiB), durations take units (1.5s).
	Expr
	// Template is a string in which ${EXPR} and ${EXPR:FMT} (FMT a printf verb such as 04d)
	// are replaced by the expression's value.
	Template
	// Enum is one of Node.Allowed.
	Enum
	// Bool is true or false.
	Bool
	// TypeName is a datatype: an atomic name (i8..u64, f32, f64; be after it big-endian), a fixed string strN (pstrN
	// NUL-padded), a variable-length string vstr or vstrN (ustrN, upstrN, uvstr, uvstrN:
	// UTF-8), or the name of a compound declared under types.
	TypeName
	// Literal is a value written as is: a number, a string or a list of them.
	Literal
	// Text is free text.
	Text
	// Data is a value of any datatype written as is: a Literal, or for a compound type a
	// map of its members' values by name (nested compounds as nested maps), or a list of
	// such maps (an array).
	Data
)

var kindNames = map[Kind]string{Map: "map", Named: "named map", List: "list", Expr: "expression",
	Template: "name template", Enum: "enum", Bool: "bool", TypeName: "type", Literal: "literal", Text: "text", Data: "data"}

// String names the kind in help output and error messages.
func (k Kind) String() string { return kindNames[k] }

// Node declares one key of the format: its form, its help, and, for maps and lists, what
// it holds. The one tree rooted at Schema drives parsing (unknown keys, forms), `h5proxy
// help app`, docs/apps.md and the error messages' lists of what is allowed.
type Node struct {
	Key     string
	Kind    Kind
	Help    string
	Default string
	Allowed []string // Enum
	Fields  []*Node  // Map
	Elem    *Node    // Named, List
	// Short, when set, is the scalar form a Map also accepts and what it means (e.g.
	// `decompose: block` for `decompose: {kind: block}`).
	Short string
	// Example is a one-line YAML example shown in the reference.
	Example string
}

// Field returns the declared key of a Map node, or nil.
func (n *Node) Field(key string) *Node {
	for _, f := range n.Fields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// Keys lists a Map node's keys in declaration order.
func (n *Node) Keys() []string {
	k := make([]string, len(n.Fields))
	for i, f := range n.Fields {
		k[i] = f.Key
	}
	return k
}

// AtomicTypes are the atomic datatype names a description accepts (strN aside).
var AtomicTypes = []string{"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"}

// The shared sub-trees: attributes hang on files, groups and datasets; groups nest.
var (
	attrNode = &Node{Key: "attributes", Kind: Named, Help: "attributes by name; a scalar is a literal attribute (a number, or a string)",
		Example: `attributes: {units: "m/s", time: {type: f64, value: "${step * dt}"}}`,
		Elem: &Node{Kind: Map, Short: "the attribute's literal value", Fields: []*Node{
			{Key: "type", Kind: TypeName, Help: "datatype: atomic, strN, pstrN (NUL-padded, H5T_STR_NULLPAD, as h5py writes numpy's bytes), vstr (a variable-length string), ustrN, upstrN or uvstr (UTF-8), or a compound declared under types (default: inferred from the value)"},
			{Key: "shape", Kind: List, Help: "extent of a 1-D array attribute (empty: scalar)", Elem: &Node{Kind: Expr}},
			{Key: "value", Kind: Data, Help: "literal value: a number, a string, or a list (an array attribute); for a compound type a map of its members' values by name (every member, each a number, a string or, for a nested compound, a map), or a list of such maps (e.g. {type: box, value: [{lo: 0, hi: 7}, {lo: 8, hi: 15}]}); ${EXPR} is evaluated when the attribute is written, at its object's creation (e.g. \"${step * dt}\"); without type: i64 for integers, f64 for other numbers and expressions, else a string as long as the longest value (a map needs type)"},
			{Key: "generate", Kind: Enum, Allowed: []string{"seeded", "index"}, Help: "generated values instead of value: seeded pseudo-random (as datasets are filled) or the element index"},
			{Key: "early", Kind: Bool, Default: "false", Help: "with the file's handles sequence: depth_first, written right after its object's creation rather than after its members (openPMD-api's particle species' attributes)"},
			atNode,
			writesNode,
		}}}
	filterNode = &Node{Key: "filters", Kind: List, Help: "the filter pipeline in order (chunked layout only)",
		Example: `filters: [shuffle, {deflate: 6}, fletcher32]`,
		Elem: &Node{Kind: Map, Short: "a filter name without parameters: shuffle, fletcher32, nbit, deflate (level 6), szip (nn, 16), scaleoffset (integer, minimal bits)", Fields: []*Node{
			{Key: "deflate", Kind: Expr, Help: "gzip level 1..9 (H5Pset_deflate)"},
			{Key: "shuffle", Kind: Bool, Help: "byte shuffle (H5Pset_shuffle)"},
			{Key: "fletcher32", Kind: Bool, Help: "checksum (H5Pset_fletcher32)"},
			{Key: "nbit", Kind: Bool, Help: "N-Bit packing (H5Pset_nbit)"},
			{Key: "szip", Kind: Map, Short: "nn coding, 16 pixels per block", Help: "SZIP (H5Pset_szip)", Fields: []*Node{
				{Key: "coding", Kind: Enum, Allowed: []string{"nn", "ec"}, Default: "nn", Help: "nearest neighbour or entropy coding"},
				{Key: "pixels", Kind: Expr, Default: "16", Help: "pixels per block, even, <= 32"},
			}},
			{Key: "scaleoffset", Kind: Map, Short: "integer, minimal bits", Help: "scale-offset (H5Pset_scaleoffset)", Fields: []*Node{
				{Key: "scale", Kind: Enum, Allowed: []string{"int", "float_dscale", "float_escale"}, Default: "int", Help: "scale type"},
				{Key: "factor", Kind: Expr, Default: "0", Help: "scale factor (int: minimum bits, 0 lets HDF5 choose; float_dscale: decimal digits)"},
			}},
		}}}
	decompNode = &Node{Key: "decompose", Kind: Map, Short: "the kind (block, cyclic, rank0, replicated)",
		Help:    "which rank writes (and reads) which elements; default: block",
		Example: `decompose: {kind: block, grid: [0, 0, 1]}`,
		Fields: []*Node{
			{Key: "kind", Kind: Enum, Default: "block", Allowed: []string{"block", "uneven", "cyclic", "map", "points", "rank0", "replicated"},
				Help: "block: a process grid, every rank an equal box; uneven: 1-D, counts per rank; cyclic: 1-D round robin of `block` elements; map: a rank's union of runs from an E3SM map file; points: a rank's element list from a file; rank0: rank 0 alone; replicated: every rank all (reads; writes of equal values)"},
			{Key: "grid", Kind: List, Elem: &Node{Kind: Expr}, Help: "block: ranks per dimension, product nranks; 0 entries are chosen as MPI_Dims_create chooses (default: all 0, i.e. MPI_Dims_create over every dimension)"},
			{Key: "block", Kind: Expr, Default: "1", Help: "cyclic: elements per round-robin block (1: cyclic, > 1: block-cyclic)"},
			{Key: "count", Kind: Expr, Help: "uneven: this rank's count, an expression over rank (e.g. \"100 + rank % 3\")"},
			{Key: "distribution", Kind: Enum, Allowed: []string{"uniform", "normal", "lognormal"}, Help: "uneven: counts drawn per rank from a seeded distribution"},
			{Key: "mean", Kind: Expr, Help: "uneven normal: mean count; uniform: the midpoint when min/max are not given; lognormal: exp(mu) when mu is not given"},
			{Key: "stddev", Kind: Expr, Help: "uneven normal: standard deviation; lognormal: sigma"},
			{Key: "min", Kind: Expr, Help: "uneven uniform: smallest count (inclusive)"},
			{Key: "max", Kind: Expr, Help: "uneven uniform: largest count (inclusive)"},
			{Key: "seed", Kind: Expr, Default: "1", Help: "uneven: the distribution's seed (the same seed draws the same counts)"},
			{Key: "file", Kind: Template, Help: "uneven: a text file of one count per rank (whitespace separated); map: an E3SM map file (HDF5); points: a text file of lines `rank i [j ...]`; relative to the description's directory"},
			{Key: "decomp", Kind: Expr, Default: "1", Help: "map: which decomposition of the map file (1 for D1)"},
			{Key: "select", Kind: Enum, Allowed: []string{"all", "hyperslab"}, Default: "all", Help: "rank0 and replicated: how the whole dataset is selected: all passes H5S_ALL (a code writing it so); hyperslab selects its whole extent as one hyperslab (a code that does, as E3SM-IO's put_vara)"},
			{Key: "order", Kind: Enum, Allowed: []string{"map", "sorted"}, Default: "map", Help: "map: each rank's requests in the map file's order; sorted: sorted by offset, touching ones merged within a row (E3SM-IO's read_decomp before its pull request 165, h5bench's e3sm default: the same elements in fewer hyperslabs)"},
		}}
	memNode = &Node{Key: "memory", Kind: Map, Help: "the memory side of this dataset's transfers (default: a contiguous buffer of the file type)",
		Example: `memory: {type: f32, ghost: 2}`,
		Fields: []*Node{
			{Key: "type", Kind: TypeName, Help: "memory datatype when it differs from the file type (HDF5 converts: any integer or float to any other; compound to compound by member name)"},
			{Key: "struct", Kind: TypeName, Help: "interleaved: a compound type declared under types; the buffer is an array of these structs shared by every dataset naming it, and each write transfers the members the dataset's (compound) file type shares with it"},
			{Key: "ghost", Kind: Literal, Help: "ghost cells: the buffer holds this many more elements on each side of a rank's block in every dimension (a number, or a list with one per dimension, e.g. [2, 2, 0]); transfers select the block inside it (a hyperslab of the memory space), the file is the same as without; every decomposition and struct buffers (the same ghost on every dataset sharing one); a cyclic rank's buffer is its rows, a map's or points' the list of its elements (1-D: one count)"},
		}}
	datasetNode = &Node{Key: "datasets", Kind: Named, Help: "datasets by name; a name \"${list}\" or a YAML list as the key makes one per name",
		Example: `datasets: {x: {type: f32, shape: [n * nranks]}, y: {like: x}}`,
		Elem: &Node{Kind: Map, Fields: []*Node{
			{Key: "like", Kind: Text, Help: "copy every key of another dataset not given here: a name in the same file, or FILE.PATH (e.g. checkpoint.dens)"},
			{Key: "type", Kind: TypeName, Default: "f64", Help: "file datatype: i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 (be after it: big-endian in the file, f32be), strN (fixed string of N bytes, NUL-terminated), pstrN (the same NUL-padded, H5T_STR_NULLPAD, as h5py writes numpy's bytes), vstr or vstrN (variable-length string, H5T_VARIABLE: its generated values have 16 or N characters; no fill value; a compound's member in files one rank writes), ustrN, upstrN, uvstr, uvstrN (the same in UTF-8, H5T_CSET_UTF8) or a compound declared under types"},
			{Key: "shape", Kind: List, Elem: &Node{Kind: Expr}, Help: "extent per dimension, slowest first; [] is a scalar; with uneven decomposition dim 0 may be `auto` (the sum of the counts)"},
			{Key: "max_shape", Kind: List, Elem: &Node{Kind: Expr}, Help: "maximum extent per dimension; `unlimited` for H5S_UNLIMITED (default: shape, or unlimited along extend)"},
			{Key: "extend", Kind: Expr, Help: "series by extension: the index of the dimension (0 the slowest, any up to the last) that grows by shape[dim] at each write; the dataset is created once, chunked, unlimited along it; with max_shape that dimension must be unlimited"},
			{Key: "start_empty", Kind: Bool, Default: "false", Help: "with extend: create the dataset with extent 0 along it and extend it before every write, the first included (netCDF record variables as PnetCDF and E3SM-IO define them); false: created with the first write's extent"},
			{Key: "layout", Kind: Enum, Allowed: []string{"contiguous", "chunked", "compact", "virtual"}, Help: "storage layout (default: virtual with virtual mappings, chunked when chunk, filters or extend are given, else contiguous)"},
			{Key: "chunk", Kind: List, Elem: &Node{Kind: Expr}, Help: "chunk extent per dimension (layout chunked)"},
			filterNode,
			{Key: "fill", Kind: Literal, Help: "fill value (a number); `undefined` leaves it undefined"},
			{Key: "fill_time", Kind: Enum, Allowed: plan.FillTimeNames, Help: "H5Pset_fill_time"},
			{Key: "alloc_time", Kind: Enum, Allowed: plan.AllocTimeNames, Help: "H5Pset_alloc_time"},
			decompNode,
			memNode,
			independentNode,
			emptyCallsNode,
			writtenNode,
			scaleNode,
			scaleAtNode,
			dimsNode,
			dimsAtNode,
			dsOrderNode,
			virtualNode,
			dsValueNode,
			attrNode,
		}}}
)

// linkNode declares the links of a file's root group or of a group.
var linkNode = &Node{Key: "links", Kind: Named,
	Help:    "links by name in this group (a template, as group names: one per step when it uses step), each created once, at the end of the first write action of its file that finds its group (and, for a hard link, its target) created, after that action's writes: hard (H5Lcreate_hard: another name of an object this description creates in the same file, as H5MD's step and time of one time series are those of another), soft (H5Lcreate_soft: a path, stored as written) or external (H5Lcreate_external: an object in another file); a hard link whose target the run never creates is an error; the native, subfiling and subfiling-vfd layouts make them, the raw layouts (mpiio, posix, null) keep no metadata and skip them, the log layout refuses them",
	Example: `links: {step: {hard: /particles/all/position/step}, last: {soft: Timestep_9}, grid: {external: {file: mesh.h5, path: /grid}}}`,
	Elem: &Node{Kind: Map, Short: "a hard link's target", Fields: []*Node{
		{Key: "hard", Kind: Template, Help: "the path of the object the link names, absolute or relative to the link's group (e.g. ../position/step); ${EXPR} substitutes"},
		{Key: "soft", Kind: Template, Help: "the path the soft link stores, absolute or relative to the link's group, which need not exist"},
		{Key: "external", Kind: Map, Help: "an external link: the object at path in file", Fields: []*Node{
			{Key: "file", Kind: Template, Help: "the other file's name, stored as written (HDF5 looks for a relative name beside the linking file, among other places, when the link is traversed)"},
			{Key: "path", Kind: Template, Default: "/", Help: "the object's absolute path in that file"},
		}},
	}}}

func init() {
	// A group holds what a file holds.
	g := &Node{Key: "groups", Kind: Named, Help: "groups by name (a template: Timestep_${step} makes one group per step written); a name \"${list}\" or a YAML list as the key makes one group per name, each with the same content",
		Example: `groups: {fields: {datasets: {...}}, [velocity, force]: {datasets: {value: {type: f64, shape: [n]}}}}`}
	g.Elem = &Node{Kind: Map, Fields: []*Node{attrNode, datasetNode, g, linkNode, orderNode}}
	fileNode.Elem.Fields = append(fileNode.Elem.Fields, attrNode, datasetNode, g, linkNode, orderNode)
}

var fileNode = &Node{Key: "files", Kind: Named, Help: "the files the application writes, by an id that actions name",
	Example: `files: {history: {name: "particles.h5", datasets: {...}}}`,
	Elem: &Node{Kind: Map, Fields: []*Node{
		{Key: "name", Kind: Template, Help: "file name, relative to the session's file directory; ${step}, ${rank} and any expression substitute (e.g. plt_${step:05d}.h5); a file stays open while consecutive actions name the same file"},
		{Key: "ranks", Kind: Expr, Default: "nranks", Help: "ranks per file: nranks (one shared file through MPI-IO), 1 (a file per rank, name must use rank), or K between (N-to-M: ranks div(rank, K)*K .. share a file, opened through MPI-IO on their own communicator, its datasets decomposed over them; the name must use div(rank, K), e.g. data_${div(rank, K)}.h5)", Example: `files: {part: {name: "part_${div(rank, 4)}.h5", ranks: 4}}`},
		{Key: "writer", Kind: Enum, Allowed: []string{"all", "rank0"}, Default: "all",
			Help:    "all: the ranks of the file (ranks) write it; rank0: a serial writer: rank 0 alone creates, writes and closes the file with HDF5's default (sec2) driver, every dataset whole from its buffer (decomposed over that one rank), and the other ranks never open it (no call of theirs in the census), as H5MD writers (LAMMPS's ch5md) gather their data on rank 0 and write alone; its reads (a restart too) are rank 0's alone; not with ranks or create: rank0",
			Example: "files: {traj: {name: traj.h5, writer: rank0}}"},
		{Key: "mode", Kind: Enum, Allowed: []string{"truncate", "append"}, Default: "truncate", Help: "truncate: create or empty the file at its first action; append: open an existing file read-write"},
		{Key: "reopen", Kind: Expr, Default: "false", Help: "close the file after each step's actions on it and open it again at its next step (codes that open their history file for each output); restart reads: open and close it at every read, not once for consecutive reads of it"},
		{Key: "collective_metadata", Kind: Enum, Allowed: []string{"false", "true", "read"}, Default: "false", Help: "collective metadata reads and writes (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write): true on every open of the file, read on its opens for reading only (restart reads, and reads when no write holds it open: a reader program setting them where the writer did not, as BD-CATS reads VPIC's file); an open for reading asks for them on its group and dataset opens too", Example: "collective_metadata: read"},
		{Key: "libver", Kind: Literal, Default: "default", Help: "library version bounds (H5Pset_libver_bounds): default leaves HDF5's (earliest, latest); latest sets latest/latest (the newest object formats, as E3SM-IO's files have); a list [LOW, HIGH] of earliest, v18, v110 and latest sets both (latest is the library's newest: v110 in HDF5 1.10, v114 in 1.14)",
			Example: "libver: [v18, latest] # netCDF-4's bounds"},
		{Key: "define", Kind: Enum, Allowed: []string{"lazy", "upfront", "upfront_flush"}, Default: "lazy",
			Help:    "when the file's groups and datasets are created: lazy, each when a write first reaches it; upfront, every one (with its attributes, dimension scales and attachments, links) right after the file's creation, before its first write, as netCDF-4 creates every variable at nc_enddef; upfront_flush, the same ended by H5Fflush, as nc_enddef syncs the file",
			Example: "define: upfront_flush # netCDF-4's define mode"},
		{Key: "track_times", Kind: Bool, Default: "true",
			Help:    "false: the file's objects (its root group, groups and datasets) are created without their times (H5Pset_obj_track_times false on every creation list), as netCDF-4 and h5py create theirs: each object header is 16 bytes smaller, which moves every object after it in the file; derive reads it from the file, capture from the traced creation lists",
			Example: "track_times: false # netCDF-4's objects"},
		counterNode,
		fileHintsNode,
		handlesNode,
		objectOrderNode,
		createNode,
	}}}

var typesNode = &Node{Key: "types", Kind: Named, Help: "datatypes by name: compounds (members in order, offsets packed as C would, natural alignment, or at explicit offsets), enum, array and opaque types (types_more.go)",
	Example: `types: {particle: {x: f32, y: f32, id: i64}}`,
	Elem:    typeDeclNode}

var actionNode = &Node{Key: "timeline", Kind: List, Help: "what happens in each step after its compute, in order",
	Example: `timeline: [{write: history}, {write: checkpoint, every: 10}, {read: checkpoint, at: restart}]`,
	Elem: &Node{Kind: Map, Fields: []*Node{
		{Key: "write", Kind: Text, Help: "write a file (its id): create or open it, create the objects not yet created, write its datasets"},
		{Key: "read", Kind: Text, Help: "read a file (its id) back and verify every value (read phase)"},
		{Key: "flush", Kind: Text, Help: "flush a file (its id) that is open (H5Fflush)"},
		{Key: "every", Kind: Expr, Default: "1", Help: "cadence: the action runs at the steps where step % every == 0 (every 10: steps 0, 10, 20, ...; steps count from 0)"},
		{Key: "when", Kind: Expr, Help: "a condition over step, rank and the parameters that the action's steps must also meet, e.g. step >= 1 (a file written after another), step * nranks + rank < files (ranks past the last file skip), or a parameter that turns the action off (default: every step of the cadence)"},
		{Key: "at", Kind: Enum, Allowed: []string{"step", "end", "restart"}, Default: "step", Help: "step: by cadence; end: once after the last step; restart: once at the start of the read phase (reads only)"},
		{Key: "datasets", Kind: List, Elem: &Node{Kind: Text}, Help: "the subset of the file's datasets (paths or names) this action writes or reads (default: all)"},
		{Key: "collective", Kind: Bool, Default: "true", Help: "collective (H5FD_MPIO_COLLECTIVE) or independent transfers"},
		{Key: "step", Kind: Expr, Help: "read: the write step whose data is read (default: the last step the file was written at)"},
		{Key: "attributes", Kind: List, Elem: &Node{Kind: Text}, Help: "read: the attributes read before the datasets (NAME on the root group, PATH/NAME on the group or dataset at PATH; an object other than the root is opened around its read), each with H5Aopen, H5Aread with the written type and H5Aclose and verified against the value written, as a restart reads a file's header (default: none)"},
		{Key: "written_by", Kind: Expr, Help: "restart read: how many ranks wrote the file (N-to-M restart: shapes are evaluated with nranks = written_by; fewer readers than per-rank or group files read a contiguous share of them each, one file at a time, serially; default: the reading ranks)"},
		{Key: "select", Kind: Map, Help: "read: which part each rank reads (default: the dataset's decomposition over the reading ranks)", Fields: []*Node{
			{Key: "start", Kind: List, Elem: &Node{Kind: Expr}, Help: "sub-volume start per dimension (default 0)"},
			{Key: "count", Kind: List, Elem: &Node{Kind: Expr}, Help: "sub-volume extent per dimension (default: to the end)"},
			{Key: "stride", Kind: List, Elem: &Node{Kind: Expr}, Help: "every stride-th element per dimension (default 1)"},
			{Key: "to", Kind: Enum, Allowed: []string{"all", "rank0"}, Default: "all", Help: "all: the sub-volume split in blocks over the reading ranks along dim 0; rank0: rank 0 reads it all"},
		}},
	}}}

// Schema is the root of the description format.
var Schema = &Node{Kind: Map, Help: "an application's HDF5 I/O", Fields: []*Node{
	{Key: "name", Kind: Text, Help: "the application's name (reports)"},
	{Key: "about", Kind: Text, Help: "what the description models and where it comes from"},
	{Key: "params", Kind: Named, Help: "parameters with their defaults, overridable as KEY=VALUE (and in h5proxy sweep): numbers, sizes with units (8Mi), durations (1.5s), strings, or lists of names",
		Example: `params: {nx: 64, particles: 8Mi, vars: [dens, pres]}`, Elem: &Node{Kind: Literal, Help: "NAME: DEFAULT; a default may be an expression over the parameters above it"}},
	{Key: "steps", Kind: Expr, Default: "1", Help: "number of steps of the write phase"},
	{Key: "ranks", Kind: Expr, Default: "1", Help: "the number of ranks `h5proxy run` launches when no -np is given (a whole number; capture writes the traced run's): the description still runs at any count",
		Example: "ranks: 4"},
	{Key: "mpi_thread", Kind: Enum, Allowed: []string{"single", "funneled", "serialized", "multiple"}, Default: "multiple",
		Help:    "the MPI thread level the application initializes MPI with (MPI_Init: single; MPI_Init_thread's provided level), which `h5proxy run` asks for (capture writes the traced program's): OpenMPI's OMPIO writes a collective write with holes by data sieving (a pread and a pwrite of the whole range) only below multiple; a session whose mode or layout calls MPI from threads of its own (mode async, layout subfiling-vfd) raises it to multiple, with a warning",
		Example: "mpi_thread: single"},
	{Key: "compute", Kind: Expr, Default: "0s", Help: "compute time after each write step (a duration, or an expression over step in seconds); the session's compute_kind and compute_jitter apply to it; without compute the session's compute_time (or compute_trace) applies; with it they are errors (the description computes on its own, as dlio does, and the session would ignore them)"},
	{Key: "hints", Kind: Named, Help: "MPI-IO hints the application passes to the files it opens (H5Pset_fapl_mpio's info), beneath the session's mpi_info and mpiio.* keys, which override them key by key",
		Example: `hints: {romio_cb_write: enable, romio_no_indep_rw: "true"}`, Elem: &Node{Kind: Literal, Help: "HINT: VALUE (a string)"}},
	typesNode,
	fileNode,
	actionNode,
}}

// Walk calls f on every node under n with its dotted path (named entries as "*", list
// elements as "[]"), depth first in declaration order. A sub-tree met again (attributes on
// files, groups and datasets; nested groups) is reported once more with same set to the
// path where it was first walked, and not descended into again.
func Walk(n *Node, path string, f func(path, same string, n *Node)) {
	walk(n, path, f, map[*Node]string{})
}

func walk(n *Node, path string, f func(path, same string, n *Node), seen map[*Node]string) {
	if first, ok := seen[n]; ok && n.Kind != 0 && (n.Kind == Map || n.Kind == Named || n.Kind == List) && len(subtree(n)) > 0 {
		f(path, first, n)
		return
	}
	seen[n] = path
	f(path, "", n)
	for _, c := range subtree(n) {
		switch n.Kind {
		case Map, TypeDecl:
			walk(c, join(path, c.Key), f, seen)
		case Named:
			walk(c, path+".*", f, seen)
		case List:
			walk(c, path+"[]", f, seen)
		}
	}
}

// subtree lists the nodes Walk descends into.
func subtree(n *Node) []*Node {
	switch n.Kind {
	case Map, TypeDecl:
		return n.Fields
	case Named:
		if n.Elem != nil {
			return []*Node{n.Elem}
		}
	case List:
		if n.Elem != nil && (n.Elem.Kind == Map || n.Elem.Kind == Named) {
			return []*Node{n.Elem}
		}
	}
	return nil
}

// WriteHelp prints every key of the format: path, form, default, help and allowed values.
func WriteHelp(w io.Writer) error {
	var err error
	Walk(Schema, "", func(path, same string, n *Node) {
		if path == "" || err != nil {
			return
		}
		_, err = fmt.Fprintf(w, "%s (%s%s)\n    %s\n", path, n.Kind, defaultText(n), helpText(n, same))
	})
	return err
}

func defaultText(n *Node) string {
	if n.Default == "" {
		return ""
	}
	return ", default " + n.Default
}

func helpText(n *Node, same string) string {
	h := n.Help
	if same != "" {
		return strings.TrimPrefix(h+"; the same keys as "+same, "; ")
	}
	if len(n.Allowed) > 0 {
		h += " [" + strings.Join(n.Allowed, "|") + "]"
	}
	if n.Short != "" {
		h += "; a scalar gives " + n.Short
	}
	if n.Kind == Map && len(n.Fields) > 0 {
		h += "; keys: " + strings.Join(n.Keys(), ", ")
	}
	return strings.TrimPrefix(h, "; ")
}

// WriteMarkdown writes the format reference of docs/apps.md: one table row per key.
func WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| Key | Form | Default | Meaning |\n|---|---|---|---|\n")
	Walk(Schema, "", func(path, same string, n *Node) {
		if path == "" {
			return
		}
		help := helpText(n, same)
		if n.Example != "" && same == "" {
			help += " Example: `" + n.Example + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", path, n.Kind, mdDefault(n), strings.ReplaceAll(help, "|", "\\|"))
	})
	_, err := io.WriteString(w, b.String())
	return err
}

func mdDefault(n *Node) string {
	if n.Default == "" {
		return ""
	}
	return "`" + n.Default + "`"
}

// nearest returns the allowed word closest to s (edit distance), or "" if none is close.
func nearest(s string, allowed []string) string {
	best, bd := "", 1<<30
	for _, a := range allowed {
		if d := editDistance(strings.ToLower(s), strings.ToLower(a)); d < bd {
			best, bd = a, d
		}
	}
	if bd > max(1, min(3, len(s)/3)) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// The optimal-string-alignment distance: "stpes" is one edit from "steps".
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1) // a transposition of adjacent runes
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// sortedKeys returns a map's keys sorted (error messages list them stably).
func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}
