package desc

import "strings"

// dsValueNode declares datasets.NAME.value: a dataset's literal contents.
var dsValueNode = &Node{Key: "value", Kind: Data,
	Help:    "the dataset's literal contents, one list entry per element in row-major order (a scalar dataset: one value), each as an attribute's value takes it (a number, a string, a compound's map of members; ${EXPR} evaluated at the write); type ref or regref: the targets' paths (ref: /group/dataset; regref: /dataset[START:END,...], END exclusive), made into references (H5Rcreate) at the write, after the targets, as a program writes its table of references (a file's region references need a file opened without MPI-IO: writer: rank0, or a file per rank); the dataset is written whole, by rank 0 (decompose rank0, the default, H5S_ALL) or by every rank (replicated), at each write of its action; no extend, virtual or written: false",
	Example: `regions: {type: regref, shape: [2], value: ["/table[0:2]", "/table[2:4]"]}`}

// checkValue checks what a dataset's literal value allows beside it: a dataset written
// whole from one list, neither grown, nor virtual, nor left unwritten, nor split over the
// ranks.
func (d *Dataset) checkValue() error {
	v := d.Value
	if !v.Set {
		return nil
	}
	allowed := "value on a dataset written whole: without extend, virtual or written: false; decompose rank0 (the default) or replicated"
	switch {
	case d.Extend.Set:
		return errAt(d.Extend, "a dataset with a literal value does not grow", allowed)
	case len(d.Virtual) > 0:
		return errAt(v, "a virtual dataset has no contents of its own", allowed)
	case d.Written.Set && strings.EqualFold(strings.TrimSpace(d.Written.Text), "false"):
		return errAt(d.Written, "a dataset with a literal value is written", allowed)
	}
	if k := strings.ToLower(strings.TrimSpace(d.Decompose.Kind.Text)); d.Decompose.Kind.Set && k != "rank0" && k != "replicated" {
		return errAt(d.Decompose.Kind, "a dataset with a literal value is written whole", allowed)
	}
	return nil
}
