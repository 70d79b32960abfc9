package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"

// h5p_link_at names link idx of group g (name order) and its kind: 0 hard, 1 soft,
// 2 external, 3 another (user-defined) kind; *val (freed by the caller) is a soft link's
// stored path or an external link's "file\0path".
static int h5p_link_at(hid_t g, hsize_t idx, char **name, int *kind, char **val, size_t *vlen) {
	ssize_t n = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, idx, NULL, 0, H5P_DEFAULT);
	if (n < 0) return -1;
	*name = malloc((size_t)n + 1);
	if (*name == NULL) return -2;
	if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, idx, *name, (size_t)n + 1, H5P_DEFAULT) < 0) return -1;
#if H5_VERSION_GE(1, 12, 0)
	H5L_info2_t li;
	if (H5Lget_info2(g, *name, &li, H5P_DEFAULT) < 0) return -1;
#else
	H5L_info_t li;
	if (H5Lget_info(g, *name, &li, H5P_DEFAULT) < 0) return -1;
#endif
	*val = NULL;
	*vlen = 0;
	switch (li.type) {
	case H5L_TYPE_HARD: *kind = 0; return 0;
	case H5L_TYPE_SOFT: *kind = 1; break;
	case H5L_TYPE_EXTERNAL: *kind = 2; break;
	default: *kind = 3; return 0;
	}
	*vlen = li.u.val_size;
	*val = malloc(li.u.val_size + 1);
	if (*val == NULL) return -2;
	if (H5Lget_val(g, *name, *val, li.u.val_size, H5P_DEFAULT) < 0) return -1;
	(*val)[li.u.val_size] = 0;
	if (*kind == 2) {
		unsigned flags;
		const char *file, *path;
		if (H5Lunpack_elink_val(*val, li.u.val_size, &flags, &file, &path) < 0) return -1;
		size_t fl = strlen(file), pl = strlen(path);
		char *out = malloc(fl + pl + 2);
		if (out == NULL) return -2;
		memcpy(out, file, fl + 1);
		memcpy(out + fl + 1, path, pl + 1);
		free(*val);
		*val = out;
		*vlen = fl + 1 + pl;
	}
	return 0;
}

static int h5p_alloc_time(hid_t dcpl) {
	H5D_alloc_time_t t;
	if (H5Pget_alloc_time(dcpl, &t) < 0) return -1;
	return (int)t;
}

// h5p_fill_value reads dcpl's fill value as a double (numeric datasets): 1 when the user
// set one, 0 when it is the library's default or undefined, -1 on error.
static int h5p_fill_value(hid_t dcpl, double *v) {
	H5D_fill_value_t st;
	if (H5Pfill_value_defined(dcpl, &st) < 0) return -1;
	if (st != H5D_FILL_VALUE_USER_DEFINED) return 0;
	if (H5Pget_fill_value(dcpl, H5T_NATIVE_DOUBLE, v) < 0) return -1;
	return 1;
}

// h5p_ref_name names the object reference r (in the memory type h5p_ref_mtype gives) of
// loc: its path, in *out (freed by the caller).
#if H5_VERSION_GE(1, 12, 0)
static hid_t h5p_ref_mtype(void) { return H5T_STD_REF; }
static int h5p_ref_name(hid_t loc, void *r, char **out) {
	(void)loc;
	ssize_t n = H5Rget_obj_name((H5R_ref_t *)r, H5P_DEFAULT, NULL, 0);
	if (n < 0) return -1;
	*out = malloc((size_t)n + 1);
	if (*out == NULL) return -2;
	if (H5Rget_obj_name((H5R_ref_t *)r, H5P_DEFAULT, *out, (size_t)n + 1) < 0) return -1;
	return 0;
}
static void h5p_ref_release(void *r) { H5Rdestroy((H5R_ref_t *)r); }
static size_t h5p_ref_size(void) { return sizeof(H5R_ref_t); }
#else
static hid_t h5p_ref_mtype(void) { return H5T_STD_REF_OBJ; }
static int h5p_ref_name(hid_t loc, void *r, char **out) {
	ssize_t n = H5Rget_name(loc, H5R_OBJECT, r, NULL, 0);
	if (n < 0) return -1;
	*out = malloc((size_t)n + 1);
	if (*out == NULL) return -2;
	if (H5Rget_name(loc, H5R_OBJECT, r, *out, (size_t)n + 1) < 0) return -1;
	return 0;
}
static void h5p_ref_release(void *r) { (void)r; }
static size_t h5p_ref_size(void) { return sizeof(hobj_ref_t); }
#endif

