//go:build cgo

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// buildConfig assembles the configuration of h5proxy_session_create: the options text
// (KEY=VALUE items) over the native JSON config file, if any, validated once. It returns
// the status code of a failure with the error.
func buildConfig(pattern, optText, cfgFile string, hasFile bool) (proxy.Config, status, error) {
	kvs, err := proxy.ParseKV(optText)
	if err != nil {
		return proxy.Config{}, errConfig, fmt.Errorf("options: %w", err)
	}
	var doc map[string]any
	if hasFile {
		data, err := os.ReadFile(cfgFile)
		if err != nil {
			return proxy.Config{}, errIO, fmt.Errorf("config_file: %w", err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return proxy.Config{}, errConfig, fmt.Errorf("config_file %s: %w", cfgFile, err)
		}
		if doc == nil {
			return proxy.Config{}, errConfig, fmt.Errorf("config_file %s: not a JSON object", cfgFile)
		}
		filePattern, _ := doc["pattern"].(string)
		switch {
		case pattern == "":
			pattern = filePattern
		case filePattern != "" && !strings.EqualFold(filePattern, pattern):
			return proxy.Config{}, errConfig, &options.Error{Table: "session", Key: "pattern", Value: pattern,
				Reason: fmt.Sprintf("contradicts config_file %s, which has pattern %q", cfgFile, filePattern)}
		}
	}
	if pattern == "" {
		return proxy.Config{}, errInvalidArgument, fmt.Errorf("no pattern: pass a pattern name (available: %s) or a config_file that names one",
			strings.Join(patterns.Names(), ", "))
	}
	factory, err := patterns.Lookup(pattern)
	if err != nil {
		return proxy.Config{}, errConfig, err
	}
	if err := duplicateKeys(factory, kvs); err != nil {
		return proxy.Config{}, errConfig, err
	}
	var cfg proxy.Config
	if hasFile {
		doc["pattern"] = pattern
		if err := override(doc, factory, kvs); err != nil {
			return proxy.Config{}, errConfig, fmt.Errorf("config_file %s: %w", cfgFile, err)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return proxy.Config{}, errInternal, err
		}
		cfg, err = proxy.DecodeConfig(data)
		if err != nil {
			return cfg, configStatus(cfg, err), fmt.Errorf("%w (config_file %s with the options applied)", err, cfgFile)
		}
	} else if cfg, err = proxy.ParseOptions(pattern, kvs); err != nil {
		return cfg, configStatus(cfg, err), err
	}
	return cfg, statusOK, nil
}

// configStatus classifies a validation error: a mode or layout declared but not built is
// UNSUPPORTED, anything else CONFIG (the pattern name is checked before).
func configStatus(cfg proxy.Config, err error) status {
	if c := classify(err, errConfig); c != errConfig {
		return c
	}
	var oe *options.Error
	if !errors.As(err, &oe) {
		if cfg.Mode != "" && !slices.Contains(proxy.Modes(), cfg.Mode) ||
			cfg.Layout != "" && !slices.Contains(proxy.Layouts(), cfg.Layout) {
			return errUnsupported
		}
	}
	return errConfig
}

// duplicateKeys rejects a pattern key given twice in the options (session keys may be
// repeated: the last one wins, as with proxy.Config.Set).
func duplicateKeys(f patterns.Factory, kvs []options.KV) error {
	seen := map[string]bool{}
	for _, kv := range kvs {
		if _, ok := proxy.SessionOptions().Lookup(kv.Key); ok {
			continue
		}
		canon := strings.ToUpper(kv.Key)
		if s, ok := f.Options.Lookup(kv.Key); ok {
			canon = s.Key
		}
		if seen[canon] {
			return &options.Error{Table: f.Name, Key: kv.Key, Value: kv.Value, Reason: "given more than once"}
		}
		seen[canon] = true
	}
	return nil
}

// override applies the options to the decoded native JSON document: each option replaces
// the file's entry for the same key (aliases and case included) in "session" or
// "options".
func override(doc map[string]any, f patterns.Factory, kvs []options.KV) error {
	section := func(name string) (map[string]any, error) {
		v, ok := doc[name]
		if !ok || v == nil {
			m := map[string]any{}
			doc[name] = m
			return m, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not a JSON object", name)
		}
		return m, nil
	}
	session, err := section("session")
	if err != nil {
		return err
	}
	opts, err := section("options")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if spec, ok := proxy.SessionOptions().Lookup(kv.Key); ok {
			for k := range session {
				if s, ok := proxy.SessionOptions().Lookup(k); ok && s == spec {
					delete(session, k)
				}
			}
			session[kv.Key] = kv.Value
			continue
		}
		spec, known := f.Options.Lookup(kv.Key)
		for k := range opts {
			if s, ok := f.Options.Lookup(k); strings.EqualFold(k, kv.Key) || known && ok && s == spec {
				delete(opts, k)
			}
		}
		opts[kv.Key] = kv.Value
	}
	return nil
}
