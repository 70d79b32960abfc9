package concat

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// Breakdown is what a concatenation did and where its time went. Times are in seconds, the
// maximum over ranks of each step (so they need not add up to Total). Decompressing the
// inputs happens inside H5Dread and is part of DataRead; compressing the output happens
// inside the collective H5Dwrite and is part of Write: HDF5 1.10 does not time its filters
// separately.
type Breakdown struct {
	// MetadataRead opens the inputs, reads their schemas and row counts, checks them
	// against the first input's and sums the row counts over ranks (MPI_Allreduce).
	MetadataRead float64 `json:"metadata_read_s"`
	// Create creates the output file, its groups, datasets and attributes.
	Create float64 `json:"create_s"`
	// DataRead reads (and decompresses) the inputs' data into the write buffers.
	DataRead float64 `json:"data_read_s"`
	// Write writes (and compresses) every dataset collectively and closes it.
	Write float64 `json:"write_s"`
	// Close closes the output (flushing its metadata) and the inputs.
	Close float64 `json:"close_s"`
	// Total is the whole run, from the first check to the last close.
	Total float64 `json:"total_s"`

	Ranks int `json:"ranks"`
	Files int `json:"files"`
	// Groups counts the groups below the root.
	Groups int `json:"groups"`
	// Datasets counts the concatenated datasets; Datasets2D those of rank 2 or more;
	// Empty those empty in every input; Keys the partition key datasets added.
	Datasets   int `json:"datasets"`
	Datasets2D int `json:"datasets_2d"`
	Empty      int `json:"empty_datasets"`
	Keys       int `json:"key_datasets"`
	// Rows is the sum of the output datasets' first extents; Bytes their data size
	// (uncompressed), partition keys excluded.
	Rows  uint64 `json:"rows"`
	Bytes uint64 `json:"bytes"`
	// Options are the tuning options of the run, by Table key.
	Options map[string]string `json:"options"`
}

// reduce replaces each time by its maximum over ranks.
func (j *job) reduce() error {
	b := &j.b
	t := []*float64{&b.MetadataRead, &b.Create, &b.DataRead, &b.Write, &b.Close, &b.Total}
	in := make([]float64, len(t))
	for i, p := range t {
		in[i] = *p
	}
	out, err := j.comm.AllreduceFloat64(in, mpi.OpMax)
	if err != nil {
		return err
	}
	for i, p := range t {
		*p = out[i]
	}
	return nil
}

// WriteText prints the breakdown as a table of steps and the counts.
func (b Breakdown) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	pct := func(v float64) string {
		if b.Total <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*v/b.Total)
	}
	fmt.Fprintf(tw, "step\tseconds (max over ranks)\tshare\t\n")
	for _, s := range []struct {
		name string
		v    float64
	}{
		{"metadata read", b.MetadataRead}, {"dataset create", b.Create},
		{"data read (+inflate)", b.DataRead}, {"write (+deflate)", b.Write},
		{"close", b.Close}, {"total", b.Total},
	} {
		fmt.Fprintf(tw, "%s\t%.4f\t%s\t\n", s.name, s.v, pct(s.v))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var opts []string
	for _, s := range Table.Specs {
		opts = append(opts, s.Key+"="+b.Options[s.Key])
	}
	fmt.Fprintf(w, "options: %s\n", strings.Join(opts, " "))
	_, err := fmt.Fprintf(w, "%d files on %d ranks: %d groups, %d datasets (%d of rank 2, %d empty), %d partition keys, %d rows, %d bytes\n",
		b.Files, b.Ranks, b.Groups, b.Datasets, b.Datasets2D, b.Empty, b.Keys, b.Rows, b.Bytes)
	return err
}

// WriteJSON writes the breakdown as one JSON object.
func (b Breakdown) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(b)
}
