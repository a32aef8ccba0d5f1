//go:build race

package commands

// raceEnabled: the race detector slows the filters and SQLite several
// times over; the race run then checks the pipelines on fewer inputs.
const raceEnabled = true
