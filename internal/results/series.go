package results

import "encoding/json"

// Series is the statistics of one arm's samples from one tool and metric.
type Series struct {
	Arm    string
	Tool   string
	Metric string
	Param  float64 // the arm's swept parameter (fan-in: f7), 0 elsewhere
	// Unit is what the figures count when they are not µs (the simulator's normalised flow
	// completion time: "x ideal"); results.json keeps them under the same names.
	Unit string
	Stats
}

// Key names the series.
func (s Series) Key() Key { return Key{Arm: s.Arm, Tool: s.Tool, Metric: s.Metric} }

// SeriesOf groups rows by arm, tool and metric, in the order the series first appear.
func SeriesOf(rows []Row) []Series {
	groups := map[Key][]Row{}
	var order []Key
	for _, row := range rows {
		k := row.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], row)
	}
	var out []Series
	for _, k := range order {
		g := groups[k]
		out = append(out, Series{Arm: k.Arm, Tool: k.Tool, Metric: k.Metric, Param: g[0].Param, Stats: Summarise(g)})
	}
	return out
}

// seriesJSON is a series in results.json: the figures of a series without a delivered sample are
// null, so that no reader takes them for 0 µs.
type seriesJSON struct {
	Arm     string   `json:"arm"`
	Tool    string   `json:"tool"`
	Metric  string   `json:"metric"`
	Param   float64  `json:"param,omitempty"`
	Unit    string   `json:"unit,omitempty"`
	Samples int      `json:"samples"`
	Lost    int      `json:"lost"`
	MeanUS  *float64 `json:"mean_us"`
	P50US   *float64 `json:"p50_us"`
	P90US   *float64 `json:"p90_us"`
	P99US   *float64 `json:"p99_us"`
	P999US  *float64 `json:"p999_us"`
	MaxUS   *float64 `json:"max_us"`
}

// MarshalJSON writes s with null figures when it has no delivered sample.
func (s Series) MarshalJSON() ([]byte, error) {
	j := seriesJSON{Arm: s.Arm, Tool: s.Tool, Metric: s.Metric, Param: s.Param, Unit: s.Unit, Samples: s.Samples, Lost: s.Lost}
	if !s.Empty() {
		j.MeanUS, j.P50US, j.P90US, j.P99US, j.P999US, j.MaxUS = &s.MeanUS, &s.P50US, &s.P90US, &s.P99US, &s.P999US, &s.MaxUS
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; a null figure is absent (0 in an Empty series).
func (s *Series) UnmarshalJSON(b []byte) error {
	var j seriesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	val := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	*s = Series{Arm: j.Arm, Tool: j.Tool, Metric: j.Metric, Param: j.Param, Unit: j.Unit, Stats: Stats{Samples: j.Samples, Lost: j.Lost,
		MeanUS: val(j.MeanUS), P50US: val(j.P50US), P90US: val(j.P90US), P99US: val(j.P99US), P999US: val(j.P999US), MaxUS: val(j.MaxUS)}}
	return nil
}
