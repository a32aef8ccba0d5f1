package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Quote encodes s as a JSON string, leaving <, > and & as they are: they
// are common in commands and outputs, and \u003c would cost tokens. It is
// encoding/json's encoding; a text of printable ASCII without a quote or a
// backslash, as most summaries are, is only put in quotes.
func Quote(s string) string {
	if plain(s) {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// plain reports whether s is printable ASCII without a quote or a
// backslash: what JSON takes as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
