// Package playbook keeps the strategies an agent learned from its own
// transcripts, after ACE (Agentic Context Engine, arXiv 2510.04618) and the
// swecli design that follows it: instead of old conversation, a playbook of
// distilled strategies, each with counts of how often following it went
// well (helpful), badly (harmful) or either way (neutral), and the evidence
// (transcript and call ids) that each count comes from.
//
// It is pure: the reflector (Reflector.Reflect) reads patterns from a
// parsed transcript, the playbook's operations (Learn, Add, Tag, Prune,
// Merge) change a Playbook in memory, and Render writes it for a system
// prompt. Reading and writing the playbook file, and locking it, is the
// caller's (ctx-playbook, internal/commands/playbookcmd).
package playbook

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkit/ctxkit/internal/lazyre"
	"github.com/ctxkit/ctxkit/internal/textfmt"
)

// Version is the version of the playbook file's schema.
const Version = 1

// The categories of the rules, as the design names them. Strategies added
// by hand or written by a model may name others; General is the default.
const (
	FileOperations = "file_operations"
	CodeNavigation = "code_navigation"
	Testing        = "testing"
	Shell          = "shell"
	ErrorHandling  = "error_handling"
	General        = "general"
)

// Categories are the categories the rules and a model's reflection use, in
// the order reports list them.
var Categories = []string{FileOperations, CodeNavigation, Testing, Shell, ErrorHandling, General}

// Tag is how following a strategy went.
type Tag string

// The tags.
const (
	Helpful Tag = "helpful"
	Harmful Tag = "harmful"
	Neutral Tag = "neutral"
)

// ParseTag reads a tag's name in any case.
func ParseTag(s string) (Tag, error) {
	switch t := Tag(strings.ToLower(strings.TrimSpace(s))); t {
	case Helpful, Harmful, Neutral:
		return t, nil
	}
	return "", fmt.Errorf("unknown tag %q (want helpful, harmful or neutral)", s)
}

// Evidence is one time a strategy was followed, in a transcript: the calls
// that make up the pattern, in order, and how it went.
type Evidence struct {
	// File is the transcript as it was named when learned from (made
	// absolute by the command line), "<stdin>" for standard input.
	File string `json:"file"`
	// Line is the transcript's line in File when File is a JSONL of whole
	// transcripts (learn --each-line); 0 when File is one transcript.
	Line int `json:"line,omitempty"`
	// Session is the transcript's session id where it gives one (Digest
	// for a line that gives none): the same session learned from a copy
	// elsewhere is the same evidence.
	Session string   `json:"session,omitempty"`
	Calls   []string `json:"calls"`
	Tag     Tag      `json:"tag"`
}

// key is what makes two pieces of evidence the same: the session (else the
// file and its line) and the calls.
func (e Evidence) key() string {
	where := e.Session
	if where == "" {
		where = e.File
		if e.Line > 0 {
			where += ":" + strconv.Itoa(e.Line)
		}
	}
	return where + "\x00" + strings.Join(e.Calls, "\x00")
}

// Digest names a transcript that gives no session id by its bytes, as
// Evidence.Session: the same trajectory is then the same evidence wherever
// it is read from (a line of a corpus, the same line in a block of it on
// stdin, as GNU parallel --pipe gives it), and two trajectories are two.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// Entry is what a strategy says and its counts: what the playbook file and
// the JSON rendering both give.
type Entry struct {
	// ID is the category's prefix (its first three letters) and a number:
	// fil-00042. Numbers are never reused, so that an id named in a prompt
	// or a script keeps meaning the same strategy.
	ID       string `json:"id"`
	Category string `json:"category"`
	Content  string `json:"content"`
	Helpful  int    `json:"helpful_count"`
	Harmful  int    `json:"harmful_count"`
	Neutral  int    `json:"neutral_count"`
}

