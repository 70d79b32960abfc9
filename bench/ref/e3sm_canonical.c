/* e3sm_canonical: the HDF5 call sequence of E3SM-IO's canonical HDF5 write (e3sm_io -a hdf5
 * -x canonical, no -u), written from the facts of E3SM-IO's src/drivers/e3sm_io_driver_hdf5.cpp
 * (create, def_dim, def_var, put_att, expand_rec_size, put_vara, put_varn -> varn_expand,
 * wait, close) and src/cases/var_wr_case.cpp (the order of the phases and their timers).
 *
 *   mpirun -np 2 e3sm_canonical [--sorted] MAP.h5 OUT.h5 HEADER...
 *   e3sm_canonical --dims MAP.h5     print the map's process count and D<k>.dims, one per line
 *
 * Request order: E3SM-IO's read_decomp (src/read_decomp.cpp) keeps a rank's requests in map
 * order (the fill_starts[p] first requests of each map process it takes) since its pull
 * request 165 (October 2022), which h5bench's E3SM-IO includes (it ships map_f_case_16p.h5,
 * introduced by that change); the earlier read_decomp sorted them by offset and coalesced
 * adjacent ones (breaking at the start of a row of the last dimension), which --sorted does. The union selections differ in order and
 * in size accordingly (the 16p F map's D2/D3 requests of length 1 coalesce into runs).
 *
 * MAP.h5 is a decomposition map in E3SM-IO's HDF5 form (root attributes -DIM_decomp_nprocs
 * and -DIM_num_decomp, attributes D<k>.dims, datasets D<k>.nreqs, D<k>.fill_starts,
 * D<k>.offsets, D<k>.lengths). Each HEADER describes one history file (written in the order
 * given) as text lines:
 *
 *   file <hist> <records>                 hist: h0, h1 or - (G: OUT itself)
 *   gattr <name> <type> <n> <hex bytes>   global attribute
 *   dim <name> <len>                      0: the unlimited (record) dimension
 *   var <name> <type> <decomp> <record> <ndims> <len>...   (lengths without the record one)
 *   attr <name> <type> <n> <hex bytes>    attribute of the last var
 *
 * type is f64 f32 i32 i64 u64 i8 u8 char (H5T_NATIVE_CHAR) or str (a NUL-terminated C string
 * of n bytes, scalar); decomp is 1-based, 0 for variables not partitioned. bench/fidelity writes
 * these files from h5proxy's patterns/e3sm, so both write the same variables.
 *
 * The sequence, per history file (E3SM-IO's var_wr_case):
 *   barrier, end-to-end timer on
 *   create: file access list with H5Pset_libver_bounds(LATEST, LATEST), MPI-IO on the world
 *     communicator with set_info's hints (romio_cb_write=enable, romio_no_indep_rw=true,
 *     nc_var_align_size=1, nc_in_place_swap=enable), H5Pset_coll_metadata_write, the metadata cache from H5Pget_mdc_config with
 *     max 128 MiB, min 32 MiB, initial 32 MiB (set_initial_size), incr and decr modes off
 *     (evictions stay on); H5Fcreate(TRUNC); H5Pget_fapl_mpio                 [open/create]
 *   barrier; define: global attributes, then one scalar H5T_NATIVE_HSIZE attribute -DIM_<name>
 *     per dimension (H5S_UNLIMITED for time), then per variable its dataset and its
 *     attributes. Dataset creation: H5Pset_fill_value(0, NULL), fill time NEVER, alloc time
 *     DEFAULT; record variables chunked [1, dims...] with extent [0, dims...] and max
 *     [UNLIMITED, dims...]; others contiguous. Attributes: text = scalar space, H5T_C_S1 of
 *     len+1 bytes, NULLTERM; numbers = 1-D of n; H5Aexists then H5Acreate2, H5Awrite
 *                                                                            [define variables]
 *   barrier; write buffers allocated and filled: one allocation carved by kind, as E3SM-IO
 *     (see write_history)                                                   [I/O preparing]
 *   barrier; first the fixed-size variables in definition order (E3SM-IO's commit cd9d8c7),
 *     then per record r: expand_rec_size(r+1): per dataset in definition order
 *     H5Dget_space + H5Sget_simple_extent_dims and, when its first dimension is unlimited and
 *     shorter, H5Dset_extent; then the record variables in definition order; each write:
 *       partitioned: varn_expand: H5Dget_space; the union of one hyperslab per request with a
 *         nonzero count, start [r, row..., col], stride NULL, count ones, block [1, 1..., len],
 *         the first with H5S_SELECT_SET and the others H5S_SELECT_OR; memory space 1-D of the
 *         element count, or H5S_NULL plus H5Sselect_none for a rank with no request; one
 *         collective H5Dwrite (every rank calls it)
 *       not partitioned: rank 0 only, put_vara: H5Dget_space, memory space of the block, one
 *         H5S_SELECT_SET hyperslab (record [r, 0...] x [1, dims...]; fixed: the whole
 *         variable, no selection for scalars), one independent H5Dwrite
 *                                                                  [posting write requests]
 *   barrier; wait: nothing for the plain HDF5 driver (no H5Fflush)          [write flushing]
 *   barrier; close: H5Dclose of every dataset, H5Fclose                     [close]
 *   end-to-end timer off
 * Rank 0 prints E3SM-IO's min/max timer lines per file (plus the share of the posting time
 * spent building union selections and in the collective H5Dwrite calls) and the sum of the
 * end-to-end maxima. */
