package emulate

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
)

// arrayFields lists the atomic fields of an array member: element i of member m carries
// variable m[i] (m[i].x for a compound element's member x), at its offset in the array.
func arrayFields(m plan.Member) []Field {
	base := *m.Type.Base
	var f []Field
	for i := range m.Type.Size / base.Size {
		for _, in := range Fields(base, "") {
			v := fmt.Sprintf("%s[%d]", m.Name, i)
			if in.Variable != "" {
				v += "." + in.Variable
			}
			f = append(f, Field{Variable: v, Offset: m.Offset + i*base.Size + in.Offset, Class: in.Class, Size: in.Size})
		}
	}
	return f
}
