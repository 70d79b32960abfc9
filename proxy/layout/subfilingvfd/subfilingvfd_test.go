package subfilingvfd

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// TestCheckDataset checks the refusals in shared files: at more than one rank any filter
// (deflate alone, a pipeline) is refused naming the dataset, the filters and the rank
// count, and so is a chunked dataset with a fill value written at allocation; one rank,
// no filter, a contiguous dataset or fill_time never pass.
func TestCheckDataset(t *testing.T) {
	chunked := plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}, Chunk: []uint64{4}}
	deflate, pipeline := chunked, chunked
	deflate.Deflate = 6
	pipeline.Filters = []plan.Filter{{ID: plan.FilterShuffle}, {ID: plan.FilterFletcher32}, {ID: plan.FilterDeflate, CDValues: []uint32{3}}}
	filled, filledNever, contiguous := chunked, chunked, plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}}
	filled.FillValue = make([]byte, 8)
	filledNever.FillValue, filledNever.FillNever = filled.FillValue, true
	contiguous.FillValue = filled.FillValue
	cases := []struct {
		spec  plan.DatasetSpec
		ranks int
		want  string // "": accepted
	}{
		{filled, 1, ""},
		{filledNever, 2, ""},
		{contiguous, 2, ""},
		{filled, 2, "dataset /g/d is chunked with a fill value, at 2 ranks"},
		{chunked, 4, ""},
		{deflate, 1, ""},
		{pipeline, 1, ""},
		{deflate, 2, "dataset /g/d has the filter deflate (level 6), at 2 ranks"},
		{pipeline, 4, "dataset /g/d has the filters shuffle, fletcher32, deflate (level 3), at 4 ranks"},
	}
	for _, c := range cases {
		err := CheckDataset("/g/d", &c.spec, c.ranks)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v at %d ranks: %v", c.spec, c.ranks, err)
		case c.want != "" && (!errors.Is(err, ErrFiltered) && !errors.Is(err, ErrChunkFill) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v at %d ranks: got %v, want an error containing %q", c.spec, c.ranks, err, c.want)
		}
	}
}

// blocking is a layout whose operations wait until release is closed.
type blocking struct {
	stack.Layout
	release chan struct{}
}

func (b blocking) Exec(*plan.Op, []byte) error { <-b.release; return nil }

// TestStallTimeout checks the watchdog of operations on a shared file: one that has not
// returned after the stall timeout calls abort with a message naming it and the key; one
// that returns in time, or runs on a per-rank file, does not.
func TestStallTimeout(t *testing.T) {
	release := make(chan struct{})
	aborted := make(chan string, 4)
	g := &guarded{Layout: blocking{release: release}, size: 2, stall: 50 * time.Millisecond, abort: func(msg string) { aborted <- msg }}
	done := make(chan error)
	go func() {
		g.Exec(&plan.Op{Kind: plan.CreateFile, Path: "/tmp/x.h5", File: &plan.FileSpec{Parallel: true}}, nil)
		done <- nil
	}()
	select {
	case msg := <-aborted:
		if !strings.Contains(msg, "create-file /tmp/x.h5 has not returned after 50ms") || !strings.Contains(msg, KeyStall) {
			t.Errorf("abort message %q does not name the operation, the time and the key", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a stalled operation on a shared file did not call abort")
	}
	close(release)
	<-done
	g.stall = time.Minute // returns at once: no abort
	if err := g.Exec(&plan.Op{Kind: plan.FlushFile, Path: "/tmp/x.h5"}, nil); err != nil {
		t.Fatal(err)
	}
	g.stall = time.Nanosecond // a per-rank file is not watched
	g.Exec(&plan.Op{Kind: plan.CreateFile, Path: "/tmp/y.h5", File: &plan.FileSpec{}}, nil)
	g.Exec(&plan.Op{Kind: plan.FlushFile, Path: "/tmp/y.h5"}, nil)
	time.Sleep(10 * time.Millisecond)
	select {
	case msg := <-aborted:
		t.Errorf("abort called for an operation that returned or ran on a per-rank file: %s", msg)
	default:
	}
}

// TestOversubscribed: the warning names the counts and the MCA parameter when ranks and
// concentrator threads outnumber the cores and ranks poll, and is silent otherwise.
func TestOversubscribed(t *testing.T) {
	s := Settings{IOCPerNode: 1, ThreadPool: 4}
	w := Oversubscribed(2, 2, s, "")
	for _, want := range []string{"2 ranks", "5 I/O concentrator threads", "2 cores", EnvYield + "=1"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	if w := Oversubscribed(2, 2, s, "0"); w == "" {
		t.Error("yield_when_idle=0 polls: want a warning")
	}
	if w := Oversubscribed(2, 2, s, "1"); w != "" {
		t.Errorf("ranks yield: want no warning, got %q", w)
	}
	if w := Oversubscribed(2, 64, s, ""); w != "" {
		t.Errorf("enough cores: want no warning, got %q", w)
	}
	// Concentrators are capped at the node's ranks: 1 rank, 4 asked, 1 concentrator.
	if w := Oversubscribed(1, 2, Settings{IOCPerNode: 4, ThreadPool: 1}, ""); !strings.Contains(w, "2 I/O concentrator threads") {
		t.Errorf("one rank caps the concentrators at 1: %q", w)
	}
}
