//go:build cgo

package main

import (
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/proxy"
)

// buildConfig converts h5proxy_session_create's arguments and assembles the configuration
// (proxy.BuildConfig); it returns the status code of a failure with the error.
func buildConfig(pattern, optText, cfgFile string, hasFile bool) (proxy.Config, status, error) {
	kvs, err := proxy.ParseKV(optText)
	if err != nil {
		return proxy.Config{}, errConfig, fmt.Errorf("options: %w", err)
	}
	if !hasFile {
		cfgFile = ""
	}
	cfg, err := proxy.BuildConfig(pattern, kvs, cfgFile)
	switch {
	case err == nil:
		return cfg, statusOK, nil
	case errors.Is(err, proxy.ErrNoPattern):
		return cfg, errInvalidArgument, err
	}
	return cfg, classify(err, errConfig), err
}
