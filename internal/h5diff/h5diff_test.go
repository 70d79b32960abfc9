package h5diff

import "testing"

func TestOnlyAttributesDiffer(t *testing.T) {
	date := `
attribute: <date of </data/0>> and <date of </data/0>>
size:           H5S_SCALAR           H5S_SCALAR
position        date of </data/0>    date of </data/0>    difference
------------------------------------------------------------
                1               2               1
1 differences found
dataset: </data/0/x> and </data/0/x>
0 differences found
`
	cases := []struct {
		name, out string
		names     []string
		want      bool
	}{
		{"the clock attribute alone", date, []string{"date of </data/0>"}, true},
		{"no name to excuse", date, nil, false},
		{"another attribute", date, []string{"date of </data/1>"}, false},
		{"a dataset differs", date + "dataset: </data/0/y> and </data/0/y>\n3 differences found\n", []string{"date of </data/0>"}, false},
		{"an object in one file only", date + "Some objects are not comparable\n", []string{"date of </data/0>"}, false},
		{"nothing differs", "dataset: </x> and </x>\n0 differences found\n", []string{"date of </data/0>"}, false},
	}
	for _, c := range cases {
		if got := OnlyAttributesDiffer(c.out, c.names); got != c.want {
			t.Errorf("%s: OnlyAttributesDiffer = %v, want %v", c.name, got, c.want)
		}
	}
}
