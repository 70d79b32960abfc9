package main

import (
	bin "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/patterns/amrex"
)

// TestAMReXRestartAttributeReads profiles h5bench's AMReX kernel (16^3 cells, max_grid_size
// 8, one plotfile and one particle file, restart check) at 2 ranks with the trace on. Every
// rank's restart makes RestartHDF5's attribute calls (AMReX_ParticleHDF5.H), H5Aopen then
// H5Aread, in its order and on its objects: version_name read with its stored type
// (H5Aget_type: a string of the file's length), Chombo_global's SpaceDim, the root's
// num_component_real, num_component_int, nparticles, maxnextid and finest_level, then
// level_0's ngrids; the values read are what the writer wrote (issue 36: these calls were
// missing, 4 independent MPI-IO reads of 100 B-1 KiB fewer than the real program at 2
// ranks under Darshan). No other attribute is opened or read.
func TestAMReXRestartAttributeReads(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	cfg := `{"mpi": {"command": "mpirun", "ranks": "2"}, "vol": {}, "file-system": {}, "directory": "out",
 "benchmarks": [{"benchmark": "amrex", "file": "amrex", "configuration": {"ncells": "16", "max_grid_size": "8", "nlevs": "1",
 "ncomp": "2", "nppc": "1", "nplotfile": "1", "nparticlefile": "1", "sleeptime": "0", "restart_check": "1", "mode": "SYNC"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "amrex.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-trace", "-noplot", "-o", "p.json", "--", binary, "run", "-quiet", "amrex.json"); r.code != 0 {
		t.Fatal(r)
	}
	p, err := profile.Load(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	le := func(n int, v uint64) string {
		b := make([]byte, 8)
		bin.LittleEndian.PutUint64(b, v)
		return hex.EncodeToString(b[:n])
	}
	const particles = 16 * 16 * 16 // nppc 1
	want := []string{
		"/ version_name " + hex.EncodeToString([]byte(amrex.CheckpointVersion+"\x00")),
		"/Chombo_global SpaceDim " + le(4, 3),
		"/ num_component_real " + le(4, amrex.NumRealComps),
		"/ num_component_int " + le(4, amrex.NumIntComps),
		"/ nparticles " + le(8, particles),
		"/ maxnextid " + le(8, uint64(amrex.MaxNextID(particles, 2))),
		"/ finest_level " + le(4, 0),
		"/level_0 ngrids " + le(4, 8),
	}
	type attr struct {
		Object, Name string
		TypeSize     int    `json:"type_size"`
		MemSize      int    `json:"mem_size"`
		Value        string `json:"value"`
	}
	for rank := 0; rank < 2; rank++ {
		var opens, reads []string
		for _, e := range p.Events {
			if e.Rank != rank || (e.Call != "H5Aopen" && e.Call != "H5Aread") {
				continue
			}
			if !strings.HasSuffix(e.File, "particle0.h5") {
				t.Errorf("rank %d: %s in %s; only the restart (particle0.h5) reads attributes", rank, e.Call, e.File)
			}
			var a attr
			if err := json.Unmarshal(e.Attribute, &a); err != nil {
				t.Fatal(err)
			}
			if e.Call == "H5Aopen" {
				opens = append(opens, a.Object+" "+a.Name)
				continue
			}
			if a.MemSize != a.TypeSize {
				t.Errorf("rank %d: %s read with a memory type of %d bytes, stored %d", rank, a.Name, a.MemSize, a.TypeSize)
			}
			reads = append(reads, fmt.Sprintf("%s %s %s", a.Object, a.Name, a.Value))
		}
		if !reflect.DeepEqual(reads, want) {
			t.Errorf("rank %d: H5Aread\n%s\nwant (RestartHDF5)\n%s", rank, strings.Join(reads, "\n"), strings.Join(want, "\n"))
		}
		for i := range opens {
			if i >= len(want) || !strings.HasPrefix(want[i], opens[i]+" ") {
				t.Errorf("rank %d: H5Aopen %d is %q, want the attribute of %q", rank, i, opens[i], want[min(i, len(want)-1)])
			}
		}
		if len(opens) != len(want) {
			t.Errorf("rank %d: %d H5Aopen, want %d", rank, len(opens), len(want))
		}
	}
	if o, r := p.Calls["H5Aopen"].N, p.Calls["H5Aread"].N; o != 16 || r != 16 {
		t.Errorf("calls: H5Aopen %d, H5Aread %d; want 16 each (8 per rank)", o, r)
	}
}
