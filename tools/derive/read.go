// Package derive writes an application description (docs/apps.md) from existing HDF5
// files: `h5proxy derive FILE.h5 ...`. It reads each file serially through the project's
// own HDF5 binding (internal/h5, the sec2 driver), keeps every group, dataset (type,
// shape, max shape, layout, chunking, filters, fill) and attribute (type, shape, values of
// small ones), and renders a description a person could have written: parameters pulled
// out, datasets of one type and shape folded into a list of names, per-step groups and
// time-series file names turned into templates over step, and comments where a file
// cannot tell (decomposition, compute time, collective or not).
package derive

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// Group is a group (or a file's root group) as read: its attributes, subgroups and
// datasets in name order.
type Group struct {
	Name     string
	Attrs    []plan.AttributeSpec
	Groups   []*Group
	Datasets []*Dataset
	// Path is the group's path in its file ("/" for the root).
	Path string
	// Unlisted counts the group's links to objects listed elsewhere or outside the tree
	// (hard links to an object already reached, soft and external links): the visit lists
	// each object once and derive cannot name these yet, so a description counts them in a
	// comment for the user to write under links:.
	Unlisted int
}

// Dataset is a dataset as read: its type, extents and creation properties, and attributes.
type Dataset struct {
	Name  string
	Info  h5.Info
	Attrs []plan.AttributeSpec
}

// File is one input file: its path and root group.
type File struct {
	Path string
	Root *Group
}

// Read reads the structure of every file in paths, in order. An error names the file and
// the object that could not be read.
func Read(paths []string) ([]*File, error) {
	var out []*File
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			return nil, fmt.Errorf("derive: %s: %w", p, err)
		}
		out = append(out, f)
	}
	return out, nil
}

func readFile(path string) (_ *File, err error) {
	f, err := h5.OpenFile(path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := h5.CloseFile(f); err == nil && cerr != nil {
			err = cerr
		}
	}()
	objs, err := h5.Walk(f)
	if err != nil {
		return nil, err
	}
	root := &Group{Name: "/", Path: "/"}
	if root.Attrs, err = attributes(f, "/"); err != nil {
		return nil, err
	}
	groups := map[string]*Group{"": root}
	children := map[*Group]int{}
	for _, o := range objs {
		dir, name := filepath.Split(o.Path)
		parent := groups[strings.TrimSuffix(dir, "/")]
		if parent == nil {
			return nil, fmt.Errorf("%s: parent group not listed before it", o.Path)
		}
		children[parent]++
		if !o.Dataset {
			g := &Group{Name: name, Path: o.Path}
			if g.Attrs, err = attributes(f, o.Path); err != nil {
				return nil, err
			}
			groups[o.Path] = g
			parent.Groups = append(parent.Groups, g)
			continue
		}
		d, err := dataset(f, o.Path, name)
		if err != nil {
			return nil, err
		}
		parent.Datasets = append(parent.Datasets, d)
	}
	for _, g := range groups {
		n, err := linkCount(f, g.Path)
		if err != nil {
			return nil, err
		}
		g.Unlisted = max(n-children[g], 0)
	}
	return &File{Path: path, Root: root}, nil
}

// linkCount returns the number of links of the group at path (H5Gget_info).
func linkCount(f h5.ID, path string) (int, error) {
	g, err := h5.OpenGroup(f, path)
	if err != nil {
		return 0, err
	}
	defer h5.CloseGroup(g)
	st, err := h5.ObjectStat(g)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return st.Links, nil
}

func dataset(f h5.ID, path, name string) (*Dataset, error) {
	id, err := h5.OpenDataset(f, path)
	if err != nil {
		return nil, err
	}
	defer h5.CloseDataset(id)
	info, err := h5.DatasetInfo(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	attrs, err := attrsOf(id, path)
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: name, Info: info, Attrs: attrs}, nil
}

// attributes reads the attributes of the group at path.
func attributes(f h5.ID, path string) ([]plan.AttributeSpec, error) {
	g, err := h5.OpenGroup(f, path)
	if err != nil {
		return nil, err
	}
	defer h5.CloseGroup(g)
	return attrsOf(g, path)
}

func attrsOf(obj h5.ID, path string) ([]plan.AttributeSpec, error) {
	names, err := h5.AttributeNames(obj)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []plan.AttributeSpec
	for _, n := range names {
		a, err := h5.ReadAttribute(obj, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, a)
	}
	return out, nil
}
