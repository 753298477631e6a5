package results

import "encoding/json"

// targetJSON is a Target in results.json: the value of a target that was not evaluated is null,
// so that no reader takes it for a measured 0, and so is its limit where the run's own figures
// would have given it (LimitFromRun). A two-sided target has its range, [low, high], beside the
// limit, which is then the bound nearest the value.
type targetJSON struct {
	Name      string      `json:"name"`
	Criterion string      `json:"criterion"`
	Value     *float64    `json:"value"`
	Limit     *float64    `json:"limit"`
	Range     *[2]float64 `json:"range,omitempty"`
	Unit      string      `json:"unit"`
	Evaluated bool        `json:"evaluated"`
	Met       bool        `json:"met"`
	Note      string      `json:"note,omitempty"`
	Over      int         `json:"over,omitempty"`
	Worst     []Evidence  `json:"worst,omitempty"`
}

// MarshalJSON writes t as targetJSON.
func (t Target) MarshalJSON() ([]byte, error) {
	j := targetJSON{Name: t.Name, Criterion: t.Criterion, Unit: t.Unit, Evaluated: t.Evaluated, Met: t.Met,
		Note: t.Note, Over: t.Over, Worst: t.Worst}
	if t.Evaluated {
		j.Value = &t.Value
	}
	if t.Evaluated || !t.LimitFromRun {
		j.Limit = &t.Limit
	}
	if t.Ranged {
		j.Range = &t.Range
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, and the 0 that files written before it held.
func (t *Target) UnmarshalJSON(b []byte) error {
	var j targetJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Target{Name: j.Name, Criterion: j.Criterion, Unit: j.Unit, Evaluated: j.Evaluated, Met: j.Met,
		Note: j.Note, Over: j.Over, Worst: j.Worst, LimitFromRun: j.Limit == nil}
	if j.Limit != nil {
		t.Limit = *j.Limit
	}
	if j.Value != nil {
		t.Value = *j.Value
	}
	if j.Range != nil {
		t.Range, t.Ranged = *j.Range, true
	}
	return nil
}
