/* flash_amr: AMR checkpoint and plot files as FLASH (Flash-X) writes them with parallel
 * HDF5 (IO/IOMain/hdf5/parallel).
 *
 * Read (facts, not code), in Flash-X (deanmtownsley/Flash-X-snia-stage in the search index):
 * - source/IO/IOMain/hdf5/parallel/h5_file_interface.c (io_h5init_file): the file access
 *   list sets H5Pset_sieve_buf_size(524288), H5Pset_alignment(524288, 262144), MPI info
 *   hints access_style=write_once, collective_buffering=true, cb_block_size=1048576,
 *   cb_buffer_size=4194304, and H5Pset_fapl_mpio(io_comm, info); H5Fcreate(H5F_ACC_TRUNC);
 * - source/IO/IOMain/hdf5/io_h5write_lists.c (io_h5writeLists): the real, integer, string
 *   and logical tables (runtime parameters, then scalars), each a 1-D compound created by
 *   every rank, members inserted name (80-character string, MAX_STRING_LENGTH) then value
 *   at the HOFFSETs of hdf5_flash.h's structs (FLASH5's source/IO/IOMain/hdf5): the
 *   integer and real lists declare name first (name at 0, value at 80), the logical list
 *   value first (value at 0, name at 4) and the string list value first (value at 0, name
 *   at 80), written by rank 0 alone with H5S_ALL and the default (independent) transfer
 *   list;
 * - source/IO/IOMain/hdf5/io_h5write_header.c: `sim info` and `unknown names` written by
 *   rank 0; source/IO/IOMain/hdf5/io_createDatasets.F90 and
 *   parallel/io_h5write_unknowns.c: the tree datasets and one dataset per unknown,
 *   [blocks, nzb, nyb, nxb], each rank its blocks' hyperslab, collective, then attributes
 *   minimum and maximum written by every rank; plot files in single precision
 *   (io_h5write_unknowns_sp);
 * - parallel/io_initFile.F90 and IO_writeCheckpoint/IO_writePlotfile: checkpoints
 *   <basenm>hdf5_chk_NNNN and plot files <basenm>hdf5_plt_cnt_NNNN with their own counters,
 *   a forced plot file at the end <basenm>hdf5_forced_plt_cnt_NNNN.
 *
 * Shape: 2 blocks of 8x8 cells per rank (2-D), steps 0..12: a checkpoint every 10 steps,
 * a plot file every 5, a final forced plot file. Writes sod_hdf5_chk_0000, _0001,
 * sod_hdf5_plt_cnt_0000 .. _0002 and sod_hdf5_forced_plt_cnt_0003.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAX_STRING_LENGTH 80
enum { BLOCKS = 2, NXB = 8, NYB = 8, NZB = 1, MDIM = 3 };

typedef struct { char name[MAX_STRING_LENGTH]; int value; } int_list_t;
typedef struct { char name[MAX_STRING_LENGTH]; double value; } real_list_t;
typedef struct { char value[MAX_STRING_LENGTH]; char name[MAX_STRING_LENGTH]; } str_list_t;
typedef struct { int value; char name[MAX_STRING_LENGTH]; } log_list_t;
typedef struct { int file_format_version; char setup_call[400]; char flash_version[80]; } sim_info_t;

static int me, np;

/* io_h5writeLists: each table created by every rank, written by rank 0 alone (H5S_ALL, default transfer) */
static void write_lists(hid_t file, const char *names[4], int nint, int nreal, int nstr, int nlog) {
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, MAX_STRING_LENGTH);
    struct { const char *name; size_t size, off_name, off_value; hid_t vt; int n; } t[4] = {
        {names[2], sizeof(real_list_t), HOFFSET(real_list_t, name), HOFFSET(real_list_t, value), H5T_NATIVE_DOUBLE, nreal},
        {names[0], sizeof(int_list_t), HOFFSET(int_list_t, name), HOFFSET(int_list_t, value), H5T_NATIVE_INT, nint},
        {names[1], sizeof(str_list_t), HOFFSET(str_list_t, name), HOFFSET(str_list_t, value), st, nstr},
        {names[3], sizeof(log_list_t), HOFFSET(log_list_t, name), HOFFSET(log_list_t, value), H5T_NATIVE_INT, nlog},
    };
    char buf[8 * sizeof(str_list_t)];
    for (int k = 0; k < 4; k++) {
        if (t[k].n <= 0) continue;
        memset(buf, 0, sizeof buf);
        for (int i = 0; i < t[k].n; i++) {
            char *rec = buf + i * t[k].size;
            snprintf(rec + t[k].off_name, MAX_STRING_LENGTH, "%s_%d", k == 2 ? "geometry" : k == 0 ? "real" : "param", i);
            if (t[k].vt == H5T_NATIVE_DOUBLE) { double v = 0.5 * i; memcpy(rec + t[k].off_value, &v, sizeof v); }
            else if (t[k].vt == H5T_NATIVE_INT) { int v = i + 1; memcpy(rec + t[k].off_value, &v, sizeof v); }
            else snprintf(rec + t[k].off_value, MAX_STRING_LENGTH, "cartesian");
        }
        hsize_t n = t[k].n;
        hid_t sp = H5Screate_simple(1, &n, NULL), ty = H5Tcreate(H5T_COMPOUND, t[k].size);
        H5Tinsert(ty, "name", t[k].off_name, st);
        H5Tinsert(ty, "value", t[k].off_value, t[k].vt);
        hid_t d = H5Dcreate2(file, t[k].name, ty, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (me == 0) H5Dwrite(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        H5Tclose(ty); H5Dclose(d); H5Sclose(sp);
    }
    H5Tclose(st);
}

static void write_file(const char *name, int plot, int step) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once");
    MPI_Info_set(info, "collective_buffering", "true");
    MPI_Info_set(info, "cb_block_size", "1048576");
    MPI_Info_set(info, "cb_buffer_size", "4194304");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_sieve_buf_size(fapl, 524288);
    H5Pset_alignment(fapl, 524288, 262144);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);

    /* io_h5write_header: sim info and unknown names, rank 0 */
    hid_t st400 = H5Tcopy(H5T_C_S1), st80 = H5Tcopy(H5T_C_S1), st4 = H5Tcopy(H5T_C_S1);
    H5Tset_size(st400, 400); H5Tset_size(st80, 80); H5Tset_size(st4, 4);
    hid_t si = H5Tcreate(H5T_COMPOUND, sizeof(sim_info_t));
    H5Tinsert(si, "file format version", HOFFSET(sim_info_t, file_format_version), H5T_NATIVE_INT);
    H5Tinsert(si, "setup call", HOFFSET(sim_info_t, setup_call), st400);
    H5Tinsert(si, "flash version", HOFFSET(sim_info_t, flash_version), st80);
    hsize_t one = 1;
    hid_t sp = H5Screate_simple(1, &one, NULL);
    hid_t d = H5Dcreate2(file, "sim info", si, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    sim_info_t info0 = {9, "./setup Sod -auto -2d", "FLASH 4.6"};
    if (me == 0) H5Dwrite(d, si, H5S_ALL, H5S_ALL, H5P_DEFAULT, &info0);
    H5Dclose(d); H5Sclose(sp); H5Tclose(si);
    int nvar = plot ? 2 : 3;
    const char *vars[3] = {"dens", "pres", "velx"};
    hsize_t un[2] = {nvar, 1};
    sp = H5Screate_simple(2, un, NULL);
    d = H5Dcreate2(file, "unknown names", st4, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char names[3][4] = {{'d', 'e', 'n', 's'}, {'p', 'r', 'e', 's'}, {'v', 'e', 'l', 'x'}}; /* 4 characters, no NUL */
    if (me == 0) H5Dwrite(d, st4, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
    H5Dclose(d); H5Sclose(sp);
    H5Tclose(st400); H5Tclose(st80); H5Tclose(st4);

    const char *rp[4] = {"integer runtime parameters", "string runtime parameters", "real runtime parameters", "logical runtime parameters"};
    const char *sc[4] = {"integer scalars", "string scalars", "real scalars", "logical scalars"};
    write_lists(file, rp, 5, 6, 2, 3);
    write_lists(file, sc, 4, 3, 1, 1);

    /* the tree and the unknowns: every rank its blocks, collective */
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    hsize_t nb = (hsize_t)BLOCKS * np, off = (hsize_t)BLOCKS * me;
    hid_t real = plot ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    {
        hsize_t dims[3] = {nb, MDIM, 2}, start[3] = {off, 0, 0}, count[3] = {BLOCKS, MDIM, 2};
        int lref[BLOCKS] = {1, 1};
        double bbox[BLOCKS][MDIM][2];
        for (int b = 0; b < BLOCKS; b++) for (int k = 0; k < MDIM; k++) { bbox[b][k][0] = off + b; bbox[b][k][1] = off + b + 1; }
        sp = H5Screate_simple(1, dims, NULL);
        d = H5Dcreate2(file, "refine level", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, count, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, lref);
        H5Sclose(fs); H5Sclose(ms); H5Dclose(d); H5Sclose(sp);
        sp = H5Screate_simple(3, dims, NULL);
        d = H5Dcreate2(file, "bounding box", real, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        fs = H5Dget_space(d); ms = H5Screate_simple(3, count, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dx, bbox);
        H5Sclose(fs); H5Sclose(ms); H5Dclose(d); H5Sclose(sp);
    }
    for (int v = 0; v < nvar; v++) {
        hsize_t dims[4] = {nb, NZB, NYB, NXB}, start[4] = {off, 0, 0, 0}, count[4] = {BLOCKS, NZB, NYB, NXB};
        double u[BLOCKS][NZB][NYB][NXB];
        for (int b = 0; b < BLOCKS; b++) for (int j = 0; j < NYB; j++) for (int i = 0; i < NXB; i++) u[b][0][j][i] = v + step + (off + b) * 0.1 + i * 0.01;
        sp = H5Screate_simple(4, dims, NULL);
        d = H5Dcreate2(file, vars[v], real, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t fs = H5Dget_space(d), ms = H5Screate_simple(4, count, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dx, u);
        double lo = v + step, hi = v + step + 1;
        hid_t as = H5Screate_simple(1, &one, NULL);
        hid_t a = H5Acreate2(d, "minimum", H5T_NATIVE_DOUBLE, as, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &lo); H5Aclose(a);
        a = H5Acreate2(d, "maximum", H5T_NATIVE_DOUBLE, as, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &hi); H5Aclose(a);
        H5Sclose(as); H5Sclose(fs); H5Sclose(ms); H5Dclose(d); H5Sclose(sp);
    }
    H5Pclose(dx);
    H5Fclose(file);
    MPI_Info_free(&info);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int chk = 0, plt = 0;
    char name[64];
    for (int step = 0; step <= 12; step++) {
        if (step % 10 == 0) { snprintf(name, sizeof name, "sod_hdf5_chk_%04d", chk++); write_file(name, 0, step); }
        if (step % 5 == 0) { snprintf(name, sizeof name, "sod_hdf5_plt_cnt_%04d", plt++); write_file(name, 1, step); }
    }
    snprintf(name, sizeof name, "sod_hdf5_forced_plt_cnt_%04d", plt++);
    write_file(name, 1, 12);
    MPI_Finalize();
    return 0;
}
