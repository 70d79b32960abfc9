//go:build !cgo

package h5

import "github.com/h5proxy/h5proxy/plan"

// TakeCensus returns an empty census in a build without cgo.
func TakeCensus() (Census, bool) { return Census{}, false }

// FileProperties returns ErrNoCgo in a build without cgo.
func FileProperties(f ID) (FileProps, error) { return FileProps{}, ErrNoCgo }

// DatasetTuning returns ErrNoCgo in a build without cgo.
func DatasetTuning(d ID) (plan.DatasetTuning, error) { return plan.DatasetTuning{}, ErrNoCgo }

// TransferTuningOf returns ErrNoCgo in a build without cgo.
func TransferTuningOf(t plan.TransferTuning) (plan.TransferTuning, error) {
	return plan.TransferTuning{}, ErrNoCgo
}

// HasMultiDataset reports false in a build without cgo.
func HasMultiDataset() bool { return false }

// TransferMulti returns ErrNoMultiDataset in a build without cgo.
func TransferMulti(ds []ID, ts []*plan.Transfer, collective bool, bufs [][]byte, write bool) error {
	return ErrNoMultiDataset
}
