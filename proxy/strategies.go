package proxy

// The built-in strategies of the I/O stack: a new layout or mode is one package plus one
// line here.
import (
	_ "github.com/h5proxy/h5proxy/proxy/layout/log"
	_ "github.com/h5proxy/h5proxy/proxy/layout/logvol"
	_ "github.com/h5proxy/h5proxy/proxy/layout/mpiio"
	_ "github.com/h5proxy/h5proxy/proxy/layout/native"
	_ "github.com/h5proxy/h5proxy/proxy/layout/null"
	_ "github.com/h5proxy/h5proxy/proxy/layout/posix"
	_ "github.com/h5proxy/h5proxy/proxy/layout/subfiling"
	_ "github.com/h5proxy/h5proxy/proxy/layout/subfilingvfd"
	_ "github.com/h5proxy/h5proxy/proxy/mode/background"
	_ "github.com/h5proxy/h5proxy/proxy/mode/syncmode"
)