// Strategy is one entry of the playbook, with where it came from.
type Strategy struct {
	Entry
	// Confidence is the highest confidence of the observations that made
	// or fed it (Reflector); 0 for a strategy added by hand.
	Confidence float64 `json:"confidence,omitempty"`
	// Source says where it came from: the rule's name, "model NAME", or
	// "added".
	Source string `json:"source,omitempty"`
	// Tags are a model's tags for it (ACE's reflector gives some).
	Tags    []string  `json:"tags,omitempty"`
	Created time.Time `json:"created_at"`
	Updated time.Time `json:"updated_at"`
	// Evidence is the latest MaxEvidence times the strategy was followed,
	// oldest first; Dropped the digests of the times before them.
	Evidence []Evidence `json:"evidence,omitempty"`
	Dropped  Digests    `json:"evidence_dropped,omitempty"`

	pending []uint64 // digests dropped and not in Dropped yet (settle)
}

// MaxEvidence is the most evidence a strategy keeps: the latest. A
// strategy followed in thousands of sessions would otherwise grow the
// playbook without bound (and every command that reads it). The evidence
// before is kept as digests (Digests), a few bytes each: still known, so
// that learning it again counts nothing, and still counted.
const MaxEvidence = 20

// Digests are evidence no longer kept, sorted: each the first 8 bytes of a
// SHA-256 of the evidence's key, its last two bits its tag (0 helpful, 1
// harmful, 2 neutral). The file holds them as one base64 string of their
// big-endian bytes: under 11 bytes a piece of evidence.
type Digests []uint64

// digest is e's digest, with its tag.
func digest(e Evidence) uint64 {
	sum := sha256.Sum256([]byte(e.key()))
	d := binary.BigEndian.Uint64(sum[:8]) &^ 3
	switch e.Tag {
	case Harmful:
		d |= 1
	case Neutral:
		d |= 2
	}
	return d
}

// digestTag is the tag of a digest.
func digestTag(d uint64) Tag {
	switch d & 3 {
	case 1:
		return Harmful
	case 2:
		return Neutral
	}
	return Helpful
}

// has reports whether ds has the evidence of digest d, whatever its tag.
func (ds Digests) has(d uint64) bool {
	d &^= 3
	i, _ := slices.BinarySearch(ds, d)
	return i < len(ds) && ds[i]&^3 == d
}

func (ds Digests) MarshalJSON() ([]byte, error) {
	b := make([]byte, 8*len(ds))
	for i, d := range ds {
		binary.BigEndian.PutUint64(b[8*i:], d)
	}
	return json.Marshal(b) // []byte is base64
}