#include "ref_common.h"

#include <ctype.h>
#include <stdint.h>

#define MAXD 8

typedef struct {
    char name[128];
    hid_t type; /* memory = file type */
    int str;    /* string attribute */
    size_t n;   /* elements, or bytes of a string */
    unsigned char *val;
} attr_t;

typedef struct {
    char name[128];
    hid_t type;
    int decomp, record, ndims;
    hsize_t dims[MAXD]; /* without the record dimension */
    attr_t *attrs;
    int nattrs;
} var_t;

typedef struct {
    char hist[16];
    int records;
    attr_t *gattrs;
    int ngattrs;
    char (*dimnames)[128];
    hsize_t *dimlens;
    int ndims;
    var_t *vars;
    int nvars;
} header_t;

typedef struct {
    int ndims;
    hsize_t dims[MAXD];
    long long nreq; /* this rank's requests */
    long long *off, *len;
} decomp_t;

/* type_of maps a header type word to its HDF5 native type; str reports the string type. */
static hid_t type_of(const char *s, int *str)
{
    static const char *words[] = {"f64", "f32", "i32", "i64", "u64", "i8", "u8", "char", "str"};
    const hid_t types[] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT, H5T_NATIVE_INT,   H5T_NATIVE_INT64, H5T_NATIVE_UINT64,
                           H5T_NATIVE_INT8,   H5T_NATIVE_UINT8, H5T_NATIVE_CHAR, H5T_C_S1};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(s, words[i]) == 0) {
            *str = types[i] == H5T_C_S1;
            return types[i];
        }
    *str = 0;
    return -1;
}

static void parse_attr(const char *file, int line, char *rest, attr_t *a)
{
    char tname[16], *hex = NULL;
    int used = 0;
    if (sscanf(rest, "%127s %15s %zu %n", a->name, tname, &a->n, &used) != 3)
        ref_die("%s:%d: attribute line wants NAME TYPE N HEX", file, line);
    hex = rest + used;
    if ((a->type = type_of(tname, &a->str)) < 0)
        ref_die("%s:%d: unknown type %s", file, line, tname);
    size_t bytes = a->str ? a->n : a->n * H5Tget_size(a->type);
    size_t hexlen = strcspn(hex, " \n");
    if (hexlen != 2 * bytes)
        ref_die("%s:%d: attribute %s: %zu hex digits for %zu bytes", file, line, a->name, hexlen, bytes);
    a->val = malloc(bytes + 1);
    for (size_t i = 0; i < bytes; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            ref_die("%s:%d: attribute %s: bad hex", file, line, a->name);
        a->val[i] = (unsigned char)v;
    }
}

