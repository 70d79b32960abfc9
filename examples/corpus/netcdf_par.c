/* netcdf_par: a history file written through netCDF-4 in parallel, the way PIO (the
 * ParallelIO library E3SM and CESM write their history files with) drives netCDF for
 * PIO_IOTYPE_NETCDF4P.
 *
 * Read (facts, not code): PIO's src/clib (PIOc_def_var: after nc_def_var a netCDF-4
 * parallel file gets nc_var_par_access(NC_COLLECTIVE); the put_var* paths call
 * nc_var_par_access(NC_COLLECTIVE) then nc_put_vara/vars; PIO_IOTYPE_NETCDF files are
 * written by io_rank 0 alone) and netCDF-C's nc_create_par (NC_NETCDF4|NC_MPIIO).
 *
 * Shape: dimensions time (unlimited), lev (fixed), ncol (16 per rank); global attributes;
 * a fixed coordinate lat(ncol) written collectively, each rank its columns; hyam(lev)
 * written by rank 0 alone with independent access; record variables T(time, lev, ncol)
 * and PS(time, ncol) and time(time) written collectively each record (time: rank 0's
 * element, the other ranks an empty count). Three records. Writes history.nc in the
 * working directory.
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

#define CHK(e) do { int rc_ = (e); if (rc_ != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, nc_strerror(rc_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

enum { NCOL_PER_RANK = 16, NLEV = 4, NREC = 3 };

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t ncol = (size_t)NCOL_PER_RANK * size, c0 = (size_t)NCOL_PER_RANK * rank;

    int nc, dtime, dlev, dcol, vlat, vhyam, vT, vPS, vtime;
    CHK(nc_create_par("history.nc", NC_NETCDF4 | NC_MPIIO | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc));
    CHK(nc_put_att_text(nc, NC_GLOBAL, "title", 21, "corpus netCDF-4 (PIO)"));
    int ne = 30;
    CHK(nc_put_att_int(nc, NC_GLOBAL, "ne", NC_INT, 1, &ne));
    CHK(nc_def_dim(nc, "time", NC_UNLIMITED, &dtime));
    CHK(nc_def_dim(nc, "lev", NLEV, &dlev));
    CHK(nc_def_dim(nc, "ncol", ncol, &dcol));
    CHK(nc_def_var(nc, "lat", NC_DOUBLE, 1, &dcol, &vlat));
    CHK(nc_put_att_text(nc, vlat, "units", 13, "degrees_north"));
    CHK(nc_def_var(nc, "hyam", NC_DOUBLE, 1, &dlev, &vhyam));
    CHK(nc_put_att_text(nc, vhyam, "long_name", 36, "hybrid A coefficient at layer midpts"));
    int d3[3] = {dtime, dlev, dcol}, d2[2] = {dtime, dcol};
    CHK(nc_def_var(nc, "T", NC_FLOAT, 3, d3, &vT));
    CHK(nc_put_att_text(nc, vT, "units", 1, "K"));
    float fill = 1e36f;
    CHK(nc_put_att_float(nc, vT, "_FillValue", NC_FLOAT, 1, &fill));
    CHK(nc_def_var(nc, "PS", NC_FLOAT, 2, d2, &vPS));
    CHK(nc_put_att_text(nc, vPS, "units", 2, "Pa"));
    CHK(nc_def_var(nc, "time", NC_DOUBLE, 1, &dtime, &vtime));
    CHK(nc_put_att_text(nc, vtime, "units", 21, "days since 2000-01-01"));
    /* PIOc_def_var: every variable of a NETCDF4P file collective once defined. */
    int vars[] = {vlat, vhyam, vT, vPS, vtime};
    for (int i = 0; i < 5; i++) CHK(nc_var_par_access(nc, vars[i], NC_COLLECTIVE));
    CHK(nc_enddef(nc));

    double lat[NCOL_PER_RANK];
    for (int i = 0; i < NCOL_PER_RANK; i++) lat[i] = -90.0 + (double)(c0 + i) * 180.0 / ncol;
    CHK(nc_put_vara_double(nc, vlat, &c0, (size_t[]){NCOL_PER_RANK}, lat));

    /* rank 0 alone, independent access (a serial-style put on one variable) */
    CHK(nc_var_par_access(nc, vhyam, NC_INDEPENDENT));
    if (rank == 0) {
        double hyam[NLEV] = {0.1, 0.2, 0.3, 0.4};
        CHK(nc_put_var_double(nc, vhyam, hyam));
    }
    CHK(nc_var_par_access(nc, vhyam, NC_COLLECTIVE));

    float T[NLEV][NCOL_PER_RANK], PS[NCOL_PER_RANK];
    for (size_t r = 0; r < NREC; r++) {
        for (int l = 0; l < NLEV; l++)
            for (int i = 0; i < NCOL_PER_RANK; i++) T[l][i] = 250.0f + r + l + (c0 + i) * 0.01f;
        for (int i = 0; i < NCOL_PER_RANK; i++) PS[i] = 1e5f + r + i;
        CHK(nc_put_vara_float(nc, vT, (size_t[]){r, 0, c0}, (size_t[]){1, NLEV, NCOL_PER_RANK}, &T[0][0]));
        CHK(nc_put_vara_float(nc, vPS, (size_t[]){r, c0}, (size_t[]){1, NCOL_PER_RANK}, PS));
        double t = 0.5 * r;
        CHK(nc_put_vara_double(nc, vtime, (size_t[]){r}, (size_t[]){rank == 0 ? 1 : 0}, &t));
    }
    CHK(nc_close(nc));
    MPI_Finalize();
    return 0;
}
