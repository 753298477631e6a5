package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/version"
)

// rowsOf makes one delivered row per latency (µs) and lost rows, of arm a.
func rowsOf(a string, param float64, lost int, us ...int64) []Row {
	var rows []Row
	for i, x := range us {
		rows = append(rows, Row{Arm: a, Tool: "probe", Metric: "oneway", Sender: 2, Seq: uint64(i), LatencyNS: x * 1000, Param: param})
	}
	for i := range lost {
		rows = append(rows, Row{Arm: a, Tool: "probe", Metric: "oneway", Sender: 2, Seq: uint64(len(us) + i), Lost: true, Param: param})
	}
	return rows
}

func TestSummariseNearestRank(t *testing.T) {
	var us []int64
	for i := int64(1000); i >= 1; i-- { // 1..1000 µs, unsorted
		us = append(us, i)
	}
	s := Summarise(rowsOf("idle", 0, 3, us...))
	want := Stats{Samples: 1003, Lost: 3, MeanUS: 500.5, P50US: 500, P90US: 900, P99US: 990, P999US: 999, MaxUS: 1000,
		RMSUS: 577.783} // √(Σi²/1000); no send times, so no rate
	if s != want {
		t.Errorf("Summarise = %+v, want %+v", s, want)
	}
	if s.Delivered() != 1000 || s.Empty() {
		t.Errorf("1000 delivered samples: Delivered %d, Empty %v", s.Delivered(), s.Empty())
	}
	// Figures keep the nanosecond: 1.2345 µs is 1.235 (rounded), not 1.
	if got := Summarise([]Row{{LatencyNS: 1234}}); got.P50US != 1.234 || got.MeanUS != 1.234 {
		t.Errorf("one sample of 1234 ns: %+v", got)
	}
}

// PerSec is a closed-loop tool's throughput: delivered samples over the span from the first send
// to the end of the last sample; a lost sample counts in the span but not in the rate.
func TestPerSec(t *testing.T) {
	rows := []Row{{SendNS: 1e9, LatencyNS: 1e6}, {SendNS: 1.5e9, Lost: true}, {SendNS: 2e9, LatencyNS: 1e9}}
	if s := Summarise(rows); s.PerSec != 1 {
		t.Errorf("2 delivered over 2 s: PerSec %g, want 1", s.PerSec)
	}
	if s := Summarise([]Row{{LatencyNS: 5}, {SendNS: 1, LatencyNS: 5}}); s.PerSec != 0 {
		t.Errorf("a row without a send time: PerSec %g, want 0", s.PerSec)
	}
}

func TestEmptySeries(t *testing.T) {
	s := Summarise(rowsOf("f7=1", 1, 5))
	if !s.Empty() || s.Samples != 5 || s.Lost != 5 || s.Delivered() != 0 {
		t.Fatalf("all lost: %+v", s)
	}
	if !(Stats{}).Empty() {
		t.Error("no samples at all should be Empty")
	}
	o := Outcome{Series: SeriesOf(rowsOf("f7=1", 1, 5))}
	got, ok := o.Lookup(Key{Arm: "f7=1", Tool: "probe", Metric: "oneway"})
	if ok || got.Samples != 5 {
		t.Errorf("Lookup of an all-lost series: %+v, %v; want it found but not judgeable", got, ok)
	}
	if _, ok := o.Lookup(Key{Arm: "nope"}); ok {
		t.Error("Lookup found a series that does not exist")
	}
}