// h5p_attr_refs reads attribute name of loc, a dataspace of object references or of
// variable-length sequences of them (DIMENSION_LIST), and names every reference: records
// "element \x1f path \x1e" in *out (freed by the caller). 1: not such an attribute.
static int h5p_attr_refs(hid_t loc, const char *name, char **out) {
	hid_t a = -1, ft = -1, s = -1, mt = -1;
	void *buf = NULL;
	int rc = -1, vlen = 0;
	size_t cap = 256, len = 0;
	*out = NULL;
	if ((a = H5Aopen(loc, name, H5P_DEFAULT)) < 0) goto done;
	if ((ft = H5Aget_type(a)) < 0) goto done;
	if (H5Tget_class(ft) == H5T_VLEN) {
		hid_t base = H5Tget_super(ft);
		int isref = base >= 0 && H5Tget_class(base) == H5T_REFERENCE;
		if (base >= 0) H5Tclose(base);
		if (!isref) { rc = 1; goto done; }
		vlen = 1;
		mt = H5Tvlen_create(h5p_ref_mtype());
	} else if (H5Tget_class(ft) == H5T_REFERENCE && H5Tequal(ft, H5T_STD_REF_OBJ) > 0) {
		mt = H5Tcopy(h5p_ref_mtype());
	} else {
		rc = 1;
		goto done;
	}
	if (mt < 0 || (s = H5Aget_space(a)) < 0) goto done;
	hssize_t n = H5Sget_simple_extent_npoints(s);
	if (n < 0) goto done;
	size_t el = vlen ? sizeof(hvl_t) : h5p_ref_size();
	buf = calloc(n > 0 ? (size_t)n : 1, el);
	*out = malloc(cap);
	if (buf == NULL || *out == NULL) { rc = -2; goto done; }
	(*out)[0] = 0;
	if (H5Aread(a, mt, buf) < 0) goto done;
	rc = 0;
	for (hssize_t i = 0; i < n && rc == 0; i++) {
		size_t m = 1;
		char *refs = (char *)buf + (size_t)i * el;
		if (vlen) {
			m = ((hvl_t *)refs)->len;
			refs = ((hvl_t *)refs)->p;
		}
		for (size_t j = 0; j < m && rc == 0; j++) {
			char *nm = NULL;
			rc = h5p_ref_name(loc, refs + j * h5p_ref_size(), &nm);
			if (rc == 0) {
				size_t need = len + strlen(nm) + 32;
				if (need > cap) {
					while (need > cap) cap *= 2;
					char *grown = realloc(*out, cap);
					if (grown == NULL) rc = -2; else *out = grown;
				}
				if (rc == 0) len += (size_t)sprintf(*out + len, "%lld\x1f%s\x1e", (long long)i, nm);
			}
			free(nm);
		}
	}
	if (vlen) h5p_vlen_reclaim(mt, s, buf);
	else for (hssize_t i = 0; i < n; i++) h5p_ref_release((char *)buf + (size_t)i * el);
done:
	free(buf);
	if (mt >= 0) H5Tclose(mt);
	if (s >= 0) H5Sclose(s);
	if (ft >= 0) H5Tclose(ft);
	if (a >= 0) H5Aclose(a);
	return rc;
}

