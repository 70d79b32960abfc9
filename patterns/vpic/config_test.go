package vpic

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name       string
		keys       []string
		key, value string // the key and value the message must name
		reason     string // substring of the rest of the message
	}{
		{"STRIDED memory", []string{"MEM_PATTERN=STRIDED"}, "MEM_PATTERN", "STRIDED",
			"STRIDED memory is not a pattern of the h5bench write kernel; allowed with FILE_PATTERN=CONTIG: CONTIG, INTERLEAVED"},
		{"STRIDED memory and file", []string{"MEM_PATTERN=strided", "FILE_PATTERN=STRIDED"}, "MEM_PATTERN", "strided",
			"allowed with FILE_PATTERN=STRIDED"},
		{"INTERLEAVED memory 3-D", []string{"MEM_PATTERN=INTERLEAVED", "NUM_DIMS=3"}, "NUM_DIMS", "3",
			"MEM_PATTERN=INTERLEAVED FILE_PATTERN=CONTIG supports NUM_DIMS 1 or 2"},
		{"INTERLEAVED file 3-D", []string{"FILE_PATTERN=INTERLEAVED", "NUM_DIMS=3"}, "NUM_DIMS", "3",
			"MEM_PATTERN=CONTIG FILE_PATTERN=INTERLEAVED supports NUM_DIMS 1 or 2"},
		{"STRIDED file 2-D", []string{"FILE_PATTERN=STRIDED", "NUM_DIMS=2", "STRIDE_SIZE=2", "BLOCK_SIZE=1", "BLOCK_CNT=1"}, "NUM_DIMS", "2",
			"FILE_PATTERN=STRIDED supports NUM_DIMS 1 only"},
		{"STRIDED needs its keys", []string{"FILE_PATTERN=STRIDED", "DIM_1=16"}, "FILE_PATTERN", "STRIDED",
			"STRIDED needs STRIDE_SIZE, BLOCK_SIZE and BLOCK_CNT >= 1 (got 0, 0, 0)"},
		{"STRIDED with INTERLEAVED memory", []string{"MEM_PATTERN=INTERLEAVED", "FILE_PATTERN=STRIDED"}, "FILE_PATTERN", "STRIDED",
			"STRIDED files need MEM_PATTERN=CONTIG"},
		{"strided blocks beyond DIM_1", []string{"FILE_PATTERN=STRIDED", "DIM_1=16", "STRIDE_SIZE=4", "BLOCK_SIZE=2", "BLOCK_CNT=3"}, "BLOCK_CNT", "3",
			"(STRIDE_SIZE + BLOCK_SIZE) * BLOCK_CNT = 18 exceeds DIM_1 = 16"},
		{"stride smaller than block", []string{"FILE_PATTERN=STRIDED", "DIM_1=16", "STRIDE_SIZE=2", "BLOCK_SIZE=3", "BLOCK_CNT=2"}, "STRIDE_SIZE", "2",
			"must be >= BLOCK_SIZE 3"},
		{"LDC block too small", append([]string{"READ_OPTION=LDC"}, "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=1", "BLOCK_SIZE_2=2"), "BLOCK_SIZE", "1",
			"READ_OPTION=LDC needs DIM_1/10 <= BLOCK_SIZE <= DIM_1/5, i.e. 2..4"},
		{"LDC block too large", append([]string{"READ_OPTION=LDC"}, "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=5", "BLOCK_SIZE_2=2"), "BLOCK_SIZE", "5",
			"i.e. 2..4"},
		{"RDC block 2 too large", append([]string{"READ_OPTION=RDC"}, "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=3", "BLOCK_SIZE_2=3"), "BLOCK_SIZE_2", "3",
			"READ_OPTION=RDC needs DIM_2/10 <= BLOCK_SIZE_2 <= DIM_2/5, i.e. 1..2"},
		{"PRL block 2 zero", append([]string{"READ_OPTION=PRL"}, "NUM_DIMS=2", "DIM_1=20", "DIM_2=4", "BLOCK_SIZE=3"), "BLOCK_SIZE_2", "0",
			"i.e. 0..0"},
		{"LDC needs 2-D", []string{"READ_OPTION=LDC", "DIM_1=20", "BLOCK_SIZE=3"}, "READ_OPTION", "LDC", "needs NUM_DIMS=2"},
		{"CS needs 2-D", []string{"READ_OPTION=CS", "NUM_DIMS=3"}, "READ_OPTION", "CS", "needs NUM_DIMS=2"},
		{"CS stride 2 equal", []string{"READ_OPTION=CS", "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=2", "BLOCK_SIZE_2=2", "STRIDE_SIZE=3", "STRIDE_SIZE_2=3"},
			"STRIDE_SIZE_2", "3", "must be < STRIDE_SIZE = 3 for READ_OPTION=CS"},
		{"CS stride 2 larger", []string{"READ_OPTION=CS", "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=2", "BLOCK_SIZE_2=2", "STRIDE_SIZE=3", "STRIDE_SIZE_2=4"},
			"STRIDE_SIZE_2", "4", "must be < STRIDE_SIZE = 3"},
		{"CS needs blocks", []string{"READ_OPTION=CS", "NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "STRIDE_SIZE=3"}, "READ_OPTION", "CS",
			"CS needs BLOCK_SIZE, BLOCK_SIZE_2 and STRIDE_SIZE >= 1"},
		{"STRIDED read of a CONTIG file", []string{"READ_OPTION=STRIDED"}, "READ_OPTION", "STRIDED", "STRIDED reads need FILE_PATTERN=STRIDED"},
		{"delayed close beyond timesteps", []string{"TIMESTEPS=2", "DELAYED_CLOSE_TIMESTEPS=3"}, "DELAYED_CLOSE_TIMESTEPS", "3", "exceeds TIMESTEPS=2"},
		{"chunk beyond DIM_2", []string{"NUM_DIMS=2", "DIM_1=4", "DIM_2=3", "COMPRESS=YES", "CHUNK_DIM_2=4"}, "CHUNK_DIM_2", "4", "exceeds DIM_2 = 3"},
		{"chunk beyond DIM_3", []string{"NUM_DIMS=3", "DIM_3=2", "COMPRESS=YES", "CHUNK_DIM_3=3"}, "CHUNK_DIM_3", "3", "exceeds DIM_3 = 2"},
		{"align without length", []string{"ALIGN=YES"}, "ALIGN_LEN", "0", "must be > 0 when ALIGN=YES"},
		// Parse errors.
		{"bad size", []string{"DIM_1=16 Q"}, "DIM_1", "16 Q", "not a valid size"},
		{"bad bool", []string{"COMPRESS=maybe"}, "COMPRESS", "maybe", "not a boolean"},
		{"NUM_DIMS 4", []string{"NUM_DIMS=4"}, "NUM_DIMS", "4", "out of range; allowed: 1..3"},
		{"TIMESTEPS 0", []string{"TIMESTEPS=0"}, "TIMESTEPS", "0", "out of range; allowed: >= 1"},
		{"DIM_1 0", []string{"DIM_1=0"}, "DIM_1", "0", "out of range"},
		{"negative delay", []string{"DELAYED_CLOSE_TIMESTEPS=-1"}, "DELAYED_CLOSE_TIMESTEPS", "-1", "out of range; allowed: >= 0"},
		{"bad pattern", []string{"FILE_PATTERN=DIAGONAL"}, "FILE_PATTERN", "DIAGONAL", "not an allowed value; allowed: CONTIG, INTERLEAVED, STRIDED"},
		{"bad read option", []string{"READ_OPTION=ALL"}, "READ_OPTION", "ALL", "allowed: FULL, PARTIAL, STRIDED, LDC, RDC, PRL, CS"},
		{"duplicate key", []string{"DIM_1=4", "DIM_1=5"}, "DIM_1", "5", "given more than once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := kit.Build(tc.keys...)
			if err == nil {
				t.Fatalf("accepted: %+v", p.C)
			}
			msg := err.Error()
			if want := fmt.Sprintf("config (vpic): key %q value %q: ", tc.key, tc.value); !strings.HasPrefix(msg, want) {
				t.Errorf("error %q\nwant prefix %q", msg, want)
			}
			if !strings.Contains(msg, tc.reason) {
				t.Errorf("error %q\nwant it to contain %q", msg, tc.reason)
			}
			var ce *options.Error
			if !errors.As(err, &ce) || ce.Key != tc.key {
				t.Errorf("error is not an *options.Error for %s: %#v", tc.key, err)
			}
		})
	}
}

