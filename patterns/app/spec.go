package app

import (
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// dsSpec is a dataset evaluated at one step: its creation properties, the extent of one
// write, the memory side.
type dsSpec struct {
	d      *desc.Dataset
	create plan.DatasetSpec // Shape is the extent at creation (one write's for extend)
	shape  []uint64         // one write's extent
	auto   bool             // shape[0] from the uneven counts
	extend int              // -1: not extended
	// startEmpty creates an extended dataset with extent 0 along extend and extends it
	// before every write, the first included.
	startEmpty bool
	mem        plan.Type
	buffer     string   // "" : own buffer; else the shared interleaved struct's
	ghost      []uint64 // ghost cells per side and dimension (nil: none)
}

func unlimitedText(t string) bool {
	t = strings.ToLower(strings.TrimSpace(t))
	return t == "unlimited" || t == "inf" || t == "-1"
}

// spec evaluates dataset ds at the scope's step.
func (e *engine) spec(ds *desc.Dataset, sc *desc.Scope) (*dsSpec, error) {
	t, err := e.typeAt(ds.Type, sc)
	if err != nil {
		return nil, err
	}
	if t, err = valueType(ds, t, sc); err != nil {
		return nil, err
	}
	s := &dsSpec{d: ds, extend: -1, mem: t}
	for i, v := range ds.Shape {
		if i == 0 && strings.EqualFold(strings.TrimSpace(v.Text), "auto") {
			if !strings.EqualFold(ds.Decompose.Kind.Text, "uneven") {
				return nil, errAt(v, "auto extent needs decompose: {kind: uneven}", "an expression")
			}
			s.auto = true
			s.shape = append(s.shape, 0)
			continue
		}
		n, err := sc.Uint(v)
		if err != nil {
			return nil, err
		}
		s.shape = append(s.shape, n)
	}
	c := &s.create
	c.Type = t
	if ds.Extend.Set {
		k, err := sc.Int(ds.Extend)
		if err != nil {
			return nil, err
		}
		if len(s.shape) == 0 {
			return nil, errAt(ds.Extend, "a scalar dataset cannot grow", "a shape with at least one dimension")
		}
		if k < 0 || k >= len(s.shape) {
			return nil, errAt(ds.Extend, "%s has no dimension %d (it has %d)", fmt.Sprintf("a dimension index 0..%d (0 the slowest)", len(s.shape)-1), ds.Name, k, len(s.shape))
		}
		s.extend = k
	}
	if ds.StartEmpty.Set {
		b, err := sc.Bool(ds.StartEmpty)
		if err != nil {
			return nil, err
		}
		if b && s.extend < 0 {
			return nil, errAt(ds.StartEmpty, "start_empty without extend", "extend: 0 with start_empty: true, or no start_empty")
		}
		s.startEmpty = b
	}
	if len(ds.MaxShape) > 0 {
		if len(ds.MaxShape) != len(ds.Shape) {
			return nil, errAt(ds.MaxShape[0], "max_shape has %d entries, shape %d", "one entry per dimension", len(ds.MaxShape), len(ds.Shape))
		}
		for _, v := range ds.MaxShape {
			if unlimitedText(v.Text) {
				c.MaxShape = append(c.MaxShape, plan.MaxUnlimited)
				continue
			}
			n, err := sc.Uint(v)
			if err != nil {
				return nil, err
			}
			c.MaxShape = append(c.MaxShape, n)
		}
	} else if s.extend >= 0 {
		c.MaxShape = slices.Clone(s.shape)
		c.MaxShape[s.extend] = plan.MaxUnlimited
	}
	if s.extend >= 0 && c.MaxShape[s.extend] != plan.MaxUnlimited {
		var unl []string
		for i, m := range c.MaxShape {
			if m == plan.MaxUnlimited {
				unl = append(unl, strconv.Itoa(i))
			}
		}
		allowed := "max_shape[" + strconv.Itoa(s.extend) + "]: unlimited"
		if len(unl) > 0 {
			allowed = "an unlimited dimension of " + ds.Name + " (" + strings.Join(unl, ", ") + "), or " + allowed
		}
		return nil, errAt(ds.Extend, "dimension %d of %s is fixed (max_shape[%d] = %d): a series grows along an unlimited dimension", allowed, s.extend, ds.Name, s.extend, c.MaxShape[s.extend])
	}
	layout := strings.ToLower(ds.Layout.Text)
	if layout == "" && len(ds.Virtual) > 0 {
		layout = "virtual"
	}
	if layout == "" {
		layout = "contiguous"
		if len(ds.Chunk) > 0 || len(ds.Filters) > 0 || c.MaxShape != nil && slices.Contains(c.MaxShape, plan.MaxUnlimited) {
			layout = "chunked"
		}
	}
	switch layout {
	case "chunked":
		if len(ds.Chunk) > 0 {
			if len(ds.Chunk) != len(ds.Shape) {
				return nil, errAt(ds.Chunk[0], "chunk has %d entries, shape %d", "one entry per dimension", len(ds.Chunk), len(ds.Shape))
			}
			for _, v := range ds.Chunk {
				n, err := sc.Uint(v)
				if err != nil {
					return nil, err
				}
				if n == 0 {
					return nil, errAt(v, "a chunk extent of 0", "chunk extents >= 1")
				}
				c.Chunk = append(c.Chunk, n)
			}
		} else {
			if len(s.shape) == 0 {
				return nil, errAt(ds.Layout, "a scalar dataset cannot be chunked", "contiguous or compact")
			}
			for _, n := range s.shape {
				c.Chunk = append(c.Chunk, max(n, 1))
			}
		}
	case "virtual":
		if c.Virtual, err = virtualMaps(ds, s.shape, sc); err != nil {
			return nil, err
		}
	case "compact":
		c.Compact = true
		if len(ds.Filters) > 0 || len(ds.Chunk) > 0 {
			return nil, errAt(ds.Layout, "a compact dataset has no chunks or filters", "layout: chunked for chunks and filters")
		}
	case "contiguous":
		if len(ds.Chunk) > 0 || len(ds.Filters) > 0 {
			return nil, errAt(ds.Layout, "a contiguous dataset has no chunks or filters", "layout: chunked")
		}
		if c.MaxShape != nil && slices.Contains(c.MaxShape, plan.MaxUnlimited) {
			return nil, errAt(ds.Layout, "an unlimited dimension needs chunks", "layout: chunked")
		}
	}
	for _, f := range ds.Filters {
		pf, err := filter(f, sc, t)
		if err != nil {
			return nil, err
		}
		c.Filters = append(c.Filters, pf)
	}
	// A pipeline ending in deflate is the same H5Pset_deflate last as the spec's Deflate,
	// which the built-in patterns plan: stated so, the plans of a description and of its
	// built-in list alike (TestPairPlansInOrder).
	if n := len(c.Filters); n > 0 && c.Filters[n-1].ID == plan.FilterDeflate {
		c.Deflate = int(c.Filters[n-1].CDValues[0])
		c.Filters = c.Filters[:n-1]
		if len(c.Filters) == 0 {
			c.Filters = nil
		}
	}
	if ds.Fill.Set {
		if strings.EqualFold(ds.Fill.Text, "undefined") {
			c.FillUndefined = true
		} else {
			if t.HasVarLen() {
				return nil, errAt(ds.Fill, "a dataset of (or with members of) variable-length strings takes no fill value here", "no fill (HDF5's default: no string)")
			}
			b, err := encodeValue(t, ds.Fill)
			if err != nil {
				return nil, err
			}
			c.FillValue = b
		}
	}
	c.AttrOrder = orderFlags(ds.CreationOrder)
	if ds.FillTime.Set { // the schema allows plan's names only
		c.Tuning.FillTime, _ = plan.ParseFillTime(strings.ToLower(ds.FillTime.Text))
	}
	if ds.AllocTime.Set {
		c.Tuning.AllocTime, _ = plan.ParseAllocTime(strings.ToLower(ds.AllocTime.Text))
	}
	if ds.Memory.Type.Set && ds.Memory.Struct.Set {
		return nil, errAt(ds.Memory.Struct, "memory takes type or struct, not both", "one of memory.type, memory.struct")
	}
	if ds.Memory.Type.Set {
		m, err := e.typeAt(ds.Memory.Type, sc)
		if err != nil {
			return nil, err
		}
		if err := nativeMemory(ds.Memory.Type, m); err != nil {
			return nil, err
		}
		if why := convertible(m, t); why != "" {
			return nil, errAt(ds.Memory.Type, "memory type %s and file type %s of %s: %s", "numeric to numeric, string to string, compound to compound sharing member names", m, t, ds.Name, why)
		}
		s.mem = m
	}
	if ds.Memory.Struct.Set {
		m, err := e.types.lookup(ds.Memory.Struct)
		if err != nil {
			return nil, err
		}
		if err := nativeMemory(ds.Memory.Struct, m); err != nil {
			return nil, err
		}
		if m.Class != plan.Compound || t.Class != plan.Compound {
			return nil, errAt(ds.Memory.Struct, "an interleaved struct writes compound datasets (HDF5 converts compound members by name)", "a compound memory.struct and a compound dataset type holding some of its members", ds.Name)
		}
		if why := convertible(m, t); why != "" {
			return nil, errAt(ds.Memory.Struct, "struct %s and dataset %s's type: %s", "a dataset type whose members are members of the struct", m.Name, ds.Name, why)
		}
		s.mem, s.buffer = m, "struct "+m.Name
	}
	if ds.Memory.Ghost.Set {
		if s.ghost, err = ghostCells(ds, len(s.shape), sc); err != nil {
			return nil, err
		}
		if s.buffer != "" {
			if err := e.structGhostsAgree(ds, s.ghost, sc); err != nil {
				return nil, err
			}
		}
	}
	c.Shape = slices.Clone(s.shape)
	if err := validateCreate(c); err != nil {
		return nil, &desc.Error{Pos: ds.Pos, Key: ds.Type.Path, Value: ds.Name, Reason: err.Error()}
	}
	return s, nil
}

// ghostCells evaluates memory.ghost for a dataset of ndims dimensions: one count for
// every dimension of the rank's buffer, or one each. The buffer is the rank's block
// (block, uneven, rank0, replicated), its rows (cyclic: count rows of the other
// dimensions) or, for map and points decompositions, the list of its elements (1-D: a
// map gives a rank scattered runs, points scattered elements, which have no neighbours
// along the file's dimensions in a buffer; its ghost cells go before and after the list,
// one count).
func ghostCells(ds *desc.Dataset, ndims int, sc *desc.Scope) ([]uint64, error) {
	v := ds.Memory.Ghost
	if ndims == 0 {
		return nil, errAt(v, "ghost cells around a scalar", "ghost on a dataset with a shape")
	}
	vals := v.List
	switch k := strings.ToLower(ds.Decompose.Kind.Text); k {
	case "map", "points":
		if vals != nil && len(vals) != 1 {
			return nil, errAt(v, "%d ghost counts for a %s decomposition: a rank's elements are a list (a 1-D buffer), not a block with neighbours along the dataset's %d dimensions", "one count: the elements before and after the list in the buffer", len(vals), k, ndims)
		}
		ndims = 1
	}
	if vals == nil {
		vals = slices.Repeat([]desc.Value{v}, ndims)
	}
	if len(vals) != ndims {
		return nil, errAt(v, "%d ghost counts for %d dimensions", "one count, or one per dimension", len(vals), ndims)
	}
	g := make([]uint64, ndims)
	for i, x := range vals {
		n, err := sc.Uint(x)
		if err != nil {
			return nil, err
		}
		g[i] = n
	}
	return g, nil
}

// structGhostsAgree checks that the datasets sharing ds's interleaved struct buffer (those
// of its group naming the same memory.struct) have the ghost cells ds has: one array of
// structs has one shape, its ghost cells around every member alike.
func (e *engine) structGhostsAgree(ds *desc.Dataset, ghost []uint64, sc *desc.Scope) error {
	c := e.d.ContentOf(ds)
	if c == nil {
		return nil
	}
	for _, o := range c.Datasets {
		if o == ds || !strings.EqualFold(o.Memory.Struct.Text, ds.Memory.Struct.Text) {
			continue
		}
		var og []uint64
		if o.Memory.Ghost.Set {
			var err error
			if og, err = ghostCells(o, len(o.Shape), sc); err != nil {
				return err
			}
		}
		if !slices.Equal(og, ghost) {
			other := fmt.Sprint(og)
			if og == nil {
				other = "none"
			}
			return errAt(ds.Memory.Ghost, "ghost cells %v of %s, but %s of %s, which shares its struct %s buffer", "the same memory.ghost on every dataset of a group naming one memory.struct (the buffer is one array of structs)", ghost, ds.Name, other, o.Name, ds.Memory.Struct.Text)
		}
	}
	return nil
}

// ghosted gives transfer t a memory space ghost[i] elements larger on each side of its
// block (ghost cells) and selects the block inside it; a rank with nothing to move keeps
// its empty memory space.
func ghosted(t *plan.Transfer, ghost []uint64) {
	if ghost == nil || t.Selection.IsNone() || len(t.MemShape) != len(ghost) {
		return
	}
	mem := make([]uint64, len(ghost))
	for i, n := range t.MemShape {
		mem[i] = n + 2*ghost[i]
	}
	sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block(slices.Clone(ghost), slices.Clone(t.MemShape))}}
	t.MemShape, t.MemSelection = mem, &sel
	t.Selection.Kind = plan.Hyperslabs // H5S_ALL takes the whole memory space
}

