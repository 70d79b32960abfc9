package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

// The dimension scale attributes as HDF5's high-level H5DS functions write them (the
// layout netCDF-4 relies on): CLASS and NAME null-terminated fixed strings, as long as
// the text plus its terminator; DIMENSION_LIST on a dataset, one variable-length list of
// object references per dimension; REFERENCE_LIST on a scale, an array of {dataset: an
// object reference, dimension: a native integer} records at the offsets of a C struct of a
// reference and an unsigned int. The high-level library is not linked: these calls are
// the core library's.

typedef struct { hobj_ref_t ref; unsigned int dim; } h5p_dsref;

// The record's dimension member: a native int in 1.10's H5DS, a native unsigned int in
// 1.14's (both checked against h5dump of files their high-level libraries wrote).
#if H5_VERSION_GE(1, 14, 0)
#define H5P_DSREF_DIM H5T_NATIVE_UINT
#else
#define H5P_DSREF_DIM H5T_NATIVE_INT
#endif

// h5p_str_attr (re)writes a scalar string attribute of strlen(val)+1 bytes.
static herr_t h5p_str_attr(hid_t obj, const char *name, const char *val) {
	herr_t rc = -1;
	hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), a = -1;
	if (t < 0 || s < 0 || H5Tset_size(t, strlen(val) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) goto out;
	if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0) goto out;
	if ((a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
	rc = H5Awrite(a, t, val);
out:
	if (a >= 0) H5Aclose(a);
	if (s >= 0) H5Sclose(s);
	if (t >= 0) H5Tclose(t);
	return rc;
}

static herr_t h5p_set_scale(hid_t ds, const char *name) {
	if (H5Aexists(ds, "DIMENSION_LIST") > 0) return -2; // a dataset with scales is none
	if (h5p_str_attr(ds, "CLASS", "DIMENSION_SCALE") < 0) return -1;
	return name ? h5p_str_attr(ds, "NAME", name) : 0;
}

static hid_t h5p_reflist_type(void) {
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(h5p_dsref));
	if (t < 0) return -1;
	if (H5Tinsert(t, "dataset", HOFFSET(h5p_dsref, ref), H5T_STD_REF_OBJ) < 0 ||
	    H5Tinsert(t, "dimension", HOFFSET(h5p_dsref, dim), H5P_DSREF_DIM) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

// h5p_attach_scale attaches scale sc to dimension dim of dataset ds; -2: dim out of range.
static herr_t h5p_attach_scale(hid_t ds, hid_t sc, unsigned dim) {
	herr_t rc = -1;
	hid_t sp = -1, t = -1, a = -1;
	hvl_t *dl = NULL;
	h5p_dsref *rl = NULL;
	hobj_ref_t to_scale, to_ds;
	int rank;
	if ((sp = H5Dget_space(ds)) < 0 || (rank = H5Sget_simple_extent_ndims(sp)) < 0) goto out;
	H5Sclose(sp);
	sp = -1;
	if (rank == 0) rank = 1;
	if (dim >= (unsigned)rank) { rc = -2; goto out; }
	if (H5Rcreate(&to_scale, sc, ".", H5R_OBJECT, -1) < 0 || H5Rcreate(&to_ds, ds, ".", H5R_OBJECT, -1) < 0) goto out;
	if ((dl = calloc((size_t)rank, sizeof(hvl_t))) == NULL) goto out;
	if ((t = H5Tvlen_create(H5T_STD_REF_OBJ)) < 0) goto out;
	if (H5Aexists(ds, "DIMENSION_LIST") > 0) { // rewritten in place with one more reference
		if ((a = H5Aopen(ds, "DIMENSION_LIST", H5P_DEFAULT)) < 0 || H5Aread(a, t, dl) < 0) goto out;
		hobj_ref_t *p = realloc(dl[dim].p, (dl[dim].len + 1) * sizeof(hobj_ref_t));
		if (p == NULL) goto out;
		p[dl[dim].len++] = to_scale;
		dl[dim].p = p;
	} else {
		hsize_t n = (hsize_t)rank;
		if ((sp = H5Screate_simple(1, &n, NULL)) < 0) goto out;
		if ((a = H5Acreate2(ds, "DIMENSION_LIST", t, sp, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
		if ((dl[dim].p = malloc(sizeof(hobj_ref_t))) == NULL) goto out;
		((hobj_ref_t *)dl[dim].p)[0] = to_scale;
		dl[dim].len = 1;
	}
	if (H5Awrite(a, t, dl) < 0) goto out;
	H5Aclose(a);
	a = -1;
	H5Tclose(t);
	if (sp >= 0) H5Sclose(sp);
	sp = -1;
	// REFERENCE_LIST: read, deleted and created again one record longer.
	if ((t = h5p_reflist_type()) < 0) goto out;
	hsize_t n = 1;
	if (H5Aexists(sc, "REFERENCE_LIST") > 0) {
		if ((a = H5Aopen(sc, "REFERENCE_LIST", H5P_DEFAULT)) < 0 || (sp = H5Aget_space(a)) < 0) goto out;
		hssize_t k = H5Sget_simple_extent_npoints(sp);
		if (k < 0 || (rl = calloc((size_t)k + 1, sizeof(h5p_dsref))) == NULL || H5Aread(a, t, rl) < 0) goto out;
		H5Aclose(a);
		a = -1;
		H5Sclose(sp);
		sp = -1;
		if (H5Adelete(sc, "REFERENCE_LIST") < 0) goto out;
		n = (hsize_t)k + 1;
	} else if ((rl = calloc(1, sizeof(h5p_dsref))) == NULL) goto out;
	rl[n - 1].ref = to_ds;
	rl[n - 1].dim = dim;
	if ((sp = H5Screate_simple(1, &n, NULL)) < 0) goto out;
	if ((a = H5Acreate2(sc, "REFERENCE_LIST", t, sp, H5P_DEFAULT, H5P_DEFAULT)) < 0 || H5Awrite(a, t, rl) < 0) goto out;
	rc = 0;
	if (H5Aexists(sc, "CLASS") <= 0) rc = h5p_str_attr(sc, "CLASS", "DIMENSION_SCALE");
out:
	if (dl) {
		for (int i = 0; i < rank; i++) free(dl[i].p);
		free(dl);
	}
	free(rl);
	if (a >= 0) H5Aclose(a);
	if (sp >= 0) H5Sclose(sp);
	if (t >= 0) H5Tclose(t);
	return rc;
}
*/
import "C"

// SetScale makes dataset ds a dimension scale, named name when named (H5DSset_scale's
// CLASS and NAME attributes), as netCDF-4 makes its dimensions.
func SetScale(ds ID, name string, named bool) error {
	enter()
	defer leave()
	if err := checkID("SetScale", ds, C.H5I_DATASET); err != nil {
		return err
	}
	var cname *C.char
	if named {
		cname = cstr(name)
		defer free(cname)
	}
	switch C.h5p_set_scale(C.hid_t(ds), cname) {
	case 0:
		return nil
	case -2:
		return errorf("h5: SetScale: the dataset has dimension scales of its own (DIMENSION_LIST): a dimension scale cannot")
	}
	return stackError("H5DSset_scale (CLASS, NAME)")
}

// AttachScale attaches dimension scale sc to dimension dim of dataset ds
// (H5DSattach_scale: ds's DIMENSION_LIST, sc's REFERENCE_LIST; sc made a scale when it
// is not one).
func AttachScale(ds, sc ID, dim int) error {
	enter()
	defer leave()
	if err := checkID("AttachScale", ds, C.H5I_DATASET); err != nil {
		return err
	}
	if err := checkID("AttachScale", sc, C.H5I_DATASET); err != nil {
		return err
	}
	switch C.h5p_attach_scale(C.hid_t(ds), C.hid_t(sc), C.uint(dim)) {
	case 0:
		return nil
	case -2:
		return errorf("h5: AttachScale: the dataset has no dimension %d", dim)
	}
	return stackError("H5DSattach_scale (DIMENSION_LIST, REFERENCE_LIST)")
}
