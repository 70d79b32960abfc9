package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// orderFlags are the plan's creation order flags of a creation_order value: tracked, or
// indexed (tracked and indexed); none or unset: 0.
func orderFlags(v desc.Value) int {
	switch strings.ToLower(strings.TrimSpace(v.Text)) {
	case "tracked":
		return plan.OrderTracked
	case "indexed":
		return plan.OrderTracked | plan.OrderIndexed
	}
	return 0
}

// groupSpec is a group's creation properties: nil for HDF5's defaults (the plan of a
// description without creation_order is as before).
func groupSpec(c *desc.Content) *plan.GroupSpec {
	g := plan.GroupSpec{LinkOrder: orderFlags(c.CreationOrder.Links), AttrOrder: orderFlags(c.CreationOrder.Attributes)}
	if g == (plan.GroupSpec{}) {
		return nil
	}
	return &g
}
