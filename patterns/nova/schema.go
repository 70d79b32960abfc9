package nova

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/plan"
)

// InputChunkRows is the input files' chunk: 128 rows (the paper's 128 elements per chunk
// of a column); InputDeflate their gzip level.
const (
	InputChunkRows = 128
	InputDeflate   = 6
)

// Column is one dataset of a table: its name, type and second dimension (1 for the
// columns the paper counts as 1-D, stored as rows x 1 like every NOvA dataset).
type Column struct {
	Name  string
	Type  plan.Type
	Width uint64
}

// Table is one group: its name, columns and whether it is empty in every file.
type Table struct {
	Name    string
	Columns []Column
	Empty   bool
}

// Schema is what every input file holds, and the rows of each table in each file.
type Schema struct {
	Tables []Table
	// Rows[f][g] is table g's row count in file f (0 for the empty tables).
	Rows [][]uint64
	seed uint64
	run  uint64
}

// indexColumns are the index datasets every NOvA table starts with.
var indexColumns = []Column{{"run", plan.U32, 1}, {"subrun", plan.U32, 1}, {"evt", plan.U32, 1}, {"cycle", plan.I32, 1}}

// dataTypes is the mix of the data columns' types, in turn.
var dataTypes = []plan.Type{plan.F32, plan.F32, plan.I32, plan.F64, plan.U8, plan.F32, plan.I64, plan.U32}

// NewSchema synthesizes the schema and the row counts from the configuration and seed: a
// pure function of both, so every rank computes the same totals without communicating.
func NewSchema(c Config, seed uint64) *Schema {
	s := &Schema{seed: seed, run: uint64(c.Run)}
	empty := int(math.Round(c.EmptyFraction * float64(c.Groups)))
	empty = min(empty, c.Groups-1)
	perm := rand.New(rand.NewPCG(seed, 0x6e6f7661)).Perm(c.Groups - 1) // groups 1.. in a seeded order
	isEmpty := make([]bool, c.Groups)
	for _, g := range perm[:empty] {
		isEmpty[g+1] = true
	}
	for g := 0; g < c.Groups; g++ {
		t := Table{Name: "spill", Empty: isEmpty[g]}
		if g > 0 {
			t.Name = fmt.Sprintf("rec.t%04d", g)
		}
		t.Columns = append(t.Columns, indexColumns...)
		for d := len(indexColumns); d < c.PerGroup; d++ {
			t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("v%03d", d), Type: dataTypes[(g+d)%len(dataTypes)], Width: 1})
		}
		s.Tables = append(s.Tables, t)
	}
	// The 2-D columns go to the first non-empty tables after /spill, then to empty ones.
	var order []int
	for pass := 0; pass < 2; pass++ {
		for g := 1; g < c.Groups; g++ {
			if isEmpty[g] == (pass == 1) {
				order = append(order, g)
			}
		}
	}
	for _, g := range order[:c.Datasets2D] {
		cols := s.Tables[g].Columns
		cols[len(cols)-1].Width = uint64(c.Width2D)
	}
	s.Rows = make([][]uint64, c.Files)
	for f := range s.Rows {
		s.Rows[f] = make([]uint64, c.Groups)
		r := rand.New(rand.NewPCG(seed, uint64(f)+1))
		for g := range s.Rows[f] {
			// Log-normal with sigma 1 and the configured mean: most tables have a few
			// rows, a few have many (drawn for every table so the draws do not depend
			// on which tables are empty).
			x := float64(c.RowsMean) * math.Exp(r.NormFloat64()-0.5)
			if !isEmpty[g] {
				s.Rows[f][g] = max(1, uint64(math.Round(x)))
			}
		}
	}
	return s
}

// Datasets is the number of datasets of a file.
func (s *Schema) Datasets() int {
	n := 0
	for _, t := range s.Tables {
		n += len(t.Columns)
	}
	return n
}

// EmptyDatasets is the number of datasets empty in every file.
func (s *Schema) EmptyDatasets() int {
	n := 0
	for _, t := range s.Tables {
		if t.Empty {
			n += len(t.Columns)
		}
	}
	return n
}

// Total is table g's rows summed over files [lo, hi).
func (s *Schema) Total(g, lo, hi int) uint64 {
	var n uint64
	for f := lo; f < hi; f++ {
		n += s.Rows[f][g]
	}
	return n
}

// RawBytes is what file f's datasets hold uncompressed.
func (s *Schema) RawBytes(f int) uint64 {
	var n uint64
	for g, t := range s.Tables {
		for _, c := range t.Columns {
			n += s.Rows[f][g] * c.Width * uint64(c.Type.Size)
		}
	}
	return n
}

// Piece returns the bytes of column d of table g in file f (rows x width elements, native
// byte order): run and subrun are the file's, constant; evt grows by one every run rows;
// cycle is 0; a data column's value is a seeded 16-bit draw that repeats for run rows.
func (s *Schema) Piece(f, g, d int) []byte {
	c := s.Tables[g].Columns[d]
	rows := s.Rows[f][g]
	size := uint64(c.Type.Size)
	b := make([]byte, rows*c.Width*size)
	name := s.Tables[g].Name + "/" + c.Name
	for i := uint64(0); i < rows; i++ {
		for j := uint64(0); j < c.Width; j++ {
			var v uint64
			switch c.Name {
			case "run":
				v = 10000 + uint64(f)/64
			case "subrun":
				v = uint64(f) % 64
			case "evt":
				v = 1 + i/s.run
			case "cycle":
				v = 0
			default:
				v = emulate.Bits(s.seed, name, f, (i/s.run)*c.Width+j) >> 48
			}
			put(c.Type, b[(i*c.Width+j)*size:], v)
		}
	}
	return b
}

// put stores the small non-negative integer v as type t.
func put(t plan.Type, b []byte, v uint64) {
	ne := binary.NativeEndian
	switch t.Class {
	case plan.Float32:
		ne.PutUint32(b, math.Float32bits(float32(v)))
	case plan.Float64:
		ne.PutUint64(b, math.Float64bits(float64(v)))
	case plan.Int32, plan.Uint32:
		ne.PutUint32(b, uint32(v))
	case plan.Int64, plan.Uint64:
		ne.PutUint64(b, v)
	case plan.Uint8, plan.Int8:
		b[0] = byte(v & 0x7f)
	}
}
