/* vpic_read: the HDF5 call sequence of h5bench's BD-CATS read kernel (h5bench_read, 1-D
 * contiguous file, sync mode) over a file vpic_write (or h5bench_write) wrote, from the facts
 * of h5bench's h5bench_patterns/h5bench_read.c.
 *
 *   mpirun -np 2 vpic_read FILE DIM_1 TIMESTEPS COLLECTIVE_DATA FULL
 *   mpirun -np 2 vpic_read FILE DIM_1 TIMESTEPS COLLECTIVE_DATA PARTIAL TO_READ_NUM_PARTICLES
 *   mpirun -np 2 vpic_read FILE DIM_1 TIMESTEPS COLLECTIVE_DATA STRIDED STRIDE_SIZE BLOCK_SIZE BLOCK_CNT
 *
 * What h5bench does, and this program with it:
 *   - File access: MPI-IO driver, H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write
 *     (always, whatever COLLECTIVE_METADATA says); a group access list with defaults.
 *   - Before the timed window: H5Fopen read-only, the extent of /Timestep_0/px (open, get
 *     space, close), particles per rank = extent / ranks, offset = rank's prefix sum, the 8
 *     read buffers of DIM_1 elements each; the selection (FULL and PARTIAL: one
 *     H5S_SELECT_SET hyperslab at the offset, count 1, block = elements to read; STRIDED:
 *     start offset, stride STRIDE_SIZE, count BLOCK_CNT, block BLOCK_SIZE) and a 1-D memory
 *     space of the element count.
 *   - Timed window (observed time) = the first group open ... H5Fclose + barrier: the file
 *     open is outside it.
 *   - Per step i: H5Gopen2 "Timestep_i" (metadata time); with a dataset access list that sets
 *     H5Pset_all_coll_metadata_ops, H5Dopen2 of x y z id_1 id_2 px py pz in that order
 *     (metadata time); 8 H5Dread (raw read time); the 8 datasets and the group are closed
 *     (metadata time).
 *   - Rank 0 prints its own times in h5bench's read summary format. */
#include "ref_common.h"

#define NVARS 8

static const char *names[NVARS] = {"x", "y", "z", "id_1", "id_2", "px", "py", "pz"};

