package background

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

func newTestCache(t *testing.T, capacity int) *cacheStore {
	t.Helper()
	s, err := newCacheStore("/out/run.h5", t.TempDir(), capacity, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.release)
	return s
}

// TestCacheStoreLandsInNodeLocalFile: staged data lives in the rank's cache file, named as
// the Cache VOL names it, and is removed at release.
func TestCacheStoreLandsInNodeLocalFile(t *testing.T) {
	s := newTestCache(t, 64)
	if filepath.Base(filepath.Dir(s.path)) != "run.h5-cache" || !strings.HasPrefix(filepath.Base(s.path), "mmap-") {
		t.Errorf("cache file %s", s.path)
	}
	buf, done, err := s.stage(writeOp("/a", 0, 4), 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, "data")
	done()
	onDisk, err := os.ReadFile(s.path)
	if err != nil || string(onDisk[:4]) != "data" {
		t.Errorf("cache file holds %q (%v)", onDisk[:4], err)
	}
	got := make([]byte, 4)
	if !s.lookup(writeOp("/a", 0, 4), got) || string(got) != "data" {
		t.Errorf("lookup: %q", got)
	}
	if s.lookup(writeOp("/other", 0, 4), got) {
		t.Error("lookup hit for another dataset")
	}
	s.release()
	if _, err := os.Stat(s.path); !os.IsNotExist(err) {
		t.Errorf("cache file left behind: %v", err)
	}
}

// TestCacheCapacityOverflow: a full cache evicts migrated data oldest first, waits while
// everything cached is unmigrated, and refuses what can never fit.
func TestCacheCapacityOverflow(t *testing.T) {
	s := newTestCache(t, 8)
	_, doneA, _ := s.stage(writeOp("/a", 0, 4), 4)
	_, doneB, _ := s.stage(writeOp("/b", 0, 4), 4)
	got := make(chan error)
	go func() {
		_, _, err := s.stage(writeOp("/c", 0, 4), 4)
		got <- err
	}()
	select {
	case <-got:
		t.Fatal("staged into a cache full of unmigrated data")
	case <-time.After(50 * time.Millisecond):
	}
	doneA() // /a migrated: evictable
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if s.lookup(writeOp("/a", 0, 4), make([]byte, 4)) {
		t.Error("/a should have been evicted")
	}
	if !s.lookup(writeOp("/b", 0, 4), make([]byte, 4)) {
		t.Error("/b (unmigrated) must stay")
	}
	doneB()
	if high, blocked := s.takeStats(); high != 8 || blocked < 40*time.Millisecond {
		t.Errorf("high-water %d (want 8), blocked %v", high, blocked)
	}
	if _, _, err := s.stage(writeOp("/huge", 0, 9), 9); err != errTooBig {
		t.Errorf("oversized stage: %v, want errTooBig", err)
	}
}

