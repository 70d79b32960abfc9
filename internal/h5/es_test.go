//go:build cgo && linux

package h5

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestEventSetCalls writes and reads a dataset through an event set (H5Gcreate_async,
// H5Dcreate_async, H5Dwrite_async, H5Dread_async, the closes) and waits for it; a create
// that must fail (the group exists) fails naming the _async call, at the call under the
// native connector (which runs each _async call synchronously). On HDF5 1.10 creating an
// event set fails naming the build that has them.
func TestEventSetCalls(t *testing.T) {
	if !HaveEventSets() {
		_, err := NewEventSet()
		if err == nil || !strings.Contains(err.Error(), "no event sets") {
			t.Fatalf("NewEventSet on HDF5 %s: %v, want an error saying it has no event sets", Version(), err)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "es.h5")
	f := must(CreateFile(path, Access{}))
	defer CloseFile(f)
	es := must(NewEventSet())
	defer es.Close()
	shape := []uint64{64}
	buf := randBytes(7, shape[0]*4)
	var g, d ID
	ok(t, InEventSet(es, func() (err error) {
		if g, err = CreateGroup(f, "/Timestep_0"); err != nil {
			return err
		}
		if d, err = CreateDataset(g, "x", plan.DatasetSpec{Type: plan.F32, Shape: shape}); err != nil {
			return err
		}
		return Write(d, wholeTransfer(plan.F32, shape), false, buf)
	}))
	got := make([]byte, len(buf))
	ok(t, InEventSet(es, func() error { return Read(d, wholeTransfer(plan.F32, shape), false, got) }))
	fails, err := es.Wait()
	if err != nil || len(fails) != 0 {
		t.Fatalf("Wait: %v, failures %+v", err, fails)
	}
	if !bytes.Equal(got, buf) {
		t.Error("read back through the event set differs from what was written")
	}
	err = InEventSet(es, func() error { _, err := CreateGroup(f, "/Timestep_0"); return err })
	var he *Error
	if !errors.As(err, &he) || !strings.Contains(he.Op, "H5Gcreate_async /Timestep_0") {
		t.Errorf("creating an existing group in an event set: %v, want an error naming H5Gcreate_async /Timestep_0", err)
	}
	// A group with tracked creation order (CreateGroupWith) goes in as H5Gcreate_async too,
	// its creation list with it.
	var og ID
	ok(t, InEventSet(es, func() (err error) {
		og, err = CreateGroupWith(f, "/ordered", plan.GroupSpec{LinkOrder: plan.OrderTracked | plan.OrderIndexed})
		return err
	}))
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait after the ordered create: %v, failures %+v", err, fails)
	}
	if links, _, err := CreationOrderOf(og); err != nil || links != plan.OrderTracked|plan.OrderIndexed {
		t.Errorf("the group created in the event set with creation order: links %d, %v; want tracked and indexed", links, err)
	}
	err = InEventSet(es, func() error {
		_, err := CreateGroupWith(f, "/ordered", plan.GroupSpec{AttrOrder: plan.OrderTracked})
		return err
	})
	if !errors.As(err, &he) || !strings.Contains(he.Op, "H5Gcreate_async /ordered") {
		t.Errorf("creating an existing ordered group in an event set: %v, want an error naming H5Gcreate_async /ordered", err)
	}
	ok(t, InEventSet(es, func() error {
		if err := CloseGroup(og); err != nil {
			return err
		}
		if err := CloseDataset(d); err != nil {
			return err
		}
		return CloseGroup(g)
	}))
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait after the closes: %v, failures %+v", err, fails)
	}
	// Outside InEventSet the ordinary calls run: the event set stays the caller's thread's.
	if curES() != 0 {
		t.Error("an event set is still current after InEventSet returned")
	}
}

// TestEventSetFailureUnderAsyncVOL: under the Async VOL (where scripts/vol-connectors.sh
// built it) a create that fails does so in the background, and the event set's wait
// returns it naming the call (H5ESget_err_info) and its HDF5 error stack.
func TestEventSetFailureUnderAsyncVOL(t *testing.T) {
	const child = "H5PROXY_ES_CHILD"
	if os.Getenv(child) == "" {
		if !HaveEventSets() {
			t.Skipf("needs the Async VOL, built against HDF5 1.14: this build loads HDF5 %s (run with HDF5=1.14)", Version())
		}
		prefix := os.Getenv("H5PROXY_VOL_PREFIX")
		if prefix == "" {
			prefix = "/opt/h5proxy/vol-1.14.5-ts"
		}
		lib := filepath.Join(prefix, "lib")
		if _, err := os.Stat(filepath.Join(lib, "libh5async.so")); err != nil {
			t.Skipf("needs the Async VOL (libh5async.so) in %s: build it with `make vol-connectors`, or set H5PROXY_VOL_PREFIX: %v", lib, err)
		}
		// The connector is loaded when HDF5 starts: a process of its own.
		cmd := exec.Command(os.Args[0], "-test.run=^TestEventSetFailureUnderAsyncVOL$", "-test.v")
		cmd.Env = append(os.Environ(), child+"=1", "HDF5_PLUGIN_PATH="+lib, "HDF5_VOL_CONNECTOR=async under_vol=0;under_info={}")
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("ASYNC VOL ERROR")) {
			t.Fatalf("under the Async VOL: %v\n%s", err, out)
		}
		t.Logf("%s", out)
		return
	}
	// Every HDF5 call from the thread that started HDF5 and so the connector's Argobots
	// (its primary execution stream), as h5proxy's front ends lock theirs: a call from
	// another thread makes the connector print "[ASYNC VOL ERROR] ... ABT_thread_self".
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := DefaultConnector()
	if err != nil || c.Name != "async" {
		t.Fatalf("connector %+v, %v; want async", c, err)
	}
	path := filepath.Join(t.TempDir(), "es-fail.h5")
	f := must(CreateFile(path, Access{}))
	defer CloseFile(f)
	es := must(NewEventSet())
	defer es.Close()
	var g1, g2 ID
	ok(t, InEventSet(es, func() (err error) {
		if g1, err = CreateGroup(f, "/g"); err != nil {
			return err
		}
		g2, err = CreateGroup(f, "/g") // fails when it runs, after the first
		return err
	}))
	fails, err := es.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(fails) != 1 || fails[0].API != "H5Gcreate_async" || fails[0].Index != 1 || fails[0].Err == nil || len(fails[0].Err.Stack) == 0 {
		t.Fatalf("failures %+v, want one: H5Gcreate_async, the second operation, with its error stack", fails)
	}
	t.Logf("the background failure: %v", fails[0].Err)
	// HDF5 takes no more operations into an event set that had a failure ("event set has
	// failed operations"): the close goes outside it, as the mode's closes after a failure.
	// (The refused close still releases the identifier.)
	err = InEventSet(es, func() error { return CloseGroup(g1) })
	if err == nil || !strings.Contains(err.Error(), "H5Gclose_async") {
		t.Errorf("closing into the failed event set: %v, want HDF5's refusal naming H5Gclose_async", err)
	}
	_ = g2 // never created
}
