package count

import (
	"fmt"
	"math/big"
)

// sumPrec holds the exact sum of any float64s: their bits span 2^-1074 to
// 2^1024, and the carries of 2^100 of them fit in the rest.
const sumPrec = 2200

// Sum is an exact sum of float64s (dollars). A running float64 sum depends
// on the order of its terms; this one does not, so that the costs of many
// files added up in parts (ctx-count --partial, then --merge) are those of
// all of them added up in one run, to the last bit. The zero Sum is 0.
type Sum struct {
	f *big.Float
}

func (s *Sum) big() *big.Float {
	if s.f == nil {
		s.f = new(big.Float).SetPrec(sumPrec)
	}
	return s.f
}

// Add adds x.
func (s *Sum) Add(x float64) {
	s.big().Add(s.big(), new(big.Float).SetFloat64(x))
}

// Plus adds another sum.
func (s *Sum) Plus(o Sum) {
	if o.f != nil {
		s.big().Add(s.big(), o.f)
	}
}

// Float64 is the sum, rounded once.
func (s Sum) Float64() float64 {
	if s.f == nil {
		return 0
	}
	f, _ := s.f.Float64()
	return f
}

// MarshalText writes the sum exactly: a hexadecimal mantissa and a power of
// two ("0x.8p+1" is 1).
func (s Sum) MarshalText() ([]byte, error) {
	if s.f == nil {
		return []byte("0"), nil
	}
	return []byte(s.f.Text('p', 0)), nil
}

// UnmarshalText reads what MarshalText wrote.
func (s *Sum) UnmarshalText(b []byte) error {
	f := new(big.Float).SetPrec(sumPrec)
	if _, _, err := f.Parse(string(b), 0); err != nil || f.IsInf() {
		return fmt.Errorf("not an exact sum: %q", b)
	}
	s.f = f
	return nil
}
