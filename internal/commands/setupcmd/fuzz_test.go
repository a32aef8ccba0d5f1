package setupcmd

import (
	"bytes"
	"testing"
)

// FuzzTOML: whatever config.toml holds, ctx-setup's additions either fail
// (nothing written) or make a file that parses, that a second run leaves
// alone, and from which taking them out gives back the file.
func FuzzTOML(f *testing.F) {
	for _, s := range []string{codexUser, "", "a = 1", "[t]\nb = 2\n", "# c\n", "x = \"\"\"\n[not a table]\n\"\"\"\n", codexConfigExample()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if _, err := parseTOML([]byte(in)); err != nil {
			return
		}
		doc, made, err := addTOML([]byte(in), codexTOML())
		if err != nil {
			return
		}
		if _, again, err := addTOML(doc, codexTOML()); err != nil || len(again) > 0 {
			t.Fatalf("a second run on %q: %v, %v", doc, again, err)
		}
		back, _, err := removeTOML(doc, made)
		if err != nil || !bytes.Equal(bytes.TrimSpace(back), bytes.TrimSpace([]byte(in))) {
			t.Fatalf("%q: added\n%s\ntaken out\n%q (%v)", in, doc, back, err)
		}
	})
}

// FuzzJSON: likewise for a JSON settings file.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{claudeUser, "", "{}", `{"hooks":{"PreToolUse":[]}}`, `{"permissions":{"allow":"x"}}`, "[1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		doc, made, err := addJSON([]byte(in), claudeSettings(false))
		if err != nil {
			return
		}
		if _, again, err := addJSON(doc, claudeSettings(false)); err != nil || len(again) > 0 {
			t.Fatalf("a second run on %s: %v, %v", doc, again, err)
		}
		back, _, err := removeJSON(doc, made)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := parseJSON([]byte(in))
		w, _ := formatJSON(want)
		b, _ := formatJSON(back)
		if !bytes.Equal(w, b) {
			t.Fatalf("%q: taken out\n%s\nwant\n%s", in, b, w)
		}
	})
}
