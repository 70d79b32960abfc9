/*
 * profile-h5d.c: the H5D module of libh5proxy-profile.so, as Darshan's darshan-hdf5 counts
 * datasets: creates, opens, reads, writes (and HDF5 1.14's multi-dataset transfers),
 * extents and closes, each into the dataset's H5D record, keyed by its file and its path in
 * the file (H5D_* counters, profile.h; its info: type, layout, filters, shape, chunks, fill).
 */
#include "profile.h"

NEXT(H5Dcreate2);
NEXT(H5Dopen2);
NEXT(H5Dwrite);
NEXT(H5Dread);
NEXT(H5Dset_extent);
NEXT(H5Dclose);
#ifndef H5_NO_DEPRECATED_SYMBOLS
NEXT(H5Dcreate1);
NEXT(H5Dopen1);
#endif
/* HDF5 1.14's multi-dataset transfers: wrapped only when the headers have them, so a build
 * against 1.10 neither defines nor needs the symbols. */
#if H5_VERSION_GE(1, 14, 0)
#define HAVE_H5D_MULTI 1
NEXT(H5Dwrite_multi);
NEXT(H5Dread_multi);
#endif

/* bounds_json appends "KEY":[...] of the selection bounds of space: their starts
 * (end 0) or their ends, exclusive (end 1); [] when it has none. */
static void bounds_json(struct jb *b, const char *key, hid_t space, int end) {
    hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
    int nd = h5.Sget_simple_extent_ndims(space);
    jb_printf(b, "\"%s\":[", key);
    if (nd > 0 && nd <= H5S_MAX_RANK && h5.Sget_select_bounds(space, lo, hi) >= 0)
        for (int i = 0; i < nd; i++)
            jb_printf(b, "%s%llu", i ? "," : "", (unsigned long long)(end ? hi[i] + 1 : lo[i]));
    jb_printf(b, "]");
}

/* dcpl_json is what capture reads of a dataset's creation list beyond the flat fields:
 * ,"attr_crt_order":FLAGS (1 tracked, 2 indexed) when set and ,"virtual":[{file,
 * dataset, vstart, vend, sstart}] for a virtual dataset's mappings (each selection's
 * bounding box, ends exclusive; "box":false when a selection is not its box whole,
 * "vall" and "sall" true when the virtual or source selection is H5S_SEL_ALL).
 * ,"untimed":true when the program's own list user turns object times off (untimed_json).
 * NULL when none is set. */
static char *dcpl_json(hid_t p, int layout, hid_t user) {
    struct jb b = {0};
    untimed_json(&b, user);
    unsigned ord = 0;
    if (h5.Pget_attr_creation_order(p, &ord) >= 0 && ord) jb_printf(&b, ",\"attr_crt_order\":%u", ord);
    size_t nmaps = 0;
    if (layout == H5D_VIRTUAL && h5.Pget_virtual_count(p, &nmaps) >= 0 && nmaps > 0) {
        jb_printf(&b, ",\"virtual\":[");
        for (size_t i = 0; i < nmaps && i < 64; i++) {
            char fname[1024] = "", dname[1024] = "";
            ssize_t fl = h5.Pget_virtual_filename(p, i, fname, sizeof fname);
            ssize_t dl = h5.Pget_virtual_dsetname(p, i, dname, sizeof dname);
            if (fl < 0 || (size_t)fl >= sizeof fname) fname[0] = 0;
            if (dl < 0 || (size_t)dl >= sizeof dname) dname[0] = 0;
            jb_printf(&b, "%s{\"file\":", i ? "," : "");
            jb_str(&b, fname);
            jb_printf(&b, ",\"dataset\":");
            jb_str(&b, dname);
            hid_t vs = h5.Pget_virtual_vspace(p, i), ss = h5.Pget_virtual_srcspace(p, i);
            int box = 1;
            if (vs >= 0) {
                jb_printf(&b, ",");
                bounds_json(&b, "vstart", vs, 0);
                jb_printf(&b, ",");
                bounds_json(&b, "vend", vs, 1);
                hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK], n = 1;
                int nd = h5.Sget_simple_extent_ndims(vs);
                if (nd > 0 && nd <= H5S_MAX_RANK && h5.Sget_select_bounds(vs, lo, hi) >= 0)
                    for (int k = 0; k < nd; k++) n *= hi[k] - lo[k] + 1;
                box = h5.Sget_select_npoints(vs) == (hssize_t)n;
                if (h5.Sget_select_type(vs) == H5S_SEL_ALL) jb_printf(&b, ",\"vall\":true");
                h5.Sclose(vs);
            }
            if (ss >= 0) {
                jb_printf(&b, ",");
                bounds_json(&b, "sstart", ss, 0);
                if (h5.Sget_select_type(ss) == H5S_SEL_ALL) jb_printf(&b, ",\"sall\":true");
                h5.Sclose(ss);
            }
            if (!box) jb_printf(&b, ",\"box\":false");
            jb_printf(&b, "}");
        }
        jb_printf(&b, "]");
    }
    return jb_done(&b);
}

