//go:build linux

package posix

import "golang.org/x/sys/unix"

// oDirect is open(2)'s O_DIRECT.
const oDirect = unix.O_DIRECT