// typeAt resolves a type name, expanding ${...} first (a type may be a parameter, e.g.
// type: ${precision}).
func (e *engine) typeAt(v desc.Value, sc *desc.Scope) (plan.Type, error) {
	if isExpr(v.Text) {
		t, err := sc.Text(v)
		if err != nil {
			return plan.Type{}, err
		}
		v.Text = t
	}
	return e.types.lookup(v)
}

// validateCreate runs the plan's own checks on a dataset creation.
func validateCreate(c *plan.DatasetSpec) error {
	pl := plan.Plan{Ops: []plan.Op{{Kind: plan.CreateDataset, Path: "/check", Dataset: c}}}
	err := pl.Validate()
	if err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "plan op 0 (create-dataset /check): "))
	}
	return nil
}

// filter converts one filter of the pipeline.
func filter(f desc.Filter, sc *desc.Scope, t plan.Type) (plan.Filter, error) {
	at := desc.Value{Text: f.Name, Pos: f.Pos, Path: f.Level.Path, Set: true}
	switch f.Name {
	case "deflate":
		n, err := sc.Uint(f.Level)
		if err != nil {
			return plan.Filter{}, err
		}
		if n < 1 || n > 9 {
			return plan.Filter{}, errAt(f.Level, "deflate level %d", "1..9", n)
		}
		return plan.Filter{ID: plan.FilterDeflate, CDValues: []uint32{uint32(n)}}, nil
	case "shuffle":
		return plan.Filter{ID: plan.FilterShuffle}, nil
	case "fletcher32":
		return plan.Filter{ID: plan.FilterFletcher32}, nil
	case "nbit":
		return plan.Filter{ID: plan.FilterNBit}, nil
	case "szip":
		px, err := sc.Uint(f.Pixels)
		if err != nil {
			return plan.Filter{}, err
		}
		if px == 0 || px > 32 || px%2 != 0 {
			return plan.Filter{}, errAt(f.Pixels, "%d pixels per block", "an even number up to 32", px)
		}
		mask := plan.SZIPNearestNeighbour
		if strings.EqualFold(f.Coding.Text, "ec") {
			mask = 4 // H5_SZIP_EC_OPTION_MASK
		}
		if t.Class == plan.String || t.Class == plan.Compound {
			return plan.Filter{}, errAt(at, "SZIP compresses numbers only", "an integer or float dataset")
		}
		return plan.Filter{ID: plan.FilterSZIP, CDValues: []uint32{mask, uint32(px)}}, nil
	case "scaleoffset":
		n, err := sc.Int(f.Factor)
		if err != nil {
			return plan.Filter{}, err
		}
		scale := map[string]uint32{"float_dscale": 0, "float_escale": 1, "int": 2}[strings.ToLower(f.Scale.Text)]
		if scale == 2 && (t.Class == plan.Float32 || t.Class == plan.Float64) || scale != 2 && t.Class != plan.Float32 && t.Class != plan.Float64 {
			return plan.Filter{}, errAt(at, "scale %s on a %s dataset", "scale: int for integers, float_dscale for floats", f.Scale.Text, t)
		}
		return plan.Filter{ID: plan.FilterScaleOffset, CDValues: []uint32{scale, uint32(int32(n))}}, nil
	}
	return plan.Filter{}, errAt(at, "unknown filter", "deflate, shuffle, fletcher32, nbit, szip, scaleoffset")
}

