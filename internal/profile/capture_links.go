package profile

import (
	"path"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// linkCalls are the traced link creations (the library's H5Lcreate_* events).
var linkCalls = map[string]bool{"H5Lcreate_hard": true, "H5Lcreate_soft": true, "H5Lcreate_external": true}

// links collects the links rank 0 created in file at the first step, by the template of
// the group that holds each (as the datasets' groups: /Timestep_${step}), in creation
// order: a hard link names its target's template (H5MD's step and time of one time series
// are another's), a soft link the path it stores, an external link its file and path.
func links(p *Profile, file string, stepOf func(string, string) (string, int, bool)) map[string][]*desc.Link {
	out := map[string][]*desc.Link{}
	seen := map[string]bool{}
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || !linkCalls[e.Call] || e.Object == "" || e.fileStep > 1 {
			continue
		}
		tmpl, n, _ := stepOf(file, e.Object)
		if n != 0 || seen[tmpl] {
			continue
		}
		seen[tmpl] = true
		l := &desc.Link{Name: desc.V(path.Base(tmpl))}
		switch e.Call {
		case "H5Lcreate_hard":
			target, _, _ := stepOf(file, e.Target)
			l.Hard = desc.V(target)
		case "H5Lcreate_soft":
			l.Soft = desc.V(e.Target)
		default:
			l.External = desc.ExternalLink{File: desc.V(e.TargetFile), Path: desc.V(e.Target)}
		}
		parent := path.Dir(tmpl)
		if parent == "." || parent == "" {
			parent = "/"
		}
		out[parent] = append(out[parent], l)
	}
	return out
}
