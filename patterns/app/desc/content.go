package desc

import "slices"

// ContentOf returns the file's or group's content that holds dataset ds (nil when the
// description has no such dataset).
func (d *Description) ContentOf(ds *Dataset) *Content {
	for _, f := range d.Files {
		if c := f.Content.holder(ds); c != nil {
			return c
		}
	}
	return nil
}

// holder returns c, or the content of one of its groups, that holds ds.
func (c *Content) holder(ds *Dataset) *Content {
	if slices.Contains(c.Datasets, ds) {
		return c
	}
	for _, g := range c.Groups {
		if h := g.Content.holder(ds); h != nil {
			return h
		}
	}
	return nil
}
