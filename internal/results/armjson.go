package results

import "encoding/json"

// armJSON is an Arm as results.json holds it, for reading (MarshalJSON writes the fields in order
// itself). An arm with a model bound (fan-in) has three
// figures: bound_us, the bound where the model guarantees it and null where it does not;
// formula_us, the same formula continued, which the plots draw for comparison; and
// bound_guaranteed. Files written before formula_us held the formula in bound_us.
type armJSON struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	QJump           bool     `json:"qjump"`
	Bulk            string   `json:"bulk"`
	Param           *float64 `json:"param"`
	Skipped         string   `json:"skipped"`
	Truncated       string   `json:"truncated"`
	BoundUS         *float64 `json:"bound_us"`
	FormulaUS       *float64 `json:"formula_us"`
	BoundGuaranteed bool     `json:"bound_guaranteed"`
}

// MarshalJSON writes a as armJSON, in its fields' order.
func (a Arm) MarshalJSON() ([]byte, error) {
	fields := []field{{"name", a.Name}, {"description", a.Description}, {"qjump", a.QJump}, {"bulk", a.Bulk}}
	if a.HasParam {
		fields = append(fields, field{"param", a.Param})
	}
	if a.Skipped != "" {
		fields = append(fields, field{"skipped", a.Skipped})
	}
	if a.Truncated != "" {
		fields = append(fields, field{"truncated", a.Truncated})
	}
	if a.BoundUS != 0 {
		var bound any // null: the model guarantees no bound here
		if a.BoundGuaranteed {
			bound = a.BoundUS
		}
		fields = append(fields, field{"bound_us", bound}, field{"formula_us", a.BoundUS}, field{"bound_guaranteed", a.BoundGuaranteed})
	}
	return marshalObject(fields)
}

// UnmarshalJSON reads what MarshalJSON writes, and the older form without formula_us.
func (a *Arm) UnmarshalJSON(b []byte) error {
	var j armJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*a = Arm{Name: j.Name, Description: j.Description, QJump: j.QJump, Bulk: j.Bulk, Skipped: j.Skipped,
		Truncated: j.Truncated, BoundGuaranteed: j.BoundGuaranteed}
	if j.Param != nil {
		a.Param, a.HasParam = *j.Param, true
	}
	switch {
	case j.FormulaUS != nil:
		a.BoundUS = *j.FormulaUS
	case j.BoundUS != nil:
		a.BoundUS = *j.BoundUS
	}
	return nil
}
