// Package posix is the layout that moves the same bytes as the real file through POSIX
// calls (pwrite, pread), without HDF5 or MPI-IO: the third side of h5perf's and IOR's
// POSIX / MPI-IO / HDF5 comparison.
package posix

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/libc"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/rawfile"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Options are the posix layout's keys.
var Options = &options.Table{Name: "posix", Specs: []options.Spec{
	{Key: "posix.file_per_rank", Kind: options.Bool, Default: "NO", Help: "posix layout: each rank writes a shared file's bytes at the same offsets into a file of its own, PATH.NNNNNNNN (IOR's -F naming; sparse where the other ranks' data would be); a rank can then read back only what it wrote"},
	{Key: "posix.odirect", Kind: options.Bool, Default: "NO", Help: "posix layout: open files with O_DIRECT (no page cache); writes must start and end on posix.alignment boundaries (an error names the dataset otherwise), reads and memory are aligned through a bounce buffer"},
	{Key: "posix.alignment", Kind: options.Size, Default: "4KiB", Min: options.Bound(512), Help: "posix layout: the O_DIRECT alignment of offsets, sizes and memory (a power of two; the device's logical block size at least)"},
	{Key: "posix.fsync", Kind: options.Enum, Default: "none", Allowed: []string{"none", "flush", "close", "both"}, Help: "posix layout: fsync the file at flush-file operations, at close-file of a written file, or both (pwrite buffers nothing in user space: without fsync a flush does nothing)"},
}}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "posix", Caps: stack.StoresData | stack.RankFiles, Options: Options,
		Summary:  "the same bytes through pwrite/pread, no HDF5 or MPI-IO (each dataset a contiguous region of one raw file, or of one file per rank)",
		Validate: validate,
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			v := env.Setting()
			return &posixLayout{env: env, perRank: v.Bool("posix.file_per_rank"), direct: v.Bool("posix.odirect"),
				align: int64(v.Int("posix.alignment")), fsync: strings.ToLower(v.String("posix.fsync")),
				files: rawfile.Set{Layout: "posix"}}, nil
		}})
}

// validate rejects an alignment O_DIRECT cannot use and O_DIRECT where it does not exist.
func validate(v *options.Values) error {
	if a := v.Int("posix.alignment"); a&(a-1) != 0 {
		return &options.Error{Table: "session", Key: "posix.alignment", Value: fmt.Sprint(a), Reason: "not a power of two", Allowed: "512, 1KiB, 2KiB, 4KiB, ..."}
	}
	if v.Bool("posix.odirect") && oDirect == 0 {
		return &options.Error{Table: "session", Key: "posix.odirect", Value: "YES", Reason: "O_DIRECT is not available on this system", Allowed: "NO"}
	}
	return nil
}

// posixLayout writes the plan's raw data with pwrite and reads it with pread at the
// offsets package rawfile lays out: every dataset a contiguous region allocated in
// creation order as HDF5 allocates contiguous datasets, an extension a new region at the
// end. Groups and attributes cost nothing; a read phase reads what the same session wrote.
// Collective and independent transfers are the same here: each rank writes its own byte
// ranges, with no exchange between ranks.
type posixLayout struct {
	env     stack.Env
	perRank bool
	direct  bool
	align   int64
	fsync   string // none, flush, close, both
	files   rawfile.Set
	// opened are the open files, as in HDF5 several at once; cur is the current one (the
	// last opened or selected, plan.SelectFile), nil when none is open.
	opened plan.FileStack[*openFile]
	cur    *openFile
	bounce []byte // aligned memory for O_DIRECT transfers
}

// openFile is the open file: its plan path, its name on disk and its bookkeeping.
type openFile struct {
	path, name string
	fd         int
	writable   bool
	raw        *rawfile.File
	// seek: transfers are lseek then write (read) loops (plan.FileSpec.Seek); complete:
	// the program writes every byte laid out, so the close asks no size (FileSpec.Complete).
	seek, complete bool
}

// FilePath is the plan path the file was opened at.
func (f *openFile) FilePath() string { return f.path }

// fail names the operation, the file on disk and the step in an error.
func fail(op *plan.Op, name, what string, err error) error {
	return fmt.Errorf("posix layout: %s %s (step %d): %s: %w", op.Kind, name, op.Step, what, err)
}

