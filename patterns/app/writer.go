package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// serialRank0 reports whether file f is written by rank 0 alone through HDF5's default
// driver (writer: rank0), the other ranks never opening it.
func serialRank0(f *desc.File) bool { return strings.EqualFold(f.Writer.Text, "rank0") }

// checkWriter rejects the keys a serial rank-0 writer cannot take: a count of ranks per
// file (the file has one writer) and a creation by rank 0 before every rank opens it (no
// other rank ever opens it).
func checkWriter(f *desc.File) error {
	if !serialRank0(f) {
		return nil
	}
	w := f.Writer
	if f.Ranks.Set {
		return &desc.Error{Pos: f.Ranks.Pos, Key: f.Ranks.Path, Value: f.Ranks.Text,
			Reason:  "ranks per file of a file rank 0 writes alone (writer: rank0, " + w.Pos.String() + ")",
			Allowed: "no ranks with writer: rank0 (one writer, serially), or writer: all with ranks"}
	}
	if f.Create.By.Set && !strings.EqualFold(f.Create.By.Text, "all") {
		return &desc.Error{Pos: f.Create.By.Pos, Key: f.Create.By.Path, Value: f.Create.By.Text,
			Reason:  "a serial creation before every rank opens the file, but with writer: rank0 (" + w.Pos.String() + ") no other rank opens it",
			Allowed: "writer: rank0 alone (rank 0 creates and writes the file), or writer: all with create: rank0"}
	}
	return nil
}
