package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
)

// TestAppSequenceEveryLayout runs testdata/apps/sequence.yaml (a file written by_call
// with forward closes and read in its list's order, a file written depth_first under
// hold: call) at 2 ranks through every layout that stores data under every mode: the
// orders the handles key sets keep every value (read back and verified).
func TestAppSequenceEveryLayout(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "sequence.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "testdata/apps/sequence.yaml", desc)
	everyStoringLayout(t, dir, desc, 2, nil, nil)
}