func TestUnknownKeyListsAllowedKeys(t *testing.T) {
	_, _, err := kit.Build("MEM_PATTERN=CONTIG", "NUM_PARTICLE=16")
	if err == nil {
		t.Fatal("unknown key accepted")
	}
	want := `config (vpic): key "NUM_PARTICLE" value "16": unknown key (did you mean NUM_PARTICLES?); allowed: ` + strings.Join(Options.Keys(), ", ")
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	for _, k := range []string{"NUM_PARTICLES", "DELAYED_CLOSE_TIMESTEPS", "TO_READ_NUM_PARTICLES", "FILE_PER_PROC"} {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("allowed keys lack %s", k)
		}
	}
}

func TestConfigValues(t *testing.T) {
	v, err := Options.Parse(plantest.KV("MEM_PATTERN=interleaved", "FILE_PATTERN=Contig", "NUM_DIMS=2", "DIM_1=1 K", "DIM_2=3", "DIM_3=7",
		"TIMESTEPS=3", "DELAYED_CLOSE_TIMESTEPS=1", "COLLECTIVE_DATA=y", "COLLECTIVE_METADATA=yes", "COMPRESS=YES",
		"CHUNK_DIM_1=16", "CHUNK_DIM_2=3", "CHUNK_DIM_3=5", "ALIGN=YES", "ALIGN_THRESHOLD=1 M", "ALIGN_LEN=16 M",
		"NUM_PARTICLES=8 M", "READ_OPTION=partial", "TO_READ_NUM_PARTICLES=100", "IO_OPERATION=write"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromValues(v)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{MemPattern: "INTERLEAVED", FilePattern: "CONTIG", NumDims: 2, Dims: [3]uint64{1024, 3, 1},
		Timesteps: 3, DelayedClose: 1, CollectiveData: true, CollectiveMetadata: true, Compress: true, CompressFilter: "GZIP",
		ChunkDims: [3]uint64{16, 3, 1}, ReadOption: "PARTIAL", ToRead: 100, Align: true, AlignThreshold: 1 << 20, AlignLen: 16 << 20}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Config\n got  %+v\n want %+v", c, want)
	}
	if c.Particles() != 1024*3 {
		t.Errorf("Particles = %d, want DIM_1*DIM_2 = 3072 (DIM_3 ignored, NUM_PARTICLES overwritten)", c.Particles())
	}
	if want := []string{"key NUM_PARTICLES=8 M is accepted for h5bench compatibility and ignored"}; !reflect.DeepEqual(v.Warnings, want) {
		t.Errorf("Warnings = %q", v.Warnings)
	}
	if v.String("IO_OPERATION") != "WRITE" {
		t.Errorf("IO_OPERATION = %q", v.String("IO_OPERATION"))
	}
}

func TestConfigDefaults(t *testing.T) {
	p := kit.Must(t)
	want := Config{MemPattern: "CONTIG", FilePattern: "CONTIG", NumDims: 1, Dims: [3]uint64{1, 1, 1}, Timesteps: 1,
		ChunkDims: [3]uint64{1, 1, 1}, ReadOption: "FULL", CompressFilter: "GZIP"}
	if !reflect.DeepEqual(p.C, want) {
		t.Errorf("defaults\n got  %+v\n want %+v", p.C, want)
	}
	if p.C.Particles() != 1 || p.Steps() != 1 {
		t.Errorf("Particles %d Steps %d", p.C.Particles(), p.Steps())
	}
}

// The table walk: every key has help, a kind, a parsable default and allowed values where
// it is an enum; the help output lists every key; IO_OPERATION has no default.
func TestOptionsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Options.Specs {
		if seen[s.Key] {
			t.Errorf("key %s declared twice", s.Key)
		}
		seen[s.Key] = true
		if s.Help == "" || s.Kind.String() == "" {
			t.Errorf("key %s lacks help or kind", s.Key)
		}
		if (s.Kind == options.Enum) != (len(s.Allowed) > 0) {
			t.Errorf("key %s: kind %s with allowed %v", s.Key, s.Kind, s.Allowed)
		}
		if s.Key != strings.ToUpper(s.Key) {
			t.Errorf("key %s is not h5bench's upper case", s.Key)
		}
	}
	// Every layouts.md 1.8 key the write/read kernels parse is declared (session keys
	// excepted: compute time, CSV, metadata file, memory limit, subfiling, MODE).
	for _, k := range []string{"IO_OPERATION", "MEM_PATTERN", "FILE_PATTERN", "NUM_DIMS", "DIM_1", "DIM_2", "DIM_3", "NUM_PARTICLES",
		"TIMESTEPS", "DELAYED_CLOSE_TIMESTEPS", "COLLECTIVE_DATA", "COLLECTIVE_METADATA", "COMPRESS", "COMPRESS_FILTER", "CHUNK_DIM_1", "CHUNK_DIM_2",
		"CHUNK_DIM_3", "STRIDE_SIZE", "STRIDE_SIZE_2", "STRIDE_SIZE_3", "BLOCK_SIZE", "BLOCK_SIZE_2", "BLOCK_SIZE_3", "BLOCK_CNT",
		"READ_OPTION", "TO_READ_NUM_PARTICLES", "FILE_PER_PROC", "ALIGN", "ALIGN_THRESHOLD", "ALIGN_LEN", "STDEV_DIM_1"} {
		if !seen[k] {
			t.Errorf("layouts.md key %s is not declared", k)
		}
	}
	v, err := Options.Parse(nil) // parses every default; panics on a bad one
	if err != nil {
		t.Fatal(err)
	}
	if v.IsSet("IO_OPERATION") || v.String("IO_OPERATION") != "" {
		t.Error("IO_OPERATION has a default")
	}
	var b bytes.Buffer
	if err := Options.WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range Options.Specs {
		if !strings.Contains(b.String(), "\n"+s.Key+" ") {
			t.Errorf("help lacks %s", s.Key)
		}
	}
}

func TestFactory(t *testing.T) {
	f := Factory
	if f.Options != Options || f.Name != "vpic" || f.Summary == "" {
		t.Errorf("factory %+v", f)
	}
	v, err := f.Options.Parse(plantest.KV("DIM_1=4"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.New(v)
	if err != nil || p.Name() != "vpic" {
		t.Errorf("New: %v, %v", p, err)
	}
	bad, err := f.Options.Parse(plantest.KV("MEM_PATTERN=STRIDED"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := f.New(bad); err == nil || p != nil {
		t.Errorf("New(STRIDED memory) = %v, %v", p, err)
	}
}
