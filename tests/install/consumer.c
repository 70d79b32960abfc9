/* consumer.c: uses an installed h5proxy (find_package or pkg-config). Runs a null-layout
 * session, checks the reduced byte count, and prints one result line. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <h5proxy.h>

#define CHECK(call)                                                               \
    do {                                                                          \
        if ((call) != H5PROXY_OK) {                                               \
            fprintf(stderr, "consumer_c: %s: %s\n", #call, h5proxy_last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

int main(int argc, char **argv) {
    int rank = 0, size = 0, bad = 0, all = 0;
    char names[256];
    double bytes = 0;
    h5proxy_session_t s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(h5proxy_patterns_list(names, sizeof names, NULL));
    bad += strstr(names, "vpic") == NULL;
    bad += h5proxy_abi_version() != H5PROXY_ABI_VERSION;
    CHECK(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "layout=null;TIMESTEPS=2;DIM_1=100", NULL, &s));
    CHECK(h5proxy_session_run(s));
    CHECK(h5proxy_report_metric(s, 0, "bytes", &bytes));
    bad += bytes != 2.0 * 100 * 32 * size;
    CHECK(h5proxy_session_close(s));
    bad += h5proxy_session_close(s) != H5PROXY_ERR_INVALID_HANDLE;
    CHECK(h5proxy_finalize());
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("consumer_c: %d ranks, %.0f bytes: %s\n", size, bytes, all ? "FAILED" : "OK");
    MPI_Finalize();
    return all != 0;
}
