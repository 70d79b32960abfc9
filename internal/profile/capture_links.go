package profile

import (
	"path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// linkCalls are the traced link creations (the library's H5Lcreate_* events).
var linkCalls = map[string]bool{"H5Lcreate_hard": true, "H5Lcreate_soft": true, "H5Lcreate_external": true}

// links collects the links rank 0 created in file at the first step, by the template of
// the group that holds each (as the datasets' groups: /Timestep_${step}), in creation
// order: a hard link names its target's template (H5MD's step and time of one time series
// are another's), a soft link the path it stores, an external link its file and path.
func links(p *Profile, file string, stepOf func(string, string) (string, int, bool)) map[string][]*desc.Link {
	out := map[string][]*desc.Link{}
	seen := map[string]bool{}
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || !linkCalls[e.Call] || e.Object == "" || e.fileStep > 1 {
			continue
		}
		tmpl, n, _ := stepOf(file, e.Object)
		if n != 0 || seen[tmpl] {
			continue
		}
		seen[tmpl] = true
		l := &desc.Link{Name: desc.V(path.Base(tmpl))}
		switch e.Call {
		case "H5Lcreate_hard":
			target, _, _ := stepOf(file, e.Target)
			l.Hard = desc.V(target)
		case "H5Lcreate_soft":
			l.Soft = desc.V(e.Target)
		default:
			l.External = desc.ExternalLink{File: desc.V(e.TargetFile), Path: desc.V(e.Target)}
		}
		parent := path.Dir(tmpl)
		if parent == "." || parent == "" {
			parent = "/"
		}
		out[parent] = append(out[parent], l)
	}
	return out
}

// The attributes HDF5's dimension scales (H5DS) write, which a description says with its
// scale and dims keys.
const (
	dsClass, dsName, dsReferenceList, dsDimensionList = "CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST"
)

// scales turns the dimension scale attributes of a file's datasets into the scale and
// dims keys (netCDF-4 makes each dimension a scale and attaches the scales to its
// variables): a dataset with CLASS DIMENSION_SCALE is `scale: NAME`; a dataset with a
// DIMENSION_LIST names its scales by netCDF's dimension ids (_Netcdf4Coordinates against
// the scales' _Netcdf4Dimid) or, 1-D, the one scale of its extent, where the
// references written are not in the trace (they are when H5Rcreate made them traced:
// dimLists). What is said so leaves the attributes; a
// DIMENSION_LIST it cannot resolve stays a listed stand-in. tracedOrder says the trace
// recorded the file's creation orders (creationOrders): then netCDF's is not guessed.
func (c *Description) scales(f *desc.File, fpath, id string, tracedOrder bool) {
	type scale struct {
		path, extent string
		dimid        string
	}
	var scales []scale
	var attached []*desc.Dataset
	attr := func(ds *desc.Dataset, name string) *desc.Attribute {
		for _, a := range ds.Attributes {
			if a.Name == name {
				return a
			}
		}
		return nil
	}
	keyPath, owner := map[*desc.Dataset]string{}, map[*desc.Dataset]string{}
	// drop removes attributes the keys now say, with their stand-ins' notes and listing
	drop := func(ds *desc.Dataset, names ...string) {
		ds.Attributes = slices.DeleteFunc(ds.Attributes, func(a *desc.Attribute) bool {
			if !slices.Contains(names, a.Name) {
				return false
			}
			delete(c.Desc.Notes, keyPath[ds]+".attributes."+a.Name)
			c.Unexpressed = slices.DeleteFunc(c.Unexpressed, func(u string) bool {
				return strings.HasPrefix(u, owner[ds]+" attribute "+a.Name+":")
			})
			return true
		})
	}
	var walk func(ct *desc.Content, at, kp string)
	walk = func(ct *desc.Content, at, kp string) {
		for _, ds := range ct.Datasets {
			p := strings.TrimPrefix(at+"/"+ds.Name, "/")
			keyPath[ds], owner[ds] = kp+".datasets."+ds.Name, attributeOwner(id, "/"+p)
			if cl := attr(ds, dsClass); cl != nil && cl.Value.Text == "DIMENSION_SCALE" {
				ds.Scale = desc.V("")
				if n := attr(ds, dsName); n != nil && n.Value.Set {
					ds.Scale = desc.V(n.Value.Text)
				}
				if strings.EqualFold(cl.At.Text, desc.AtCreate) { // set right after its creation
					ds.ScaleAt = desc.V(desc.AtCreate)
				}
				s := scale{path: "/" + p}
				if len(ds.Shape) == 1 {
					s.extent = ds.Shape[0].Text
				}
				if id := attr(ds, "_Netcdf4Dimid"); id != nil {
					s.dimid = id.Value.Text
				}
				scales = append(scales, s)
				drop(ds, dsClass, dsName, dsReferenceList)
			}
			if attr(ds, dsDimensionList) != nil {
				attached = append(attached, ds)
			}
		}
		for _, g := range ct.Groups {
			walk(&g.Content, at+"/"+g.Name.Text, kp+".groups."+g.Name.Text)
		}
	}
	walk(&f.Content, "", fpath)
	// a netCDF-4 file (its _NCProperties): netCDF tracks and indexes the creation order
	// of every group's links and attributes, which ncdump lists variables by (the
	// creation properties are not in the trace)
	if !tracedOrder && slices.ContainsFunc(f.Attributes, func(a *desc.Attribute) bool { return a.Name == "_NCProperties" }) {
		var mark func(ct *desc.Content)
		mark = func(ct *desc.Content) {
			ct.CreationOrder = desc.CreationOrder{Links: desc.V("indexed"), Attributes: desc.V("indexed")}
			for _, g := range ct.Groups {
				mark(&g.Content)
			}
		}
		mark(&f.Content)
		c.Desc.Guess(fpath, "creation_order: indexed, as netCDF-4 creates its groups (_NCProperties; the trace has no creation properties)")
	}
	for _, ds := range attached {
		// attached right after its creation (placeAttribute): dims_at: create once the
		// dims are said, else the stand-in keeps the default place
		atCreate := false
		if dl := attr(ds, dsDimensionList); strings.EqualFold(dl.At.Text, desc.AtCreate) {
			atCreate, dl.At = true, desc.Value{}
		}
		var dims []desc.Value
		if traced, ok := c.dimLists[owner[ds]]; ok && len(traced) == len(ds.Shape) { // the references written
			for _, paths := range traced {
				switch len(paths) {
				case 0:
					dims = append(dims, desc.V(""))
				case 1:
					dims = append(dims, desc.V(paths[0]))
				default:
					dims = append(dims, desc.Value{List: desc.Vs(paths...), Set: true})
				}
			}
		} else if co := attr(ds, "_Netcdf4Coordinates"); co != nil && co.Value.List != nil {
			for _, id := range co.Value.List {
				i := slices.IndexFunc(scales, func(s scale) bool { return s.dimid == id.Text })
				if i < 0 {
					dims = nil
					break
				}
				dims = append(dims, desc.V(scales[i].path))
			}
		} else if len(ds.Shape) == 1 {
			var of []scale
			for _, s := range scales {
				if s.extent == ds.Shape[0].Text {
					of = append(of, s)
				}
			}
			if len(of) == 1 {
				dims = []desc.Value{desc.V(of[0].path)}
			}
		}
		if len(dims) != len(ds.Shape) {
			continue // unresolved: the DIMENSION_LIST stand-in stays, listed
		}
		ds.Dims = dims
		if atCreate {
			ds.DimsAt = desc.V(desc.AtCreate)
		}
		drop(ds, dsDimensionList)
	}
}
