package h5

import (
	"strconv"
	"strings"
)

// Connector is the VOL connector the process's HDF5 calls go through.
type Connector struct {
	// Name is the connector's name as HDF5_VOL_CONNECTOR gives it ("async", "cache_ext",
	// "LOG", "pass_through"), "native" without one.
	Name string
	// Native: the calls go straight to the native connector. Queries that read what the
	// native connector left in a property list or a file (the census's actual I/O mode,
	// the MPI-IO handle's hints, the metadata cache) are asked only then: a passthrough
	// runs the call later or on a thread of its own, with copies of the property lists.
	Native bool
	// NativeFiles: the terminal connector writes native HDF5 files (a passthrough over the
	// native connector does; the log-based VOL does not).
	NativeFiles bool
	// Value is the connector's registered value (0: native).
	Value int
}

// connectorName is the connector's name: the first word of HDF5_VOL_CONNECTOR (the rest is
// its configuration), or its value when the connector came from elsewhere.
func connectorName(env string, value int) string {
	if f := strings.Fields(env); len(f) > 0 {
		return f[0]
	}
	return "connector " + strconv.Itoa(value)
}

// Unavailable is the error of a query that needs the native connector, asked under
// another one.
type Unavailable struct {
	// Query is what was asked, Connector the connector in use.
	Query, Connector string
}

func (u *Unavailable) Error() string {
	return "h5: " + u.Query + ": unavailable under " + u.Connector + " (it needs the native VOL connector)"
}
