package desc

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const (
	docPath  = "../../../docs/apps.md"
	docBegin = "<!-- BEGIN FORMAT REFERENCE: generated from patterns/app/desc's Schema; regenerate with UPDATE_DOCS=1 go test ./patterns/app/desc -run TestAppsDocIsCurrent -->\n"
	docEnd   = "<!-- END FORMAT REFERENCE -->"
)

// TestAppsDocIsCurrent keeps docs/apps.md's format reference equal to the table the parser
// uses (Schema); UPDATE_DOCS=1 rewrites it.
func TestAppsDocIsCurrent(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, docBegin), strings.Index(s, docEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/apps.md lacks the markers %q ... %q", docBegin, docEnd)
	}
	var ref bytes.Buffer
	if err := WriteMarkdown(&ref); err != nil {
		t.Fatal(err)
	}
	want := s[:i+len(docBegin)] + ref.String() + s[j:]
	if want == s {
		return
	}
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("docs/apps.md's format reference is stale: UPDATE_DOCS=1 go test ./patterns/app/desc -run TestAppsDocIsCurrent")
}

// TestEveryKeyHasHelp: the reference and `h5proxy help app` explain every key.
func TestEveryKeyHasHelp(t *testing.T) {
	Walk(Schema, "", func(path, _ string, n *Node) {
		if path != "" && n.Help == "" && !strings.HasSuffix(path, "*") && !strings.HasSuffix(path, "]") {
			t.Errorf("%s has no help", path)
		}
	})
}
