package proxy

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// TestStepSpans: a step's spans are read from its first and last operations' stamps, less
// the data preparation and verification done in between (not what was prepared before
// the window), as a kernel's own clock around its open and close would read them.
func TestStepSpans(t *testing.T) {
	var s sample
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond } // ticks
	stamp(&s, 0, 3, at(0), at(10))                                                   // create: 0..10 ms
	stamp(&s, 1, 3, at(12), at(50))                                                  // a write: neither first nor last
	stamp(&s, 2, 3, at(60), at(65))                                                  // close: 60..65 ms
	s[mPrep], s[mPrepBefore], s[mVerify] = 0.007, 0.002, 0.003
	s.derive()
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-6 }
	if !near(s[mOpsSpan], 0.065-0.008) || !near(s[mInner], 0.050-0.008) {
		t.Errorf("span %v, inner %v; want 0.057 and 0.042", s[mOpsSpan], s[mInner])
	}
	// The last operation's stamps move earlier by the same 8 ms; the first's stay.
	last := float64(clockBaseUnix) / 1e9
	if !near(s[mLastStartOwn]-last, 0.052) || !near(s[mLastEndOwn]-last, 0.057) || !near(s[mFirstStart]-last, 0) {
		t.Errorf("last stamps less own time: %v, %v; want 0.052 and 0.057 after the first start", s[mLastStartOwn]-last, s[mLastEndOwn]-last)
	}
	var empty sample
	empty.derive()
	if empty[mOpsSpan] != 0 || empty[mInner] != 0 {
		t.Errorf("a sample without operations has spans %v, %v", empty[mOpsSpan], empty[mInner])
	}
	one := sample{}
	stamp(&one, 0, 1, at(0), at(4)) // a single operation is first and last
	one.derive()
	if !near(one[mOpsSpan], 0.004) || one[mInner] != 0 {
		t.Errorf("one operation: span %v, inner %v", one[mOpsSpan], one[mInner])
	}
}

// TestFileSelectionsUnstamped: a plan's file selections (plan.SelectFile, no library call)
// before its first or after its last operation are left out of the step's stamps, and
// the census and per-kind times have no slot for them.
func TestFileSelectionsUnstamped(t *testing.T) {
	op := func(k plan.OpKind) plan.Op { return plan.Op{Kind: k, Path: "/x"} }
	for _, c := range []struct {
		ops   []plan.Op
		lo, n int
	}{
		{[]plan.Op{op(plan.SelectFile), op(plan.OpenDataset), op(plan.Write), op(plan.CloseDataset)}, 1, 3},
		{[]plan.Op{op(plan.OpenDataset), op(plan.SelectFile), op(plan.Write), op(plan.SelectFile)}, 0, 3},
		{[]plan.Op{op(plan.SelectFile), op(plan.SelectFile)}, 2, 0},
		{nil, 0, 0},
	} {
		if lo, n := stampRange(&plan.Plan{Ops: c.ops}); lo != c.lo || n != c.n {
			t.Errorf("%v: stampRange %d, %d; want %d, %d", c.ops, lo, n, c.lo, c.n)
		}
	}
	if metric(plan.SelectFile) < nOpKinds {
		t.Fatalf("plan.SelectFile (%d) has a census slot (nOpKinds %d)", plan.SelectFile, nOpKinds)
	}
	var s sample
	sel := op(plan.SelectFile)
	s.countCall(&sel, 0)
	if c := census(reduceOne(&s), false); len(c.Calls) != 0 {
		t.Errorf("census of a file selection: %+v, want no call", c.Calls)
	}
}

// reduceOne is the reduction of one rank's sample.
func reduceOne(s *sample) *[nMetrics]Stat {
	var t [nMetrics]Stat
	for i, v := range s {
		t[i] = Stat{Min: v, Max: v, Mean: v, Sum: v}
	}
	return &t
}

// TestCensusNamesTheCallsMade: the census names the call the native layout makes for each
// operation: H5Gcreate1, H5Dcreate1 and H5Dopen1 for 1.6-API groups and datasets (not
// their kinds' H5Gcreate2, H5Dcreate2, H5Dopen2), and H5Aread with its bytes for an
// attribute read, which has no per-kind slot.
func TestCensusNamesTheCallsMade(t *testing.T) {
	d1 := &plan.DatasetSpec{Type: plan.F64, Shape: []uint64{4}, API1: true}
	d2 := &plan.DatasetSpec{Type: plan.F64, Shape: []uint64{4}}
	ops := []plan.Op{
		{Kind: plan.CreateGroup, Path: "/g1", API1: true}, {Kind: plan.CreateGroup, Path: "/g2"},
		{Kind: plan.CreateDataset, Path: "/d1", Dataset: d1}, {Kind: plan.CreateDataset, Path: "/d2", Dataset: d2},
		{Kind: plan.OpenDataset, Path: "/d1", Dataset: d1}, {Kind: plan.OpenDataset, Path: "/d2"},
		{Kind: plan.ReadAttribute, Path: "/", Attribute: &plan.AttributeSpec{Name: "n", Type: plan.I64, Shape: []uint64{3}}},
		{Kind: plan.ReadAttribute, Path: "/", Attribute: &plan.AttributeSpec{Name: "v", Type: plan.Str(9), Stored: true}},
	}
	var s sample
	for i := range ops {
		s.countCall(&ops[i], 0)
	}
	got := map[string][2]float64{}
	for _, c := range census(reduceOne(&s), false).Calls {
		got[c.Call] = [2]float64{c.Count, c.Bytes}
	}
	want := map[string][2]float64{"H5Gcreate1": {1, 0}, "H5Gcreate2": {1, 0}, "H5Dcreate1": {1, 0}, "H5Dcreate2": {1, 0},
		"H5Dopen1": {1, 0}, "H5Dopen2": {1, 0}, "H5Aread": {2, 3*8 + 9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("census %v, want %v", got, want)
	}
}
