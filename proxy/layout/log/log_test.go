package log

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
)

// TestAnchorSpec: creation properties survive an anchor of format 2 (_anchor) and are
// read back from one of format 1 (_dims, _mdims, _chunk, _deflate, _fill_never).
func TestAnchorSpec(t *testing.T) {
	f, err := h5.CreateFile(filepath.Join(t.TempDir(), "anchors.h5"), h5.Access{})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	specs := []plan.DatasetSpec{
		{Type: plan.F64, Shape: []uint64{4, 5}},
		{Type: plan.I32, Shape: []uint64{0, 72, 866}, MaxShape: []uint64{plan.MaxUnlimited, 72, 866}, Chunk: []uint64{1, 72, 866}, Deflate: 4, FillNever: true},
		{Type: plan.U8, Shape: []uint64{}, FillNever: true},
		{Type: plan.I8, Shape: []uint64{3}, FillNever: true, FillUndefined: true},
		{Type: plan.F64, Shape: []uint64{2}, FillUndefined: true},
	}
	for i, d := range specs {
		for _, format := range []int{1, 2} {
			if format == 1 && d.FillUndefined {
				continue // format 1 has no attribute for it
			}
			path := "/v" + string(rune('a'+i)) + string(rune('0'+format))
			id, err := h5.CreateNullDataset(f, path, d.Type)
			if err != nil {
				t.Fatal(err)
			}
			if format == 2 {
				err = writeAnchor(id, &d)
			} else {
				max := d.MaxShape
				if max == nil {
					max = d.Shape
				}
				attrs := []plan.AttributeSpec{h5layout.Int64Attr("_dims", h5layout.ToInt64(d.Shape)), h5layout.Int64Attr("_mdims", h5layout.ToInt64(max))}
				if d.Chunk != nil {
					attrs = append(attrs, h5layout.Int64Attr("_chunk", h5layout.ToInt64(d.Chunk)))
				}
				if d.Deflate > 0 {
					attrs = append(attrs, h5layout.Int64Attr("_deflate", []int64{int64(d.Deflate)}))
				}
				if d.FillNever {
					attrs = append(attrs, h5layout.Int64Attr("_fill_never", []int64{1}))
				}
				for _, a := range attrs {
					if err = h5.WriteAttribute(id, a); err != nil {
						break
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := anchorSpec(id, path)
			h5.CloseDataset(id)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			want := d
			if want.MaxShape == nil {
				want.MaxShape = want.Shape
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("format %d: anchor of %+v read back as %+v", format, d, *got)
			}
		}
	}
}
