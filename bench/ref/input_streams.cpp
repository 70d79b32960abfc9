/* input_streams: how two C++ HPC programs read their input files, in their own code, so that
 * h5proxy's built-ins can be compared with them under a profiler (the calls come from
 * libstdc++'s std::basic_filebuf: fopen64, then fileno before every lseek64 and read).
 *
 *   mpirun -np N input_streams amrex FILE     AMReX's ParallelDescriptor::ReadAndBcastFile
 *                                             (Src/Base/AMReX_ParallelDescriptor.cpp), as
 *                                             amrex::Initialize's ParmParse reads its inputs
 *                                             file: the I/O rank (0) reads it with a
 *                                             std::ifstream of a 262144 * 8 byte buffer
 *                                             (pubsetbuf), seekg(0, end), tellg, seekg(0,
 *                                             beg), one read of the length, close; then the
 *                                             length and the bytes are broadcast.
 *   mpirun -np N input_streams openpmd FILE   openPMD-api's examples/8a_benchmark_write_
 *                                             parallel.cpp parseArgs: every rank opens a
 *                                             std::fstream with std::ios::in and reads it
 *                                             with std::getline to the end, then closes it.
 *
 * It prints the number of lines (openpmd) or bytes (amrex) rank 0 got, and nothing else.
 */
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

static int amrex(const char *filename, int rank) {
    enum { IO_Buffer_Size = 262144 * 8 };
    std::vector<char> io_buffer(IO_Buffer_Size);
    long fileLength = 0;
    std::ifstream iss;
    if (rank == 0) {
        iss.rdbuf()->pubsetbuf(io_buffer.data(), io_buffer.size());
        iss.open(filename, std::ios::in);
        if (!iss.good()) {
            fileLength = -1;
        } else {
            iss.seekg(0, std::ios::end);
            fileLength = static_cast<std::streamoff>(iss.tellg());
            iss.seekg(0, std::ios::beg);
        }
    }
    MPI_Bcast(&fileLength, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (fileLength < 0) return 1;
    std::vector<char> charBuf(fileLength + 1);
    if (rank == 0) {
        iss.read(charBuf.data(), fileLength);
        iss.close();
    }
    MPI_Bcast(charBuf.data(), (int)fileLength + 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%ld\n", fileLength);
    return 0;
}

static int openpmd(const char *filename, int rank) {
    std::fstream infile;
    infile.open(filename, std::ios::in);
    if (!infile.is_open()) return 1;
    std::string tp;
    int n = 0;
    while (std::getline(infile, tp)) n++;
    infile.close();
    if (rank == 0) std::printf("%d\n", n);
    return 0;
}

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0) std::fprintf(stderr, "usage: input_streams amrex|openpmd FILE\n");
        MPI_Finalize();
        return 2;
    }
    std::string mode = argv[1];
    int rc = mode == "amrex" ? amrex(argv[2], rank) : mode == "openpmd" ? openpmd(argv[2], rank) : 2;
    if (rc == 1) std::fprintf(stderr, "input_streams: cannot open %s\n", argv[2]);
    MPI_Finalize();
    return rc;
}
