//go:build cgo && linux

package h5

import (
	"bytes"
	"errors"
	"fmt"
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
			prefix = "/opt/h5proxy/vol-1.14.5"
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

// TestEventSetReusesSpaces: inside an event set a step's transfers make no HDF5 call
// between their _async calls other than the ones h5bench makes. Under the Async VOL every
// call waits for the library's lock, held by the connector's thread for a whole background
// write, so a per-write H5Sclose or H5Iis_valid made the writes run one by one in the
// caller's step (docs/modes.md, "Where h5proxy's event sets lost their overlap"). The
// dataspaces of four creates and four half-dataset writes of one extent are made once
// (one creation space, one file and one memory space: 12 before), the data read back is
// each dataset's own, a wrong identifier kind is still refused from the package's own
// record, and the file's close releases the spaces.
func TestEventSetReusesSpaces(t *testing.T) {
	if !HaveEventSets() {
		t.Skipf("needs event sets (HDF5 1.13 and later): this build loads HDF5 %s (run with HDF5=1.14)", Version())
	}
	path := filepath.Join(t.TempDir(), "spaces.h5")
	f := must(CreateFile(path, Access{}))
	es := must(NewEventSet())
	defer es.Close()
	shape := []uint64{32}
	half := &plan.Transfer{MemType: plan.F32, MemShape: []uint64{16}, FileShape: shape,
		Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{8}, []uint64{16})}}}
	var ds [4]ID
	var bufs [4][]byte
	a := newIDMark()
	ok(t, InEventSet(es, func() (err error) {
		for i := range ds {
			if ds[i], err = CreateDataset(f, fmt.Sprintf("d%d", i), plan.DatasetSpec{Type: plan.F32, Shape: shape}); err != nil {
				return err
			}
		}
		for i, d := range ds {
			bufs[i] = randBytes(uint64(10+i), 16*4)
			if err := Write(d, half, false, bufs[i]); err != nil {
				return err
			}
		}
		return nil
	}))
	b := newIDMark()
	if made := int(b[0] - a[0] - 1); made != 3 {
		t.Errorf("four creates and four writes of one extent in an event set made %d dataspaces, want 3 (one each for the create, the file and the memory space)", made)
	}
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait: %v, failures %+v", err, fails)
	}
	for i, d := range ds {
		got := make([]byte, 16*4)
		ok(t, Read(d, half, false, got))
		if !bytes.Equal(got, bufs[i]) {
			t.Errorf("dataset d%d read back differs from what its write passed", i)
		}
	}
	// The cached spaces serve another element type of the same shapes: each transfer's
	// buffer is checked against its own type's size, not the first transfer's.
	halfF64 := *half
	halfF64.MemType = plan.F64
	wide := randBytes(99, 16*8)
	err := InEventSet(es, func() error { return Write(ds[1], &halfF64, false, wide) })
	if err != nil {
		t.Errorf("an f64 write after f32 writes of the same extent in an event set: %v", err)
	}
	err = InEventSet(es, func() error { return Write(ds[2], &halfF64, false, wide[:16*4]) })
	if err == nil || !strings.Contains(err.Error(), "buffer has 64 bytes") {
		t.Errorf("an f64 write from an f32-sized buffer through cached spaces: %v, want the buffer refused", err)
	}
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait after the f64 write: %v, failures %+v", err, fails)
	}
	err = InEventSet(es, func() error { return CloseGroup(ds[0]) })
	if !errors.Is(err, ErrInvalidID) || !strings.Contains(err.Error(), "a dataset, want a group") {
		t.Errorf("CloseGroup of a dataset in an event set: %v, want ErrInvalidID naming both kinds", err)
	}
	ok(t, InEventSet(es, func() error {
		for _, d := range ds {
			if err := CloseDataset(d); err != nil {
				return err
			}
		}
		return nil
	}))
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait after the closes: %v, failures %+v", err, fails)
	}
	ok(t, CloseFile(f))
	c := newIDMark()
	open, _ := leakedSince(a, c)
	for _, id := range open { // (the transfer list a library's first write makes stays cached)
		if int64(id) > int64(a[0]) && int64(id) < int64(c[0]) {
			t.Errorf("dataspace %d still open after the file's close", id)
		}
	}
}

