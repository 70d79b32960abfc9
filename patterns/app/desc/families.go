package desc

import "go.yaml.in/yaml/v3"

// File families and per-file hints: a run writing several families of files, each with
// its own cadence and its own numbering (FLASH's checkpoints numbered by checkpoint,
// its plot files by plot, its forced plot file continuing the plot count), and the MPI-IO
// hints a program puts in one file's access list rather than in all of them.

// counterNode declares files.ID.counter: the numbering the variable count follows.
var counterNode = &Node{Key: "counter", Kind: Text,
	Help:    "the numbering that the variable count follows in this file's name (and its other expressions): count is how many times a file of this counter was written before, counted once per step at which a write action of one of the counter's files runs (the actions of one step share a number) and once more for the at: end actions, from 0; files naming the same counter share one numbering (default: the file's own id, so that each family counts its own files, whatever its cadence)",
	Example: `files: {plt: {name: "plt_cnt_${count:04d}"}, forced: {name: "forced_plt_cnt_${count:04d}", counter: plt}}`}

// fileHintsNode declares files.ID.hints: the file's own MPI-IO hints.
var fileHintsNode = &Node{Key: "hints", Kind: Named,
	Help:    "MPI-IO hints this file's access list passes (MPI_Info in H5Pset_fapl_mpio at each of its MPI-IO opens): over the description-wide hints key by key, beneath the session's mpi_info and mpiio.* keys; a file opened without MPI-IO (ranks: 1, writer: rank0) has none",
	Example: `files: {chk: {name: chk.h5, hints: {access_style: write_once, cb_buffer_size: "4194304"}}}`,
	Elem:    &Node{Kind: Literal, Help: "HINT: VALUE (a string)"}}

// hints reads a map of hints (the description's or a file's) at path.
func (p *parser) hints(n *yaml.Node, path string) []Param {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []Param
	keys, vals := pairs(n)
	for i, k := range keys {
		out = append(out, Param{Name: k.Value, Pos: p.pos(k), Value: p.scalar(vals[i], join(path, k.Value))})
	}
	return out
}

// hints writes a map of hints (nil when there are none).
func (wr *writer) hints(hs []Param, path string) *yaml.Node {
	if len(hs) == 0 {
		return nil
	}
	m := wr.mapping(path)
	for _, h := range hs {
		m.add(h.Name, scalarOrList(h.Value))
	}
	return m.node(false)
}

// CounterOf is the counter a file's count follows: its counter key, or its own id.
func (f *File) CounterOf() string {
	if f.Counter.Set && f.Counter.Text != "" {
		return f.Counter.Text
	}
	return f.ID
}

// SetCount sets the variable count (a file family's number) for the expressions that
// follow.
func (s *Scope) SetCount(n int) { s.vars["count"] = n }
