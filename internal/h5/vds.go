package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"

static hid_t h5p_vds_dcpl_class(void) { return H5P_DATASET_CREATE; }

// h5p_names is a growing buffer of records "kind \x1f name \x1e" (kind: 'g' group,
// 'd' dataset, 'o' other, upper case when the object has attributes; attributes use 'a').
typedef struct {
	char *buf;
	size_t len, cap;
	int failed;
} h5p_names;

static void h5p_names_add(h5p_names *b, char kind, const char *name) {
	size_t n = strlen(name);
	if (b->failed) return;
	if (b->len + n + 4 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		char *p;
		while (b->len + n + 4 > c) c *= 2;
		if ((p = realloc(b->buf, c)) == NULL) {
			b->failed = 1;
			return;
		}
		b->buf = p;
		b->cap = c;
	}
	b->buf[b->len++] = kind;
	b->buf[b->len++] = '\x1f';
	memcpy(b->buf + b->len, name, n);
	b->len += n;
	b->buf[b->len++] = '\x1e';
	b->buf[b->len] = 0;
}

static herr_t h5p_visit_cb(hid_t obj, const char *name, const h5p_oinfo_t *info, void *data) {
	char kind = 'o';
	(void)obj;
	if (info->type == H5O_TYPE_GROUP) kind = 'g';
	else if (info->type == H5O_TYPE_DATASET) kind = 'd';
	if (info->num_attrs > 0) kind -= 'a' - 'A';
	h5p_names_add((h5p_names *)data, kind, name);
	return ((h5p_names *)data)->failed ? -1 : 0;
}

// h5p_visit lists every object reachable from loc in increasing name order, a group
// before its members ("." is loc itself). The caller frees *out.
static herr_t h5p_visit(hid_t loc, char **out) {
	h5p_names b = {0};
	herr_t rc = h5p_ovisit(loc, H5_INDEX_NAME, H5_ITER_INC, h5p_visit_cb, &b, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS);
	*out = b.buf;
	return b.failed ? -2 : rc;
}

static herr_t h5p_attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
	(void)loc;
	(void)info;
	h5p_names_add((h5p_names *)data, 'a', name);
	return ((h5p_names *)data)->failed ? -1 : 0;
}

// h5p_attr_names lists the attributes of loc in increasing name order.
static herr_t h5p_attr_names(hid_t loc, char **out) {
	h5p_names b = {0};
	hsize_t idx = 0;
	herr_t rc = H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, &idx, h5p_attr_cb, &b);
	*out = b.buf;
	return b.failed ? -2 : rc;
}

static haddr_t h5p_haddr_undef(void) { return HADDR_UNDEF; }
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// selectOn applies sel to the dataspace s of the given shape: the union of its hyperslabs,
// nothing for an empty selection, everything for a scalar. Called inside the gate.
func selectOn(op string, s C.hid_t, shape []uint64, sel plan.Selection) error {
	if sel.IsNone() {
		if C.H5Sselect_none(s) < 0 {
			return stackError("H5Sselect_none " + op)
		}
		return nil
	}
	if sel.Kind == plan.Whole { // the whole dataspace, as H5S_SEL_ALL
		if err := sel.Validate(shape); err != nil {
			return errorf("h5: %s: %w", op, err)
		}
		if C.H5Sselect_all(s) < 0 {
			return stackError("H5Sselect_all " + op)
		}
		return nil
	}
	if len(shape) == 0 {
		for i, h := range sel.Blocks {
			if len(h.Start) != 0 {
				return errorf("h5: %s: hyperslab %d has rank %d, the dataspace is scalar", op, i, len(h.Start))
			}
		}
		if C.H5Sselect_all(s) < 0 {
			return stackError("H5Sselect_all " + op)
		}
		return nil
	}
	if err := sel.Validate(shape); err != nil {
		return errorf("h5: %s: %w", op, err)
	}
	for i, h := range sel.Blocks {
		seloper := C.H5S_seloper_t(C.H5S_SELECT_OR)
		if i == 0 {
			seloper = C.H5S_SELECT_SET
		}
		if C.H5Sselect_hyperslab(s, seloper, hsizes(h.Start), hsizes(h.Stride), hsizes(h.Count), hsizes(h.Block)) < 0 {
			return stackError(fmt.Sprintf("H5Sselect_hyperslab %d (start %v stride %v count %v block %v) %s", i, h.Start, h.Stride, h.Count, h.Block, op))
		}
	}
	return nil
}