/* read_header parses one HEADER file; every bad line aborts naming file and line. */
static void read_header(const char *path, header_t *h)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        ref_die("cannot open header %s", path);
    memset(h, 0, sizeof *h);
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    int ln = 0, have_file = 0;
    while (fgets(line, (int)cap, fp) != NULL) {
        ln++;
        char kw[16];
        int used = 0;
        if (sscanf(line, "%15s %n", kw, &used) != 1)
            continue;
        char *rest = line + used;
        if (strcmp(kw, "file") == 0) {
            if (sscanf(rest, "%15s %d", h->hist, &h->records) != 2 || h->records < 1)
                ref_die("%s:%d: file line wants HIST RECORDS", path, ln);
            have_file = 1;
        } else if (strcmp(kw, "gattr") == 0) {
            h->gattrs = realloc(h->gattrs, (size_t)(h->ngattrs + 1) * sizeof(attr_t));
            parse_attr(path, ln, rest, &h->gattrs[h->ngattrs++]);
        } else if (strcmp(kw, "dim") == 0) {
            h->dimnames = realloc(h->dimnames, (size_t)(h->ndims + 1) * sizeof *h->dimnames);
            h->dimlens = realloc(h->dimlens, (size_t)(h->ndims + 1) * sizeof(hsize_t));
            unsigned long long len;
            if (sscanf(rest, "%127s %llu", h->dimnames[h->ndims], &len) != 2)
                ref_die("%s:%d: dim line wants NAME LEN", path, ln);
            h->dimlens[h->ndims++] = len == 0 ? H5S_UNLIMITED : (hsize_t)len;
        } else if (strcmp(kw, "var") == 0) {
            h->vars = realloc(h->vars, (size_t)(h->nvars + 1) * sizeof(var_t));
            var_t *v = &h->vars[h->nvars++];
            memset(v, 0, sizeof *v);
            char tname[16];
            int str, n = 0;
            if (sscanf(rest, "%127s %15s %d %d %d %n", v->name, tname, &v->decomp, &v->record, &v->ndims, &n) != 5 ||
                v->ndims < 0 || v->ndims >= MAXD)
                ref_die("%s:%d: var line wants NAME TYPE DECOMP RECORD NDIMS LEN...", path, ln);
            if ((v->type = type_of(tname, &str)) < 0 || str)
                ref_die("%s:%d: variable %s: bad type %s", path, ln, v->name, tname);
            char *p = rest + n;
            for (int d = 0; d < v->ndims; d++) {
                char *end;
                unsigned long long len = strtoull(p, &end, 10);
                if (end == p || len == 0)
                    ref_die("%s:%d: variable %s: bad length", path, ln, v->name);
                v->dims[d] = (hsize_t)len;
                p = end;
            }
        } else if (strcmp(kw, "attr") == 0) {
            if (h->nvars == 0)
                ref_die("%s:%d: attr before any var", path, ln);
            var_t *v = &h->vars[h->nvars - 1];
            v->attrs = realloc(v->attrs, (size_t)(v->nattrs + 1) * sizeof(attr_t));
            parse_attr(path, ln, rest, &v->attrs[v->nattrs++]);
        } else
            ref_die("%s:%d: unknown line kind %s", path, ln, kw);
    }
    free(line);
    fclose(fp);
    if (!have_file)
        ref_die("%s: no file line", path);
}

static int read_ints(hid_t f, const char *name, int **out)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        ref_die("map: no dataset %s", name);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    REF_CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out));
    H5Sclose(s);
    H5Dclose(d);
    return (int)n;
}

static unsigned long long read_u64_attr(hid_t f, const char *name)
{
    unsigned long long v = 0;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0)
        ref_die("map: no attribute %s", name);
    REF_CHECK(H5Aread(a, H5T_NATIVE_ULLONG, &v));
    H5Aclose(a);
    return v;
}

/* read_map loads every decomposition and keeps this rank's requests: map processes
 * [start, start+count), count = P/R plus one for the first P%R ranks, each process's
 * fill_starts[p] first requests, in map order. */
typedef struct {
    long long off, len;
} req_t;

static int req_cmp(const void *a, const void *b)
{
    long long x = ((const req_t *)a)->off, y = ((const req_t *)b)->off;
    return x < y ? -1 : x > y;
}

/* sort_coalesce is the earlier read_decomp's ordering: by offset, adjacent requests merged
 * unless the next one starts a row of the last dimension. */
static void sort_coalesce(decomp_t *d)
{
    if (d->nreq < 2)
        return;
    req_t *r = malloc((size_t)d->nreq * sizeof(req_t));
    for (long long i = 0; i < d->nreq; i++)
        r[i] = (req_t){d->off[i], d->len[i]};
    qsort(r, (size_t)d->nreq, sizeof(req_t), req_cmp);
    long long row = (long long)d->dims[d->ndims - 1], j = 0;
    for (long long i = 1; i < d->nreq; i++) {
        if (r[i].off % row == 0 || r[i].off > r[j].off + r[j].len)
            r[++j] = r[i];
        else
            r[j].len += r[i].len;
    }
    d->nreq = j + 1;
    for (long long i = 0; i < d->nreq; i++) {
        d->off[i] = r[i].off;
        d->len[i] = r[i].len;
    }
    free(r);
}