func TestSeriesJSON(t *testing.T) {
	rows := append(rowsOf("idle", 0, 1, 10, 20, 30), rowsOf("f7=0.5", 0.5, 4)...)
	series := SeriesOf(rows)
	if len(series) != 2 || series[0].Arm != "idle" || series[1].Param != 0.5 {
		t.Fatalf("SeriesOf: %+v", series)
	}
	b, err := json.Marshal(series)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"arm":"idle","tool":"probe","metric":"oneway","samples":4,"lost":1,"mean_us":20,"p50_us":20,"p90_us":30,"p99_us":30,"p999_us":30,"max_us":30,"rms_us":21.602,"per_sec":null},` +
		`{"arm":"f7=0.5","tool":"probe","metric":"oneway","param":0.5,"samples":4,"lost":4,"mean_us":null,"p50_us":null,"p90_us":null,"p99_us":null,"p999_us":null,"max_us":null,"rms_us":null,"per_sec":null}]`
	if string(b) != want {
		t.Errorf("series JSON:\n%s\nwant:\n%s", b, want)
	}
	var back []Series
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0] != series[0] || back[1] != series[1] {
		t.Errorf("round trip: %+v, want %+v", back, series)
	}
}

// A series read from a file written before series had an RMS writes it back null: its samples,
// which are not in the file, were never summed, and 0 would read as a measured RMS.
func TestSeriesWithoutRMSStaysWithout(t *testing.T) {
	old := `{"arm":"f7=1","tool":"probe","metric":"network","param":1,"samples":4,"lost":0,"mean_us":20,"p50_us":20,"p90_us":30,"p99_us":30,"p999_us":30,"max_us":30}`
	var s Series
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	want := strings.TrimSuffix(old, "}") + `,"rms_us":null,"per_sec":null}`
	if err != nil || string(b) != want {
		t.Errorf("series without rms_us written back as\n%s, %v\nwant\n%s", b, err, want)
	}
}

// A series with a unit of its own (a ratio) names its figures without `_us`, so that no reader
// takes them for microseconds, and still reads a file written before it did.
func TestUnitSeriesJSON(t *testing.T) {
	s := Series{Arm: "tcp", Tool: "sim", Metric: "fct", Unit: "x ideal", Stats: Stats{Samples: 3, MeanUS: 2.5, P50US: 2, P90US: 3, P99US: 3,
		P999US: 3, MaxUS: 3, RMSUS: 2.6, PerSec: 12}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"arm":"tcp","tool":"sim","metric":"fct","unit":"x ideal","samples":3,"lost":0,"mean":2.5,"p50":2,"p90":3,"p99":3,"p999":3,"max":3,"rms":2.6,"per_sec":12}`
	if string(b) != want {
		t.Errorf("unit series JSON:\n%s\nwant:\n%s", b, want)
	}
	var back Series
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("round trip: %+v, %v; want %+v", back, err, s)
	}
	old := `{"arm":"tcp","tool":"sim","metric":"fct","unit":"x ideal","samples":3,"lost":0,"mean_us":2.5,"p50_us":2,"p90_us":3,"p99_us":3,"p999_us":3,"max_us":3,"rms_us":2.6,"per_sec":12}`
	back = Series{}
	if err := json.Unmarshal([]byte(old), &back); err != nil || back != s {
		t.Errorf("old-format unit series: %+v, %v; want %+v", back, err, s)
	}
}

// doc is a producer's results document: the generic parts around its own setup.
type doc struct {
	Header
	Setup string `json:"setup"`
	Outcome
}

func TestDocumentRoundTrip(t *testing.T) {
	d := doc{Header: Header{Experiment: "x", Title: "X", Quick: true, Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), DurationS: 12},
		Setup: "s", Outcome: Outcome{Arms: []Arm{{Name: "idle", Bulk: "none"}, {Name: "f7=1", QJump: true, Param: 1, BoundUS: 646, BoundGuaranteed: true}},
			Series:  SeriesOf(append(rowsOf("idle", 0, 0, 1, 2), rowsOf("f7=1", 1, 2)...)),
			Targets: []Target{{Name: "t", Criterion: "c", Value: 1, Limit: 2, Unit: "µs", Evaluated: true, Met: true}}, Files: []string{"a.png"}}}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := WriteJSON(path, d); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	// The producer's setup sits between the header and the outcome.
	if i, j, k := bytes.Index(raw, []byte(`"duration_s"`)), bytes.Index(raw, []byte(`"setup"`)), bytes.Index(raw, []byte(`"arms"`)); !(i < j && j < k) {
		t.Errorf("field order: duration_s at %d, setup at %d, arms at %d:\n%s", i, j, k, raw)
	}
	var back doc
	if err := ReadJSON(path, &back); err != nil {
		t.Fatal(err)
	}
	b1, _ := json.Marshal(d)
	b2, _ := json.Marshal(back)
	if !bytes.Equal(b1, b2) {
		t.Errorf("round trip:\n%s\nwant:\n%s", b2, b1)
	}
	if a, ok := back.Arm("f7=1"); !ok || !a.BoundGuaranteed {
		t.Errorf("Arm(f7=1) = %+v, %v", a, ok)
	}
	if err := ReadJSON(filepath.Join(t.TempDir(), "none.json"), &back); err == nil {
		t.Error("reading a missing file gave no error")
	}
}

// A results file that does not parse is named with its line and what is wrong in JSON's terms: the
// key and the kind of value it needs, not encoding/json's Go struct and type.
func TestReadJSONSaysWhatIsWrong(t *testing.T) {
	type doc struct {
		Header
		Model struct {
			Hosts int `json:"hosts"`
		} `json:"model"`
		Outcome
	}
	for _, c := range []struct{ in, want string }{
		{"{\n  \"experiment\": 5\n}\n", `line 2: "experiment" is a number, need a string`},
		{"{\n  \"model\": {\n    \"hosts\": \"4\"\n  }\n}\n", `line 3: "model.hosts" is a string, need a whole number`},
		{"{\n  \"model\": {\n    \"hosts\": 1.5\n  }\n}\n", `line 3: "model.hosts" is 1.5, need a whole number`},
		{"{\n  \"arms\": {}\n}\n", `line 2: "arms" is an object, need an array`},
		{"[1]", `line 1: the document is an array, need an object`},
		{"{\n  \"experiment\": \"fan-in\",\n", "line 3: unexpected end of JSON input"},
		{"{\n  \"experiment\" \"fan-in\"\n}", `line 2: invalid character '"' after object key`},
		{"\n", "the file is empty"},
	} {
		path := filepath.Join(t.TempDir(), "results.json")
		if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		var d doc
		err := ReadJSON(path, &d)
		if want := "parse " + path + ": " + c.want; err == nil || err.Error() != want {
			t.Errorf("%q: %v; want %s", c.in, err, want)
		}
	}
}

