package desc

import (
	"fmt"
	"strings"
)

// Pos is where a value stands in its description file.
type Pos struct {
	File      string
	Line, Col int
}

// String renders file:line:col.
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Value is one scalar of the description as written, with where it is written and the
// dotted key path that holds it. A Value that was not written has Set false (its Text is
// the schema default, if any).
type Value struct {
	Text string
	Pos  Pos
	Path string
	Set  bool
	// List holds the elements of a literal list (params, attribute values).
	List []Value
	// Map holds the members of a literal map (a compound attribute's value) in document
	// order, each with its Key.
	Map []Value
	// Key is the member name of an element of a Map.
	Key string
}

// Error is a description error: where, which key and value, why, and what is allowed.
type Error struct {
	Pos     Pos
	Key     string
	Value   string
	Reason  string
	Allowed string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.File != "" || e.Pos.Line > 0 {
		b.WriteString(e.Pos.String() + ": ")
	}
	fmt.Fprintf(&b, "key %s", e.Key)
	if e.Value != "" {
		fmt.Fprintf(&b, " value %q", e.Value)
	}
	b.WriteString(": " + e.Reason)
	if e.Allowed != "" {
		b.WriteString("; allowed: " + e.Allowed)
	}
	return b.String()
}

// errAt returns an Error at a value.
func errAt(v Value, reason, allowed string, args ...any) *Error {
	return &Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: fmt.Sprintf(reason, args...), Allowed: allowed}
}

// Description is a parsed description file: every key of Schema as typed values with their
// positions. Expressions are not evaluated yet (Eval does, per rank and step).
type Description struct {
	// Source is the file it was read from; Dir the directory relative paths start from.
	Source, Dir string
	Name        Value
	About       Value
	Params      []Param
	Hints       []Param // MPI-IO hints: name and value
	Steps       Value
	// Ranks is the rank count `h5proxy run` launches without -np (DefaultRanks).
	Ranks Value
	// MPIThread is the MPI thread level the application initializes MPI with, which
	// `h5proxy run` asks for (MPIThreadLevel).
	MPIThread Value
	Compute   Value
	Types     []*Compound
	Files     []*File
	Timeline  []*Action
	// Notes are the comments beside keys, by key path (note.go): what Parse read and
	// what a writer says, kept by Write.
	Notes map[string]*Note

	progs *programs
	// loaded marks a description as Load returns it: not yet expanded (With expands a copy).
	loaded bool
}

// Param is one parameter and its default: a scalar, or a list of names.
type Param struct {
	Name  string
	Pos   Pos
	Value Value
	// IsList marks a list parameter (Value.List holds its elements).
	IsList bool
}

// Compound is a datatype declared under types: a compound, members in H5Tinsert order,
// or, with Other set, an enum, array or opaque type (types_more.go).
type Compound struct {
	Name    string
	Pos     Pos
	Members []CompoundMember
	// Size is the compound's total size in bytes (the long form {members: ..., size: N});
	// unset, the members' extent padded to their largest alignment.
	Size Value
	// Other, when set, makes the declaration an enum, array or opaque type.
	Other *OtherType
}

// CompoundMember is one member: an atomic or string type, or a nested compound.
type CompoundMember struct {
	Name   string
	Type   Value     // set for a type name
	Nested *Compound // set for a nested member map
	// Offset is the member's byte offset (written TYPE@N); unset, the C layout's.
	Offset Value
}

// File is one file (or family of files) the application writes.
type File struct {
	ID    string
	Pos   Pos
	Name  Value
	Ranks Value
	// Writer rank0 is a file rank 0 writes alone through HDF5's default (sec2) driver, the
	// other ranks never opening it.
	Writer             Value
	Mode               Value
	Reopen             Value
	CollectiveMetadata Value
	Libver             Value
	// Define is when the file's objects are created: lazy (at their first write), upfront
	// or upfront_flush (all of them right after the file's creation; define.go in app).
	Define Value
	// TrackTimes false creates the file's objects without their times (the schema's
	// track_times).
	TrackTimes Value
	// Counter names the numbering the variable count follows in this file's expressions
	// (families.go): files naming one counter share it; unset, the file's own id.
	Counter Value
	// Hints are the file's own MPI-IO hints (its file access list's MPI_Info), besides
	// the description-wide Hints.
	Hints   []Param
	Handles Handles
	// ObjectOrder lists the file's groups and datasets (absolute path templates) in the
	// order the program creates them, across groups and actions (objectorder.go).
	ObjectOrder []Value
	// Create says who creates the file (create.go).
	Create Create
	Content
}

// Content is what a file or group holds.
type Content struct {
	Attributes []*Attribute
	Groups     []*Group
	Datasets   []*Dataset
	Links      []*Link
	// CreationOrder is the group's links' and attributes' (order.go).
	CreationOrder CreationOrder
}