// h5p_crt_order reads the creation order flags of obj's creation list: its links' (a
// group's; -1 for a dataset) and its attributes'.
static int h5p_crt_order(hid_t obj, int *links, int *attrs) {
	int ds = H5Iget_type(obj) == H5I_DATASET;
	hid_t p = ds ? H5Dget_create_plist(obj) : H5Gget_create_plist(obj);
	unsigned f = 0;
	int rc = -1;
	if (p < 0) return -1;
	*links = -1;
	if (!ds) {
		if (H5Pget_link_creation_order(p, &f) < 0) goto out;
		*links = (int)f;
	}
	if (H5Pget_attr_creation_order(p, &f) < 0) goto out;
	*attrs = (int)f;
	rc = 0;
out:
	H5Pclose(p);
	return rc;
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// ListLinks lists the links of the open group g (a file's root group or a group) in name
// order, with their kinds and what soft and external links store: what tells another
// name of an object (a hard link Walk lists once) from the tree, and what H5Ovisit never
// follows.
func ListLinks(g ID) ([]LinkInfo, error) {
	enter()
	defer leave()
	if err := checkID("ListLinks", g, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return nil, err
	}
	var gi C.H5G_info_t
	if C.H5Gget_info(C.hid_t(g), &gi) < 0 {
		return nil, stackError(fmt.Sprintf("H5Gget_info group %d", g))
	}
	out := make([]LinkInfo, 0, int(gi.nlinks))
	for i := C.hsize_t(0); i < gi.nlinks; i++ {
		var (
			name, val *C.char
			kind      C.int
			vlen      C.size_t
		)
		rc := C.h5p_link_at(C.hid_t(g), i, &name, &kind, &val, &vlen)
		l := LinkInfo{Name: C.GoString(name)}
		if val != nil {
			raw := C.GoStringN(val, C.int(vlen))
			switch kind {
			case 1: // the stored value counts the path's terminating NUL
				l.Target = strings.TrimSuffix(raw, "\x00")
			case 2:
				l.File, l.Target = splitNul(raw)
			}
		}
		C.free(unsafe.Pointer(name))
		C.free(unsafe.Pointer(val))
		if rc == -2 {
			return nil, errorf("h5: links of group %d: out of memory", g)
		}
		if rc < 0 {
			return nil, stackError(fmt.Sprintf("link %d of group %d", int(i), g))
		}
		l.Kind = [...]LinkKind{LinkHard, LinkSoft, LinkExternal, LinkOther}[kind]
		out = append(out, l)
	}
	return out, nil
}

// DatasetCreation reads the creation properties of the open dataset d that DatasetInfo
// leaves out: its allocation time and a fill value the writer set.
func DatasetCreation(d ID) (Creation, error) {
	enter()
	defer leave()
	if err := checkID("DatasetCreation", d, C.H5I_DATASET); err != nil {
		return Creation{}, err
	}
	dcpl := C.H5Dget_create_plist(C.hid_t(d))
	if dcpl < 0 {
		return Creation{}, stackError(fmt.Sprintf("H5Dget_create_plist dataset %d", d))
	}
	defer C.H5Pclose(dcpl)
	var c Creation
	switch C.h5p_alloc_time(dcpl) {
	case C.H5D_ALLOC_TIME_EARLY:
		c.AllocTime = plan.AllocTimeEarly
	case C.H5D_ALLOC_TIME_LATE:
		c.AllocTime = plan.AllocTimeLate
	case C.H5D_ALLOC_TIME_INCR:
		c.AllocTime = plan.AllocTimeIncr
	case -1:
		return Creation{}, stackError(fmt.Sprintf("H5Pget_alloc_time dataset %d", d))
	default:
		c.AllocTime = plan.AllocTimeDefault
	}
	var v C.double
	switch C.h5p_fill_value(dcpl, &v) {
	case -1:
		// A fill value no double holds (a string's, a compound's): none to report, but an
		// enumeration's, read in its native type (HDF5 converts no enumeration to a double).
		C.H5Eclear2(C.H5E_DEFAULT)
		if v, ok := enumFill(C.hid_t(d), dcpl); ok {
			c.FillSet, c.Fill = true, float64(v)
		}
	case 1:
		c.FillSet, c.Fill = true, float64(v)
	}
	return c, nil
}

// ReferenceNames reads the attribute name of loc (a file, group or dataset) when it holds
// object references, or variable-length sequences of them (the DIMENSION_LIST
// H5DSattach_scale writes), and returns the paths they name, per element of the
// attribute; ok is false for an attribute of another type.
func ReferenceNames(loc ID, name string) (paths [][]string, ok bool, err error) {
	enter()
	defer leave()
	if err := checkID("ReferenceNames", loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return nil, false, err
	}
	cname := cstr(name)
	defer free(cname)
	var out *C.char
	rc := C.h5p_attr_refs(C.hid_t(loc), cname, &out)
	recs := takeRecords(out)
	switch rc {
	case 1:
		return nil, false, nil
	case -2:
		return nil, false, errorf("h5: attribute %s: out of memory", name)
	case 0:
	default:
		return nil, false, stackError("reading the references of attribute " + name)
	}
	for _, r := range recs {
		var i int
		if _, err := fmt.Sscan(r[0], &i); err != nil {
			return nil, false, errorf("h5: attribute %s: element %q", name, r[0])
		}
		for len(paths) <= i {
			paths = append(paths, nil)
		}
		paths[i] = append(paths[i], r[1])
	}
	return paths, true, nil
}

// CreationOrder reads whether the open group or dataset obj tracks, and indexes, the
// creation order of its links (a group's) and attributes: "none", "tracked" or "indexed"
// (H5Pget_link_creation_order, H5Pget_attr_creation_order); links is "" for a dataset.
func CreationOrder(obj ID) (links, attrs string, err error) {
	enter()
	defer leave()
	if err := checkID("CreationOrder", obj, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return "", "", err
	}
	var l, a C.int
	if C.h5p_crt_order(C.hid_t(obj), &l, &a) < 0 {
		return "", "", stackError(fmt.Sprintf("creation order of object %d", obj))
	}
	name := func(f C.int) string {
		switch {
		case f < 0:
			return ""
		case f&C.H5P_CRT_ORDER_INDEXED != 0:
			return "indexed"
		case f&C.H5P_CRT_ORDER_TRACKED != 0:
			return "tracked"
		}
		return "none"
	}
	return name(l), name(a), nil
}

// ObjectTimed reports whether a group's, dataset's or file's (its root group's) object
// header records its times: false for an object created with H5Pset_obj_track_times
// false, as netCDF-4 and h5py create theirs.
func ObjectTimed(obj ID) (bool, error) {
	enter()
	defer leave()
	if err := checkID("ObjectTimed", obj, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return false, err
	}
	t := C.h5p_object_timed(C.hid_t(obj))
	if t < 0 {
		return false, stackError(fmt.Sprintf("H5Oget_info (times) of object %d", obj))
	}
	return t == 1, nil
}

func splitNul(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
