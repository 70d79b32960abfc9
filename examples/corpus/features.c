/* features: one program using every HDF5 feature issue 33 (item 2) asks descriptions to
 * say, each the way a real writer uses it:
 * - links: a hard link (H5MD's step/time shared between time series, LAMMPS/ch5md), a
 *   soft link and an external link (to the serial file below);
 * - an object reference attribute and (in the serial file) a dataset of region references;
 * - dimension scales (H5DSset_scale/H5DSattach_scale: DIMENSION_LIST and REFERENCE_LIST,
 *   as netCDF-4 writes its coordinate variables, libsrc4/nc4hdf.c);
 * - enum, array and opaque types; a compound at explicit offsets with padding (members
 *   inserted out of offset order, as FLASH's io_h5write_lists.c); a variable-length string
 *   attribute in the shared file;
 * - link and attribute creation order tracked and indexed (netCDF-4 sets both on every
 *   group it creates);
 * - compact and virtual layouts (in the serial file);
 * - a serial writer: rank 0 alone, default (sec2) driver, the other ranks never open it
 *   (AMReX's and ch5md's rank-0 files);
 * - a group held open for the whole run and a series dataset held open between steps;
 * - two file families with their own cadence and numbering: snap_NNNN.h5 every step,
 *   restart_NNNN.h5 every second step (FLASH's plot and checkpoint counters);
 * - MPI-IO hints in the file access list (E3SM-IO's and FLASH's set_info).
 * Writes features.h5 (shared, 4 steps), features_serial.h5 (rank 0), snap_0000..0003.h5
 * and restart_0000..0001.h5 in the working directory.
 */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <mpi.h>
#include <string.h>

enum { N = 8, STEPS = 4 };
static int me, np;

static hid_t mpio_fapl(void) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
    MPI_Info_free(&info);
    return fapl;
}

/* each rank its N elements of a 1-D dataset, collective */
static void write_block(hid_t d, hid_t mtype, const void *buf) {
    hsize_t start = (hsize_t)N * me, count = N;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL), dx = H5Pcreate(H5P_DATASET_XFER);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    H5Dwrite(d, mtype, ms, fs, dx, buf);
    H5Pclose(dx); H5Sclose(ms); H5Sclose(fs);
}

static hid_t dataset(hid_t loc, const char *name, hid_t type, hsize_t n) {
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(s);
    return d;
}

/* the serial file: rank 0, default driver; a compact table, a virtual view of it and a
 * dataset of region references into it */
static void serial_file(void) {
    hid_t f = H5Fcreate("features_serial.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n = 4;
    hid_t s = H5Screate_simple(1, &n, NULL), p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(p, H5D_COMPACT);
    hid_t d = H5Dcreate2(f, "table", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    int v[4] = {1, 2, 3, 4};
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d); H5Pclose(p);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_virtual(p, s, ".", "/table", s);
    d = H5Dcreate2(f, "table_view", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Dclose(d); H5Pclose(p);
    hdset_reg_ref_t rref[2];
    hsize_t rs = 0, rc = 2;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &rs, NULL, &rc, NULL);
    H5Rcreate(&rref[0], f, "/table", H5R_DATASET_REGION, s);
    rs = 2;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &rs, NULL, &rc, NULL);
    H5Rcreate(&rref[1], f, "/table", H5R_DATASET_REGION, s);
    H5Sclose(s);
    n = 2;
    s = H5Screate_simple(1, &n, NULL);
    d = H5Dcreate2(f, "regions", H5T_STD_REF_DSETREG, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_STD_REF_DSETREG, H5S_ALL, H5S_ALL, H5P_DEFAULT, rref);
    H5Dclose(d); H5Sclose(s);
    H5Fclose(f);
}