static decomp_t *read_map(const char *path, int rank, int nranks, int *ndecomp, int *nprocs)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        ref_die("cannot open map %s", path);
    int np = (int)read_u64_attr(f, "-DIM_decomp_nprocs");
    *nprocs = np;
    *ndecomp = (int)read_u64_attr(f, "-DIM_num_decomp");
    decomp_t *ds = calloc((size_t)*ndecomp, sizeof(decomp_t));
    int count = rank < np ? np / nranks + (rank < np % nranks ? 1 : 0) : 0;
    int start = rank < np % nranks ? rank * (np / nranks + 1) : (np % nranks) * (np / nranks + 1) + (rank - np % nranks) * (np / nranks);
    if (rank >= np)
        start = np;
    char name[64];
    for (int k = 0; k < *ndecomp; k++) {
        decomp_t *d = &ds[k];
        snprintf(name, sizeof name, "D%d.dims", k + 1);
        hid_t a = H5Aopen(f, name, H5P_DEFAULT);
        if (a < 0)
            ref_die("map %s: no attribute %s", path, name);
        hid_t s = H5Aget_space(a);
        d->ndims = (int)H5Sget_simple_extent_npoints(s);
        if (d->ndims < 1 || d->ndims > MAXD - 1)
            ref_die("map %s: %s has %d entries", path, name, d->ndims);
        int dims[MAXD];
        REF_CHECK(H5Aread(a, H5T_NATIVE_INT, dims));
        for (int i = 0; i < d->ndims; i++)
            d->dims[i] = (hsize_t)dims[i];
        H5Sclose(s);
        H5Aclose(a);
        int *nreqs, *fill, *off, *len;
        snprintf(name, sizeof name, "D%d.nreqs", k + 1);
        if (read_ints(f, name, &nreqs) != np)
            ref_die("map %s: %s does not have %d entries", path, name, np);
        snprintf(name, sizeof name, "D%d.fill_starts", k + 1);
        if (read_ints(f, name, &fill) != np)
            ref_die("map %s: %s does not have %d entries", path, name, np);
        snprintf(name, sizeof name, "D%d.offsets", k + 1);
        int noff = read_ints(f, name, &off);
        snprintf(name, sizeof name, "D%d.lengths", k + 1);
        if (read_ints(f, name, &len) != noff)
            ref_die("map %s: D%d offsets and lengths differ in length", path, k + 1);
        long long first = 0;
        for (int p = 0; p < start; p++)
            first += nreqs[p];
        for (int p = start; p < start + count; p++)
            d->nreq += fill[p];
        d->off = malloc((size_t)(d->nreq + 1) * sizeof(long long));
        d->len = malloc((size_t)(d->nreq + 1) * sizeof(long long));
        long long i = 0, at = first;
        for (int p = start; p < start + count; p++) {
            for (int q = 0; q < fill[p]; q++) {
                if (at + q >= noff)
                    ref_die("map %s: D%d requests past the end", path, k + 1);
                d->off[i] = off[at + q];
                d->len[i] = len[at + q];
                i++;
            }
            at += nreqs[p];
        }
        free(nreqs);
        free(fill);
        free(off);
        free(len);
    }
    H5Fclose(f);
    return ds;
}

