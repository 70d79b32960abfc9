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

#endif