/* h5d_opened records a dataset create or open: its record is (file, path in the file). */
static void h5d_opened(int call, hid_t id, int deprecated, hid_t dcpl, int64_t t1, int64_t t2) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    char file[PATH_MAX], name[1024], info[8192], members[2048] = "";
    char *tree = NULL; /* the type as a tree, where the flat fields cannot say it */
    char *more = NULL; /* dcpl_json */
    file_name(id, file, sizeof file);
    ssize_t n = h5.Iget_name(id, name, sizeof name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<anonymous>");
    int ndims = 0;
    hssize_t npoints = 0;
    size_t tsize = 0;
    int tclass = -1, tsign = -1, layout = -1, nfilters = 0;
    int filter_id[8] = {0};
    unsigned filter_cd0[8] = {0};
    hsize_t dims[H5S_MAX_RANK] = {0}, maxdims[H5S_MAX_RANK] = {0}, chunk[H5S_MAX_RANK] = {0};
    int fill_time = -1, alloc_time = -1;
    H5D_fill_value_t fill_def = H5D_FILL_VALUE_ERROR;
    unsigned char fill[16]; /* a user fill value of an atomic type, for capture */
    int fill_n = 0;
    hid_t s = h5.Dget_space(id);
    if (s >= 0) {
        ndims = h5.Sget_simple_extent_ndims(s);
        npoints = h5.Sget_simple_extent_npoints(s);
        if (ndims > 0) h5.Sget_simple_extent_dims(s, dims, maxdims);
        h5.Sclose(s);
    }
    hid_t t = h5.Dget_type(id);
    if (t >= 0) {
        tsize = h5.Tget_size(t);
        tclass = (int)h5.Tget_class(t);
        if (tclass == H5T_INTEGER) tsign = (int)h5.Tget_sign(t);
        members_str(t, "type_", members, sizeof members);
        if (type_tree_needed(t)) {
            struct jb tb = {0};
            type_tree(&tb, t, 0);
            tree = jb_done(&tb);
        }
        h5.Tclose(t);
    }
    hid_t p = h5.Dget_create_plist(id);
    if (p >= 0) {
        layout = (int)h5.Pget_layout(p);
        if (layout == H5D_CHUNKED && ndims > 0) h5.Pget_chunk(p, H5S_MAX_RANK, chunk);
        nfilters = h5.Pget_nfilters(p);
        H5D_fill_time_t ft;
        H5D_alloc_time_t at;
        if (h5.Pget_fill_time(p, &ft) >= 0) fill_time = (int)ft;
        if (h5.Pget_alloc_time(p, &at) >= 0) alloc_time = (int)at;
        if (h5.Pfill_value_defined(p, &fill_def) < 0) fill_def = H5D_FILL_VALUE_ERROR;
        if (fill_def == H5D_FILL_VALUE_USER_DEFINED && tsize > 0 && tsize <= sizeof fill &&
            (tclass == H5T_INTEGER || tclass == H5T_FLOAT || tclass == H5T_ENUM)) {
            hid_t ft2 = h5.Dget_type(id);
            if (ft2 >= 0) {
                if (h5.Pget_fill_value(p, ft2, fill) >= 0) fill_n = (int)tsize;
                h5.Tclose(ft2);
            }
        }
        for (int i = 0; i < nfilters && i < 8; i++) {
            unsigned flags = 0, cd[4] = {0}, config = 0;
            size_t ncd = 4;
            char fname[64];
            filter_id[i] = (int)h5.Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, &config);
            filter_cd0[i] = ncd > 0 ? cd[0] : 0;
        }
        more = dcpl_json(p, layout, dcpl);
        h5.Pclose(p);
    }
    quiet_off(&q);
    if (ndims < 0) ndims = 0;
    int o = snprintf(info, sizeof info,
                     "{\"type_class\":%d,\"type_size\":%zu,\"type_sign\":%d,\"layout\":%d,\"filters\":%d,\"filter_ids\":[",
                     tclass, tsize, tsign, layout, nfilters);
    for (int i = 0; i < nfilters && i < 8; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s[%d,%u]", i ? "," : "", filter_id[i], filter_cd0[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"dims\":[");
    for (int i = 0; i < ndims && o < (int)sizeof info - 64; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"maxdims\":[");
    for (int i = 0; i < ndims && o < (int)sizeof info - 64; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%lld", i ? "," : "",
                      maxdims[i] == H5S_UNLIMITED ? -1LL : (long long)maxdims[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"chunk\":[");
    for (int i = 0; layout == H5D_CHUNKED && i < ndims && o < (int)sizeof info - 32; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%llu", i ? "," : "", (unsigned long long)chunk[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"fill_time\":%d,\"alloc_time\":%d,\"fill_defined\":%d,\"fill_value\":\"",
                  fill_time, alloc_time, (int)fill_def);
    for (int i = 0; i < fill_n && o < (int)sizeof info - 8; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%02x", fill[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "\"");
    if (o + strlen(members) < sizeof info - 2) o += snprintf(info + o, sizeof info - (size_t)o, "%s", members);
    if (tree && o + strlen(tree) + 16 < sizeof info - 2) /* else traced flat: capture names what it misses */
        o += snprintf(info + o, sizeof info - (size_t)o, ",\"type_tree\":%s", tree);
    free(tree);
    if (more && o + strlen(more) + 16 < sizeof info - 2) o += snprintf(info + o, sizeof info - (size_t)o, "%s", more);
    free(more);
    if (o < (int)sizeof info - 2) snprintf(info + o, sizeof info - (size_t)o, "}");
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = record_get(M_H5D, file, name);
    if (r) {
        int64_t *c = r->c;
        c[H5D_OPENS]++;
        c[H5D_DATASPACE_NDIMS] = ndims;
        c[H5D_DATASPACE_NPOINTS] = npoints;
        c[H5D_DATATYPE_SIZE] = (int64_t)tsize;
        for (int i = 0; i < 5 && i < ndims; i++)
            c[H5D_CHUNK_SIZE_D1 + i] = layout == H5D_CHUNKED ? (int64_t)chunk[ndims - 1 - i] : 0;
        if (deprecated) c[H5D_USE_DEPRECATED] = 1;
        /* An open cannot tell the creation's untracked times (the program's list is gone):
         * the create's mark stays on the record. */
        size_t il = strlen(info);
        int keep = dcpl < 0 && r->info && strstr(r->info, "\"untimed\":true") && il > 0 && il + 16 < sizeof info;
        if (keep) snprintf(info + il - 1, sizeof info - il + 1, ",\"untimed\":true}");
        free(r->info);
        r->info = strdup(info);
        hm_put(&h5dsets, (uint64_t)id, r);
        count_meta(r, call, H5D_F_OPEN_START_TIMESTAMP, H5D_F_OPEN_END_TIMESTAMP, H5D_F_META_TIME, t1, t2);
    }
    pthread_mutex_unlock(&lock);
    inside--;
}

hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl) {
    WRAP(hid_t id, H5Dcreate2, hdf5_active, loc, name, type, space, lcpl, dcpl, dapl);
    if (id >= 0) h5d_opened(C_H5Dcreate2, id, 0, dcpl, t1, now_ns());
    return id;
}
hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl) {
    WRAP(hid_t id, H5Dopen2, hdf5_active, loc, name, dapl);
    if (id >= 0) h5d_opened(C_H5Dopen2, id, 0, -1, t1, now_ns());
    return id;
}
#ifndef H5_NO_DEPRECATED_SYMBOLS
hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl) {
    WRAP(hid_t id, H5Dcreate1, hdf5_active, loc, name, type, space, dcpl);
    if (id >= 0) h5d_opened(C_H5Dcreate1, id, 1, dcpl, t1, now_ns());
    return id;
}
hid_t H5Dopen1(hid_t loc, const char *name) {
    WRAP(hid_t id, H5Dopen1, hdf5_active, loc, name);
    if (id >= 0) h5d_opened(C_H5Dopen1, id, 1, -1, t1, now_ns());
    return id;
}
#endif

/* Irregular selections keep at most this many blocks in the trace. */
#define SEL_BLOCKS_MAX (1 << 18)

/* selection_json describes a traced selection that is not a regular hyperslab: none
 * ({"none":true}), points ({"points":N}), or a union of hyperslabs: {"nblocks":N,
 * "blocks_hash":H, "blocks":[[start..., end...], ...]} with HDF5's block list (corners
 * inclusive, in HDF5's order) and a hash of it that ignores a shift along dimension 0 (a
 * record variable's union at each record hashes alike). Called outside the lock. */