// selectionOf describes the selection of dataspace s as blocks (hyperslab selections are
// returned block by block, as H5Sget_select_hyper_blocklist lists them). Called inside
// the gate.
func selectionOf(op string, s C.hid_t) (plan.Selection, []uint64, []uint64, error) {
	shape, maxShape, err := spaceDims(op, s)
	if err != nil {
		return plan.Selection{}, nil, nil, err
	}
	switch C.H5Sget_select_type(s) {
	case C.H5S_SEL_NONE:
		return plan.None(), shape, maxShape, nil
	case C.H5S_SEL_ALL:
		return plan.All(shape), shape, maxShape, nil
	case C.H5S_SEL_HYPERSLABS:
	default:
		return plan.Selection{}, nil, nil, errorf("h5: %s: only hyperslab, all and none selections are supported", op)
	}
	n := C.H5Sget_select_hyper_nblocks(s)
	if n < 0 {
		return plan.Selection{}, nil, nil, stackError("H5Sget_select_hyper_nblocks " + op)
	}
	rank := len(shape)
	if n == 0 || rank == 0 {
		return plan.None(), shape, maxShape, nil
	}
	corners := make([]uint64, int(n)*2*rank)
	if C.H5Sget_select_hyper_blocklist(s, 0, C.hsize_t(n), hsizes(corners)) < 0 {
		return plan.Selection{}, nil, nil, stackError("H5Sget_select_hyper_blocklist " + op)
	}
	sel := plan.Selection{Blocks: make([]plan.Hyperslab, n)}
	for i := range sel.Blocks {
		lo := corners[i*2*rank : i*2*rank+rank]
		hi := corners[i*2*rank+rank : (i+1)*2*rank]
		ext := make([]uint64, rank)
		for d := range ext {
			ext[d] = hi[d] - lo[d] + 1
		}
		sel.Blocks[i] = plan.Block(append([]uint64(nil), lo...), ext)
	}
	return sel, shape, maxShape, nil
}

// CreateVirtual creates the virtual dataset at path with d's type, shape and max shape and
// the given mappings (none: every element reads as the fill value). Chunking, deflate and
// fill time of d do not apply to virtual datasets and are ignored. HDF5 1.10 creates
// virtual datasets in files opened serially; it refuses to read them through MPI-IO.
func CreateVirtual(loc ID, path string, d plan.DatasetSpec, maps []VirtualMap) (ID, error) {
	enter()
	defer leave()
	op := "H5Dcreate2 (virtual) " + path
	return create(loc, "CreateVirtual", path, op, d, func(space C.hid_t) (C.hid_t, error) {
		dcpl := C.H5Pcreate(C.h5p_vds_dcpl_class())
		if dcpl < 0 {
			return dcpl, stackError("H5Pcreate(H5P_DATASET_CREATE) for " + op)
		}
		if C.H5Pset_layout(dcpl, C.H5D_VIRTUAL) < 0 {
			return dcpl, stackError("H5Pset_layout(H5D_VIRTUAL) for " + op)
		}
		if err := setNoTimes(op, dcpl, d.NoTimes); err != nil {
			return dcpl, err
		}
		for i, m := range maps {
			if err := addMapping(op, dcpl, space, d.Shape, i, m); err != nil {
				return dcpl, err
			}
		}
		return dcpl, nil
	})
}