// A samples.csv that does not parse is named, with the line.
func TestReadRowsFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "samples.csv")
	if err := os.WriteFile(path, []byte(strings.Join(RowHeader, ",")+"\na,b,c,1,2,3,4,false,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadRowsFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": line 2: ") {
		t.Errorf("%v; want it to name %s and line 2", err, path)
	}
}

// A bad value names its column and what the column takes, not strconv's text.
func TestReadRowsNamesTheColumn(t *testing.T) {
	for row, want := range map[string]string{
		"a,b,c,1,2,3,4,false,x":   `line 2: param "x": need a finite number`,
		"a,b,c,1,2,3,4,false,NaN": `line 2: param "NaN": need a finite number`,
		"a,b,c,h1,2,3,4,false,0":  `line 2: sender "h1": need a whole number (the sending host)`,
		"a,b,c,1,-2,3,4,false,0":  `line 2: seq "-2": need a whole number, 0 or more`,
		"a,b,c,1,2,3.5,4,false,0": `line 2: send_ns "3.5": need a whole number of nanoseconds`,
		"a,b,c,1,2,3,4us,false,0": `line 2: latency_ns "4us": need a whole number of nanoseconds`,
		"a,b,c,1,2,3,4,maybe,0":   `line 2: lost "maybe": need true or false`,
	} {
		_, err := ReadRows(strings.NewReader(strings.Join(RowHeader, ",") + "\n" + row + "\n"))
		if err == nil || err.Error() != want || strings.Contains(err.Error(), "strconv") {
			t.Errorf("%s: %v; want %s", row, err, want)
		}
	}
}

