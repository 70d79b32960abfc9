package background

import (
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/options"
)

// TestSettleKey: async.settle reaches the event-set mode, whose settle pauses that long
// under the Async VOL, not at all when 0, and never under another connector.
func TestSettleKey(t *testing.T) {
	for _, c := range []struct {
		conn, setting string
		want          []time.Duration
	}{
		{"async", "", []time.Duration{connectorSettle}},
		{"async under_vol=0;under_info={}", "50ms", []time.Duration{50 * time.Millisecond}},
		{"async", "0", nil},
		{"native", "50ms", nil},
	} {
		var kvs []options.KV
		if c.setting != "" {
			kvs = append(kvs, options.KV{Key: "async.settle", Value: c.setting})
		}
		v, err := Options.Parse(kvs)
		if err != nil {
			t.Fatal(err)
		}
		m := eventSetMode(&fakeLayout{}, c.conn, v)
		var got []time.Duration
		m.sleep = func(d time.Duration) { got = append(got, d) }
		if err := m.settle(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) || (len(got) == 1 && got[0] != c.want[0]) {
			t.Errorf("connector %q, async.settle=%q: pauses %v, want %v", c.conn, c.setting, got, c.want)
		}
	}
	if _, err := Options.Parse([]options.KV{{Key: "async.settle", Value: "-1s"}}); err == nil || !strings.Contains(err.Error(), `"async.settle"`) {
		t.Errorf("async.settle=-1s: %v, want an error naming the key", err)
	}
}
