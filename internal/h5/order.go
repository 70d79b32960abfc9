package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
#include "es.h"

static hid_t h5o_gcpl_class(void) { return H5P_GROUP_CREATE; }

// h5o_orders reads the creation order flags of obj's creation list: links (files and
// groups; 0 for a dataset) and attributes.
static herr_t h5o_orders(hid_t obj, unsigned *links, unsigned *attrs) {
	hid_t pl = -1;
	*links = 0;
	switch (H5Iget_type(obj)) {
	case H5I_FILE: { // the root group's list keeps them (the file creation list does not)
		hid_t g = H5Gopen2(obj, "/", H5P_DEFAULT);
		if (g < 0) return -1;
		pl = H5Gget_create_plist(g);
		H5Gclose(g);
		break;
	}
	case H5I_GROUP: pl = H5Gget_create_plist(obj); break;
	case H5I_DATASET: pl = H5Dget_create_plist(obj); break;
	default: return -2;
	}
	if (pl < 0) return -1;
	herr_t rc = H5Pget_attr_creation_order(pl, attrs);
	if (rc >= 0 && H5Iget_type(obj) != H5I_DATASET) rc = H5Pget_link_creation_order(pl, links);
	H5Pclose(pl);
	return rc;
}
static unsigned h5o_flags(int f) {
	return (f & 1 ? H5P_CRT_ORDER_TRACKED : 0) | (f & 2 ? H5P_CRT_ORDER_INDEXED | H5P_CRT_ORDER_TRACKED : 0);
}
*/
import "C"

import "github.com/h5proxy/h5proxy/plan"

// setOrder sets the creation order of links (when links is set: a group or file creation
// list) and attributes on the creation list pl, flags plan.OrderTracked and
// plan.OrderIndexed (indexed implies tracked). Called inside the gate.
func setOrder(op string, pl C.hid_t, links, attrs int, withLinks bool) error {
	if withLinks && links != 0 && C.H5Pset_link_creation_order(pl, C.h5o_flags(C.int(links))) < 0 {
		return stackError("H5Pset_link_creation_order for " + op)
	}
	if attrs != 0 && C.H5Pset_attr_creation_order(pl, C.h5o_flags(C.int(attrs))) < 0 {
		return stackError("H5Pset_attr_creation_order for " + op)
	}
	return nil
}

// setNoTimes turns the tracking of object times off on the creation list pl (a file's,
// group's or dataset's: H5Pset_obj_track_times false) when noTimes. Called inside the gate.
func setNoTimes(op string, pl C.hid_t, noTimes bool) error {
	if noTimes && C.H5Pset_obj_track_times(pl, C.hbool_t(false)) < 0 {
		return stackError("H5Pset_obj_track_times for " + op)
	}
	return nil
}

// CreateGroupWith creates the group at path with the creation properties g (the creation
// order of its links and attributes), as CreateGroup does with the defaults.
func CreateGroupWith(loc ID, path string, g plan.GroupSpec) (ID, error) {
	if g.LinkOrder == 0 && g.AttrOrder == 0 && !g.NoTimes {
		return CreateGroup(loc, path)
	}
	enter()
	defer leave()
	op := asyncCall("H5Gcreate2", curES()) + " " + path
	gcpl := C.H5Pcreate(C.h5o_gcpl_class())
	if gcpl < 0 {
		return 0, stackError("H5Pcreate(H5P_GROUP_CREATE) for " + op)
	}
	defer C.H5Pclose(gcpl)
	if err := setOrder(op, gcpl, g.LinkOrder, g.AttrOrder, true); err != nil {
		return 0, err
	}
	if err := setNoTimes(op, gcpl, g.NoTimes); err != nil {
		return 0, err
	}
	// Into the calling thread's event set as H5Gcreate_async, as every other create.
	return createGroupLocked(loc, path, "H5Gcreate2", func(es, l C.hid_t, n *C.char) C.hid_t { return C.h5e_gcreate(es, l, n, gcpl) })
}

// CreationOrderOf returns the creation order flags (plan.OrderTracked, plan.OrderIndexed)
// of an open file's root group, a group's or a dataset's links (0 for a dataset) and
// attributes, as their creation lists recorded them.
func CreationOrderOf(obj ID) (links, attrs int, err error) {
	enter()
	defer leave()
	if err := checkID("CreationOrderOf", obj, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return 0, 0, err
	}
	var l, a C.uint
	if C.h5o_orders(C.hid_t(obj), &l, &a) < 0 {
		return 0, 0, stackError("H5Pget_link_creation_order, H5Pget_attr_creation_order")
	}
	flags := func(f C.uint) int {
		n := 0
		if f&C.H5P_CRT_ORDER_TRACKED != 0 {
			n |= plan.OrderTracked
		}
		if f&C.H5P_CRT_ORDER_INDEXED != 0 {
			n |= plan.OrderIndexed
		}
		return n
	}
	return flags(l), flags(a), nil
}