func TestRowsCSVRoundTrip(t *testing.T) {
	rows := []Row{{Arm: "a", Tool: "probe", Metric: "network", Sender: 3, Seq: 7, SendNS: 1_700_000_000_000_000_000, LatencyNS: 1234, Param: 0.5},
		{Arm: "a", Tool: "ping", Metric: "rtt", Sender: 1, Seq: 1, Lost: true}}
	var b bytes.Buffer
	if err := WriteRows(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "arm,tool,metric,sender,seq,send_ns,latency_ns,lost,param\n" +
		"a,probe,network,3,7,1700000000000000000,1234,false,0.5\na,ping,rtt,1,1,0,0,true,0\n"
	if b.String() != want {
		t.Errorf("samples.csv:\n%s\nwant:\n%s", b.String(), want)
	}
	back, err := ReadRows(&b)
	if err != nil || len(back) != 2 || back[0] != rows[0] || back[1] != rows[1] {
		t.Errorf("read back %+v, %v", back, err)
	}
	for name, in := range map[string]string{
		"short":     strings.Join(RowHeader, ",") + "\na,b\n",
		"bad float": strings.Join(RowHeader, ",") + "\na,b,c,1,2,3,4,false,x\n",
		"NaN param": strings.Join(RowHeader, ",") + "\na,b,c,1,2,3,4,false,NaN\n",
		"Inf param": strings.Join(RowHeader, ",") + "\na,b,c,1,2,3,4,false,-Inf\n",
		"no header": "a,b,c,1,2,3,4,false,1\n",
		"empty":     "",
	} {
		if _, err := ReadRows(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

var explained = 12.0

func testView() View {
	rows := append(rowsOf("idle", 0, 0, 10, 20), rowsOf("f7=1", 1, 3)...)
	return View{Header: Header{Experiment: "fan-in", Title: "Fan-in", Quick: true, Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), DurationS: 12},
		Outcome: Outcome{Arms: []Arm{{Name: "idle", Description: "quiet", Bulk: "none"}, {Name: "f7=1", Description: "on", Bulk: "h2→h1", QJump: true},
			{Name: "both", Description: "needs 4", Skipped: "needs 4 hosts"}},
			Series: SeriesOf(rows),
			Targets: []Target{{Name: "t1", Criterion: "small", Value: 1.5, Limit: 2, Unit: "µs", Evaluated: true, Met: true},
				{Name: "t2", Criterion: "big", Note: "no samples"},
				{Name: "t3", Criterion: "strict", Value: 30, Limit: 25, Unit: "µs", Evaluated: true,
					Worst: []Evidence{{Arm: "idle", Sender: 2, Seq: 1, SendNS: 1000, RecvNS: 31000, LatencyUS: 30, ExplainedUS: &explained, Context: "a stall"}}}},
			Faults: []string{"arm f7=1: probe oneway lost all 3 samples"},
			Files:  []string{"samples.csv", "a.png"}},
		Headline: "3 hosts", Method: "QJump: on.",
		// The paper compares with every arm; the all-lost one must still get no verdict.
		Paper: func(s Series) string {
			if s.Arm == "idle" {
				return "85µs"
			}
			return "A: bound met"
		}}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := testView().Table(&b); err != nil {
		t.Fatal(err)
	}
	want := `fan-in: 3 hosts
MEASUREMENT FAULTS: these results are not a measurement of the network:
  arm f7=1: probe oneway lost all 3 samples
   ARM   TOOL  METRIC  SAMPLES  LOST    P50 µs    P90 µs    P99 µs  P99.9 µs    MAX µs  PAPER
  idle  probe  oneway        2     0        10        20        20        20        20   85µs
  f7=1  probe  oneway        3     3  all lost  all lost  all lost  all lost  all lost       
arm both skipped: needs 4 hosts
target t1                   MET (1.5 µs, limit 2 µs): small
target t2                   NOT EVALUATED (no samples): big
target t3                   MISSED (30 µs, limit 25 µs): strict
  worst: idle h2 seq 1: 30 µs (1000 → 31000 ns); queues explain at most 12 µs, 18 µs unexplained; a stall
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestMarkdown(t *testing.T) {
	want := "# Fan-in\n\n3 hosts.\n\nStarted 2026-01-02 03:04 UTC, took 12 s (--quick). QJump: on.\n\n" +
		"**MEASUREMENT FAULTS: these results are not a measurement of the network:**\n\n- arm f7=1: probe oneway lost all 3 samples\n\n" +
		"| arm | tool | metric | samples | lost | p50 µs | p90 µs | p99 µs | p99.9 µs | max µs | paper |\n" +
		"|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n" +
		"| idle | probe | oneway | 2 | 0 | 10 | 20 | 20 | 20 | 20 | 85µs |\n" +
		"| f7=1 | probe | oneway | 3 | 3 | all lost | all lost | all lost | all lost | all lost |  |\n" +
		"\n| arm | traffic sharing the network | QJump |\n|---|---|---|\n" +
		"| idle | quiet (bulk: none) | off |\n| f7=1 | on (bulk: h2→h1) | on |\n| both | needs 4 — **skipped: needs 4 hosts** (bulk: ) | off |\n" +
		"\n## Targets\n\n- **t1** — small: MET (1.5 µs, limit 2 µs)\n- **t2** — big: NOT EVALUATED (no samples)\n" +
		"- **t3** — strict: MISSED (30 µs, limit 25 µs)\n" +
		"  - worst: idle h2 seq 1: 30 µs (1000 → 31000 ns); queues explain at most 12 µs, 18 µs unexplained; a stall\n" +
		"\n## Plots\n\n![a.png](a.png)\n"
	if got := testView().Markdown(); got != want {
		t.Errorf("summary.md:\n%s\nwant:\n%s", got, want)
	}
	noPlots := testView()
	noPlots.Outcome.Files = []string{"results.json", "flows.csv"}
	if got := noPlots.Markdown(); strings.Contains(got, "## Plots") {
		t.Errorf("summary.md of a run without plots has a Plots section:\n%s", got)
	}
}

// A run names the qjump that made it, in results.json and after its duration in summary.md; a
// file from before that was recorded has no "build" and says nothing of it (TestMarkdown).
func TestBuildIsNamed(t *testing.T) {
	v := testView()
	v.Header.Build = version.Info{Version: "(devel)", Revision: "a39ba439d93762acb81cd21cc493eecdacc15eab", Modified: true, Go: "go1.26.8"}
	if got, want := v.Markdown(), "took 12 s (--quick), qjump a39ba439d937+modified. QJump: on."; !strings.Contains(got, want) {
		t.Errorf("summary.md with a build does not say %q:\n%s", want, got)
	}
	with, _ := json.Marshal(v.Header)
	if want := `"build":{"version":"(devel)","revision":"a39ba439d93762acb81cd21cc493eecdacc15eab","modified":true,"go":"go1.26.8"}`; !bytes.Contains(with, []byte(want)) {
		t.Errorf("results.json header %s does not have %s", with, want)
	}
	// An unstamped build says why it names no commit: "qjump unknown" read as a version (review,
	// helper-83).
	v.Header.Build = version.Info{Version: "(devel)", Go: "go1.26.8"}
	if got, want := v.Markdown(), "took 12 s (--quick), qjump (unstamped build: no version or commit recorded, as with -buildvcs=false or outside git). QJump: on."; !strings.Contains(got, want) {
		t.Errorf("summary.md of an unstamped build does not say %q:\n%s", want, got)
	}
	if without, _ := json.Marshal(testView().Header); bytes.Contains(without, []byte(`"build"`)) {
		t.Errorf("results.json header of a run without a build has one: %s", without)
	}
}

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	rows := append(rowsOf("idle", 0, 0, 10, 20, 30), rowsOf("busy", 0, 1, 100, 2000)...)
	files, err := DrawCDFs(rows, dir,
		CDFPlot{File: "cdf.png", Title: "t", XLabel: "µs", Arms: []string{"idle", "busy", "absent"}, Tool: "probe", Metric: "oneway"},
		CDFPlot{File: "none.png", Arms: []string{"idle"}, Tool: "ping", Metric: "rtt"})
	if err != nil || len(files) != 1 || files[0] != "cdf.png" {
		t.Fatalf("DrawCDFs = %v, %v; want only cdf.png (no ping rows)", files, err)
	}
	if f, err := (CDFPlot{File: "lost.png", Arms: []string{"lost"}, Tool: "probe", Metric: "oneway"}).Draw(rowsOf("lost", 0, 4), dir); f != "" || err != nil {
		t.Errorf("a CDF of an arm whose samples were all lost drew %q, %v", f, err)
	}
	pts := append(SeriesOf(rowsOf("f7=0.5", 0.5, 0, 50, 60)), SeriesOf(rowsOf("f7=2", 2, 0, 500, 900))...)
	pts = append(pts, SeriesOf(rowsOf("f7=1", 1, 2))...) // all lost: no point
	bound := func(f7 float64) float64 { return 300 * f7 }
	if x, ok := FirstOver(pts[:2], bound); !ok || x != 2 {
		t.Errorf("FirstOver = %g, %v; want 2 (900 µs > 600 µs)", x, ok)
	}
	f, err := SweepPlot{File: "sweep.png", Param: "f7", Points: pts, Bound: bound, BoundLabel: "bound", FloorUS: 40, FloorLabel: "floor"}.Draw(dir)
	if err != nil || f != "sweep.png" {
		t.Fatalf("SweepPlot.Draw = %q, %v", f, err)
	}
	for _, f := range []string{"cdf.png", "sweep.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if f, err := (SweepPlot{File: "empty.png", Points: pts[2:], Bound: bound}).Draw(dir); f != "" || err != nil {
		t.Errorf("a sweep of all-lost series drew %q, %v", f, err)
	}
}

// An all-lost series is a fault anywhere; a lossy one only where the producer says the network
// must not lose.
func TestLossFaults(t *testing.T) {
	series := SeriesOf(append(append(rowsOf("idle", 0, 1, 10, 20, 30), rowsOf("f7=1", 1, 4)...), rowsOf("f7=2", 2, 1, 10)...))
	got := LossFaults(series, nil)
	if len(got) != 1 || !strings.Contains(got[0], "arm f7=1: probe oneway lost all 4 samples") {
		t.Errorf("LossFaults without limits = %q, want the all-lost arm only", got)
	}
	protected := func(s Series) (float64, bool) { return 0.3, s.Param == 2 }
	got = LossFaults(series, protected)
	if len(got) != 2 || !strings.Contains(got[1], "arm f7=2: probe oneway lost 1 of 2 samples (50%), more than the 30%") {
		t.Errorf("LossFaults with f7=2 protected = %q", got)
	}
}

// results.json carries the faults and a missed target's worst samples, and reads them back.
func TestFaultsAndEvidenceJSON(t *testing.T) {
	o := testView().Outcome
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"faults":["arm f7=1: probe oneway lost all 3 samples"]`,
		`"worst":[{"arm":"idle","sender":2,"seq":1,"send_ns":1000,"recv_ns":31000,"latency_us":30,"explained_us":12,"context":"a stall"}]`,
		`"p50_us":null`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("outcome JSON lacks %s:\n%s", want, b)
		}
	}
	var back Outcome
	if err := json.Unmarshal(b, &back); err != nil || len(back.Faults) != 1 || *back.Targets[2].Worst[0].ExplainedUS != 12 {
		t.Errorf("read back %+v, %v", back, err)
	}
	// A run without faults writes no faults field, as before faults existed.
	if b, _ := json.Marshal(Outcome{}); bytes.Contains(b, []byte("faults")) {
		t.Errorf("empty outcome: %s", b)
	}
}

// A view with its own figures, unit and decimals and no paper column: the simulator's.
func TestTableFiguresAndUnit(t *testing.T) {
	s := Series{Arm: "qjump-0.5", Tool: "websearch", Metric: "fct-small", Param: 0.5, HasParam: true, Unit: "x ideal",
		Stats: Stats{Samples: 3, MeanUS: 1.234, P99US: 2.5}}
	v := View{Header: Header{Experiment: "sim-fct"}, Outcome: Outcome{Series: []Series{s}}, Headline: "8 hosts",
		Figures: []Figure{MeanFigure, LatencyFigures[2]}, Unit: "x ideal", Digits: 2, NoPaper: true}
	var b bytes.Buffer
	if err := v.Table(&b); err != nil {
		t.Fatal(err)
	}
	want := "sim-fct: 8 hosts\n" +
		"        ARM       TOOL     METRIC  SAMPLES  LOST  MEAN x ideal  P99 x ideal\n" +
		"  qjump-0.5  websearch  fct-small        3     0          1.23         2.50\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant:\n%q", b.String(), want)
	}
	j, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(j), `"unit":"x ideal"`) {
		t.Fatalf("series JSON %s, %v: want the unit", j, err)
	}
	var back Series
	if err := json.Unmarshal(j, &back); err != nil || back != s {
		t.Errorf("round trip %+v, %v; want %+v", back, err, s)
	}
}

