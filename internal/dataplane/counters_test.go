package dataplane

import "testing"

// TestEveryVerdictIsTallied: each verdict of qjump.h adds into its own pair of Counters fields, so
// a verdict added to the program cannot go unreported or land in another's fields.
func TestEveryVerdictIsTallied(t *testing.T) {
	var c Counters
	seen := map[*uint64]bool{}
	for v, tally := range tallies {
		if tally == nil {
			t.Fatalf("verdict %d has no Counters fields in tallies", v)
		}
		packets, bytes := tally(&c)
		if seen[packets] || seen[bytes] || packets == bytes {
			t.Errorf("verdict %d shares a Counters field with another", v)
		}
		seen[packets], seen[bytes] = true, true
	}
}
