package proxy

import (
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

var (
	logMu        sync.Mutex
	defaultLevel = zerolog.WarnLevel // embedded in an application: quiet unless asked
)

// SetDefaultLogLevel sets the level used when H5PROXY_LOG_LEVEL is not set (the CLI
// uses info; embedded use defaults to warn).
func SetDefaultLogLevel(level string) error {
	l, err := zerolog.ParseLevel(level)
	if err != nil {
		return err
	}
	logMu.Lock()
	defaultLevel = l
	logMu.Unlock()
	return nil
}

// timeFormatOnce sets zerolog's process-wide time format once: sessions may be created
// on several threads at a time (TestConcurrentSessions).
var timeFormatOnce sync.Once

// newLogger returns the structured stderr logger of a rank. Only the ranks listed in
// H5PROXY_LOG_RANKS ("0" by default, "all", or a comma list) log below the error level;
// errors are logged on every rank. The level comes from
// H5PROXY_LOG_LEVEL (trace, debug, info, warn, error); H5PROXY_LOG_FORMAT=json switches
// from the console format to JSON lines.
func newLogger(rank int) zerolog.Logger {
	timeFormatOnce.Do(func() { zerolog.TimeFieldFormat = time.RFC3339Nano })
	logMu.Lock()
	level := defaultLevel
	logMu.Unlock()
	if v := os.Getenv("H5PROXY_LOG_LEVEL"); v != "" {
		if l, err := zerolog.ParseLevel(strings.ToLower(v)); err == nil {
			level = l
		}
	}
	if !logsRank(rank, os.Getenv("H5PROXY_LOG_RANKS")) {
		// Errors are rank-local: a rank that fails alone must say why, whatever the list.
		level = max(level, zerolog.ErrorLevel)
	}
	var w = zerolog.ConsoleWriter{Out: os.Stderr, NoColor: true, TimeFormat: "15:04:05.000"}
	base := zerolog.New(w)
	if os.Getenv("H5PROXY_LOG_FORMAT") == "json" {
		base = zerolog.New(os.Stderr)
	}
	return base.Level(level).With().Timestamp().Int("rank", rank).Logger()
}

// RankLogger returns the logger a session of rank rank gets (newLogger): for a command's
// own lines about its rank, under the same H5PROXY_LOG_* settings.
func RankLogger(rank int) zerolog.Logger { return newLogger(rank) }

func logsRank(rank int, spec string) bool {
	if spec == "" {
		return rank == 0
	}
	if spec == "all" {
		return true
	}
	for _, f := range strings.Split(spec, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n == rank {
			return true
		}
	}
	return false
}

// logRound rounds a logged measurement to what is worth reading: three decimals (a
// millisecond of a time in seconds), or three significant digits below 0.1, so a log
// line says raw_s=0.139 rather than raw_s=0.13860553499999997.
func logRound(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	d := max(3, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	if d > 15 {
		return v
	}
	p := math.Pow10(d)
	return math.Round(v*p) / p
}
