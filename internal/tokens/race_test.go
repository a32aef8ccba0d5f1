//go:build race

package tokens

// raceEnabled: the race detector slows tiktoken-go tenfold, so the oracle
// tests compare a sample of the corpus.
const raceEnabled = true
