package subfilingvfd

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestCheckDataset checks the refusal of filtered datasets in shared files: at more than
// one rank any filter (deflate alone, a pipeline) is refused naming the dataset, the
// filters and the rank count; one rank, or no filter, passes.
func TestCheckDataset(t *testing.T) {
	chunked := plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}, Chunk: []uint64{4}}
	deflate, pipeline := chunked, chunked
	deflate.Deflate = 6
	pipeline.Filters = []plan.Filter{{ID: plan.FilterShuffle}, {ID: plan.FilterFletcher32}, {ID: plan.FilterDeflate, CDValues: []uint32{3}}}
	cases := []struct {
		spec  plan.DatasetSpec
		ranks int
		want  string // "": accepted
	}{
		{chunked, 4, ""},
		{deflate, 1, ""},
		{pipeline, 1, ""},
		{deflate, 2, "dataset /g/d has the filter deflate (level 6), at 2 ranks"},
		{pipeline, 4, "dataset /g/d has the filters shuffle, fletcher32, deflate (level 3), at 4 ranks"},
	}
	for _, c := range cases {
		err := CheckDataset("/g/d", &c.spec, c.ranks)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v at %d ranks: %v", c.spec, c.ranks, err)
		case c.want != "" && (!errors.Is(err, ErrFiltered) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v at %d ranks: got %v, want an error containing %q", c.spec, c.ranks, err, c.want)
		}
	}
}
