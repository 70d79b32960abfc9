package proxy

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// TestThreadLevelRefusal: background modes and the subfiling-vfd layout refuse anything
// below MPI_THREAD_MULTIPLE and say how to fix it.
func TestThreadLevelRefusal(t *testing.T) {
	for _, u := range []threadUser{modeThreads("async"), layoutThreads("subfiling-vfd")} {
		for _, lvl := range []mpi.ThreadLevel{mpi.ThreadSingle, mpi.ThreadFunneled, mpi.ThreadSerialized} {
			err := checkThreadLevel(u, lvl)
			if !errors.Is(err, ErrThreadLevel) || !strings.Contains(err.Error(), "MPI_THREAD_MULTIPLE") || !strings.Contains(err.Error(), lvl.String()) ||
				!strings.Contains(err.Error(), u.what) || !strings.Contains(err.Error(), "use "+u.instead) {
				t.Errorf("%s, level %s: %v", u.what, lvl, err)
			}
		}
		if err := checkThreadLevel(u, mpi.ThreadMultiple); err != nil {
			t.Errorf("%s: MPI_THREAD_MULTIPLE refused: %v", u.what, err)
		}
	}
}
