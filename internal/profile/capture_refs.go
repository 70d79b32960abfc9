package profile

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// refDatasets resolves the references each dataset of references wrote (capDataset.refs,
// rank 0's first write) to the targets of the H5Rcreate events rank 0 made them with in
// its file, as a reference attribute's are (capture_attr.go).
func refDatasets(p *Profile, files map[string]map[string]*capDataset) {
	made := map[string]map[string]Event{} // file → reference bytes → its H5Rcreate
	for _, e := range p.Events {
		recordRef(made, e)
	}
	for f, ds := range files {
		for _, d := range ds {
			size := d.info.TypeSize
			if d.info.TypeClass != h5tReference || d.refs == "" || size != objRefSize && size != regionRefSize {
				continue
			}
			b, err := hex.DecodeString(d.refs)
			if err != nil {
				continue
			}
			if t, in, ok := refTargets(b, size, made[f]); ok {
				d.targets, d.inexact = t, in
			}
		}
	}
}

// refValue makes out, a dataset of references whose targets are traced, say them: type
// ref or regref, its extent in numbers, value: the targets, written whole by rank 0 (or
// replicated, as traced). ok is false when the dataset is no such one, or its writes are
// split over the ranks (a value is written whole).
func (c *Description) refValue(out *desc.Dataset, dpath, id string, d *capDataset) bool {
	if d.targets == nil || d.nwrites != 1 {
		return false
	}
	if k := out.Decompose.Kind.Text; k != "" && k != "rank0" && k != "replicated" || d.series {
		return false
	}
	n := int64(1)
	shape := make([]string, len(d.info.Dims))
	for i, v := range d.info.Dims {
		shape[i], n = strconv.FormatInt(v, 10), n*v
	}
	if int64(len(d.targets)) != n {
		return false
	}
	out.Type = desc.V(map[bool]string{true: "ref", false: "regref"}[d.info.TypeSize == objRefSize])
	out.Shape = desc.Vs(shape...)
	out.Give("shape")
	out.Value = desc.Value{List: d.targets, Set: true}
	if d.inexact != "" {
		c.unexpressed(dpath, fmt.Sprintf("%s %s: %s: %s", id, d.template, d.inexact, regionTargetNote))
	}
	return true
}
