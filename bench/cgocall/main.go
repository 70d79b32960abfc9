// Command cgocall measures what a Go program pays, on a rank bound to one core, for each
// blocking C call it makes: the reads of `h5proxy ior -a MPIIO` are each one cgo call into
// MPI, where IOR's are plain C calls. It reads a file of -size bytes from the page cache
// in -xfer transfers into one page-aligned buffer, two ways, interleaved (A B A B):
//
//   - "C loop": one cgo call that makes every pread itself (the C program's case);
//   - "cgo per read": one cgo call per pread (h5proxy's case).
//
// Each round runs first with every thread of the process bound to the first core of its
// affinity mask (as mpirun binds each of 2 ranks), then unbound. It prints the medians of
// -reps rounds (GiB/s) and the context switches per read (getrusage), which show where
// the time goes: the Go runtime wakes its monitor and hands the P on around every C call
// that outlasts its 20 µs tick, and on a single core those threads take turns with the
// copying one.
//
//	go run ./bench/cgocall                       # 512 MiB in 4 MiB reads, 9 rounds
//	go run ./bench/cgocall -size 256MiB -xfer 1MiB -reps 15
package main

/*
#include <unistd.h>

// cgocall_loop reads n transfers of xfer bytes at successive offsets into buf and returns
// the bytes read (stops at the first short read).
static long long cgocall_loop(int fd, void *buf, long long xfer, long long n) {
	long long done = 0;
	for (long long i = 0; i < n; i++) {
		ssize_t r = pread(fd, buf, (size_t)xfer, (off_t)(i * xfer));
		if (r <= 0) break;
		done += r;
		if (r < xfer) break;
	}
	return done;
}

// cgocall_one reads one transfer of xfer bytes at off into buf.
static long long cgocall_one(int fd, void *buf, long long xfer, long long off) {
	return (long long)pread(fd, buf, (size_t)xfer, (off_t)off);
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/options"
)

const name = "cgocall bench"

func main() {
	size := flag.String("size", "512MiB", "bytes of the file read per round")
	xfer := flag.String("xfer", "4MiB", "bytes per read")
	reps := benchmain.Reps(9, "rounds (medians are reported)")
	dir := benchmain.Dir()
	flag.Parse()
	n, err := options.ParseSize(*size)
	benchmain.Check(name, 2, err)
	x, err := options.ParseSize(*xfer)
	benchmain.Check(name, 2, err)
	if x == 0 || n < x {
		benchmain.Check(name, 2, fmt.Errorf("-xfer %s must be positive and at most -size %s", *xfer, *size))
	}
	os.Exit(run(int64(n), int64(x), *reps, *dir))
}

// way is one of the two ways of reading.
type way struct {
	label string
	read  func(fd int, buf []byte) (int64, error)
}

func run(size, xfer int64, reps int, dir string) int {
	d, done, err := benchmain.TempDir("cgocall-bench", dir)
	benchmain.Check(name, 1, err)
	defer done()
	path := filepath.Join(d, "data")
	count := size / xfer
	buf, err := emulate.Alloc(int(xfer))
	benchmain.Check(name, 1, err)
	defer buf.Free()
	benchmain.Check(name, 1, writeFile(path, buf.Bytes(), count))
	f, err := os.Open(path)
	benchmain.Check(name, 1, err)
	defer f.Close()
	fd := int(f.Fd())
	ways := []*way{
		{label: "C loop", read: func(fd int, b []byte) (int64, error) {
			return int64(C.cgocall_loop(C.int(fd), unsafe.Pointer(&b[0]), C.longlong(xfer), C.longlong(count))), nil
		}},
		{label: "cgo per read", read: func(fd int, b []byte) (int64, error) {
			var got int64
			for i := int64(0); i < count; i++ {
				r := int64(C.cgocall_one(C.int(fd), unsafe.Pointer(&b[0]), C.longlong(xfer), C.longlong(i*xfer)))
				if r != xfer {
					return got, fmt.Errorf("read %d of %d bytes at %d", r, xfer, i*xfer)
				}
				got += r
			}
			return got, nil
		}},
	}
	// Every read happens on this goroutine's thread; bound rounds bind every thread.
	runtime.LockOSThread()
	var all unix.CPUSet
	benchmain.Check(name, 1, unix.SchedGetaffinity(0, &all))
	first := firstCPU(&all)
	type result struct{ rate, csw []float64 }
	res := map[string]*result{}
	for r := 0; r < reps; r++ {
		for _, bound := range []bool{true, false} {
			set := all
			if bound {
				set.Zero()
				set.Set(first)
			}
			benchmain.Check(name, 1, bindAll(&set))
			for _, w := range ways {
				start, before := time.Now(), switches()
				got, err := w.read(fd, buf.Bytes())
				el, after := time.Since(start), switches()
				if err == nil && got != count*xfer {
					err = fmt.Errorf("%s: read %d of %d bytes", w.label, got, count*xfer)
				}
				benchmain.Check(name, 1, err)
				k := key(w.label, bound)
				if res[k] == nil {
					res[k] = &result{}
				}
				res[k].rate = append(res[k].rate, float64(got)/el.Seconds()/(1<<30))
				res[k].csw = append(res[k].csw, float64(after-before)/float64(count))
			}
		}
	}
	benchmain.Check(name, 1, bindAll(&all))
	fmt.Printf("%d reads of %d bytes from the page cache per round, %d rounds, medians; Go %s, GOMAXPROCS %d\n",
		count, xfer, reps, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Printf("%-10s %-14s %10s %18s\n", "threads", "reads", "GiB/s", "switches per read")
	for _, bound := range []bool{true, false} {
		var c float64
		for _, w := range ways {
			r := res[key(w.label, bound)]
			rate := median(r.rate)
			if w == ways[0] {
				c = rate
			}
			fmt.Printf("%-10s %-14s %10.2f %18.2f\n", map[bool]string{true: "one core", false: "unbound"}[bound], w.label, rate, median(r.csw))
		}
		fmt.Printf("%-10s %-14s %10.3f\n", "", "per read / loop", median(res[key(ways[1].label, bound)].rate)/c)
	}
	return 0
}

func key(label string, bound bool) string { return label + "/" + strconv.FormatBool(bound) }

// writeFile writes count copies of buf (filled with a pattern) to path, so that the
// rounds read from the page cache.
func writeFile(path string, buf []byte, count int64) error {
	for i := range buf {
		buf[i] = byte(i)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for i := int64(0); i < count; i++ {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// bindAll sets the affinity of every thread of the process (threads created later
// inherit their creator's).
func bindAll(set *unix.CPUSet) error {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("binding thread %d: %w", tid, err)
		}
	}
	return nil
}

func firstCPU(s *unix.CPUSet) int {
	for i := 0; i < 1024; i++ {
		if s.IsSet(i) {
			return i
		}
	}
	return 0
}

// switches is the process's voluntary plus involuntary context switches so far.
func switches() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Nvcsw + ru.Nivcsw
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
