package results

import (
	"encoding/json"
	"sort"
	"strconv"
)

// Series is the statistics of one arm's samples from one tool and metric.
type Series struct {
	Arm    string
	Tool   string
	Metric string
	// Param is the arm's value of the experiment's swept parameter (fan-in: f7), where HasParam
	// says the arm is a point of the sweep; results.json writes it only then, and 0 is a value
	// like any other (2pc's ratio 0: no interference).
	Param    float64
	HasParam bool
	// Unit is what the figures count when they are not µs (the simulator's normalised flow
	// completion time: "x ideal"); results.json then names them without `_us` (MarshalJSON).
	Unit string
	Stats
	// noRMS says that the file the series was read from holds no RMS (written before it was
	// computed), so that results.json writes it back null, not a 0 that was never measured.
	noRMS bool
}

// Key names the series.
func (s Series) Key() Key { return Key{Arm: s.Arm, Tool: s.Tool, Metric: s.Metric} }

// SeriesOf groups rows by arm, tool and metric: arms in the order they first appear, and within
// every arm the same order of tools and metrics, the order in which each first appears in the
// run. Within an arm the tools run at once and either may write the first sample, so the order
// of first appearance within each arm put ping first in one arm and the probe first in the next.
func SeriesOf(rows []Row) []Series {
	groups := map[Key][]Row{}
	var order []Key
	arm, kind := map[string]int{}, map[[2]string]int{} // first appearances
	for _, row := range rows {
		k := row.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], row)
		if _, ok := arm[k.Arm]; !ok {
			arm[k.Arm] = len(arm)
		}
		if _, ok := kind[[2]string{k.Tool, k.Metric}]; !ok {
			kind[[2]string{k.Tool, k.Metric}] = len(kind)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if arm[a.Arm] != arm[b.Arm] {
			return arm[a.Arm] < arm[b.Arm]
		}
		return kind[[2]string{a.Tool, a.Metric}] < kind[[2]string{b.Tool, b.Metric}]
	})
	var out []Series
	for _, k := range order {
		g := groups[k]
		out = append(out, Series{Arm: k.Arm, Tool: k.Tool, Metric: k.Metric, Param: g[0].Param, HasParam: g[0].Param != 0,
			Stats: Summarise(g)})
	}
	return out
}

// seriesJSON is a series as results.json holds it, for reading. A figure's name carries its unit:
// `mean_us` for the µs of a latency series, plain `mean` for a series with a Unit of its own (the
// simulator's normalised FCT, a ratio, which a `_us` name would misreport). The figures of a
// series without a delivered sample are null, so that no reader takes them for 0, and so is
// per_sec when the tool gives no send times.
type seriesJSON struct {
	Arm     string   `json:"arm"`
	Tool    string   `json:"tool"`
	Metric  string   `json:"metric"`
	Param   *float64 `json:"param"`
	Unit    string   `json:"unit,omitempty"`
	Samples int      `json:"samples"`
	Lost    int      `json:"lost"`
	MeanUS  *float64 `json:"mean_us"`
	P50US   *float64 `json:"p50_us"`
	P90US   *float64 `json:"p90_us"`
	P99US   *float64 `json:"p99_us"`
	P999US  *float64 `json:"p999_us"`
	MaxUS   *float64 `json:"max_us"`
	RMSUS   *float64 `json:"rms_us"`
	Mean    *float64 `json:"mean"`
	P50     *float64 `json:"p50"`
	P90     *float64 `json:"p90"`
	P99     *float64 `json:"p99"`
	P999    *float64 `json:"p999"`
	Max     *float64 `json:"max"`
	RMS     *float64 `json:"rms"`
	PerSec  *float64 `json:"per_sec"`
}

// figures are the places of a series' seven figures in seriesJSON under one naming.
func (j *seriesJSON) figures(unit string) [7]**float64 {
	if unit == "" {
		return [7]**float64{&j.MeanUS, &j.P50US, &j.P90US, &j.P99US, &j.P999US, &j.MaxUS, &j.RMSUS}
	}
	return [7]**float64{&j.Mean, &j.P50, &j.P90, &j.P99, &j.P999, &j.Max, &j.RMS}
}

// figures are the series' seven figures in seriesJSON's order.
func (s *Series) figures() [7]*float64 {
	return [7]*float64{&s.MeanUS, &s.P50US, &s.P90US, &s.P99US, &s.P999US, &s.MaxUS, &s.RMSUS}
}

// MarshalJSON writes s under the names of its unit, its fields in a fixed order.
func (s Series) MarshalJSON() ([]byte, error) {
	fields := []field{{"arm", s.Arm}, {"tool", s.Tool}, {"metric", s.Metric}}
	if s.HasParam {
		fields = append(fields, field{"param", s.Param})
	}
	suffix := "_us"
	if s.Unit != "" {
		fields = append(fields, field{"unit", s.Unit})
		suffix = ""
	}
	fields = append(fields, field{"samples", s.Samples}, field{"lost", s.Lost})
	for i, v := range s.figures() {
		var f any // null in an empty series, and an RMS the file read held none of
		if !s.Empty() && !(v == &s.RMSUS && s.noRMS) {
			f = *v
		}
		fields = append(fields, field{figureNames[i] + suffix, f})
	}
	var perSec any // null: the tool gives no send times
	if s.PerSec != 0 {
		perSec = s.PerSec
	}
	return marshalObject(append(fields, field{"per_sec", perSec}))
}

// figureNames are the figures' names without their unit, in the order of Series.figures.
var figureNames = [7]string{"mean", "p50", "p90", "p99", "p999", "max", "rms"}

// field is one name and value of a JSON object written in order.
type field struct {
	name  string
	value any
}

// marshalObject writes fields as one JSON object, in their order.
func marshalObject(fields []field) ([]byte, error) {
	b := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b = strconv.AppendQuote(b, f.name)
		b = append(append(b, ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes; a null figure is absent (0 in an Empty series). A
// file written before series had an RMS holds none: it stays absent (noRMS).
func (s *Series) UnmarshalJSON(b []byte) error {
	var j seriesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Series{Arm: j.Arm, Tool: j.Tool, Metric: j.Metric, Unit: j.Unit, Stats: Stats{Samples: j.Samples, Lost: j.Lost}}
	if j.Param != nil {
		s.Param, s.HasParam = *j.Param, true
	}
	if j.PerSec != nil {
		s.PerSec = *j.PerSec
	}
	// Files written before unit series had names of their own put every figure under `_us`.
	from := j.figures(j.Unit)
	if j.Unit != "" && j.Mean == nil && j.MeanUS != nil {
		from = j.figures("")
	}
	for i, v := range s.figures() {
		if p := *from[i]; p != nil {
			*v = *p
		}
	}
	s.noRMS = !s.Empty() && *from[6] == nil
	return nil
}
