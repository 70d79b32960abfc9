package mpi

import "fmt"

// Agree turns a local outcome into the same outcome on every rank of c (collective): nil
// only if no rank failed. A failing rank gets its own error; the others get an error
// saying that what failed on that many other ranks.
func (c Comm) Agree(local error, what string) error {
	failed := int64(0)
	if local != nil {
		failed = 1
	}
	res, err := c.AllreduceInt64([]int64{failed}, OpSum)
	if err != nil {
		return err
	}
	if local != nil {
		return local
	}
	if res[0] > 0 {
		return fmt.Errorf("%s failed on %d other rank(s); see their errors", what, res[0])
	}
	return nil
}
