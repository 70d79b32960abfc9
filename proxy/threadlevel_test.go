package proxy

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// TestThreadLevelRefusal: background modes refuse anything below MPI_THREAD_MULTIPLE and
// say how to fix it.
func TestThreadLevelRefusal(t *testing.T) {
	for _, lvl := range []mpi.ThreadLevel{mpi.ThreadSingle, mpi.ThreadFunneled, mpi.ThreadSerialized} {
		err := checkThreadLevel("async", lvl)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "MPI_THREAD_MULTIPLE") || !strings.Contains(err.Error(), lvl.String()) {
			t.Errorf("level %s: %v", lvl, err)
		}
	}
	if err := checkThreadLevel("async", mpi.ThreadMultiple); err != nil {
		t.Errorf("MPI_THREAD_MULTIPLE refused: %v", err)
	}
}