// addMapping adds mapping i to dcpl. Called inside the gate.
func addMapping(op string, dcpl, vspace C.hid_t, shape []uint64, i int, m VirtualMap) error {
	what := fmt.Sprintf("%s mapping %d (%s:%s)", op, i, m.File, m.Dataset)
	if n, k := m.Virtual.NPoints(shape), m.Source.NPoints(m.SourceShape); n != k {
		return errorf("h5: %s: the virtual selection has %d elements, the source selection %d", what, n, k)
	}
	vs := C.H5Scopy(vspace)
	if vs < 0 {
		return stackError("H5Scopy " + what)
	}
	defer C.H5Sclose(vs)
	if err := selectOn("virtual "+what, vs, shape, m.Virtual); err != nil {
		return err
	}
	ss, err := simpleSpace(what, m.SourceShape, m.SourceMaxShape)
	if err != nil {
		return err
	}
	defer C.H5Sclose(ss)
	if err := selectOn("source "+what, ss, m.SourceShape, m.Source); err != nil {
		return err
	}
	cfile, cdset := cstr(m.File), cstr(m.Dataset)
	defer free(cfile)
	defer free(cdset)
	if C.H5Pset_virtual(dcpl, vs, cfile, cdset, ss) < 0 {
		return stackError("H5Pset_virtual " + what)
	}
	return nil
}

// VirtualMappings returns the mappings of dataset d and whether d is a virtual dataset
// (false, with no mappings, for any other layout).
func VirtualMappings(d ID) ([]VirtualMap, bool, error) {
	enter()
	defer leave()
	if err := checkID("VirtualMappings", d, C.H5I_DATASET); err != nil {
		return nil, false, err
	}
	op := fmt.Sprintf("dataset %d", d)
	dcpl := C.H5Dget_create_plist(C.hid_t(d))
	if dcpl < 0 {
		return nil, false, stackError("H5Dget_create_plist " + op)
	}
	defer C.H5Pclose(dcpl)
	layout := C.H5Pget_layout(dcpl)
	if layout < 0 {
		return nil, false, stackError("H5Pget_layout " + op)
	}
	if layout != C.H5D_VIRTUAL {
		return nil, false, nil
	}
	var n C.size_t
	if C.H5Pget_virtual_count(dcpl, &n) < 0 {
		return nil, true, stackError("H5Pget_virtual_count " + op)
	}
	maps := make([]VirtualMap, n)
	for i := range maps {
		what := fmt.Sprintf("%s mapping %d", op, i)
		var err error
		if maps[i], err = mappingOf(what, dcpl, C.size_t(i)); err != nil {
			return nil, true, err
		}
	}
	return maps, true, nil
}

// mappingOf reads mapping i of a virtual dataset's creation property list; a dataspace
// selected whole (H5S_SEL_ALL) is a selection of kind Whole.
func mappingOf(what string, dcpl C.hid_t, i C.size_t) (VirtualMap, error) {
	var m VirtualMap
	vs := C.H5Pget_virtual_vspace(dcpl, i)
	if vs < 0 {
		return m, stackError("H5Pget_virtual_vspace " + what)
	}
	sel, _, _, err := selectionOf("virtual "+what, vs)
	if C.H5Sget_select_type(vs) == C.H5S_SEL_ALL { // selected whole (H5Sselect_all)
		sel.Kind = plan.Whole
	}
	C.H5Sclose(vs)
	if err != nil {
		return m, err
	}
	m.Virtual = sel
	ss := C.H5Pget_virtual_srcspace(dcpl, i)
	if ss < 0 {
		return m, stackError("H5Pget_virtual_srcspace " + what)
	}
	m.Source, m.SourceShape, m.SourceMaxShape, err = selectionOf("source "+what, ss)
	if C.H5Sget_select_type(ss) == C.H5S_SEL_ALL {
		m.Source.Kind = plan.Whole
	}
	C.H5Sclose(ss)
	if err != nil {
		return m, err
	}
	if m.File, err = virtualName(what, func(p *C.char, n C.size_t) C.ssize_t { return C.H5Pget_virtual_filename(dcpl, i, p, n) }); err != nil {
		return m, err
	}
	m.Dataset, err = virtualName(what, func(p *C.char, n C.size_t) C.ssize_t { return C.H5Pget_virtual_dsetname(dcpl, i, p, n) })
	return m, err
}

