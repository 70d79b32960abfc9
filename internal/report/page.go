// Package report writes one self-contained HTML page of a run's I/O: a profile (an
// h5proxy profile or a Darshan log read into one), a real program compared with its
// proxy, or a parameter study. A page needs no network and no script: its styles are
// inline and its figures are inline SVG, so it opens anywhere, can be mailed or attached
// to a paper, and renders as fast as the browser parses it.
//
//	pg := report.ProfilePage(p, report.ProfileOptions{Command: "h5proxy profile ..."})
//	err := pg.WriteFile("profile.html")
//
// The package reads finished data only: it runs nothing and knows nothing of MPI or HDF5.
package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"time"
)

// Page is one HTML page under construction: a title, then sections of paragraphs,
// tables and figures, in the order added.
type Page struct {
	title   string
	body    bytes.Buffer
	toc     []string // section titles, for the contents line
	figures int
}

// NewPage starts a page with its title (the <title> and the top heading).
func NewPage(title string) *Page { return &Page{title: title} }

// Section starts a new section with a heading; the page's contents line links to it.
func (p *Page) Section(title string) {
	p.toc = append(p.toc, title)
	fmt.Fprintf(&p.body, "<h2 id=\"s%d\">%s</h2>\n", len(p.toc), html.EscapeString(title))
}

// Para adds a paragraph of plain text.
func (p *Page) Para(text string) {
	fmt.Fprintf(&p.body, "<p>%s</p>\n", html.EscapeString(text))
}

// Facts adds a two-column list of names and values (the job's header).
func (p *Page) Facts(kv [][2]string) {
	p.body.WriteString("<dl class=\"facts\">\n")
	for _, f := range kv {
		fmt.Fprintf(&p.body, "<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(f[0]), html.EscapeString(f[1]))
	}
	p.body.WriteString("</dl>\n")
}

// Command adds a command line, shown as code (what made the data on the page).
func (p *Page) Command(cmd string) {
	fmt.Fprintf(&p.body, "<pre class=\"cmd\">%s</pre>\n", html.EscapeString(cmd))
}

// Verdict adds a highlighted one-line conclusion; ok chooses its colour.
func (p *Page) Verdict(text string, ok bool) {
	class := "bad"
	if ok {
		class = "good"
	}
	fmt.Fprintf(&p.body, "<p class=\"verdict %s\">%s</p>\n", class, html.EscapeString(text))
}

// Cell is one table cell: its text, whether it is a number (right-aligned) and whether
// it is marked (a differing counter).
type Cell struct {
	Text   string
	Num    bool
	Marked bool
}

// Str is a text cell.
func Str(s string) Cell { return Cell{Text: s} }

// Int is a whole-number cell with thousands separators.
func Int(v int64) Cell { return Cell{Text: group(v), Num: true} }

// Float is a number cell printed with format f (e.g. "%.3f").
func Float(f string, v float64) Cell { return Cell{Text: fmt.Sprintf(f, v), Num: true} }

// Table adds a table with a caption, a header row and rows of cells. A table of more
// than fold rows (fold > 0) is folded into a <details> element that opens on a click.
func (p *Page) Table(caption string, head []string, rows [][]Cell, fold int) {
	if fold > 0 && len(rows) > fold {
		fmt.Fprintf(&p.body, "<details><summary>%s (%d rows)</summary>\n", html.EscapeString(caption), len(rows))
		defer p.body.WriteString("</details>\n")
	}
	p.body.WriteString("<table>\n")
	if caption != "" {
		fmt.Fprintf(&p.body, "<caption>%s</caption>\n", html.EscapeString(caption))
	}
	p.body.WriteString("<thead><tr>")
	for _, h := range head {
		fmt.Fprintf(&p.body, "<th>%s</th>", html.EscapeString(h))
	}
	p.body.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		p.body.WriteString("<tr>")
		for _, c := range r {
			var cls []string
			if c.Num {
				cls = append(cls, "num")
			}
			if c.Marked {
				cls = append(cls, "mark")
			}
			if len(cls) > 0 {
				fmt.Fprintf(&p.body, "<td class=\"%s\">%s</td>", strings.Join(cls, " "), html.EscapeString(c.Text))
			} else {
				fmt.Fprintf(&p.body, "<td>%s</td>", html.EscapeString(c.Text))
			}
		}
		p.body.WriteString("</tr>\n")
	}
	p.body.WriteString("</tbody></table>\n")
}

