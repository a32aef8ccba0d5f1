package cli

import (
	"errors"
	"fmt"
)

// Exit codes, the same for every binary.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // bad input, or the work failed
	ExitUsage   = 2 // bad flags or arguments
	// ExitOverBudget: ctx-summarize --budget wrote the smallest history its
	// rules reach, which is still over the budget.
	ExitOverBudget = 3
)

// exitCoder is an error that ends a run with its own exit code, as gojq's
// errors do; any other error ends it with ExitFailure.
type exitCoder interface{ ExitCode() int }

// usageError is a bad command line: exit code 2, and a pointer to --help.
type usageError struct{ error }

func (usageError) ExitCode() int   { return ExitUsage }
func (e usageError) Unwrap() error { return e.error }

// Usagef is a usage error: exit code 2.
func Usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Failf is a failure: exit code 1, as any error that is not a usage error.
func Failf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// isUsage reports whether err is a usage error, which ends a run at once.
func isUsage(err error) bool {
	var ec exitCoder
	return errors.As(err, &ec) && ec.ExitCode() == ExitUsage
}
