package patterns

import (
	"reflect"
	"testing"

	"github.com/h5proxy/h5proxy/options"
)

func testFactory(name string) Factory {
	return Factory{Name: name, Summary: "test", Options: &options.Table{Name: name},
		New: func(*options.Values) (Pattern, error) { return nil, nil }}
}

// The registry is package state; these names are unique to this test.
func TestRegistry(t *testing.T) {
	Register(testFactory("ZZTestB"))
	Register(testFactory("zztesta"))

	f, err := Lookup("ZZTESTB")
	if err != nil {
		t.Fatalf("Lookup is case-insensitive: %v", err)
	}
	if f.Name != "ZZTestB" || f.Summary != "test" {
		t.Errorf("Lookup returned %+v", f)
	}

	names := Names()
	var mine []string
	for _, n := range names {
		if n == "zztesta" || n == "zztestb" {
			mine = append(mine, n)
		}
	}
	if !reflect.DeepEqual(mine, []string{"zztesta", "zztestb"}) {
		t.Errorf("Names() = %v: want lowercase registered names in sorted order", names)
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("Names() not sorted: %v", names)
		}
	}

	_, err = Lookup("nosuch")
	if err == nil {
		t.Fatal("Lookup(nosuch) succeeded")
	}
	want := `unknown pattern "nosuch"; available: `
	for i, n := range names {
		if i > 0 {
			want += ", "
		}
		want += n
	}
	if err.Error() != want {
		t.Errorf("Lookup error = %q, want %q", err, want)
	}

	defer func() {
		if recover() == nil {
			t.Error("registering zzTestA twice did not panic")
		}
	}()
	Register(testFactory("zzTestA"))
}

func TestPhaseString(t *testing.T) {
	for p, want := range map[Phase]string{PhaseWrite: "write", PhaseRead: "read", 9: "phase(9)"} {
		if got := p.String(); got != want {
			t.Errorf("Phase %d = %q, want %q", int(p), got, want)
		}
	}
}