static void family_file(const char *fmt, int num, int step) {
    char name[32];
    snprintf(name, sizeof name, fmt, num);
    hid_t fapl = mpio_fapl();
    hid_t f = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hid_t d = dataset(f, "u", H5T_IEEE_F64LE, (hsize_t)N * np);
    double u[N];
    for (int i = 0; i < N; i++) u[i] = step + me + 0.1 * i;
    write_block(d, H5T_NATIVE_DOUBLE, u);
    H5Dclose(d);
    H5Fclose(f);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    hsize_t total = (hsize_t)N * np;
    if (me == 0) serial_file();
    MPI_Barrier(MPI_COMM_WORLD);

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t fapl = mpio_fapl();
    hid_t f = H5Fcreate("features.h5", H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fapl); H5Pclose(fcpl);

    /* a variable-length string attribute on the file */
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    hid_t sc = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "history", vs, sc, H5P_DEFAULT, H5P_DEFAULT);
    const char *hist = "created by the h5proxy corpus";
    H5Awrite(a, vs, &hist);
    H5Aclose(a); H5Tclose(vs);

    /* the group held for the run, creation order tracked and indexed */
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t g = H5Gcreate2(f, "fields", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);

    /* x: a dimension scale; rho: a series along time, x attached to its second dimension */
    hid_t x = dataset(g, "x", H5T_IEEE_F64LE, total);
    double xs[N];
    for (int i = 0; i < N; i++) xs[i] = N * me + i;
    write_block(x, H5T_NATIVE_DOUBLE, xs);
    H5DSset_scale(x, "x");
    hsize_t dims[2] = {0, total}, max[2] = {H5S_UNLIMITED, total}, chunk[2] = {1, total};
    hid_t s2 = H5Screate_simple(2, dims, max), p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, chunk);
    hid_t rho = H5Dcreate2(g, "rho", H5T_IEEE_F64LE, s2, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Pclose(p); H5Sclose(s2);
    H5DSattach_scale(rho, x, 1);

    /* enum, array, opaque and an explicit-offset compound with padding */
    hid_t en = H5Tenum_create(H5T_STD_I8LE);
    signed char ev;
    ev = 0; H5Tenum_insert(en, "SOLID", &ev);
    ev = 1; H5Tenum_insert(en, "LIQUID", &ev);
    ev = 2; H5Tenum_insert(en, "GAS", &ev);
    hid_t d = dataset(f, "state", en, total);
    signed char states[N];
    for (int i = 0; i < N; i++) states[i] = (me + i) % 3;
    write_block(d, en, states);
    H5Dclose(d);
    hsize_t three = 3;
    hid_t ar = H5Tarray_create2(H5T_IEEE_F64LE, 1, &three), mar = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
    d = dataset(f, "velocity", ar, total);
    double vel[N][3];
    for (int i = 0; i < N; i++) for (int k = 0; k < 3; k++) vel[i][k] = me + i + 0.1 * k;
    write_block(d, mar, vel);
    H5Dclose(d); H5Tclose(ar); H5Tclose(mar);
    hid_t op = H5Tcreate(H5T_OPAQUE, 4);
    H5Tset_tag(op, "corpus blob");
    d = dataset(f, "blob", op, total);
    unsigned char blob[N][4];
    for (int i = 0; i < N; i++) memset(blob[i], me * N + i, 4);
    write_block(d, op, blob);
    H5Dclose(d); H5Tclose(op);
    hid_t ct = H5Tcreate(H5T_COMPOUND, 24); /* a f64 at 0, b i32 at 12, padding 8..11 and 16..23 */
    H5Tinsert(ct, "b", 12, H5T_STD_I32LE);
    H5Tinsert(ct, "a", 0, H5T_IEEE_F64LE);
    d = dataset(f, "particles", ct, total);
    unsigned char recs[N][24];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < N; i++) { double av = i * 0.5; int bv = me * N + i; memcpy(recs[i], &av, 8); memcpy(recs[i] + 12, &bv, 4); }
    write_block(d, ct, recs);
    H5Dclose(d); H5Tclose(ct);

    /* links: hard, soft, external */
    H5Lcreate_hard(g, "rho", f, "density", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft("/fields/x", f, "coordinate", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_external("features_serial.h5", "/table", f, "ext_table", H5P_DEFAULT, H5P_DEFAULT);

    /* an object reference attribute (region references are in the serial file: parallel
     * HDF5 1.10 refuses to write them, "Parallel IO does not support writing VL or region
     * reference datatypes yet") */
    hobj_ref_t oref;
    H5Rcreate(&oref, f, "/fields/rho", H5R_OBJECT, -1);
    a = H5Acreate2(f, "main_field", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_STD_REF_OBJ, &oref);
    H5Aclose(a);
    H5Sclose(sc);

    /* the steps: rho grows by a row (its handle held), the two families */
    int snaps = 0, restarts = 0;
    for (int step = 0; step < STEPS; step++) {
        hsize_t ext[2] = {step + 1, total}, start[2] = {step, (hsize_t)N * me}, count[2] = {1, N};
        H5Dset_extent(rho, ext);
        hid_t fs = H5Dget_space(rho), ms = H5Screate_simple(1, &count[1], NULL), dx = H5Pcreate(H5P_DATASET_XFER);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
        double r[N];
        for (int i = 0; i < N; i++) r[i] = step * 10 + me + 0.01 * i;
        H5Dwrite(rho, H5T_NATIVE_DOUBLE, ms, fs, dx, r);
        H5Pclose(dx); H5Sclose(ms); H5Sclose(fs);
        family_file("snap_%04d.h5", snaps++, step);
        if (step % 2 == 0) family_file("restart_%04d.h5", restarts++, step);
    }
    H5Dclose(rho); H5Dclose(x); H5Tclose(en);
    H5Gclose(g);
    H5Fclose(f);
    MPI_Finalize();
    return 0;
}