// putNumber stores f as one element of atomic type t (integers truncated toward zero).
func putNumber(t plan.Type, b []byte, f float64) {
	ne := binary.NativeEndian
	switch t.Class {
	case plan.Float32:
		ne.PutUint32(b, math.Float32bits(float32(f)))
	case plan.Float64:
		ne.PutUint64(b, math.Float64bits(f))
	case plan.Int8, plan.Uint8:
		b[0] = byte(int64(f))
	case plan.Int16, plan.Uint16:
		ne.PutUint16(b, uint16(int64(f)))
	case plan.Int32, plan.Uint32:
		ne.PutUint32(b, uint32(int64(f)))
	case plan.Int64:
		ne.PutUint64(b, uint64(int64(f)))
	case plan.Uint64:
		ne.PutUint64(b, uint64(f))
	}
}

// putMembers writes a generated element: f into every numeric member (of a compound, at
// every depth), the element index into strings (Chombo's and AMReX's box attributes are
// compounds of integers).
func putMembers(t plan.Type, b []byte, i int, f float64) {
	switch t.Class {
	case plan.String:
		copy(b, strconv.Itoa(i))
	case plan.Compound:
		for _, m := range t.Members {
			putMembers(m.Type, b[m.Offset:m.Offset+m.Type.Size], i, f)
		}
	case plan.Array, plan.Opaque:
		putMore(t, b, i, f)
	default:
		if t.Enum != nil {
			putMore(t, b, i, f)
			return
		}
		putNumber(t, b, f)
	}
}

