//go:build race

package dedupe

// raceEnabled: the race detector slows the exact token counter that every
// invariant check runs tenfold; the race run then checks fewer settings.
const raceEnabled = true