func (l *posixLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		return l.open(op)
	}
	if ok, err := l.opened.FileOp(op, func(f *openFile) error { return l.close(op, f, true) }); ok {
		l.cur, _ = l.opened.Current()
		return err
	}
	if l.cur == nil {
		return fmt.Errorf("posix layout: %s %s: no file is open", op.Kind, op.Path)
	}
	if ok, err := l.files.Define(l.cur.raw, op); ok {
		return err
	}
	switch op.Kind {
	case plan.FlushFile:
		if l.fsync == "flush" || l.fsync == "both" {
			if err := libc.Fsync(l.cur.fd); err != nil {
				return fail(op, l.cur.name, "fsync", err)
			}
		}
		return nil
	case plan.Write, plan.Read:
		pieces, err := l.files.Pieces(l.cur.raw, op.Path, op.Transfer)
		if err != nil {
			return err
		}
		if op.Kind == plan.Write {
			return l.write(op, pieces, buf)
		}
		return l.read(op, pieces, buf)
	}
	return nil // groups, dataset closes and attributes have no raw-file counterpart
}

// open creates or opens op's file. A shared file is created (truncated) by rank 0 alone,
// after every rank arrived and before the other ranks open it, so no rank truncates what
// another already wrote or still reads; with FileSpec.TruncateEveryRank every rank opens
// it with O_CREAT|O_TRUNC between the same two synchronizations (h5perf's POSIX create).
func (l *posixLayout) open(op *plan.Op) error {
	// A shared file's communicator: the layout's, or its group's (plan.FileSpec.GroupRanks).
	comm := l.env.Comm
	if op.File.Parallel {
		c, own, err := h5layout.FileComm(l.env, op.File)
		if err != nil {
			return fail(op, op.Path, "splitting the communicator by group", err)
		}
		if own {
			defer c.Free()
		}
		comm = c
	}
	name := op.Path
	shared := op.File.Parallel && !l.perRank
	if op.File.Parallel && l.perRank {
		name = fmt.Sprintf("%s.%08d", op.Path, l.env.Comm.Rank())
	}
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if op.Kind == plan.OpenFile && op.File.ReadOnly {
		flags = unix.O_RDONLY | unix.O_CLOEXEC
	}
	if l.direct {
		flags |= oDirect
	}
	var err error
	everyRank := op.Kind == plan.CreateFile && shared && op.File.TruncateEveryRank
	mode := uint32(0o644)
	if op.File.Mode != 0 {
		mode = op.File.Mode
	}
	switch {
	case op.Kind == plan.CreateFile && op.File.CreateEveryRank:
		// IOR's POSIX_Create: every rank opens with O_CREAT, nobody truncates or waits.
		if err = h5layout.MakeDirs(op); err != nil {
			return fail(op, name, "creating the directory", err)
		}
		flags |= unix.O_CREAT
	case op.Kind == plan.CreateFile:
		if err = h5layout.MakeDirs(op); err != nil {
			return fail(op, name, "creating the directory", err)
		}
		create := flags | unix.O_CREAT | unix.O_TRUNC
		if shared {
			// Collective like MPI_File_open: no rank truncates before every rank is here,
			// done with the file's previous contents (a kernel that reads a file back and
			// then recreates it, as h5perf's iterations do, would lose a slower rank's read
			// otherwise).
			if err := comm.Barrier(); err != nil {
				return fail(op, name, "barrier before open(O_CREAT|O_TRUNC)", err)
			}
		}
		if shared && !everyRank {
			// Rank 0 truncates alone, before the others open.
			var fd int
			if comm.Rank() == 0 {
				fd, err = openFd(name, create, mode)
				if err == nil {
					libc.Close(fd)
				}
			}
			if err = agree(comm, err, "rank 0"); err != nil {
				return fail(op, name, "open(O_CREAT|O_TRUNC)", err)
			}
		} else {
			flags = create
		}
	}
	raw := l.files.Begin(op)
	if op.Kind == plan.OpenFile && op.File.Parallel {
		// Collective like MPI_File_open: no rank opens a file before rank 0 is done with
		// what it wrote alone (AMReX's headers).
		if raw, err = l.files.Agree(comm, op.Path); err != nil {
			return err
		}
	}
	fd, err := openFd(name, flags, mode)
	if everyRank {
		// No rank writes before every rank's truncation is done.
		if aerr := agree(comm, err, "another rank"); err == nil && aerr != nil {
			libc.Close(fd)
			err = aerr
		}
	}
	if err != nil {
		if errors.Is(err, unix.EINVAL) && l.direct {
			err = fmt.Errorf("%w (posix.odirect=YES: the file system may not support O_DIRECT)", err)
		}
		return fail(op, name, "open", err)
	}
	l.cur = &openFile{path: op.Path, name: name, fd: fd, writable: flags&unix.O_ACCMODE != unix.O_RDONLY, raw: raw,
		seek: op.File.Seek, complete: op.File.Complete}
	l.opened.Push(l.cur)
	return nil
}

