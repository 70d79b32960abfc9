// Command align measures how fast the kernel copies page-cache data into a buffer that
// starts at different offsets past a page boundary: pread of a cached file in transfers of
// -xfer bytes, the buffer in anonymous mmap memory at each -offsets value, the offsets
// interleaved, best and median of -reps passes. A C program's large malloc'd buffer starts
// 16 bytes past a page boundary (glibc's mapped-chunk header); h5proxy's pooled buffers are
// page-aligned unless a pattern asks otherwise (plan.Transfer.BufferOffset), which is why
// h5perf's pattern places its buffers where h5perf's malloc does (docs/h5perf.md).
//
//	go run ./bench/align [-size 256MiB] [-xfer 4MiB] [-reps 7] [-offsets 0,16,32,48,4048]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
)

func main() {
	size := flag.Int("size", 256<<20, "bytes of the cached file")
	xfer := flag.Int("xfer", 4<<20, "bytes of one pread")
	reps := benchmain.Reps(7, "passes over the file per offset (interleaved)")
	offsets := flag.String("offsets", "0,16,32,48,4048", "buffer offsets past a page boundary, comma-separated")
	flag.Parse()
	benchmain.Exit("bench/align", 1, run(*size, *xfer, *reps, *offsets))
}

func run(size, xfer, reps int, list string) error {
	var offs []int
	for _, f := range strings.Split(list, ",") {
		o, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || o < 0 || o >= 4096 {
			return fmt.Errorf("-offsets: %q is not an offset from 0 to 4095", f)
		}
		offs = append(offs, o)
	}
	if xfer <= 0 || size < xfer {
		return fmt.Errorf("-xfer %d must be positive and at most -size %d", xfer, size)
	}
	dir, err := os.MkdirTemp("", "h5proxy-align-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "cached.dat"))
	if err != nil {
		return err
	}
	defer f.Close()
	src := make([]byte, xfer)
	for i := range src {
		src[i] = byte(i)
	}
	for off := 0; off+xfer <= size; off += xfer {
		if _, err := f.WriteAt(src, int64(off)); err != nil {
			return err
		}
	}
	bufs := make([]*emulate.Buffer, len(offs))
	for i, o := range offs {
		if bufs[i], err = emulate.AllocAt(xfer, o); err != nil {
			return err
		}
		defer bufs[i].Free()
		clear(bufs[i].Bytes()) // resident: only the copy is timed
	}
	secs := make([][]float64, len(offs))
	for r := 0; r < reps+1; r++ { // the first pass warms the page cache
		for i := range offs {
			b := bufs[i].Bytes()
			t0 := time.Now()
			for off := 0; off+xfer <= size; off += xfer {
				if _, err := syscall.Pread(int(f.Fd()), b, int64(off)); err != nil {
					return err
				}
			}
			if r > 0 {
				secs[i] = append(secs[i], time.Since(t0).Seconds())
			}
		}
	}
	fmt.Printf("pread of a cached %d MiB file in %d KiB transfers, %d passes per offset (interleaved), MiB/s:\n\n", size>>20, xfer>>10, reps)
	fmt.Println("| buffer offset past a page | best | median |")
	fmt.Println("|---|---|---|")
	mib := float64(size/xfer*xfer) / (1 << 20)
	for i, o := range offs {
		med, best, _ := benchstat.Summary(secs[i])
		fmt.Printf("| %d | %.0f | %.0f |\n", o, mib/best, mib/med)
	}
	return nil
}
