package iotest

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is the HDF5 I/O test (h5bench's metadata benchmark, h5bench_hdf5_iotest).
type Pattern struct {
	patterns.Base[Config]
}

// Factory builds the iotest pattern; package patterns/all registers it. Its phases are
// write and read: the program writes, then reads what it wrote.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "iotest", Options: Options, Config: FromValues, Phases: patterns.WriteRead,
	Summary: "h5bench metadata benchmark, the HDF5 I/O test (hdf5_iotest): steps x arrays of 2-D double blocks in rank 4, 3 or 2 datasets, written then read"})

// Steps returns steps.
func (p *Pattern) Steps() int { return p.C.Steps }

// Begin creates (write) or opens read-only (read) the file through MPI-IO with no other
// access property: H5Pset_fapl_mpio on the world communicator and no hints.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if err := p.C.CheckRanks(env.Size); err != nil {
		return pl, err
	}
	switch ph {
	case patterns.PhaseWrite:
		pl.Add(plan.Op{Kind: plan.CreateFile, Path: env.Path, Collective: true, File: &plan.FileSpec{Parallel: true}})
	case patterns.PhaseRead:
		pl.Add(plan.Op{Kind: plan.OpenFile, Path: env.Path, Collective: true, File: &plan.FileSpec{Parallel: true, ReadOnly: true}})
	default:
		return pl, fmt.Errorf("iotest: no %s phase", ph)
	}
	return pl, nil
}

// Dataset is the path of the dataset that holds (step, array), and, for rank 2, the
// group it is in ("" otherwise).
func (p *Pattern) Dataset(step, array int) (path, group string) {
	switch p.C.Rank {
	case 4:
		return "/dataset", ""
	case 3:
		if p.C.StepFirst {
			return fmt.Sprintf("/step=%d", step), ""
		}
		return fmt.Sprintf("/array=%d", array), ""
	}
	if p.C.StepFirst {
		return fmt.Sprintf("/step=%d/array=%d", step, array), fmt.Sprintf("/step=%d", step)
	}
	return fmt.Sprintf("/array=%d/step=%d", array, step), fmt.Sprintf("/array=%d", array)
}

// Spec is the creation of the datasets (every dataset of a run has the same): double,
// with the program's extents, maximum extents and chunks.
func (p *Pattern) Spec() *plan.DatasetSpec {
	c := p.C
	R, C := c.Total()
	r, cl := c.Block()
	s, a := uint64(c.Steps), uint64(c.Arrays)
	d := &plan.DatasetSpec{Type: plan.F64}
	switch c.Rank {
	case 2:
		d.Shape = []uint64{R, C}
		if c.Chunked {
			d.Chunk = []uint64{r, cl}
		}
	case 3:
		outer := s
		if c.StepFirst {
			outer = a
		}
		d.Shape = []uint64{outer, R, C}
		if c.Chunked {
			d.Chunk = []uint64{1, r, cl}
			if !c.StepFirst {
				d.MaxShape = []uint64{plan.MaxUnlimited, R, C}
			}
		}
	case 4:
		d.Shape = []uint64{a, s, R, C}
		if c.StepFirst {
			d.Shape = []uint64{s, a, R, C}
		}
		if c.Chunked {
			d.MaxShape = append([]uint64(nil), d.Shape...)
			if c.StepFirst {
				d.MaxShape[0], d.Chunk = plan.MaxUnlimited, []uint64{1, a, r, cl}
			} else {
				d.MaxShape[1], d.Chunk = plan.MaxUnlimited, []uint64{a, 1, r, cl}
			}
		}
	}
	return d
}

// Selection is what rank rank writes and reads of (step, array): its block of the
// array, at the array's (and step's) index in the outer dimensions.
func (p *Pattern) Selection(rank, step, array int) plan.Selection {
	c := p.C
	r, cl := c.Block()
	row, col := uint64(rank)/c.ProcCols, uint64(rank)%c.ProcCols
	start, ext := []uint64{row * r, col * cl}, []uint64{r, cl}
	outer := []uint64{uint64(step), uint64(array)}
	if !c.StepFirst {
		outer[0], outer[1] = outer[1], outer[0]
	}
	switch c.Rank {
	case 3:
		start, ext = append([]uint64{outer[1]}, start...), append([]uint64{1}, ext...)
	case 4:
		start, ext = append(outer, start...), append([]uint64{1, 1}, ext...)
	}
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}
}

// Step plans one step: for each array, the dataset's create or open as the program
// issues it, one H5Dwrite (H5Dread) of the rank's block from (into) its one buffer, and
// the dataset's close where the program closes it.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if step < 0 || step >= p.C.Steps {
		return pl, fmt.Errorf("iotest: step %d outside 0..%d", step, p.C.Steps-1)
	}
	if ph != patterns.PhaseWrite && ph != patterns.PhaseRead {
		return pl, fmt.Errorf("iotest: no %s phase", ph)
	}
	c, write := p.C, ph == patterns.PhaseWrite
	spec := p.Spec()
	r, cl := c.Block()
	kind, buffer := plan.Read, "rbuf"
	if write {
		kind, buffer = plan.Write, "wbuf"
	}
	// create adds the creation of a dataset (write) or its open (read, and the write's
	// later steps of a dataset per array).
	create := func(path string, first bool) {
		if write && first {
			pl.Add(plan.Op{Kind: plan.CreateDataset, Path: path, Collective: true, Step: step, Dataset: spec})
			return
		}
		pl.Add(plan.Op{Kind: plan.OpenDataset, Path: path, Collective: true, Step: step})
	}
	closeDS := func(path string) {
		pl.Add(plan.Op{Kind: plan.CloseDataset, Path: path, Collective: true, Step: step})
	}
	transfer := func(path string, array int) {
		t := &plan.Transfer{Variable: strings.TrimPrefix(path, "/"), Buffer: buffer, MemType: plan.F64, MemShape: []uint64{r, cl},
			FileType: plan.F64, FileShape: spec.Shape, Selection: p.Selection(env.Rank, step, array)}
		pl.Add(plan.Op{Kind: kind, Path: path, Collective: c.Collective, Step: step, Transfer: t})
	}
	switch {
	case c.Rank == 4:
		if step == 0 {
			create("/dataset", true) // closed by End
		}
		for a := 0; a < c.Arrays; a++ {
			transfer("/dataset", a)
		}
	case c.Rank == 3 && c.StepFirst:
		path, _ := p.Dataset(step, 0)
		create(path, true)
		for a := 0; a < c.Arrays; a++ {
			transfer(path, a)
		}
		closeDS(path)
	default:
		for a := 0; a < c.Arrays; a++ {
			path, group := p.Dataset(step, a)
			first := c.Rank == 3 && step == 0 || c.Rank == 2
			// The program creates a group with its first dataset (an intermediate group of
			// H5Dcreate's link creation list); here it is created and closed just before.
			if write && group != "" && (c.StepFirst && a == 0 || !c.StepFirst && step == 0) {
				pl.Add(plan.Op{Kind: plan.CreateGroup, Path: group, Collective: true, Step: step},
					plan.Op{Kind: plan.CloseGroup, Path: group, Collective: true, Step: step})
			}
			create(path, first)
			transfer(path, a)
			closeDS(path)
		}
	}
	return pl, pl.Validate()
}

// End closes the rank 4 dataset, then the file.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if p.C.Rank == 4 && steps > 0 {
		pl.Add(plan.Op{Kind: plan.CloseDataset, Path: "/dataset", Collective: true})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: env.Path, Collective: true})
	return pl, nil
}
