package plan

// Creation order flags, HDF5's H5P_CRT_ORDER_TRACKED and H5P_CRT_ORDER_INDEXED: a group's
// links or an object's attributes remember the order they were created in, and with an
// index can be iterated in it (netCDF-4 sets both on every group it creates).
const (
	OrderTracked = 1
	OrderIndexed = 2
)

// GroupSpec is a CreateGroup's group creation properties: the creation order of its links
// and attributes (OrderTracked, OrderTracked|OrderIndexed; 0 untracked), and whether its
// object times go untracked (H5Pset_obj_track_times false).
type GroupSpec struct {
	LinkOrder, AttrOrder int
	NoTimes              bool
}

// VirtualSource is one mapping of a virtual dataset (DatasetSpec.Virtual): the block of
// Count elements at Start of the virtual dataset comes from the block of Count elements at
// SourceStart of dataset Dataset in file File ("." the virtual dataset's own file).
type VirtualSource struct {
	File, Dataset             string
	Start, Count, SourceStart []uint64
	// All selects the whole of both dataspaces (H5Sselect_all), as a program that passes
	// its dataspaces to H5Pset_virtual unselected; else both are one hyperslab block.
	All bool
}
