package proxy_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestVerifyNamesTheFileRead writes VPIC-IO with a file per rank at 2 ranks, corrupts
// element 69 of /Timestep_1/px in rank 1's file (each file has the global dataspace, rank
// 1's elements from 64), then reads with verification in every
// mode: both ranks fail with ErrVerify, one mismatching element on 1 of 2 ranks; rank 1
// names the file it read (rank_1_..., not the configured path), the step, the dataset and
// the element, rank 0 names the file it read.
func TestVerifyNamesTheFileRead(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	const kv = "DIM_1=64;TIMESTEPS=2;FILE_PER_PROC=YES;COLLECTIVE_DATA=YES"
	file := filepath.Join(dir, "perrank.h5")
	w := config(t, kv, file)
	w.Phases = []patterns.Phase{patterns.PhaseWrite}
	s := session(t, w)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	vp := s.Pattern().(*vpic.Pattern)
	s.Close()
	rank := world(t).Rank()
	own := vp.FilePath(patterns.Env{Rank: rank, Size: 2, Path: file})
	if own == file {
		t.Fatalf("rank %d writes the configured path %s, want a file of its own", rank, file)
	}
	if rank == 1 {
		off, _ := datasetAt(t, own, "/Timestep_1/px")
		overwriteAt(t, own, off+69*4, 4) // element 69 of 4-byte floats
	}
	if err := world(t).Barrier(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range modes {
		r := config(t, kv+";verify=yes;cache.path="+dir+";"+modeKV(mode), file)
		r.Phases = []patterns.Phase{patterns.PhaseRead}
		s := session(t, r)
		err := s.Run()
		s.Close()
		if !errors.Is(err, proxy.ErrVerify) || !strings.Contains(err.Error(), "read phase of "+own+":") ||
			!strings.Contains(err.Error(), "1 mismatching elements on 1 of 2 ranks") {
			t.Errorf("%s, rank %d: %v, want ErrVerify naming %s and one element on one rank", mode, rank, err, own)
			continue
		}
		first := fmt.Sprintf("first on rank 1: file %s, step 1: /Timestep_1/px px[69] = ", own)
		if got := strings.Contains(err.Error(), first); got != (rank == 1) {
			t.Errorf("%s, rank %d: %v; want %q on rank 1 only", mode, rank, err, first)
		}
	}
}
