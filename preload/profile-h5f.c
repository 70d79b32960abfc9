/*
 * profile-h5f.c: the H5F module of libh5proxy-profile.so, as Darshan's darshan-hdf5 counts
 * files: H5Fcreate, H5Fopen, H5Fflush and H5Fclose into the file's H5F record (H5F_*
 * counters, profile.h; its info: the access list's driver, alignment, collective metadata,
 * version bounds and, traced, MPI-IO hints). Groups, objects and attributes have no Darshan
 * module: H5Gcreate2, H5Gcreate1, H5Gopen2, H5Gclose, H5Oopen, H5Oclose, H5Acreate2, H5Awrite,
 * H5Aopen, H5Aread, the link creations H5Lcreate_hard, H5Lcreate_soft and H5Lcreate_external and
 * the 1.8 API's reference creation H5Rcreate count in the call table and, traced, as events of their file's record.
 */
#include "profile.h"

NEXT(H5Fcreate);
NEXT(H5Fopen);
NEXT(H5Fflush);
NEXT(H5Fclose);
NEXT(H5Gcreate2);
#ifndef H5_NO_DEPRECATED_SYMBOLS
NEXT(H5Gcreate1);
#endif
NEXT(H5Gopen2);
NEXT(H5Gclose);
NEXT(H5Oopen);
NEXT(H5Oclose);
NEXT(H5Acreate2);
NEXT(H5Awrite);
NEXT(H5Aopen);
NEXT(H5Aread);
NEXT(H5Lcreate_hard);
NEXT(H5Lcreate_soft);
NEXT(H5Lcreate_external);
#ifndef H5_NO_DEPRECATED_SYMBOLS
NEXT(H5Rcreate);
#endif
PNEXT(MPI_Info_get_nkeys);
PNEXT(MPI_Info_get_nthkey);
PNEXT(MPI_Info_get_valuelen);
PNEXT(MPI_Info_get);
PNEXT(MPI_Info_free);
PNEXT(MPI_Comm_free);

/* fapl_hints appends the MPI-IO hints an MPI-IO file access list carries (the info object
 * of H5Pset_fapl_mpio) as "hints":{KEY:VALUE,...}, for capture. */
static void fapl_hints(struct jb *b, hid_t fapl) {
    MPI_Comm comm = COMM_NULL;
    MPI_Info info = INFO_NULL;
    if (!mpi_initialized || !mpi_ok || h5.Pget_fapl_mpio(fapl, &comm, &info) < 0) return; /* inside the library: not mpi_active() */
    PRESOLVE(MPI_Info_get_nkeys);
    PRESOLVE(MPI_Info_get_nthkey);
    PRESOLVE(MPI_Info_get_valuelen);
    PRESOLVE(MPI_Info_get);
    PRESOLVE(MPI_Info_free);
    PRESOLVE(MPI_Comm_free);
    int n = 0;
    if (info != INFO_NULL) next_MPI_Info_get_nkeys(info, &n);
    jb_printf(b, ",\"hints\":{");
    for (int i = 0, first = 1; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[1024];
        int len = 0, flag = 0;
        if (next_MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS) continue;
        if (next_MPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS || !flag || len >= (int)sizeof val) continue;
        if (next_MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS || !flag) continue;
        val[len] = 0;
        jb_printf(b, "%s", first ? "" : ",");
        jb_str(b, key);
        jb_printf(b, ":");
        jb_str(b, val);
        first = 0;
    }
    jb_printf(b, "}");
    if (info != INFO_NULL) next_MPI_Info_free(&info);
    if (comm != COMM_NULL) next_MPI_Comm_free(&comm);
}

/* crt_order_json appends ,"crt_order":[LINKS,ATTRS] to b: the creation order flags
 * (H5P_CRT_ORDER_TRACKED 1, INDEXED 2) of the creation list pl (a file's, for its root
 * group, or a group's), when either is set; it closes pl. Capture writes creation_order
 * from them (ncdump lists netCDF-4's variables by link creation order). */
static void crt_order_json(struct jb *b, hid_t pl) {
    if (pl < 0) return;
    unsigned links = 0, attrs = 0;
    if (h5.Pget_link_creation_order(pl, &links) >= 0 && h5.Pget_attr_creation_order(pl, &attrs) >= 0 && (links || attrs))
        jb_printf(b, ",\"crt_order\":[%u,%u]", links, attrs);
    h5.Pclose(pl);
}