// TestEventSetPending: an identifier an _async create returned is pending until its event
// set is waited, and an ordinary call on it is refused naming the call and the set
// (ErrPending) — under the Async VOL that call is the connector's implicit wait behind
// every queued operation, which can lose its wake-up (docs/modes.md), so the event-set
// mode must wait the set first or issue the call into it; the native connector, which
// runs each _async call at once, is held to the same rule. Attributes go into the set as
// H5Acreate_async (H5Aopen_async to write one again), H5Awrite_async and H5Aclose_async,
// three operations each (EventSet.Inserted), their values held until the wait; a
// reference attribute, whose references are made by ordinary calls, is refused there.
// Once the set is waited the ordinary calls run and read back what the set wrote.
func TestEventSetPending(t *testing.T) {
	if !HaveEventSets() {
		t.Skipf("needs event sets (HDF5 1.13 and later): this build loads HDF5 %s, which has no _async calls to leave pending (run with HDF5=1.14)", Version())
	}
	path := filepath.Join(t.TempDir(), "pending.h5")
	f := must(CreateFile(path, Access{}))
	defer CloseFile(f)
	es := must(NewEventSet())
	defer es.Close()
	shape := []uint64{8}
	var g, d ID
	ok(t, InEventSet(es, func() (err error) {
		if g, err = CreateGroup(f, "/g"); err != nil {
			return err
		}
		d, err = CreateDataset(g, "x", plan.DatasetSpec{Type: plan.F32, Shape: shape})
		return err
	}))
	if n := es.Inserted(); n != 2 {
		t.Errorf("a group and a dataset created in the set: Inserted %d, want 2", n)
	}
	units := plan.AttributeSpec{Name: "units", Type: plan.Str(4), Value: []byte("m/s\x00")}
	for _, c := range []struct {
		what string
		call func() error
		in   string
	}{
		{"WriteAttribute", func() error { return WriteAttribute(d, units) }, "H5Dcreate_async x"},
		{"DatasetShape", func() error { _, err := DatasetShape(d); return err }, "H5Dcreate_async x"},
		{"CreateDataset in the group", func() error {
			_, err := CreateDataset(g, "y", plan.DatasetSpec{Type: plan.F32, Shape: shape})
			return err
		}, "H5Gcreate_async /g"},
		{"Write", func() error { return Write(d, wholeTransfer(plan.F32, shape), false, make([]byte, 32)) }, "H5Dcreate_async x"},
	} {
		err := c.call()
		if !errors.Is(err, ErrPending) || !strings.Contains(err.Error(), c.in) || !strings.Contains(err.Error(), fmt.Sprintf("event set %d", es.id)) {
			t.Errorf("ordinary %s on an object pending in the set: %v, want ErrPending naming %q and the set", c.what, err, c.in)
		}
	}
	// Into the set: the attributes, a variable-length string and a value written again.
	name := plan.AttributeSpec{Name: "name", Type: plan.VStr(8), Value: []byte("velocity")}
	before := es.Inserted()
	ok(t, InEventSet(es, func() error {
		if err := WriteAttribute(d, units); err != nil {
			return err
		}
		if err := WriteAttribute(g, name); err != nil {
			return err
		}
		again := units
		again.Value, again.Exists = []byte("km/s"), true
		return WriteAttribute(d, again)
	}))
	if n := es.Inserted() - before; n != 9 {
		t.Errorf("three attribute writes in the set: %d operations inserted, want 9 (create or open, write, close each)", n)
	}
	err := InEventSet(es, func() error {
		return WriteAttribute(d, plan.AttributeSpec{Name: "ref", Type: plan.Type{Class: plan.Reference, Size: 64}, Value: make([]byte, 64)})
	})
	if err == nil || !strings.Contains(err.Error(), "reference attribute") {
		t.Errorf("a reference attribute in the set: %v, want it refused", err)
	}
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait: %v, failures %+v", err, fails)
	}
	// Waited: the ordinary calls run.
	if sh, err := DatasetShape(d); err != nil || len(sh) != 1 || sh[0] != 8 {
		t.Errorf("DatasetShape after the wait: %v, %v", sh, err)
	}
	if _, err := ReadAttributeAs(d, plan.AttributeSpec{Name: "units", Type: plan.Str(4), Value: []byte("km/s")}); err != nil {
		t.Errorf("the attribute written again in the set, read back: %v", err)
	}
	if got, err := ReadAttribute(g, "name"); err != nil || !bytes.HasPrefix(got.Value, name.Value) {
		t.Errorf("the variable-length string attribute written in the set, read back: %q, %v; want %q", got.Value, err, name.Value)
	}
	// A failure in the set names the attribute call: the attribute exists.
	err = InEventSet(es, func() error { return WriteAttribute(d, units) })
	if err == nil || !strings.Contains(err.Error(), "H5Acreate_async @units") {
		t.Errorf("creating an existing attribute in the set: %v, want a failure naming H5Acreate_async @units", err)
	}
	ok(t, InEventSet(es, func() error {
		if err := CloseDataset(d); err != nil {
			return err
		}
		return CloseGroup(g)
	}))
	if fails, err := es.Wait(); err != nil || len(fails) != 0 {
		t.Fatalf("Wait after the closes: %v, failures %+v", err, fails)
	}
}
