// Package suggest finds what a user probably meant by a name that is not one: a verb, a flag, a
// key of a configuration file.
package suggest

import (
	"sort"
	"strings"
)

// DidYouMean is ": did you mean X?" for the candidates (X or Y, X, Y or Z), each with prefix;
// empty without any. candidates is not changed.
func DidYouMean(names []string, prefix string) string {
	if len(names) == 0 {
		return ""
	}
	candidates := make([]string, len(names))
	for i, name := range names {
		candidates[i] = prefix + name
	}
	last := len(candidates) - 1
	if last == 0 {
		return ": did you mean " + candidates[0] + "?"
	}
	return ": did you mean " + strings.Join(candidates[:last], ", ") + " or " + candidates[last] + "?"
}

// Closest returns the names nearest to typed, at most three: those within two edits of it (one for
// a word of four letters or fewer), and
// those it starts or that start it (stat, status; calculate, calc), nearest first.
func Closest(typed string, names []string) []string {
	const maxShown = 3
	t := strings.ToLower(typed)
	maxEdits := 2
	if len(t) <= 4 {
		maxEdits = 1 // two edits of a short word reach most short names
	}
	type near struct {
		name  string
		edits int
	}
	var found []near
	for _, name := range names {
		n := strings.ToLower(name)
		d := editDistance(t, n)
		if d <= maxEdits || (min(len(t), len(n)) >= 3 && (strings.HasPrefix(n, t) || strings.HasPrefix(t, n))) {
			found = append(found, near{name, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].edits < found[j].edits })
	var out []string
	for _, f := range found[:min(len(found), maxShown)] {
		out = append(out, f.name)
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b, by bytes (flag and verb
// names are ASCII): Levenshtein's, with two neighbouring letters swapped counted as one edit, the
// commonest slip of a short word (clac, rnu), which Levenshtein counts as two and so reached no
// four-letter name.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
