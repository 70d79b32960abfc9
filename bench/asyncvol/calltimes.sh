#!/usr/bin/env bash
# calltimes.sh: builds an LD_PRELOAD library that counts and times every HDF5 API call
# (H5*) the given programs import, per process, split into the calls of the thread that
# made the first one (the application's) and the rest (a connector's threads). Used to
# place the cost of h5proxy's event-set mode against h5bench_write's under the Async VOL
# (docs/modes.md, "Where h5proxy's event sets lost their overlap"):
#
#   bench/asyncvol/calltimes.sh OUT.so bin/hdf5-1.14/h5proxy /path/to/h5bench_write
#   env LD_PRELOAD=$PWD/OUT.so CALLTIMES=/tmp/ct [CALLTIMES_SEQ=/tmp/seq] PROGRAM ...
#
# writes /tmp/ct.PID per process: "app|other CALL COUNT SECONDS MAX_SECONDS" lines (at
# exit, and at every H5Fclose: Go programs end without running C destructors);
# CALLTIMES_SEQ adds each application call in order with its start and duration. Every
# wrapper forwards twelve integer-class arguments (the System V x86-64 convention makes
# that exact for calls taking only integers and pointers); calls with a floating-point
# argument are left out.
set -euo pipefail
out=${1:?usage: $0 OUT.so PROGRAM...}
shift
names=$(for p in "$@"; do nm -D --undefined-only "$p"; done | awk '{print $2}' | sed 's/@.*//' |
	grep -E '^H5' | grep -v -E '_g$|^H5FD_|^H5Pset_chunk_cache$|^H5open$|^H5close$|^H5check_version$' | sort -u)
src=$(mktemp --suffix=.c)
trap 'rm -f "$src"' EXIT
python3 - "$src" $names <<'PY'
import sys
src, names = sys.argv[1], sys.argv[2:]
o = ['#define _GNU_SOURCE', '#include <dlfcn.h>', '#include <stdio.h>', '#include <stdlib.h>',
     '#include <time.h>', '#include <unistd.h>', '#include <sys/syscall.h>', '#include <stdatomic.h>',
     '#define N %d' % len(names),
     'static const char *nm[N] = {%s};' % ','.join('"%s"' % n for n in names),
     'static _Atomic long cnt[2][N], ns[2][N], mx[2][N], first_tid;',
     'static __thread int depth; static FILE *seq; static long t00;',
     'static long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }',
     'static int bucket(void) { long t = syscall(SYS_gettid), z = 0; atomic_compare_exchange_strong(&first_tid, &z, t); return atomic_load(&first_tid) == t ? 0 : 1; }',
     'static void rec(int i, long t, long d) {',
     '  int b = bucket(); cnt[b][i]++; ns[b][i] += d;',
     '  long m = mx[b][i]; while (d > m && !atomic_compare_exchange_weak(&mx[b][i], &m, d)) {}',
     '  if (b == 0 && getenv("CALLTIMES_SEQ")) {',
     '    if (!seq) { char p[512]; snprintf(p, sizeof p, "%s.%d", getenv("CALLTIMES_SEQ"), (int)getpid()); seq = fopen(p, "w"); t00 = t; }',
     '    if (seq) fprintf(seq, "%.4f %s %.4f\\n", (t - t00) / 1e9, nm[i], d / 1e9);',
     '  }',
     '}',
     '__attribute__((destructor)) void calltimes_dump(void) {',
     '  const char *o = getenv("CALLTIMES"); if (seq) fflush(seq); if (!o) return;',
     '  char p[512]; snprintf(p, sizeof p, "%s.%d", o, (int)getpid()); FILE *f = fopen(p, "w"); if (!f) return;',
     '  for (int b = 0; b < 2; b++) for (int i = 0; i < N; i++) if (cnt[b][i])',
     '    fprintf(f, "%s %s %ld %.6f %.6f\\n", b ? "other" : "app", nm[i], (long)cnt[b][i], ns[b][i] / 1e9, mx[b][i] / 1e9);',
     '  fclose(f);',
     '}',
     'typedef long (*fn)(long, long, long, long, long, long, long, long, long, long, long, long);']
for i, n in enumerate(names):
    dump = 'if (top) calltimes_dump(); ' if n.startswith('H5Fclose') else ''
    o.append('long %s(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j, long k, long l) {' % n)
    o.append('  static fn r; if (!r) r = (fn)dlsym(RTLD_NEXT, "%s"); int top = depth++ == 0; long t = now();' % n)
    o.append('  long v = r(a, b, c, d, e, f, g, h, i, j, k, l); long dt = now() - t; depth--;')
    o.append('  if (top) rec(%d, t, dt); %sreturn v;' % (i, dump))
    o.append('}')
open(src, 'w').write('\n'.join(o) + '\n')
PY
gcc -O1 -shared -fPIC -w -o "$out" "$src" -ldl
echo "calltimes.sh: $out wraps $(echo "$names" | wc -w) HDF5 calls"
