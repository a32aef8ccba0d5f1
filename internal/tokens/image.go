package tokens

import (
	"encoding/base64"
	"image"
	_ "image/gif" // register the decoders DecodeConfig needs
	_ "image/jpeg"
	_ "image/png"
	"math"
	"strings"
)

// MaxImageTokens is what an image costs when its size cannot be read (a URL,
// an unknown format), and the most any image costs.
const MaxImageTokens = 1600

// Image estimates the tokens of an inline image from its base64 data, the way
// Anthropic documents it: width × height / 750, after scaling the image to
// fit 1568 pixels on its long edge and 1.15 megapixels. Models that price
// images otherwise come out close to it for common screenshot sizes.
func Image(base64Data string) int {
	w, h, ok := imageSize(base64Data)
	if !ok || w <= 0 || h <= 0 {
		return MaxImageTokens
	}
	scale := math.Min(1, 1568/math.Max(float64(w), float64(h)))
	scale = math.Min(scale, math.Sqrt(1.15e6/(float64(w)*float64(h))))
	n := int(math.Ceil(float64(w) * scale * float64(h) * scale / 750))
	return max(1, min(n, MaxImageTokens))
}

// imageSize reads the dimensions from the image's header only.
func imageSize(b64 string) (int, int, bool) {
	if len(b64) > 64<<10 { // headers are at the start
		b64 = b64[:64<<10]
	}
	b64 = strings.TrimRight(b64[:len(b64)/4*4], "=")
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.RawStdEncoding, strings.NewReader(b64)))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}
