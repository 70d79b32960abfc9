// compat.h: the few HDF5 calls whose API changed between 1.10 (Debian 12's 1.10.8) and
// 1.12+ (the HDF5=1.14 build), written once for both. h5proxy uses each release's own API
// rather than H5_USE_110_API: 1.12 replaced object addresses by VOL tokens and versioned
// H5Oget_info/H5Ovisit on them, and the compatibility macro would map the code back to
// the deprecated 1.10 entry points, which a build without deprecated symbols lacks.
#ifndef H5PROXY_COMPAT_H
#define H5PROXY_COMPAT_H

#include <hdf5.h>

#if H5_VERSION_GE(1, 12, 0)
// Object information with the fields h5proxy reads (type, fileno, num_attrs).
typedef H5O_info2_t h5p_oinfo_t;
// h5p_ovisit visits every object under loc (H5Ovisit3).
#define h5p_ovisit(loc, idx, order, op, data, fields) H5Ovisit3(loc, idx, order, op, data, fields)
// h5p_vlen_reclaim frees the variable-length parts of buf (H5Treclaim).
#define h5p_vlen_reclaim(t, s, buf) H5Treclaim(t, s, H5P_DEFAULT, buf)
#else
typedef H5O_info_t h5p_oinfo_t;
#define h5p_ovisit(loc, idx, order, op, data, fields) H5Ovisit2(loc, idx, order, op, data, fields)
#define h5p_vlen_reclaim(t, s, buf) H5Dvlen_reclaim(t, s, H5P_DEFAULT, buf)
#endif

// h5p_object_info fills what ObjectStat reports of obj: its file number, its address in
// that file (1.12+: the native VOL's token turned back into the address), its type and
// number of attributes.
static inline herr_t h5p_object_info(hid_t obj, unsigned long *fileno, haddr_t *addr, H5O_type_t *type,
                                     hsize_t *num_attrs) {
	h5p_oinfo_t oi;
#if H5_VERSION_GE(1, 12, 0)
	if (H5Oget_info3(obj, &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0) return -1;
	if (H5VLnative_token_to_addr(obj, oi.token, addr) < 0) return -1;
#else
	if (H5Oget_info2(obj, &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0) return -1;
	*addr = oi.addr;
#endif
	*fileno = oi.fileno;
	*type = oi.type;
	*num_attrs = oi.num_attrs;
	return 0;
}

// h5p_object_timed reports whether obj's header records its times (1), or not (0: created
// with H5Pset_obj_track_times false, when HDF5 reports every time as 0); -1 on error.
static inline int h5p_object_timed(hid_t obj) {
	h5p_oinfo_t oi;
#if H5_VERSION_GE(1, 12, 0)
	if (H5Oget_info3(obj, &oi, H5O_INFO_TIME) < 0) return -1;
#else
	if (H5Oget_info2(obj, &oi, H5O_INFO_TIME) < 0) return -1;
#endif
	return oi.ctime != 0 || oi.mtime != 0 || oi.btime != 0 || oi.atime != 0;
}

// HDF5 1.14 features (the HDF5=1.14 build): multi-dataset I/O (H5Dwrite_multi,
// H5Dread_multi, 1.14.0) and selection I/O with its outcome on the transfer list
// (H5Pset_selection_io, H5Pget_actual_selection_io_mode, H5Pget_no_selection_io_cause,
// 1.14.1). On 1.10 the shims return -2: the feature does not exist in this build.
#if H5_VERSION_GE(1, 14, 1)
#define H5P_HAS_114 1
#else
#define H5P_HAS_114 0
#endif

// h5p_set_selection_io sets dxpl's selection I/O mode: 0 default, 1 on, 2 off.
static inline herr_t h5p_set_selection_io(hid_t dxpl, int mode) {
#if H5P_HAS_114
	static const H5D_selection_io_mode_t modes[] = {H5D_SELECTION_IO_MODE_DEFAULT, H5D_SELECTION_IO_MODE_ON,
	                                                H5D_SELECTION_IO_MODE_OFF};
	return H5Pset_selection_io(dxpl, modes[mode]);
#else
	(void)dxpl;
	(void)mode;
	return -2;
#endif
}

// h5p_get_selection_io reads dxpl's selection I/O mode back (0 default, 1 on, 2 off).
static inline herr_t h5p_get_selection_io(hid_t dxpl, int *mode) {
#if H5P_HAS_114
	H5D_selection_io_mode_t m;
	if (H5Pget_selection_io(dxpl, &m) < 0) return -1;
	*mode = m == H5D_SELECTION_IO_MODE_ON ? 1 : m == H5D_SELECTION_IO_MODE_OFF ? 2 : 0;
	return 0;
#else
	(void)dxpl;
	*mode = 0;
	return -2;
#endif
}

// h5p_selection_outcome reads the I/O path the last transfer through dxpl took
// (H5D_SCALAR_IO, H5D_VECTOR_IO, H5D_SELECTION_IO bits) and why selection I/O was not
// done (H5D_SEL_IO_* bits).
static inline herr_t h5p_selection_outcome(hid_t dxpl, uint32_t *actual, uint32_t *cause) {
#if H5P_HAS_114
	if (H5Pget_actual_selection_io_mode(dxpl, actual) < 0) return -1;
	return H5Pget_no_selection_io_cause(dxpl, cause);
#else
	(void)dxpl;
	*actual = *cause = 0;
	return -2;
#endif
}

// h5p_transfer_multi writes (write != 0) or reads n datasets in one call.
// es > 0 issues the _async forms into that event set.
static inline herr_t h5p_transfer_multi(size_t n, hid_t *dsets, hid_t *mtypes, hid_t *mspaces, hid_t *fspaces,
                                        hid_t dxpl, void **bufs, int write, hid_t es) {
#if H5P_HAS_114
	if (es > 0 && write) return H5Dwrite_multi_async(n, dsets, mtypes, mspaces, fspaces, dxpl, (const void **)bufs, es);
	if (es > 0) return H5Dread_multi_async(n, dsets, mtypes, mspaces, fspaces, dxpl, bufs, es);
	if (write) return H5Dwrite_multi(n, dsets, mtypes, mspaces, fspaces, dxpl, (const void **)bufs);
	return H5Dread_multi(n, dsets, mtypes, mspaces, fspaces, dxpl, bufs);
#else
	(void)n, (void)dsets, (void)mtypes, (void)mspaces, (void)fspaces, (void)dxpl, (void)bufs, (void)write, (void)es;
	return -2;
#endif
}

#endif