static void put_att(hid_t loc, const attr_t *a)
{
    hid_t space, type;
    if (a->str) {
        space = H5Screate(H5S_SCALAR);
        type = H5Tcopy(H5T_C_S1);
        REF_CHECK(H5Tset_size(type, a->n));
        REF_CHECK(H5Tset_strpad(type, H5T_STR_NULLTERM));
    } else {
        hsize_t n = a->n;
        space = H5Screate_simple(1, &n, &n);
        type = a->type;
    }
    REF_CHECK(space);
    hid_t id = H5Aexists(loc, a->name) > 0 ? H5Aopen(loc, a->name, H5P_DEFAULT)
                                            : H5Acreate2(loc, a->name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    REF_CHECK(id);
    REF_CHECK(H5Awrite(id, type, a->val));
    H5Aclose(id);
    H5Sclose(space);
    if (a->str)
        H5Tclose(type);
}

/* The kinds of E3SM-IO's write buffers (wr_buf), by the MPI type it writes a variable
 * from: text (MPI_CHAR), int, double, float, long long. Float variables are written from
 * double buffers (REC_ITYPE); E3SM-IO has no float buffer in use but keeps its place. */
enum { K_TXT, K_INT, K_DBL, K_FLT, K_LLD, NK };
static const size_t kind_size[NK] = {1, 4, 8, 4, 8};

static int kind_of(hid_t type)
{
    if (H5Tequal(type, H5T_NATIVE_DOUBLE) > 0 || H5Tequal(type, H5T_NATIVE_FLOAT) > 0)
        return K_DBL;
    if (H5Tequal(type, H5T_NATIVE_INT) > 0)
        return K_INT;
    if (H5Tequal(type, H5T_NATIVE_INT64) > 0 || H5Tequal(type, H5T_NATIVE_UINT64) > 0)
        return K_LLD;
    return K_TXT;
}

static hsize_t var_len(const var_t *v)
{
    hsize_t n = 1;
    for (int d = 0; d < v->ndims; d++)
        n *= v->dims[d];
    return n;
}

static char *history_path(const char *out, const char *hist)
{
    char *p = malloc(strlen(out) + 8);
    if (strcmp(hist, "-") == 0) {
        strcpy(p, out);
        return p;
    }
    const char *ext = strrchr(out, '.');
    if (ext != NULL && (strcmp(ext, ".nc") == 0 || strcmp(ext, ".h5") == 0 || strcmp(ext, ".nc4") == 0 ||
                        strcmp(ext, ".bp") == 0))
        sprintf(p, "%.*s_%s%s", (int)(ext - out), out, hist, ext);
    else
        sprintf(p, "%s_%s", out, hist);
    return p;
}

/* Seconds in selection building and in H5Dwrite, over all variables of a file (E3SM-IO's
 * E3SM_IO_TIMER_HDF5_SEL and E3SM_IO_TIMER_HDF5_WR profiling timers). */
static double t_sel, t_wr;

/* file_space opens a dataset's file space and reads its extent, as both write paths begin. */
static hid_t file_space(hid_t did, hsize_t *dims, int *ndim)
{
    hid_t dsid = H5Dget_space(did);
    REF_CHECK(dsid);
    *ndim = H5Sget_simple_extent_dims(dsid, dims, NULL);
    REF_CHECK(*ndim);
    return dsid;
}

/* account queries the dataset's type size after a write, as E3SM-IO counts its bytes. */
static void account(hid_t did)
{
    hid_t tid = H5Dget_type(did);
    REF_CHECK(tid);
    (void)H5Tget_size(tid);
    H5Tclose(tid);
}

/* varn_expand is E3SM-IO's union path: SET then OR per request, one collective write. */
static void varn_expand(hid_t did, hid_t mtype, const decomp_t *d, int rec, hid_t dxpl, const void *buf)
{
    hsize_t dims[MAXD], start[MAXD], block[MAXD], one[MAXD];
    int ndim;
    hid_t dsid = file_space(did, dims, &ndim);
    for (int j = 0; j < MAXD; j++)
        one[j] = 1;
    H5S_seloper_t op = H5S_SELECT_SET;
    hsize_t total = 0;
    double t0 = MPI_Wtime();
    int lead = rec >= 0 ? 1 : 0;
    for (long long i = 0; i < d->nreq; i++) {
        if (d->len[i] == 0)
            continue;
        hsize_t o = (hsize_t)d->off[i];
        for (int j = d->ndims - 1; j >= 0; j--) {
            start[lead + j] = o % d->dims[j];
            o /= d->dims[j];
            block[lead + j] = 1;
        }
        block[lead + d->ndims - 1] = (hsize_t)d->len[i];
        if (lead) {
            start[0] = (hsize_t)rec;
            block[0] = 1;
        }
        REF_CHECK(H5Sselect_hyperslab(dsid, op, start, NULL, one, block));
        op = H5S_SELECT_OR;
        total += (hsize_t)d->len[i];
    }
    hid_t msid;
    if (total > 0)
        msid = H5Screate_simple(1, &total, NULL);
    else {
        msid = H5Screate(H5S_NULL);
        REF_CHECK(H5Sselect_none(dsid));
    }
    REF_CHECK(msid);
    double t1 = MPI_Wtime();
    REF_CHECK(H5Dwrite(did, mtype, msid, dsid, dxpl, buf));
    double t2 = MPI_Wtime();
    t_sel += t1 - t0;
    t_wr += t2 - t1;
    account(did);
    H5Sclose(dsid);
    H5Sclose(msid);
}

/* put_vara is E3SM-IO's path for variables rank 0 writes alone: independent H5Dwrite. */
static void put_vara(hid_t did, hid_t mtype, const var_t *v, int rec, hid_t dxpl, const void *buf)
{
    hsize_t dims[MAXD], start[MAXD], block[MAXD], one[MAXD];
    int ndim;
    hid_t dsid = file_space(did, dims, &ndim);
    for (int j = 0; j < ndim; j++) {
        one[j] = 1;
        start[j] = 0;
        block[j] = dims[j];
    }
    if (v->record) {
        start[0] = (hsize_t)rec;
        block[0] = 1;
    }
    hid_t msid = H5Screate_simple(ndim, block, NULL);
    REF_CHECK(msid);
    if (ndim > 0)
        REF_CHECK(H5Sselect_hyperslab(dsid, H5S_SELECT_SET, start, NULL, one, block));
    REF_CHECK(H5Dwrite(did, mtype, msid, dsid, dxpl, buf));
    account(did);
    H5Sclose(msid);
    H5Sclose(dsid);
}

enum { T_PRE, T_OPEN, T_DEF, T_POST, T_FLUSH, T_CLOSE, T_E2E, T_SEL, T_WR, NT };
static const char *tnames[NT] = {"Time of I/O preparing          ", "Time of file open/create       ",
                                 "Time of define variables       ", "Time of posting write requests ",
                                 "Time of write flushing         ", "Time of close                  ",
                                 "end-to-end time                ", "  of which union selection      ",
                                 "  of which collective H5Dwrite "};

/* write_history writes one history file; returns the end-to-end time's maximum over ranks. */
static double write_history(const char *out, const header_t *h, const decomp_t *ds, int ndecomp, int rank)
{
    double t[NT] = {0};
    char *path = history_path(out, h->hist);
    for (int i = 0; i < h->nvars; i++)
        if (h->vars[i].decomp > ndecomp)
            ref_die("variable %s uses D%d; the map has %d decompositions", h->vars[i].name, h->vars[i].decomp,
                    ndecomp);
    hid_t dxpl_coll = H5Pcreate(H5P_DATASET_XFER), dxpl_indep = H5Pcreate(H5P_DATASET_XFER);
    REF_CHECK(H5Pset_dxpl_mpio(dxpl_coll, H5FD_MPIO_COLLECTIVE));

    MPI_Barrier(MPI_COMM_WORLD);
    double e2e = MPI_Wtime(), timing = e2e;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    REF_CHECK(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    /* E3SM-IO's set_info: the info object its HDF5 driver hands to every history file */
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "romio_cb_write", "enable");
    MPI_Info_set(hints, "romio_no_indep_rw", "true");
    MPI_Info_set(hints, "nc_var_align_size", "1");
    MPI_Info_set(hints, "nc_in_place_swap", "enable");
    REF_CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, hints));
    MPI_Info_free(&hints);
    REF_CHECK(H5Pset_coll_metadata_write(fapl, 1));
    H5AC_cache_config_t mdcc;
    mdcc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    REF_CHECK(H5Pget_mdc_config(fapl, &mdcc));
    mdcc.max_size = 128 * 1024 * 1024;
    mdcc.min_size = 32 * 1024 * 1024;
    mdcc.initial_size = 32 * 1024 * 1024;
    mdcc.incr_mode = H5C_incr__off;
    mdcc.decr_mode = H5C_decr__off;
    mdcc.set_initial_size = 1;
    REF_CHECK(H5Pset_mdc_config(fapl, &mdcc));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        ref_die("cannot create %s", path);
    MPI_Comm comm_used;
    MPI_Info info_used;
    REF_CHECK(H5Pget_fapl_mpio(fapl, &comm_used, &info_used));
    MPI_Comm_free(&comm_used);
    if (info_used != MPI_INFO_NULL)
        MPI_Info_free(&info_used);
    H5Pclose(fapl);
    t[T_OPEN] = MPI_Wtime() - timing;

    MPI_Barrier(MPI_COMM_WORLD);
    timing = MPI_Wtime();
    for (int i = 0; i < h->ngattrs; i++)
        put_att(file, &h->gattrs[i]);
    for (int i = 0; i < h->ndims; i++) {
        char aname[160];
        snprintf(aname, sizeof aname, "-DIM_%s", h->dimnames[i]);
        hid_t sid = H5Screate(H5S_SCALAR);
        hid_t aid = H5Acreate2(file, aname, H5T_NATIVE_HSIZE, sid, H5P_DEFAULT, H5P_DEFAULT);
        REF_CHECK(aid);
        REF_CHECK(H5Awrite(aid, H5T_NATIVE_HSIZE, &h->dimlens[i]));
        H5Aclose(aid);
        H5Sclose(sid);
    }
    hid_t *dids = calloc((size_t)h->nvars, sizeof(hid_t));
    for (int i = 0; i < h->nvars; i++) {
        const var_t *v = &h->vars[i];
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        REF_CHECK(H5Pset_fill_value(dcpl, 0, NULL));
        REF_CHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
        REF_CHECK(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_DEFAULT));
        hsize_t dims[MAXD], mdims[MAXD], cdim[MAXD];
        int nd = 0;
        if (v->record) {
            dims[0] = 0;
            mdims[0] = H5S_UNLIMITED;
            cdim[0] = 1;
            nd = 1;
        }
        for (int d = 0; d < v->ndims; d++, nd++)
            dims[nd] = mdims[nd] = cdim[nd] = v->dims[d];
        if (v->record)
            REF_CHECK(H5Pset_chunk(dcpl, nd, cdim));
        hid_t sid = H5Screate_simple(nd, dims, mdims);
        REF_CHECK(sid);
        dids[i] = H5Dcreate2(file, v->name, v->type, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (dids[i] < 0)
            ref_die("%s: cannot create dataset %s", path, v->name);
        H5Sclose(sid);
        H5Pclose(dcpl);
        for (int k = 0; k < v->nattrs; k++)
            put_att(dids[i], &v->attrs[k]);
    }
    t[T_DEF] = MPI_Wtime() - timing;

    MPI_Barrier(MPI_COMM_WORLD);
    timing = MPI_Wtime();
    /* E3SM-IO's write buffers (wr_buf_malloc, one malloc since its commit 5a15851 of August
     * 2023, and var_wr_case's pointers): def_var adds every variable's element count (the
     * rank's part on every rank; the whole variable or one record on rank 0 alone, since its
     * commit 552f0db) to its kind's length,
     * the record kinds times the flush frequency (E3SM-IO's default -y 1: one record, the
     * record pointers back at their kind's start every record); one
     * allocation holds the kinds in the order fixed text, int, double, float, long long,
     * then record text, int, double, float, long long; each write passes its kind's
     * pointer, which then advances by the variable's element count (only on the ranks that
     * write it). A kind that follows an odd count of ints or of text starts unaligned, and
     * so does every write from it. */
    size_t klen[2][NK] = {{0}};
    size_t *vlen = calloc((size_t)h->nvars, sizeof(size_t));
    for (int i = 0; i < h->nvars; i++) {
        const var_t *v = &h->vars[i];
        hsize_t n = 0;
        if (v->decomp > 0)
            for (long long q = 0; q < ds[v->decomp - 1].nreq; q++)
                n += (hsize_t)ds[v->decomp - 1].len[q];
        else if (rank == 0) /* the others count no non-partitioned variable (552f0db) */
            n = var_len(v);
        vlen[i] = (size_t)n;
        klen[v->record][kind_of(v->type)] += (size_t)n;
    }
    size_t kbase[2][NK], recstart[NK], sum = 0;
    for (int rec = 0; rec < 2; rec++)
        for (int k = 0; k < NK; k++) {
            kbase[rec][k] = sum;
            sum += klen[rec][k] * kind_size[k];
        }
    memcpy(recstart, kbase[1], sizeof recstart);
    unsigned char *wbuf = malloc(sum > 0 ? sum : 1);
    if (wbuf == NULL)
        ref_die("out of memory for %zu bytes of write buffers", sum);
    for (size_t e = 0; e < sum; e++)
        wbuf[e] = (unsigned char)(rank + e);
    t[T_PRE] = MPI_Wtime() - timing;

    MPI_Barrier(MPI_COMM_WORLD);
    timing = MPI_Wtime();
    t_sel = t_wr = 0;
    /* the fixed-size variables first, before any record (E3SM-IO's var_wr_case since its
     * commit cd9d8c7, August 2023), then per record the extents and the record variables */
    for (int i = 0; i < h->nvars; i++) {
        const var_t *v = &h->vars[i];
        if (v->record)
            continue;
        size_t *at = &kbase[0][kind_of(v->type)];
        if (v->decomp > 0)
            varn_expand(dids[i], v->type, &ds[v->decomp - 1], -1, dxpl_coll, wbuf + *at);
        else if (rank == 0)
            put_vara(dids[i], v->type, v, 0, dxpl_indep, wbuf + *at);
        else
            continue;
        *at += vlen[i] * kind_size[kind_of(v->type)];
    }
    for (int r = 0; r < h->records; r++) {
        memcpy(kbase[1], recstart, sizeof recstart); /* flush frequency 1 */
        for (int i = 0; i < h->nvars; i++) { /* expand_rec_size */
            hid_t dsid = H5Dget_space(dids[i]);
            hsize_t dims[MAXD], mdims[MAXD];
            int nd = H5Sget_simple_extent_dims(dsid, dims, mdims);
            H5Sclose(dsid);
            if (nd > 0 && mdims[0] == H5S_UNLIMITED && dims[0] < (hsize_t)(r + 1)) {
                dims[0] = (hsize_t)(r + 1);
                REF_CHECK(H5Dset_extent(dids[i], dims));
            }
        }
        for (int i = 0; i < h->nvars; i++) {
            const var_t *v = &h->vars[i];
            if (!v->record)
                continue;
            size_t *at = &kbase[1][kind_of(v->type)];
            if (v->decomp > 0)
                varn_expand(dids[i], v->type, &ds[v->decomp - 1], r, dxpl_coll, wbuf + *at);
            else if (rank == 0)
                put_vara(dids[i], v->type, v, r, dxpl_indep, wbuf + *at);
            else
                continue;
            *at += vlen[i] * kind_size[kind_of(v->type)];
        }
    }
    t[T_POST] = MPI_Wtime() - timing;
    t[T_SEL] = t_sel;
    t[T_WR] = t_wr;
    MPI_Barrier(MPI_COMM_WORLD);
    timing = MPI_Wtime();
    t[T_FLUSH] = MPI_Wtime() - timing; /* the plain HDF5 driver's wait does nothing */

    MPI_Barrier(MPI_COMM_WORLD);
    timing = MPI_Wtime();
    for (int i = 0; i < h->nvars; i++)
        REF_CHECK(H5Dclose(dids[i]));
    REF_CHECK(H5Fclose(file));
    free(wbuf);
    free(vlen);
    free(dids);
    t[T_CLOSE] = MPI_Wtime() - timing;
    t[T_E2E] = MPI_Wtime() - e2e;

    double tmin[NT], tmax[NT];
    MPI_Reduce(t, tmin, NT, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(t, tmax, NT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("==== e3sm_canonical %s (%d variables, %d records) ====\n", path, h->nvars, h->records);
        for (int i = 0; i < NT; i++)
            printf("%s    min/max = %8.4f / %8.4f\n", tnames[i], tmin[i], tmax[i]);
    }
    H5Pclose(dxpl_coll);
    H5Pclose(dxpl_indep);
    free(path);
    return tmax[T_E2E];
}

