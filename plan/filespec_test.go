package plan

import "testing"

// TestFileSpecRanks checks how many ranks share a file: all for a shared file, the
// group's (the last group smaller) for a group file, one for a per-rank file.
func TestFileSpecRanks(t *testing.T) {
	cases := []struct {
		spec             FileSpec
		rank, size, want int
	}{
		{FileSpec{Parallel: true}, 3, 4, 4},
		{FileSpec{}, 3, 4, 1},
		{FileSpec{Parallel: true, GroupRanks: 2}, 1, 4, 2},
		{FileSpec{Parallel: true, GroupRanks: 2}, 4, 5, 1},
		{FileSpec{Parallel: true, GroupRanks: 3}, 4, 5, 2},
		{FileSpec{Parallel: true, GroupRanks: 8}, 2, 4, 4},
	}
	for _, c := range cases {
		if got := c.spec.Ranks(c.rank, c.size); got != c.want {
			t.Errorf("%+v rank %d of %d: %d ranks, want %d", c.spec, c.rank, c.size, got, c.want)
		}
	}
}
