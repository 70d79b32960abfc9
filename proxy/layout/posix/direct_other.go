//go:build !linux

package posix

// oDirect is 0 where open(2) has no O_DIRECT: posix.odirect=YES is then refused.
const oDirect = 0
