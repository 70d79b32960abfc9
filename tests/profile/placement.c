/* placement: where real writers write their attributes, in plain HDF5 calls, for
 * internal/profile's TestCapturePlacement.
 *
 * Read (facts, not code): netCDF-C's libhdf5/nc4hdf.c (a variable's dataset created, its
 * _Netcdf4Coordinates written, H5DSset_scale for a coordinate variable, then
 * _Netcdf4Dimid and the variable's own attributes; a dimension without a variable made
 * a scale right after its creation, its _Netcdf4Dimid written again when the dimensions
 * are written) and libhdf5/nc4info.c with hdf5file.c (_NCProperties written once the
 * definitions are done, before nc_enddef's flush); PETSc's VecView_MPI_HDF5 (the dataset
 * written, the file flushed, the dataset closed, then its timestepping attribute written
 * through H5Oopen, created the first time and written again after).
 *
 * Writes DIR/place.h5 (netCDF-4's define mode) and DIR/series.h5 (PETSc's time steps),
 * one rank through MPI-IO. Usage: placement MODE DIR (MODE is ignored).
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHK(x) do { if ((x) < 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* attr writes an attribute of type t (created unless again) with the value at v. */
static void attr(hid_t loc, const char *name, hid_t t, const void *v, int again) {
    hid_t a;
    if (again) {
        a = H5Aopen(loc, name, H5P_DEFAULT);
    } else {
        hid_t s = H5Screate(H5S_SCALAR);
        a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(s);
    }
    CHK(a);
    CHK(H5Awrite(a, t, v));
    H5Aclose(a);
}

static void attr_int(hid_t loc, const char *name, int v, int again) { attr(loc, name, H5T_NATIVE_INT, &v, again); }

static void attr_str(hid_t loc, const char *name, const char *v) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(v) + 1);
    attr(loc, name, t, v, 0);
    H5Tclose(t);
}

static hid_t create(hid_t fid, const char *path, hid_t type, const char *dir_, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir_, name);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    CHK(f);
    (void)fid; (void)path; (void)type;
    return f;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: placement MODE DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *dir = argv[2];
    hsize_t four = 4;
    double d[4] = {1, 2, 3, 4};

    /* netCDF-4's define mode: every dataset created before the first write */
    hid_t f = create(0, NULL, 0, dir, "place.h5");
    attr_str(f, "title", "placement");
    hid_t s4 = H5Screate_simple(1, &four, NULL);
    hid_t v = H5Dcreate2(f, "v", H5T_IEEE_F64LE, s4, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHK(v);
    attr_int(v, "coords", 0, 0);
    hid_t tm = H5Dcreate2(f, "time", H5T_IEEE_F64LE, s4, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHK(tm);
    attr_int(tm, "coords", 0, 0);
    attr_str(tm, "CLASS", "DIMENSION_SCALE"); /* H5DSset_scale's two attributes */
    attr_str(tm, "NAME", "time");
    attr_int(tm, "dimid", 0, 0);
    attr_str(tm, "units", "days");
    hid_t lev = H5Dcreate2(f, "lev", H5T_IEEE_F32BE, s4, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHK(lev);
    attr_str(lev, "CLASS", "DIMENSION_SCALE");
    attr_str(lev, "NAME", "lev");
    attr_int(lev, "dimid", 1, 0);
    attr_int(lev, "dimid", 1, 1); /* written again */
    attr_str(f, "_NCProperties", "version=2");
    CHK(H5Fflush(f, H5F_SCOPE_GLOBAL));
    CHK(H5Dwrite(v, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d));
    CHK(H5Dwrite(tm, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d));
    H5Dclose(v);
    H5Dclose(tm);
    H5Dclose(lev);
    H5Sclose(s4);
    H5Fclose(f);

    /* PETSc's time steps: a row per step, flushed, timestepping rewritten after */
    f = create(0, NULL, 0, dir, "series.h5");
    hsize_t dims[2] = {1, 4}, maxd[2] = {H5S_UNLIMITED, 4};
    for (int step = 0; step < 2; step++) {
        hid_t u;
        if (step == 0) {
            hid_t s = H5Screate_simple(2, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, 2, dims);
            u = H5Dcreate2(f, "u", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            H5Pclose(dcpl);
            H5Sclose(s);
        } else {
            u = H5Dopen2(f, "u", H5P_DEFAULT);
            hsize_t ext[2] = {(hsize_t)step + 1, 4};
            CHK(H5Dset_extent(u, ext));
        }
        CHK(u);
        hid_t fs = H5Dget_space(u), ms = H5Screate_simple(2, dims, NULL);
        hsize_t start[2] = {(hsize_t)step, 0};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, dims, NULL);
        CHK(H5Dwrite(u, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, d));
        H5Sclose(ms);
        H5Sclose(fs);
        CHK(H5Fflush(f, H5F_SCOPE_GLOBAL));
        H5Dclose(u);
        hid_t o = H5Oopen(f, "u", H5P_DEFAULT);
        CHK(o);
        attr_int(o, "timestepping", 1, step > 0);
        H5Oclose(o);
    }
    H5Fclose(f);
    MPI_Finalize();
    return 0;
}
