package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// rates are an operation's bandwidths in one IOR run's "Summary of all tests:" table:
// the best, the worst and the mean of its iterations, in MiB/s.
type rates struct {
	Max, Min, Mean float64
}

// parseSummary reads the operations' rows (write, read) of the "Summary of all tests:"
// table that IOR 3.3 and h5proxy ior print: after the title, a heading that starts with
// "Operation", then a row per operation whose second to fourth fields are Max(MiB),
// Min(MiB) and Mean(MiB).
func parseSummary(out string) (map[string]rates, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := map[string]rates{}
	state := 0 // 0: before the title, 1: before the heading, 2: in the rows
	for sc.Scan() {
		line := sc.Text()
		switch state {
		case 0:
			if strings.HasPrefix(line, "Summary of all tests:") {
				state = 1
			}
		case 1:
			if strings.HasPrefix(line, "Operation") {
				state = 2
			}
		case 2:
			f := strings.Fields(line)
			if len(f) < 4 || (f[0] != "write" && f[0] != "read") {
				if len(got) == 0 {
					return nil, fmt.Errorf("no operation rows after the summary heading (line %q)", line)
				}
				return got, nil
			}
			var v [3]float64
			for i := range v {
				x, err := strconv.ParseFloat(f[i+1], 64)
				if err != nil {
					return nil, fmt.Errorf("summary row %q: field %d: %w", line, i+2, err)
				}
				v[i] = x
			}
			got[f[0]] = rates{Max: v[0], Min: v[1], Mean: v[2]}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("no \"Summary of all tests:\" table with operation rows in the output")
	}
	return got, nil
}
