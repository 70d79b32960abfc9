/*
 * kernel.c: a program that knows nothing of h5proxy, with I/O whose Darshan counters are
 * known exactly (internal/profile's tests assert them). Modes (argv[1]):
 *   mpi DIR      every rank: POSIX writes, MPI-IO collective writes, HDF5 collective writes
 *   threads DIR  no MPI: two threads each write 8 blocks of 4096 bytes to a file of their own
 *   plain DIR    no MPI: 3 writes of 100 bytes, a seek to 0, 3 reads of 100 bytes
 *   crash DIR    MPI: the POSIX writes, then SIGSEGV before MPI_Finalize
 *   nohdf5 DIR   MPI: the POSIX and MPI-IO parts only
 *   fork DIR     no MPI: a forked child writes child.dat (100 B) and _exits, then the parent
 *                writes parent.dat (200 B)
 *   handles DIR  MPI: rank 0 creates handles.h5 alone (default driver) with group g and an
 *                attribute, closes it; every rank opens it through MPI-IO with collective
 *                metadata, creates g/x in g opened by path, closes both, writes x's
 *                attribute through H5Oopen/H5Oclose, reopens x for one collective write
 *   multi DIR    MPI, HDF5 1.14: two datasets written by one collective H5Dwrite_multi and
 *                read back, verified, by one H5Dread_multi (exit 3 with older HDF5)
 *   stdio DIR    MPI: each rank reads DIR/in.txt (the test writes it) with the calls of
 *                libstdc++'s std::ifstream as AMReX's ReadAndBcastFile makes them (fopen64;
 *                fileno before each of lseek64 SEEK_END, SEEK_CUR, SEEK_SET and one read of
 *                2097151 bytes; fclose), then as std::getline on a std::fstream (fopen;
 *                fileno and a read of 8191 bytes until one returns 0; fclose); reads
 *                /proc/self/status the same way (an excluded path); fdopens a descriptor
 *                of DIR/fd.R.dat and asks its fileno; opens that file again through
 *                glibc's fortified __open_2; asks fileno(stdout); and writes 10 bytes to a
 *                file in Open MPI's session directory ($OMPI_MCA_orte_top_session_dir)
 *   types DIR    MPI: types.h5 with datasets of the types the flat trace cannot say, each
 *                rank's block written collectively from native memory: a big-endian f32
 *                (netCDF-4's dimensions) with a fill value, an enumeration over a big-endian
 *                short with a fill value (HIGH), an array of 3 doubles, a tagged opaque type, a compound holding a
 *                big-endian double and the enumeration; attributes of a big-endian float
 *                and of the enumeration
 */
#define _LARGEFILE64_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <hdf5.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 4      /* writes per level */
#define S 1000   /* bytes per POSIX and MPI-IO write */
#define ELEMS 50 /* ints per rank per H5Dwrite */

static char buf[8 * 4096] __attribute__((aligned(4096)));

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "kernel: %s failed\n", what);
        exit(2);
    }
}

/* posix: N sequential writes of S bytes, then one pwrite of S bytes at 10*S (not consecutive). */
static void posix_part(const char *dir, int rank) {
    char path[4096];
    snprintf(path, sizeof path, "%s/posix.%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < N; i++) check(write(fd, buf, S) == S, "write");
    check(pwrite(fd, buf, S, 10 * S) == S, "pwrite");
    check(fsync(fd) == 0, "fsync");
    /* an fstat and a stat (glibc 2.33+'s own symbols, which Darshan 3.5 does not wrap) */
    struct stat st;
    check(fstat(fd, &st) == 0 && st.st_size == 11 * S, "fstat");
    check(close(fd) == 0, "close");
    check(stat(path, &st) == 0, "stat");
}

/* mpiio: a collective open with one hint, N collective writes of S bytes at rank*N*S + i*S. */
static void mpiio_part(const char *dir, int rank) {
    char path[4096];
    snprintf(path, sizeof path, "%s/mpiio.dat", dir);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) == MPI_SUCCESS,
          "MPI_File_open");
    MPI_Info_free(&info);
    for (int i = 0; i < N; i++)
        check(MPI_File_write_at_all(fh, (MPI_Offset)(rank * N + i) * S, buf, S, MPI_BYTE, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS,
              "MPI_File_write_at_all");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close");
}

/* create_mpio creates DIR/NAME through HDF5's MPI-IO driver on MPI_COMM_WORLD. */
static hid_t create_mpio(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check(f >= 0, "H5Fcreate");
    H5Pclose(fapl);
    return f;
}

