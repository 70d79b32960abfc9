package e3sm

import "github.com/h5proxy/h5proxy/plan"

// E3SM-IO writes every variable from one allocation (src/cases/utils.cpp, wr_buf_malloc,
// since its commit 5a15851 of August 2023: "allocate a single contiguous space for all
// variables"): def_var adds each variable's element count (the rank's part of a
// partitioned variable, else the whole variable or one record) to the length of its kind,
// on every rank for partitioned variables and on rank 0 alone for the others (since its
// commit 552f0db: "non-partitioned variables are written by rank 0 only"); the record kinds are multiplied by the flush frequency; one malloc holds
// the kinds in the order fixed text, int, double, float, long long, then record text, int,
// double, float, long long. var_wr_case passes a kind's pointer to each write and then
// advances it by the variable's element count (FIX_VAR_IPUT, REC_VAR_IPUT, IPUT_VARA,
// IPUT_VAR), on the ranks that write the variable only; the record pointers go back to
// their kind's start every flush-frequency records. A kind that follows an odd count of
// ints or of text bytes starts off an 8-byte boundary, and so does every write from it:
// Darshan's POSIX_MEM_NOT_ALIGNED counts the ones that reach write(2) with that pointer
// (rank 0's independent writes).

// Kinds of E3SM-IO's write buffers (wr_buf), by the MPI type a variable is written from:
// MPI_CHAR, MPI_INT, MPI_DOUBLE (float variables too: E3SM-IO writes them from REC_ITYPE
// double buffers), MPI_FLOAT (no variable of F, G or I) and MPI_LONG_LONG.
const (
	kindText = iota
	kindInt
	kindDouble
	kindFloat
	kindLongLong
	nKinds
)

// kindBytes are the kinds' element sizes.
var kindBytes = [nKinds]uint64{1, 4, 8, 4, 8}

// kindOf is the buffer kind E3SM-IO writes a variable of type t from.
func kindOf(t plan.Type) int {
	switch t.Class {
	case plan.Float64, plan.Float32:
		return kindDouble
	case plan.Int32:
		return kindInt
	case plan.Int64, plan.Uint64:
		return kindLongLong
	}
	return kindText
}

// mallocHead is where glibc's malloc places a large allocation (a mapped chunk): 16 bytes
// past a page boundary. E3SM-IO's buffer is that large for every real map.
const mallocHead = 16

// writeOffsets are the byte offsets, in E3SM-IO's one write buffer, of the pointer a rank
// passes for each variable of a history file: fixed-size variables at record 0, record
// variables at record rec (first[j] + (rec mod ffreq) × perRec[kind]). Variables the rank
// does not write have no offset.
type writeOffsets struct {
	first  []uint64
	perRec [nKinds]uint64
	ffreq  int
}

// offsets follows E3SM-IO's pointers through history file i on this rank.
func (pl *rankPlan) offsets(i int) *writeOffsets {
	h := pl.hs[i]
	ffreq := h.Records
	if f := pl.p.C.Flush; f > 0 && f < ffreq {
		ffreq = f
	}
	if ffreq < 1 {
		ffreq = 1
	}
	vlen := make([]uint64, len(h.Vars))
	var klen [2][nKinds]uint64
	for j := range h.Vars {
		v := &h.Vars[j]
		switch {
		case v.Decomp > 0 && pl.io >= 0:
			vlen[j] = pl.p.selection(pl.m, v.Decomp, -1, pl.io, pl.ioSize).n
		case v.Decomp == 0 && pl.env.Rank == 0:
			vlen[j] = plan.Product(v.Shape) // only rank 0 counts them (commit 552f0db)
		}
		klen[b2i(v.Record)][kindOf(v.Type)] += vlen[j]
	}
	var base [2][nKinds]uint64
	var at uint64
	for rec := range 2 {
		for k := range nKinds {
			n := klen[rec][k]
			if rec == 1 {
				n *= uint64(ffreq)
			}
			base[rec][k] = at
			at += n * kindBytes[k]
		}
	}
	w := &writeOffsets{first: make([]uint64, len(h.Vars)), ffreq: ffreq}
	for j := range h.Vars {
		v := &h.Vars[j]
		if (v.Decomp > 0 && pl.io < 0) || (v.Decomp == 0 && pl.env.Rank != 0) {
			continue // the pointer does not move on a rank that does not write the variable
		}
		k := kindOf(v.Type)
		p := &base[b2i(v.Record)][k]
		w.first[j] = *p
		*p += vlen[j] * kindBytes[k]
		if v.Record {
			w.perRec[k] += vlen[j] * kindBytes[k]
		}
	}
	return w
}

// bufferOffset is where the buffer of variable j's write of record rec (-1: a fixed-size
// variable) starts past a page boundary, as far as the 8-byte alignment that Darshan
// checks goes: malloc's 16 bytes, plus the pointer's offset in E3SM-IO's buffer modulo 8.
// The rest of the page offset is not kept: it changes from record to record, and each
// change would map the variable's buffer anew.
func (w *writeOffsets) bufferOffset(v *Var, j, rec int) int {
	off := w.first[j]
	if rec > 0 {
		off += uint64(rec%w.ffreq) * w.perRec[kindOf(v.Type)]
	}
	return mallocHead + int(off%8)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
