package archive

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/ctxkit/ctxkit/internal/llm"
)

// LLMCache keeps the answers of ctx-summarize --llm in the archive (an
// llm.Cache): with an archive, the summaries' answers live in the same file
// as the outputs they summarize, and every run that uses it shares them.
type LLMCache struct{ a *Archive }

// LLMCache returns the archive's cache of model answers.
func (a *Archive) LLMCache() LLMCache { return LLMCache{a} }

// Get implements llm.Cache. An answer the archive cannot read is asked
// again, as one it does not have.
func (c LLMCache) Get(k llm.Key) (string, bool) {
	var answer string
	err := c.a.db.QueryRow(`SELECT answer FROM llm_answers WHERE model = ? AND version = ? AND hash = ?`,
		k.Model, k.Version, k.Hash).Scan(&answer)
	return answer, err == nil
}

// Put implements llm.Cache: each answer in a transaction of its own, so
// that a run that is stopped keeps what it paid for. A later answer to the
// same request replaces an earlier one.
func (c LLMCache) Put(k llm.Key, answer string) error {
	if c.a.readOnly {
		return fmt.Errorf("%s: %w", c.a.path, ErrReadOnly)
	}
	now := time.Now().UTC().Format(timeLayout)
	err := c.a.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO llm_answers (model, version, hash, answer, stored) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (model, version, hash) DO UPDATE SET answer = excluded.answer, stored = excluded.stored`,
			k.Model, k.Version, k.Hash, answer, now)
		return err
	})
	if err != nil {
		return c.a.wrap(err)
	}
	return nil
}
