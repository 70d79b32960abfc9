/* vpic_write: the HDF5 call sequence of h5bench's VPIC-IO write kernel (h5bench_write,
 * pattern CONTIG_CONTIG_1D, sync mode), written from the facts of h5bench's
 * h5bench_patterns/h5bench_write.c and commons/h5bench_util.c, so that h5proxy's vpic write
 * phase can be timed against it without h5bench installed.
 *
 *   mpirun -np 2 vpic_write FILE DIM_1 TIMESTEPS COLLECTIVE_DATA COLLECTIVE_METADATA \
 *          DELAYED_CLOSE_TIMESTEPS [ALIGN_THRESHOLD ALIGN_LEN]
 *
 * COLLECTIVE_* are yes/no; ALIGN_* in bytes (both or neither; 0 0 or absent: no
 * H5Pset_alignment, h5bench's default).
 *
 * What h5bench does, and this program with it:
 *   - File access: MPI-IO driver on MPI_COMM_WORLD; H5Pset_alignment when ALIGN; with
 *     collective metadata H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write; always
 *     a metadata cache starting at 16 MiB with evictions off and every automatic resize off
 *     (h5bench's DEFER_METADATA_FLUSH).
 *   - Data is prepared once, before the timed window: 8 arrays of DIM_1 values (x y z px py
 *     pz id_2 float, id_1 int), the file and memory dataspaces (1-D, the rank's slab at
 *     offset rank*DIM_1 selected with one H5S_SELECT_SET hyperslab). Every step writes the
 *     same buffers.
 *   - Timed window (observed time) = H5Fcreate ... H5Fclose + barrier, measured on rank 0.
 *   - Per step i: H5Gcreate2 "Timestep_i" (metadata time), H5Dcreate2 of x y z px py pz id_1
 *     id_2 in that order with default creation properties (metadata time), then 8 H5Dwrite
 *     with a transfer list that is collective or independent (raw write time). Without
 *     delayed close the 8 datasets and the group are closed right after (not counted in any
 *     time). With DELAYED_CLOSE_TIMESTEPS > 0 and no Async VOL, h5bench's delayed close is a
 *     no-op during the loop and everything is closed after the last step (untimed).
 *   - After the loop: H5Fflush(H5F_SCOPE_LOCAL) (timed), H5Fclose (timed), barrier.
 *   - Rank 0 prints its own times in h5bench's summary format. */
#include "ref_common.h"

#define NVARS 8

static const char *names[NVARS] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};