// encodeValue encodes a literal scalar of an atomic or string type.
func encodeValue(t plan.Type, v desc.Value) ([]byte, error) {
	if b, done, err := encodeMore(t, v); done {
		return b, err
	}
	b := make([]byte, t.Size)
	switch t.Class {
	case plan.String:
		copy(b, v.Text)
		return b, nil
	case plan.Compound:
		return nil, errAt(v, "a literal value of compound type %s", "a numeric or string type", t)
	}
	text := strings.TrimSpace(v.Text)
	// 64-bit integers exactly: a float64 holds 53 bits (netCDF's unlimited dimension
	// length, 2^64-1, is E3SM's -DIM_time).
	if u, err := strconv.ParseUint(text, 10, 64); err == nil && t.Class == plan.Uint64 {
		binary.NativeEndian.PutUint64(b, u)
		return b, nil
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil && t.Class == plan.Int64 {
		binary.NativeEndian.PutUint64(b, uint64(i))
		return b, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, errAt(v, "not a number", "a number")
	}
	putNumber(t, b, f)
	return b, nil
}

// attribute evaluates an attribute at the scope's step: its type, shape and bytes.
func (e *engine) attribute(a *desc.Attribute, owner string, sc *desc.Scope, step int) (*plan.AttributeSpec, error) {
	vals := literals(a.Value)
	var t plan.Type
	if a.Type.Set {
		var err error
		if t, err = e.types.lookup(a.Type); err != nil {
			return nil, err
		}
	} else {
		for _, v := range vals {
			if v.Map != nil {
				return nil, errAt(v, "a map of member values needs the attribute's type", "type: NAME, a compound declared under types")
			}
		}
		t = inferType(vals)
	}
	var shape []uint64
	if len(a.Shape) > 0 {
		if len(a.Shape) != 1 {
			return nil, errAt(a.Shape[0], "attributes are 1-D here", "shape: [N]")
		}
		n, err := sc.Uint(a.Shape[0])
		if err != nil {
			return nil, err
		}
		shape = []uint64{n}
	} else if a.Value.List != nil {
		shape = []uint64{uint64(len(vals))}
	}
	n := int(plan.Product(shape))
	if t.Class == plan.Reference && a.Generate.Set {
		return nil, errAt(a.Generate, "generated references", "value: the targets' paths (ref: /group/dataset; regref: /dataset[START:END,...])")
	}
	if !a.Generate.Set {
		var err error
		if t, err = literalWidth(t, vals, sc); err != nil {
			return nil, err
		}
	}
	buf := make([]byte, n*t.Size)
	switch {
	case a.Generate.Set:
		for i := range n {
			f := float64(i)
			if strings.EqualFold(a.Generate.Text, "seeded") {
				f = emulate.Value(t.Class, e.seed, owner+"@"+a.Name, step, uint64(i))
			}
			putMembers(t, buf[i*t.Size:(i+1)*t.Size], i, f)
		}
	case len(vals) == n || (len(vals) == 1 && shape == nil):
		for i, v := range vals {
			if err := encodeElement(t, buf[i*t.Size:(i+1)*t.Size], v, sc); err != nil {
				return nil, err
			}
		}
	case len(vals) == 0:
		return nil, &desc.Error{Pos: a.Pos, Key: a.Value.Path, Reason: "an attribute needs a value", Allowed: "value: LITERAL or generate: seeded|index"}
	default:
		return nil, errAt(a.Value, "%d values for %d elements", "one value per element", len(vals), n)
	}
	return &plan.AttributeSpec{Name: a.Name, Type: t, Shape: shape, Value: buf}, nil
}

// encodeElement stores one literal element of type t into b: a number, a string (either
// may be ${EXPR}), or for a compound a map of its members' values by name, every member
// given and no other.
func encodeElement(t plan.Type, b []byte, v desc.Value, sc *desc.Scope) error {
	if t.Class == plan.Compound {
		if v.Map == nil {
			return errAt(v, "a compound value of %s here is not a map of members", "a map of member values: "+memberForm(t), t.Name)
		}
		for _, m := range v.Map {
			if !slices.ContainsFunc(t.Members, func(x plan.Member) bool { return x.Name == m.Key }) {
				return errAt(m, "type %s has no member %s", memberList(t), t.Name, m.Key)
			}
		}
		for _, m := range t.Members {
			i := slices.IndexFunc(v.Map, func(x desc.Value) bool { return x.Key == m.Name })
			if i < 0 {
				return errAt(v, "no value for member %s of %s", "every member given: "+memberForm(t), m.Name, t.Name)
			}
			if err := encodeElement(m.Type, b[m.Offset:m.Offset+m.Type.Size], v.Map[i], sc); err != nil {
				return err
			}
		}
		return nil
	}
	if v.Map != nil || v.List != nil {
		return errAt(v, "an element or member of type %s given a map or list", "a number or a string", t)
	}
	if isExpr(v.Text) {
		if t.Class == plan.String {
			s, err := sc.Text(v)
			if err != nil {
				return err
			}
			copy(b, s)
			return nil
		}
		f, err := sc.Float(v)
		if err != nil {
			return err
		}
		putNumber(t, b, f)
		return nil
	}
	x, err := encodeValue(t, v)
	if err != nil {
		return err
	}
	copy(b, x)
	return nil
}

// memberList names a compound's members; memberForm shows the map that gives them.
func memberList(t plan.Type) string {
	names := make([]string, len(t.Members))
	for i, m := range t.Members {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func memberForm(t plan.Type) string {
	parts := make([]string, len(t.Members))
	for i, m := range t.Members {
		parts[i] = m.Name + ": " + m.Type.Class.String()
		if m.Type.Class == plan.Compound {
			parts[i] = m.Name + ": " + memberForm(m.Type)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// inferType is an untyped attribute's type: i64 when every value is an integer, f64 when
// every value is a number or an expression (${...}), else a string as long as the longest.
func inferType(vals []desc.Value) plan.Type {
	allInt, allNum, longest := true, true, 1
	for _, v := range vals {
		txt := strings.TrimSpace(v.Text)
		longest = max(longest, len(v.Text))
		if isExpr(txt) {
			allInt = false
			continue
		}
		if _, err := strconv.ParseInt(txt, 10, 64); err != nil {
			allInt = false
		}
		if _, err := strconv.ParseFloat(txt, 64); err != nil {
			allNum = false
		}
	}
	switch {
	case allNum && allInt:
		return plan.I64
	case allNum:
		return plan.F64
	}
	return plan.Str(longest)
}

// isExpr reports whether a literal is written as an expression (${...}).
func isExpr(s string) bool { return strings.Contains(s, "${") }

// joinPath joins object paths inside a file.
func joinPath(parent, name string) string { return path.Join("/", parent, name) }