static char *selection_json(hid_t space, int seltype, hssize_t npoints) {
    struct jb b = {0};
    if (seltype == H5S_SEL_NONE) {
        jb_printf(&b, "{\"none\":true}");
        return jb_done(&b);
    }
    if (seltype == H5S_SEL_POINTS) {
        jb_printf(&b, "{\"points\":%lld}", (long long)npoints);
        return jb_done(&b);
    }
    if (seltype != H5S_SEL_HYPERSLABS) return NULL;
    int nd = h5.Sget_simple_extent_ndims(space);
    hssize_t nb = h5.Sget_select_hyper_nblocks(space);
    if (nd <= 0 || nd > H5S_MAX_RANK || nb < 0) return NULL;
    hsize_t *bl = nb > 0 && nb <= SEL_BLOCKS_MAX ? malloc((size_t)nb * 2 * (size_t)nd * sizeof *bl) : NULL;
    if (bl && h5.Sget_select_hyper_blocklist(space, 0, (hsize_t)nb, bl) < 0) {
        free(bl);
        bl = NULL;
    }
    uint64_t h = 1469598103934665603ULL;
    if (bl) {
        hsize_t base = bl[0];
        for (hssize_t i = 0; i < nb; i++)
            for (int d = 0; d < 2 * nd; d++) {
                hsize_t v = bl[(size_t)i * 2 * (size_t)nd + (size_t)d];
                if (d % nd == 0) v -= base;
                h = (h ^ (uint64_t)v) * 1099511628211ULL;
            }
    }
    jb_printf(&b, "{\"nblocks\":%lld", (long long)nb);
    if (bl) {
        jb_printf(&b, ",\"blocks_hash\":\"%016llx\",\"blocks\":[", (unsigned long long)h);
        for (hssize_t i = 0; i < nb; i++) {
            jb_printf(&b, "%s[", i ? "," : "");
            for (int d = 0; d < 2 * nd; d++)
                jb_printf(&b, "%s%llu", d ? "," : "", (unsigned long long)bl[(size_t)i * 2 * (size_t)nd + (size_t)d]);
            jb_printf(&b, "]");
        }
        jb_printf(&b, "]");
        free(bl);
    }
    jb_printf(&b, "}");
    return jb_done(&b);
}

READ_WRITE(H5D_READS, H5D_WRITES);
READ_WRITE(H5D_BYTES_READ, H5D_BYTES_WRITTEN);
READ_WRITE_BINS(H5D_SIZE_READ_AGG_0_100, H5D_SIZE_WRITE_AGG_0_100);
READ_WRITE(H5D_MAX_READ_TIME_SIZE, H5D_MAX_WRITE_TIME_SIZE);

/* Written references are kept in the trace up to this many bytes (341 region references). */
#define REF_VALUE_MAX 4096

/* ref_values returns the members "refs":"HEX" of an H5Dwrite event that writes references of
 * the 1.8 API (hobj_ref_t, hdset_reg_ref_t: memory type mtype) from buf, the memory space
 * mspace (H5S_ALL: the dataset's) selected whole, which capture matches with the H5Rcreate
 * events that made them; NULL when not tracing, for other types, or past REF_VALUE_MAX bytes. */
static char *ref_values(hid_t dset, hid_t mtype, hid_t mspace, const void *buf) {
    if (!trace_on || buf == NULL) return NULL;
    inside++;
    struct quiet q;
    quiet_on(&q);
    char *out = NULL;
    size_t size = h5.Tget_size(mtype);
    if (h5.Tget_class(mtype) == H5T_REFERENCE && (size == 8 || size == 12)) {
        hid_t space = mspace == H5S_ALL ? h5.Dget_space(dset) : mspace;
        hssize_t n = space < 0 ? -1 : h5.Sget_simple_extent_npoints(space);
        if (mspace == H5S_ALL && space >= 0) h5.Sclose(space);
        if (n > 0 && (size_t)n * size <= REF_VALUE_MAX) {
            struct jb b = {0};
            jb_printf(&b, "\"refs\":");
            jb_hex(&b, buf, (size_t)n * size);
            out = jb_done(&b);
        }
    }
    quiet_off(&q);
    inside--;
    return out;
}

