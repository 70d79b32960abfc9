package profile

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Emission: how a captured description looks as YAML (the keys, their order, their
// comments). What the trace means is decided in capture.go (the datasets, steps and
// actions), capture_attr.go, capture_types.go, capture_handles.go and capture_family.go;
// this file only writes what they decided.

// writeHints writes the MPI-IO hints the program passed to its HDF5 files (the first
// file's that has any: a description's hints are the run's) and lists files whose hints
// differ from them.
func (c *Description) writeHints(b *strings.Builder, p *Profile, files []string) {
	var hints map[string]string
	var from string
	for _, f := range files {
		var fa fileAccess
		if r, ok := fileRecord(p, f); !ok || len(r.Info) == 0 || json.Unmarshal(r.Info, &fa) != nil || len(fa.Hints) == 0 {
			continue
		}
		if hints == nil {
			hints, from = fa.Hints, f
			continue
		}
		if !maps.Equal(hints, fa.Hints) {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: MPI-IO hints %v, %s's are %v (a description's hints are the run's)", filepath.Base(f), fa.Hints, filepath.Base(from), hints))
		}
	}
	if len(hints) == 0 {
		return
	}
	fmt.Fprintf(b, "hints:   # MPI-IO hints %s was opened with\n", filepath.Base(from))
	for _, k := range slices.Sorted(maps.Keys(hints)) {
		fmt.Fprintf(b, "  %s: %s\n", yamlString(k), strconv.Quote(hints[k]))
	}
}

// writeTree writes a file's groups and datasets: templates split at their slashes.
// groups (templates, in creation order) come first: the groups that hold no dataset
// (attributes alone, or nothing) are the file's too.
func (c *Description) writeTree(b *strings.Builder, id string, ds map[string]*capDataset, attrs map[string][]*capAttr, groups []string, nranks int) {
	type node struct {
		groups   map[string]*node
		order    []string
		datasets []*capDataset
	}
	root := &node{groups: map[string]*node{}}
	at := func(parts []string) *node {
		n := root
		for _, g := range parts {
			if n.groups[g] == nil {
				n.groups[g] = &node{groups: map[string]*node{}}
				n.order = append(n.order, g)
			}
			n = n.groups[g]
		}
		return n
	}
	for _, g := range groups {
		at(strings.Split(strings.TrimPrefix(g, "/"), "/"))
	}
	for _, t := range sortedTemplates(ds) {
		parts := strings.Split(strings.TrimPrefix(t, "/"), "/")
		n := at(parts[:len(parts)-1])
		n.datasets = append(n.datasets, ds[t])
	}
	var walk func(n *node, at, indent string)
	walk = func(n *node, at, indent string) {
		if at != "/" {
			c.writeAttributes(b, indent, attributeOwner(id, at), attrs[at])
		}
		if len(n.datasets) > 0 {
			fmt.Fprintf(b, "%sdatasets:\n", indent)
			for _, d := range n.datasets {
				c.writeDataset(b, indent+"  ", id, d, nranks)
			}
		}
		if len(n.order) > 0 {
			fmt.Fprintf(b, "%sgroups:\n", indent)
			for _, g := range n.order {
				sub, subAt := n.groups[g], path.Join(at, g)
				if len(sub.datasets) == 0 && len(sub.order) == 0 && len(attrs[subAt]) == 0 {
					fmt.Fprintf(b, "%s  %s: {}\n", indent, yamlString(g)) // an empty group is an empty map
					continue
				}
				fmt.Fprintf(b, "%s  %s:\n", indent, yamlString(g))
				walk(sub, subAt, indent+"    ")
			}
		}
	}
	walk(root, "/", "    ")
}

func (c *Description) writeDataset(b *strings.Builder, indent, id string, d *capDataset, nranks int) {
	name := path.Base(d.template)
	typ, ok := typeName(d.info)
	if d.info.TypeClass == h5tCompound {
		var reordered bool
		typ, reordered, ok = c.compoundName(name, d.info.Members, d.info.TypeSize)
		if reordered {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: compound members stored out of declaration order (H5Tinsert at explicit offsets): declared in offset order, the same layout", id, d.template))
		}
		if !ok {
			typ = compoundStandIn(d.info.TypeSize)
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: a compound of %d bytes whose members do not pack as a C struct (H5Tinsert at explicit offsets with padding): written as %s, the same size", id, d.template, d.info.TypeSize, typ))
			ok = true
		}
	}
	if !ok {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: datatype class %d of %d bytes (written as f64)", id, d.template, d.info.TypeClass, d.info.TypeSize))
	}
	decomp, shape0 := c.decomposition(id, d, nranks)
	shape := make([]string, len(d.info.Dims))
	for i, v := range d.info.Dims {
		shape[i] = strconv.FormatInt(v, 10)
	}
	if d.series {
		shape[0] = strconv.FormatInt(d.grow, 10)
	}
	if len(shape) > 0 && shape0 != "" {
		shape[0] = shape0
	}
	fmt.Fprintf(b, "%s%s:\n%s  type: %s\n%s  shape: [%s]\n", indent, yamlString(name), indent, typ, indent, strings.Join(shape, ", "))
	for i, m := range d.info.MaxDims {
		if m < 0 {
			fmt.Fprintf(b, "%s  extend: %d   # unlimited along it\n", indent, i)
			if d.empty {
				fmt.Fprintf(b, "%s  start_empty: true   # created with 0 along it, extended before each write\n", indent)
			}
			break
		}
	}
	if d.info.Layout == 2 && len(d.info.Chunk) > 0 {
		ch := make([]string, len(d.info.Chunk))
		for i, v := range d.info.Chunk {
			ch[i] = strconv.FormatInt(v, 10)
		}
		fmt.Fprintf(b, "%s  chunk: [%s]\n", indent, strings.Join(ch, ", "))
	} else if d.info.Layout == 0 {
		fmt.Fprintf(b, "%s  layout: compact\n", indent)
	}
	if fl := filterList(d.info); fl != "" {
		fmt.Fprintf(b, "%s  filters: [%s]\n", indent, fl)
	}
	c.writeFill(b, indent+"  ", id, d)
	if decomp != "" {
		fmt.Fprintf(b, "%s  decompose: %s\n", indent, decomp)
	}
	if d.independent {
		fmt.Fprintf(b, "%s  independent: true   # written independently between the file's collective writes\n", indent)
	}
	if d.nwrites > 1 {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: %d H5Dwrite per rank per step (a description writes each dataset once per step: their union)", id, d.template, d.nwrites))
	}
	for r := range nranks {
		if n := len(d.hashes[r]); n > 1 {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: rank %d's union of hyperslabs changes between writes (%d kinds; the first is written at every step)", id, d.template, r, n))
			break
		}
	}
	c.writeAttributes(b, indent+"  ", attributeOwner(id, d.template), d.attrs)
}

// writeFill writes a dataset's fill properties where they are not HDF5's defaults: an
// undefined or user fill value (H5D_fill_value_t 0 or 2), fill time alloc or never
// (H5D_fill_time_t 0 or 1; 2, ifset, is the default).
func (c *Description) writeFill(b *strings.Builder, indent, id string, d *capDataset) {
	in := d.info
	switch {
	case in.FillDefined == nil:
	case *in.FillDefined == 0:
		fmt.Fprintf(b, "%sfill: undefined\n", indent)
	case *in.FillDefined == 2:
		raw, err := hex.DecodeString(in.FillValue)
		a := &capAttr{value: raw, mem: attrEvent{MemClass: &in.TypeClass, MemSize: in.TypeSize, MemSign: in.TypeSign}}
		typ, _ := typeName(in)
		if v, ok := attrValues(a, typ, 1); err == nil && ok && (in.TypeClass == 0 || in.TypeClass == 1) {
			fmt.Fprintf(b, "%sfill: %s\n", indent, v[0])
		} else {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: a user fill value the trace does not hold", id, d.template))
		}
	}
	if in.FillTime != nil {
		if name := map[int]string{0: "alloc", 1: "never"}[*in.FillTime]; name != "" {
			fmt.Fprintf(b, "%sfill_time: %s\n", indent, name)
		}
	}
}

// yamlString quotes s when YAML would read it as something else.
func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.HasPrefix(s, "-") || strings.TrimSpace(s) != s {
		b, _ := json.Marshal(s)
		return string(b)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}

// writeAttributes writes an object's attributes (YAML under indent) and lists what the
// format cannot say about them.
func (c *Description) writeAttributes(b *strings.Builder, indent, where string, as []*capAttr) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(b, "%sattributes:\n", indent)
	for _, a := range as {
		fmt.Fprintf(b, "%s  %s: %s\n", indent, yamlString(a.name), c.attributeValue(where, a))
	}
}

