package proxy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"

	logl "github.com/h5proxy/h5proxy/proxy/layout/log"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// strategyLayouts are the layouts these tests exercise besides native.
var strategyLayouts = []string{"log", "subfiling"}

// layoutKV selects a layout; on several ranks the subfiling layout writes 2 subfiles
// (one node would give one).
func layoutKV(layout string, size int) string {
	kv := ";layout=" + layout
	if layout == "subfiling" && size > 1 {
		kv += ";subfiling.count=2"
	}
	return kv
}

// plainOf is where a layout file's replayed or fused plain copy goes.
func plainOf(file string) string { return strings.TrimSuffix(file, ".h5") + "-plain.h5" }

// vpicOf builds the pattern of a combination.
func vpicOf(t *testing.T, kv, file string) *vpic.Pattern {
	t.Helper()
	cfg := config(t, kv, file)
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	return pat.(*vpic.Pattern)
}

// toPlain replays (log) or fuses (subfiling) a written file into plainOf(file): the
// shared file by rank 0, per-rank files each by its rank.
func toPlain(t *testing.T, layout string, c combo, file string, rank, size int) {
	t.Helper()
	vp := vpicOf(t, c.kv, file)
	if !vp.C.FilePerProc && rank != 0 {
		return
	}
	in := vp.FilePath(patterns.Env{Rank: rank, Size: size, Path: file})
	out := vp.FilePath(patterns.Env{Rank: rank, Size: size, Path: plainOf(file)})
	convert := logl.Replay
	if layout == "subfiling" {
		convert = subfiling.Fuse
	}
	if err := convert(in, out); err != nil {
		t.Fatalf("%s %s: %v", layout, c.name, err)
	}
}

// readPlain reads a plain file with the native layout and verifies every element.
// Session creation is collective: no rank opens the file before rank 0 made it.
func readPlain(t *testing.T, c combo, file string) {
	t.Helper()
	cfg := config(t, c.kv+";verify=yes", file)
	cfg.Phases = []patterns.Phase{patterns.PhaseRead}
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatalf("%s: native read of %s: %v", c.name, file, err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Phases[0]; !p.Verified || p.Mismatches != 0 || p.Bytes == 0 {
		t.Errorf("%s: native read of %s: verified %v, %v mismatches, %v bytes", c.name, file, p.Verified, p.Mismatches, p.Bytes)
	}
}

// checkMaster checks a subfiled master like a native file, except for the chunking and
// deflate of COMPRESS: a virtual dataset has neither, its sources in the subfiles have
// them.
func checkMaster(t *testing.T, c combo, np int, file string) {
	t.Helper()
	vp := vpicOf(t, c.kv, file)
	if !vp.C.Compress {
		checkIndependently(t, c, np, file)
		return
	}
	checkIndependently(t, combo{c.name, strings.Replace(c.kv, "COMPRESS=YES", "COMPRESS=NO", 1), c.read}, np, file)
	subs, _ := filepath.Glob(file + ".subfile_*")
	if len(subs) == 0 {
		t.Fatalf("%s: no subfiles", file)
	}
	for _, sub := range subs {
		checkChunked(t, sub, "/Timestep_0/x", vp)
	}
}

// TestLayoutsWriteReadVerify writes every VPIC combination with the log and subfiling
// layouts under every mode at 1, 2 and 4 ranks, reads it back through the same layout
// with element-by-element verification and checks the reports. The sync files are then
// replayed (log) or fused (subfiling) into plain files that the native layout's read
// phase verifies. The parent re-reads, with gonum.org/v1/hdf5, every subfiled master
// (through its virtual datasets) and every plain file, comparing the structure with the
// write plans and every written value with the seeded fill.
func TestLayoutsWriteReadVerify(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			for _, layout := range strategyLayouts {
				for _, mode := range modes {
					for _, c := range combos {
						file := fileOf(dir, layout+"-"+c.name+"-"+mode, np)
						if layout == "subfiling" {
							checkMaster(t, c, np, file)
						}
						if mode == "sync" {
							checkIndependently(t, c, np, plainOf(file))
						}
					}
				}
			}
		}
		return
	}
	w := world(t)
	size := w.Size()
	for _, layout := range strategyLayouts {
		for _, mode := range modes {
			for _, c := range combos {
				file := fileOf(dir, layout+"-"+c.name+"-"+mode, size)
				writeReadVerify(t, combo{c.name, c.kv + layoutKV(layout, size), c.read}, mode, file, size)
				if mode != "sync" {
					continue
				}
				toPlain(t, layout, c, file, w.Rank(), size)
				if c.read {
					readPlain(t, c, plainOf(file))
				}
			}
		}
	}
}

