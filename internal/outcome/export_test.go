package outcome

// LineKinds are the table's test lines, for the tests of the filters that
// ask this package (verdicts_test.go).
var LineKinds = lineKinds
