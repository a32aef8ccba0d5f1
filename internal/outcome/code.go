package outcome

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Code is a command's exit status where it is known; the zero Code is
// unknown (a tool that has no such thing, an output that does not say).
// Its JSON is the number, or null; with omitzero, an unknown code is left
// out.
type Code struct {
	n     int
	known bool
}

// ExitCode is the known exit status n.
func ExitCode(n int) Code { return Code{n: n, known: true} }

// Get returns the exit status and whether it is known.
func (c Code) Get() (int, bool) { return c.n, c.known }

// Known reports whether the exit status is known.
func (c Code) Known() bool { return c.known }

// Nonzero reports whether the exit status is known and not 0: the command
// failed.
func (c Code) Nonzero() bool { return c.known && c.n != 0 }

// IsZero reports whether the code is unknown, for encoding/json's omitzero.
func (c Code) IsZero() bool { return !c.known }

// String is the number, or "" when unknown.
func (c Code) String() string {
	if !c.known {
		return ""
	}
	return strconv.Itoa(c.n)
}

// MarshalJSON writes the number, or null.
func (c Code) MarshalJSON() ([]byte, error) {
	if !c.known {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(c.n), 10), nil
}

// UnmarshalJSON reads a number, or null for unknown.
func (c *Code) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		*c = Code{}
		return nil
	}
	var n int
	if err := json.Unmarshal(data, &n); err != nil {
		return err
	}
	*c = ExitCode(n)
	return nil
}

// Status says how a call ended, in the words every report uses: "failed,
// exit 1", "failed", "exit 0"; "" when it did not fail and no exit code is
// known.
func Status(failed bool, c Code) string {
	switch {
	case failed && c.known:
		return "failed, exit " + strconv.Itoa(c.n)
	case failed:
		return "failed"
	case c.known:
		return "exit " + strconv.Itoa(c.n)
	}
	return ""
}
