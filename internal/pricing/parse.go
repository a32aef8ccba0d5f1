package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// The names of the rates, as a price file's columns and an override's keys
// spell them, in the order of the columns.
var rateNames = []string{"input", "cache_write", "cache_write_1h", "cache_read", "output"}

// fields are the rates of r by rateNames' order.
func (r *Rates) fields() []*float64 {
	return []*float64{&r.Input, &r.CacheWrite, &r.CacheWrite1h, &r.CacheRead, &r.Output}
}

// parseTSV reads a table in prices.tsv's layout: one model a line, its
// five rates after it, "-" for the rate before; "model >N" for the rates of
// a prompt over N tokens; "name =model" for another name. # starts a
// comment line.
func parseTSV(s string) (*Table, error) {
	t := &Table{rows: map[string]Price{}, aliases: map[string]string{}}
	longs := map[string]Price{}
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		at := func(err error) error { return fmt.Errorf("line %d: %v", i+1, err) }
		name := Normalize(f[0])
		if name == "" {
			return nil, at(fmt.Errorf("no model name"))
		}
		if len(f) == 2 && strings.HasPrefix(f[1], "=") {
			to := Normalize(f[1][1:])
			if to == "" {
				return nil, at(fmt.Errorf("%s: no model after =", f[0]))
			}
			t.aliases[name] = to
			continue
		}
		over := int64(0)
		if len(f) > 1 && strings.HasPrefix(f[1], ">") {
			n, err := strconv.ParseInt(f[1][1:], 10, 64)
			if err != nil || n <= 0 {
				return nil, at(fmt.Errorf("%s: %q is not a prompt size (>N, N tokens)", f[0], f[1]))
			}
			over, f = n, append(f[:1], f[2:]...)
		}
		if len(f) != 1+len(rateNames) {
			return nil, at(fmt.Errorf("%s: %d rates, want %d (%s; - for the one before)", f[0], len(f)-1, len(rateNames), strings.Join(rateNames, ", ")))
		}
		var r Rates
		for j, p := range r.fields() {
			v := f[1+j]
			switch {
			case v == "-" && j > 0:
				*p = *r.fields()[j-1]
			default:
				x, err := rate(v)
				if err != nil {
					return nil, at(fmt.Errorf("%s: %s: %v", f[0], rateNames[j], err))
				}
				*p = x
			}
		}
		if over > 0 {
			longs[name] = Price{LongOver: over, Long: &r}
			continue
		}
		t.rows[name] = Price{Model: name, Rates: r}
	}
	for name, l := range longs {
		p, ok := t.rows[name]
		if !ok {
			return nil, fmt.Errorf("%s: the rates of a long prompt, without the model's own rates", name)
		}
		p.LongOver, p.Long = l.LongOver, l.Long
		t.rows[name] = p
	}
	return t, nil
}

// checkAliases reports another name for a model the table does not hold.
func (t *Table) checkAliases() error {
	for name, to := range t.aliases {
		if _, ok := t.rows[to]; !ok {
			return fmt.Errorf("%s: another name for %s, which the table does not hold", name, to)
		}
	}
	return nil
}

// rate reads a price in dollars per million tokens: a number, 0 or more.
func rate(s string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0, fmt.Errorf("%q is not a price (dollars per million tokens, 0 or more)", s)
	}
	return x, nil
}

// jsonPrice is a model's price in a JSON price file. A rate left out is
// input's (cache_write, cache_read) or cache_write's (cache_write_1h).
type jsonPrice struct {
	Input        *float64   `json:"input"`
	CacheWrite   *float64   `json:"cache_write"`
	CacheWrite1h *float64   `json:"cache_write_1h"`
	CacheRead    *float64   `json:"cache_read"`
	Output       *float64   `json:"output"`
	LongOver     int64      `json:"long_over"`
	Long         *jsonPrice `json:"long"`
}

func (j *jsonPrice) rates(name string) (Rates, error) {
	if j.Input == nil || j.Output == nil {
		return Rates{}, fmt.Errorf("%s: input and output are needed", name)
	}
	r := Rates{Input: *j.Input, Output: *j.Output}
	r.CacheWrite, r.CacheRead = r.Input, r.Input
	if j.CacheWrite != nil {
		r.CacheWrite = *j.CacheWrite
	}
	r.CacheWrite1h = r.CacheWrite
	if j.CacheWrite1h != nil {
		r.CacheWrite1h = *j.CacheWrite1h
	}
	if j.CacheRead != nil {
		r.CacheRead = *j.CacheRead
	}
	for i, v := range r.fields() {
		if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 {
			return Rates{}, fmt.Errorf("%s: %s is not a price (dollars per million tokens, 0 or more)", name, rateNames[i])
		}
	}
	return r, nil
}

