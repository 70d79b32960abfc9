package profile

// SummaryCounters returns the counters module m's summary leads with, in the order
// darshan-parser's --total and PyDarshan's job summary show them.
func SummaryCounters(m string) []string { return summaryCounters[m] }

// TimeCounters returns module m's cumulative time counters (seconds).
func TimeCounters(m string) []string { return timeCounters[m] }

// BinCounter names the counter of Darshan's access-size bin b (one of BinLabels) of
// module m, for reads or writes.
func BinCounter(m string, write bool, b string) string { return binCounter(m, write, b) }

// IsRead reports whether a traced call reads (for timelines that color by direction).
func IsRead(call string) bool { return isRead(call) }