// A figure against the swept parameter, one curve per group; Empty series and, on a log axis,
// figures that are not positive have no point.
func TestParamPlot(t *testing.T) {
	dir := t.TempDir()
	var pts []Series
	for _, c := range []string{"a", "b"} {
		for _, x := range []float64{0.2, 0.5, 0.8} {
			pts = append(pts, Series{Arm: c, Param: x, Stats: Stats{Samples: 1, MeanUS: 1 + x}})
		}
	}
	pts = append(pts, Series{Arm: "c", Param: 0.5, Stats: Stats{Samples: 2, Lost: 2}})
	curve := func(s Series) string { return s.Arm }
	mean := func(s Stats) float64 { return s.MeanUS }
	f, err := ParamPlot{File: "p.png", LogY: true, Points: pts, Curve: curve, Value: mean}.Draw(dir)
	if err != nil || f != "p.png" {
		t.Fatalf("Draw = %q, %v", f, err)
	}
	if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
		t.Errorf("p.png missing or empty: %v", err)
	}
	zero := func(Stats) float64 { return 0 }
	if f, err := (ParamPlot{File: "z.png", LogY: true, Points: pts, Curve: curve, Value: zero}).Draw(dir); f != "" || err != nil {
		t.Errorf("a log plot of zeros drew %q, %v", f, err)
	}
	// On a linear axis a figure of 0 is a point, so only the series being Empty keeps it out.
	if f, err := (ParamPlot{File: "e.png", Points: pts[len(pts)-1:], Curve: curve, Value: mean}).Draw(dir); f != "" || err != nil {
		t.Errorf("a linear plot of an Empty series drew %q, %v", f, err)
	}
}