int main(int argc, char **argv)
{
    int rank, nranks;
    ref_init(&argc, &argv, &rank, &nranks);
    if (argc < 6)
        ref_die("usage: %s FILE DIM_1 TIMESTEPS COLLECTIVE_DATA FULL|PARTIAL N|STRIDED STRIDE BLOCK CNT",
                argv[0]);
    const char *path = argv[1];
    unsigned long long dim1 = ref_ull("DIM_1", argv[2]);
    int steps = (int)ref_ull("TIMESTEPS", argv[3]);
    int coll_data = ref_yesno("COLLECTIVE_DATA", argv[4]);
    const char *opt = argv[5];
    unsigned long long to_read = dim1, stride = 0, block = 0, cnt = 0;
    int strided = 0;
    if (strcmp(opt, "FULL") == 0) {
        if (argc != 6)
            ref_die("READ_OPTION FULL takes no further argument");
    } else if (strcmp(opt, "PARTIAL") == 0) {
        if (argc != 7)
            ref_die("READ_OPTION PARTIAL takes TO_READ_NUM_PARTICLES");
        to_read = ref_ull("TO_READ_NUM_PARTICLES", argv[6]);
    } else if (strcmp(opt, "STRIDED") == 0) {
        if (argc != 9)
            ref_die("READ_OPTION STRIDED takes STRIDE_SIZE BLOCK_SIZE BLOCK_CNT");
        stride = ref_ull("STRIDE_SIZE", argv[6]);
        block = ref_ull("BLOCK_SIZE", argv[7]);
        cnt = ref_ull("BLOCK_CNT", argv[8]);
        if ((stride + block) * cnt > dim1)
            ref_die("STRIDED: (STRIDE_SIZE + BLOCK_SIZE) * BLOCK_CNT = %llu exceeds DIM_1 = %llu",
                    (stride + block) * cnt, dim1);
        to_read = block * cnt;
        strided = 1;
    } else
        ref_die("argument READ_OPTION: %s is not FULL, PARTIAL or STRIDED", opt);
    if (steps == 0 || to_read == 0)
        ref_die("TIMESTEPS and the element count to read must be positive");

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), gapl = H5Pcreate(H5P_GROUP_ACCESS);
    REF_CHECK(fapl);
    REF_CHECK(gapl);
    REF_CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    REF_CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    REF_CHECK(H5Pset_coll_metadata_write(fapl, 1));
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (file < 0)
        ref_die("cannot open %s", path);
    hid_t g0 = H5Gopen2(file, "/Timestep_0", H5P_DEFAULT);
    REF_CHECK(g0);
    hid_t d0 = H5Dopen2(g0, "px", H5P_DEFAULT);
    REF_CHECK(d0);
    hid_t filespace = H5Dget_space(d0);
    REF_CHECK(filespace);
    H5Dclose(d0);
    H5Gclose(g0);
    hsize_t fdim = 0;
    if (H5Sget_simple_extent_ndims(filespace) != 1 || H5Sget_simple_extent_dims(filespace, &fdim, NULL) != 1)
        ref_die("%s: /Timestep_0/px is not 1-D", path);
    long long per_rank = (long long)(fdim / (hsize_t)nranks), offset = 0;
    if (dim1 > (unsigned long long)per_rank)
        ref_die("DIM_1 = %llu exceeds the %lld particles per rank in %s", dim1, per_rank, path);
    if (to_read > (unsigned long long)per_rank)
        ref_die("%llu particles to read exceed the %lld per rank in %s", to_read, per_rank, path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Scan(&per_rank, &offset, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    offset -= per_rank;
    void *buf[NVARS];
    for (int v = 0; v < NVARS; v++)
        if ((buf[v] = malloc(dim1 * 4)) == NULL)
            ref_die("out of memory for %llu particles", dim1);

    unsigned long t1 = ref_usec();
    hsize_t mcount = (hsize_t)to_read, start = (hsize_t)offset, one = 1;
    hid_t memspace = H5Screate_simple(1, &mcount, NULL);
    REF_CHECK(memspace);
    if (strided) {
        hsize_t hs = stride, hc = cnt, hb = block;
        REF_CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &start, &hs, &hc, &hb));
    } else
        REF_CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &start, NULL, &one, &mcount));
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    REF_CHECK(dxpl);
    REF_CHECK(H5Pset_dxpl_mpio(dxpl, coll_data ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));

    unsigned long raw_us = 0, meta_us = 0;
    char gname[64];
    hid_t d[NVARS];
    for (int s = 0; s < steps; s++) {
        snprintf(gname, sizeof gname, "Timestep_%d", s);
        unsigned long a = ref_usec();
        hid_t g = H5Gopen2(file, gname, gapl);
        unsigned long b = ref_usec();
        if (g < 0)
            ref_die("%s: no group %s", path, gname);
        hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
        REF_CHECK(dapl);
        REF_CHECK(H5Pset_all_coll_metadata_ops(dapl, 1));
        unsigned long c = ref_usec();
        for (int v = 0; v < NVARS; v++)
            if ((d[v] = H5Dopen2(g, names[v], dapl)) < 0)
                ref_die("%s: no dataset %s/%s", path, gname, names[v]);
        unsigned long e = ref_usec();
        for (int v = 0; v < NVARS; v++)
            REF_CHECK(H5Dread(d[v], v == 3 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT, memspace, filespace, dxpl, buf[v]));
        unsigned long r = ref_usec();
        H5Pclose(dapl);
        unsigned long k0 = ref_usec();
        for (int v = 0; v < NVARS; v++)
            REF_CHECK(H5Dclose(d[v]));
        REF_CHECK(H5Gclose(g));
        unsigned long k1 = ref_usec();
        meta_us += (b - a) + (e - c) + (k1 - k0);
        raw_us += r - e;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    H5Pclose(fapl);
    H5Pclose(gapl);
    REF_CHECK(H5Fclose(file));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long t4 = ref_usec();

    if (rank == 0) {
        double bytes = (double)nranks * steps * (double)to_read * (6 * sizeof(float) + 2 * sizeof(int));
        ref_summary("read", nranks, bytes, raw_us / 1e6, meta_us / 1e6, NULL, "Observed read completion time",
                    (t4 - t1) / 1e6);
    }
    for (int v = 0; v < NVARS; v++)
        free(buf[v]);
    H5Sclose(filespace);
    H5Sclose(memspace);
    H5Pclose(dxpl);
    MPI_Finalize();
    return 0;
}