// TestCacheModeWriteThroughAndLocalReads drives the whole mode over a fake layout: writes
// migrate in order, an oversized write goes through synchronously, an independent read of
// cached data never reaches the layout.
func TestCacheModeWriteThroughAndLocalReads(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}}
	store := newTestCache(t, 8)
	m := newBackground(f, store, nil)
	m.local = func(op *plan.Op, buf []byte) (bool, error) { return store.lookup(op, buf), nil }
	defer m.Close()
	if err := m.Exec(writeOp("/a", 0, 4), []byte("aaaa")); err != nil {
		t.Fatal(err)
	}
	if err := m.Exec(writeOp("/big", 0, 16), []byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if err := m.Wait(); err != nil {
		t.Fatal(err)
	}
	if string(f.data["/a"]) != "aaaa" || string(f.data["/big"]) != "0123456789abcdef" {
		t.Errorf("migrated data %q", f.data)
	}
	before := len(f.executed())
	buf := make([]byte, 4)
	read := &plan.Op{Kind: plan.Read, Path: "/a", Transfer: writeOp("/a", 0, 4).Transfer}
	if err := m.Exec(read, buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != "aaaa" || len(f.executed()) != before {
		t.Errorf("read %q, layout saw %v", buf, f.executed()[before:])
	}
}

// TestCacheKeysFollowTheCurrentFile: cached data is keyed by the file current when it was
// written: a select makes another open file current and a close removes the file it
// names, as in the layout, so the same dataset path in two open files holds two entries.
func TestCacheKeysFollowTheCurrentFile(t *testing.T) {
	store := newTestCache(t, 64)
	for _, op := range []plan.Op{{Kind: plan.CreateFile, Path: "a.h5"}, {Kind: plan.CreateFile, Path: "b.h5"}, {Kind: plan.SelectFile, Path: "a.h5"}} {
		store.track(&op)
	}
	w := writeOp("/x", 0, 4)
	if k := store.keyOfTransfer(w); k.file != "a.h5" {
		t.Errorf("after selecting a.h5: key in %q", k.file)
	}
	store.track(&plan.Op{Kind: plan.SelectFile, Path: "b.h5"})
	if k := store.keyOfTransfer(w); k.file != "b.h5" {
		t.Errorf("after selecting b.h5: key in %q", k.file)
	}
	store.track(&plan.Op{Kind: plan.CloseFile, Path: "a.h5"}) // not the current file
	if k := store.keyOfTransfer(w); k.file != "b.h5" || store.files.Len() != 1 {
		t.Errorf("after closing a.h5: key in %q, open %v", k.file, store.files)
	}
	store.track(&plan.Op{Kind: plan.CloseFile})
	if store.files.Len() != 0 {
		t.Errorf("a close without a path closes the current file: open %v", store.files)
	}
}

// TestCacheStoreRefusesAFileInUse: a second store for the same file name, rank and cache
// directory (another run writing a file of that name) is refused, naming cache.path, and
// leaves the first one's mapped file as it was; once the first is released the name is free.
func TestCacheStoreRefusesAFileInUse(t *testing.T) {
	dir := t.TempDir()
	first, err := newCacheStore("/a/run.h5", dir, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf, done, err := first.stage(writeOp("/a", 0, 4), 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, "kept")
	done()
	if _, err := newCacheStore("/b/run.h5", dir, 16, 0); err == nil || !strings.Contains(err.Error(), `"cache.path"`) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second store on the same cache file: %v, want an error naming cache.path", err)
	}
	if onDisk, err := os.ReadFile(first.path); err != nil || len(onDisk) != 64 || string(onDisk[:4]) != "kept" {
		t.Errorf("first store's file after the refusal: %d bytes %q (%v), want 64 bytes starting \"kept\"", len(onDisk), onDisk[:min(4, len(onDisk))], err)
	}
	other, err := newCacheStore("/a/run.h5", dir, 64, 1) // another rank: another file
	if err != nil {
		t.Fatalf("rank 1 beside rank 0: %v", err)
	}
	other.release()
	first.release()
	again, err := newCacheStore("/b/run.h5", dir, 16, 0)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.release()
}

// TestCacheStoreLeavesNoDirectory: the <file>-cache directory goes with the last rank's
// file (a run without cache.path leaves nothing in the temporary directory), stays while
// another rank's file is in it, and is made again by the next store.
func TestCacheStoreLeavesNoDirectory(t *testing.T) {
	base := t.TempDir()
	r0, err := newCacheStore("/out/run.h5", base, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := newCacheStore("/out/run.h5", base, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(r0.path)
	r0.release()
	if _, err := os.Stat(r1.path); err != nil {
		t.Fatalf("rank 1's cache file after rank 0's release: %v", err)
	}
	r1.release()
	if left, err := os.ReadDir(base); err != nil || len(left) != 0 {
		t.Errorf("cache.path after every rank's release holds %v (%v), want nothing", left, err)
	}
	again, err := newCacheStore("/out/run.h5", base, 16, 0)
	if err != nil {
		t.Fatalf("a store after the directory went: %v", err)
	}
	if filepath.Dir(again.path) != dir {
		t.Errorf("the new store's file %s is not in %s", again.path, dir)
	}
	again.release()
}
