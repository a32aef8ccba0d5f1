package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctxkit/ctxkit/internal/safefile"
	"github.com/ctxkit/ctxkit/internal/userdir"
)

// Key is what a cached answer is kept under: the model, the caller's prompt
// version, and the hash of everything else the request sent (the messages,
// which hold the tool output, and the cap).
type Key struct {
	Model   string `json:"model"`
	Version string `json:"version"`
	Hash    string `json:"hash"`
}

// Cache keeps answers between runs. A Client gets from it before asking
// and puts every good answer. Implementations are safe for concurrent use;
// FileCache is one, and the execution archive can be another.
type Cache interface {
	Get(k Key) (string, bool)
	Put(k Key, answer string) error
}

// FileCache is a Cache in a JSON Lines file, one answer a line. Answers are
// appended as they come, one write each, so that a run that is stopped
// keeps what it paid for and two runs at once do not tear each other's
// lines; a line that does not parse (a torn write) is skipped when read.
type FileCache struct {
	path string
	mu   sync.Mutex
	m    map[Key]string
	f    *os.File // opened on the first Put
}

// cacheLine is a line of the file.
type cacheLine struct {
	Key
	Answer string `json:"answer"`
}

// OpenFileCache reads the cache at path; a file that is not there yet is an
// empty cache, made on the first Put along with its directory.
func OpenFileCache(path string) (*FileCache, error) {
	c := &FileCache{path: path, m: map[Key]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	for sc.Scan() {
		var l cacheLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Hash != "" {
			c.m[l.Key] = l.Answer
		}
	}
	return c, sc.Err()
}

// DefaultCachePath is where the cache lives unless told otherwise: a file
// in the user's cache directory (~/.cache/ctxkit/llm.jsonl on Linux).
func DefaultCachePath() (string, error) {
	dir, err := userdir.CacheDir("", "")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "llm.jsonl"), nil
}

// Get implements Cache.
func (c *FileCache) Get(k Key) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[k]
	return a, ok
}

// Put implements Cache: it keeps the answer and appends it to the file.
func (c *FileCache) Put(k Key, answer string) error {
	line, err := json.Marshal(cacheLine{Key: k, Answer: answer})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = answer
	if c.f == nil {
		if c.f, err = safefile.OpenPrivate(c.path, os.O_RDWR|os.O_APPEND); err != nil { // the model's answers: the user's alone
			return err
		}
		if torn(c.f) {
			line = append([]byte{'\n'}, line...) // not onto a torn line: it would lose this one too
		}
	}
	_, err = c.f.Write(append(line, '\n'))
	return err
}

// torn reports whether f's last line has no newline: a write was cut.
func torn(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	last := make([]byte, 1)
	_, err = f.ReadAt(last, st.Size()-1)
	return err == nil && last[0] != '\n'
}

// Close closes the file.
func (c *FileCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}
