//go:build !cgo

package h5

import (
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// Version returns "" in a build without cgo.
func Version() string { return "" }

// HaveSubfiling reports false in a build without cgo.
func HaveSubfiling() bool { return false }

// CreateFile returns ErrNoCgo in a build without cgo.
func CreateFile(path string, a Access) (ID, error) { return 0, ErrNoCgo }

// OpenFile returns ErrNoCgo in a build without cgo.
func OpenFile(path string, a Access) (ID, error) { return 0, ErrNoCgo }

// FlushFile returns ErrNoCgo in a build without cgo.
func FlushFile(f ID, local bool) error { return ErrNoCgo }

// CloseFile returns ErrNoCgo in a build without cgo.
func CloseFile(f ID) error { return ErrNoCgo }

// ObjectCount returns ErrNoCgo in a build without cgo.
func ObjectCount(f ID) (int, error) { return 0, ErrNoCgo }

// OpenObjects returns ErrNoCgo in a build without cgo.
func OpenObjects() (int, error) { return 0, ErrNoCgo }

// CreateGroup returns ErrNoCgo in a build without cgo.
func CreateGroup(loc ID, path string) (ID, error) { return 0, ErrNoCgo }

// CreateGroup1 returns ErrNoCgo in a build without cgo.
func CreateGroup1(loc ID, path string) (ID, error) { return 0, ErrNoCgo }

// OpenGroup returns ErrNoCgo in a build without cgo.
func OpenGroup(loc ID, path string) (ID, error) { return 0, ErrNoCgo }

// OpenGroupColl returns ErrNoCgo in a build without cgo.
func OpenGroupColl(loc ID, path string, collMeta bool) (ID, error) { return 0, ErrNoCgo }

// CloseGroup returns ErrNoCgo in a build without cgo.
func CloseGroup(g ID) error { return ErrNoCgo }

// CreateDataset returns ErrNoCgo in a build without cgo.
func CreateDataset(loc ID, path string, d plan.DatasetSpec) (ID, error) { return 0, ErrNoCgo }

// FilterAvailable returns ErrNoCgo in a build without cgo.
func FilterAvailable(id uint32) (bool, error) { return false, ErrNoCgo }

// OpenDataset returns ErrNoCgo in a build without cgo.
func OpenDataset(loc ID, path string) (ID, error) { return 0, ErrNoCgo }

// OpenDataset1 returns ErrNoCgo in a build without cgo.
func OpenDataset1(loc ID, path string) (ID, error) { return 0, ErrNoCgo }

// HaveDeprecated reports false in a build without cgo.
func HaveDeprecated() bool { return false }

// OpenDatasetColl returns ErrNoCgo in a build without cgo.
func OpenDatasetColl(loc ID, path string, collMeta bool) (ID, error) { return 0, ErrNoCgo }

// OpenObject returns ErrNoCgo in a build without cgo.
func OpenObject(loc ID, path string, collMeta bool) (ID, error) { return 0, ErrNoCgo }

// CloseObject returns ErrNoCgo in a build without cgo.
func CloseObject(o ID) error { return ErrNoCgo }

// CloseDataset returns ErrNoCgo in a build without cgo.
func CloseDataset(d ID) error { return ErrNoCgo }

// DatasetInfo returns ErrNoCgo in a build without cgo.
func DatasetInfo(d ID) (Info, error) { return Info{}, ErrNoCgo }

// DatasetShape returns ErrNoCgo in a build without cgo.
func DatasetShape(d ID) ([]uint64, error) { return nil, ErrNoCgo }

// WriteAttribute returns ErrNoCgo in a build without cgo.
func WriteAttribute(loc ID, a plan.AttributeSpec) error { return ErrNoCgo }

// ReadAttributeAs returns ErrNoCgo in a build without cgo.
func ReadAttributeAs(loc ID, a plan.AttributeSpec) ([]byte, error) { return nil, ErrNoCgo }

// ReadAttribute returns ErrNoCgo in a build without cgo.
func ReadAttribute(loc ID, name string) (plan.AttributeSpec, error) {
	return plan.AttributeSpec{}, ErrNoCgo
}

// Write returns ErrNoCgo in a build without cgo.
func Write(d ID, t *plan.Transfer, collective bool, buf []byte) error { return ErrNoCgo }

// Read returns ErrNoCgo in a build without cgo.
func Read(d ID, t *plan.Transfer, collective bool, buf []byte) error { return ErrNoCgo }

// Exists returns ErrNoCgo in a build without cgo.
func Exists(loc ID, path string) (bool, error) { return false, ErrNoCgo }

// ReleaseTypeCache does nothing in a build without cgo.
func ReleaseTypeCache() {}

// CreateVirtual returns ErrNoCgo in a build without cgo.
func CreateVirtual(loc ID, path string, d plan.DatasetSpec, maps []VirtualMap) (ID, error) {
	return 0, ErrNoCgo
}

// VirtualMappings returns ErrNoCgo in a build without cgo.
func VirtualMappings(d ID) ([]VirtualMap, bool, error) { return nil, false, ErrNoCgo }

// CreateNullDataset returns ErrNoCgo in a build without cgo.
func CreateNullDataset(loc ID, path string, t plan.Type) (ID, error) { return 0, ErrNoCgo }

// DatasetOffset returns ErrNoCgo in a build without cgo.
func DatasetOffset(d ID) (uint64, bool, error) { return 0, false, ErrNoCgo }

// Allocated returns ErrNoCgo in a build without cgo.
func Allocated(d ID) (bool, error) { return false, ErrNoCgo }

// SetAttribute returns ErrNoCgo in a build without cgo.
func SetAttribute(loc ID, a plan.AttributeSpec) error { return ErrNoCgo }

// AttributeNames returns ErrNoCgo in a build without cgo.
func AttributeNames(loc ID) ([]string, error) { return nil, ErrNoCgo }

// Walk returns ErrNoCgo in a build without cgo.
func Walk(f ID) ([]Object, error) { return nil, ErrNoCgo }

// SetExtent returns ErrNoCgo in a build without cgo.
func SetExtent(d ID, shape []uint64) error { return ErrNoCgo }

// HoldHeap returns ErrNoCgo in a build without cgo.
func HoldHeap(n int) error { return ErrNoCgo }

// HeaderVersion returns "" in a build without cgo.
func HeaderVersion() string { return "" }

// Build returns "" in a build without cgo.
func Build() string { return "" }

// LoadedLibraries returns nil in a build without cgo.
func LoadedLibraries() []string { return nil }

// ScaleOffsetFullRangeUnreadable reports false in a build without cgo.
func ScaleOffsetFullRangeUnreadable() bool { return false }

// CreateLink returns ErrNoCgo in a build without cgo.
func CreateLink(loc ID, path string, l plan.LinkSpec) error { return ErrNoCgo }

// Runnable reports false in a build without cgo: there is no C loop.
func Runnable(t *plan.Transfer) bool { return false }

// TransferRun returns ErrNoCgo in a build without cgo.
func TransferRun(ds []ID, ts []*plan.Transfer, coll []bool, bufs [][]byte, write bool, took []time.Duration) (int, error) {
	return 0, ErrNoCgo
}
