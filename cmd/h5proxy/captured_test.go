package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// capturedKeys reads the description capture wrote at path as its keys: each scalar by
// its dotted key path (files.h0.datasets.T.shape, timeline[2].every), a list of scalars
// as "[a, b]" — what the description says, whichever style (flow or block) the writer
// chose.
func capturedKeys(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if at != "" {
					k = at + "." + k
				}
				walk(n.Content[i+1], k)
			}
		case yaml.SequenceNode:
			var items []string
			for i, c := range n.Content {
				if c.Kind == yaml.ScalarNode {
					items = append(items, c.Value)
				} else {
					walk(c, fmt.Sprintf("%s[%d]", at, i))
				}
			}
			if len(items) == len(n.Content) {
				out[at] = "[" + strings.Join(items, ", ") + "]"
			}
		default:
			out[at] = n.Value
		}
	}
	walk(doc.Content[0], "")
	return out
}

// expectKeys fails for each key of want the captured keys do not hold with that value
// (a key "timeline[*].K" matches any action's; its value may join several keys with
// " & " for one action holding them all; a value "*" asks for any key under it; text
// after a "#" in a key tells two of them apart).
func expectKeys(t *testing.T, got map[string]string, want map[string]string, text string) {
	t.Helper()
	for k, v := range want {
		k, _, _ = strings.Cut(k, "#")
		if v == "*" {
			found := false
			for g := range got {
				found = found || strings.HasPrefix(g, k+".")
			}
			if !found {
				t.Errorf("no key under %s:\n%s", k, text)
			}
			continue
		}
		if pre, rest, ok := strings.Cut(k, "[*]."); ok {
			found := false
			for i := 0; i < 100 && !found; i++ {
				found = true
				for j, key := range strings.Split(rest, " & ") {
					if got[fmt.Sprintf("%s[%d].%s", pre, i, key)] != strings.Split(v, " & ")[j] {
						found = false
					}
				}
			}
			if !found {
				t.Errorf("no %s with %s = %s:\n%s", pre, rest, v, text)
			}
			continue
		}
		if got[k] != v {
			t.Errorf("%s = %q, want %q:\n%s", k, got[k], v, text)
		}
	}
}
