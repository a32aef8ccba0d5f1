package cli

import (
	"flag"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/ctxkit/ctxkit/internal/pricing"
	"github.com/ctxkit/ctxkit/internal/safefile"
)

// RepeatedFlag is a flag that may be given several times, each value kept
// whole: a StringSliceFlag splits its values at commas, and a price
// override (input=3,output=15) holds commas. Its environment twin holds
// several values separated by ";". Read it with e.Repeated.
type RepeatedFlag struct{ *ucli.StringFlag }

// Apply registers a fresh list of values for each run, the twin's first:
// the flag itself is a package variable that every run shares.
func (f *RepeatedFlag) Apply(set *flag.FlagSet) error {
	v := &repeated{}
	for _, name := range f.EnvVars {
		if s, ok := os.LookupEnv(name); ok && strings.TrimSpace(s) != "" {
			for _, part := range strings.Split(s, ";") {
				if part = strings.TrimSpace(part); part != "" {
					v.values = append(v.values, part)
				}
			}
			v.fromEnv = true
			break
		}
	}
	for _, name := range f.Names() {
		set.Var(v, name, f.Usage)
	}
	return nil
}

// repeated is the values of a RepeatedFlag: those of the command line,
// else those of its twin.
type repeated struct {
	values  []string
	fromEnv bool
}

func (r *repeated) String() string { return strings.Join(r.values, ";") }

func (r *repeated) Set(s string) error {
	if r.fromEnv { // the command line wins over the twin
		r.values, r.fromEnv = nil, false
	}
	r.values = append(r.values, s)
	return nil
}

func (r *repeated) Get() any { return r.values }

// Repeated is the values of a RepeatedFlag, in order.
func (e *Env) Repeated(f *RepeatedFlag) []string {
	v, _ := e.Value(f.Name).([]string)
	return v
}

// The price flags: what ctx-count --cost and ctx-compact price tokens at
// (internal/pricing).
var (
	PriceFlag = &RepeatedFlag{&ucli.StringFlag{Name: "price", EnvVars: []string{"CTX_PRICE"},
		Usage: "override prices, in dollars per million tokens: `[MODEL:]NAME=PRICE,...` with NAME input, cache_write, cache_write_1h, cache_read or output; without MODEL, for every model; repeatable (the twin separates overrides with ;)"}}
	PricesFlag = &ucli.StringFlag{Name: "prices", EnvVars: []string{"CTX_PRICES"},
		Usage: "add the prices of `FILE` to the embedded table, or replace those of the same models: a JSON object {\"MODEL\": {\"input\": 3, \"cache_write\": 3.75, \"cache_read\": 0.3, \"output\": 15}} or lines in the table's layout (docs/compact.md)"}
)

// readPrices reads the price file name ("-" for stdin).
func (e *Env) readPrices(name string) ([]byte, error) {
	if name == "-" {
		data, err := readSmall(e.Stdin, "price file")
		if err != nil {
			return nil, Failf("--prices <stdin>: %v", err)
		}
		return data, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, safefile.PathError(name, err)
	}
	defer f.Close()
	data, err := readSmall(f, "price file")
	if err != nil {
		return nil, safefile.PathError(name, err)
	}
	return data, nil
}

// Prices is the price table of --prices and --price: the embedded table,
// the file's prices added, then each override in order. A bad override is
// a usage error; a file that cannot be read or parsed, a failure.
func (e *Env) Prices() (*pricing.Table, error) {
	table := pricing.Default()
	if name := e.String(PricesFlag.Name); name != "" {
		data, err := e.readPrices(name)
		if err != nil {
			return nil, err
		}
		if table, err = table.WithFile(data); err != nil {
			return nil, Failf("--prices %s: %v", name, err)
		}
	}
	for _, s := range e.Repeated(PriceFlag) {
		o, err := pricing.ParseOverride(s)
		if err != nil {
			return nil, Usagef("--price %v", err)
		}
		if table, err = table.With(o); err != nil {
			return nil, Usagef("--price %s: %v", s, err)
		}
	}
	return table, nil
}
