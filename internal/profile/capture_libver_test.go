package profile

import "testing"

// TestLibverNames: traced H5F_libver_t bounds become a description's names, latest where a
// bound is the tracing library's newest; v112 below 1.14's latest cannot be said.
func TestLibverNames(t *testing.T) {
	for _, c := range []struct {
		b       []int
		version string
		want    [2]string
		ok      bool
	}{
		{[]int{1, 2}, "1.10.8", [2]string{"v18", "latest"}, true}, // netCDF-4 on 1.10
		{[]int{1, 4}, "1.14.5", [2]string{"v18", "latest"}, true}, // netCDF-4 on 1.14
		{[]int{1, 2}, "1.14.5", [2]string{"v18", "v110"}, true},
		{[]int{0, 1}, "1.10.8", [2]string{"earliest", "v18"}, true},
		{[]int{3, 4}, "1.14.5", [2]string{}, false},
		{[]int{1}, "1.10.8", [2]string{}, false},
	} {
		got, ok := libverNames(c.b, c.version)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("libverNames(%v, %s) = %v, %v; want %v, %v", c.b, c.version, got, ok, c.want, c.ok)
		}
	}
}
