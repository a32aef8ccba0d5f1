// Package fenwick keeps numbers that change and the sums of their ranges,
// each change and each sum in O(log n) (a Fenwick tree): what a replay of
// a session request by request needs to stay linear in its size, up to
// that factor.
package fenwick

// Tree holds n numbers, at first those New was given.
type Tree []int

// New makes a tree of the numbers v.
func New(v []int) Tree {
	t := make(Tree, len(v)+1)
	for i, x := range v {
		t.Add(i, x)
	}
	return t
}

// Add adds d to the i-th number.
func (t Tree) Add(i, d int) {
	for i++; i < len(t); i += i & -i {
		t[i] += d
	}
}

// prefix is the sum of the first n numbers.
func (t Tree) prefix(n int) int {
	s := 0
	for ; n > 0; n -= n & -n {
		s += t[n]
	}
	return s
}

// Sum is the sum of the numbers i to j-1; 0 when j <= i.
func (t Tree) Sum(i, j int) int {
	if j <= i {
		return 0
	}
	return t.prefix(j) - t.prefix(i)
}