/* untimed_json: the program's own creation list, not the object's, which HDF5 rebuilds
 * from its header and reports tracked for a version-1 header without times. */
void untimed_json(struct jb *b, hid_t pl) {
    hbool_t t = 1;
    if (pl >= 0 && pl != H5P_DEFAULT && h5.Pget_obj_track_times && h5.Pget_obj_track_times(pl, &t) >= 0 && !t)
        jb_printf(b, ",\"untimed\":true");
}

/* root_untimed_json: a created file's root group without its times, as the file creation
 * list fcpl says or, when the program turned them off another way (netCDF-4's files keep a
 * list that tracks them), as the root group's header does (its list, rebuilt from the
 * header, is exact for the version-2 headers such roots have). */
static void root_untimed_json(struct jb *b, hid_t file, hid_t fcpl) {
    struct jb t = {0};
    untimed_json(&t, fcpl);
    char *s = jb_done(&t);
    if (!s) {
        RESOLVE(H5Gopen2);
        RESOLVE(H5Gclose);
        hid_t g = next_H5Gopen2(file, "/", H5P_DEFAULT);
        if (g >= 0) {
            hid_t gcpl = h5.Gget_create_plist(g);
            hbool_t on = 1;
            if (gcpl >= 0 && h5.Pget_obj_track_times && h5.Pget_obj_track_times(gcpl, &on) >= 0 && !on)
                s = strdup(",\"untimed\":true");
            if (gcpl >= 0) h5.Pclose(gcpl);
            next_H5Gclose(g);
        }
    }
    if (s) jb_printf(b, "%s", s);
    free(s);
}

/* h5f_opened records an H5Fcreate or H5Fopen of path with access list fapl that returned id
 * (the file's record, its info from the access list); it returns id. */
static hid_t h5f_opened(int call, hid_t id, const char *path, hid_t fapl, int64_t t1, int64_t t2) {
    if (id < 0) return id;
    inside++;
    char abs[PATH_MAX];
    absolute(path, abs, sizeof abs);
    struct quiet q;
    quiet_on(&q);
    int mpio = 0;
    hsize_t thr = 0, al = 0;
    hbool_t cmops = 0, cmwrite = 0;
    H5F_libver_t low = H5F_LIBVER_EARLIEST, high = H5F_LIBVER_LATEST;
    if (fapl != H5P_DEFAULT) {
        mpio = h5.Pget_driver(fapl) == h5.FD_mpio_init();
        h5.Pget_alignment(fapl, &thr, &al);
        h5.Pget_all_coll_metadata_ops(fapl, &cmops);
        h5.Pget_coll_metadata_write(fapl, &cmwrite);
        h5.Pget_libver_bounds(fapl, &low, &high);
    }
    struct jb b = {0};
    jb_printf(&b,
              "{\"driver\":\"%s\",\"alignment_threshold\":%llu,\"alignment\":%llu,\"coll_metadata_ops\":%s,"
              "\"coll_metadata_write\":%s,\"libver\":[%d,%d],\"libver_latest\":%s",
              mpio ? "mpio" : "other", (unsigned long long)thr, (unsigned long long)al, cmops ? "true" : "false",
              cmwrite ? "true" : "false", (int)low, (int)high,
              low == H5F_LIBVER_LATEST && high == H5F_LIBVER_LATEST ? "true" : "false");
    if (mpio && trace_on) fapl_hints(&b, fapl);
    jb_printf(&b, "}");
    char *info = jb_done(&b);
    /* Traced, each open's event carries its own access list (the record's info is the last
     * open's): capture tells a serial creation on one rank from the shared opens after it. */
    char *fx = NULL;
    if (trace_on) {
        struct jb e = {0};
        jb_printf(&e, "\"fapl\":{\"driver\":\"%s\",\"coll_metadata_ops\":%s,\"coll_metadata_write\":%s}",
                  mpio ? "mpio" : "other", cmops ? "true" : "false", cmwrite ? "true" : "false");
        if (call == C_H5Fcreate) {
            hid_t fcpl = h5.Fget_create_plist(id); /* the file keeps the program's list */
            root_untimed_json(&e, id, fcpl);
            crt_order_json(&e, fcpl);
        }
        fx = jb_done(&e);
    }
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = record_get(M_H5F, abs, NULL);
    if (r) {
        r->c[H5F_OPENS]++;
        if (mpio) r->c[H5F_USE_MPIIO] = 1;
        first_last(&r->f[H5F_F_OPEN_START_TIMESTAMP], &r->f[H5F_F_OPEN_END_TIMESTAMP], t1, t2);
        r->f[H5F_F_META_TIME] += t2 - t1;
        free(r->info);
        r->info = info;
        info = NULL;
        hm_put(&h5files, (uint64_t)id, r);
        event_add_extra(r, call, t1, t2, fx);
        fx = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(info);
    free(fx);
    inside--;
    return id;
}

hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl) {
    WRAP(hid_t id, H5Fcreate, hdf5_active, name, flags, fcpl, fapl);
    return h5f_opened(C_H5Fcreate, id, name, fapl, t1, now_ns());
}
hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl) {
    WRAP(hid_t id, H5Fopen, hdf5_active, name, flags, fapl);
    return h5f_opened(C_H5Fopen, id, name, fapl, t1, now_ns());
}

