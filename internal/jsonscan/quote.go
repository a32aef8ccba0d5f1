package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Quote encodes s as a JSON string, leaving <, > and & as they are: they
// are common in commands and outputs, and \u003c would cost tokens.
func Quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