// Link is a link in a group (or the file's root group): its name is a template, as a
// group's. Exactly one of Hard, Soft and External.File is set.
type Link struct {
	Name Value
	// Hard is the target's path (absolute, or relative to the link's group) of a hard link.
	Hard Value
	// Soft is the path a soft link stores.
	Soft Value
	// External is an external link's file and path in it (File.Set marks one).
	External ExternalLink
}

// ExternalLink is the target of an external link: an object's path in another file.
type ExternalLink struct {
	File, Path Value
}

// Kind names the link's kind: hard, soft or external.
func (l *Link) Kind() string {
	switch {
	case l.Hard.Set:
		return "hard"
	case l.Soft.Set:
		return "soft"
	}
	return "external"
}

// Group is a group: its name is a template (a name using step makes one group per step).
type Group struct {
	Name Value
	Content
}

// Attribute is an attribute of a file, group or dataset.
type Attribute struct {
	Name     string
	Pos      Pos
	Type     Value
	Shape    []Value
	Value    Value
	Generate Value
	Early    Value // written at its object's creation under handles sequence: depth_first
	// At is when it is written (placement.go): create, scale, defined, each_write, close.
	At Value
	// Writes is how many times it is written there (the first creates it).
	Writes Value
}

// Dataset is one dataset's declaration (after `like:` and list keys are expanded, one
// Dataset per dataset).
type Dataset struct {
	Name       string
	Pos        Pos
	Like       Value
	Type       Value
	Shape      []Value
	MaxShape   []Value
	Extend     Value
	StartEmpty Value
	Layout     Value
	Chunk      []Value
	Filters    []Filter
	Fill       Value
	FillTime   Value
	AllocTime  Value
	Decompose  Decompose
	Memory     Memory
	// Independent makes the dataset's transfers independent in a collective action.
	Independent Value
	// EmptyCalls true: a rank with no element of it calls H5Dwrite (H5Dread) anyway under
	// independent transfers, with an empty selection.
	EmptyCalls Value
	// Written false: the dataset is created and never written.
	Written Value
	// Scale makes the dataset a dimension scale of that name (scales.go); Dims lists the
	// scales attached to each dimension.
	Scale Value
	Dims  []Value
	// ScaleAt is when it becomes a scale: defined (the action's end) or create.
	ScaleAt Value
	// DimsAt is when its Dims are attached: defined (the action's end) or create.
	DimsAt Value
	// CreationOrder is its attributes' creation order (order.go).
	CreationOrder Value
	// Virtual are a virtual dataset's mappings (virtual.go).
	Virtual []VirtualMap
	// Value is the dataset's literal contents, one element a list entry in row-major order
	// (value.go): written whole, as a program writes a table of its own values (a dataset
	// of references, their targets).
	Value      Value
	Attributes []*Attribute
	// set records which keys the user wrote (like: copies the others).
	set map[string]bool
}

// Filter is one filter of a dataset's pipeline.
type Filter struct {
	Name   string // deflate, shuffle, fletcher32, nbit, szip, scaleoffset
	Pos    Pos
	Level  Value // deflate
	Coding Value // szip
	Pixels Value // szip
	Scale  Value // scaleoffset
	Factor Value // scaleoffset
}

// Decompose says which rank transfers which elements of a dataset.
type Decompose struct {
	Kind         Value
	Grid         []Value
	Block        Value
	Count        Value
	Distribution Value
	Mean, Stddev Value
	Min, Max     Value
	Seed         Value
	File         Value
	Decomp       Value
	Order        Value
	Select       Value
}

// Memory is the memory side of a dataset's transfers.
type Memory struct {
	Type   Value
	Struct Value
	// Ghost is the ghost cells per side: one value for every dimension, or a list (one
	// per dimension).
	Ghost Value
}

// Action is one entry of the timeline.
type Action struct {
	Pos        Pos
	Write      Value
	Read       Value
	Flush      Value
	Every      Value
	When       Value
	At         Value
	Datasets   []Value
	Collective Value
	Step       Value
	WrittenBy  Value
	Select     *Select
	// Attributes, on a read, are the attributes it reads before its datasets, as a
	// restart reads a file's header: NAME on the root group, PATH/NAME on the group or
	// dataset at PATH.
	Attributes []Value
}

// Verb returns the action's kind (write, read or flush) and the file id it names.
func (a *Action) Verb() (string, Value) {
	switch {
	case a.Write.Set:
		return "write", a.Write
	case a.Read.Set:
		return "read", a.Read
	}
	return "flush", a.Flush
}

// Select is a read action's selection.
type Select struct {
	Start, Count, Stride []Value
	To                   Value
}
