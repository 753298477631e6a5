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
