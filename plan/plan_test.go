package plan

import (
	"bytes"
	"strings"
	"testing"
)

func single(name string, t Type) Type { return Struct(name, t.Size, Field(name, 0, t)) }

func TestTransferElemBytes(t *testing.T) {
	tests := []struct {
		name          string
		mem, file     Type
		want          uint64
		points, bytes uint64 // with a [8] file selecting all
	}{
		{"atomic f32", F32, F32, 4, 8, 32},
		{"atomic f64", F64, F64, 8, 8, 64},
		{"string", Str(12), Str(12), 12, 8, 96},
		{"single member into particle (CONTIG->INTERLEAVED)", single("y", F32), particle, 4, 8, 32},
		{"particle into single member (INTERLEAVED->CONTIG)", particle, single("id_1", I32), 4, 8, 32},
		{"particle to particle", particle, particle, 32, 8, 256},
		{"no common member", single("q", F32), particle, 0, 8, 0},
		{"compound memory, atomic file", particle, F32, 32, 8, 256},
	}
	for _, tc := range tests {
		tr := &Transfer{MemType: tc.mem, FileType: tc.file, MemShape: u(8), FileShape: u(8), Selection: All(u(8))}
		if got := tr.ElemBytes(); got != tc.want {
			t.Errorf("%s: ElemBytes = %d, want %d", tc.name, got, tc.want)
		}
		if got := tr.Bytes(); got != tc.bytes {
			t.Errorf("%s: Bytes = %d, want %d", tc.name, got, tc.bytes)
		}
	}
}

func writeOp(fileShape, memShape []uint64, sel Selection) Op {
	return Op{Kind: Write, Path: "/g/x", Transfer: &Transfer{Variable: "x", Buffer: "x", MemType: F32, MemShape: memShape,
		FileType: F32, FileShape: fileShape, Selection: sel}}
}

func TestPlanValidate(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		want string // substring; "" = valid
	}{
		{"create file", Op{Kind: CreateFile, Path: "f.h5", File: &FileSpec{}}, ""},
		{"create file without spec", Op{Kind: CreateFile, Path: "f.h5"}, "missing file spec"},
		{"open file without spec", Op{Kind: OpenFile, Path: "f.h5"}, "missing file spec"},
		{"close needs nothing", Op{Kind: CloseFile, Path: "f.h5"}, ""},
		{"dataset ok", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8)}}, ""},
		{"dataset missing spec", Op{Kind: CreateDataset, Path: "/d"}, "missing dataset spec"},
		{"dataset bad type", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: Type{Class: Float32, Size: 2}, Shape: u(8)}}, "type f32: size 2, want 4"},
		{"chunk equal to extent", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8, 4), Chunk: u(8, 4), Deflate: 9}}, ""},
		{"chunk larger than fixed extent", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8, 4), Chunk: u(4, 5)}},
			"chunk [4 5] does not fit max shape: dim 1 chunk 5, extent 4"},
		{"chunk larger than extent but max unlimited", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(0), MaxShape: u(MaxUnlimited), Chunk: u(1024)}}, ""},
		{"chunk larger than max shape", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(2), MaxShape: u(10), Chunk: u(11)}},
			"dim 0 chunk 11, extent 10"},
		{"zero chunk", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8), Chunk: u(0)}}, "dim 0 chunk 0"},
		{"chunk rank", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8), Chunk: u(1, 1)}}, "chunk rank 2 != shape rank 1"},
		{"max shape rank", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8), MaxShape: u(8, 8)}}, "max shape rank 2 != shape rank 1"},
		{"deflate 10", Op{Kind: CreateDataset, Path: "/d", Dataset: &DatasetSpec{Type: F32, Shape: u(8), Chunk: u(8), Deflate: 10}}, "deflate level 10 outside 0..9"},
		{"attribute ok", Op{Kind: WriteAttribute, Path: "/", Attribute: &AttributeSpec{Name: "a", Type: I32, Shape: u(2), Value: make([]byte, 8)}}, ""},
		{"scalar attribute", Op{Kind: WriteAttribute, Path: "/", Attribute: &AttributeSpec{Name: "s", Type: Str(5), Value: []byte("hello")}}, ""},
		{"attribute size", Op{Kind: WriteAttribute, Path: "/", Attribute: &AttributeSpec{Name: "a", Type: I32, Shape: u(2), Value: make([]byte, 7)}},
			"attribute a value has 7 bytes, want 8"},
		{"attribute missing", Op{Kind: WriteAttribute, Path: "/"}, "missing attribute spec"},
		{"write ok", writeOp(u(16), u(4), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}), ""},
		{"write strided ok", writeOp(u(32), u(4), Selection{Blocks: []Hyperslab{{Start: u(16), Stride: u(4), Count: u(2), Block: u(2)}}}), ""},
		{"write memory/selection mismatch", writeOp(u(16), u(5), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}),
			"file selection has 4 points, memory space [5] has 5"},
		{"union overlap counted once in mismatch", writeOp(u(16), u(8), Selection{Blocks: []Hyperslab{Block(u(0), u(4)), Block(u(2), u(4))}}),
			"file selection has 6 points, memory space [8] has 8"},
		{"select none with placeholder memory", writeOp(u(16), u(1), None()), ""},
		{"selection out of bounds", writeOp(u(16), u(4), Selection{Blocks: []Hyperslab{Block(u(14), u(4))}}), "ends at 18 beyond extent 16"},
		{"as-is write with its bytes", asIs(writeOp(u(16), u(4), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}), Write, make([]byte, 16)), ""},
		{"as-is write without data", asIs(writeOp(u(16), u(4), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}), Write, nil), "as-is transfer must be a write with Data"},
		{"as-is read", asIs(writeOp(u(16), u(4), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}), Read, make([]byte, 16)), "as-is transfer must be a write"},
		{"read missing transfer", Op{Kind: Read, Path: "/g/x"}, "missing transfer"},
		{"bad memory type", Op{Kind: Read, Path: "/g/x", Transfer: &Transfer{MemType: Struct("e", 4), FileShape: u(1), MemShape: u(1), Selection: All(u(1))}}, "has no members"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Plan{Ops: []Op{{Kind: FlushFile, Path: "f.h5"}, tc.op}}
			err := p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate = %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Validate = nil, want error containing %q", tc.want)
			case tc.want != "":
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Validate = %q, want it to contain %q", err, tc.want)
				}
				prefix := "plan op 1 (" + tc.op.Kind.String() + " " + tc.op.Path + "): "
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Fatalf("Validate = %q, want prefix %q", err, prefix)
				}
			}
		})
	}
}

