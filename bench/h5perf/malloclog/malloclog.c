/*
 * malloclog.c: an LD_PRELOAD library that prints where malloc puts every allocation of
 * 1 MiB or more (address, offset past a page boundary, offset modulo 64), to see where a C
 * program's transfer buffers sit (docs/h5perf.md, "The POSIX reads' buffer"):
 *
 *   cc -shared -fPIC -O2 -o /tmp/malloclog.so bench/h5perf/malloclog/malloclog.c -ldl
 *   mpirun -np 2 -x LD_PRELOAD=/tmp/malloclog.so /tmp/h5perf-real/h5perf -e 256M -x 4M -X 4M -B 1M -i 3 -P 2 -p 2 2>&1 | grep '^malloc'
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);

void *malloc(size_t n) {
    if (!next_malloc) next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    void *p = next_malloc(n);
    if (n >= (1u << 20)) {
        char line[128]; /* write(2), not stdio: stdio may call malloc */
        int k = snprintf(line, sizeof line, "malloc %zu -> %p (page offset %lu, mod 64 = %lu)\n", n, p,
                         (unsigned long)((uintptr_t)p % 4096), (unsigned long)((uintptr_t)p % 64));
        if (k > 0) (void)!write(2, line, (size_t)k);
    }
    return p;
}