// A target that was not evaluated has no value: null, not 0; nor a limit where the run's own
// figures would have given it (a fixed limit stays).
func TestTargetJSONValueNullUnlessEvaluated(t *testing.T) {
	for _, c := range []struct {
		t    Target
		want string
	}{
		{Target{Name: "a", Criterion: "c", Value: 3, Limit: 5, Unit: "µs", Evaluated: true, Met: true},
			`{"name":"a","criterion":"c","value":3,"limit":5,"unit":"µs","evaluated":true,"met":true}`},
		{Target{Name: "b", Criterion: "c", Limit: 5, Unit: "µs", Note: "no point in region A"},
			`{"name":"b","criterion":"c","value":null,"limit":5,"unit":"µs","evaluated":false,"met":false,"note":"no point in region A"}`},
		{Target{Name: "c", Criterion: "c", Limit: 7, LimitFromRun: true, Unit: "µs", Value: 3, Evaluated: true, Met: true},
			`{"name":"c","criterion":"c","value":3,"limit":7,"unit":"µs","evaluated":true,"met":true}`},
		{Target{Name: "d", Criterion: "c", LimitFromRun: true, Unit: "µs", Note: "no QJump samples"},
			`{"name":"d","criterion":"c","value":null,"limit":null,"unit":"µs","evaluated":false,"met":false,"note":"no QJump samples"}`},
	} {
		b, err := json.Marshal(c.t)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %v\nwant %s", b, err, c.want)
		}
		var back Target
		if err := json.Unmarshal(b, &back); err != nil || back.Name != c.t.Name || back.Value != c.t.Value || back.Note != c.t.Note ||
			back.Limit != c.t.Limit || back.LimitFromRun != (c.t.LimitFromRun && !c.t.Evaluated) {
			t.Errorf("round trip of %s: %+v, %v", b, back, err)
		}
	}
}

