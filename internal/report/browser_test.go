package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/sweep"
)

// envRequireBrowser makes a missing Chromium a failure instead of a skip (CI sets it:
// scripts/deps-test.sh installs Debian's chromium there).
const envRequireBrowser = "H5PROXY_REQUIRE_BROWSER"

// chromium finds Debian's headless-capable browser, or skips (fails under
// H5PROXY_REQUIRE_BROWSER) naming the package.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH: the rendering test needs Debian's chromium package (make deps-test installs it)"
	if os.Getenv(envRequireBrowser) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// probe is what the script injected into a copy of the page reports after load: the
// milliseconds from navigation until the page was laid out, each figure's box in CSS
// pixels, the page's height and the script errors seen.
type probe struct {
	Ready  float64      `json:"ready"`
	Figs   [][4]float64 `json:"figs"`
	Height float64      `json:"height"`
	Errors []string     `json:"errors"`
}

// probeScript goes first in <head> of the copy the browser opens: it records any error
// and, at load, forces layout and writes the probe into the DOM for --dump-dom.
const probeScript = `<script>
window.__errors=[];
window.addEventListener('error',function(e){window.__errors.push(String(e.message))});
window.addEventListener('load',function(){
 var figs=[].map.call(document.querySelectorAll('figure.figure svg'),function(s){var r=s.getBoundingClientRect();return [r.left+scrollX,r.top+scrollY,r.width,r.height]});
 var h=document.documentElement.scrollHeight;
 var p=document.createElement('pre');p.id='h5proxy-probe';
 p.textContent=JSON.stringify({ready:performance.now(),figs:figs,height:h,errors:window.__errors});
 document.body.appendChild(p);
});
</script>`

// headless runs the browser on a page with args, returning stdout and stderr.
func headless(t *testing.T, browser string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	base := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
		"--no-first-run", "--disable-extensions", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleErrors are the console messages of level error Chromium logs to stderr.
var consoleErrors = regexp.MustCompile(`(?m)^.*(CONSOLE\(\d+\)|Uncaught |ERROR:CONSOLE).*$`)

// checkInBrowser renders a page in headless Chromium: no console error, laid out within
// budget, and every figure drawn (pixels other than the background where its SVG sits).
func checkInBrowser(t *testing.T, browser string, pg *Page, budget time.Duration) {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	if _, err := pg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	probed := strings.Replace(page, "<head>", "<head>\n"+probeScript, 1)
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := headless(t, browser, "--window-size=1200,900", "--dump-dom", "file://"+path)
	if m := consoleErrors.FindAllString(logs, -1); len(m) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(m, "\n"))
	}
	m := regexp.MustCompile(`(?s)<pre id="h5proxy-probe">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not finish loading (no probe in the DOM):\n%.2000s", dom)
	}
	var pr probe
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(m[1])), &pr); err != nil {
		t.Fatalf("probe %q: %v", m[1], err)
	}
	if len(pr.Errors) > 0 {
		t.Fatalf("script errors on the page: %v", pr.Errors)
	}
	if len(pr.Figs) != pg.Figures() {
		t.Fatalf("the browser laid out %d figures, the page has %d", len(pr.Figs), pg.Figures())
	}
	ready := time.Duration(pr.Ready * float64(time.Millisecond))
	t.Logf("laid out in %v, %d figures, %.0f px tall, %d bytes", ready, len(pr.Figs), pr.Height, len(page))
	if ready > budget {
		t.Errorf("the page took %v to load and lay out, more than %v", ready, budget)
	}
	// Screenshot the whole page (the unprobed one: the probe adds a line at the end).
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "page.png")
	headless(t, browser, fmt.Sprintf("--window-size=1200,%d", int(pr.Height)+50), "--screenshot="+shot, "file://"+path)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, box := range pr.Figs {
		r := image.Rect(int(box[0]), int(box[1]), int(box[0]+box[2]), int(box[1]+box[3])).Intersect(img.Bounds())
		inked, colored := 0, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
					inked++
				}
				if max(cr, cg, cb)-min(cr, cg, cb) > 0x3000 { // a series colour, not grey text
					colored++
				}
			}
		}
		t.Logf("figure %d at %v: %d inked, %d coloured pixels", i+1, r, inked, colored)
		if r.Empty() || colored < 50 {
			t.Errorf("figure %d at %v is blank: %d coloured pixels of %d", i+1, r, colored, r.Dx()*r.Dy())
		}
	}
	if t.Failed() {
		keep := filepath.Join(os.TempDir(), "h5proxy-report-"+t.Name()+".png")
		if b, err := os.ReadFile(shot); err == nil && os.WriteFile(keep, b, 0o644) == nil {
			t.Logf("screenshot kept at %s", keep)
		}
	}
}

// TestPagesInBrowser renders each kind of page in headless Chromium: a profile with 10^5
// traced calls (laid out within 2 s), a comparison and a study.
func TestPagesInBrowser(t *testing.T) {
	browser := chromium(t)
	t.Run("profile", func(t *testing.T) {
		// 10^5 calls on 16 ranks at random times over a minute: nearly every pixel
		// column of every rank busy, the timeline's worst case.
		p := testProfile(100000)
		p.Ranks, p.Elapsed = 16, 60
		r := rand.New(rand.NewSource(3))
		for i := range p.Events {
			e := &p.Events[i]
			e.Rank = i % 16
			e.Start = r.Float64() * 60
			e.End = e.Start + r.Float64()*1e-3
		}
		checkInBrowser(t, browser, ProfilePage(p, ProfileOptions{Command: "h5proxy profile -trace -np 16 -- vpic_write"}), 2*time.Second)
	})
	t.Run("compare", func(t *testing.T) {
		a, b := testProfile(2000), testProfile(2000)
		b.Records[0].Counters = map[string]int64{"POSIX_OPENS": 5}
		checkInBrowser(t, browser, ComparePage(Comparison{Real: a, Proxy: b, Diff: profile.Compare(a, b),
			Real1: []float64{1, 1.1, 0.9}, Real2: []float64{1.05, 1, 1}, ProxyTimes: []float64{1.2, 1.1, 1.0}, Verdict: "Time: x"}), 4*time.Second)
	})
	t.Run("sweep", func(t *testing.T) {
		axes := []sweep.Axis{{Key: "compute_time", Values: []string{"0s", "100ms", "200ms"}}, {Key: "mode", Values: []string{"sync", "async"}}}
		var rows []sweep.Row
		for i := 0; i < 18; i++ {
			pt := sweep.Point{Run: i, Rep: i / 6, Values: []string{axes[0].Values[i%6/2], axes[1].Values[i%2]}}
			rows = append(rows, sweep.Row{Point: pt, Metrics: map[string]float64{"write.observed_rate": float64(100 + i), "write.raw_rate": float64(200 - i)}})
		}
		pg, err := SweepPage(axes, rows, SweepOptions{Command: "h5proxy sweep ..."})
		if err != nil {
			t.Fatal(err)
		}
		checkInBrowser(t, browser, pg, 4*time.Second)
	})
}
