// es.h: the HDF5 calls h5proxy issues into an event set (HDF5 1.13+'s H5ES and the
// _async calls, as h5bench issues them under the Async VOL), each written for both
// releases: es > 0 calls the _async form with that event set, es 0 (or HDF5 1.10, which
// has no event sets) the ordinary call. Under the native connector an _async call runs
// synchronously and inserts nothing into the set.
#ifndef H5PROXY_ES_H
#define H5PROXY_ES_H

#include <hdf5.h>
#include <unistd.h>
#include <sys/syscall.h>

#if H5_VERSION_GE(1, 13, 0)
#define H5E_HAS_ES 1
#else
#define H5E_HAS_ES 0
#endif

// h5e_tid is the calling OS thread's id: an event set is current for one thread only.
static inline long h5e_tid(void) { return (long)syscall(SYS_gettid); }

// The file calls: h5bench issues them with H5ES_NONE (the connector's implicit wait);
// h5proxy's event-set mode puts them in a set of their own under a connector other than
// the native one, so that their wait pushes what is queued first (h5e_wait).
static inline hid_t h5e_fcreate(hid_t es, const char *name, unsigned flags, hid_t fcpl, hid_t fapl) {
#if H5E_HAS_ES
	if (es > 0) return H5Fcreate_async(name, flags, fcpl, fapl, es);
#endif
	(void)es;
	return H5Fcreate(name, flags, fcpl, fapl);
}

static inline hid_t h5e_fopen(hid_t es, const char *name, unsigned flags, hid_t fapl) {
#if H5E_HAS_ES
	if (es > 0) return H5Fopen_async(name, flags, fapl, es);
#endif
	(void)es;
	return H5Fopen(name, flags, fapl);
}

static inline herr_t h5e_fflush(hid_t es, hid_t f, H5F_scope_t scope) {
#if H5E_HAS_ES
	if (es > 0) return H5Fflush_async(f, scope, es);
#endif
	(void)es;
	return H5Fflush(f, scope);
}

static inline herr_t h5e_fclose(hid_t es, hid_t f) {
#if H5E_HAS_ES
	if (es > 0) return H5Fclose_async(f, es);
#endif
	(void)es;
	return H5Fclose(f);
}

static inline hid_t h5e_gcreate(hid_t es, hid_t loc, const char *name, hid_t gcpl) {
#if H5E_HAS_ES
	if (es > 0) return H5Gcreate_async(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT, es);
#endif
	(void)es;
	return H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
}

static inline hid_t h5e_gopen(hid_t es, hid_t loc, const char *name, hid_t apl) {
#if H5E_HAS_ES
	if (es > 0) return H5Gopen_async(loc, name, apl, es);
#endif
	(void)es;
	return H5Gopen2(loc, name, apl);
}

static inline herr_t h5e_gclose(hid_t es, hid_t g) {
#if H5E_HAS_ES
	if (es > 0) return H5Gclose_async(g, es);
#endif
	(void)es;
	return H5Gclose(g);
}

static inline hid_t h5e_dcreate(hid_t es, hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl) {
#if H5E_HAS_ES
	if (es > 0) return H5Dcreate_async(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT, es);
#endif
	(void)es;
	return H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
}

static inline hid_t h5e_dopen(hid_t es, hid_t loc, const char *name, hid_t apl) {
#if H5E_HAS_ES
	if (es > 0) return H5Dopen_async(loc, name, apl, es);
#endif
	(void)es;
	return H5Dopen2(loc, name, apl);
}

static inline herr_t h5e_dclose(hid_t es, hid_t d) {
#if H5E_HAS_ES
	if (es > 0) return H5Dclose_async(d, es);
#endif
	(void)es;
	return H5Dclose(d);
}

static inline herr_t h5e_dwrite(hid_t es, hid_t d, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, const void *buf) {
#if H5E_HAS_ES
	if (es > 0) return H5Dwrite_async(d, mt, ms, fs, dxpl, buf, es);
#endif
	(void)es;
	return H5Dwrite(d, mt, ms, fs, dxpl, buf);
}

static inline herr_t h5e_dread(hid_t es, hid_t d, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, void *buf) {
#if H5E_HAS_ES
	if (es > 0) return H5Dread_async(d, mt, ms, fs, dxpl, buf, es);
#endif
	(void)es;
	return H5Dread(d, mt, ms, fs, dxpl, buf);
}

static inline herr_t h5e_dset_extent(hid_t es, hid_t d, const hsize_t *dims) {
#if H5E_HAS_ES
	if (es > 0) return H5Dset_extent_async(d, dims, es);
#endif
	(void)es;
	return H5Dset_extent(d, dims);
}

// The attribute calls: a write into an event set is H5Acreate_async (H5Aopen_async for an
// attribute written again), H5Awrite_async and H5Aclose_async, as vol-async's own examples
// write attributes on objects whose create is still queued; outside a set the ordinary
// calls.
static inline hid_t h5e_acreate(hid_t es, hid_t loc, const char *name, hid_t type, hid_t space) {
#if H5E_HAS_ES
	if (es > 0) return H5Acreate_async(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, es);
#endif
	(void)es;
	return H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
}

static inline hid_t h5e_aopen(hid_t es, hid_t loc, const char *name) {
#if H5E_HAS_ES
	if (es > 0) return H5Aopen_async(loc, name, H5P_DEFAULT, es);
#endif
	(void)es;
	return H5Aopen(loc, name, H5P_DEFAULT);
}

static inline herr_t h5e_awrite(hid_t es, hid_t a, hid_t type, const void *buf) {
#if H5E_HAS_ES
	if (es > 0) return H5Awrite_async(a, type, buf, es);
#endif
	(void)es;
	return H5Awrite(a, type, buf);
}

static inline herr_t h5e_aclose(hid_t es, hid_t a) {
#if H5E_HAS_ES
	if (es > 0) return H5Aclose_async(a, es);
#endif
	(void)es;
	return H5Aclose(a);
}

#endif
