package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// ErrNoPattern is returned by BuildConfig when neither the caller nor the configuration
// file names a pattern.
var ErrNoPattern = errors.New("h5proxy: no pattern")

// BuildConfig assembles a configuration the way every front end does: KEY=VALUE options
// (session, strategy and pattern keys) over a native JSON configuration file, if
// configFile is not empty, validated once. An option replaces the file's entry for the
// same key (aliases and case included); a pattern key given twice in kvs is an error, a
// session key given twice takes the last value. pattern may be empty when the file names
// one. Errors: a configuration error (*options.Error or a JSON error), a file system error
// for an unreadable file, or ErrNoPattern.
func BuildConfig(pattern string, kvs []options.KV, configFile string) (Config, error) {
	hasFile := configFile != ""
	cfgFile := configFile
	var doc map[string]any
	if hasFile {
		data, err := os.ReadFile(cfgFile)
		if err != nil {
			return Config{}, fmt.Errorf("config_file: %w", err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return Config{}, fmt.Errorf("config_file %s: %w", cfgFile, err)
		}
		if doc == nil {
			return Config{}, fmt.Errorf("config_file %s: not a JSON object", cfgFile)
		}
		filePattern, _ := doc["pattern"].(string)
		switch {
		case pattern == "":
			pattern = filePattern
		case filePattern != "" && !strings.EqualFold(filePattern, pattern):
			return Config{}, &options.Error{Table: "session", Key: "pattern", Value: pattern,
				Reason: fmt.Sprintf("contradicts config_file %s, which has pattern %q", cfgFile, filePattern)}
		}
	}
	if pattern == "" {
		return Config{}, fmt.Errorf("%w: pass a pattern name (available: %s) or a config_file that names one",
			ErrNoPattern, strings.Join(patterns.Names(), ", "))
	}
	factory, err := patterns.Lookup(pattern)
	if err != nil {
		return Config{}, err
	}
	if err := duplicateKeys(factory, kvs); err != nil {
		return Config{}, err
	}
	var cfg Config
	if hasFile {
		doc["pattern"] = pattern
		if err := override(doc, factory, kvs); err != nil {
			return Config{}, fmt.Errorf("config_file %s: %w", cfgFile, err)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return Config{}, err
		}
		cfg, err = DecodeConfig(data)
		if err != nil {
			return cfg, fmt.Errorf("%w (config_file %s with the options applied)", err, cfgFile)
		}
		return cfg, nil
	}
	return ParseOptions(pattern, kvs)
}

// duplicateKeys rejects a pattern key given twice in the options (session keys may be
// repeated: the last one wins, as with proxy.Config.Set).
func duplicateKeys(f patterns.Factory, kvs []options.KV) error {
	seen := map[string]bool{}
	for _, kv := range kvs {
		if _, ok := sessionTable.Lookup(kv.Key); ok {
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
		if spec, ok := sessionTable.Lookup(kv.Key); ok {
			for k := range session {
				if s, ok := sessionTable.Lookup(k); ok && s == spec {
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