// An arm's bound_us is null where the model guarantees no bound; formula_us keeps the formula
// the plots draw; files that held the formula in bound_us still read.
func TestArmJSONBound(t *testing.T) {
	for _, c := range []struct {
		arm  Arm
		want string
	}{
		{Arm{Name: "idle", Description: "d", Bulk: "none"}, `{"name":"idle","description":"d","qjump":false,"bulk":"none"}`},
		{Arm{Name: "f7=1", Description: "d", QJump: true, Bulk: "b", Param: 1, HasParam: true, BoundUS: 646, BoundGuaranteed: true},
			`{"name":"f7=1","description":"d","qjump":true,"bulk":"b","param":1,"bound_us":646,"formula_us":646,"bound_guaranteed":true}`},
		{Arm{Name: "f7=3", Description: "d", QJump: true, Bulk: "b", Param: 3, HasParam: true, BoundUS: 1039.8},
			`{"name":"f7=3","description":"d","qjump":true,"bulk":"b","param":3,"bound_us":null,"formula_us":1039.8,"bound_guaranteed":false}`},
	} {
		b, err := json.Marshal(c.arm)
		if err != nil || string(b) != c.want {
			t.Errorf("%s, %v\nwant %s", b, err, c.want)
		}
		var back Arm
		if err := json.Unmarshal(b, &back); err != nil || back != c.arm {
			t.Errorf("round trip of %s: %+v, %v", b, back, err)
		}
	}
	var old Arm
	if err := json.Unmarshal([]byte(`{"name":"f7=3","description":"d","qjump":true,"bulk":"b","param":3,"bound_us":1039.8}`), &old); err != nil ||
		old.BoundUS != 1039.8 || old.BoundGuaranteed {
		t.Errorf("old form: %+v, %v", old, err)
	}
}

// A swept parameter of 0 is a value (2pc's ratio 0, no interference), not the absence of one:
// results.json writes it for an arm and its series, and leaves param out only where the arm is
// no point of the sweep; files written before, without param for 0, still read.
func TestParamZeroIsWritten(t *testing.T) {
	o := Outcome{
		Arms: []Arm{{Name: "tcp idle", Bulk: "none", HasParam: true}, {Name: "tcp machine-load", Bulk: "b"}},
		Series: SeriesOf(append(rowsOf("tcp idle", 0, 0, 10), append(rowsOf("tcp machine-load", 0, 0, 10),
			rowsOf("other", 2, 0, 10)...)...)),
	}
	o.ParamsFromArms()
	want := []bool{true, false, true} // "other" has no arm: its rows' param 2 stands
	for i, s := range o.Series {
		if s.HasParam != want[i] {
			t.Errorf("series %s: HasParam %v, want %v", s.Arm, s.HasParam, want[i])
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{o.Arms[0], `"param":0`},
		{o.Series[0], `"param":0`},
		{o.Series[2], `"param":2`},
	} {
		if b, err := json.Marshal(c.v); err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%s, %v: want %s", b, err, c.want)
		}
	}
	for _, v := range []any{o.Arms[1], o.Series[1]} {
		if b, err := json.Marshal(v); err != nil || strings.Contains(string(b), `"param"`) {
			t.Errorf("%s, %v: want no param", b, err)
		}
	}
	var arm Arm
	var series Series
	if err := json.Unmarshal([]byte(`{"name":"tcp idle","description":"","qjump":false,"bulk":"none","param":0}`), &arm); err != nil || !arm.HasParam {
		t.Errorf("read back: %+v, %v", arm, err)
	}
	if err := json.Unmarshal([]byte(`{"arm":"tcp idle","tool":"probe","metric":"oneway","samples":1,"lost":0}`), &series); err != nil || series.HasParam {
		t.Errorf("old form: %+v, %v", series, err)
	}
}

// A series with no samples at all (a simulated point with no flow of a size class) is not one
// whose samples were lost: its figures say "none", and only a lost series' say "all lost".
func TestSeriesWithoutSamplesSaysNone(t *testing.T) {
	v := testView()
	v.Outcome.Series = append(v.Outcome.Series, Series{Arm: "idle", Tool: "sim", Metric: "fct-large"})
	var b bytes.Buffer
	if err := v.Table(&b); err != nil {
		t.Fatal(err)
	}
	var none, lost int
	for _, line := range strings.Split(b.String(), "\n") {
		switch {
		case strings.Contains(line, "fct-large"):
			none++
			if strings.Count(line, noSamples) != len(v.figures()) || strings.Contains(line, allLost) {
				t.Errorf("a series without samples: %q, want %q in each of its %d figures", line, noSamples, len(v.figures()))
			}
		case strings.HasPrefix(strings.TrimSpace(line), "f7=1"):
			lost++
			if strings.Count(line, allLost) != len(v.figures()) {
				t.Errorf("a series whose samples were all lost: %q, want %q in each figure", line, allLost)
			}
		}
	}
	if none != 1 || lost != 1 {
		t.Errorf("the table has %d lines of the series without samples and %d of the all-lost one, want one each:\n%s", none, lost, b.String())
	}
}

