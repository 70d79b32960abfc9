package profile

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// fileWays is what a file's traced opens, closes and access lists say of how the program
// reached its objects, in the description's words (docs/apps.md: a file's create,
// collective_metadata and handles keys).
type fileWays struct {
	// known: the trace has each open's access list (else only the defaults are said).
	known bool
	// wOps, wWrite: the writing opens asked for collective metadata reads, writes.
	wOps, wWrite bool
	// rank0 is a file rank 0 created alone with a serial (non-MPI-IO) driver and every
	// rank then opened (create: rank0); serial are the datasets rank 0 created in that
	// serial part (create: {by: rank0, datasets: [...]}).
	rank0  bool
	serial []string
	// serialWriter is a file rank 0 alone created and wrote with a serial driver, the
	// other ranks never opening it (writer: rank0: H5MD writers).
	serialWriter bool
	// collMeta is the collective_metadata value ("", "true", "read").
	collMeta string
	// holdCall: datasets closed after their creation and opened again for their writes;
	// reopen: attributes written through H5Oopen ... H5Oclose; parents: objects created in
	// their parent group opened by path around the create.
	holdCall, reopen, parents bool
	// reopened are the attributes (OBJECT@NAME) created on an object opened with H5Oopen.
	reopened map[string]bool
	// handleWrites is the most transfers rank 0 made through one dataset handle; with
	// steps, a file whose objects are held from their creation to the file's close
	// (holdFile: handles hold: file, as H5MD writers keep theirs).
	handleWrites int
	holdFile     bool
	// reopenSeries: a series dataset written through a handle, closed, then opened again
	// in the same open of the file and extended (handles series: reopen: PETSc's VecView
	// at each time step), where a code holding record variables keeps one handle.
	reopenSeries bool
	// guesses are the inferences the trace does not settle, written as comments.
	guesses []string
}

// fileOpen is one H5Fcreate or H5Fopen of a file on one rank and what happened before its
// close.
type fileOpen struct {
	call    string
	fapl    *FAPL
	writes  bool // H5Dcreate or H5Dwrite before the close
	reads   bool
	creates []string // datasets created (paths)
}

// opensOf splits the file's events on each rank into its opens, in order.
func opensOf(p *Profile, file string) map[int][]*fileOpen {
	out := map[int][]*fileOpen{}
	cur := map[int]*fileOpen{}
	for _, e := range p.Events {
		if e.File != file {
			continue
		}
		switch {
		case e.Call == "H5Fcreate" || e.Call == "H5Fopen":
			o := &fileOpen{call: e.Call, fapl: e.FAPL}
			out[e.Rank] = append(out[e.Rank], o)
			cur[e.Rank] = o
		case e.Call == "H5Fclose":
			cur[e.Rank] = nil
		case cur[e.Rank] == nil:
		case strings.HasPrefix(e.Call, "H5Dcreate"):
			cur[e.Rank].writes = true
			cur[e.Rank].creates = append(cur[e.Rank].creates, e.Name)
		case h5dTransfers[e.Call]:
			cur[e.Rank].writes = true
		case e.Call == "H5Dread" || e.Call == "H5Dread_multi":
			cur[e.Rank].reads = true
		}
	}
	return out
}

// inferWays reads file's creation, access lists and handles from the trace (nranks
// ranks). Traces of libraries older than the H5Gclose, H5Oopen and access-list events say
// nothing: the zero fileWays, today's defaults.
func inferWays(p *Profile, file string, nranks int) fileWays {
	var w fileWays
	opens := opensOf(p, file)
	r0 := opens[0]
	if len(r0) == 0 || r0[0].fapl == nil {
		return w
	}
	w.known = true
	// writer: rank0: rank 0 alone, serially, and no other rank opens the file.
	w.serialWriter = !slices.ContainsFunc(r0, func(o *fileOpen) bool { return o.fapl == nil || o.fapl.Driver == "mpio" })
	for r := 1; r < nranks; r++ {
		w.serialWriter = w.serialWriter && len(opens[r]) == 0
	}
	if w.serialWriter {
		w.handlesOf(p, file)
		return w
	}
	// create: rank0: rank 0 alone creates it serially, then every rank opens it.
	if r0[0].call == "H5Fcreate" && r0[0].fapl.Driver != "mpio" && len(r0) > 1 {
		w.rank0 = true
		for r := 1; r < nranks; r++ {
			ro := opens[r]
			if len(ro) == 0 || ro[0].call != "H5Fopen" {
				w.rank0 = false
			}
		}
		if w.rank0 {
			w.serial = r0[0].creates
			r0 = r0[1:]
		}
	}
	// collective_metadata: what the shared opens asked for, on writing and reading opens.
	var rOps, anyWrite bool
	for _, o := range r0 {
		if o.fapl == nil {
			continue
		}
		if o.writes || o.call == "H5Fcreate" {
			anyWrite = true
			w.wOps, w.wWrite = w.wOps || o.fapl.CollOps, w.wWrite || o.fapl.CollWrite
		} else {
			rOps = rOps || o.fapl.CollOps
		}
	}
	switch {
	case w.wOps || w.wWrite:
		w.collMeta = "true"
	case rOps && anyWrite:
		w.collMeta = "read"
	case rOps:
		w.collMeta = "true" // a file only read: true and read ask the same of its opens
	}
	w.handlesOf(p, file)
	return w
}

