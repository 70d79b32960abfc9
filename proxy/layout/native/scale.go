package native

import (
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// scale carries out a plan.Scale on file f: the dataset at op.Path made a dimension
// scale, or a scale attached to one of its dimensions, each dataset through its open
// identifier (netCDF-4 calls H5DS on the datasets it holds open) or, when the plan holds
// it closed, opened by path for the call.
func (l *nativeLayout) scale(f *openFile, op *plan.Op) error {
	ds, done, err := f.dataset(op.Path)
	if err != nil {
		return err
	}
	defer done()
	s := op.Scale
	if s.Attach == "" {
		return h5.SetScale(ds, s.Name, s.Named)
	}
	sc, scDone, err := f.dataset(s.Attach)
	if err != nil {
		return err
	}
	defer scDone()
	return h5.AttachScale(ds, sc, s.Dim)
}

// dataset returns the identifier of the dataset at path: the plan's open one, or one
// opened now that done closes.
func (f *openFile) dataset(path string) (h5.ID, func(), error) {
	if id, ok := f.objs.IDs[path]; ok {
		return id, func() {}, nil
	}
	id, err := h5.OpenDataset(f.id, path)
	if err != nil {
		return 0, nil, err
	}
	return id, func() { h5.CloseDataset(id) }, nil
}
