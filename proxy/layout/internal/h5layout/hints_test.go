package h5layout

import (
	"maps"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// TestHints: a file's own hints join the session's and win over the program's on a key
// both name, while the run configuration's win over the file's; a file without hints of
// its own gets the session's map; neither changes the other's map.
func TestHints(t *testing.T) {
	env := stack.Env{MPIInfo: map[string]string{"cb_nodes": "2", "romio_cb_write": "enable", "cb_buffer_size": "4096"},
		UserInfo: map[string]string{"cb_buffer_size": "4096"}}
	fs := &plan.FileSpec{Info: map[string]string{"access_style": "write_once", "cb_nodes": "8", "cb_buffer_size": "1024"}}
	got := Hints(env, fs)
	want := map[string]string{"access_style": "write_once", "cb_nodes": "8", "romio_cb_write": "enable", "cb_buffer_size": "4096"}
	if !maps.Equal(got, want) {
		t.Errorf("Hints = %v, want %v", got, want)
	}
	if fs.Info["cb_nodes"] != "8" || len(env.MPIInfo) != 3 {
		t.Errorf("the inputs changed: file %v, session %v", fs.Info, env.MPIInfo)
	}
	if got := Hints(env, &plan.FileSpec{}); !maps.Equal(got, env.MPIInfo) {
		t.Errorf("without hints of its own: %v, want the session's %v", got, env.MPIInfo)
	}
	if got := Hints(stack.Env{}, fs); !maps.Equal(got, fs.Info) {
		t.Errorf("without session hints: %v, want the file's %v", got, fs.Info)
	}
}
