package h5

import "github.com/h5proxy/h5proxy/plan"

// LinkKind is a link's kind (H5L_type_t).
type LinkKind int

// Link kinds; LinkOther is a user-defined kind.
const (
	LinkHard LinkKind = iota
	LinkSoft
	LinkExternal
	LinkOther
)

// String names the kind as a description's links key does.
func (k LinkKind) String() string {
	return [...]string{"hard", "soft", "external", "user-defined"}[k]
}

// LinkInfo is one link of a group, as ListLinks finds it.
type LinkInfo struct {
	Name string
	Kind LinkKind
	// Target is the path a soft link stores, or an external link's object path.
	Target string
	// File is an external link's file name.
	File string
}

// Creation holds the dataset creation properties DatasetCreation reads.
type Creation struct {
	// AllocTime is the storage allocation time (H5Pget_alloc_time).
	AllocTime plan.AllocTime
	// FillSet reports a fill value the writer set (H5D_FILL_VALUE_USER_DEFINED), Fill
	// that value as a double.
	FillSet bool
	Fill    float64
}