/* h5d_io records an H5Dread (rw 1) or H5Dwrite (rw 2) as Darshan's H5D module counts it,
 * the event carrying extra (owned, may be NULL). */
static void h5d_io(int call, int rw, hid_t dset, hid_t mtype, hid_t fspace, hid_t dxpl, int64_t t1,
                   int64_t t2, char *extra) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    hssize_t npoints = 0;
    int seltype = -1, regular = 0, coll = 0;
    int64_t key[CV_KEYS] = {0};
    hsize_t start[H5S_MAX_RANK], stride[H5S_MAX_RANK], count[H5S_MAX_RANK], block[H5S_MAX_RANK];
    int ndims = 0;
    char *sel = NULL;
    if (fspace == H5S_ALL) {
        seltype = H5S_SEL_ALL;
    } else {
        npoints = h5.Sget_select_npoints(fspace);
        seltype = (int)h5.Sget_select_type(fspace);
        if (seltype == H5S_SEL_HYPERSLABS && h5.Sis_regular_hyperslab(fspace) > 0) {
            regular = 1;
            ndims = h5.Sget_simple_extent_ndims(fspace);
            if (ndims > 0 && ndims <= H5S_MAX_RANK &&
                h5.Sget_regular_hyperslab(fspace, start, stride, count, block) >= 0) {
                for (int i = 0; i < 5; i++) {
                    /* Darshan 3.5's placement: Di holds dimension 5 - i, so D5 is the
                     * first (slowest) dimension and a 1-D selection lands in D5 */
                    int d = 4 - i;
                    if (d >= ndims) continue;
                    key[1 + i] = (int64_t)(count[d] * block[d]);
                    key[6 + i] = (int64_t)stride[d];
                }
                if (trace_on) {
                    size_t len = 64 + (size_t)ndims * 4 * 24;
                    sel = malloc(len);
                    if (sel) {
                        int o = snprintf(sel, len, "{\"start\":[");
                        hsize_t *v[] = {start, stride, count, block};
                        const char *nm[] = {"start", "stride", "count", "block"};
                        for (int k = 0; k < 4; k++) {
                            if (k) o += snprintf(sel + o, len - (size_t)o, "],\"%s\":[", nm[k]);
                            for (int i = 0; i < ndims; i++)
                                o += snprintf(sel + o, len - (size_t)o, "%s%llu", i ? "," : "",
                                              (unsigned long long)v[k][i]);
                        }
                        snprintf(sel + o, len - (size_t)o, "]}");
                    }
                }
            } else ndims = 0;
        } else if (trace_on) {
            sel = selection_json(fspace, seltype, npoints);
        }
    }
    if (dxpl != H5P_DEFAULT) {
        H5FD_mpio_xfer_t mode;
        if (h5.Pget_dxpl_mpio(dxpl, &mode) >= 0 && mode == H5FD_MPIO_COLLECTIVE) coll = 1;
    }
    size_t tsize = h5.Tget_size(mtype);
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = hm_get(&h5dsets, (uint64_t)dset);
    if (r) {
        int64_t *c = r->c;
        if (seltype == H5S_SEL_ALL) npoints = c[H5D_DATASPACE_NPOINTS];
        int64_t n = (int64_t)npoints * (int64_t)tsize;
        if (seltype == H5S_SEL_ALL || regular) c[H5D_REGULAR_HYPERSLAB_SELECTS]++;
        else if (seltype == H5S_SEL_POINTS) c[H5D_POINT_SELECTS]++;
        else if (seltype == H5S_SEL_HYPERSLABS) c[H5D_IRREGULAR_HYPERSLAB_SELECTS]++;
        if (coll) c[H5D_USE_MPIIO_COLLECTIVE] = 1;
        count_io(r, rw, n, t1, t2, H5D_READS, H5D_BYTES_READ, H5D_SIZE_READ_AGG_0_100, H5D_RW_SWITCHES,
                 H5D_MAX_READ_TIME_SIZE);
        key[0] = n;
        cv_add(&r->access, key);
        if (sel && !regular && seltype == H5S_SEL_HYPERSLABS) {
            /* the block list once per dataset, direction and process; later ones by hash */
            if (r->blocks_traced & rw) {
                char *cut = strstr(sel, ",\"blocks\":");
                if (cut) strcpy(cut, "}");
            }
            r->blocks_traced |= rw;
        }
        event_add_with(r, call, -1, n, t1, t2, coll, sel, extra);
        sel = extra = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(sel);
    free(extra);
    inside--;
}