// BeginRow lays the tables added until EndRow side by side, wrapping as the page narrows.
func (p *Page) BeginRow() { p.body.WriteString("<div class=\"row\">\n") }

// EndRow ends a BeginRow.
func (p *Page) EndRow() { p.body.WriteString("</div>\n") }

// Figure adds an inline SVG figure with its caption. The figure is numbered; its
// element carries class "figure" and data-figure=N so tools can find it on the page.
func (p *Page) Figure(caption string, svg string) {
	p.figures++
	fmt.Fprintf(&p.body, "<figure class=\"figure\" data-figure=\"%d\">\n%s\n<figcaption>Figure %d. %s</figcaption>\n</figure>\n",
		p.figures, svg, p.figures, html.EscapeString(caption))
}

// Figures returns how many figures the page has.
func (p *Page) Figures() int { return p.figures }

// WriteTo writes the whole page.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		html.EscapeString(p.title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(p.title))
	if len(p.toc) > 1 {
		b.WriteString("<nav>")
		for i, t := range p.toc {
			if i > 0 {
				b.WriteString(" · ")
			}
			fmt.Fprintf(&b, "<a href=\"#s%d\">%s</a>", i+1, html.EscapeString(t))
		}
		b.WriteString("</nav>\n")
	}
	b.Write(p.body.Bytes())
	fmt.Fprintf(&b, "<footer>Written by h5proxy on %s.</footer>\n</body>\n</html>\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// WriteFile writes the page to path, replacing it whole (a partly written page is
// removed, never left behind).
func (p *Page) WriteFile(path string) error {
	f, err := os.CreateTemp(dirOf(path), ".report-*.html")
	if err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	tmp := f.Name()
	if _, err := p.WriteTo(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	return "."
}

// group prints v with thin-space thousands separators, as the text summaries do not but
// a reader scanning a table of byte counts wants.
func group(v int64) string {
	s := fmt.Sprint(v)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

const css = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222;background:#fff}
h1{font-size:1.6em;margin:.2em 0 .4em}
h2{font-size:1.25em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
nav{margin:.3em 0 1em;color:#666}
nav a{color:#1f5fa8;text-decoration:none}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1.2em;margin:.5em 0}
dl.facts dt{font-weight:600;color:#444}
dl.facts dd{margin:0;font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
pre.cmd{background:#f4f4f4;border:1px solid #e2e2e2;padding:.5em .7em;overflow-x:auto;white-space:pre-wrap}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
caption{text-align:left;font-weight:600;padding:.2em 0}
th,td{border:1px solid #ddd;padding:.2em .55em;vertical-align:top}
th{background:#f3f5f8;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;font-family:ui-monospace,Menlo,Consolas,monospace}
td.mark{background:#fde2e1;font-weight:600}
tbody tr:nth-child(even) td:not(.mark){background:#fafafa}
div.row{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}
details{margin:.6em 0}
summary{cursor:pointer;font-weight:600}
figure{margin:1em 0}
figcaption{color:#555;font-size:13px}
p.verdict{font-weight:600;padding:.4em .7em;border-radius:3px}
p.verdict.good{background:#e3f4e1}
p.verdict.bad{background:#fde2e1}
footer{margin-top:2em;color:#888;font-size:12px}
svg text{font-family:system-ui,-apple-system,Helvetica,Arial,sans-serif}
`
