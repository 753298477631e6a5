package results

import "fmt"

// Target is one pass criterion, evaluated on the measured figures.
type Target struct {
	Name      string  `json:"name"`
	Criterion string  `json:"criterion"`
	Value     float64 `json:"value"`
	Limit     float64 `json:"limit"`
	Unit      string  `json:"unit"`
	Evaluated bool    `json:"evaluated"`
	Met       bool    `json:"met"`
	Note      string  `json:"note,omitempty"`
}

// Verdict is the target's outcome in words, with its value and limit.
func (t Target) Verdict() string {
	if !t.Evaluated {
		return "NOT EVALUATED (" + t.Note + ")"
	}
	word := "MET"
	if !t.Met {
		word = "MISSED"
	}
	return fmt.Sprintf("%s (%.3g %s, limit %.3g %s)", word, t.Value, t.Unit, t.Limit, t.Unit)
}