// TestLayoutsOtherRankCount writes with 4 ranks (subfiling: groups of 3 and 1 ranks) and
// reads with 2 and 1: the log index and the subfiled master serve any reader count. A
// read with another seed must fail verification, so the check has teeth.
func TestLayoutsOtherRankCount(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 4) {
		mpitest.Run(t, 2, 1)
		return
	}
	size := world(t).Size()
	const rows = 24 // 4 writers x DIM_1=6
	for _, layout := range strategyLayouts {
		file := filepath.Join(dir, layout+"-other.h5")
		if size == 4 {
			cfg := config(t, "NUM_DIMS=2;DIM_1=6;DIM_2=5;COLLECTIVE_DATA=YES;subfiling.ranks_per_file=3;layout="+layout, file)
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatalf("%s: %v", layout, err)
			}
			s.Close()
			continue
		}
		base := fmt.Sprintf("NUM_DIMS=2;DIM_1=%d;DIM_2=5;verify=yes;COLLECTIVE_DATA=YES;layout=%s", rows/size, layout)
		cfg := config(t, base, file)
		cfg.Phases = []patterns.Phase{patterns.PhaseRead}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatalf("%s read at %d ranks: %v", layout, size, err)
		}
		rep, err := s.Report()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if p := rep.Phases[0]; p.Bytes != float64(rows*5*32*timesteps) || !p.Verified || p.Mismatches != 0 {
			t.Errorf("%s read at %d ranks: %v bytes, verified %v, %v mismatches", layout, size, p.Bytes, p.Verified, p.Mismatches)
		}
		bad := config(t, base+";seed=7", file)
		bad.Phases = []patterns.Phase{patterns.PhaseRead}
		s = session(t, bad)
		if err := s.Run(); !errors.Is(err, proxy.ErrVerify) {
			t.Errorf("%s: read with another seed: %v, want ErrVerify", layout, err)
		}
		s.Close()
	}
}

// TestLayoutsStructure writes each combination natively, subfiled and logged at 2 ranks;
// the parent checks with gonum that the subfiled master and the replayed log file have
// exactly the native file's structure (paths, types, shapes, maximum shapes).
func TestLayoutsStructure(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		if !inspect.Available() {
			t.Skip("independent reader not built (needs -tags gonum)")
		}
		for _, c := range combos {
			if strings.Contains(c.kv, "FILE_PER_PROC") {
				continue
			}
			native, err := inspect.Tree(fileOf(dir, "native-"+c.name, 2))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{fileOf(dir, "subfiling-"+c.name, 2), plainOf(fileOf(dir, "log-"+c.name, 2))} {
				got, err := inspect.Tree(f)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, native) {
					t.Errorf("%s: structure\n%v\nwant the native file's\n%v", f, got, native)
				}
			}
		}
		return
	}
	w := world(t)
	for _, c := range combos {
		if strings.Contains(c.kv, "FILE_PER_PROC") {
			continue
		}
		for _, layout := range []string{"native", "subfiling", "log"} {
			file := fileOf(dir, layout+"-"+c.name, w.Size())
			cfg := config(t, c.kv+layoutKV(layout, w.Size()), file)
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatalf("%s %s: %v", layout, c.name, err)
			}
			s.Close()
			if layout == "log" {
				toPlain(t, layout, c, file, w.Rank(), w.Size())
			}
		}
	}
}

