package h5layout

import (
	"fmt"
	pathpkg "path"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// Shape returns the extent of the dataset at path: from its open identifier when the
// table holds it, else by opening it briefly in file.
func (o ObjTable) Shape(file h5.ID, path string) ([]uint64, error) {
	if id, ok := o.IDs[path]; ok && !IsGroupKind(o.Kinds[path]) {
		return h5.DatasetShape(id)
	}
	return OpenShape(file, path)
}

// CloseForFileClose closes every object still open when its file closes. The objects
// were leaked by the plan, a bug that would change HDF5's close behaviour: the returned
// error names them (nil when none was open).
func (o ObjTable) CloseForFileClose() error {
	if leaked := o.CloseAll(); len(leaked) > 0 {
		return fmt.Errorf("plan left objects open at file close: %v", leaked)
	}
	return nil
}

// Open creates or opens, in file, the group or dataset op names (CreateGroup, OpenGroup,
// CreateDataset, OpenDataset) and records it; an open with op.AsObject goes through
// H5Oopen.
func (o ObjTable) Open(file h5.ID, op *plan.Op) error {
	if _, dup := o.IDs[op.Path]; dup {
		return fmt.Errorf("%s is already open", op.Path)
	}
	var id h5.ID
	var err error
	switch {
	case op.AsObject && (op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset):
		if id, err = h5.OpenObject(file, op.Path, op.CollMetadata); err == nil {
			o.Generic[op.Path] = true
		}
	case op.InParent && (op.Kind == plan.CreateGroup || op.Kind == plan.CreateDataset):
		parent, ok := o.IDs[pathpkg.Dir(op.Path)]
		if !ok || !IsGroupKind(o.Kinds[pathpkg.Dir(op.Path)]) {
			return fmt.Errorf("%s %s in its parent: group %s is not open", op.Kind, op.Path, pathpkg.Dir(op.Path))
		}
		in := *op
		in.Path = pathpkg.Base(op.Path)
		id, err = openByKind(parent, &in)
	default:
		id, err = openByKind(file, op)
	}
	if err != nil {
		return err
	}
	o.Add(op.Path, id, op.Kind)
	return nil
}

// openByKind creates or opens the object of op with the call its kind names.
func openByKind(file h5.ID, op *plan.Op) (id h5.ID, err error) {
	switch op.Kind {
	case plan.CreateGroup:
		if op.API1 {
			id, err = h5.CreateGroup1(file, op.Path)
			break
		}
		if op.Group != nil { // creation order (a description's creation_order)
			id, err = h5.CreateGroupWith(file, op.Path, *op.Group)
			break
		}
		id, err = h5.CreateGroup(file, op.Path)
	case plan.OpenGroup:
		id, err = h5.OpenGroupColl(file, op.Path, op.CollMetadata)
	case plan.CreateDataset:
		if len(op.Dataset.Virtual) > 0 {
			id, err = h5.CreateVirtual(file, op.Path, *op.Dataset, VirtualMaps(op.Dataset.Virtual))
			break
		}
		id, err = h5.CreateDataset(file, op.Path, *op.Dataset)
	case plan.OpenDataset:
		if op.Dataset != nil && op.Dataset.API1 {
			id, err = h5.OpenDataset1(file, op.Path)
			break
		}
		id, err = h5.OpenDatasetColl(file, op.Path, op.CollMetadata)
	default:
		err = fmt.Errorf("%s %s: not an object to open", op.Kind, op.Path)
	}
	return id, err
}

// AttributeLoc is where an attribute operation (plan.WriteAttribute, plan.ReadAttribute)
// goes: the file's identifier for "/" (the root group through the file), else the object
// the plan opened at op.Path.
func (o ObjTable) AttributeLoc(file h5.ID, op *plan.Op) (h5.ID, error) {
	if op.Path == "/" {
		return file, nil
	}
	id, ok := o.IDs[op.Path]
	if !ok {
		return 0, fmt.Errorf("attribute %s: object %s is not open", op.Attribute.Name, op.Path)
	}
	return id, nil
}
