package outcome

import "strings"

// missingWords are how shells, runtimes and agents' tools say that a path
// is not there, lower-cased.
var missingWords = []string{
	"no such file or directory",
	"no such file:",
	"does not exist",
	"filenotfounderror",
	"enoent",
	"file not found",
	"path not found",
	"cannot find the path",
	"cannot find the file",
	"can't open file",
	"could not find file",
}

// SaysMissing reports whether what a tool printed says that a file or
// directory it was given does not exist: "cat: x: No such file or
// directory", Python's FileNotFoundError, Node's ENOENT, Claude Code's
// "File does not exist.". A command that is not found is not a missing
// file: that says something of the environment.
func SaysMissing(text string) bool {
	body := strings.ToLower(Body(text))
	for _, w := range missingWords {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}
