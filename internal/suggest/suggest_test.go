package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"up", "down", "status", "reload", "calc", "sim"}
	for typed, want := range map[string][]string{
		"stat":    {"status"},
		"relaod":  {"reload"},
		"dwn":     {"down"},
		"upp":     {"up"},
		"xyz":     nil,
		"sims":    {"sim"},
		"STATUS":  {"status"},
		"calcxyz": {"calc"},
		// two neighbouring letters swapped are one edit (review, helper-60: clac found nothing)
		"clac": {"calc"},
		"smi":  {"sim"},
		"pu":   {"up"},
	} {
		if got := Closest(typed, names); !slices.Equal(got, want) {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
	if got := Closest("ab", []string{"abc", "abd", "abe", "abf"}); len(got) != 3 {
		t.Errorf("closest shows %q, want at most three", got)
	}
	// Nearest first: the name typed exactly before the longer one it starts.
	if got, want := Closest("calc", []string{"calculate", "calc"}), []string{"calc", "calculate"}; !slices.Equal(got, want) {
		t.Errorf("Closest(calc) = %q, want %q, nearest first", got, want)
	}
}

// DidYouMean reads its candidates and leaves them as they were: a caller that keeps its slice
// would have found each name prefixed once per call (review, helper-86).
func TestDidYouMeanLeavesItsCandidates(t *testing.T) {
	names := []string{"status", "stats"}
	for range 2 {
		if got, want := DidYouMean(names, "--"), ": did you mean --status or --stats?"; got != want {
			t.Errorf("DidYouMean = %q, want %q", got, want)
		}
	}
	if names[0] != "status" || names[1] != "stats" {
		t.Errorf("candidates after DidYouMean: %q, want them unchanged", names)
	}
}
