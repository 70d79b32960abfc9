//go:build !cgo

package mpi

import (
	"os"
	"time"
)

// This file keeps the API buildable without cgo (go vet, pure-Go tests): every call that
// can fail returns ErrNoCgo, and the others return what a null communicator would.

// Comm is an MPI communicator; without cgo every Comm is null.
type Comm struct{}

// File is an MPI-IO file; without cgo none can be opened.
type File struct{}

// start anchors Wtime, which needs a clock even without MPI.
var start = time.Now()

// Initialized reports false: MPI is not available without cgo.
func Initialized() bool { return false }

// Finalized reports false: MPI is not available without cgo.
func Finalized() bool { return false }

// Init returns ErrNoCgo.
func Init() (provided ThreadLevel, owned bool, err error) { return 0, false, ErrNoCgo }

// InitThread returns ErrNoCgo.
func InitThread(ThreadLevel) (provided ThreadLevel, owned bool, err error) { return 0, false, ErrNoCgo }

// AdoptEarlyInit does nothing without cgo (no MPI).
func AdoptEarlyInit() {}

// Finalize returns ErrNoCgo.
func Finalize() error { return ErrNoCgo }

// QueryThread returns ErrNoCgo.
func QueryThread() (ThreadLevel, error) { return 0, ErrNoCgo }

// World returns a null Comm.
func World() Comm { return Comm{} }

// Self returns the null communicator.
func Self() Comm { return Comm{} }

// FromFortran returns ErrNoCgo.
func FromFortran(handle int) (Comm, error) { return Comm{}, ErrNoCgo }

// Fortran returns -1.
func (c Comm) Fortran() int { return -1 }

// Rank returns -1.
func (c Comm) Rank() int { return -1 }

// Size returns -1.
func (c Comm) Size() int { return -1 }

// Dup returns ErrNoCgo.
func (c Comm) Dup() (Comm, error) { return Comm{}, ErrNoCgo }

// Free returns ErrNoCgo.
func (c Comm) Free() error { return ErrNoCgo }

// Split returns ErrNoCgo.
func (c Comm) Split(color, key int) (Comm, error) { return Comm{}, ErrNoCgo }

// SplitNode returns ErrNoCgo.
func (c Comm) SplitNode() (Comm, error) { return Comm{}, ErrNoCgo }

// IsNull reports true.
func (c Comm) IsNull() bool { return true }

// Barrier returns ErrNoCgo.
func (c Comm) Barrier() error { return ErrNoCgo }

// AllreduceInt64 returns ErrNoCgo.
func (c Comm) AllreduceInt64(in []int64, op Op) ([]int64, error) { return nil, ErrNoCgo }

// AllreduceFloat64 returns ErrNoCgo.
func (c Comm) AllreduceFloat64(in []float64, op Op) ([]float64, error) { return nil, ErrNoCgo }

// AllgatherFloat64 returns ErrNoCgo.
func (c Comm) AllgatherFloat64(in []float64) ([]float64, error) { return nil, ErrNoCgo }

// BcastBytes returns ErrNoCgo.
func (c Comm) BcastBytes(buf []byte, root int) ([]byte, error) { return nil, ErrNoCgo }

// NodeCount returns ErrNoCgo.
func (c Comm) NodeCount() (int, error) { return 0, ErrNoCgo }

// Wtime returns seconds on a monotonic clock, so that timings still work.
func Wtime() float64 { return time.Since(start).Seconds() }

// ProcessorName returns the host name.
func ProcessorName() string {
	h, _ := os.Hostname()
	return h
}

// StandardVersion returns 0, 0: no MPI library is linked.
func StandardVersion() (major, minor int) { return 0, 0 }

// LibraryVersion returns "": no MPI library is linked.
func LibraryVersion() string { return "" }

// OpenFile returns ErrNoCgo.
func OpenFile(c Comm, path string, access FileAccess) (*File, error) { return nil, ErrNoCgo }

// OpenFileWith returns ErrNoCgo.
func OpenFileWith(c Comm, path string, access FileAccess, o OpenOptions) (*File, error) {
	return nil, ErrNoCgo
}

// WriteAtAll returns ErrNoCgo.
func (f *File) WriteAtAll(offset int64, buf []byte) error { return ErrNoCgo }

// WriteAt returns ErrNoCgo.
func (f *File) WriteAt(offset int64, buf []byte) error { return ErrNoCgo }

// Run is one contiguous byte range of a transfer (see the cgo build).
type Run struct{ Off, Mem, Len int64 }

// RunsViewAll returns ErrNoCgo.
func (f *File) RunsViewAll(write bool, runs []Run, buf []byte) error { return ErrNoCgo }

// ReadAt returns ErrNoCgo.
func (f *File) ReadAt(offset int64, buf []byte) error { return ErrNoCgo }

// ReadAtAll returns ErrNoCgo.
func (f *File) ReadAtAll(offset int64, buf []byte) error { return ErrNoCgo }

// Size returns ErrNoCgo.
func (f *File) Size() (int64, error) { return 0, ErrNoCgo }

// TrustReads does nothing.
func (f *File) TrustReads() {}

// SetSize returns ErrNoCgo.
func (f *File) SetSize(n int64) error { return ErrNoCgo }

// Writable reports false.
func (f *File) Writable() bool { return false }

// Sync returns ErrNoCgo.
func (f *File) Sync() error { return ErrNoCgo }

// SetIORView returns ErrNoCgo in a build without cgo.
func (f *File) SetIORView(transfer, block int64, tasks, task int) error { return ErrNoCgo }

// ViewIO returns ErrNoCgo in a build without cgo.
func (f *File) ViewIO(write, collective bool, pos int64, buf []byte) error { return ErrNoCgo }

// Run returns ErrNoCgo.
func (f *File) Run(xs []Xfer, took []time.Duration) (int, error) { return 0, ErrNoCgo }

// Close returns ErrNoCgo.
func (f *File) Close() error { return ErrNoCgo }

// DeleteFile returns ErrNoCgo.
func DeleteFile(path string) error { return ErrNoCgo }

// BarrierWithin fails without cgo.
func (c Comm) BarrierWithin(d time.Duration) (bool, error) { return false, ErrNoCgo }

// Abort fails without cgo.
func (c Comm) Abort(code int) error { return ErrNoCgo }

// SsendInt returns ErrNoCgo.
func (c Comm) SsendInt(v, dest, tag int) error { return ErrNoCgo }

// RecvInt returns ErrNoCgo.
func (c Comm) RecvInt(src, tag int) (int, error) { return 0, ErrNoCgo }
