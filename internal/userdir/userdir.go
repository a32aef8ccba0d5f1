// Package userdir says where ctxkit keeps a user's data: the archive, the
// playbook.
package userdir

import (
	"os"
	"path/filepath"
	"runtime"
)

// Data is the user's data directory: $XDG_DATA_HOME (when absolute), else
// ~/.local/share; ~/Library/Application Support on macOS; %LocalAppData%
// on Windows. The caller adds ctxkit/ and its file.
func Data() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return os.UserConfigDir()
	case "darwin", "ios":
		return os.UserConfigDir() // ~/Library/Application Support
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}