// TestSubfilingGroups checks the grouping keys at 4 ranks: one subfile per node by
// default, subfiling.count consecutive groups, subfiling.ranks_per_file ranks per group;
// the subfile names; the master's mappings (one per group); that a new file replaces the
// previous one's subfiles; and the errors of impossible counts on every rank.
func TestSubfilingGroups(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 4) {
		return
	}
	w := world(t)
	file := filepath.Join(dir, "groups.h5")
	for _, tc := range []struct {
		kv       string
		subfiles int
	}{
		{"", 1}, // one node
		{";subfiling.count=3", 3},
		{";subfiling.ranks_per_file=3", 2},
		{";subfiling.ranks_per_file=1", 4},
	} {
		cfg := config(t, "DIM_1=20;TIMESTEPS=1;layout=subfiling"+tc.kv, file)
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatalf("%q: %v", tc.kv, err)
		}
		s.Close()
		if w.Rank() != 0 {
			continue
		}
		var want []string
		for k := 0; k < tc.subfiles; k++ {
			want = append(want, filepath.Base(file)+fmt.Sprintf(".subfile_%d_of_%d", k+1, tc.subfiles))
		}
		var got []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "groups.h5.") {
				got = append(got, e.Name())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: subfiles %q, want %q", tc.kv, got, want)
		}
		f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := h5.OpenDataset(f, "/Timestep_0/x")
		if err != nil {
			t.Fatal(err)
		}
		maps, virtual, err := h5.VirtualMappings(d)
		h5.CloseDataset(d)
		h5.CloseFile(f)
		if err != nil || !virtual || len(maps) != tc.subfiles {
			t.Fatalf("%q: %d mappings (virtual %v, %v), want %d", tc.kv, len(maps), virtual, err, tc.subfiles)
		}
		var mapped uint64
		for k, m := range maps {
			mapped += m.Virtual.NPoints([]uint64{80})
			if m.File != want[k] || m.Dataset != "/Timestep_0/x" {
				t.Errorf("%q: mapping %d from %s:%s", tc.kv, k, m.File, m.Dataset)
			}
		}
		if mapped != 80 {
			t.Errorf("%q: the mappings cover %d of 80 elements", tc.kv, mapped)
		}
	}
	for _, kv := range []string{"subfiling.count=5", "subfiling.count=3;subfiling.ranks_per_file=2"} {
		cfg, err := proxy.ParseOptions("vpic", mustKV(t, "DIM_1=4;layout=subfiling;file="+file+";"+kv))
		if err == nil {
			s := session(t, cfg)
			err = s.Run()
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "subfiling.") {
			t.Errorf("%s: err = %v, want one naming the key", kv, err)
		}
		if strings.Contains(kv, "count=5") && (err == nil || !strings.Contains(err.Error(), `value "5"`) || !strings.Contains(err.Error(), "allowed: 0 (one per node) to 4")) {
			t.Errorf("%s: err = %v, want the value and the allowed range", kv, err)
		}
	}
}

