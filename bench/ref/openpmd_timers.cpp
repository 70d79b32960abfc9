/* openpmd_timers: the plain-file reads of openPMD-api's 8a write benchmark
 * (examples/8a_benchmark_write_parallel.cpp at openPMD-api 0.15.1, h5bench's openpmd
 * submodule), in its own order, around a parallel HDF5 file that stands for the series:
 *
 *   parseArgs       every rank opens FILE with a std::fstream (std::ios::in), reads it with
 *                   std::getline to the end and closes it;
 *   Timer g         main's timer after parseArgs: its constructor's MemoryProfiler reads
 *                   /proc/self/status on rank 0 (Display: a std::ifstream read with
 *                   getline, is_open checked);
 *   Timer kk        AbstractPattern::run's timer, constructed before the Series: the same;
 *   the series      H5Fcreate (H5F_ACC_TRUNC, MPI-IO, collective) of DIR/8a_parallel_3Db.h5
 *                   and its H5Fclose, as the Series' construction and destruction make
 *                   them in the same block;
 *   ~Timer kk       after the Series is destroyed: the same read of /proc/self/status.
 *
 * g's destructor runs after MPI_Finalize, outside any MPI profiler's window, and is left out.
 *
 *   mpirun -np N openpmd_timers FILE DIR
 *
 * It prints the number of lines of FILE rank 0 read, and nothing else.
 */
#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>

static void display(int rank) {
    if (rank > 0) return;
    std::ifstream input("/proc/self/status");
    if (input.is_open()) {
        for (std::string line; getline(input, line);) {
        }
        input.close();
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0) std::fprintf(stderr, "usage: openpmd_timers FILE DIR\n");
        MPI_Finalize();
        return 2;
    }
    std::fstream infile;
    infile.open(argv[1], std::ios::in);
    if (!infile.is_open()) {
        std::fprintf(stderr, "openpmd_timers: cannot open %s\n", argv[1]);
        MPI_Finalize();
        return 1;
    }
    int n = 0;
    for (std::string tp; getline(infile, tp);) n++;
    infile.close();

    display(rank); // Timer g
    display(rank); // Timer kk
    std::string path = std::string(argv[2]) + "/8a_parallel_3Db.h5";
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0 || H5Fclose(f) < 0) {
        std::fprintf(stderr, "openpmd_timers: cannot create %s\n", path.c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    display(rank); // ~Timer kk

    if (rank == 0) std::printf("%d\n", n);
    MPI_Finalize();
    return 0;
}