// attributeValue is an attribute's YAML value: {type, shape, value}, or generated values
// where the trace has none.
func (c *Description) attributeValue(where string, a *capAttr) string {
	at := fmt.Sprintf("%s attribute %s", where, a.name)
	typ, ok := typeName(datasetInfo{TypeClass: a.ev.TypeClass, TypeSize: a.ev.TypeSize, TypeSign: a.ev.TypeSign})
	if a.ev.TypeClass == h5tCompound {
		var reordered bool
		if typ, reordered, ok = c.compoundName(a.name, a.ev.Members, a.ev.TypeSize); reordered {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: compound members stored out of declaration order: declared in offset order, the same layout", at))
		}
	}
	if !ok || a.ev.VLen {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: datatype class %d of %d bytes%s (written as f64)", at, a.ev.TypeClass, a.ev.TypeSize,
			map[bool]string{true: ", variable-length", false: ""}[a.ev.VLen]))
		typ = "f64"
	}
	if a.ev.TypeClass == 3 && (a.ev.StrPad != strNullTerm || a.ev.Cset != csetASCII) {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: string padding %d, character set %d (a description's strings are NUL-terminated ASCII)", at, a.ev.StrPad, a.ev.Cset))
	}
	n := int64(1)
	for _, d := range a.ev.Dims {
		n *= d
	}
	shape := ""
	switch {
	case len(a.ev.Dims) == 1:
		shape = fmt.Sprintf(", shape: [%d]", a.ev.Dims[0])
	case len(a.ev.Dims) > 1:
		shape = fmt.Sprintf(", shape: [%d]", n)
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: dims %v (a description's attributes are scalars or 1-D: written as %d elements)", at, a.ev.Dims, n))
	}
	vals, ok := attrValues(a, typ, n)
	if !ok {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: its value is not in the trace (never written, variable-length, or over the library's size limit): generated", at))
		return fmt.Sprintf("{type: %s%s, generate: index}", typ, shape)
	}
	if len(a.ev.Dims) == 0 {
		return fmt.Sprintf("{type: %s, value: %s}", typ, vals[0])
	}
	return fmt.Sprintf("{type: %s%s, value: [%s]}", typ, shape, strings.Join(vals, ", "))
}

// writeTypes writes the description's compound types (types:).
func (c *Description) writeTypes(b *strings.Builder) {
	if len(c.compounds) == 0 {
		return
	}
	b.WriteString("types:   # the compound types of the traced datasets and attributes\n")
	for _, t := range c.compounds {
		fmt.Fprintf(b, "  %s: %s\n", t.name, t.members)
	}
}

// writeWays writes a file's create, collective_metadata and handles keys (the indent is
// the file's keys'), and lists what the keys cannot say.
func (c *Description) writeWays(b *strings.Builder, id, file string, w fileWays) {
	switch {
	case w.rank0 && len(w.serial) > 0:
		names := make([]string, len(w.serial))
		for i, s := range w.serial {
			names[i] = yamlString(strings.TrimPrefix(s, "/"))
		}
		fmt.Fprintf(b, "    create: {by: rank0, datasets: [%s]}   # rank 0 created it alone with a serial driver and wrote these, then every rank opened it\n", strings.Join(names, ", "))
	case w.rank0:
		b.WriteString("    create: rank0   # rank 0 created it alone with a serial driver, then every rank opened it\n")
	}
	if w.collMeta != "" {
		fmt.Fprintf(b, "    collective_metadata: %s\n", w.collMeta)
	}
	if w.collMeta == "true" && w.wOps != w.wWrite {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: collective metadata reads %v, writes %v (a description sets both)", filepath.Base(file), w.wOps, w.wWrite))
	}
	switch {
	case w.holdCall:
		keys := []string{"hold: call"}
		if w.reopen {
			keys = append(keys, "attributes: reopen")
		}
		if w.parents {
			keys = append(keys, "open_parents: true")
		}
		fmt.Fprintf(b, "    handles: {%s}   # datasets closed after their creation and opened for each write\n", strings.Join(keys, ", "))
	case w.reopen || w.parents:
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: attributes through H5Oopen %v, parents opened around creates %v, while the datasets stay open (a description's handles reopen with hold: call only)", filepath.Base(file), w.reopen, w.parents))
	}
	for _, g := range w.guesses {
		fmt.Fprintf(b, "    # guess: %s\n", g)
	}
}