func mustKV(t *testing.T, text string) []options.KV {
	t.Helper()
	kv, err := proxy.ParseKV(text)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// TestLogFormat checks the log layout's file at 2 ranks: anchors with a NULL dataspace
// and _anchor, one data log and one metadata log (the write phase flushes once, at its end;
// the close adds nothing) whose sizes are the data and index of both ranks, and the root
// attribute.
func TestLogFormat(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	w := world(t)
	file := filepath.Join(dir, "format.h5")
	const dim1 = 100
	cfg := config(t, fmt.Sprintf("DIM_1=%d;COLLECTIVE_DATA=YES;layout=log", dim1), file)
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if w.Rank() != 0 {
		return
	}
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	attr, err := h5.ReadAttribute(f, "_h5proxy_log")
	if err != nil || len(attr.Value) != 24 || attr.Value[0] != 2 || attr.Value[8] != 1 || attr.Value[16] != 2 {
		t.Errorf("root attribute %+v (%v), want version 2, 1 log, 2 ranks", attr, err)
	}
	shapeOf := func(path string) []uint64 {
		d, err := h5.OpenDataset(f, path)
		if err != nil {
			t.Fatal(err)
		}
		defer h5.CloseDataset(d)
		info, err := h5.DatasetInfo(d)
		if err != nil {
			t.Fatal(err)
		}
		return info.Shape
	}
	if got, want := shapeOf("/_LOG/_ld_0"), uint64(timesteps*8*dim1*2*4); len(got) != 1 || got[0] != want {
		t.Errorf("data log shape %v, want [%d]", got, want)
	}
	if got := shapeOf("/_LOG/_md_0"); len(got) != 1 || got[0] == 0 {
		t.Errorf("metadata log shape %v", got)
	}
	if ok, _ := h5.Exists(f, "/_LOG/_ld_1"); ok {
		t.Error("a second data log: the close flushed nothing new and must not add one")
	}
	if got := shapeOf("/Timestep_1/id_1"); len(got) != 0 {
		t.Errorf("anchor has shape %v, want a NULL dataspace", got)
	}
	d, err := h5.OpenDataset(f, "/Timestep_1/id_1")
	if err != nil {
		t.Fatal(err)
	}
	anchor, err := h5.ReadAttribute(d, "_anchor")
	h5.CloseDataset(d)
	if err != nil || len(anchor.Value) != 5*8 || anchor.Value[0] != 2*dim1 {
		t.Errorf("anchor attribute %+v (%v), want extent [%d] first of 5 values", anchor, err, 2*dim1)
	}
}

// TestLayoutsCornerReads runs the rank-0-only 2-D read options (collective metadata
// reads, the other rank selecting nothing) on log and subfiled files at 2 ranks.
func TestLayoutsCornerReads(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	base := "NUM_DIMS=2;DIM_1=40;DIM_2=30;BLOCK_SIZE=6;BLOCK_SIZE_2=4;STRIDE_SIZE=9;STRIDE_SIZE_2=5"
	for _, layout := range strategyLayouts {
		file := filepath.Join(dir, layout+"-corner.h5")
		w := config(t, base+layoutKV(layout, 2), file)
		w.Phases = []patterns.Phase{patterns.PhaseWrite}
		s := session(t, w)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		for _, opt := range []string{"LDC", "PRL", "CS"} {
			r := config(t, base+";verify=yes;COLLECTIVE_DATA=YES;READ_OPTION="+opt+";layout="+layout, file)
			r.Phases = []patterns.Phase{patterns.PhaseRead}
			s := session(t, r)
			if err := s.Run(); err != nil {
				t.Fatalf("%s %s: %v", layout, opt, err)
			}
			rep, err := s.Report()
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if p := rep.Phases[0]; p.Bytes == 0 || !p.Verified || p.Mismatches != 0 {
				t.Errorf("%s %s: read %v bytes, verified %v, %v mismatches", layout, opt, p.Bytes, p.Verified, p.Mismatches)
			}
		}
	}
}

// e3smLayoutRuns are small synthesized E3SM cases: records grow their datasets
// (ExtendDataset), variables share decompositions, scalars, strings and many attributes.
var e3smLayoutRuns = []e3smRun{
	{"Fsynth", "case=F;ne=2;lev=4;r=2", ""},
}

// TestLayoutsE3SM writes a synthesized E3SM F case (both history files, 465 variables)
// natively, subfiled, logged (under the async mode) and through posix calls (under the
// cache mode) at 2 ranks, reads it back through the same layout with verification and
// replays the log files; the parent then compares
// every master and replayed file with the native one: structure through gonum, and every
// dataset's values and every attribute through a serial HDF5 open.
func TestLayoutsE3SM(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		for _, r := range e3smLayoutRuns {
			natives, _ := filepath.Glob(filepath.Join(dir, "native-"+r.name+"*.h5"))
			if len(natives) == 0 {
				t.Fatalf("%s: no native file", r.name)
			}
			for _, native := range natives {
				for _, layout := range []string{"subfiling", "log-async"} {
					f := strings.Replace(native, "native-", layout+"-", 1)
					if strings.HasPrefix(layout, "log") {
						f = plainOf(f)
					}
					sameFiles(t, native, f)
				}
			}
		}
		return
	}
	w := world(t)
	for _, r := range e3smLayoutRuns {
		for _, run := range []struct{ name, kv string }{
			{"native", ""}, {"subfiling", ";layout=subfiling;subfiling.count=2"}, {"log-async", ";layout=log;mode=async"},
			{"posix-cache", ";layout=posix;mode=cache"},
		} {
			base := filepath.Join(dir, run.name+"-"+r.name+".h5")
			cfg := e3smConfig(t, e3smRun{r.name, r.kv + run.kv + ";verify=yes", r.real}, base)
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatalf("%s %s: %v", run.name, r.name, err)
			}
			rep, err := s.Report()
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if p := rep.Phases[len(rep.Phases)-1]; p.Phase != "read" || !p.Verified || p.Mismatches != 0 || p.Bytes == 0 {
				t.Errorf("%s %s: read verified %v, %v mismatches, %v bytes", run.name, r.name, p.Verified, p.Mismatches, p.Bytes)
			}
			if !strings.HasPrefix(run.name, "log") || w.Rank() != 0 {
				continue
			}
			files, _ := filepath.Glob(strings.TrimSuffix(base, ".h5") + "*.h5")
			for _, f := range files {
				if !strings.HasSuffix(f, "-plain.h5") {
					if err := logl.Replay(f, plainOf(f)); err != nil {
						t.Fatalf("replay %s: %v", f, err)
					}
				}
			}
		}
	}
}

