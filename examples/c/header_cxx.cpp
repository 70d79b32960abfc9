// header_cxx.cpp: include/h5proxy.h compiles as C++ and its functions link with C
// linkage (the extern "C" guards). Runs without MPI: only library-level calls.
#include "h5proxy.h"

#include <cstdio>
#include <cstring>

int main() {
    if (h5proxy_abi_version() != H5PROXY_ABI_VERSION) {
        std::fprintf(stderr, "header_cxx: ABI %d, header %d\n", h5proxy_abi_version(), H5PROXY_ABI_VERSION);
        return 1;
    }
    if (std::strncmp(h5proxy_strerror(H5PROXY_ERR_CONFIG), "H5PROXY_ERR_CONFIG", 18) != 0) {
        std::fprintf(stderr, "header_cxx: strerror gave %s\n", h5proxy_strerror(H5PROXY_ERR_CONFIG));
        return 1;
    }
    h5proxy_session_t s = 0;
    int steps = 0;
    int rc = h5proxy_session_steps(s, &steps);
    if (rc != H5PROXY_ERR_INVALID_HANDLE || std::strstr(h5proxy_last_error(), "handle 0") == nullptr) {
        std::fprintf(stderr, "header_cxx: steps(0) = %d, %s\n", rc, h5proxy_last_error());
        return 1;
    }
    std::printf("header_cxx: h5proxy %d.%d.%d ABI %d from C++: OK\n", H5PROXY_VERSION_MAJOR,
                H5PROXY_VERSION_MINOR, H5PROXY_VERSION_PATCH, H5PROXY_ABI_VERSION);
    return 0;
}
