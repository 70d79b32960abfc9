package profile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAttrReads: rank 0's H5Aread events of a file become its read action's attributes key
// in their order, each once (NAME on the root, PATH/NAME elsewhere), as AMReX's restart
// reads version_name, Chombo_global's SpaceDim and a level's ngrids; attributes the
// description does not write, variable-length ones, other ranks' and other files' reads,
// and H5Aopen events are left out.
func TestAttrReads(t *testing.T) {
	ev := func(rank int, call, file, obj, name string, vlen bool) Event {
		a := fmt.Sprintf(`{"object":%q,"name":%q,"type_class":0,"type_size":4,"type_sign":1,"type_vlen":%v,"dims":[1]}`, obj, name, vlen)
		return Event{Rank: rank, Module: "H5F", Call: call, File: file, Attribute: json.RawMessage(a)}
	}
	const f = "/o/particle0.h5"
	p := &Profile{Events: []Event{
		ev(0, "H5Aopen", f, "/", "version_name", false),
		ev(0, "H5Aread", f, "/", "version_name", false),
		ev(0, "H5Aread", f, "/Chombo_global", "SpaceDim", false),
		ev(1, "H5Aread", f, "/", "rank1_only", false),
		ev(0, "H5Aread", "/o/other.h5", "/", "elsewhere", false),
		ev(0, "H5Aread", f, "/", "unwritten", false),
		ev(0, "H5Aread", f, "/", "title", true),
		ev(0, "H5Aread", f, "/level_0", "ngrids", false),
		ev(0, "H5Aread", f, "/", "version_name", false), // read again: named once
	}}
	written := map[string][]*capAttr{
		"/":              {{name: "version_name"}, {name: "title"}, {name: "rank1_only"}, {name: "elsewhere"}},
		"/Chombo_global": {{name: "SpaceDim"}},
		"/level_0":       {{name: "ngrids"}},
	}
	var got []string
	for _, v := range attrReads(p, f, written) {
		got = append(got, v.Text)
	}
	if want := "version_name Chombo_global/SpaceDim level_0/ngrids"; strings.Join(got, " ") != want {
		t.Errorf("attributes %v, want [%s]", got, want)
	}
}
