package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
*/
import "C"

import "github.com/h5proxy/h5proxy/plan"

// CreateLink creates the link at path in the file (or group) loc as l says: a hard link
// to the object at l.Target (H5Lcreate_hard), a soft link storing l.Target
// (H5Lcreate_soft) or an external link to l.Target in file l.File (H5Lcreate_external),
// each with the default link creation and access lists, as h5py and H5MD writers call them.
func CreateLink(loc ID, path string, l plan.LinkSpec) error {
	enter()
	defer leave()
	if err := checkID("CreateLink "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return err
	}
	cpath, ctarget := cstr(path), cstr(l.Target)
	defer free(cpath)
	defer free(ctarget)
	var rc C.herr_t
	call := ""
	switch l.Kind {
	case plan.HardLink:
		call = "H5Lcreate_hard"
		rc = C.H5Lcreate_hard(C.hid_t(loc), ctarget, C.hid_t(loc), cpath, C.H5P_DEFAULT, C.H5P_DEFAULT)
	case plan.SoftLink:
		call = "H5Lcreate_soft"
		rc = C.H5Lcreate_soft(ctarget, C.hid_t(loc), cpath, C.H5P_DEFAULT, C.H5P_DEFAULT)
	case plan.ExternalLink:
		call = "H5Lcreate_external"
		cfile := cstr(l.File)
		defer free(cfile)
		rc = C.H5Lcreate_external(cfile, ctarget, C.hid_t(loc), cpath, C.H5P_DEFAULT, C.H5P_DEFAULT)
	default:
		return errorf("h5: CreateLink %s: unknown link kind %s", path, l.Kind)
	}
	if rc < 0 {
		return stackError(call + " " + path + " -> " + l.Target)
	}
	return nil
}
