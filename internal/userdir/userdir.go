// Package userdir says where ctxkit keeps a user's files: its data (the
// archive, the playbook) under the user's data directory, and what it can
// make again (hooks' state, a model's cached answers, agents installed for
// the tests) under the user's cache directory. Every path of ctxkit's own
// is made here, so that they all move together.
package userdir

import (
	"os"
	"path/filepath"
	"runtime"
)

// app is the directory of ctxkit's own in the user's directories.
const app = "ctxkit"

// DataFile is ctxkit/NAME in the user's data directory (Data).
func DataFile(name string) (string, error) {
	dir, err := Data()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, app, name), nil
}

// CacheDir is the directory that the environment variable env names, when
// it is set, else ctxkit/NAME in the user's cache directory
// (~/.cache/ctxkit/NAME on Linux). env may be "".
func CacheDir(env, name string) (string, error) {
	if env != "" {
		if dir := os.Getenv(env); dir != "" {
			return dir, nil
		}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, app, name), nil
}

// Data is the user's data directory: $XDG_DATA_HOME (when absolute), else
// ~/.local/share; ~/Library/Application Support on macOS; %LocalAppData%
// on Windows.
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