// virtualName calls an H5Pget_virtual_*name function twice: for the length, then the name.
func virtualName(what string, get func(*C.char, C.size_t) C.ssize_t) (string, error) {
	n := get(nil, 0)
	if n < 0 {
		return "", stackError("H5Pget_virtual_filename/dsetname " + what)
	}
	buf := (*C.char)(C.malloc(C.size_t(n) + 1))
	defer C.free(unsafe.Pointer(buf))
	if get(buf, C.size_t(n)+1) < 0 {
		return "", stackError("H5Pget_virtual_filename/dsetname " + what)
	}
	return C.GoStringN(buf, C.int(n)), nil
}

// CreateNullDataset creates a dataset of type t with a NULL dataspace (no elements, no
// storage) at path: the anchor the Log VOL keeps in place of a user dataset, carrying the
// user's name, type and attributes.
func CreateNullDataset(loc ID, path string, t plan.Type) (ID, error) {
	enter()
	defer leave()
	op := "H5Dcreate2 (null dataspace) " + path
	if err := checkID("CreateNullDataset "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return 0, err
	}
	typ, err := fileType(t)
	if err != nil {
		return 0, fmt.Errorf("%w (creating %s)", err, path)
	}
	space := C.H5Screate(C.H5S_NULL)
	if space < 0 {
		return 0, stackError("H5Screate(H5S_NULL) " + op)
	}
	defer C.H5Sclose(space)
	return createDataset(loc, path, op, typ, space, C.H5P_DEFAULT, false)
}

// DatasetOffset returns the address of a contiguous dataset's data in its file
// (H5Dget_offset), and false when no storage is allocated (or the layout is not
// contiguous). Raw readers (the Log VOL reads its data logs this way) add it to the byte
// offset inside the dataset.
func DatasetOffset(d ID) (uint64, bool, error) {
	enter()
	defer leave()
	if err := checkID("DatasetOffset", d, C.H5I_DATASET); err != nil {
		return 0, false, err
	}
	off := C.H5Dget_offset(C.hid_t(d))
	if off == C.h5p_haddr_undef() {
		C.H5Eclear2(C.H5E_DEFAULT)
		return 0, false, nil
	}
	return uint64(off), true, nil
}

// Allocated reports whether any of dataset d's storage is allocated
// (H5Dget_space_status): false for a dataset created with late or incremental allocation
// and never written, as netCDF-4 leaves a dimension that is not a variable.
func Allocated(d ID) (bool, error) {
	enter()
	defer leave()
	if err := checkID("Allocated", d, C.H5I_DATASET); err != nil {
		return false, err
	}
	var st C.H5D_space_status_t
	if C.H5Dget_space_status(C.hid_t(d), &st) < 0 {
		return false, stackError("H5Dget_space_status")
	}
	return st != C.H5D_SPACE_STATUS_NOT_ALLOCATED, nil
}

// SetAttribute writes attribute a on loc, creating it or, when it exists with the same
// type and shape, overwriting its value (an existing attribute of another type or shape
// is deleted and created anew).
func SetAttribute(loc ID, a plan.AttributeSpec) error {
	enter()
	ok, err := rewriteAttribute(loc, a)
	leave()
	if err != nil || ok {
		return err
	}
	return WriteAttribute(loc, a)
}

