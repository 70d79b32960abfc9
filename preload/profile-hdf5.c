/*
 * profile-hdf5.c: what libh5proxy-profile.so's H5F and H5D modules (profile-h5f.c,
 * profile-h5d.c) share: HDF5's helpers resolved and the program's HDF5 checked against the
 * build's on its first HDF5 call, files' names, identifiers' reference counts, and the
 * description of datatypes the records' infos and the trace carry; and the close that ends
 * a file's or a dataset's record.
 */
#include "profile.h"

/* the helpers the library calls: HDF5's own, found in the global scope or, where the
 * program loaded libhdf5 RTLD_LOCAL (h5py), in the scope of the object that loaded it */
#define HCALL(f) ((__typeof__(f) *)sym_default(#f))

struct h5fns h5;

/* h5check guards the one-time HDF5 check: never held with lock, since HDF5's own lock may be
 * taken inside it and a thread inside HDF5 may be waiting for lock (in a pwrite). */
static pthread_mutex_t h5check = PTHREAD_MUTEX_INITIALIZER;
static int hdf5_checked, hdf5_ok = 1;


/* hdf5_active resolves HDF5's helpers and checks the program's HDF5 against the build's on
 * the first HDF5 call; a mismatch is reported once and HDF5 calls then pass through. */
int hdf5_active(void) {
    if (!active()) return 0;
    if (hdf5_checked) return hdf5_ok;
    pthread_mutex_lock(&h5check);
    if (!hdf5_checked) {
        inside++;
#define R(field, name) h5.field = HCALL(name)
        R(get_libversion, H5get_libversion);
        R(Fget_name, H5Fget_name);
        R(Iget_name, H5Iget_name);
        R(Iget_ref, H5Iget_ref);
        R(Dget_space, H5Dget_space);
        R(Dget_type, H5Dget_type);
        R(Dget_create_plist, H5Dget_create_plist);
        R(Sget_simple_extent_ndims, H5Sget_simple_extent_ndims);
        R(Sget_simple_extent_dims, H5Sget_simple_extent_dims);
        R(Sget_simple_extent_npoints, H5Sget_simple_extent_npoints);
        R(Sget_select_npoints, H5Sget_select_npoints);
        R(Sget_select_type, H5Sget_select_type);
        R(Sis_regular_hyperslab, H5Sis_regular_hyperslab);
        R(Sget_regular_hyperslab, H5Sget_regular_hyperslab);
        R(Sclose, H5Sclose);
        R(Tget_size, H5Tget_size);
        R(Tget_class, H5Tget_class);
        R(Tget_sign, H5Tget_sign);
        R(Pget_filter2, H5Pget_filter2);
        R(Tclose, H5Tclose);
        R(Pget_layout, H5Pget_layout);
        R(Pget_chunk, H5Pget_chunk);
        R(Pget_nfilters, H5Pget_nfilters);
        R(Pget_driver, H5Pget_driver);
        R(Pget_alignment, H5Pget_alignment);
        R(Pget_all_coll_metadata_ops, H5Pget_all_coll_metadata_ops);
        R(Pget_coll_metadata_write, H5Pget_coll_metadata_write);
        R(Pget_dxpl_mpio, H5Pget_dxpl_mpio);
        R(Pclose, H5Pclose);
        R(FD_mpio_init, H5FD_mpio_init);
        R(Eget_auto2, H5Eget_auto2);
        R(Eset_auto2, H5Eset_auto2);
        R(Sget_select_hyper_nblocks, H5Sget_select_hyper_nblocks);
        R(Sget_select_hyper_blocklist, H5Sget_select_hyper_blocklist);
        R(Sget_select_bounds, H5Sget_select_bounds);
        R(Pget_virtual_count, H5Pget_virtual_count);
        R(Pget_virtual_vspace, H5Pget_virtual_vspace);
        R(Pget_virtual_srcspace, H5Pget_virtual_srcspace);
        R(Pget_virtual_filename, H5Pget_virtual_filename);
        R(Pget_virtual_dsetname, H5Pget_virtual_dsetname);
        R(Aget_name, H5Aget_name);
        R(Aget_space, H5Aget_space);
        R(Aget_type, H5Aget_type);
        R(Tis_variable_str, H5Tis_variable_str);
        R(Tget_strpad, H5Tget_strpad);
        R(Tget_cset, H5Tget_cset);
        R(Pget_fill_time, H5Pget_fill_time);
        R(Pget_alloc_time, H5Pget_alloc_time);
        R(Pfill_value_defined, H5Pfill_value_defined);
        R(Pget_fill_value, H5Pget_fill_value);
        R(Pget_libver_bounds, H5Pget_libver_bounds);
        R(Pget_fapl_mpio, H5Pget_fapl_mpio);
        R(Tget_nmembers, H5Tget_nmembers);
        R(Tget_member_name, H5Tget_member_name);
        R(Tget_member_type, H5Tget_member_type);
        R(Tget_member_offset, H5Tget_member_offset);
        R(free_memory, H5free_memory);
        R(Fget_create_plist, H5Fget_create_plist);
        R(Gget_create_plist, H5Gget_create_plist);
        R(Pget_link_creation_order, H5Pget_link_creation_order);
        R(Pget_attr_creation_order, H5Pget_attr_creation_order);
        R(Pget_obj_track_times, H5Pget_obj_track_times);
        R(Tget_order, H5Tget_order);
        R(Tget_super, H5Tget_super);
        R(Tget_array_ndims, H5Tget_array_ndims);
        R(Tget_array_dims2, H5Tget_array_dims2);
        R(Tget_tag, H5Tget_tag);
        R(Tget_member_value, H5Tget_member_value);
#undef R
        unsigned maj = 0, min = 0, rel = 0;
        int complete = 1;
        for (size_t i = 0; i < sizeof h5 / sizeof(void *); i++)
            if (!((void **)&h5)[i]) complete = 0;
        if (complete) h5.get_libversion(&maj, &min, &rel);
        snprintf(hdf5_version, sizeof hdf5_version, "%u.%u.%u", maj, min, rel);
        if (!complete || maj != EXPECT_HDF5_MAJOR || min != EXPECT_HDF5_MINOR) {
            hdf5_ok = 0;
            say("h5proxy-profile: this program's HDF5 is %s, not the %d.%d.%d (parallel) the profiler was "
                "built with: HDF5 calls are not recorded (rebuild libh5proxy-profile.so against this HDF5)\n",
                complete ? hdf5_version : "missing parallel functions", EXPECT_HDF5_MAJOR, EXPECT_HDF5_MINOR,
                H5_VERS_RELEASE);
        }
        hdf5_checked = 1;
        inside--;
    }
    pthread_mutex_unlock(&h5check);
    return hdf5_ok;
}

