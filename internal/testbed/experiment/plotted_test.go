package experiment

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// rendered is r judged as finish judges it, as summary.md and results.json: faults, plotted figures, targets.
func rendered(t *testing.T, r *Results) (md string, doc string) {
	t.Helper()
	r.judge()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return Summary(r), string(b)
}

// The figures the plots draw and no series shows are written down: 2pc's committed/s per arm
// and ratio with qjump's over tcp's (Fig. 6), memcached's requests/s per factor without and with
// bulk (Fig. 10), the RMS per arm and over the ideal's (Fig. 7), in summary.md and results.json;
// and the paper's rates stand beside those, not beside a latency series (review, helper-83).
func TestPlottedFiguresAreWrittenDown(t *testing.T) {
	r := twoPCFixture(4)
	md, doc := rendered(t, r)
	for _, want := range []string{"## Figures", "| interference ratio | tcp committed/s | udp committed/s | qjump committed/s | qjump / tcp × |",
		"| 0 | 1198 | 674 | 1716 | 1.43 |", "| 4 | 0.265 | 1.8 | 809 | 3053 |", "| 4, generators between their own hosts (machine load) | – | – | 765 | – |",
		"The paper: 10 G, 10,000/s without interference"} {
		if !strings.Contains(md, want) {
			t.Errorf("2pc summary.md lacks %q:\n%s", want, md)
		}
	}
	if want := `"rows":[{"key":"0","values":[1198,674,1716,1.432]},{"key":"4","values":[0.265,1.8,809,3052.83]}`; !strings.Contains(doc, want) {
		t.Errorf("2pc results.json lacks %s:\n%s", want, doc)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.Contains(line, "| 2pc | txn |") && strings.Contains(line, "/s") {
			t.Errorf("a rate beside a latency series: %s", line)
		}
	}

	quiet := map[float64]float64{1: 1344.6, 2: 2588.5, 4: 5250.3, 8.975: 10819.2}
	bulk := map[float64]float64{1: 1224.4, 2: 2169.8, 4: 2482.9, 8.975: 2588.8}
	r = sweepFixture(10393.7, quiet, bulk)
	for _, f5 := range []float64{1, 2, 4, 8.975} {
		r.Arms = append(r.Arms, results.Arm{Name: sweepArm(f5, false), Param: f5, HasParam: true}, results.Arm{Name: sweepArm(f5, true), Param: f5, HasParam: true})
	}
	md, _ = rendered(t, r)
	for _, want := range []string{"| f5 | no bulk requests/s | with bulk requests/s | model cap requests/s |",
		"| idle, no QJump | 10394 | – | – |", "| 4 | 5250 | 2483 | 5350 |", "| 8.97 | 10819 | 2589 | 12005 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("memcached-sweep summary.md lacks %q:\n%s", want, md)
		}
	}

	r = &Results{Header: results.Header{Experiment: "ptp"}, Testbed: testbed.DefaultConfig(4)}
	r.Model = modelInfo(r.Testbed, 30*time.Microsecond)
	for arm, rms := range map[string]float64{"idle": 11.7, "contended": 1543, "qjump": 46.4} {
		r.Series = append(r.Series, results.Series{Arm: arm, Tool: toolPTP, Metric: metricOffset, Stats: results.Stats{Samples: 192, RMSUS: rms}})
	}
	md, _ = rendered(t, r)
	for _, want := range []string{"| arm | PTP RMS offset µs | / idle × |", "| contended | 1543 | 132 |", "| qjump | 46.4 | 3.97 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("ptp summary.md lacks %q:\n%s", want, md)
		}
	}
	// A ptp run without a series draws no bars, and has no figure table naming them (review,
	// helper-92).
	r.Series = nil
	if md, _ = rendered(t, r); strings.Contains(md, "PTP RMS offset") {
		t.Errorf("ptp without series has a figure table:\n%s", md)
	}
}

// Fig. 7's bars name on their y axis the arm they are normalised to, as their title does: the
// axis read "RMS / ideal RMS" under "normalised to alone" (review, helper-83).
func TestNormalisedBarsNameTheirArm(t *testing.T) {
	r := &Results{}
	for arm, rms := range map[string]float64{"alone": 12.3, "contended": 4103, "qjump": 20.9} {
		r.Series = append(r.Series, results.Series{Arm: arm, Tool: toolPTP, Metric: metricOffset, Stats: results.Stats{Samples: 192, RMSUS: rms}})
	}
	b := normalisedBars(r, "f.png", "Fig. 7: PTP RMS offset, normalised to alone", mixedPhases, toolPTP, metricOffset)
	if b.YLabel != "RMS / alone's RMS" || len(b.Values) != 3 || b.Values[1] != 333.577 {
		t.Errorf("bars %+v", b)
	}
}