func TestPlanRawBytesAndPrint(t *testing.T) {
	var p Plan
	p.Add(Op{Kind: CreateGroup, Path: "/g", Collective: true})
	p.Add(Op{Kind: CreateDataset, Path: "/g/x", Collective: true, Dataset: &DatasetSpec{Type: F32, Shape: u(8), Chunk: u(2), Deflate: 9}},
		writeOp(u(8), u(4), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}),
		Op{Kind: Write, Path: "/g/particles", Transfer: &Transfer{MemType: single("x", F32), FileType: particle, MemShape: u(4), FileShape: u(8),
			Selection: Selection{Blocks: []Hyperslab{Block(u(0), u(4))}}, Buffer: "x"}},
		Op{Kind: Read, Path: "/g/x", Transfer: &Transfer{MemType: F32, FileType: F32, MemShape: u(1), FileShape: u(8), Selection: None(), Buffer: "r"}},
		Op{Kind: CloseGroup, Path: "/g"})
	if n := p.RawBytes(); n != 16+16 {
		t.Errorf("RawBytes = %d, want 32", n)
	}
	var b bytes.Buffer
	if err := p.Print(&b); err != nil {
		t.Fatal(err)
	}
	want := "create-group    /g [collective]\n" +
		"create-dataset  /g/x [collective] type=f32 shape=[8] chunk=[2] deflate=9\n" +
		"write           /g/x mem=f32[4] buffer=x start=[4] stride=[1] count=[1] block=[4]\n" +
		"write           /g/particles mem=x{x:f32@0}[4B][4] buffer=x start=[0] stride=[1] count=[1] block=[4]\n" +
		"read            /g/x mem=f32[1] buffer=r select=none\n" +
		"close-group     /g\n"
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestOpKindNamesAndCategories(t *testing.T) {
	tests := []struct {
		k    OpKind
		name string
		cat  Category
	}{
		{CreateFile, "create-file", CatFile},
		{OpenFile, "open-file", CatFile},
		{FlushFile, "flush-file", CatFile},
		{CloseFile, "close-file", CatFile},
		{SelectFile, "select-file", CatFile},
		{CreateGroup, "create-group", CatMetadata},
		{OpenGroup, "open-group", CatMetadata},
		{CloseGroup, "close-group", CatMetadata},
		{CreateDataset, "create-dataset", CatMetadata},
		{OpenDataset, "open-dataset", CatMetadata},
		{CloseDataset, "close-dataset", CatMetadata},
		{WriteAttribute, "write-attribute", CatMetadata},
		{Write, "write", CatRaw},
		{Read, "read", CatRaw},
	}
	for _, tc := range tests {
		if got := tc.k.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", int(tc.k), got, tc.name)
		}
		if got := tc.k.Category(); got != tc.cat {
			t.Errorf("%s.Category() = %s, want %s", tc.k, got, tc.cat)
		}
	}
	if err := (&Plan{Ops: []Op{{Kind: SelectFile}}}).Validate(); err == nil || !strings.Contains(err.Error(), "select-file") || !strings.Contains(err.Error(), "missing file path") {
		t.Errorf("a select-file without a path: %v", err)
	}
	if got := OpKind(99).String(); got != "op(99)" {
		t.Errorf("OpKind(99) = %q", got)
	}
	for c, want := range map[Category]string{CatFile: "file", CatMetadata: "metadata", CatRaw: "raw", 7: "category(7)"} {
		if got := c.String(); got != want {
			t.Errorf("Category %d = %q, want %q", int(c), got, want)
		}
	}
}

// asIs turns op into an as-is transfer of kind k holding data.
func asIs(op Op, k OpKind, data []byte) Op {
	t := *op.Transfer
	t.AsIs, t.Data = true, data
	op.Kind, op.Transfer = k, &t
	return op
}

// TestFileViewOffset: IOR's SeekOffset in the view of task 1 of 3 (blocks of 4 transfers
// of 8 bytes): its transfers in segments 0 and 1 are positions 0..3 and 4..7; bytes of
// other tasks, or not at a transfer's start, have no position.
func TestFileViewOffset(t *testing.T) {
	v := &FileView{Transfer: 8, Block: 32, Tasks: 3, Task: 1}
	for off, want := range map[uint64]uint64{32: 0, 40: 1, 56: 3, 96 + 32: 4, 96 + 56: 7} {
		if pos, ok := v.Offset(off); !ok || pos != want {
			t.Errorf("Offset(%d) = %d, %v; want %d", off, pos, ok, want)
		}
	}
	for _, off := range []uint64{0, 24, 64, 36, 96} {
		if pos, ok := v.Offset(off); ok {
			t.Errorf("Offset(%d) = %d, want none (not task 1's transfer)", off, pos)
		}
	}
}
