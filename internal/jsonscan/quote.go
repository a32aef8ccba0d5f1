package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Quote encodes s as a JSON string, leaving <, > and & as they are: they
// are common in commands and outputs, and \u003c would cost tokens. It is
// encoding/json's encoding; an ASCII text, as most summaries are, is
// escaped here without the encoder.
func Quote(s string) string {
	if !ascii(s) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			panic(err) // a string always encodes
		}
		return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[last:i])
		last = i + 1
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
	}
	b.WriteString(s[last:])
	b.WriteByte('"')
	return b.String()
}

const hexDigits = "0123456789abcdef"

// ascii reports whether s is ASCII, which Quote escapes itself.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