// handlesOf reads, from rank 0's events of the file, whether datasets are closed after
// their creation and reopened per write (hold: call), attributes written on objects opened
// with H5Oopen (attributes: reopen), objects created in their parent group opened
// around the create (open_parents), and the most transfers made through one handle.
func (w *fileWays) handlesOf(p *Profile, file string) {
	created := map[string]bool{}       // datasets created and since closed (in this open of the file)
	reopened := map[string]bool{}      // created datasets opened again
	direct := map[string]bool{}        // datasets this open created
	var viaReopen, viaCreate []string  // datasets written through a reopen, on their creation's handle
	open := map[string]bool{}          // datasets open now
	oopen := map[string]bool{}         // objects opened with H5Oopen
	gopen := map[string]bool{}         // groups opened with H5Gopen2
	through := map[string]int{}        // transfers through a dataset's open handle
	wroteDirect := map[string]bool{}   // datasets written through their creation's handle
	closedWritten := map[string]bool{} // datasets written through a handle since closed
	againWritten := map[string]bool{}  // those opened again (extended next: a reopened series)
	inSerial := w.rank0
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file {
			continue
		}
		if h5dTransfers[e.Call] && open[e.Name] {
			through[e.Name]++
			w.handleWrites = max(w.handleWrites, through[e.Name])
		}
		switch {
		case e.Call == "H5Fcreate":
			inSerial = w.rank0 // each file of a file per step is created serially
		case e.Call == "H5Fclose":
			inSerial = false
			clear(created)
			clear(reopened)
			clear(direct)
			clear(wroteDirect)
			clear(open)
			clear(through)
			clear(closedWritten)
			clear(againWritten)
		case inSerial:
			// the serial creation's objects are held as create: rank0 holds them
		case strings.HasPrefix(e.Call, "H5Dcreate"):
			open[e.Name], direct[e.Name] = true, true
			if gopen[path.Dir(e.Name)] {
				w.parents = true
			}
		case e.Call == "H5Dset_extent" && againWritten[e.Name]:
			w.reopenSeries = true
		case strings.HasPrefix(e.Call, "H5Dopen"):
			againWritten[e.Name] = closedWritten[e.Name]
			reopened[e.Name] = created[e.Name]
			direct[e.Name] = false
			open[e.Name] = true
		case h5dTransfers[e.Call] && reopened[e.Name]:
			w.holdCall = true // written through a reopen of what this open created
			if !slices.Contains(viaReopen, e.Name) {
				viaReopen = append(viaReopen, e.Name)
			}
		case h5dTransfers[e.Call] && direct[e.Name] && open[e.Name]:
			wroteDirect[e.Name] = true
			if !slices.Contains(viaCreate, e.Name) {
				viaCreate = append(viaCreate, e.Name)
			}
		case e.Call == "H5Dclose":
			// closed after its creation before any write on that handle: a reopen to
			// write it is hold: call's (a dataset written, closed and opened again at the
			// next step, as PETSc's, is held per action)
			if open[e.Name] && direct[e.Name] && !wroteDirect[e.Name] {
				created[e.Name] = true
			}
			closedWritten[e.Name] = through[e.Name] > 0
			delete(open, e.Name)
			delete(through, e.Name)
		case groupCreate(e.Call):
			if gopen[path.Dir(e.Object)] {
				w.parents = true
			}
		case e.Call == "H5Gopen2":
			gopen[e.Object] = true
		case e.Call == "H5Gclose":
			delete(gopen, e.Object)
		case e.Call == "H5Oopen":
			oopen[e.Object] = true
		case e.Call == "H5Oclose":
			delete(oopen, e.Object)
		case e.Call == "H5Acreate2" && len(e.Attribute) > 0:
			var a struct{ Object, Name string }
			if json.Unmarshal(e.Attribute, &a) == nil && oopen[a.Object] {
				w.reopen = true
				if w.reopened == nil {
					w.reopened = map[string]bool{}
				}
				w.reopened[a.Object+"@"+a.Name] = true
			}
		}
	}
	// create: rank0 opens the groups of the datasets after its open by itself.
	if w.rank0 && !w.holdCall {
		w.parents = false
	}
	if w.holdCall && len(viaCreate) > 0 {
		w.guesses = append(w.guesses, fmt.Sprintf("hold: call: %d datasets were written through a reopen after their creation (%s first), %d on their creation's handle (%s first); the description reopens them all",
			len(viaReopen), viaReopen[0], len(viaCreate), viaCreate[0]))
	}
}

