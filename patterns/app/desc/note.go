package desc

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Note is what a description says beside a key in comments: lines above it (Head), a
// comment at the end of its line (Line), and guesses: what a writer (derive, capture)
// could not tell from its source and chose, each written as a "# guess: ..." line above
// the key so a reader finds what to check.
type Note struct {
	Head  string // one or more lines, without "# "
	Line  string
	Guess []string
}

// empty reports whether the note says nothing.
func (n *Note) empty() bool { return n == nil || (n.Head == "" && n.Line == "" && len(n.Guess) == 0) }

// guessPrefix starts a guess line in a head comment.
const guessPrefix = "guess: "

// NoteAt returns the note of the key at path (a dotted key path as errors name it:
// "files.plt.datasets.dens.type", "timeline[0]", "" for the whole description), made
// when absent. Writers attach comments and guesses to any key this way; Parse fills the
// notes from the comments it reads, so a description written again keeps them.
func (d *Description) NoteAt(path string) *Note {
	if d.Notes == nil {
		d.Notes = map[string]*Note{}
	}
	n := d.Notes[path]
	if n == nil {
		n = &Note{}
		d.Notes[path] = n
	}
	return n
}

// Comment adds lines above the key at path.
func (d *Description) Comment(path string, lines ...string) {
	n := d.NoteAt(path)
	for _, l := range lines {
		n.Head = joinLines(n.Head, l)
	}
}

// Guess adds a guess above the key at path: what the source could not tell, and the
// value chosen.
func (d *Description) Guess(path, text string) {
	n := d.NoteAt(path)
	n.Guess = append(n.Guess, text)
}

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n" + b
}

// headComment renders a note's head lines and guesses as a yaml.v3 head comment.
func (n *Note) headComment() string {
	var lines []string
	for _, l := range strings.Split(n.Head, "\n") {
		if n.Head != "" {
			lines = append(lines, strings.TrimRight("# "+l, " "))
		}
	}
	for _, g := range n.Guess {
		lines = append(lines, "# "+guessPrefix+g)
	}
	return strings.Join(lines, "\n")
}

// readNote makes the note of a key from the comments yaml.v3 attached to it (head and
// line comments on the key, line comments on a scalar or flow value, where Write puts a
// line note); nil when there are none.
func readNote(k, v *yaml.Node) *Note {
	line := k.LineComment
	if line == "" && v != nil && (v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0) {
		line = v.LineComment
	}
	if k.HeadComment == "" && line == "" {
		return nil
	}
	n := &Note{Line: uncomment(line)}
	for _, l := range strings.Split(k.HeadComment, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		l = uncomment(l)
		if g, ok := strings.CutPrefix(l, guessPrefix); ok {
			n.Guess = append(n.Guess, g)
		} else {
			n.Head = joinLines(n.Head, l)
		}
	}
	if n.empty() {
		return nil
	}
	return n
}

// uncomment strips a comment's "#" and the one space after it.
func uncomment(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	return strings.TrimPrefix(s, " ")
}

// moveNotes moves the notes at path from, and under it, to path to: the comments on a
// list key (${vars}, [a, b]) go to the first dataset it makes.
func moveNotes(notes map[string]*Note, from, to string) {
	for k, n := range notes {
		if k == from || strings.HasPrefix(k, from+".") {
			delete(notes, k)
			notes[to+k[len(from):]] = n
		}
	}
}