/* The file record of any identifier in a file: the identifiers H5Fcreate and H5Fopen
 * returned map directly; any other (an object, or a file identifier from H5Iget_file_id)
 * through the file's name. */
static struct record *h5f_of(hid_t id) {
    struct record *r = hm_get(&h5files, (uint64_t)id);
    if (r) return r;
    char abs[PATH_MAX];
    pthread_mutex_unlock(&lock);
    struct quiet q;
    quiet_on(&q);
    file_name(id, abs, sizeof abs);
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    return record_get(M_H5F, abs, NULL);
}

herr_t H5Fflush(hid_t id, H5F_scope_t scope) {
    WRAP(herr_t ret, H5Fflush, hdf5_active, id, scope);
    int64_t t2 = now_ns();
    if (ret >= 0) {
        inside++;
        pthread_mutex_lock(&lock);
        count_call(C_H5Fflush, t1, t2);
        struct record *r = h5f_of(id);
        if (r) {
            r->c[H5F_FLUSHES]++;
            count_meta(r, C_H5Fflush, -1, 0, H5F_F_META_TIME, t1, t2);
        }
        pthread_mutex_unlock(&lock);
        inside--;
    }
    return ret;
}

/* H5Fclose ends a file's record only when it closes the file's identifier for good: a
 * reference taken with H5Iget_file_id and released with H5Fclose leaves the file open (its
 * record goes on: a later flush or close is the file's). */
herr_t H5Fclose(hid_t id) {
    RESOLVE(H5Fclose);
    if (!hdf5_active()) return next_H5Fclose(id);
    return h5_close_record(C_H5Fclose, next_H5Fclose, id, &h5files, H5F_F_CLOSE_START_TIMESTAMP,
                           H5F_F_CLOSE_END_TIMESTAMP, H5F_F_META_TIME);
}

/* Attribute values up to this many bytes are kept in the trace (names, types and shapes
 * always): enough for units, long names, fill values and small arrays. */
#define ATTR_VALUE_MAX 4096

/* vlen_refs appends "refs":[[HEX,...],...], each element's references in hex, for the
 * value buf of npoints sequences of the variable-length type mtype when its base is a
 * reference of the 1.8 API (the DIMENSION_LIST H5DS writes): capture matches them with
 * the H5Rcreate events that made them. At most ATTR_VALUE_MAX bytes of references. */
static void vlen_refs(struct jb *b, hid_t mtype, const void *buf, hssize_t npoints) {
    hid_t base = h5.Tget_super(mtype);
    if (base < 0) return;
    size_t size = h5.Tget_size(base);
    int isref = h5.Tget_class(base) == H5T_REFERENCE && (size == 8 || size == 12);
    h5.Tclose(base);
    if (!isref || npoints <= 0) return;
    const hvl_t *v = buf;
    size_t total = 0;
    for (hssize_t i = 0; i < npoints; i++) total += v[i].len * size;
    if (total > ATTR_VALUE_MAX) return;
    jb_printf(b, ",\"refs\":[");
    for (hssize_t i = 0; i < npoints; i++) {
        jb_printf(b, "%s[", i ? "," : "");
        for (size_t k = 0; k < v[i].len; k++) {
            jb_printf(b, "%s", k ? "," : "");
            jb_hex(b, (const char *)v[i].p + k * size, size);
        }
        jb_printf(b, "]");
    }
    jb_printf(b, "]");
}