herr_t H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, const void *buf) {
    WRAP(herr_t ret, H5Dwrite, hdf5_active, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_io(C_H5Dwrite, 2, dset, mtype, fspace, dxpl, t1, now_ns(), ref_values(dset, mtype, mspace, buf));
    return ret;
}
herr_t H5Dread(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf) {
    WRAP(herr_t ret, H5Dread, hdf5_active, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_io(C_H5Dread, 1, dset, mtype, fspace, dxpl, t1, now_ns(), NULL);
    return ret;
}
herr_t H5Dset_extent(hid_t dset, const hsize_t size[]) {
    WRAP(herr_t ret, H5Dset_extent, hdf5_active, dset, size);
    int64_t t2 = now_ns();
    if (ret >= 0) {
        inside++;
        hid_t s = h5.Dget_space(dset);
        hssize_t np = s >= 0 ? h5.Sget_simple_extent_npoints(s) : -1;
        char *extra = NULL;
        if (s >= 0 && trace_on) { /* the new extent, for capture */
            hsize_t dims[H5S_MAX_RANK];
            int nd = h5.Sget_simple_extent_ndims(s);
            if (nd > 0 && nd <= H5S_MAX_RANK && h5.Sget_simple_extent_dims(s, dims, NULL) >= 0) {
                struct jb b = {0};
                jb_printf(&b, "\"extent\":[");
                for (int i = 0; i < nd; i++) jb_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
                jb_printf(&b, "]");
                extra = jb_done(&b);
            }
        }
        if (s >= 0) h5.Sclose(s);
        pthread_mutex_lock(&lock);
        count_call(C_H5Dset_extent, t1, t2);
        struct record *r = hm_get(&h5dsets, (uint64_t)dset);
        if (r) {
            if (np >= 0) r->c[H5D_DATASPACE_NPOINTS] = np;
            r->f[H5D_F_META_TIME] += t2 - t1;
            event_add_extra(r, C_H5Dset_extent, t1, t2, extra);
            extra = NULL;
        }
        pthread_mutex_unlock(&lock);
        free(extra);
        inside--;
    }
    return ret;
}
#ifdef HAVE_H5D_MULTI
/* h5d_multi records one H5Dwrite_multi (rw 2) or H5Dread_multi (rw 1) of count datasets as
 * Darshan's H5D module records an H5Dwrite or H5Dread: each dataset's record gets one read or
 * write of its own selection, memory type and the call's transfer list, with the whole
 * call's duration. The calls table counts the call once (h5d_io charges it per dataset). */
static void h5d_multi(int call, int rw, size_t count, const hid_t dset[], const hid_t mtype[],
                      const hid_t fspace[], hid_t dxpl, int64_t t1, int64_t t2) {
    for (size_t i = 0; i < count; i++) h5d_io(call, rw, dset[i], mtype[i], fspace[i], dxpl, t1, t2, NULL);
    pthread_mutex_lock(&lock);
    if (count == 0) {
        count_call(call, t1, t2);
    } else {
        call_n[call] -= (int64_t)count - 1;
        call_ns[call] -= ((int64_t)count - 1) * (t2 - t1);
    }
    pthread_mutex_unlock(&lock);
}
herr_t H5Dwrite_multi(size_t count, hid_t dset[], hid_t mtype[], hid_t mspace[], hid_t fspace[],
                      hid_t dxpl, const void *buf[]) {
    WRAP(herr_t ret, H5Dwrite_multi, hdf5_active, count, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_multi(C_H5Dwrite_multi, 2, count, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
herr_t H5Dread_multi(size_t count, hid_t dset[], hid_t mtype[], hid_t mspace[], hid_t fspace[],
                     hid_t dxpl, void *buf[]) {
    WRAP(herr_t ret, H5Dread_multi, hdf5_active, count, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_multi(C_H5Dread_multi, 1, count, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
#endif
/* H5Dclose ends a dataset's record when it closes its identifier for good (as H5Fclose). */
herr_t H5Dclose(hid_t dset) {
    RESOLVE(H5Dclose);
    if (!hdf5_active()) return next_H5Dclose(dset);
    return h5_close_record(C_H5Dclose, next_H5Dclose, dset, &h5dsets, H5D_F_CLOSE_START_TIMESTAMP,
                           H5D_F_CLOSE_END_TIMESTAMP, H5D_F_META_TIME);
}
