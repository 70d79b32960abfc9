package options

import (
	"strings"
	"unicode/utf8"
)

// suggestKey returns the known key nearest to key (case-insensitive edit distance), or ""
// when none is close enough to be a likely typo. known is an Error's Allowed text: lists
// separated by ", ", groups by "; ", each group optionally led by a "label: ".
func suggestKey(key, known string) string {
	best, bestDist := "", -1
	for _, group := range strings.Split(known, ";") {
		if i := strings.LastIndex(group, ":"); i >= 0 {
			group = group[i+1:]
		}
		for _, cand := range strings.Split(group, ",") {
			cand = strings.TrimSpace(cand)
			if cand == "" || strings.ContainsAny(cand, " ()") {
				continue // not a key: free text in the allowed list
			}
			if d := editDistance(strings.ToLower(key), strings.ToLower(cand)); bestDist < 0 || d < bestDist {
				best, bestDist = cand, d
			}
		}
	}
	if bestDist < 0 || bestDist > maxTypos(key) {
		return ""
	}
	return best
}

// maxTypos is how many edits still make a likely typo of key: one for short keys, about
// one per four characters for longer ones, never more than three.
func maxTypos(key string) int {
	return min(3, max(1, utf8.RuneCountInString(key)/4))
}

// editDistance is the optimal-string-alignment distance between a and b: insertions,
// deletions, substitutions and transpositions of adjacent runes ("fiel" is one edit from
// "file"), each costing one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