// serialDataset says whether template t is one of the datasets rank 0 wrote in the
// serial creation (their writes leave the timeline).
func (w fileWays) serialDataset(t string) bool {
	return slices.Contains(w.serial, t)
}

// markIndependent marks the datasets written independently alone in a file whose other
// datasets of the same cadence are written collectively: one write action then writes
// both in the program's order, these with independent: true (AMReX's box list, written by
// rank 0 between the collective writes of the cell data). Files with series (steps made
// of H5Dset_extent, as E3SM-IO's record variables) keep one action per transfer mode and
// cadence: their round trip is equal so, and one action moves HDF5's metadata writes.
// The datasets of a serial creation (create: {by: rank0, datasets}) are written there.
func markIndependent(ds map[string]*capDataset, w fileWays) {
	coll := false
	for _, d := range ds {
		if d.series || d.once {
			return
		}
		coll = coll || len(d.writes) > 0 && d.coll
	}
	for t, d := range ds {
		d.independent = coll && len(d.writes) > 0 && d.indep && !d.coll && !w.serialDataset(t)
	}
}

// groupCreate reports whether call creates a group: H5Gcreate2, or the 1.6 API's
// H5Gcreate1 (MACSio's plugin).
func groupCreate(call string) bool { return call == "H5Gcreate2" || call == "H5Gcreate1" }

// groupsOf are the templates of file's groups in the order rank 0 created them (the
// H5Gcreate2 events' paths), then those that carry attributes without an H5Gcreate2
// event (traces of older libraries), sorted: a group holding attributes alone is the
// file's too (AMReX's Chombo_global).
func groupsOf(p *Profile, file string, ds map[string]*capDataset, attrs map[string][]*capAttr, stepOf func(string, string) (string, int, bool)) []string {
	var out []string
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || !groupCreate(e.Call) || e.Object == "" || e.fileStep > 1 {
			continue
		}
		t, n, _ := stepOf(file, e.Object+"/x")
		if t = strings.TrimSuffix(t, "/x"); n == 0 && t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(attrs)) {
		if t != "/" && ds[t] == nil && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// readSteps are the steps whose stepped groups (Timestep_N) rank 0 read in file, in the
// order it first read them (none when it read no stepped dataset).
func readSteps(p *Profile, file string, stepOf func(string, string) (string, int, bool)) []int {
	var out []int
	for _, e := range p.Events {
		if write, transfer := h5dTransfers[e.Call]; e.Rank != 0 || e.File != file || !transfer || write {
			continue
		}
		_, n, stepped := stepOf(file, e.Name)
		if e.fileStep > 0 {
			n, stepped = e.fileStep-1, true
		}
		if stepped && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// fileNumber splits a file's base name into the text around its last run of digits.
var fileNumber = regexp.MustCompile(`^(.*?)(\d+)(\.[^.]*)?$`)

// fileFamilies lists the written files whose names differ only in a number and that hold
// the same datasets but were not folded into a file per step (foldFilesPerStep: their
// numbers are not the steps 0..N-1): the description keeps one file each.
func (c *Description) fileFamilies(files []string, ds map[string]map[string]*capDataset, written func(string) bool) {
	family := map[string][]string{}
	var keys []string
	for _, f := range files {
		m := fileNumber.FindStringSubmatch(filepath.Base(f))
		if m == nil || !written(f) {
			continue
		}
		k := filepath.Join(filepath.Dir(f), m[1]+"#"+m[3]) + "\x00" + strings.Join(slices.Sorted(maps.Keys(ds[f])), "\x00")
		if family[k] == nil {
			keys = append(keys, k)
		}
		family[k] = append(family[k], filepath.Base(f))
	}
	for _, k := range keys {
		if fs := family[k]; len(fs) > 1 {
			c.unexpressed("", fmt.Sprintf("%s: names that differ in a number other than the steps 0..N-1, written as %d files (a name per step counts from 0)", strings.Join(fs, ", "), len(fs)))
		}
	}
}