/* vlen_strings appends "strings":[...], the npoints C strings of a variable-length string
 * value buf (a NULL one as ""), when they are at most ATTR_VALUE_MAX bytes in all. */
static void vlen_strings(struct jb *b, const void *buf, hssize_t npoints) {
    char *const *v = buf;
    size_t total = 0;
    for (hssize_t i = 0; i < npoints; i++) total += v[i] ? strlen(v[i]) : 0;
    if (npoints <= 0 || total > ATTR_VALUE_MAX) return;
    jb_printf(b, ",\"strings\":[");
    for (hssize_t i = 0; i < npoints; i++) {
        jb_printf(b, "%s", i ? "," : "");
        jb_str(b, v[i] ? v[i] : "");
    }
    jb_printf(b, "]");
}

/* attr_json describes an attribute for the trace: "attribute":{object (the path of the
 * object it hangs on), name, its file type, dims ([] scalar) and, given the memory type and
 * buffer of an H5Awrite, the memory type and the value's bytes in hex when they are few and
 * not variable-length}. Called outside the lock. */
static char *attr_json(hid_t attr, hid_t mtype, const void *buf) {
    struct quiet q;
    quiet_on(&q);
    char obj[1024], name[512];
    ssize_t n = h5.Iget_name(attr, obj, sizeof obj);
    if (n <= 0 || (size_t)n >= sizeof obj) snprintf(obj, sizeof obj, "<anonymous>");
    n = h5.Aget_name(attr, sizeof name, name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<unknown>");
    struct jb b = {0};
    jb_printf(&b, "\"attribute\":{\"object\":");
    jb_str(&b, obj);
    jb_printf(&b, ",\"name\":");
    jb_str(&b, name);
    hid_t t = h5.Aget_type(attr);
    if (t >= 0) {
        jb_printf(&b, ",");
        type_json(&b, "type_", t);
        h5.Tclose(t);
    }
    hid_t s = h5.Aget_space(attr);
    hssize_t npoints = 0;
    if (s >= 0) {
        hsize_t dims[H5S_MAX_RANK];
        int nd = h5.Sget_simple_extent_ndims(s);
        if (nd < 0 || nd > H5S_MAX_RANK) nd = 0;
        if (nd > 0) h5.Sget_simple_extent_dims(s, dims, NULL);
        npoints = h5.Sget_simple_extent_npoints(s);
        jb_printf(&b, ",\"dims\":[");
        for (int i = 0; i < nd; i++) jb_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
        jb_printf(&b, "]");
        h5.Sclose(s);
    }
    if (mtype >= 0) {
        jb_printf(&b, ",");
        type_json(&b, "mem_", mtype);
        int vlen = h5.Tget_class(mtype) == H5T_VLEN ||
                   (h5.Tget_class(mtype) == H5T_STRING && h5.Tis_variable_str(mtype) > 0);
        size_t bytes = (size_t)(npoints > 0 ? npoints : 0) * h5.Tget_size(mtype);
        if (buf && !vlen && bytes <= ATTR_VALUE_MAX) {
            jb_printf(&b, ",\"value\":");
            jb_hex(&b, buf, bytes);
        }
        if (buf && h5.Tget_class(mtype) == H5T_VLEN) vlen_refs(&b, mtype, buf, npoints);
        if (buf && vlen && h5.Tget_class(mtype) == H5T_STRING) vlen_strings(&b, buf, npoints);
    }
    jb_printf(&b, "}");
    quiet_off(&q);
    return jb_done(&b);
}

/* Groups and attributes have no Darshan module: their calls count in the call table and,
 * traced, as events of the file's record; extra (owned) adds members to the event. */
static void h5_other_extra(int call, hid_t loc, int64_t t1, int64_t t2, char *extra) {
    inside++;
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = trace_on ? h5f_of(loc) : NULL;
    if (r) event_add_extra(r, call, t1, t2, extra);
    else free(extra);
    pthread_mutex_unlock(&lock);
    inside--;
}

/* object_json is "object":PATH, the path HDF5 names an open group or object by, for the
 * trace of group and object opens and closes (capture reads how a code holds its objects:
 * opened per call, attributes through H5Oopen, parents opened around creates). */
static char *object_json(hid_t id) {
    struct quiet q;
    quiet_on(&q);
    char obj[1024];
    ssize_t n = h5.Iget_name(id, obj, sizeof obj);
    if (n <= 0 || (size_t)n >= sizeof obj) snprintf(obj, sizeof obj, "<anonymous>");
    quiet_off(&q);
    struct jb b = {0};
    jb_printf(&b, "\"object\":");
    jb_str(&b, obj);
    return jb_done(&b);
}

/* h5_opened counts an open (or create) of a group or object that returned id; traced, its
 * event names it. It returns id. */
static hid_t h5_opened_pl(int call, hid_t id, hid_t gcpl, int64_t t1, int64_t t2) {
    if (id < 0) return id;
    char *extra = NULL;
    if (trace_on) {
        inside++;
        extra = object_json(id);
        if (call == C_H5Gcreate2 && extra) { /* its creation order, when tracked */
            struct quiet q;
            quiet_on(&q);
            struct jb b = {0};
            jb_printf(&b, "%s", extra);
            untimed_json(&b, gcpl);
            crt_order_json(&b, h5.Gget_create_plist(id));
            free(extra);
            extra = jb_done(&b);
            quiet_off(&q);
        }
        inside--;
    }
    h5_other_extra(call, id, t1, t2, extra);
    return id;
}

static hid_t h5_opened(int call, hid_t id, int64_t t1, int64_t t2) { return h5_opened_pl(call, id, -1, t1, t2); }

/* h5_close closes a group or object with next: traced, its name and file are taken before
 * the close (the identifier means nothing after it); untraced, the call is only counted. */
static herr_t h5_close(int call, herr_t (*next)(hid_t), hid_t id) {
    char file[PATH_MAX];
    char *extra = NULL;
    if (trace_on) {
        inside++;
        struct quiet q;
        quiet_on(&q);
        file_name(id, file, sizeof file);
        quiet_off(&q);
        extra = object_json(id);
        inside--;
    }
    int64_t t1 = now_ns();
    herr_t ret = next(id);
    int64_t t2 = now_ns();
    inside++;
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = extra && ret >= 0 ? record_get(M_H5F, file, NULL) : NULL;
    if (r) event_add_extra(r, call, t1, t2, extra);
    else free(extra);
    pthread_mutex_unlock(&lock);
    inside--;
    return ret;
}

/* H5_OPENER defines f with parameters PARAMS, an open or create of a group or object, called
 * with the arguments that follow; H5_CLOSER defines f, the close of one. */
#define H5_OPENER(f, PARAMS, ...)                                                              \
    hid_t f PARAMS {                                                                           \
        WRAP(hid_t id, f, hdf5_active, __VA_ARGS__);                                           \
        return h5_opened(C_##f, id, t1, now_ns());                                             \
    }
#define H5_CLOSER(f)                                                                           \
    herr_t f(hid_t id) {                                                                       \
        RESOLVE(f);                                                                            \
        if (!hdf5_active()) return next_##f(id);                                               \
        return h5_close(C_##f, next_##f, id);                                                  \
    }
hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl) {
    WRAP(hid_t id, H5Gcreate2, hdf5_active, loc, name, lcpl, gcpl, gapl);
    return h5_opened_pl(C_H5Gcreate2, id, gcpl, t1, now_ns());
}
#ifndef H5_NO_DEPRECATED_SYMBOLS /* the 1.6 API's create (MACSio's groups) */
H5_OPENER(H5Gcreate1, (hid_t loc, const char *name, size_t size_hint), loc, name, size_hint)
#endif
H5_OPENER(H5Gopen2, (hid_t loc, const char *name, hid_t gapl), loc, name, gapl)
H5_CLOSER(H5Gclose)
H5_OPENER(H5Oopen, (hid_t loc, const char *name, hid_t lapl), loc, name, lapl)
H5_CLOSER(H5Oclose)

/* h5_attr counts a successful attribute call on attr that ran from t1 to t2; traced, its
 * event describes the attribute (with the memory type mtype and buffer buf of a write or
 * read, -1 and NULL otherwise). */
static void h5_attr(int call, hid_t attr, hid_t mtype, const void *buf, int64_t t1, int64_t t2) {
    inside++;
    char *extra = trace_on ? attr_json(attr, mtype, buf) : NULL;
    inside--;
    h5_other_extra(call, attr, t1, t2, extra);
}

hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl, hid_t aapl) {
    WRAP(hid_t id, H5Acreate2, hdf5_active, loc, name, type, space, acpl, aapl);
    if (id >= 0) h5_attr(C_H5Acreate2, id, -1, NULL, t1, now_ns());
    return id;
}
herr_t H5Awrite(hid_t attr, hid_t type, const void *buf) {
    WRAP(herr_t ret, H5Awrite, hdf5_active, attr, type, buf);
    if (ret >= 0) h5_attr(C_H5Awrite, attr, type, buf, t1, now_ns());
    return ret;
}

/* A reader's attribute calls (AMReX's restart: H5Aopen, H5Aread, H5Aclose): traced, the
 * open names the attribute as a create does, the read adds the memory type and the value
 * read, as an H5Awrite's. */
hid_t H5Aopen(hid_t obj, const char *name, hid_t aapl) {
    WRAP(hid_t id, H5Aopen, hdf5_active, obj, name, aapl);
    if (id >= 0) h5_attr(C_H5Aopen, id, -1, NULL, t1, now_ns());
    return id;
}
herr_t H5Aread(hid_t attr, hid_t type, void *buf) {
    WRAP(herr_t ret, H5Aread, hdf5_active, attr, type, buf);
    if (ret >= 0) h5_attr(C_H5Aread, attr, type, buf, t1, now_ns());
    return ret;
}

/* link_json is "object":LINK,"target":TARGET[,"target_file":FILE] for the trace of a link's
 * creation (capture's links): LINK the new link's path (name under loc's path, or name
 * when absolute), TARGET a hard link's object path (target under tloc's) or the path a
 * soft or external link stores, FILE an external link's file. */
static char *link_json(hid_t loc, const char *name, hid_t tloc, const char *target, const char *tfile) {
    struct quiet q;
    quiet_on(&q);
    char at[1024], tat[1024] = "";
    ssize_t n = name && name[0] == '/' ? 0 : h5.Iget_name(loc, at, sizeof at);
    if (n < 0 || (size_t)n >= sizeof at) n = 0;
    at[n] = 0;
    if (tloc >= 0 && target && target[0] != '/') {
        ssize_t m = h5.Iget_name(tloc, tat, sizeof tat);
        if (m < 0 || (size_t)m >= sizeof tat) m = 0;
        tat[m] = 0;
    }
    quiet_off(&q);
    struct jb b = {0};
    char path[2200];
    snprintf(path, sizeof path, "%s%s%s", strcmp(at, "/") == 0 ? "" : at, name && name[0] == '/' ? "" : "/", name ? name : "");
    jb_printf(&b, "\"object\":");
    jb_str(&b, path);
    snprintf(path, sizeof path, "%s%s%s", strcmp(tat, "/") == 0 ? "" : tat, tat[0] ? "/" : "", target ? target : "");
    jb_printf(&b, ",\"target\":");
    jb_str(&b, path);
    if (tfile) {
        jb_printf(&b, ",\"target_file\":");
        jb_str(&b, tfile);
    }
    return jb_done(&b);
}

/* link_made counts a link's creation at loc (ret its result); traced, extra (owned) is its
 * event's link_json. */
static herr_t link_made(int call, herr_t ret, hid_t loc, int64_t t1, char *extra) {
    int64_t t2 = now_ns();
    if (ret < 0) {
        free(extra);
        return ret;
    }
    h5_other_extra(call, loc, t1, t2, extra);
    return ret;
}

herr_t H5Lcreate_hard(hid_t cur_loc, const char *cur_name, hid_t dst_loc, const char *dst_name, hid_t lcpl, hid_t lapl) {
    WRAP(herr_t ret, H5Lcreate_hard, hdf5_active, cur_loc, cur_name, dst_loc, dst_name, lcpl, lapl);
    hid_t loc = dst_loc == H5L_SAME_LOC ? cur_loc : dst_loc, tloc = cur_loc == H5L_SAME_LOC ? dst_loc : cur_loc;
    inside++;
    char *extra = trace_on && ret >= 0 ? link_json(loc, dst_name, tloc, cur_name, NULL) : NULL;
    inside--;
    return link_made(C_H5Lcreate_hard, ret, loc, t1, extra);
}

herr_t H5Lcreate_soft(const char *target, hid_t loc, const char *name, hid_t lcpl, hid_t lapl) {
    WRAP(herr_t ret, H5Lcreate_soft, hdf5_active, target, loc, name, lcpl, lapl);
    inside++;
    char *extra = trace_on && ret >= 0 ? link_json(loc, name, -1, target, NULL) : NULL;
    inside--;
    return link_made(C_H5Lcreate_soft, ret, loc, t1, extra);
}

herr_t H5Lcreate_external(const char *file, const char *obj, hid_t loc, const char *name, hid_t lcpl, hid_t lapl) {
    WRAP(herr_t ret, H5Lcreate_external, hdf5_active, file, obj, loc, name, lcpl, lapl);
    inside++;
    char *extra = trace_on && ret >= 0 ? link_json(loc, name, -1, obj, file) : NULL;
    inside--;
    return link_made(C_H5Lcreate_external, ret, loc, t1, extra);
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
/* H5Rcreate (the 1.8 API's hobj_ref_t and hdset_reg_ref_t, kept in 1.12 and later) traces,
 * for capture's reference attributes and datasets, "object": the referenced object's path,
 * "target": that path, or for a region reference the path with the bounding box of the
 * selection as [START:END,...] (END exclusive) and "box":false when the selection is not
 * that box whole, and "ref": the reference's bytes in hex, which a later write of the
 * reference carries. The event is the file record of loc's. */
herr_t H5Rcreate(void *ref, hid_t loc, const char *name, H5R_type_t type, hid_t space) {
    WRAP(herr_t ret, H5Rcreate, hdf5_active, ref, loc, name, type, space);
    char *extra = NULL;
    if (trace_on && ret >= 0 && ref && (type == H5R_OBJECT || type == H5R_DATASET_REGION)) {
        inside++;
        struct quiet q;
        quiet_on(&q);
        char at[1024];
        ssize_t n = name && name[0] == '/' ? 0 : h5.Iget_name(loc, at, sizeof at);
        if (n < 0 || (size_t)n >= sizeof at) n = 0;
        at[n] = 0;
        char path[2200];
        if (!name || strcmp(name, ".") == 0) snprintf(path, sizeof path, "%s", at[0] ? at : "/");
        else snprintf(path, sizeof path, "%s%s%s", strcmp(at, "/") == 0 ? "" : at, name[0] == '/' ? "" : "/", name);
        struct jb b = {0};
        jb_printf(&b, "\"object\":");
        jb_str(&b, path);
        int box = 1;
        if (type == H5R_DATASET_REGION) {
            hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
            int nd = h5.Sget_simple_extent_ndims(space);
            char sel[1024] = "";
            size_t used = 0;
            if (nd > 0 && nd <= H5S_MAX_RANK && h5.Sget_select_bounds(space, lo, hi) >= 0) {
                hssize_t np = h5.Sget_select_npoints(space);
                hsize_t boxn = 1;
                for (int i = 0; i < nd && used < sizeof sel; i++) {
                    boxn *= hi[i] - lo[i] + 1;
                    used += (size_t)snprintf(sel + used, sizeof sel - used, "%s%llu:%llu", i ? "," : "[",
                                             (unsigned long long)lo[i], (unsigned long long)hi[i] + 1);
                }
                if (used < sizeof sel) snprintf(sel + used, sizeof sel - used, "]");
                box = np >= 0 && (hsize_t)np == boxn;
            }
            strncat(path, sel, sizeof path - strlen(path) - 1);
        }
        quiet_off(&q);
        jb_printf(&b, ",\"target\":");
        jb_str(&b, path);
        if (!box) jb_printf(&b, ",\"box\":false");
        jb_printf(&b, ",\"ref\":");
        jb_hex(&b, ref, type == H5R_OBJECT ? sizeof(hobj_ref_t) : sizeof(hdset_reg_ref_t));
        extra = jb_done(&b);
        inside--;
    }
    if (ret < 0) {
        free(extra);
        return ret;
    }
    h5_other_extra(C_H5Rcreate, loc, t1, now_ns(), extra);
    return ret;
}
#endif
