//go:build cgo && linux

package h5

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
)

func TestDebugLeak(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "err.h5")
	f := must(CreateFile(path, Access{}))
	spec := patterns.DatasetSpec{Type: patterns.F32, Shape: []uint64{8}}
	d := must(CreateDataset(f, "/x", spec))
	steps := map[string]func(){
		"dup":   func() { CreateDataset(f, "/x", spec) },
		"nogrp": func() { CreateDataset(f, "/nogroup/x", spec) },
		"unlim": func() {
			CreateDataset(f, "/y", patterns.DatasetSpec{Type: particle, Shape: []uint64{4}, MaxShape: []uint64{patterns.MaxUnlimited}})
		},
		"chunk0":   func() { CreateDataset(f, "/y", patterns.DatasetSpec{Type: patterns.F32, Shape: []uint64{4}, Chunk: []uint64{0}, Deflate: 1, FillNever: true}) },
		"grp":      func() { CreateGroup(f, "/x") },
		"opends":   func() { OpenDataset(f, "/missing") },
		"opengrp":  func() { OpenGroup(f, "/x") },
		"attr":     func() { WriteAttribute(d, patterns.AttributeSpec{Name: "a", Type: patterns.I32, Value: make([]byte, 4)}) },
		"core":     func() { OpenFile(path, Access{Core: true}) },
		"par":      func() { OpenFile(path, Access{FileSpec: patterns.FileSpec{Parallel: true}}) },
		"mkmissing": func() { CreateFile(filepath.Join(dir, "missing-dir", "x.h5"), Access{}) },
		"openmissing": func() { OpenFile(filepath.Join(dir, "missing.h5"), Access{}) },
		"write": func() { Write(d, wholeTransfer(patterns.F32, spec.Shape), false, make([]byte, 32)) },
	}
	for name, fn := range steps {
		a := newIDMark()
		fn()
		open, n := leakedSince(a, newIDMark())
		t.Log(name, n, open)
	}
}
