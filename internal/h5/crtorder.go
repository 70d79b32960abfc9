package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <hdf5.h>

static herr_t h5c_count_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
	(void)loc;
	(void)name;
	(void)info;
	(*(hsize_t *)data)++;
	return 0;
}

// h5c_count counts obj's links (links set: a file's root group or a group) or attributes.
static int h5c_count(hid_t obj, int links, hsize_t *n) {
	*n = 0;
	if (links) {
		H5G_info_t gi;
		if (H5Gget_info(obj, &gi) < 0) return -1;
		*n = gi.nlinks;
		return 0;
	}
	hsize_t idx = 0;
	return H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, h5c_count_cb, n) < 0 ? -1 : 0;
}

// h5c_name names obj's link or attribute i in increasing creation order (NULL on error;
// *oom set when out of memory). The caller frees it.
static char *h5c_name(hid_t obj, int links, hsize_t i, int *oom) {
	ssize_t n = links ? H5Lget_name_by_idx(obj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT)
	                  : H5Aget_name_by_idx(obj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
	*oom = 0;
	if (n < 0) return NULL;
	char *s = malloc((size_t)n + 1);
	if (s == NULL) {
		*oom = 1;
		return NULL;
	}
	ssize_t m = links ? H5Lget_name_by_idx(obj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, s, (size_t)n + 1, H5P_DEFAULT)
	                  : H5Aget_name_by_idx(obj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, s, (size_t)n + 1, H5P_DEFAULT);
	if (m < 0) {
		free(s);
		return NULL;
	}
	return s;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// LinkNamesByCreation lists the links of g (a file's root group or a group) in increasing
// creation order (H5_INDEX_CRT_ORDER). The group must track its links' creation order
// (CreationOrder says "tracked" or "indexed"): HDF5 refuses the index otherwise.
func LinkNamesByCreation(g ID) ([]string, error) {
	return namesByCreation("LinkNamesByCreation", g, true, C.H5I_FILE, C.H5I_GROUP)
}

// AttributeNamesByCreation lists the attributes of obj (a file's root group, a group or
// a dataset) in increasing creation order; obj must track its attributes' creation order.
func AttributeNamesByCreation(obj ID) ([]string, error) {
	return namesByCreation("AttributeNamesByCreation", obj, false, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET)
}

func namesByCreation(op string, obj ID, links bool, kinds ...C.H5I_type_t) ([]string, error) {
	enter()
	defer leave()
	if err := checkID(op, obj, kinds...); err != nil {
		return nil, err
	}
	call, l := "H5Aget_name_by_idx", C.int(0)
	if links {
		call, l = "H5Lget_name_by_idx", 1
	}
	var n C.hsize_t
	if C.h5c_count(C.hid_t(obj), l, &n) < 0 {
		return nil, stackError(fmt.Sprintf("%s: counting object %d's names", op, obj))
	}
	out := make([]string, 0, int(n))
	for i := C.hsize_t(0); i < n; i++ {
		var oom C.int
		s := C.h5c_name(C.hid_t(obj), l, i, &oom)
		if s == nil {
			if oom != 0 {
				return nil, errorf("h5: %s object %d: out of memory", call, obj)
			}
			return nil, stackError(fmt.Sprintf("%s object %d, creation order index %d", call, obj, i))
		}
		out = append(out, C.GoString(s))
		C.free(unsafe.Pointer(s))
	}
	return out, nil
}
