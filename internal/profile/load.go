package profile

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeProfile decodes a merged profile's JSON (WriteJSON's) into p, its events by a
// scanner of their own: a traced profile of 10^5 HDF5 calls holds 1.5*10^5 events, which
// encoding/json's reflection decoded at about 2 s of CPU (most of `h5proxy capture -from`'s
// time; bench/capture). Everything but "events" goes through encoding/json as before.
//
// The scanner takes only what WriteJSON writes: the keys of Event's JSON tags, spelt
// exactly, with values of their fields' types. Anything else (a key in another case, a
// null, a number out of range, a string with escapes or invalid UTF-8, malformed JSON)
// sends the whole document to json.Unmarshal, so the result and the errors are what
// encoding/json gives in every case.
func decodeProfile(b []byte, p *Profile) error {
	if fastProfile(b, p) {
		return nil
	}
	*p = Profile{}
	return json.Unmarshal(b, p)
}

// fastProfile decodes b into p when it can; false when it cannot say for sure (p then
// holds a partial result to be discarded).
func fastProfile(b []byte, p *Profile) bool {
	s := scanner{b: b, intern: map[string]string{}}
	s.space()
	if !s.byte('{') {
		return false
	}
	// rest is the top-level object without "events", for encoding/json
	rest := []byte{'{'}
	var events []Event
	sawEvents := false
	for first := true; ; first = false {
		s.space()
		if s.byte('}') {
			break
		}
		if !first && !(s.byte(',') && s.spaced()) {
			return false
		}
		keyStart := s.i
		key, ok := s.plainString()
		if !ok {
			return false
		}
		rawKey := b[keyStart:s.i]
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		if string(key) == "events" {
			if sawEvents {
				return false
			}
			sawEvents = true
			if events, ok = s.events(); !ok {
				return false
			}
			continue
		}
		if bytes.EqualFold(key, []byte("events")) {
			return false // encoding/json would fill Events from it: let it
		}
		valStart := s.i
		if !s.skip() {
			return false
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(rest, rawKey...)
		rest = append(rest, ':')
		rest = append(rest, b[valStart:s.i]...)
	}
	s.space()
	if s.i != len(b) {
		return false
	}
	rest = append(rest, '}')
	if json.Unmarshal(rest, p) != nil {
		return false
	}
	p.Events = events
	return true
}

// scanner reads JSON from b at i. Its methods return false on anything they do not take,
// leaving i anywhere.
type scanner struct {
	b []byte
	i int
	// intern holds one copy of each string met: a trace repeats a few file, call and
	// dataset names 10^5 times.
	intern map[string]string
	depth  int // of skip's nesting
}

// maxDepth bounds the nesting skip follows, below encoding/json's own limit (10000), so
// that what it refuses is refused by encoding/json's rules.
const maxDepth = 1000

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// spaced skips white space and says true (for chaining after a comma).
func (s *scanner) spaced() bool {
	s.space()
	return true
}

// byte consumes c if it is next.
func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string without escapes, of valid UTF-8 and no control characters
// (which encoding/json would refuse or rewrite), and returns its bytes.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for ; s.i < len(s.b); s.i++ {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c < 0x20 || c == '\\':
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str reads a plain string as a Go string, one copy per distinct value.
func (s *scanner) str() (string, bool) {
	v, ok := s.plainString()
	if !ok {
		return "", false
	}
	if t, ok := s.intern[string(v)]; ok {
		return t, true
	}
	t := string(v)
	s.intern[t] = t
	return t, true
}

// number reads a JSON number's text (RFC 8259's grammar, as encoding/json checks it).
func (s *scanner) number() ([]byte, bool) {
	start := s.i
	s.byte('-')
	switch {
	case s.byte('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false
	}
	if s.byte('.') {
		if s.digits() == 0 {
			return nil, false
		}
	}
	if s.byte('e') || s.byte('E') {
		if !s.byte('+') {
			s.byte('-')
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// integer reads a number that encoding/json would store in an int64.
func (s *scanner) integer() (int64, bool) {
	t, ok := s.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(t), 10, 64)
	return v, err == nil
}

// float reads a number as encoding/json stores it in a float64 (strconv.ParseFloat).
func (s *scanner) float() (float64, bool) {
	t, ok := s.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(t), 64)
	return v, err == nil
}

func (s *scanner) boolean() (bool, bool) {
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		s.i += 4
		return true, true
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		s.i += 5
		return false, true
	}
	return false, false
}

// skip passes one JSON value, checking it as encoding/json would.
func (s *scanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{' || c == '[':
		if s.depth++; s.depth > maxDepth {
			return false
		}
		defer func() { s.depth-- }()
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.i++
		s.space()
		if s.byte(closing) {
			return true
		}
		for {
			s.space()
			if c == '{' {
				if !s.skipString() {
					return false
				}
				s.space()
				if !s.byte(':') {
					return false
				}
				s.space()
			}
			if !s.skip() {
				return false
			}
			s.space()
			if s.byte(closing) {
				return true
			}
			if !s.byte(',') {
				return false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, ok := s.number()
		return ok
	case c == 't' || c == 'f':
		_, ok := s.boolean()
		return ok
	case c == 'n':
		if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
			s.i += 4
			return true
		}
	}
	return false
}

// skipString passes a string, escapes included, refusing what encoding/json refuses
// (control characters, unknown escapes). Invalid UTF-8 passes: encoding/json accepts it.
func (s *scanner) skipString() bool {
	if !s.byte('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// raw reads a value as encoding/json fills a json.RawMessage: its bytes as written (a
// slice of the document, capped so that an append copies).
func (s *scanner) raw() (json.RawMessage, bool) {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return nil, false // null: encoding/json's own rules
	}
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return json.RawMessage(s.b[start:s.i:s.i]), true
}

// viaJSON decodes one value into v with encoding/json (the rare fields: a slice, a
// pointer), as decoding the whole document would.
func (s *scanner) viaJSON(v any) bool {
	start := s.i
	if !s.skip() {
		return false
	}
	return json.Unmarshal(s.b[start:s.i], v) == nil
}

// events reads the array of events into one slice made once, its length guessed from the
// events in the first MiB ahead (growing a slice of 10^5 events copied it many times;
// counting them all took a tenth of the load).
func (s *scanner) events() ([]Event, bool) {
	if !s.byte('[') {
		return nil, false
	}
	ahead := s.b[s.i:]
	sample := ahead[:min(len(ahead), 1<<20)]
	guess := bytes.Count(sample, []byte(`"call":`))
	guess += guess * (len(ahead) - len(sample)) / max(len(sample), 1) / 16 * 17 // and 1/16 more
	out := make([]Event, 0, guess)
	s.space()
	if s.byte(']') {
		return out, true // as encoding/json leaves an empty array: empty, not nil
	}
	for {
		s.space()
		out = append(out, Event{})
		if !s.event(&out[len(out)-1]) {
			return nil, false
		}
		s.space()
		if s.byte(']') {
			return out, true
		}
		if !s.byte(',') {
			return nil, false
		}
	}
}

// ints reads an array of integers into *v as encoding/json does: null makes it nil, an
// array reuses *v's storage.
func (s *scanner) ints(v *[]int64) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		*v = nil
		return true
	}
	if !s.byte('[') {
		return false
	}
	out := (*v)[:0]
	if out == nil {
		out = make([]int64, 0, 4) // an extent's rank is small
	}
	s.space()
	if !s.byte(']') {
		for {
			s.space()
			n, ok := s.integer()
			if !ok {
				return false
			}
			out = append(out, n)
			s.space()
			if s.byte(']') {
				break
			}
			if !s.byte(',') {
				return false
			}
		}
	}
	*v = out
	return true
}

// event reads one event object.
func (s *scanner) event(e *Event) bool {
	if !s.byte('{') {
		return false
	}
	s.space()
	if s.byte('}') {
		return true
	}
	for {
		s.space()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		switch string(key) {
		case "rank":
			var v int64
			v, ok = s.integer()
			e.Rank = int(v)
		case "module":
			e.Module, ok = s.str()
		case "call":
			e.Call, ok = s.str()
		case "file":
			e.File, ok = s.str()
		case "name":
			e.Name, ok = s.str()
		case "offset":
			e.Offset, ok = s.integer()
		case "length":
			e.Length, ok = s.integer()
		case "start":
			e.Start, ok = s.float()
		case "end":
			e.End, ok = s.float()
		case "collective":
			e.Collective, ok = s.boolean()
		case "untimed":
			e.Untimed, ok = s.boolean()
		case "selection":
			e.Selection, ok = s.raw()
		case "attribute":
			e.Attribute, ok = s.raw()
		case "object":
			e.Object, ok = s.str()
		case "target":
			e.Target, ok = s.str()
		case "target_file":
			e.TargetFile, ok = s.str()
		case "ref":
			e.Ref, ok = s.str()
		case "refs":
			e.Refs, ok = s.str()
		case "extent":
			ok = s.ints(&e.Extent)
		case "crt_order":
			ok = s.viaJSON(&e.CrtOrder)
		case "box":
			ok = s.viaJSON(&e.Box)
		case "fapl":
			ok = s.viaJSON(&e.FAPL)
		default:
			// unknown to this h5proxy, or spelt in another case (which encoding/json
			// matches): its rules decide
			return false
		}
		if !ok {
			return false
		}
		s.space()
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}