// parseJSON reads a JSON price file: an object from model names to their
// rates, {"my-model": {"input": 3, "cache_write": 3.75, "cache_read": 0.3,
// "output": 15}}, with "long_over" and "long" for long prompts.
func parseJSON(data []byte) (*Table, error) {
	var m map[string]jsonPrice
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	t := &Table{rows: map[string]Price{}, aliases: map[string]string{}}
	for model, j := range m {
		name := Normalize(model)
		if name == "" {
			return nil, fmt.Errorf("%q: no model name", model)
		}
		r, err := j.rates(model)
		if err != nil {
			return nil, err
		}
		p := Price{Model: name, Rates: r}
		if (j.Long == nil) != (j.LongOver <= 0) {
			return nil, fmt.Errorf("%s: long_over (a prompt size, over 0) and long go together", model)
		}
		if j.Long != nil {
			l, err := j.Long.rates(model + " long")
			if err != nil {
				return nil, err
			}
			p.LongOver, p.Long = j.LongOver, &l
		}
		t.rows[name] = p
	}
	return t, nil
}

// WithFile returns the table with the prices of a file added, replacing
// those of the same models: a JSON object (parseJSON) or lines in the
// embedded table's layout (prices.tsv).
func (t *Table) WithFile(data []byte) (*Table, error) {
	var f *Table
	var err error
	if s := bytes.TrimSpace(data); len(s) > 0 && s[0] == '{' {
		f, err = parseJSON(s)
	} else {
		f, err = parseTSV(string(data))
	}
	if err != nil {
		return nil, err
	}
	out := t.clone()
	maps.Copy(out.rows, f.rows)
	for name := range f.rows {
		delete(out.aliases, name) // a row of the file wins over an alias of that name
	}
	maps.Copy(out.aliases, f.aliases)
	if err := out.checkAliases(); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *Table) clone() *Table {
	return &Table{date: t.date, rows: maps.Clone(t.rows), aliases: maps.Clone(t.aliases), all: t.all}
}

// Override changes some rates of one model, or of every model: what
// --price gives.
type Override struct {
	// Model is the model whose rates change; "" for every model.
	Model string
	set   [5]bool
	rates Rates
}

// ParseOverride reads an override: "[MODEL:]NAME=PRICE,..." where NAME is
// input, cache_write, cache_write_1h, cache_read or output and PRICE is in
// dollars per million tokens:
//
//	input=3,cache_write=3.75,cache_read=0.3,output=15
//	claude-sonnet-4-5:cache_read=0.3
//	my-model:input=1,output=2
func ParseOverride(s string) (Override, error) {
	var o Override
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		return o, fmt.Errorf("%q: want NAME=PRICE,... (names: %s), after MODEL: for one model", s, strings.Join(rateNames, ", "))
	}
	if colon := strings.LastIndexByte(s[:eq], ':'); colon >= 0 {
		if o.Model = Normalize(s[:colon]); o.Model == "" {
			return o, fmt.Errorf("%q: no model before the colon", s)
		}
		s = s[colon+1:]
	}
	fields := o.rates.fields()
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "cache_write_5m" {
			k = "cache_write"
		}
		i := indexOf(rateNames, k)
		if !ok || i < 0 {
			return o, fmt.Errorf("%q: want NAME=PRICE with NAME one of %s", kv, strings.Join(rateNames, ", "))
		}
		x, err := rate(strings.TrimSpace(v))
		if err != nil {
			return o, fmt.Errorf("%s: %v", k, err)
		}
		if o.set[i] {
			return o, fmt.Errorf("%s given twice", k)
		}
		*fields[i], o.set[i] = x, true
	}
	return o, nil
}

func indexOf(names []string, k string) int {
	for i, n := range names {
		if n == k {
			return i
		}
	}
	return -1
}

// apply sets the rates the override names; the long prompts' rates go,
// since the user's rates are the rates of every request.
func (o *Override) apply(p Price) Price {
	from := o.rates.fields()
	for i, to := range p.Rates.fields() {
		if o.set[i] {
			*to = *from[i]
		}
	}
	p.LongOver, p.Long = 0, nil
	return p
}

// With returns the table with an override: of one model's rates (a model
// the table does not hold needs input and output; its writes then cost
// input, its 1-hour writes its writes, its reads input), or of every
// model's.
func (t *Table) With(o Override) (*Table, error) {
	out := t.clone()
	if o.Model == "" {
		if out.all != nil { // the later override wins where both set a rate
			merged := *out.all
			mf, of := merged.rates.fields(), o.rates.fields()
			for i := range mf {
				if o.set[i] {
					*mf[i], merged.set[i] = *of[i], true
				}
			}
			o = merged
		}
		out.all = &o
		return out, nil
	}
	p, ok := out.find(o.Model)
	if !ok {
		if !o.set[0] || !o.set[4] {
			return nil, fmt.Errorf("%s is not in the price table: give at least its input and output", o.Model)
		}
		r := o.rates
		if !o.set[1] {
			r.CacheWrite = r.Input
		}
		if !o.set[2] {
			r.CacheWrite1h = r.CacheWrite
		}
		if !o.set[3] {
			r.CacheRead = r.Input
		}
		p = Price{Model: o.Model, Rates: r}
	} else {
		p = o.apply(p)
		p.Model = o.Model
	}
	delete(out.aliases, o.Model)
	out.rows[o.Model] = p
	return out, nil
}
