package subfilingvfd

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestCheckDataset checks the refusals in shared files: at more than one rank any filter
// (deflate alone, a pipeline) is refused naming the dataset, the filters and the rank
// count, and so is a chunked dataset with a fill value written at allocation; one rank,
// no filter, a contiguous dataset or fill_time never pass.
func TestCheckDataset(t *testing.T) {
	chunked := plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}, Chunk: []uint64{4}}
	deflate, pipeline := chunked, chunked
	deflate.Deflate = 6
	pipeline.Filters = []plan.Filter{{ID: plan.FilterShuffle}, {ID: plan.FilterFletcher32}, {ID: plan.FilterDeflate, CDValues: []uint32{3}}}
	filled, filledNever, contiguous := chunked, chunked, plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}}
	filled.FillValue = make([]byte, 8)
	filledNever.FillValue, filledNever.FillNever = filled.FillValue, true
	contiguous.FillValue = filled.FillValue
	cases := []struct {
		spec  plan.DatasetSpec
		ranks int
		want  string // "": accepted
	}{
		{filled, 1, ""},
		{filledNever, 2, ""},
		{contiguous, 2, ""},
		{filled, 2, "dataset /g/d is chunked with a fill value, at 2 ranks"},
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
		case c.want != "" && (!errors.Is(err, ErrFiltered) && !errors.Is(err, ErrChunkFill) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v at %d ranks: got %v, want an error containing %q", c.spec, c.ranks, err, c.want)
		}
	}
}
