//go:build !race

package truncate

const raceEnabled = false
