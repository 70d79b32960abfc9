package h5bench

import (
	"github.com/h5proxy/h5proxy/proxy"
)

// The app benchmark is h5proxy's own (no h5bench program): an application description
// (docs/apps.md) run as an h5bench entry,
//
//	{"benchmark": "app", "file": "out.h5", "configuration": {"description": "my-app.yaml", "nx": "64"}}
//
// description names the file (relative to the working directory, as h5bench's runner
// resolves the configuration file); the other keys are the description's parameters or
// session keys; file (in the run directory) is where the description's files go.
func init() {
	register("app", adapter{pattern: "app", configure: configureApp})
	known = append(known, "app")
}

func configureApp(dir, file string, conf map[string]any, cfg *proxy.Config) error {
	if file == "" {
		file = "app.h5"
	}
	if err := cfg.Set("file", joinDir(dir, file)); err != nil {
		return err
	}
	return setAll(dir, conf, cfg, nil)
}