/* file_name writes the absolute name of the file identifier id is in. */
void file_name(hid_t id, char *out, size_t len) {
    char name[PATH_MAX];
    ssize_t n = h5.Fget_name(id, name, sizeof name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<unknown>");
    absolute(name, out, len);
}

/* refs is the identifier's reference count before a close: H5Iget_file_id returns the
 * open file's own identifier with one more reference (and H5Iinc_ref adds one), so a close
 * that leaves references behind only releases one. */
static int refs(hid_t id) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    int n = h5.Iget_ref(id);
    quiet_off(&q);
    inside--;
    return n;
}

/* h5_close_record closes id with next (H5Fclose, H5Dclose) and, when the close releases the
 * identifier for good, ends its record in map: the close's first start and last end into F
 * counters start and end, its time into ftime. A reference taken with H5Iget_file_id (or
 * H5Iinc_ref) and released by a close leaves the object open: its record goes on. */
herr_t h5_close_record(int call, herr_t (*next)(hid_t), hid_t id, struct hmap *map, int start, int end, int ftime) {
    int n = refs(id);
    int64_t t1 = now_ns();
    herr_t ret = next(id);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = ret >= 0 && n <= 1 ? hm_del(map, (uint64_t)id) : NULL;
    if (r) count_meta(r, call, start, end, ftime, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

/* members_str writes `,"PREFIXmembers":[[name,class,size,sign,offset],...]` for a compound
 * datatype of at most 64 members (capture rebuilds it as a description's compound type;
 * sign is -1 but for integers), or "" for other types and longer lists. */
void members_str(hid_t t, const char *prefix, char *out, size_t len) {
    out[0] = 0;
    if (h5.Tget_class(t) != H5T_COMPOUND) return;
    int n = h5.Tget_nmembers(t);
    if (n <= 0 || n > 64) return;
    size_t o = (size_t)snprintf(out, len, ",\"%smembers\":[", prefix);
    for (int i = 0; i < n && o < len; i++) {
        char *name = h5.Tget_member_name(t, (unsigned)i);
        hid_t mt = h5.Tget_member_type(t, (unsigned)i);
        int cls = mt >= 0 ? (int)h5.Tget_class(mt) : -1;
        int sign = cls == H5T_INTEGER ? (int)h5.Tget_sign(mt) : -1;
        size_t size = mt >= 0 ? h5.Tget_size(mt) : 0;
        if (mt >= 0) h5.Tclose(mt);
        char safe[256] = "";
        for (size_t k = 0; name && name[k] && k < sizeof safe - 1; k++)
            safe[k] = name[k] == '"' || name[k] == '\\' || (unsigned char)name[k] < 0x20 ? '_' : name[k], safe[k + 1] = 0;
        if (name) h5.free_memory(name);
        o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s[\"%s\",%d,%zu,%d,%zu]", i ? "," : "", safe, cls, size, sign,
                              h5.Tget_member_offset(t, (unsigned)i));
    }
    if (o + 2 >= len) {
        out[0] = 0; /* too long for the buffer: left out */
        return;
    }
    snprintf(out + o, len - o, "]");
}

/* type_json appends a datatype's class, size, sign (integers), and for strings the padding,
 * character set and whether it is variable-length, as members named PREFIX_class ... */
void type_json(struct jb *b, const char *prefix, hid_t t) {
    int cls = (int)h5.Tget_class(t);
    jb_printf(b, "\"%sclass\":%d,\"%ssize\":%zu", prefix, cls, prefix, h5.Tget_size(t));
    if (cls == H5T_INTEGER) jb_printf(b, ",\"%ssign\":%d", prefix, (int)h5.Tget_sign(t));
    if (cls == H5T_STRING)
        jb_printf(b, ",\"%sstr_pad\":%d,\"%scset\":%d,\"%svlen\":%s", prefix, (int)h5.Tget_strpad(t), prefix,
                  (int)h5.Tget_cset(t), prefix, h5.Tis_variable_str(t) > 0 ? "true" : "false");
    if (cls == H5T_COMPOUND) {
        char m[4096];
        members_str(t, prefix, m, sizeof m);
        jb_printf(b, "%s", m);
    }
    if (type_tree_needed(t)) {
        jb_printf(b, ",\"%stree\":", prefix);
        type_tree(b, t, 0);
    }
}

/* TREE_DEPTH bounds type_tree's nesting (members, elements, bases), as TREE_MAX the
 * members and names of one level: deeper levels are traced as class and size alone. */
#define TREE_DEPTH 8
#define TREE_MAX 256

/* type_tree_needed reports whether t holds what the flat PREFIX_class, _size, _sign and
 * _members fields cannot say: a big-endian number, an enumeration, an array or an opaque
 * type, at any depth (a compound's member, an array's element). Asked at H5Dcreate,
 * H5Dopen and H5Acreate only, never per transfer. */
int type_tree_needed(hid_t t) {
    int cls = (int)h5.Tget_class(t);
    switch (cls) {
    case H5T_ENUM:
    case H5T_ARRAY:
    case H5T_OPAQUE:
        return 1;
    case H5T_INTEGER:
    case H5T_FLOAT:
        return h5.Tget_order(t) == H5T_ORDER_BE;
    case H5T_COMPOUND: {
        int n = h5.Tget_nmembers(t), need = 0;
        for (int i = 0; i < n && i < TREE_MAX && !need; i++) {
            hid_t mt = h5.Tget_member_type(t, (unsigned)i);
            if (mt < 0) continue;
            need = type_tree_needed(mt);
            h5.Tclose(mt);
        }
        return need;
    }
    }
    return 0;
}

/* type_tree appends datatype t as a JSON tree, for capture to rebuild any type a
 * description can say: {"class":C,"size":N} and, by class, "sign" (integers), "order" 1
 * for big-endian (integers, floats), "pad", "cset", "vlen" (strings), "members" [{name,
 * offset, type}] (compounds), "enum" [[name, value]] with "base" (enumerations; values
 * as signed 64-bit integers of the base's order), "dims" with "base" (arrays), "tag"
 * (opaque). Names are JSON strings. */
void type_tree(struct jb *b, hid_t t, int depth) {
    int cls = (int)h5.Tget_class(t);
    size_t size = h5.Tget_size(t);
    jb_printf(b, "{\"class\":%d,\"size\":%zu", cls, size);
    if (depth >= TREE_DEPTH) {
        jb_printf(b, "}");
        return;
    }
    switch (cls) {
    case H5T_INTEGER:
        jb_printf(b, ",\"sign\":%d", (int)h5.Tget_sign(t));
        /* fallthrough */
    case H5T_FLOAT:
        if (h5.Tget_order(t) == H5T_ORDER_BE) jb_printf(b, ",\"order\":1");
        break;
    case H5T_STRING:
        jb_printf(b, ",\"pad\":%d,\"cset\":%d,\"vlen\":%s", (int)h5.Tget_strpad(t), (int)h5.Tget_cset(t),
                  h5.Tis_variable_str(t) > 0 ? "true" : "false");
        break;
    case H5T_OPAQUE: {
        char *tag = h5.Tget_tag(t);
        if (tag) {
            jb_printf(b, ",\"tag\":");
            jb_str(b, tag);
            h5.free_memory(tag);
        }
        break;
    }
    case H5T_COMPOUND: {
        int n = h5.Tget_nmembers(t);
        jb_printf(b, ",\"members\":[");
        for (int i = 0; i < n && i < TREE_MAX; i++) {
            char *name = h5.Tget_member_name(t, (unsigned)i);
            hid_t mt = h5.Tget_member_type(t, (unsigned)i);
            jb_printf(b, "%s{\"name\":", i ? "," : "");
            jb_str(b, name ? name : "");
            jb_printf(b, ",\"offset\":%zu,\"type\":", h5.Tget_member_offset(t, (unsigned)i));
            if (mt >= 0) {
                type_tree(b, mt, depth + 1);
                h5.Tclose(mt);
            } else
                jb_printf(b, "null");
            jb_printf(b, "}");
            if (name) h5.free_memory(name);
        }
        jb_printf(b, "]");
        break;
    }
    case H5T_ENUM:
    case H5T_ARRAY: {
        hid_t base = h5.Tget_super(t);
        if (base < 0) break;
        if (cls == H5T_ARRAY) {
            int nd = h5.Tget_array_ndims(t);
            hsize_t dims[H5S_MAX_RANK] = {0};
            if (nd > 0 && nd <= H5S_MAX_RANK && h5.Tget_array_dims2(t, dims) >= 0) {
                jb_printf(b, ",\"dims\":[");
                for (int i = 0; i < nd; i++) jb_printf(b, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
                jb_printf(b, "]");
            }
        } else {
            int n = h5.Tget_nmembers(t), be = h5.Tget_order(base) == H5T_ORDER_BE, sgn = h5.Tget_sign(base) == H5T_SGN_2;
            size_t bs = h5.Tget_size(base);
            jb_printf(b, ",\"enum\":[");
            for (int i = 0; i < n && i < TREE_MAX && bs <= 8; i++) {
                unsigned char v[8] = {0};
                char *name = h5.Tget_member_name(t, (unsigned)i);
                h5.Tget_member_value(t, (unsigned)i, v);
                unsigned long long u = 0;
                for (size_t k = 0; k < bs; k++) u |= (unsigned long long)v[be ? bs - 1 - k : k] << (8 * k);
                if (sgn && bs < 8 && (u >> (8 * bs - 1)) & 1) u |= ~0ULL << (8 * bs);
                jb_printf(b, "%s[", i ? "," : "");
                jb_str(b, name ? name : "");
                jb_printf(b, ",%lld]", (long long)u);
                if (name) h5.free_memory(name);
            }
            jb_printf(b, "]");
        }
        jb_printf(b, ",\"base\":");
        type_tree(b, base, depth + 1);
        h5.Tclose(base);
        break;
    }
    }
    jb_printf(b, "}");
}