func (ds *Digests) UnmarshalJSON(data []byte) error {
	var b []byte
	if err := json.Unmarshal(data, &b); err != nil {
		return errors.New("evidence_dropped: want the base64 of the digests")
	}
	if len(b)%8 != 0 {
		return errors.New("evidence_dropped: not a whole number of 8-byte digests")
	}
	out := make(Digests, len(b)/8)
	for i := range out {
		out[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	slices.Sort(out)
	*ds = slices.Compact(out)
	return nil
}

// knows reports whether s has evidence e, kept or dropped.
func (s *Strategy) knows(e Evidence) bool {
	k := e.key()
	return slices.ContainsFunc(s.Evidence, func(x Evidence) bool { return x.key() == k }) || s.Dropped.has(digest(e))
}

// add keeps e as the latest evidence of s, and the digest of the oldest
// when there are more than MaxEvidence; settle puts those in Dropped.
func (s *Strategy) add(e Evidence) {
	s.Evidence = append(s.Evidence, e)
	if over := len(s.Evidence) - MaxEvidence; over > 0 {
		for _, old := range s.Evidence[:over] {
			s.pending = append(s.pending, digest(old))
		}
		s.Evidence = slices.Delete(s.Evidence, 0, over)
	}
}

// settle puts the digests dropped since the last settle in Dropped, in
// order: once for many adds, not a sort for each.
func (s *Strategy) settle() {
	if len(s.pending) == 0 {
		return
	}
	s.Dropped = append(s.Dropped, s.pending...)
	s.pending = nil
	slices.Sort(s.Dropped)
	s.Dropped = slices.CompactFunc(s.Dropped, func(a, b uint64) bool { return a&^3 == b&^3 })
}

// Total is the number of times the strategy was tagged.
func (s *Strategy) Total() int { return s.Helpful + s.Harmful + s.Neutral }

// Effectiveness is (helpful − harmful) / total, from −1 to 1; 0 for a
// strategy never tagged.
func (s *Strategy) Effectiveness() float64 {
	if s.Total() == 0 {
		return 0
	}
	return float64(s.Helpful-s.Harmful) / float64(s.Total())
}

// count adds n to the count of tag.
func (s *Strategy) count(tag Tag, n int) {
	switch tag {
	case Helpful:
		s.Helpful += n
	case Harmful:
		s.Harmful += n
	case Neutral:
		s.Neutral += n
	}
}

// Playbook is the strategies, in the order they were added.
type Playbook struct {
	Version int `json:"version"`
	// NextID is the number the next new strategy gets.
	NextID     int         `json:"next_id"`
	Strategies []*Strategy `json:"strategies"`
}

// New returns an empty playbook.
func New() *Playbook { return &Playbook{Version: Version, NextID: 1, Strategies: []*Strategy{}} }

// Find returns the strategy with an id, or nil.
func (p *Playbook) Find(id string) *Strategy {
	for _, s := range p.Strategies {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Prefix is a category's id prefix: its first three letters or digits,
// lower-cased ("fil" for file_operations); "gen" when it has none.
func Prefix(category string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(category) {
		if b.Len() == 3 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "gen"
	}
	return b.String()
}

// newStrategy adds a strategy with the next id.
func (p *Playbook) newStrategy(category, content, source string, now time.Time) *Strategy {
	s := &Strategy{
		Entry:  Entry{ID: fmt.Sprintf("%s-%05d", Prefix(category), p.NextID), Category: category, Content: content},
		Source: source, Created: now, Updated: now,
	}
	p.NextID++
	p.Strategies = append(p.Strategies, s)
	return s
}

// CleanCategory is a category as the playbook keeps it: lower case, words
// joined by underscores; General when empty.
func CleanCategory(c string) string {
	c = strings.Join(strings.FieldsFunc(strings.ToLower(c), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), "_")
	if c == "" {
		return General
	}
	return c
}

// cleanContent is a strategy's text on one line, its control characters
// escaped as every report escapes them (\x1b, textfmt.Escape): render puts
// it in a system prompt, and a person's terminal shows it.
func cleanContent(s string) string { return textfmt.Escape(strings.Join(strings.Fields(s), " ")) }

// Add adds a strategy written by hand, or, when one of the same category
// says nearly the same (Similar at threshold), returns that one instead
// (added false).
func (p *Playbook) Add(category, content string, threshold float64, now time.Time) (s *Strategy, added bool, err error) {
	category, content = CleanCategory(category), cleanContent(content)
	if content == "" {
		return nil, false, errors.New("a strategy needs some text")
	}
	if s := p.similar(category, content, threshold, nil); s != nil {
		return s, false, nil
	}
	return p.newStrategy(category, content, "added", now), true, nil
}

// TagID counts one more tag of a strategy, by hand.
func (p *Playbook) TagID(id string, tag Tag, now time.Time) error {
	s := p.Find(id)
	if s == nil {
		return fmt.Errorf("no strategy %s in the playbook", id)
	}
	s.count(tag, 1)
	s.Updated = now
	return nil
}

// PruneOptions say which strategies Prune removes.
type PruneOptions struct {
	// Below: those whose effectiveness is below it (the design's −0.3).
	// A strategy never tagged is not judged.
	Below float64
	// OlderThan: also those not updated (learned from, tagged) for this
	// long; 0 keeps them.
	OlderThan time.Duration
	Now       time.Time
}

// DefaultPruneBelow is the design's threshold: a strategy that hurt more
// than it helped, by this much of its uses, goes.
const DefaultPruneBelow = -0.3

// Prune removes the strategies that did more harm than good, and with
// OlderThan those unused for that long; it returns those removed.
func (p *Playbook) Prune(o PruneOptions) []*Strategy {
	var removed []*Strategy
	kept := p.Strategies[:0]
	for _, s := range p.Strategies {
		harmful := s.Total() > 0 && s.Effectiveness() < o.Below
		unused := o.OlderThan > 0 && o.Now.Sub(s.Updated) > o.OlderThan
		if harmful || unused {
			removed = append(removed, s)
			continue
		}
		kept = append(kept, s)
	}
	p.Strategies = kept
	return removed
}

// Observation is what the reflector learned from one occurrence of a
// pattern: the strategy it follows, how sure the reflector is that the
// pattern is one, and the evidence with its tag.
type Observation struct {
	Rule       string // the rule's name, or "model NAME"
	Category   string
	Content    string
	Confidence float64
	Tags       []string // a model's tags
	Evidence   Evidence
}

// LearnReport is what Learn changed.
type LearnReport struct {
	Observations int `json:"observations"` // observations given
	New          int `json:"new"`          // strategies added
	Counted      int `json:"counted"`      // tags counted (new evidence)
	Known        int `json:"known"`        // evidence already in the playbook, not counted again
}

// Changed reports whether Learn changed the playbook.
func (r LearnReport) Changed() bool { return r.New > 0 || r.Counted > 0 }

// Learn adds observations: each to the strategy of its category that says
// nearly the same (Similar at threshold), or to a new one, counting its tag
// once. Evidence already in the playbook, kept or dropped, counts nothing:
// learning twice from the same transcript changes nothing. (The evidence
// dropped during a run is in its map of known evidence, which holds what
// the strategies kept: Dropped is looked at as the run found it.)
func (p *Playbook) Learn(obs []Observation, threshold float64, now time.Time) LearnReport {
	r := LearnReport{Observations: len(obs)}
	known := p.evidenceKeys()
	for _, o := range obs {
		k := o.Evidence.key()
		category, content := CleanCategory(o.Category), cleanContent(o.Content)
		s := p.similar(category, content, threshold, nil)
		if s == nil {
			s = p.newStrategy(category, content, o.Rule, now)
			r.New++
		} else if known[s.ID+"\x00"+k] {
			r.Known++
			continue
		}
		if s.Dropped.has(digest(o.Evidence)) {
			r.Known++
			continue
		}
		known[s.ID+"\x00"+k] = true
		s.add(o.Evidence)
		s.count(o.Evidence.Tag, 1)
		s.Confidence = max(s.Confidence, o.Confidence)
		s.Tags = union(s.Tags, o.Tags)
		s.Updated = now
		r.Counted++
	}
	for _, s := range p.Strategies {
		s.settle()
	}
	return r
}

// TagByEvidence counts a tag of a strategy named by id (a model's
// bullet_tags), once per piece of evidence; it reports whether it counted
// one (not for an unknown id, nor for evidence counted before).
func (p *Playbook) TagByEvidence(id string, e Evidence, now time.Time) bool {
	s := p.Find(id)
	if s == nil || s.knows(e) {
		return false
	}
	s.add(e)
	s.settle()
	s.count(e.Tag, 1)
	s.Updated = now
	return true
}

// evidenceKeys are the evidence of every strategy, by strategy id: an
// observation already learned is found without a search.
func (p *Playbook) evidenceKeys() map[string]bool {
	m := map[string]bool{}
	for _, s := range p.Strategies {
		for _, e := range s.Evidence {
			m[s.ID+"\x00"+e.key()] = true
		}
	}
	return m
}

func union(a, b []string) []string {
	for _, t := range b {
		if !slices.Contains(a, t) {
			a = append(a, t)
		}
	}
	return a
}

// Merge merges strategies that say nearly the same (Similar at threshold)
// within one category into the oldest of them, and returns the ids merged
// away.
func (p *Playbook) Merge(threshold float64, now time.Time) []string {
	var gone []string
	kept := p.Strategies[:0]
	for _, s := range p.Strategies {
		if into := similarIn(kept, s.Category, s.Content, threshold, s); into != nil {
			into.absorb(s, now)
			gone = append(gone, s.ID)
			continue
		}
		kept = append(kept, s)
	}
	p.Strategies = kept
	return gone
}

// Absorb adds the strategies of another playbook: each to the one here
// that says nearly the same, or as a new strategy with an id of this
// playbook. It returns how many it added and how many it merged.
func (p *Playbook) Absorb(other *Playbook, threshold float64, now time.Time) (added, merged int) {
	for _, o := range other.Strategies {
		if s := p.similar(o.Category, o.Content, threshold, nil); s != nil {
			if s.absorb(o, now) {
				merged++
			}
			continue
		}
		s := p.newStrategy(o.Category, o.Content, o.Source, o.Created)
		id := s.ID
		*s = *o
		s.ID = id
		s.Evidence, s.Dropped = slices.Clone(o.Evidence), slices.Clone(o.Dropped)
		s.Tags = slices.Clone(o.Tags)
		added++
	}
	return added, merged
}

// absorb adds o's counts and evidence, kept and dropped, to s, less what
// o's evidence that s already has counted; it reports whether s changed.
func (s *Strategy) absorb(o *Strategy, now time.Time) bool {
	h, x, n := o.Helpful, o.Harmful, o.Neutral
	known := func(tag Tag) {
		switch tag {
		case Helpful:
			h--
		case Harmful:
			x--
		case Neutral:
			n--
		}
	}
	have := map[uint64]bool{} // every piece of evidence of s, by its digest without its tag
	for _, e := range s.Evidence {
		have[digest(e)&^3] = true
	}
	for _, d := range s.Dropped {
		have[d&^3] = true
	}
	for _, e := range o.Evidence {
		if d := digest(e) &^ 3; have[d] {
			known(e.Tag)
		} else {
			have[d] = true
			s.add(e)
		}
	}
	for _, d := range o.Dropped {
		if have[d&^3] {
			known(digestTag(d))
		} else {
			have[d&^3] = true
			s.pending = append(s.pending, d)
		}
	}
	s.settle()
	h, x, n = max(h, 0), max(x, 0), max(n, 0)
	changed := h+x+n > 0 || len(union(slices.Clone(s.Tags), o.Tags)) > len(s.Tags)
	s.Helpful, s.Harmful, s.Neutral = s.Helpful+h, s.Harmful+x, s.Neutral+n
	s.Confidence = max(s.Confidence, o.Confidence)
	s.Tags = union(s.Tags, o.Tags)
	if o.Created.Before(s.Created) {
		s.Created = o.Created
	}
	if changed {
		s.Updated = now
	}
	return changed
}

// similar is the first strategy of a category that says nearly the same as
// content, other than skip.
func (p *Playbook) similar(category, content string, threshold float64, skip *Strategy) *Strategy {
	return similarIn(p.Strategies, category, content, threshold, skip)
}

func similarIn(list []*Strategy, category, content string, threshold float64, skip *Strategy) *Strategy {
	for _, s := range list { // the same text first: the rules repeat theirs
		if s != skip && s.Category == category && s.Content == content {
			return s
		}
	}
	for _, s := range list {
		if s != skip && s.Category == category && Similar(s.Content, content, threshold) {
			return s
		}
	}
	return nil
}

// Marshal writes the playbook as indented JSON, the same bytes for the
// same playbook.
func (p *Playbook) Marshal() []byte {
	out, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // plain structs of strings, numbers and times
	}
	return append(out, '\n')
}

var idPattern = lazyre.New(`^[a-z0-9]{1,3}-[0-9]{5,}$`)

// Parse reads a playbook file. Empty input is an empty playbook. An error
// names the line and column (JSON) or the strategy (the schema) that is
// wrong.
func Parse(data []byte) (*Playbook, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return New(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Playbook
	if err := dec.Decode(&p); err != nil {
		return nil, jsonError(data, err, int(dec.InputOffset()))
	}
	if dec.More() {
		at := int(dec.InputOffset())
		for at < len(data) && strings.IndexByte(" \t\r\n", data[at]) >= 0 {
			at++
		}
		line, col := textfmt.LineCol(string(data), at)
		return nil, &SyntaxError{Line: line, Col: col, Msg: "more after the playbook's JSON object"}
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	for _, s := range p.Strategies { // a file written before MaxEvidence
		if over := len(s.Evidence) - MaxEvidence; over > 0 {
			evidence := s.Evidence
			s.Evidence = nil
			for _, e := range evidence {
				s.add(e)
			}
			s.settle()
		}
	}
	return &p, nil
}

// check validates what JSON cannot: the version, ids, texts and counts.
func (p *Playbook) check() error {
	if p.Version != Version {
		return fmt.Errorf("playbook version %d, want %d", p.Version, Version)
	}
	if p.Strategies == nil {
		p.Strategies = []*Strategy{}
	}
	seen := map[string]bool{}
	for i, s := range p.Strategies {
		where := "strategy " + strconv.Itoa(i)
		if s == nil {
			return fmt.Errorf("%s: null", where)
		}
		if s.ID != "" {
			where += " (" + s.ID + ")"
		}
		n, err := idNumber(s.ID)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %v", where, err)
		case seen[s.ID]:
			return fmt.Errorf("%s: the id is used twice", where)
		case n >= p.NextID:
			return fmt.Errorf("%s: next_id is %d, not above the id's number", where, p.NextID)
		case strings.TrimSpace(s.Content) == "":
			return fmt.Errorf("%s: no content", where)
		case strings.TrimSpace(s.Category) == "":
			return fmt.Errorf("%s: no category", where)
		case s.Helpful < 0 || s.Harmful < 0 || s.Neutral < 0:
			return fmt.Errorf("%s: a negative count", where)
		}
		for j, e := range s.Evidence {
			if _, err := ParseTag(string(e.Tag)); err != nil || len(e.Calls) == 0 || e.File == "" {
				return fmt.Errorf("%s: evidence %d: want a file, calls and a tag (helpful, harmful or neutral)", where, j)
			}
		}
		seen[s.ID] = true
	}
	return nil
}

// idNumber is the number of an id: 42 of fil-00042.
func idNumber(id string) (int, error) {
	if !idPattern.MatchString(id) {
		return 0, fmt.Errorf("id %q is not PREFIX-NNNNN (fil-00042)", id)
	}
	_, num, _ := strings.Cut(id, "-")
	return strconv.Atoi(num)
}

// SyntaxError is a playbook file whose JSON is not a playbook's: where, and
// what.
type SyntaxError struct {
	Line, Col int // 1-based; the column counts bytes
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// jsonError says where JSON went wrong; at is where the decoder stopped,
// for the errors that do not say.
func jsonError(data []byte, err error, at int) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	offset := at
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		offset = int(se.Offset) - 1 // the offset is past the character
	case errors.As(err, &te):
		offset = int(te.Offset)
		msg = fmt.Sprintf("%s is %s, want %s", fieldName(te.Field), jsonValue(te.Value), goValue(te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		offset = len(data)
		msg = "the JSON ends too soon"
	}
	line, col := textfmt.LineCol(string(data), offset)
	return &SyntaxError{Line: line, Col: col, Msg: strings.TrimPrefix(msg, "json: ")}
}

// fieldName is a field's path as the file spells it: without the Go names
// of embedded structs (Entry), which the file does not show.
func fieldName(f string) string {
	var keys []string
	for _, k := range strings.Split(f, ".") {
		if k != "" && !(k[0] >= 'A' && k[0] <= 'Z') {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "the playbook"
	}
	return strconv.Quote(strings.Join(keys, "."))
}

// jsonValue is the kind of a JSON value that encoding/json names ("array",
// "number 1.5"), in words.
func jsonValue(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return "the " + v
	}
	return "a " + v
}

// goValue is what a Go type takes in JSON, in words: not the type's name.
func goValue(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return goValue(t.Elem())
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string" // []byte is base64
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}
