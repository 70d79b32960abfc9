//go:build cgo && gonum

// Package inspect reads HDF5 files independently of h5proxy's own HDF5 layer, through
// gonum.org/v1/hdf5 with the default (serial) driver: it lists a file's groups and
// datasets with their datatypes and shapes and reads dataset values, so tests and the
// `h5proxy inspect` command can check what the proxy wrote with a second reader.
//
// gonum's cgo preamble has no pkg-config directive, so the package needs CGO_CFLAGS and
// CGO_LDFLAGS pointing at the parallel HDF5 and the build tag `gonum` (the Makefile sets
// all three). Without the tag every function returns ErrUnavailable, so `go build ./...`
// works on a bare checkout.
//
//	tree, err := inspect.Tree("out.h5")
//	for _, n := range tree { fmt.Println(n) } // "/Timestep_0/x dataset f32 [8]"
package inspect

import (
	"fmt"
	"sort"

	"github.com/h5proxy/h5proxy/plan"
	"gonum.org/v1/hdf5"
)

const available = true

// Tree lists every group and dataset below the root, sorted by path.
func Tree(path string) ([]Node, error) {
	f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("inspect: open %s: %w", path, err)
	}
	defer f.Close()
	var out []Node
	if err := walk(&f.CommonFG, "", &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func walk(g *hdf5.CommonFG, prefix string, out *[]Node) error {
	n, err := g.NumObjects()
	if err != nil {
		return err
	}
	for i := uint(0); i < n; i++ {
		name, err := g.ObjectNameByIndex(i)
		if err != nil {
			return err
		}
		typ, err := g.ObjectTypeByIndex(i)
		if err != nil {
			return err
		}
		p := prefix + "/" + name
		switch typ {
		case hdf5.H5G_GROUP:
			*out = append(*out, Node{Path: p})
			sub, err := g.OpenGroup(name)
			if err != nil {
				return err
			}
			err = walk(&sub.CommonFG, p, out)
			sub.Close()
			if err != nil {
				return err
			}
		case hdf5.H5G_DATASET:
			node, err := describe(g, name, p)
			if err != nil {
				return err
			}
			*out = append(*out, node)
		}
	}
	return nil
}

func describe(g *hdf5.CommonFG, name, p string) (Node, error) {
	d, err := g.OpenDataset(name)
	if err != nil {
		return Node{}, err
	}
	defer d.Close()
	sp := d.Space()
	defer sp.Close()
	var dims, maxdims []uint
	if sp.SimpleExtentNDims() > 0 { // a scalar dataspace has no dims (gonum would panic)
		dims, maxdims, err = sp.SimpleExtentDims()
	}
	if err != nil {
		return Node{}, err
	}
	dt, err := d.Datatype()
	if err != nil {
		return Node{}, err
	}
	defer dt.Close()
	t, err := typeOf(dt)
	if err != nil {
		return Node{}, fmt.Errorf("inspect: %s: %w", p, err)
	}
	n := Node{Path: p, Dataset: true, Type: t}
	for i := range dims {
		n.Shape = append(n.Shape, uint64(dims[i]))
		m := uint64(maxdims[i])
		if maxdims[i] == ^uint(0) {
			m = plan.MaxUnlimited
		}
		n.MaxShape = append(n.MaxShape, m)
	}
	return n, nil
}

var atomics = []struct {
	h5 *hdf5.Datatype
	t  plan.Type
}{
	{hdf5.T_NATIVE_FLOAT, plan.F32}, {hdf5.T_NATIVE_DOUBLE, plan.F64},
	{hdf5.T_NATIVE_INT32, plan.I32}, {hdf5.T_NATIVE_INT64, plan.I64},
	{hdf5.T_NATIVE_UINT64, plan.U64}, {hdf5.T_NATIVE_UINT8, plan.U8},
	{hdf5.T_NATIVE_UINT32, plan.U32}, {hdf5.T_NATIVE_INT8, plan.I8},
}

// typeOf describes an HDF5 datatype in patterns' notation.
func typeOf(dt *hdf5.Datatype) (plan.Type, error) {
	switch dt.Class() {
	case hdf5.T_STRING:
		return plan.Str(int(dt.Size())), nil
	case hdf5.T_COMPOUND:
		ct := &hdf5.CompoundType{Datatype: *dt}
		t := plan.Type{Class: plan.Compound, Size: int(dt.Size())}
		for i := 0; i < ct.NMembers(); i++ {
			mt, err := ct.MemberType(i)
			if err != nil {
				return t, err
			}
			m, err := typeOf(mt)
			mt.Close()
			if err != nil {
				return t, err
			}
			t.Members = append(t.Members, plan.Field(ct.MemberName(i), ct.MemberOffset(i), m))
		}
		return t, nil
	}
	for _, a := range atomics {
		if dt.Equal(a.h5) {
			return a.t, nil
		}
	}
	return plan.Type{}, fmt.Errorf("unsupported datatype class %d size %d", dt.Class(), dt.Size())
}

// Read reads a whole dataset into data, a pointer to a slice of the matching Go type
// ([]float32, []int32, or []struct with `hdf5:"name"` tags for compounds) whose length
// is the number of elements.
func Read(path, dataset string, data any) error {
	f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
	if err != nil {
		return fmt.Errorf("inspect: open %s: %w", path, err)
	}
	defer f.Close()
	d, err := f.OpenDataset(dataset)
	if err != nil {
		return fmt.Errorf("inspect: %s: %w", dataset, err)
	}
	defer d.Close()
	return d.Read(data)
}

// Points returns a dataset's element count.
func Points(path, dataset string) (int, error) {
	f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
	if err != nil {
		return 0, fmt.Errorf("inspect: open %s: %w", path, err)
	}
	defer f.Close()
	d, err := f.OpenDataset(dataset)
	if err != nil {
		return 0, fmt.Errorf("inspect: %s: %w", dataset, err)
	}
	defer d.Close()
	sp := d.Space()
	defer sp.Close()
	return sp.SimpleExtentNPoints(), nil
}
