package results

import "fmt"

// LossFaults names the series that lost more samples than the network can explain: every sample
// of a series (a network drops some packets, never all of an arm's), or more than allowed(s) of
// them, a fraction, where the producer knows the network must not lose (a level QJump protects).
// allowed may be nil.
func LossFaults(series []Series, allowed func(Series) (float64, bool)) []string {
	var out []string
	for _, s := range series {
		if s.Samples == 0 {
			continue
		}
		if s.Empty() {
			out = append(out, fmt.Sprintf("arm %s: %s %s lost all %d samples: the measurement recorded nothing",
				s.Arm, s.Tool, s.Metric, s.Samples))
			continue
		}
		if allowed == nil {
			continue
		}
		frac := float64(s.Lost) / float64(s.Samples)
		if limit, ok := allowed(s); ok && frac > limit {
			out = append(out, fmt.Sprintf("arm %s: %s %s lost %d of %d samples (%.2g%%), more than the %.2g%% the network can lose there",
				s.Arm, s.Tool, s.Metric, s.Lost, s.Samples, 100*frac, 100*limit))
		}
	}
	return out
}
