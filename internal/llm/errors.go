package llm

import (
	"errors"
	"fmt"
)

// Failure is what kind of failure an *Error is: a short stable name, for
// counts and reports.
type Failure string

// The failures.
const (
	Status      Failure = "status"       // the server answered with an error status (after retries for 429 and 5xx)
	Timeout     Failure = "timeout"      // no answer within the timeout
	Connection  Failure = "connection"   // the server could not be reached (after retries)
	Empty       Failure = "empty"        // an answer with empty content
	Length      Failure = "length"       // an answer cut at the output cap (finish_reason length)
	BadResponse Failure = "bad_response" // not a chat completion
	BadRequest  Failure = "bad_request"  // the request could not be made
	MaxCalls    Failure = "max_calls"    // the limit of requests is reached
	GaveUp      Failure = "gave_up"      // the server is taken to be down: no request was sent
	Canceled    Failure = "canceled"     // the caller gave up
)

// Error is a failed call.
type Error struct {
	Failure  Failure
	Status   int // the HTTP status, for Status
	Attempts int // requests sent for the call
	Err      error
}

func (e *Error) Error() string {
	msg := e.headline()
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return msg
}

// headline is the failure in words, without the error it wraps.
func (e *Error) headline() string {
	switch e.Failure {
	case Status:
		return fmt.Sprintf("status %d", e.Status)
	case GaveUp:
		return "the server is not answering"
	}
	return string(e.Failure)
}

func (e *Error) Unwrap() error { return e.Err }

// Reason is a failure's short name for counts: the Failure, with the status
// for Status ("status 500"). Errors that are not an *Error are "error".
func Reason(err error) string {
	var e *Error
	switch {
	case !errors.As(err, &e):
		return "error"
	case e.Failure == Status:
		return fmt.Sprintf("status %d", e.Status)
	case e.Failure == GaveUp:
		var first *Error
		if errors.As(e.Err, &first) {
			return Reason(first)
		}
	}
	return string(e.Failure)
}