int main(int argc, char **argv)
{
    int rank, nranks;
    ref_init(&argc, &argv, &rank, &nranks);
    if (argc == 3 && strcmp(argv[1], "--dims") == 0) {
        int ndecomp = 0, np = 0;
        decomp_t *ds = read_map(argv[2], 0, 1, &ndecomp, &np);
        if (rank == 0) {
            printf("nprocs %d\n", np);
            for (int k = 0; k < ndecomp; k++) {
                printf("D%d", k + 1);
                for (int i = 0; i < ds[k].ndims; i++)
                    printf(" %llu", (unsigned long long)ds[k].dims[i]);
                printf("\n");
            }
        }
        MPI_Finalize();
        return 0;
    }
    int sorted = argc > 1 && strcmp(argv[1], "--sorted") == 0;
    if (argc < 4 + sorted)
        ref_die("usage: %s [--sorted] MAP.h5 OUT.h5 HEADER... | --dims MAP.h5", argv[0]);
    char **a = argv + sorted;
    int ndecomp = 0, np = 0;
    decomp_t *ds = read_map(a[1], rank, nranks, &ndecomp, &np);
    if (sorted)
        for (int k = 0; k < ndecomp; k++)
            sort_coalesce(&ds[k]);
    int nh = argc - 3 - sorted;
    header_t *hs = calloc((size_t)nh, sizeof(header_t));
    for (int i = 0; i < nh; i++)
        read_header(a[3 + i], &hs[i]);
    double total = 0;
    for (int i = 0; i < nh; i++)
        total += write_history(a[2], &hs[i], ds, ndecomp, rank);
    if (rank == 0)
        printf("Total end-to-end time (all files, max over ranks): %.4f s\n", total);
    MPI_Finalize();
    return 0;
}
