package userdir

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestData(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("the XDG layout is for the other systems")
	}
	t.Setenv("XDG_DATA_HOME", "/srv/data")
	if d, err := Data(); err != nil || d != "/srv/data" {
		t.Errorf("with XDG_DATA_HOME: %q, %v; want /srv/data", d, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative/data") // not absolute: ignored, as the spec says
	t.Setenv("HOME", "/home/dev")
	if d, err := Data(); err != nil || d != filepath.Join("/home/dev", ".local", "share") {
		t.Errorf("without an absolute XDG_DATA_HOME: %q, %v; want /home/dev/.local/share", d, err)
	}
}
