package patterns

import (
	"fmt"
	"slices"

	"github.com/h5proxy/h5proxy/options"
)

// WriteRead are the phases of a pattern that writes its files, then reads them back: the
// Def.Phases of most patterns (Define copies it; nothing changes it).
var WriteRead = []Phase{PhaseWrite, PhaseRead}

// Def declares one pattern for Define: its registry entry (name, summary, option table),
// how its configuration is read from the parsed options, and what a new pattern of type P
// (the package's *Pattern, which embeds Base[C]) holds beyond it. A pattern's package then
// holds only what is particular to its application: the table, the Config and its checks,
// and the plans.
type Def[C any, P Pattern] struct {
	// Name is the registry name (lowercase), which Base.Name returns.
	Name string
	// Summary is the one line `h5proxy help` lists for the pattern.
	Summary string
	// Options is the pattern's option table.
	Options *options.Table
	// Config reads and validates the configuration from the parsed options; its errors
	// name the key and the value (options.Values.Errorf), before any I/O.
	Config func(v *options.Values) (C, error)
	// Phases are the phases every pattern built supports, which Base.Phases returns. Leave
	// it nil when they depend on the configuration: the pattern's type then has a Phases
	// method of its own.
	Phases []Phase
	// Init completes a new pattern: Define makes it (the zero value of its type, its Base
	// set: name, configuration, phases), Init adds what it keeps beyond the configuration
	// (openpmd's date, e3sm's map file). v is there so that those errors too name the key
	// and the value. Nil: nothing to add.
	Init func(p P, v *options.Values) error
}

// Define returns the registry entry of the pattern d declares; package patterns/all
// registers it. Its New takes the values parsed with d.Options, reads the configuration
// with d.Config, makes a P with its Base set and completes it with d.Init. The type
// parameters are inferred from d: T is the pattern's struct type, P = *T, which embeds
// Base[C] (the unexported method base is Base's).
func Define[C any, T any, P interface {
	*T
	Pattern
	base() *Base[C]
}](d Def[C, P]) Factory {
	if d.Name == "" || d.Options == nil || d.Config == nil {
		panic(fmt.Sprintf("patterns: Define(%q): a pattern needs a name, an option table and a Config function", d.Name))
	}
	phases := slices.Clone(d.Phases)
	return Factory{Name: d.Name, Summary: d.Summary, Options: d.Options, New: func(v *options.Values) (Pattern, error) {
		c, err := d.Config(v)
		if err != nil {
			return nil, err
		}
		p := P(new(T))
		*p.base() = Base[C]{C: c, name: d.Name, phases: phases}
		if d.Init != nil {
			if err := d.Init(p, v); err != nil {
				return nil, err
			}
		}
		return p, nil
	}}
}

// Base is what every pattern's type embeds: its validated configuration C (promoted, so
// a pattern reads p.C) and the answers to Name and Phases that Define fixed. A type whose
// name or phases depend on the configuration declares its own Name or Phases, which
// take precedence over Base's.
type Base[C any] struct {
	// C is the pattern's validated configuration.
	C      C
	name   string
	phases []Phase
}

// base gives Define the Base of a new pattern; being unexported, it also makes Define
// accept only types that embed Base.
func (b *Base[C]) base() *Base[C] { return b }

// Name returns the name the pattern was defined with.
func (b *Base[C]) Name() string { return b.name }

// Phases returns a copy of the phases the pattern was defined with: callers may keep or
// change it.
func (b *Base[C]) Phases() []Phase { return slices.Clone(b.phases) }

// CheckPhase returns an error naming the pattern and the phase when ph is not one of its
// phases: Begin, Step and End of a pattern check the phase they are asked for with it.
func (b *Base[C]) CheckPhase(ph Phase) error {
	if slices.Contains(b.phases, ph) {
		return nil
	}
	return fmt.Errorf("%s: no %s phase", b.name, ph)
}
