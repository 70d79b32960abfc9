// Package warm prepares memory for benchmarks on virtual machines that hand idle memory
// back to the host: the first touch of such memory runs at a fraction of the usual speed,
// and a write into the page cache allocates its pages, so a run's rate would depend on how
// long the memory it lands in sat idle rather than on what it measures.
package warm

import "github.com/h5proxy/h5proxy/emulate"

// FlagUsage is the help text of the benchmarks' -warm flag.
const FlagUsage = "before each run, touch and free as much memory as the run writes, so its page-cache pages come from memory the VM has not handed back to the host"

// Memory touches n bytes of fresh memory and frees them, so the next allocations (page
// cache included) find memory the host has not taken back.
func Memory(n int) error {
	b, err := emulate.Alloc(n)
	if err != nil {
		return err
	}
	clear(b.Bytes())
	return b.Free()
}
