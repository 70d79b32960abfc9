package profile

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// Attribute placement from the trace's order (the format's at, writes and scale_at keys):
// where rank 0 first writes an attribute relative to its object's creation, the other
// objects' creations, the object becoming a dimension scale (its CLASS attribute) and the
// dataset's writes, and how many times it writes it in a row.

// objectEvents is what the trace says of one file for placing its attributes: the event
// index of each object's creation (the root group's: the file's), each dataset's write
// indices, the indices of every creation, and the first write's.
type objectEvents struct {
	created    map[string]int
	writes     map[string][]int
	creates    []int
	allWrites  []int
	firstWrite int
}

// fileEvents collects rank 0's creations and writes of file f (of its first file when it
// is a file per step, as capture folds them: the attributes are that file's).
func fileEvents(p *Profile, f string) objectEvents {
	o := objectEvents{created: map[string]int{}, writes: map[string][]int{}, firstWrite: -1}
	for i, e := range p.Events {
		if e.Rank != 0 || e.File != f || e.fileStep > 1 {
			continue
		}
		var obj string
		switch {
		case e.Call == "H5Fcreate":
			obj = "/"
		case e.Module == "H5D" && strings.HasPrefix(e.Call, "H5Dcreate"):
			obj = e.Name
		case e.Call == "H5Gcreate2":
			obj = e.Object
		case e.Call == "H5Dwrite":
			o.writes[e.Name] = append(o.writes[e.Name], i)
			o.allWrites = append(o.allWrites, i)
			if o.firstWrite < 0 {
				o.firstWrite = i
			}
			continue
		default:
			continue
		}
		if _, ok := o.created[obj]; !ok {
			o.created[obj] = i
			if obj != "/" {
				o.creates = append(o.creates, i)
			}
		}
	}
	return o
}

// between reports whether an index of xs lies strictly between lo and hi.
func between(xs []int, lo, hi int) bool {
	for _, x := range xs {
		if x > lo && x < hi {
			return true
		}
	}
	return false
}

// placeAttributes sets each traced attribute's placement (at, writes) from rank 0's
// order of calls in its file:
//   - each_write: a dataset's attribute first written after the dataset's first write and
//     written as many times as the dataset (two or more), as PETSc's viewer rewrites
//     timestepping after each VecView;
//   - scale: first written after its dataset's CLASS = DIMENSION_SCALE (H5DSset_scale);
//   - defined: in a file whose datasets are all created before its first write (define:
//     upfront), first written after another object's creation and before that first
//     write, as netCDF-4 writes _NCProperties at nc_enddef;
//   - else at its object's creation ("").
//
// writes counts the H5Awrite calls of the attribute before the file's next creation or
// write (netCDF-4 writes _Netcdf4Dimid twice); of a file attribute (on "/") left at its
// place, every H5Awrite of it. A CLASS attribute's at is "create" when no
// other object is created between its dataset's creation and it: the scale is set at the
// creation (scale_at: create).
func placeAttributes(p *Profile, attrs map[string]map[string][]*capAttr) {
	for f, objs := range attrs {
		o := fileEvents(p, f)
		upfront, _ := defineOf(p, f)
		for _, as := range objs {
			class := -1 // the index of the object's CLASS = DIMENSION_SCALE write
			for _, a := range as {
				if a.name == dsClass && len(a.events) > 0 && strings.TrimRight(string(a.value), "\x00") == "DIMENSION_SCALE" {
					class = a.events[0]
				}
			}
			for _, a := range as {
				placeAttribute(p, o, a, class, upfront)
			}
		}
	}
}

// placeAttribute places one attribute (placeAttributes).
func placeAttribute(p *Profile, o objectEvents, a *capAttr, class int, upfront bool) {
	if len(a.events) == 0 {
		return
	}
	first := a.events[0]
	obj := a.ev.Object
	made, ok := o.created[obj]
	if !ok {
		return // an object of an earlier run, or not traced: at its creation
	}
	var awrites []int
	for _, i := range a.events {
		if p.Events[i].Call == "H5Awrite" {
			awrites = append(awrites, i)
		}
	}
	// writes in a row: up to the file's next creation or data write
	a.writes = 0
	for _, i := range awrites {
		if between(o.creates, first, i) || between(o.allWrites, first, i) {
			break
		}
		a.writes++
	}
	if dw := o.writes[obj]; len(dw) >= 2 && first > dw[0] && allWrites(p, a) == len(dw) {
		a.at, a.writes = desc.AtEachWrite, 1
		return
	}
	switch {
	case a.name == dsClass && class == first:
		if !between(o.creates, made, first) {
			a.at = desc.AtCreate
		}
	case a.name == dsDimensionList && class < 0 && !between(o.creates, made, first) && slices.ContainsFunc(o.creates, func(i int) bool { return i > first }):
		// attached right after its creation, before the next object's (dims_at: create);
		// when no creation follows, the action's end is the same place
		a.at = desc.AtCreate
	case class >= 0 && first > class && a.name != dsName:
		a.at = desc.AtScale
	case upfront && between(o.creates, made, first) && (o.firstWrite < 0 || first < o.firstWrite):
		a.at = desc.AtDefined
	}
	// A file attribute written again after other objects' creation is written that often
	// at its place: openPMD-api writes the series' particlesPath as the particles are
	// first flushed and again with the series' attributes, where a description writes
	// the file's (writes: 2).
	if obj == "/" && a.at == "" && len(awrites) > a.writes {
		a.writes = len(awrites)
	}
}

// allWrites counts rank 0's H5Awrite calls of attribute a in its file over the whole run
// (its events are the first step's; of a file per step, the first file's).
func allWrites(p *Profile, a *capAttr) int {
	n := 0
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != a.file || e.fileStep > 1 || e.Call != "H5Awrite" || len(e.Attribute) == 0 {
			continue
		}
		var ev attrEvent
		if json.Unmarshal(e.Attribute, &ev) == nil && ev.Object == a.ev.Object && ev.Name == a.name {
			n++
		}
	}
	return n
}

// placement sets the model's at and writes keys of attribute out from a's placement.
func placement(out *desc.Attribute, a *capAttr) {
	if a.at != "" {
		out.At = desc.V(a.at)
	}
	if a.writes > 1 {
		out.Writes = desc.V(strconv.Itoa(a.writes))
	}
}

// placedReopen reports whether every attribute created through H5Oopen (OBJECT@NAME) is
// placed after its object's writes or at the file's close, where the description opens
// the object with H5Oopen around it when it is not open.
func placedReopen(reopened map[string]bool, attrs map[string][]*capAttr) bool {
	placed := map[string]bool{}
	for _, as := range attrs {
		for _, a := range as {
			if a.at == desc.AtEachWrite || a.at == desc.AtClose {
				placed[a.ev.Object+"@"+a.name] = true
			}
		}
	}
	for k := range reopened {
		if !placed[k] {
			return false
		}
	}
	return len(reopened) > 0
}
