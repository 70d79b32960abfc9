package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"

static hid_t h5p_native_int32(void) { return H5T_NATIVE_INT32; }

// h5p_copy_attr copies attribute name of src to dst: same type, same dataspace, the value
// read in the file's own type (no conversion). Variable-length values are reclaimed.
static int h5p_copy_attr(hid_t src, hid_t dst, const char *name) {
	hid_t a = -1, t = -1, s = -1, b = -1;
	void *buf = NULL;
	hssize_t n;
	size_t sz;
	int rc = -1;
	if ((a = H5Aopen(src, name, H5P_DEFAULT)) < 0) goto out;
	if ((t = H5Aget_type(a)) < 0) goto out;
	if ((s = H5Aget_space(a)) < 0) goto out;
	if ((n = H5Sget_simple_extent_npoints(s)) < 0) goto out;
	if ((sz = H5Tget_size(t)) == 0) goto out;
	buf = calloc(n > 0 ? (size_t)n : 1, sz);
	if (buf == NULL) goto out;
	if (H5Aread(a, t, buf) < 0) goto out;
	if ((b = H5Acreate2(dst, name, t, s, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto reclaim;
	if (H5Awrite(b, t, buf) < 0) goto reclaim;
	rc = 0;
reclaim:
	if (H5Tdetect_class(t, H5T_VLEN) > 0 || H5Tis_variable_str(t) > 0) h5p_vlen_reclaim(t, s, buf);
out:
	free(buf);
	if (b >= 0) H5Aclose(b);
	if (s >= 0) H5Sclose(s);
	if (t >= 0) H5Tclose(t);
	if (a >= 0) H5Aclose(a);
	return rc;
}

static int h5p_has_deflate(hid_t dcpl, unsigned *level) {
	unsigned flags = 0, cd[8];
	size_t ncd = 8;
	char name[32];
	unsigned fc = 0;
	if (H5Pget_filter_by_id2(dcpl, H5Z_FILTER_DEFLATE, &flags, &ncd, cd, sizeof name, name, &fc) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	*level = ncd > 0 ? cd[0] : 0;
	return 1;
}

// h5p_set_deflate sets the deflate level of dcpl: modified in place when the filter is
// there (keeping the pipeline's order), appended otherwise, removed for level 0.
static int h5p_set_deflate(hid_t dcpl, int level) {
	unsigned old, cd = (unsigned)level;
	int has = h5p_has_deflate(dcpl, &old);
	if (level == 0) return has ? H5Premove_filter(dcpl, H5Z_FILTER_DEFLATE) : 0;
	if (has) return H5Pmodify_filter(dcpl, H5Z_FILTER_DEFLATE, H5Z_FLAG_OPTIONAL, 1, &cd);
	return H5Pset_deflate(dcpl, cd);
}

static hid_t h5p_select_rows(hid_t space, int rank, hsize_t row, hsize_t rows, const hsize_t *dims) {
	hsize_t start[32] = {0}, count[32];
	int i;
	if (rows == 0) return H5Sselect_none(space);
	for (i = 0; i < rank; i++) count[i] = dims[i];
	start[0] = row;
	count[0] = rows;
	return H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
}

static hid_t h5p_driver_id(int which) {
	switch (which) {
	case 0: return H5FD_SEC2;
	case 1: return H5FD_CORE;
	case 2: return H5FD_MPIO;
	}
	return -1;
}

// h5p_mdc reads the metadata cache configuration of open file f.
static herr_t h5p_mdc(hid_t f, size_t *initial, size_t *max, int *resize) {
	H5AC_cache_config_t c;
	memset(&c, 0, sizeof c);
	c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
	if (H5Fget_mdc_config(f, &c) < 0) return -1;
	*initial = c.initial_size;
	*max = c.max_size;
	*resize = c.incr_mode != H5C_incr__off || c.flash_incr_mode != H5C_flash_incr__off || c.decr_mode != H5C_decr__off;
	return 0;
}

static void *h5p_nobuf(void) {
	static char b[8];
	return b;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// Describe returns the attributes of the object at path in f ("/" for the root group)
// and, when dataset is set, the dataset's type, extents and creation properties.
func Describe(f ID, path string, dataset bool) (ObjectInfo, error) {
	var o ObjectInfo
	var obj ID
	var err error
	switch {
	case dataset:
		obj, err = OpenDataset(f, path)
		defer CloseDataset(obj)
	default:
		obj, err = OpenGroup(f, path)
		defer CloseGroup(obj)
	}
	if err != nil {
		return o, err
	}
	if o.Attrs, err = Attributes(obj, path); err != nil {
		return o, err
	}
	if dataset {
		err = datasetProps(obj, path, &o)
	}
	return o, err
}

// Attributes describes the attributes of the open object obj (a file, group or dataset,
// at path for messages) in name order.
func Attributes(obj ID, path string) ([]AttrInfo, error) {
	names, err := AttributeNames(obj)
	if err != nil {
		return nil, err
	}
	var attrs []AttrInfo
	for _, n := range names {
		a, err := attrInfo(obj, path, n)
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
	}
	return attrs, nil
}

// ObjectStat identifies the open object obj (a file's root group, a group or a dataset)
// and counts its attributes and, for a group, its links (H5Oget_info, H5Gget_info): what
// tells a tree of objects, with no other links, from the same names reached otherwise.
func ObjectStat(obj ID) (Stat, error) {
	enter()
	defer leave()
	if err := checkID("ObjectStat", obj, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return Stat{}, err
	}
	if !nativeVOL() {
		return Stat{}, unavailable("ObjectStat (an object's address: H5VLnative_token_to_addr)")
	}
	var (
		fileno C.ulong
		addr   C.haddr_t
		typ    C.H5O_type_t
		nattrs C.hsize_t
	)
	if C.h5p_object_info(C.hid_t(obj), &fileno, &addr, &typ, &nattrs) < 0 {
		return Stat{}, stackError(fmt.Sprintf("H5Oget_info object %d", obj))
	}
	st := Stat{FileNo: uint64(fileno), Addr: uint64(addr), Attrs: int(nattrs), Links: -1}
	if typ == C.H5O_TYPE_GROUP {
		var gi C.H5G_info_t
		if C.H5Gget_info(C.hid_t(obj), &gi) < 0 {
			return Stat{}, stackError(fmt.Sprintf("H5Gget_info group %d", obj))
		}
		st.Links = int(gi.nlinks)
	}
	return st, nil
}

// Probe returns the datatype of the open dataset d as H5Tencode serializes it (in enc's
// storage when it is large enough) and d's extent: what Describe finds of a dataset short
// of its attributes and creation properties, whose copy costs HDF5 as much as the open.
func Probe(d ID, enc []byte) ([]byte, []uint64, error) {
	enter()
	defer leave()
	if err := checkID("Probe", d, C.H5I_DATASET); err != nil {
		return nil, nil, err
	}
	t, s, err := typeAndSpace(d)
	if err != nil {
		return nil, nil, err
	}
	defer C.H5Tclose(t)
	defer C.H5Sclose(s)
	var n C.size_t
	if C.H5Tencode(t, nil, &n) < 0 {
		return nil, nil, opError("H5Tencode", d)
	}
	if uint64(cap(enc)) < uint64(n) {
		enc = make([]byte, n)
	}
	enc = enc[:n]
	if C.H5Tencode(t, unsafe.Pointer(&enc[0]), &n) < 0 {
		return nil, nil, opError("H5Tencode", d)
	}
	dims, _, err := spaceDims("Probe", s)
	return enc, dims, err
}

func attrInfo(obj ID, path, name string) (AttrInfo, error) {
	enter()
	defer leave()
	op := fmt.Sprintf("attribute %q of %s", name, path)
	cname := cstr(name)
	defer free(cname)
	a := C.H5Aopen(C.hid_t(obj), cname, C.H5P_DEFAULT)
	if a < 0 {
		return AttrInfo{}, stackError("H5Aopen " + op)
	}
	defer C.H5Aclose(a)
	t := C.H5Aget_type(a)
	if t < 0 {
		return AttrInfo{}, stackError("H5Aget_type " + op)
	}
	defer C.H5Tclose(t)
	rt, err := rawType(op, t)
	if err != nil {
		return AttrInfo{}, err
	}
	s := C.H5Aget_space(a)
	if s < 0 {
		return AttrInfo{}, stackError("H5Aget_space " + op)
	}
	defer C.H5Sclose(s)
	dims, _, err := spaceDims(op, s)
	return AttrInfo{Name: name, Type: rt, Dims: dims}, err
}

// rawType encodes and describes datatype t. Called inside the gate.
func rawType(op string, t C.hid_t) (RawType, error) {
	var n C.size_t
	if C.H5Tencode(t, nil, &n) < 0 {
		return RawType{}, stackError("H5Tencode " + op)
	}
	enc := make([]byte, n)
	if C.H5Tencode(t, unsafe.Pointer(&enc[0]), &n) < 0 {
		return RawType{}, stackError("H5Tencode " + op)
	}
	r := RawType{Enc: enc, Size: int(C.H5Tget_size(t))}
	r.VarLen = C.H5Tdetect_class(t, C.H5T_VLEN) > 0 || C.H5Tis_variable_str(t) > 0
	if pt, err := typeOf(t); err == nil {
		r.Desc = pt.String()
	} else {
		r.Desc = fmt.Sprintf("class %d of %d bytes", int(C.H5Tget_class(t)), r.Size)
	}
	C.H5Eclear2(C.H5E_DEFAULT)
	return r, nil
}

// datasetProps fills the dataset fields of o from the open dataset ds at path.
func datasetProps(ds ID, path string, o *ObjectInfo) error {
	enter()
	defer leave()
	d := C.hid_t(ds)
	t := C.H5Dget_type(d)
	if t < 0 {
		return stackError("H5Dget_type " + path)
	}
	defer C.H5Tclose(t)
	var err error
	if o.Type, err = rawType(path, t); err != nil {
		return err
	}
	s := C.H5Dget_space(d)
	if s < 0 {
		return stackError("H5Dget_space " + path)
	}
	defer C.H5Sclose(s)
	if o.Dims, o.MaxDims, err = spaceDims(path, s); err != nil {
		return err
	}
	dcpl := C.H5Dget_create_plist(d)
	if dcpl < 0 {
		return stackError("H5Dget_create_plist " + path)
	}
	defer C.H5Pclose(dcpl)
	o.Layout = Layout(C.H5Pget_layout(dcpl))
	if o.Layout == LayoutChunked {
		o.Chunk = make([]uint64, len(o.Dims))
		if C.H5Pget_chunk(dcpl, C.int(len(o.Dims)), hsizes(o.Chunk)) < 0 {
			return stackError("H5Pget_chunk " + path)
		}
	}
	var level C.uint
	if C.h5p_has_deflate(dcpl, &level) != 0 {
		o.Deflate = int(level)
	}
	var ft C.H5D_fill_time_t
	if C.H5Pget_fill_time(dcpl, &ft) < 0 {
		return stackError("H5Pget_fill_time " + path)
	}
	o.FillTime = fillTimeOf(ft)
	return nil
}

// CopyAttributes copies every attribute of object src (a file, group or dataset) to
// object dst, values as stored (collective when dst is in an MPI-IO file: every rank copies
// the same values).
func CopyAttributes(src, dst ID) error {
	names, err := AttributeNames(src)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := copyAttr(src, dst, n); err != nil {
			return err
		}
	}
	return nil
}

func copyAttr(src, dst ID, name string) error {
	enter()
	defer leave()
	if err := checkID("CopyAttributes", dst, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return err
	}
	cname := cstr(name)
	defer free(cname)
	if C.h5p_copy_attr(C.hid_t(src), C.hid_t(dst), cname) < 0 {
		return stackError(fmt.Sprintf("copying attribute %q of %s", name, objName(src)))
	}
	return nil
}

// CreateLike creates the dataset at path in loc with the type and creation properties of
// the open dataset tmpl (filters, fill value, ...) changed as o says. Collective on an
// MPI-IO file.
func CreateLike(loc ID, path string, tmpl ID, o Override) (_ ID, err error) {
	enter()
	defer leave()
	op := "H5Dcreate2 " + path
	if err := checkID("CreateLike "+path, tmpl, C.H5I_DATASET); err != nil {
		return 0, err
	}
	if o.Deflate < -1 || o.Deflate > 9 {
		return 0, errorf("h5: %s: deflate level %d outside 0..9", op, o.Deflate)
	}
	dcpl := C.H5Dget_create_plist(C.hid_t(tmpl))
	if dcpl < 0 {
		return 0, stackError("H5Dget_create_plist for " + op)
	}
	defer C.H5Pclose(dcpl)
	typ := C.h5p_native_int32()
	if !o.Int32 {
		typ = C.H5Dget_type(C.hid_t(tmpl))
		if typ < 0 {
			return 0, stackError("H5Dget_type for " + op)
		}
		defer C.H5Tclose(typ)
	} else {
		var zero C.int
		if C.H5Pset_fill_value(dcpl, typ, unsafe.Pointer(&zero)) < 0 {
			return 0, stackError("H5Pset_fill_value for " + op)
		}
	}
	maxDims := append([]uint64(nil), o.Dims...)
	switch o.Layout {
	case LayoutChunked:
		if len(o.Dims) == 0 {
			return 0, errorf("h5: %s: a scalar dataset cannot be chunked", op)
		}
		maxDims[0] = plan.MaxUnlimited
		if o.Chunk != nil && C.H5Pset_chunk(dcpl, C.int(len(o.Chunk)), hsizes(o.Chunk)) < 0 {
			return 0, stackError(fmt.Sprintf("H5Pset_chunk %v for %s", o.Chunk, op))
		}
		if C.H5Pget_layout(dcpl) != C.H5D_CHUNKED {
			return 0, errorf("h5: %s: chunked layout without a chunk shape", op)
		}
		if o.Deflate >= 0 && C.h5p_set_deflate(dcpl, C.int(o.Deflate)) < 0 {
			return 0, stackError(fmt.Sprintf("deflate level %d for %s", o.Deflate, op))
		}
	case LayoutContiguous, LayoutCompact:
		if C.H5Pget_nfilters(dcpl) > 0 && C.H5Premove_filter(dcpl, C.H5Z_FILTER_ALL) < 0 {
			return 0, stackError("H5Premove_filter for " + op)
		}
		if C.H5Pset_layout(dcpl, C.H5D_layout_t(o.Layout)) < 0 {
			return 0, stackError(fmt.Sprintf("H5Pset_layout %s for %s", o.Layout, op))
		}
	default:
		return 0, errorf("h5: %s: layout %d not supported", op, int(o.Layout))
	}
	if err := setFillTime(op, dcpl, o.FillTime); err != nil {
		return 0, err
	}
	space, err := simpleSpace(op, o.Dims, maxDims)
	if err != nil {
		return 0, err
	}
	defer C.H5Sclose(space)
	return createDataset(loc, path, op, typ, space, dcpl, false)
}

// ReadAll reads the whole of dataset d, in its own datatype (no conversion), into buf,
// which holds exactly its elements.
func ReadAll(d ID, buf []byte) error {
	enter()
	defer leave()
	if err := checkID("ReadAll", d, C.H5I_DATASET); err != nil {
		return err
	}
	t, s, err := typeAndSpace(d)
	if err != nil {
		return err
	}
	defer C.H5Tclose(t)
	defer C.H5Sclose(s)
	n := C.H5Sget_simple_extent_npoints(s)
	if want := int64(n) * int64(C.H5Tget_size(t)); want != int64(len(buf)) {
		return errorf("h5: ReadAll %s: buffer of %d bytes for %d", objName(d), len(buf), want)
	}
	if n == 0 {
		return nil
	}
	if C.H5Dread(C.hid_t(d), t, C.H5S_ALL, C.H5S_ALL, C.H5P_DEFAULT, unsafe.Pointer(&buf[0])) < 0 {
		return opError("H5Dread", d)
	}
	return nil
}

// typeAndSpace returns dataset d's datatype and dataspace; the caller closes both. Called
// inside the gate.
func typeAndSpace(d ID) (C.hid_t, C.hid_t, error) {
	t := C.H5Dget_type(C.hid_t(d))
	if t < 0 {
		return -1, -1, opError("H5Dget_type", d)
	}
	s := C.H5Dget_space(C.hid_t(d))
	if s < 0 {
		err := opError("H5Dget_space", d)
		C.H5Tclose(t)
		return -1, -1, err
	}
	return t, s, nil
}

// WriteRows writes buf, rows whole rows in d's own datatype, to rows [row, row+rows) of
// dataset d (the first dimension). Collective transfers on MPI-IO files take every rank,
// those with nothing to write passing rows 0.
func WriteRows(d ID, row, rows uint64, collective bool, buf []byte) error {
	enter()
	defer leave()
	if err := checkID("WriteRows", d, C.H5I_DATASET); err != nil {
		return err
	}
	t, fs, err := typeAndSpace(d)
	if err != nil {
		return err
	}
	defer C.H5Tclose(t)
	defer C.H5Sclose(fs)
	dims, _, err := spaceDims("WriteRows", fs)
	if err != nil {
		return err
	}
	if len(dims) == 0 {
		return errorf("h5: WriteRows %s: scalar dataset", objName(d))
	}
	if row+rows > dims[0] {
		return errorf("h5: WriteRows %s: rows [%d, %d) beyond %d", objName(d), row, row+rows, dims[0])
	}
	mdims := append([]uint64{max(rows, 1)}, dims[1:]...)
	want := uint64(C.H5Tget_size(t)) * rows
	for _, v := range dims[1:] {
		want *= v
	}
	if uint64(len(buf)) != want {
		return errorf("h5: WriteRows %s: buffer of %d bytes for %d", objName(d), len(buf), want)
	}
	ms, err := simpleSpace("WriteRows", mdims, nil)
	if err != nil {
		return err
	}
	defer C.H5Sclose(ms)
	if C.h5p_select_rows(fs, C.int(len(dims)), C.hsize_t(row), C.hsize_t(rows), hsizes(dims)) < 0 ||
		C.h5p_select_rows(ms, C.int(len(dims)), 0, C.hsize_t(rows), hsizes(mdims)) < 0 {
		return opError("H5Sselect_hyperslab", d)
	}
	dxpl, _, err := transferList(d, collective, plan.TransferTuning{})
	if err != nil {
		return err
	}
	p := C.h5p_nobuf()
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	if C.H5Dwrite(C.hid_t(d), t, ms, fs, dxpl, p) < 0 {
		return opError("H5Dwrite", d)
	}
	return nil
}

// FileAccessInfo reads back how file f is accessed (collective on an MPI-IO file: HDF5
// duplicates the file's communicator for the access property list).
func FileAccessInfo(f ID) (AccessInfo, error) {
	enter()
	defer leave()
	var a AccessInfo
	if err := checkID("FileAccessInfo", f, C.H5I_FILE); err != nil {
		return a, err
	}
	if !nativeVOL() {
		return a, unavailable("FileAccessInfo (the file's driver, metadata cache and MPI-IO handle)")
	}
	fapl := C.H5Fget_access_plist(C.hid_t(f))
	if fapl < 0 {
		return a, stackError("H5Fget_access_plist")
	}
	defer C.H5Pclose(fapl)
	drv := C.H5Pget_driver(fapl)
	a.Driver = "other"
	for i, name := range []string{"sec2", "core", "mpio"} {
		if drv == C.h5p_driver_id(C.int(i)) {
			a.Driver = name
		}
	}
	var initial, maxSize C.size_t
	var resize C.int
	if C.h5p_mdc(C.hid_t(f), &initial, &maxSize, &resize) < 0 {
		return a, stackError("H5Fget_mdc_config")
	}
	a.MDCInitial, a.MDCMax, a.MDCResize = uint64(initial), uint64(maxSize), resize != 0
	var mb C.hsize_t
	if C.H5Pget_meta_block_size(fapl, &mb) < 0 {
		return a, stackError("H5Pget_meta_block_size")
	}
	a.MetaBlock = uint64(mb)
	var ops, write C.hbool_t
	if C.H5Pget_all_coll_metadata_ops(fapl, &ops) < 0 || C.H5Pget_coll_metadata_write(fapl, &write) < 0 {
		return a, stackError("H5Pget_coll_metadata")
	}
	a.CollMetadataOps, a.CollMetadataWrite = bool(ops), bool(write)
	return a, nil
}