// openFd is open(2) with the permission bits mode, through the C library as every
// data-path call of the layout (package libc: interposers such as Darshan see them),
// retried when a signal interrupts it.
func openFd(name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := libc.Open(name, flags, mode)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// agree makes one rank's error every rank's (collective on c): the other ranks wait for
// the create and fail with it; who names the ranks that create.
func agree(c mpi.Comm, err error, who string) error {
	failed := int64(0)
	if err != nil {
		failed = 1
	}
	m, aerr := c.AllreduceInt64([]int64{failed}, mpi.OpMax)
	switch {
	case err != nil:
		return err
	case aerr != nil:
		return aerr
	case m[0] != 0:
		return errors.New(who + " could not create the file")
	}
	return nil
}

// write pwrites every piece. Under O_DIRECT every piece must be aligned (checked before
// anything is written: a read-modify-write of a shared block would race with the rank
// writing its other part) and unaligned memory goes through the bounce buffer.
func (l *posixLayout) write(op *plan.Op, pieces []rawfile.Piece, buf []byte) error {
	if !l.cur.writable {
		return fail(op, l.cur.name, "pwrite", unix.EBADF)
	}
	if l.direct {
		for _, p := range pieces {
			if p.Off%l.align != 0 || p.Len%l.align != 0 {
				return fmt.Errorf("posix layout: %s %s in %s (step %d): %d bytes at offset %d are not aligned to posix.alignment=%d, which posix.odirect=YES needs (choose sizes and selections in multiples of it, or posix.odirect=NO)",
					op.Kind, op.Path, l.cur.name, op.Step, p.Len, p.Off, l.align)
			}
		}
	}
	for _, p := range pieces {
		mem := buf[p.Mem : p.Mem+p.Len]
		if l.direct && !l.aligned(mem) {
			mem = l.bounceOf(p.Len)
			copy(mem, buf[p.Mem:p.Mem+p.Len])
		}
		if err := writeAt(l.cur, mem, p.Off); err != nil {
			return fail(op, l.cur.name, fmt.Sprintf("pwrite of %d bytes at offset %d (dataset %s)", p.Len, p.Off, op.Path), err)
		}
	}
	return nil
}

// read preads every piece; what lies past the end of the file (allocated, never written)
// reads as zeros, HDF5's default fill value. Under O_DIRECT each piece is read as the
// aligned span around it into the bounce buffer.
func (l *posixLayout) read(op *plan.Op, pieces []rawfile.Piece, buf []byte) error {
	for _, p := range pieces {
		dst := buf[p.Mem : p.Mem+p.Len]
		off, mem, skip := p.Off, dst, int64(0)
		if l.direct {
			lo := p.Off / l.align * l.align
			hi := (p.Off + p.Len + l.align - 1) / l.align * l.align
			if lo != p.Off || hi != p.Off+p.Len || !l.aligned(dst) {
				off, mem, skip = lo, l.bounceOf(hi-lo), p.Off-lo
			}
		}
		n, err := readAt(l.cur, mem, off)
		if err != nil {
			return fail(op, l.cur.name, fmt.Sprintf("pread of %d bytes at offset %d (dataset %s)", len(mem), off, op.Path), err)
		}
		clear(mem[n:])
		if skip != 0 || &mem[0] != &dst[0] {
			copy(dst, mem[skip:skip+p.Len])
		}
	}
	return nil
}

// aligned reports whether b starts on the O_DIRECT alignment.
func (l *posixLayout) aligned(b []byte) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(l.align) == 0
}

