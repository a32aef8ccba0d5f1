package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Quote encodes s as a JSON string, leaving <, > and & as they are: they
// are common in commands and outputs, and \u003c would cost tokens. It is
// encoding/json's encoding; a text of valid UTF-8, as summaries are, is
// escaped here without the encoder.
func Quote(s string) string {
	if !utf8.ValidString(s) {
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
		if c >= 0x80 {
			// encoding/json escapes two characters that end lines in
			// JavaScript, and takes the rest of UTF-8 as it is.
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == '\u2028' || r == '\u2029' {
				b.WriteString(s[last:i])
				b.WriteString(`\u202`)
				b.WriteByte(hexDigits[r&0xf])
				last = i + n
			}
			i += n - 1
			continue
		}
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
