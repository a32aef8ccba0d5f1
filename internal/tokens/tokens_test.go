package tokens

import (
	"encoding/base64"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

func TestCountKnownValues(t *testing.T) {
	// Special-token text counts as the ordinary pieces it is made of.
	cases := []struct {
		enc, text string
		want      int
	}{
		{"cl100k_base", "hello world", 2},
		{"o200k_base", "hello world", 2},
		{"cl100k_base", "", 0},
		{"cl100k_base", "<|endoftext|>", 7},
		{"o200k_base", "<|endoftext|>", 7},
		{"approx", "abcdefgh", 2},
		{"approx", "abcdefghi", 3},
		{"approx", "", 0},
	}
	for _, c := range cases {
		ctr, err := New(c.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := ctr.Count(c.text); got != c.want {
			t.Errorf("%s.Count(%q) = %d, want %d", c.enc, c.text, got, c.want)
		}
	}
}

func TestNewRejectsUnknown(t *testing.T) {
	if _, err := New("p50k_nope"); err == nil {
		t.Fatal("New accepted an unknown encoding")
	}
	for _, n := range Names() {
		c, err := New(n)
		if err != nil {
			t.Fatalf("New(%q): %v", n, err)
		}
		if c.Name() != n {
			t.Errorf("New(%q).Name() = %q", n, c.Name())
		}
	}
}

// TestOffline proves nothing is downloaded: with no cache dir and a proxy
// that refuses every connection, counting still works.
func TestOffline(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TIKTOKEN_CACHE_DIR", filepath.Join(dir, "none"))
	t.Setenv("DATA_GYM_CACHE_DIR", filepath.Join(dir, "none"))
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Count("offline counting works"); n == 0 {
			t.Fatalf("%s counted 0 tokens", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Fatal("a cache dir was created: something was fetched")
	}
}

func TestImage(t *testing.T) {
	onePixel := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	if got := Image(onePixel); got != 1 {
		t.Errorf("Image(1x1 png) = %d, want 1", got)
	}
	if got := Image("not an image"); got != MaxImageTokens {
		t.Errorf("Image(garbage) = %d, want %d", got, MaxImageTokens)
	}
	// A 1000x1000 PNG header: 1000*1000/750 = 1334 tokens.
	big := pngHeader(1000, 1000)
	if got := Image(big); got != 1334 {
		t.Errorf("Image(1000x1000) = %d, want 1334", got)
	}
	// 4000x3000 scales down to 1.15 megapixels: 1.15e6/750 = 1534 tokens.
	if got := Image(pngHeader(4000, 3000)); got != 1534 {
		t.Errorf("Image(4000x3000) = %d, want 1534", got)
	}
}

// pngHeader is the base64 of a PNG signature and IHDR chunk for w×h, which is
// all DecodeConfig reads.
func pngHeader(w, h uint32) string {
	ihdr := []byte{0, 0, 0, 13, 'I', 'H', 'D', 'R',
		byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w),
		byte(h >> 24), byte(h >> 16), byte(h >> 8), byte(h),
		8, 6, 0, 0, 0}
	crc := crc32.ChecksumIEEE(ihdr[4:])
	data := append([]byte("\x89PNG\r\n\x1a\n"), ihdr...)
	data = append(data, byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc))
	return base64.StdEncoding.EncodeToString(data)
}
