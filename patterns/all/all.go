// Package all registers every built-in pattern in the patterns registry. It is the one
// place that lists them: a new pattern is one package plus one line here. Package proxy
// imports it, so any program using the proxy has every pattern available; the proxy also
// installs the E3SM map file reader (proxy/e3smmap), which needs HDF5 and so does not
// belong to the patterns' side.
//
//	import _ "github.com/h5proxy/h5proxy/patterns/all" // only needed without package proxy
package all

import (
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/amrex"
	"github.com/h5proxy/h5proxy/patterns/app"
	"github.com/h5proxy/h5proxy/patterns/dlio"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/patterns/exerciser"
	"github.com/h5proxy/h5proxy/patterns/h5perf"
	"github.com/h5proxy/h5proxy/patterns/ior"
	"github.com/h5proxy/h5proxy/patterns/iotest"
	"github.com/h5proxy/h5proxy/patterns/nova"
	"github.com/h5proxy/h5proxy/patterns/openpmd"
	"github.com/h5proxy/h5proxy/patterns/vpic"
)

// Builtin lists the built-in patterns' factories in registration order.
var Builtin = []patterns.Factory{vpic.Factory, amrex.Factory, openpmd.Factory, e3sm.Factory, iotest.Factory, exerciser.Factory,
	vpic.UnlimitedFactory, vpic.NormalDistFactory, vpic.OverwriteFactory, vpic.AppendFactory, dlio.Factory, ior.Factory, h5perf.Factory, nova.Factory, app.Factory}

func init() {
	for _, f := range Builtin {
		patterns.Register(f)
	}
}
