package log

import "github.com/h5proxy/h5proxy/plan"

// The subfiled layout records the selections each group wrote in this layout's index
// format; these are the parts of the format it uses.

// Selections is a list of (dataset, selection) records in the index format.
type Selections struct{ entries []*logEntry }

// Add records that sel of the dataset at path was written.
func (s *Selections) Add(path string, sel plan.Selection) {
	s.entries = append(s.entries, &logEntry{path: path, sel: sel.Explicit()})
}

// Encode returns the records as one rank's index stream (repeated selections stored once).
func (s *Selections) Encode() ([]byte, error) {
	var b []byte
	for _, e := range prepareStream(s.entries, nil) {
		if err := e.checkEncodable(); err != nil {
			return nil, err
		}
		b = e.encode(b)
	}
	return b, nil
}

// Written is one decoded record.
type Written struct {
	Path      string
	Selection plan.Selection
}

// DecodeSelections parses an index stream written by Encode.
func DecodeSelections(b []byte) ([]Written, error) {
	entries, err := decodeEntries(b, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Written, len(entries))
	for i, e := range entries {
		out[i] = Written{e.path, e.sel}
	}
	return out, nil
}
