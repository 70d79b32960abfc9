package patterns

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// toyConfig and toy are the smallest pattern built with Define: n steps of nothing.
type toyConfig struct{ N int }

type toy struct {
	Base[toyConfig]
	seen *options.Values
}

func (p *toy) Steps() int                               { return p.C.N }
func (p *toy) Begin(ph Phase, _ Env) (plan.Plan, error) { return plan.Plan{}, p.CheckPhase(ph) }
func (p *toy) Step(ph Phase, _ int, _ Env) (plan.Plan, error) {
	return plan.Plan{}, p.CheckPhase(ph)
}
func (p *toy) End(ph Phase, _ int, _ Env) (plan.Plan, error) { return plan.Plan{}, p.CheckPhase(ph) }

var toyTable = &options.Table{Name: "toy", Specs: []options.Spec{{Key: "n", Kind: options.Int, Default: "2"}, {Key: "fail", Kind: options.Bool}}}

func toyDef(phases []Phase) Def[toyConfig, *toy] {
	return Def[toyConfig, *toy]{Name: "toy", Summary: "a toy", Options: toyTable, Phases: phases,
		Config: func(v *options.Values) (toyConfig, error) {
			if v.Int("n") < 0 {
				return toyConfig{}, v.Errorf("n", "is negative")
			}
			return toyConfig{N: int(v.Int("n"))}, nil
		},
		Init: func(p *toy, v *options.Values) error {
			if v.IsSet("fail") {
				return v.Errorf("fail", "was asked for")
			}
			p.seen = v
			return nil
		}}
}

// TestDefine: the factory carries the name, summary and table; New reads the configuration
// with Config, makes the pattern with a Base whose Name, Phases and C are the definition's
// and the options', and hands it to Init with the parsed values; Config's and Init's
// errors come back as they were.
func TestDefine(t *testing.T) {
	f := Define(toyDef(WriteRead))
	if f.Name != "toy" || f.Summary != "a toy" || f.Options != toyTable {
		t.Fatalf("factory %+v", f)
	}
	v, err := toyTable.Parse([]options.KV{{Key: "n", Value: "5"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.New(v)
	if err != nil {
		t.Fatal(err)
	}
	tp := p.(*toy)
	if tp.Name() != "toy" || tp.Steps() != 5 || tp.C.N != 5 || tp.seen != v || !reflect.DeepEqual(tp.Phases(), []Phase{PhaseWrite, PhaseRead}) {
		t.Errorf("pattern %q, %d steps, C %+v, phases %v, values passed: %v", tp.Name(), tp.Steps(), tp.C, tp.Phases(), tp.seen == v)
	}
	// Phases returns a copy: changing it changes neither the pattern nor WriteRead.
	tp.Phases()[0] = PhaseRead
	if tp.Phases()[0] != PhaseWrite || WriteRead[0] != PhaseWrite {
		t.Errorf("Phases shares its slice: %v, WriteRead %v", tp.Phases(), WriteRead)
	}

	bad, err := toyTable.Parse([]options.KV{{Key: "n", Value: "-1"}})
	if err != nil {
		t.Fatal(err)
	}
	var oe *options.Error
	if _, err := f.New(bad); !errors.As(err, &oe) || oe.Key != "n" || oe.Value != "-1" {
		t.Errorf("Config's error: %v", err)
	}
	fail, err := toyTable.Parse([]options.KV{{Key: "fail", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.New(fail); !errors.As(err, &oe) || oe.Key != "fail" {
		t.Errorf("Init's error: %v", err)
	}
	// Without Init the pattern is its Base and zero values.
	d := toyDef(WriteRead)
	d.Init = nil
	if p, err := Define(d).New(v); err != nil || p.(*toy).seen != nil || p.Name() != "toy" || p.(*toy).C.N != 5 {
		t.Errorf("without Init: %+v, %v", p, err)
	}
}

// TestCheckPhase: a phase the pattern was not defined with is an error naming the pattern
// and the phase; its own phases are not.
func TestCheckPhase(t *testing.T) {
	v, _ := toyTable.Parse(nil)
	p, err := Define(toyDef([]Phase{PhaseWrite})).New(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Begin(PhaseWrite, Env{}); err != nil {
		t.Errorf("write: %v", err)
	}
	if _, err := p.Step(PhaseRead, 0, Env{}); err == nil || err.Error() != "toy: no read phase" {
		t.Errorf("read: %v", err)
	}
}

// TestDefineIncomplete: a definition without a name, table or Config is a programming
// error, caught at package initialization.
func TestDefineIncomplete(t *testing.T) {
	for what, change := range map[string]func(*Def[toyConfig, *toy]){
		"name":   func(d *Def[toyConfig, *toy]) { d.Name = "" },
		"table":  func(d *Def[toyConfig, *toy]) { d.Options = nil },
		"config": func(d *Def[toyConfig, *toy]) { d.Config = nil },
	} {
		d := toyDef(WriteRead)
		change(&d)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "patterns: Define") {
					t.Errorf("without a %s: %v", what, r)
				}
			}()
			Define(d)
		}()
	}
}