// sameFiles compares two HDF5 files: gonum's view of their structure, and through a
// serial open every dataset's type, extents and values and every attribute.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	wt, err := inspect.Tree(want)
	if err != nil {
		t.Fatal(err)
	}
	gt, err := inspect.Tree(got)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gt, wt) {
		t.Errorf("%s: gonum sees another structure than in %s", got, want)
		return
	}
	a, err := h5.OpenFile(want, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(a)
	b, err := h5.OpenFile(got, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(b)
	objs, err := h5.Walk(a)
	if err != nil {
		t.Fatal(err)
	}
	sameAttributes(t, got, "/", a, b)
	datasets := 0
	for _, o := range objs {
		if !o.Dataset {
			continue
		}
		da, err := h5.OpenDataset(a, o.Path)
		if err != nil {
			t.Fatal(err)
		}
		db, err := h5.OpenDataset(b, o.Path)
		if err != nil {
			h5.CloseDataset(da)
			t.Fatalf("%s: %v", got, err)
		}
		ia, _ := h5.DatasetInfo(da)
		ib, _ := h5.DatasetInfo(db)
		if !ia.Type.Equal(ib.Type) || !reflect.DeepEqual(ia.Shape, ib.Shape) || !reflect.DeepEqual(ia.MaxShape, ib.MaxShape) {
			t.Errorf("%s %s: %+v, want %+v", got, o.Path, ib, ia)
		} else if n := plan.Product(ia.Shape); n > 0 {
			tr := &plan.Transfer{MemType: ia.Type, MemShape: []uint64{n}, FileType: ia.Type, FileShape: ia.Shape, Selection: plan.All(ia.Shape)}
			if len(ia.Shape) == 0 {
				tr.MemShape = nil
			}
			va, vb := make([]byte, int(n)*ia.Type.Size), make([]byte, int(n)*ia.Type.Size)
			if err := h5.Read(da, tr, false, va); err != nil {
				t.Fatal(err)
			}
			if err := h5.Read(db, tr, false, vb); err != nil {
				t.Fatalf("%s %s: %v", got, o.Path, err)
			}
			if !slices.Equal(va, vb) {
				t.Errorf("%s %s: values differ from %s's", got, o.Path, want)
			}
			datasets++
		}
		sameAttributes(t, got, o.Path, da, db)
		h5.CloseDataset(da)
		h5.CloseDataset(db)
	}
	if datasets == 0 {
		t.Errorf("%s: no dataset compared", want)
	}
}

// sameAttributes compares the attributes of two objects.
func sameAttributes(t *testing.T, file, path string, a, b h5.ID) {
	t.Helper()
	na, err := h5.AttributeNames(a)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := h5.AttributeNames(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(na, nb) {
		t.Errorf("%s %s: attributes %q, want %q", file, path, nb, na)
		return
	}
	for _, n := range na {
		va, err := h5.ReadAttribute(a, n)
		if err != nil {
			t.Fatal(err)
		}
		vb, err := h5.ReadAttribute(b, n)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(va, vb) {
			t.Errorf("%s %s @%s: %+v, want %+v", file, path, n, vb, va)
		}
	}
}