// Every arm lists its series in one order, whichever tool wrote an arm's first sample: the tools
// of an arm run at once, and the order of first appearance within each arm put ping first in
// one arm of ping-iperf's table and the probe first in the next.
func TestSeriesOfOrdersEveryArmAlike(t *testing.T) {
	row := func(arm, tool, metric string) Row {
		return Row{Arm: arm, Tool: tool, Metric: metric, LatencyNS: 1000}
	}
	rows := []Row{
		row("idle", "ping", "rtt"), row("idle", "probe", "oneway"), row("idle", "probe", "rtt"),
		row("shared", "probe", "rtt"), row("shared", "probe", "oneway"), row("shared", "ping", "rtt"),
	}
	var got []string
	for _, s := range SeriesOf(rows) {
		got = append(got, s.Arm+"/"+s.Tool+"/"+s.Metric)
	}
	want := []string{"idle/ping/rtt", "idle/probe/oneway", "idle/probe/rtt", "shared/ping/rtt", "shared/probe/oneway", "shared/probe/rtt"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("series in the order %q, want %q", got, want)
	}
}

// A plot's figures that the series show nowhere (2pc's committed rate, Fig. 10's requests/s,
// Fig. 7's RMS ratios) are a table in the printed table, in summary.md under Figures, and in
// results.json, with the paper's reading of the figure beside them rather than beside a latency
// series (review, helper-83).
func TestPlottedTables(t *testing.T) {
	v := testView()
	v.Outcome.Faults, v.Outcome.Targets = nil, nil
	v.Outcome.Plotted = []PlotTable{{Title: "Fig. 6: committed / s", Files: []string{"fig6.png"}, Key: "ratio",
		Columns: []PlotColumn{{Name: "tcp", Unit: "committed/s"}, {Name: "qjump / tcp", Unit: "×"}},
		Rows:    []PlotRow{{Key: "0", Values: []*float64{Value(1198.4), Value(1.432)}}, {Key: "4", Values: []*float64{Value(0), nil}}},
		Paper:   "10,000/s idle"}}
	var b bytes.Buffer
	if err := v.Table(&b); err != nil {
		t.Fatal(err)
	}
	wantText := "Fig. 6: committed / s (fig6.png)\n" +
		"  RATIO  TCP committed/s  QJUMP / TCP ×\n" +
		"      0             1198           1.43\n" +
		"      4                0              –\n" +
		"  paper: 10,000/s idle\n"
	if !strings.Contains(b.String(), wantText) {
		t.Errorf("table:\n%s\nwant in it:\n%s", b.String(), wantText)
	}
	wantMD := "\n## Figures\n\n**Fig. 6: committed / s** (fig6.png)\n\n" +
		"| ratio | tcp committed/s | qjump / tcp × |\n|---|--:|--:|\n| 0 | 1198 | 1.43 |\n| 4 | 0 | – |\n\nThe paper: 10,000/s idle.\n\n## Plots"
	if md := v.Markdown(); !strings.Contains(md, wantMD) {
		t.Errorf("summary.md:\n%s\nwant in it:\n%s", md, wantMD)
	}
	j, err := json.Marshal(v.Outcome)
	if want := `"plotted":[{"title":"Fig. 6: committed / s","files":["fig6.png"],"key":"ratio","columns":[{"name":"tcp","unit":"committed/s"},{"name":"qjump / tcp","unit":"×"}],"rows":[{"key":"0","values":[1198.4,1.432]},{"key":"4","values":[0,null]}],"paper":"10,000/s idle"}]`; err != nil || !strings.Contains(string(j), want) {
		t.Errorf("results.json %s, %v\nwant in it %s", j, err, want)
	}
	if j, _ := json.Marshal(Outcome{}); strings.Contains(string(j), "plotted") {
		t.Errorf("an outcome without plotted figures writes them: %s", j)
	}
}

// An arm stopped short of its plan says so in results.json, the printed table and summary.md's
// arms: barrier's arms stopped at their time limit with nothing said (review, helper-83).
func TestTruncatedArmSaysSo(t *testing.T) {
	v := testView()
	v.Outcome.Arms[1].Truncated = "stopped by its 6s time limit after 471-473 of 1500 rounds per participant"
	var b bytes.Buffer
	if err := v.Table(&b); err != nil {
		t.Fatal(err)
	}
	if want := "arm f7=1 TRUNCATED: stopped by its 6s time limit after 471-473 of 1500 rounds per participant\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant in it %q", b.String(), want)
	}
	if want := "| f7=1 | on — **truncated: stopped by its 6s time limit after 471-473 of 1500 rounds per participant** (bulk: h2→h1) | on |"; !strings.Contains(v.Markdown(), want) {
		t.Errorf("summary.md:\n%s\nwant in it %q", v.Markdown(), want)
	}
	j, err := json.Marshal(v.Outcome.Arms[1])
	var back Arm
	if err != nil || !strings.Contains(string(j), `"truncated":"stopped by its 6s`) || json.Unmarshal(j, &back) != nil || back != v.Outcome.Arms[1] {
		t.Errorf("results.json arm %s, %v; read back %+v", j, err, back)
	}
}
