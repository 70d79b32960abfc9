package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
)

// TestE3SMWriteBuffersAsE3SMIO profiles bench/ref's E3SM-IO reference and h5proxy's e3sm
// built-in on E3SM-IO's F map at 2 ranks (its h1 file, 3 records; requests in map order
// in both). Both write from E3SM-IO's one write buffer carved by kind (utils.cpp
// wr_buf_malloc; var_wr_case advances a kind's pointer by each variable's element count;
// rank 0 alone counts the non-partitioned variables), so on rank 0 the fixed doubles,
// which follow F's five fixed int scalars, start 4 bytes off an 8-byte boundary, and so do
// the record text and ints: POSIX_MEM_NOT_ALIGNED of the history file is the reference's,
// and not 0 (h5proxy's page-aligned buffers gave 0; the real E3SM-IO 520 in the issue's
// case, which h5proxy now gives under Darshan: docs/fidelity-notes.md §7). Every other
// counter of the history file is equal too (the map file's reads differ: §7).
func TestE3SMWriteBuffersAsE3SMIO(t *testing.T) {
	dir := t.TempDir()
	lib, prog, mapFile := e3smReference(t, dir)
	hs, err := e3sm.HistoriesOf([]options.KV{{Key: "map", Value: mapFile}, {Key: "r", Value: "3"}, {Key: "f", Value: "1"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"profile", "-np", "2", "-lib", lib, "-noplot", "-o", "ref.json", "--", prog, mapFile, filepath.Join(dir, "ref", "e3sm.h5")}
	for _, h := range hs {
		hdr := filepath.Join(dir, h.Name+".hdr")
		if err := os.WriteFile(hdr, h.RefHeader(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, hdr)
	}
	for _, d := range []string{"ref", "proxy"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if r := h5proxyWithin(t, 10*time.Minute, dir, args...); r.code != 0 {
		t.Fatal(r)
	}
	cfg := writeJSON(t, filepath.Join(dir, "c.json"), map[string]any{"pattern": "e3sm", "phases": []string{"write"},
		"session": map[string]any{"file": filepath.Join(dir, "proxy", "e3sm.h5")},
		"options": map[string]any{"map": mapFile, "r": 3, "f": 1, "order": "map"}})
	if r := h5proxyWithin(t, 10*time.Minute, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", "proxy.json", "--", binary, "run", "-quiet", cfg); r.code != 0 {
		t.Fatal(r)
	}
	ref, err := profile.Load(filepath.Join(dir, "ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	px, err := profile.Load(filepath.Join(dir, "proxy.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		file := e3sm.HistoryPath("e3sm.h5", h.Name)
		a, err := ref.Find("POSIX", filepath.Join(dir, "ref", file), "", -1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := px.Find("POSIX", filepath.Join(dir, "proxy", file), "", -1)
		if err != nil {
			t.Fatal(err)
		}
		if n := a.Counters["POSIX_MEM_NOT_ALIGNED"]; n == 0 || b.Counters["POSIX_MEM_NOT_ALIGNED"] != n {
			t.Errorf("%s: POSIX_MEM_NOT_ALIGNED %d, the reference's %d (want equal, not 0)", file, b.Counters["POSIX_MEM_NOT_ALIGNED"], n)
		}
	}
	for _, c := range profile.Compare(ref, px).Differ {
		if f := filepath.Base(c.File); f == "e3sm_h0.h5" || f == "e3sm_h1.h5" {
			t.Errorf("%s %s %s %s: reference %d, h5proxy %d", f, c.Module, c.Name, c.Counter, c.A, c.B)
		}
	}
}
