// Package store keeps short links.
package store

import "errors"

/*
func notAFunction() {}
*/

const usage = `
func alsoNotAFunction() {}
`

var quote = '`' // a backquote in a rune opens no raw string

type (
	ID    string
	Store struct {
		links map[ID]string
	}
	Getter interface {
		Get(ID) (string, error)
	}
)

type Link[T any] struct{ URL T }

// New makes a store.
func New() *Store { return &Store{links: map[ID]string{}} }

func (s *Store) Get(id ID) (string, error) {
	if l, ok := s.links[id]; ok {
		return l, nil
	}
	return "", errors.New("no such link")
}

func (Link[T]) String() string { return "" }