int main(int argc, char **argv)
{
    int rank, nranks;
    ref_init(&argc, &argv, &rank, &nranks);
    if (argc != 7 && argc != 9)
        ref_die("usage: %s FILE DIM_1 TIMESTEPS COLLECTIVE_DATA COLLECTIVE_METADATA "
                "DELAYED_CLOSE_TIMESTEPS [ALIGN_THRESHOLD ALIGN_LEN]",
                argv[0]);
    const char *path = argv[1];
    unsigned long long n = ref_ull("DIM_1", argv[2]);
    int steps = (int)ref_ull("TIMESTEPS", argv[3]);
    int coll_data = ref_yesno("COLLECTIVE_DATA", argv[4]);
    int coll_meta = ref_yesno("COLLECTIVE_METADATA", argv[5]);
    int delay = (int)ref_ull("DELAYED_CLOSE_TIMESTEPS", argv[6]);
    unsigned long long align_threshold = 0, align_len = 0;
    if (argc == 9) {
        align_threshold = ref_ull("ALIGN_THRESHOLD", argv[7]);
        align_len = ref_ull("ALIGN_LEN", argv[8]);
    }
    if (n == 0 || steps == 0)
        ref_die("DIM_1 and TIMESTEPS must be positive (got %llu, %d)", n, steps);

    long long my = (long long)n, total = 0, offset = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&my, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(&my, &offset, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    offset -= my;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    REF_CHECK(fapl);
    REF_CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (align_len > 0)
        REF_CHECK(H5Pset_alignment(fapl, align_threshold, align_len));
    if (coll_meta) {
        REF_CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
        REF_CHECK(H5Pset_coll_metadata_write(fapl, 1));
    }
    H5AC_cache_config_t mdc;
    mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    REF_CHECK(H5Pget_mdc_config(fapl, &mdc));
    mdc.set_initial_size = 1;
    mdc.initial_size = 16 * 1024 * 1024;
    mdc.evictions_enabled = 0;
    mdc.incr_mode = H5C_incr__off;
    mdc.flash_incr_mode = H5C_flash_incr__off;
    mdc.decr_mode = H5C_decr__off;
    REF_CHECK(H5Pset_mdc_config(fapl, &mdc));

    /* Data preparation, outside the timed window as in h5bench. */
    unsigned long tprep = ref_usec();
    hsize_t fdim = (hsize_t)total, mdim = (hsize_t)n, start = (hsize_t)offset;
    hid_t filespace = H5Screate_simple(1, &fdim, NULL);
    hid_t memspace = H5Screate_simple(1, &mdim, NULL);
    REF_CHECK(filespace);
    REF_CHECK(memspace);
    REF_CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &start, NULL, &mdim, NULL));
    float *f[NVARS];
    int *id1 = malloc(n * sizeof(int));
    for (int v = 0; v < NVARS; v++)
        f[v] = v == 6 ? NULL : malloc(n * sizeof(float));
    if (id1 == NULL)
        ref_die("out of memory for %llu particles", n);
    for (int v = 0; v < NVARS; v++)
        if (v != 6 && f[v] == NULL)
            ref_die("out of memory for %llu particles", n);
    srand(12345 + rank);
    for (unsigned long long i = 0; i < n; i++) {
        id1[i] = (int)i;
        f[7][i] = (float)(i * 2);
        f[0][i] = (float)rand() / (float)RAND_MAX * 191;
        f[1][i] = (float)rand() / (float)RAND_MAX * 1009;
        f[3][i] = (float)rand() / (float)RAND_MAX * 191;
        f[4][i] = (float)rand() / (float)RAND_MAX * 1009;
        f[2][i] = ((float)id1[i] / (float)n) * 3701;
        f[5][i] = (f[7][i] / (float)n) * 3701;
    }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    REF_CHECK(dxpl);
    REF_CHECK(H5Pset_dxpl_mpio(dxpl, coll_data ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    unsigned long prep_us = ref_usec() - tprep;

    hid_t *gids = calloc((size_t)steps, sizeof(hid_t));
    hid_t *dids = calloc((size_t)steps * NVARS, sizeof(hid_t));
    if (gids == NULL || dids == NULL)
        ref_die("out of memory for %d steps", steps);

    unsigned long t1 = ref_usec();
    unsigned long tcreate0 = ref_usec();
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    unsigned long tcreate1 = ref_usec();
    REF_CHECK(file);
    MPI_Barrier(MPI_COMM_WORLD);

    unsigned long raw_us = 0, meta_us = 0;
    char gname[64];
    for (int s = 0; s < steps; s++) {
        snprintf(gname, sizeof gname, "Timestep_%d", s);
        unsigned long a = ref_usec();
        gids[s] = H5Gcreate2(file, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        unsigned long b = ref_usec();
        REF_CHECK(gids[s]);
        hid_t *d = dids + (size_t)s * NVARS;
        for (int v = 0; v < NVARS; v++) {
            d[v] = H5Dcreate2(gids[s], names[v], v == 6 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT, filespace,
                              H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            REF_CHECK(d[v]);
        }
        unsigned long c = ref_usec();
        for (int v = 0; v < NVARS; v++) {
            herr_t e = v == 6 ? H5Dwrite(d[v], H5T_NATIVE_INT, memspace, filespace, dxpl, id1)
                              : H5Dwrite(d[v], H5T_NATIVE_FLOAT, memspace, filespace, dxpl, f[v]);
            REF_CHECK(e);
        }
        unsigned long e = ref_usec();
        meta_us += (b - a) + (c - b);
        raw_us += e - c;
        if (delay == 0) {
            for (int v = 0; v < NVARS; v++)
                REF_CHECK(H5Dclose(d[v]));
            REF_CHECK(H5Gclose(gids[s]));
        }
    }
    if (delay > 0) { /* h5bench's final run closes what the sync loop left open */
        for (int s = 0; s < steps; s++) {
            for (int v = 0; v < NVARS; v++)
                REF_CHECK(H5Dclose(dids[(size_t)s * NVARS + v]));
            REF_CHECK(H5Gclose(gids[s]));
        }
    }
    REF_CHECK(H5Pclose(fapl));
    unsigned long tflush0 = ref_usec();
    REF_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
    unsigned long tflush1 = ref_usec();
    REF_CHECK(H5Fclose(file));
    unsigned long tclose1 = ref_usec();
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long t4 = ref_usec();

    if (rank == 0) {
        double bytes = (double)nranks * steps * (double)n * (7 * sizeof(float) + sizeof(int));
        char extra[256];
        snprintf(extra, sizeof extra, "H5Fcreate() time: %.3f s\nH5Fflush() time: %.3f s\nH5Fclose() time: %.3f s\n",
                 (tcreate1 - tcreate0) / 1e6, (tflush1 - tflush0) / 1e6, (tclose1 - tflush1) / 1e6);
        ref_summary("write", nranks, bytes, raw_us / 1e6, meta_us / 1e6, extra, "Observed completion time",
                    (t4 - t1) / 1e6);
        /* Not one of h5bench's lines: the preparation h5bench leaves outside its window. */
        printf("Data preparation time (outside the window): %.3f s\n", prep_us / 1e6);
    }
    for (int v = 0; v < NVARS; v++)
        free(f[v]);
    free(id1);
    free(gids);
    free(dids);
    H5Sclose(filespace);
    H5Sclose(memspace);
    H5Pclose(dxpl);
    MPI_Finalize();
    return 0;
}
