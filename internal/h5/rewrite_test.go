//go:build cgo && linux

package h5

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestWriteAttributeAgain: an attribute written with Exists is opened and written again
// (the file then holds the second value), and Exists on an attribute not created yet is
// an error naming it, as a code rewriting an attribute in place (netCDF-4's
// _Netcdf4Dimid, PETSc's timestepping) needs it to exist.
func TestWriteAttributeAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "again.h5")
	f := must(CreateFile(path, Access{}))
	a := plan.AttributeSpec{Name: "dimid", Type: plan.I32, Value: []byte{1, 0, 0, 0}}
	again := a
	again.Exists, again.Value = true, []byte{2, 0, 0, 0}
	if err := WriteAttribute(f, again); err == nil || !strings.Contains(err.Error(), "dimid") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Exists before the attribute exists: %v, want an error naming it", err)
	}
	ok(t, WriteAttribute(f, a))
	ok(t, WriteAttribute(f, again))
	ok(t, CloseFile(f))
	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer func() { ok(t, CloseFile(f)) }()
	got, err := ReadAttribute(f, "dimid")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Value, again.Value) {
		t.Errorf("dimid reads %v after the rewrite, want %v", got.Value, again.Value)
	}
}
