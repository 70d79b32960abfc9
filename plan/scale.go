package plan

import (
	"fmt"
	"strings"
)

// ScaleSpec is what a Scale operation does to the dataset at Op.Path, as HDF5's
// high-level H5DS functions do and netCDF-4 calls them for its dimensions: with Attach
// empty, make it a dimension scale (H5DSset_scale: the attribute CLASS, "DIMENSION_SCALE",
// and NAME when Named); else attach the dimension scale at the absolute path Attach to
// its dimension Dim (H5DSattach_scale: the dataset's DIMENSION_LIST and the scale's
// REFERENCE_LIST record the pair).
type ScaleSpec struct {
	Name   string
	Named  bool
	Attach string
	Dim    int
}

func init() { opNames[Scale] = "scale" }

// String renders the operation's arguments for plan listings.
func (s *ScaleSpec) String() string {
	if s.Attach == "" {
		if !s.Named {
			return "set-scale"
		}
		return fmt.Sprintf("set-scale name=%q", s.Name)
	}
	return fmt.Sprintf("attach %s dim=%d", s.Attach, s.Dim)
}

func (s *ScaleSpec) validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("missing scale")
	case s.Attach != "" && !strings.HasPrefix(s.Attach, "/"):
		return fmt.Errorf("dimension scale %q is not an absolute path", s.Attach)
	case s.Dim < 0:
		return fmt.Errorf("negative dimension %d", s.Dim)
	case s.Attach != "" && s.Named:
		return fmt.Errorf("an attach names no scale")
	}
	return nil
}