/* hdf5: one 1-D int dataset in group /g, each rank writes N hyperslabs of ELEMS ints
 * collectively; a file reference taken with H5Iget_file_id and released with H5Fclose before
 * an H5Fflush (the flush belongs to the file, whose record the release does not end). */
static void hdf5_part(const char *dir, int rank, int size) {
    hid_t f = create_mpio(dir, "kernel.h5");
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {(hsize_t)size * N * ELEMS};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(g, "x", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2");
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hsize_t count[1] = {ELEMS};
    hid_t mem = H5Screate_simple(1, count, NULL);
    for (int i = 0; i < N; i++) {
        hsize_t start[1] = {(hsize_t)(rank * N + i) * ELEMS};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        check(H5Dwrite(d, H5T_NATIVE_INT, mem, space, dxpl, buf) >= 0, "H5Dwrite");
    }
    hid_t ref = H5Iget_file_id(d);
    H5Fclose(ref);
    check(H5Fflush(d, H5F_SCOPE_LOCAL) >= 0, "H5Fflush");
    H5Sclose(mem);
    H5Pclose(dxpl);
    H5Sclose(space);
    H5Dclose(d);
    H5Gclose(g);
    check(H5Fclose(f) >= 0, "H5Fclose");
}

/* handles: AMReX's rank-0 creation and openPMD-api's per-call handles in one file
 * (the H5Gclose, H5Oopen and H5Oclose events, each open's access list). */
static void handles_part(const char *dir, int rank, int size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/handles.h5", dir);
    int one = 1;
    if (rank == 0) {
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        check(f >= 0, "H5Fcreate");
        hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(g, "version", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        check(H5Awrite(a, H5T_NATIVE_INT, &one) >= 0, "H5Awrite");
        H5Aclose(a);
        H5Sclose(s);
        H5Gclose(g);
        check(H5Fclose(f) >= 0, "H5Fclose");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    check(f >= 0, "H5Fopen");
    H5Pclose(fapl);
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    hsize_t dims[1] = {(hsize_t)size * ELEMS}, count[1] = {ELEMS}, start[1] = {(hsize_t)rank * ELEMS};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(g, "x", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2");
    H5Dclose(d);
    H5Gclose(g);
    hid_t o = H5Oopen(f, "g/x", H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, "unitSI", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT);
    double unit = 1.0;
    check(H5Awrite(a, H5T_NATIVE_DOUBLE, &unit) >= 0, "H5Awrite");
    H5Aclose(a);
    H5Sclose(s);
    check(H5Oclose(o) >= 0, "H5Oclose");
    d = H5Dopen2(f, "g/x", H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t mem = H5Screate_simple(1, count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    check(H5Dwrite(d, H5T_NATIVE_INT, mem, space, dxpl, buf) >= 0, "H5Dwrite");
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(dxpl);
    H5Dclose(d);
    check(H5Fclose(f) >= 0, "H5Fclose");
}

/* multi: datasets a (int, ELEMS per rank) and b (double, 2*ELEMS per rank) of multi.h5, each
 * rank's block written by one collective H5Dwrite_multi, then read by one H5Dread_multi. */
static int multi_part(const char *dir, int rank, int size) {
#if H5_VERSION_GE(1, 14, 0)
    hid_t f = create_mpio(dir, "multi.h5");
    hsize_t n[2] = {ELEMS, 2 * ELEMS};
    hid_t type[2] = {H5T_NATIVE_INT, H5T_NATIVE_DOUBLE}, d[2], fs[2], ms[2];
    const char *name[2] = {"a", "b"};
    int ia[ELEMS], ra[ELEMS];
    double db[2 * ELEMS], rb[2 * ELEMS];
    for (int i = 0; i < ELEMS; i++) ia[i] = rank * 1000 + i;
    for (int i = 0; i < 2 * ELEMS; i++) db[i] = rank + i / 4.0;
    for (int k = 0; k < 2; k++) {
        hsize_t dims[1] = {(hsize_t)size * n[k]}, start[1] = {(hsize_t)rank * n[k]};
        fs[k] = H5Screate_simple(1, dims, NULL);
        d[k] = H5Dcreate2(f, name[k], type[k], fs[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(d[k] >= 0, "H5Dcreate2");
        H5Sselect_hyperslab(fs[k], H5S_SELECT_SET, start, NULL, &n[k], NULL);
        ms[k] = H5Screate_simple(1, &n[k], NULL);
    }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    const void *wbuf[2] = {ia, db};
    check(H5Dwrite_multi(2, d, type, ms, fs, dxpl, wbuf) >= 0, "H5Dwrite_multi");
    void *rbuf[2] = {ra, rb};
    check(H5Dread_multi(2, d, type, ms, fs, dxpl, rbuf) >= 0, "H5Dread_multi");
    check(!memcmp(ia, ra, sizeof ia) && !memcmp(db, rb, sizeof db), "the values read back");
    for (int k = 0; k < 2; k++) {
        H5Sclose(ms[k]);
        H5Sclose(fs[k]);
        H5Dclose(d[k]);
    }
    H5Pclose(dxpl);
    check(H5Fclose(f) >= 0, "H5Fclose");
    return 0;
#else
    (void)dir, (void)rank, (void)size;
    if (rank == 0) fprintf(stderr, "kernel: HDF5 %d.%d has no H5Dwrite_multi\n", H5_VERS_MAJOR, H5_VERS_MINOR);
    return 3;
#endif
}

/* types: see the modes above. The enumeration's values (LOW 1, HIGH 513) sort the same
 * as numbers and as bytes, so HDF5 lists them in insertion order either way. */
static void types_part(const char *dir, int rank, int size) {
    hid_t f = create_mpio(dir, "types.h5");
    hsize_t n = 4, dims[1] = {(hsize_t)size * 4}, start[1] = {(hsize_t)rank * 4}, three = 3;
    short low = 1, high = 513;
    hid_t fenum = H5Tenum_create(H5T_STD_I16BE), menum = H5Tenum_create(H5T_NATIVE_SHORT);
    H5Tenum_insert(menum, "LOW", &low);
    H5Tenum_insert(menum, "HIGH", &high);
    short lowbe = (short)((low & 0xff) << 8 | (low >> 8 & 0xff)), highbe = (short)((high & 0xff) << 8 | (high >> 8 & 0xff));
    H5Tenum_insert(fenum, "LOW", &lowbe); /* the enumeration's own (big-endian) order */
    H5Tenum_insert(fenum, "HIGH", &highbe);
    hid_t farr = H5Tarray_create2(H5T_IEEE_F64LE, 1, &three), marr = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
    hid_t fop = H5Tcreate(H5T_OPAQUE, 4);
    H5Tset_tag(fop, "kernel blob");
    struct rec {
        double x;
        short p;
    };
    hid_t frec = H5Tcreate(H5T_COMPOUND, 16), mrec = H5Tcreate(H5T_COMPOUND, sizeof(struct rec));
    H5Tinsert(frec, "x", 0, H5T_IEEE_F64BE);
    H5Tinsert(frec, "p", 8, fenum);
    H5Tinsert(mrec, "x", HOFFSET(struct rec, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(mrec, "p", HOFFSET(struct rec, p), menum);
    float lat[4], fill = -1.0f;
    short ph[4];
    double vel[4][3];
    unsigned char blob[4][4];
    struct rec recs[4];
    for (int i = 0; i < 4; i++) {
        lat[i] = (float)(rank * 4 + i) / 2;
        ph[i] = i % 2 ? high : low;
        for (int k = 0; k < 3; k++) vel[i][k] = rank + i + k / 4.0;
        for (int k = 0; k < 4; k++) blob[i][k] = (unsigned char)(rank + i + k);
        recs[i].x = lat[i];
        recs[i].p = ph[i];
    }
    struct {
        const char *name;
        hid_t file, mem;
        const void *buf;
    } sets[] = {{"lat", H5T_IEEE_F32BE, H5T_NATIVE_FLOAT, lat}, {"phase", fenum, menum, ph}, {"vel", farr, marr, vel},
                {"blob", fop, fop, blob}, {"rec", frec, mrec, recs}};
    hid_t fs = H5Screate_simple(1, dims, NULL), ms = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, &n, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (k == 0) H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill);
        if (k == 1) H5Pset_fill_value(dcpl, menum, &high);
        hid_t d = H5Dcreate2(f, sets[k].name, sets[k].file, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        check(d >= 0, "H5Dcreate2");
        check(H5Dwrite(d, sets[k].mem, ms, fs, dxpl, sets[k].buf) >= 0, "H5Dwrite");
        H5Dclose(d);
        H5Pclose(dcpl);
    }
    hsize_t two = 2;
    float scale[2] = {1.5f, -2.25f};
    hid_t as = H5Screate_simple(1, &two, NULL), sc = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "scale", H5T_IEEE_F32BE, as, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, H5T_NATIVE_FLOAT, scale) >= 0, "H5Awrite scale");
    H5Aclose(a);
    a = H5Acreate2(f, "mode", fenum, sc, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, menum, &high) >= 0, "H5Awrite mode");
    H5Aclose(a);
    H5Sclose(as);
    H5Sclose(sc);
    H5Sclose(fs);
    H5Sclose(ms);
    H5Pclose(dxpl);
    hid_t ts[] = {fenum, menum, farr, marr, fop, frec, mrec};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) H5Tclose(ts[k]);
    check(H5Fclose(f) >= 0, "H5Fclose");
}

/* stdio_part: see the header (mode stdio). */
extern int __open_2(const char *path, int flags);
static void stdio_part(const char *dir, int rank) {
    char path[4096], in[8192];
    static char big[2097152];
    snprintf(path, sizeof path, "%s/in.txt", dir);
    FILE *f = fopen64(path, "r");
    check(f != NULL, "fopen64");
    off64_t len = lseek64(fileno(f), 0, SEEK_END);
    check(len > 0 && lseek64(fileno(f), 0, SEEK_CUR) == len && lseek64(fileno(f), 0, SEEK_SET) == 0, "lseek64");
    check(read(fileno(f), big, sizeof big - 1) == len, "read");
    check(fclose(f) == 0, "fclose");
    const char *files[] = {path, "/proc/self/status"};
    for (int i = 0; i < 2; i++) {
        f = fopen(files[i], "r");
        check(f != NULL, "fopen");
        ssize_t n;
        while ((n = read(fileno(f), in, sizeof in - 1)) > 0) {
        }
        check(n == 0 && fclose(f) == 0, "read to the end");
    }
    snprintf(path, sizeof path, "%s/fd.%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    check(fd >= 0, "open");
    f = fdopen(fd, "w");
    check(f != NULL && fileno(f) == fd && fclose(f) == 0, "fdopen");
    fd = __open_2(path, O_RDONLY);
    check(fd >= 0 && close(fd) == 0, "__open_2");
    check(fileno(stdout) == 1, "fileno(stdout)");
    const char *session = getenv("OMPI_MCA_orte_top_session_dir");
    check(session != NULL, "$OMPI_MCA_orte_top_session_dir (run under Open MPI's mpirun)");
    snprintf(path, sizeof path, "%s/h5proxy-kernel.%d", session, rank);
    fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0 && write(fd, buf, 10) == 10 && close(fd) == 0 && unlink(path) == 0, "session file");
}

/* refs_part: rank 0 alone writes refs.h5 with the default (serial) driver, the 1.8
 * API's references and a virtual dataset's creation list: /table (4 ints), /view (a
 * virtual view of all of it through unselected dataspaces, its attributes' creation
 * order tracked and indexed), /half (elements 2..3 of a virtual dataset of 4 from
 * elements 0..1 of /table), attributes "main" (an object reference to /table) and
 * "parts" (region references to /table[0:2] and /table[2:4]) and "notes" (two
 * variable-length strings); /x a dimension scale
 * (CLASS) attached to dimension 1 of the 2-D /rho through a DIMENSION_LIST of
 * variable-length object references written by hand, as H5DS writes it. */
static void refs_part(const char *dir, int rank) {
    if (rank != 0) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/refs.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(f >= 0, "H5Fcreate refs.h5");
    hsize_t n = 4, two = 2, dims2[2] = {2, 4};
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "table", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int v[4] = {1, 2, 3, 4};
    check(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "H5Dwrite table");
    H5Dclose(d);
    hid_t p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_attr_creation_order(p, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    check(H5Pset_virtual(p, s, ".", "/table", s) >= 0, "H5Pset_virtual view");
    d = H5Dcreate2(f, "view", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2 view");
    H5Dclose(d);
    H5Pclose(p);
    hsize_t at = 2, from = 0;
    hid_t vs = H5Scopy(s), ss = H5Scopy(s);
    H5Sselect_hyperslab(vs, H5S_SELECT_SET, &at, NULL, &two, NULL);
    H5Sselect_hyperslab(ss, H5S_SELECT_SET, &from, NULL, &two, NULL);
    p = H5Pcreate(H5P_DATASET_CREATE);
    check(H5Pset_virtual(p, vs, ".", "/table", ss) >= 0, "H5Pset_virtual half");
    d = H5Dcreate2(f, "half", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2 half");
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(vs);
    H5Sclose(ss);
    hobj_ref_t oref;
    hdset_reg_ref_t rref[2];
    hid_t sc = H5Screate(H5S_SCALAR), s2 = H5Screate_simple(1, &two, NULL);
    check(H5Rcreate(&oref, f, "/table", H5R_OBJECT, -1) >= 0, "H5Rcreate main");
    hid_t a = H5Acreate2(f, "main", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, H5T_STD_REF_OBJ, &oref) >= 0, "H5Awrite main");
    H5Aclose(a);
    for (hsize_t k = 0; k < 2; k++) {
        hsize_t start = 2 * k;
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &two, NULL);
        check(H5Rcreate(&rref[k], f, "/table", H5R_DATASET_REGION, s) >= 0, "H5Rcreate parts");
    }
    a = H5Acreate2(f, "parts", H5T_STD_REF_DSETREG, s2, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, H5T_STD_REF_DSETREG, rref) >= 0, "H5Awrite parts");
    H5Aclose(a);
    hid_t vstr = H5Tcopy(H5T_C_S1);
    H5Tset_size(vstr, H5T_VARIABLE);
    const char *notes[2] = {"made by refs", "two"};
    a = H5Acreate2(f, "notes", vstr, s2, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, vstr, notes) >= 0, "H5Awrite notes");
    H5Aclose(a);
    H5Tclose(vstr);
    /* the scale and its attachment */
    d = H5Dcreate2(f, "x", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    double xs[4] = {0, 1, 2, 3};
    check(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xs) >= 0, "H5Dwrite x");
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 16);
    a = H5Acreate2(d, "CLASS", str, sc, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, str, "DIMENSION_SCALE") >= 0, "H5Awrite CLASS");
    H5Aclose(a);
    H5Tclose(str);
    H5Dclose(d);
    hid_t sr = H5Screate_simple(2, dims2, NULL);
    d = H5Dcreate2(f, "rho", H5T_IEEE_F64LE, sr, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    double r[8] = {0};
    check(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0, "H5Dwrite rho");
    hobj_ref_t xref;
    check(H5Rcreate(&xref, f, "/x", H5R_OBJECT, -1) >= 0, "H5Rcreate x");
    hvl_t lists[2] = {{0, NULL}, {1, &xref}};
    hid_t vt = H5Tvlen_create(H5T_STD_REF_OBJ);
    a = H5Acreate2(d, "DIMENSION_LIST", vt, s2, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, vt, lists) >= 0, "H5Awrite DIMENSION_LIST");
    H5Aclose(a);
    H5Tclose(vt);
    H5Dclose(d);
    H5Sclose(sr);
    H5Sclose(sc);
    H5Sclose(s2);
    H5Sclose(s);
    check(H5Fclose(f) >= 0, "H5Fclose refs.h5");
}

static const char *tdir;
static void *thread_main(void *arg) {
    long t = (long)arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/thread.%ld.dat", tdir, t);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < 8; i++) check(write(fd, buf + i * 4096, 4096) == 4096, "write");
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: kernel mpi|threads|plain|crash|nohdf5|fork|multi|handles|types|stdio|refs DIR\n");
        return 2;
    }
    const char *mode = argv[1], *dir = argv[2];
    memset(buf, 7, sizeof buf);
    if (!strcmp(mode, "threads")) {
        pthread_t th[2];
        tdir = dir;
        for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, thread_main, (void *)t);
        for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        char path[4096];
        pid_t pid = fork();
        check(pid >= 0, "fork");
        if (pid == 0) {
            snprintf(path, sizeof path, "%s/child.dat", dir);
            int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            _exit(fd >= 0 && write(fd, buf, 100) == 100 && close(fd) == 0 ? 0 : 1);
        }
        int status = 0;
        check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child");
        snprintf(path, sizeof path, "%s/parent.dat", dir);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        check(fd >= 0 && write(fd, buf, 200) == 200, "write");
        close(fd);
        return 0;
    }
    if (!strcmp(mode, "plain")) {
        char path[4096], in[100];
        snprintf(path, sizeof path, "%s/plain.dat", dir);
        int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
        check(fd >= 0, "open");
        for (int i = 0; i < 3; i++) check(write(fd, buf, 100) == 100, "write");
        check(lseek(fd, 0, SEEK_SET) == 0, "lseek");
        for (int i = 0; i < 3; i++) check(read(fd, in, 100) == 100, "read");
        close(fd);
        return 0;
    }
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "multi")) {
        int rc = multi_part(dir, rank, size);
        MPI_Finalize();
        return rc;
    }
    if (!strcmp(mode, "types")) {
        types_part(dir, rank, size);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(mode, "stdio")) {
        stdio_part(dir, rank);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(mode, "refs")) {
        refs_part(dir, rank);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(mode, "handles")) {
        handles_part(dir, rank, size);
        MPI_Finalize();
        return 0;
    }
    posix_part(dir, rank);
    if (!strcmp(mode, "crash")) raise(SIGSEGV);
    mpiio_part(dir, rank);
    if (!strcmp(mode, "mpi")) hdf5_part(dir, rank, size);
    MPI_Finalize();
    return 0;
}