// bounceOf returns n bytes of aligned memory, reused between transfers.
func (l *posixLayout) bounceOf(n int64) []byte {
	if int64(len(l.bounce)) < n {
		raw := make([]byte, n+l.align)
		skip := (l.align - int64(uintptr(unsafe.Pointer(&raw[0])))%l.align) % l.align
		l.bounce = raw[skip : skip+n]
	}
	return l.bounce[:n]
}

// writeAt writes b at off in f: pwrite, or with f.seek IOR's POSIX_Xfer (aiori-POSIX.c):
// one lseek, then write until all is written.
func writeAt(f *openFile, b []byte, off int64) error {
	if !f.seek {
		return pwriteAll(f.fd, b, off)
	}
	if _, err := libc.Lseek(f.fd, off, unix.SEEK_SET); err != nil {
		return err
	}
	for len(b) > 0 {
		n, err := libc.Write(f.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return unix.EIO
		}
		b = b[n:]
	}
	return nil
}

// readAt reads into b from off in f until b is full or the file ends: pread, or with
// f.seek one lseek, then read (IOR's POSIX_Xfer); it returns the bytes read.
func readAt(f *openFile, b []byte, off int64) (int, error) {
	if !f.seek {
		return preadFull(f.fd, b, off)
	}
	if _, err := libc.Lseek(f.fd, off, unix.SEEK_SET); err != nil {
		return 0, err
	}
	return fill(b, func(p []byte, _ int) (int, error) { return libc.Read(f.fd, p) })
}

// pwriteAll writes b at off, continuing after short writes and interrupted calls.
func pwriteAll(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := libc.Pwrite(fd, b, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return unix.EIO
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// preadFull reads into b from off until b is full or the file ends; it returns the bytes
// read.
func preadFull(fd int, b []byte, off int64) (int, error) {
	return fill(b, func(p []byte, done int) (int, error) { return libc.Pread(fd, p, off+int64(done)) })
}

// fill calls read for the rest of b (done bytes read so far) until b is full or the file
// ends, continuing after interrupted calls; it returns the bytes read.
func fill(b []byte, read func(p []byte, done int) (int, error)) (int, error) {
	got := 0
	for got < len(b) {
		n, err := read(b[got:], got)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return got, err
		}
		if n == 0 {
			break
		}
		got += n
	}
	return got, nil
}

// close closes the open file f, which becomes unknown to the layout. A written file first grows to cover every region laid out,
// as HDF5 extends a file to its end of allocation at close, so parts nobody wrote read as
// zeros instead of ending the file early; then it is fsynced when posix.fsync says so.
// Every rank grows its file alone: ftruncate to the same size is idempotent and no byte
// lies past it. After a failure (!orderly) the file is only closed: what was written
// stays.
func (l *posixLayout) close(op *plan.Op, f *openFile, orderly bool) error {
	l.opened.Remove(f.path)
	l.cur, _ = l.opened.Current()
	var err error
	if orderly && f.writable && !f.complete {
		err = grow(op, f)
		if err == nil && (l.fsync == "close" || l.fsync == "both") {
			if serr := libc.Fsync(f.fd); serr != nil {
				err = fail(op, f.name, "fsync", serr)
			}
		}
	}
	if cerr := libc.Close(f.fd); cerr != nil && err == nil {
		err = fail(op, f.name, "close", cerr)
	}
	return err
}

// grow extends f to the end of its last region when it is shorter.
func grow(op *plan.Op, f *openFile) error {
	size, regular, err := libc.Size(f.fd)
	if err != nil {
		return fail(op, f.name, "fstat", err)
	}
	if size >= f.raw.Next || !regular {
		return nil
	}
	if err := libc.Ftruncate(f.fd, f.raw.Next); err != nil {
		return fail(op, f.name, fmt.Sprintf("ftruncate to %d bytes", f.raw.Next), err)
	}
	return nil
}

func (l *posixLayout) Shape(path string) ([]uint64, error) {
	if l.cur == nil {
		return l.files.Shape(nil, path)
	}
	return l.files.Shape(l.cur.raw, path)
}

// Abort closes every open file, the current one first, leaving what was written.
func (l *posixLayout) Abort() error {
	var first error
	for l.cur != nil {
		if err := l.close(&plan.Op{Kind: plan.CloseFile, Path: l.cur.path}, l.cur, false); err != nil && first == nil {
			first = err
		}
	}
	return first
}