// rewriteAttribute overwrites a's value if the attribute exists with a's type and shape,
// or deletes it if it exists otherwise. Called inside the gate.
func rewriteAttribute(loc ID, a plan.AttributeSpec) (bool, error) {
	op := "@" + a.Name
	if err := checkID("SetAttribute "+op, loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return false, err
	}
	cname := cstr(a.Name)
	defer free(cname)
	switch ex := C.H5Aexists(C.hid_t(loc), cname); {
	case ex < 0:
		return false, stackError("H5Aexists " + op)
	case ex == 0:
		return false, nil
	}
	attr := C.H5Aopen(C.hid_t(loc), cname, C.H5P_DEFAULT)
	if attr < 0 {
		return false, stackError("H5Aopen " + op)
	}
	same, err := attributeMatches(op, attr, a)
	if err != nil || !same {
		C.H5Aclose(attr)
		if err != nil {
			return false, err
		}
		if C.H5Adelete(C.hid_t(loc), cname) < 0 {
			return false, stackError("H5Adelete " + op)
		}
		return false, nil
	}
	defer C.H5Aclose(attr)
	typ, err := memType(a.Type)
	if err != nil {
		return false, err
	}
	if want := plan.Product(a.Shape) * uint64(a.Type.Size); uint64(len(a.Value)) != want {
		return false, errorf("h5: H5Awrite %s: value has %d bytes, type %s shape %v needs %d", op, len(a.Value), a.Type, a.Shape, want)
	}
	if len(a.Value) > 0 && C.H5Awrite(attr, typ, unsafe.Pointer(&a.Value[0])) < 0 {
		return false, stackError("H5Awrite " + op)
	}
	return true, nil
}

// attributeMatches reports whether attr has a's type and shape.
func attributeMatches(op string, attr C.hid_t, a plan.AttributeSpec) (bool, error) {
	ft := C.H5Aget_type(attr)
	if ft < 0 {
		return false, stackError("H5Aget_type " + op)
	}
	t, err := typeOf(ft)
	C.H5Tclose(ft)
	if err != nil {
		return false, nil // a type this package cannot describe: replace it
	}
	s := C.H5Aget_space(attr)
	if s < 0 {
		return false, stackError("H5Aget_space " + op)
	}
	dims, _, err := spaceDims(op, s)
	C.H5Sclose(s)
	if err != nil {
		return false, err
	}
	if !t.Equal(a.Type) || len(dims) != len(a.Shape) {
		return false, nil
	}
	for i := range dims {
		if dims[i] != a.Shape[i] {
			return false, nil
		}
	}
	return true, nil
}

// AttributeNames lists the attributes of loc (a file's root group, a group or a dataset)
// in increasing name order.
func AttributeNames(loc ID) ([]string, error) {
	enter()
	defer leave()
	if err := checkID("AttributeNames", loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return nil, err
	}
	var out *C.char
	rc := C.h5p_attr_names(C.hid_t(loc), &out)
	recs := takeRecords(out)
	if rc == -2 {
		return nil, errorf("h5: H5Aiterate2 object %d: out of memory", loc)
	}
	if rc < 0 {
		return nil, stackError(fmt.Sprintf("H5Aiterate2 object %d", loc))
	}
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r[1]
	}
	return names, nil
}

// Walk lists every group and dataset below the root of file f (the root itself excluded)
// in increasing name order, each group before its members. Objects reachable through
// several hard links are listed once; other object kinds (named datatypes) are skipped.
func Walk(f ID) ([]Object, error) {
	enter()
	defer leave()
	if err := checkID("Walk", f, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return nil, err
	}
	var out *C.char
	rc := C.h5p_visit(C.hid_t(f), &out)
	recs := takeRecords(out)
	if rc == -2 {
		return nil, errorf("h5: H5Ovisit file %d: out of memory", f)
	}
	if rc < 0 {
		return nil, stackError(fmt.Sprintf("H5Ovisit file %d", f))
	}
	var objs []Object
	for _, r := range recs {
		kind := strings.ToLower(r[0])
		if r[1] == "." || (kind != "g" && kind != "d") {
			continue
		}
		objs = append(objs, Object{Path: "/" + r[1], Dataset: kind == "d", Attrs: kind != r[0]})
	}
	return objs, nil
}

// takeRecords splits and frees a buffer of "kind \x1f name \x1e" records.
func takeRecords(p *C.char) [][2]string {
	if p == nil {
		return nil
	}
	raw := C.GoString(p)
	C.free(unsafe.Pointer(p))
	var recs [][2]string
	for _, rec := range strings.Split(strings.TrimSuffix(raw, "\x1e"), "\x1e") {
		kind, name, ok := strings.Cut(rec, "\x1f")
		if ok {
			recs = append(recs, [2]string{kind, name})
		}
	}
	return recs
}
