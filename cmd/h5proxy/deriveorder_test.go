package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// orderedInput writes path as a writer that tracks creation order (netCDF-4 does) and
// creates out of name order: the root's links zgrp, zeta, alpha, mid, yank, beta and a
// soft link abc; zgrp's links b, a; the root's attributes z_title, a_note; zeta's units,
// long_name. alpha, mid and beta are equal (type, shape, no attributes): only the
// neighbours alpha and mid may fold into one list without moving beta before yank.
func orderedInput(t *testing.T, path string) {
	t.Helper()
	both := plan.OrderTracked | plan.OrderIndexed
	f, err := h5.CreateFile(path, h5.Access{FileSpec: plan.FileSpec{LinkOrder: both, AttrOrder: both}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h5.CloseFile(f); err != nil {
			t.Fatal(err)
		}
	}()
	g, err := h5.CreateGroupWith(f, "/zgrp", plan.GroupSpec{LinkOrder: plan.OrderTracked})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b", "a"} {
		d, err := h5.CreateDataset(g, n, plan.DatasetSpec{Type: plan.I32, Shape: []uint64{4}})
		if err != nil {
			t.Fatal(err)
		}
		h5.CloseDataset(d)
	}
	h5.CloseGroup(g)
	for _, c := range []struct {
		name  string
		t     plan.Type
		attrs []string
	}{{"zeta", plan.F64, []string{"units", "long_name"}}, {"alpha", plan.F64, nil}, {"mid", plan.F64, nil}, {"yank", plan.I32, nil}, {"beta", plan.F64, nil}} {
		d, err := h5.CreateDataset(f, c.name, plan.DatasetSpec{Type: c.t, Shape: []uint64{8}, AttrOrder: plan.OrderTracked})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.attrs {
			if err := h5.WriteAttribute(d, plan.AttributeSpec{Name: a, Type: plan.Str(4), Value: []byte("m/s\x00")}); err != nil {
				t.Fatal(err)
			}
		}
		h5.CloseDataset(d)
	}
	if err := h5.CreateLink(f, "abc", plan.LinkSpec{Kind: plan.SoftLink, Target: "/zeta"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"z_title", "a_note"} {
		if err := h5.WriteAttribute(f, plan.AttributeSpec{Name: a, Type: plan.Str(2), Value: []byte("x\x00")}); err != nil {
			t.Fatal(err)
		}
	}
}

// creationOrders reads the creation order of path's links (root, /zgrp) and attributes
// (root, /zeta), one line each.
func creationOrders(t *testing.T, path string) []string {
	t.Helper()
	f, err := h5.OpenFile(path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	var out []string
	for _, c := range []struct {
		path  string
		links bool
	}{{"/", true}, {"/zgrp", true}, {"/", false}, {"/zeta", false}} {
		o, err := h5.OpenObject(f, c.path, false)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		if c.links {
			names, err = h5.LinkNamesByCreation(o)
		} else {
			names, err = h5.AttributeNamesByCreation(o)
		}
		h5.CloseObject(o)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		kind := map[bool]string{true: "links", false: "attributes"}[c.links]
		out = append(out, c.path+" "+kind+": "+strings.Join(names, " "))
	}
	return out
}

// TestDeriveCreationOrder: derive of a file whose groups track creation order lists
// groups, datasets, links and attributes in the order they were created (not by name),
// folds only neighbouring equal datasets, and the run of the description creates them in
// that order again: the replay's links and attributes, read back by creation order,
// are the input's.
func TestDeriveCreationOrder(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ordered.h5")
	orderedInput(t, in)
	want := creationOrders(t, in)
	if want[0] != "/ links: zgrp zeta alpha mid yank beta abc" || want[3] != "/zeta attributes: units long_name" {
		t.Fatalf("the input's creation orders are not what it created: %q", want)
	}
	h5proxy(t, dir, "derive", "ordered.h5", "-np", "2", "-o", "derived.yaml").expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(dir, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	at := func(key string) int { return strings.Index(s, key) }
	for _, seq := range [][]string{{"z_title:", "a_note:"}, {" zeta:", "${vars_alpha}:", " yank:", " beta:"}, {"units:", "long_name:"}} {
		pos := []int{}
		for _, k := range seq {
			pos = append(pos, at(k))
		}
		if slices.Contains(pos, -1) || !slices.IsSorted(pos) {
			t.Errorf("derived description does not list %v in creation order (at %v):\n%s", seq, pos, s)
		}
	}
	for _, w := range []string{"vars_alpha: [alpha, mid]", "vars_b: [b, a]", "abc: {soft: /zeta}"} {
		if !strings.Contains(s, w) {
			t.Errorf("derived description lacks %q (neighbours folded alone, in creation order; the soft link's path):\n%s", w, s)
		}
	}
	if strings.Contains(s, "mixes kinds") {
		t.Errorf("a file created groups, datasets, links in the run's order, noted as mixed:\n%s", s)
	}
	// a dataset created before a group in the same group: a run creates the group first,
	// which the description says
	mixed := filepath.Join(dir, "mixed.h5")
	f, err := h5.CreateFile(mixed, h5.Access{FileSpec: plan.FileSpec{LinkOrder: plan.OrderTracked}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := h5.CreateDataset(f, "d", plan.DatasetSpec{Type: plan.I32, Shape: []uint64{4}})
	if err != nil {
		t.Fatal(err)
	}
	h5.CloseDataset(d)
	g, err := h5.CreateGroup(f, "g")
	if err != nil {
		t.Fatal(err)
	}
	h5.CloseGroup(g)
	if err := h5.CloseFile(f); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "derive", "mixed.h5", "-o", "mixed.yaml").expect(t, 0, nil, nil)
	if m, err := os.ReadFile(filepath.Join(dir, "mixed.yaml")); err != nil || !strings.Contains(string(m), "# not expressed: the link creation order mixes kinds (d was created before g)") {
		t.Errorf("derive of a dataset created before a group does not say the run's order differs (%v):\n%s", err, m)
	}
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, run, "run", "-np", "2", "-quiet", "../derived.yaml").expect(t, 0, nil, nil)
	if got := creationOrders(t, filepath.Join(run, "ordered.h5")); !slices.Equal(got, want) {
		t.Errorf("the replay's creation orders differ from the input's:\n got %q\nwant %q", got, want)
	}
}
