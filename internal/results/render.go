package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/qjump-net/qjump/internal/version"
)

// View is a results document as the table and summary.md show it: the generic parts, and the
// lines only its producer can write.
type View struct {
	Header   Header
	Outcome  Outcome
	Headline string // the setup in one line (hosts, rate, model), after the title
	Method   string // how QJump ran, one sentence after the start time
	// Paper is the paper's figure beside a series, "" where none compares with it: a figure of
	// the same quantity, named by its statistic (p50, p90), or the paper's word on its shape; a
	// rate beside a latency series compares with nothing (PlotTable.Paper holds it). May be nil.
	Paper func(Series) string
	// Figures are the columns of statistics, nil for latency's p50, p90, p99, p99.9 and max.
	Figures []Figure
	// Unit heads the figures' columns ("" for µs), Digits is how many decimals they show.
	Unit   string
	Digits int
	// NoPaper leaves out the paper column, for a producer whose paper gives no figure to set beside
	// a series (the simulator's Fig. 9 is curves without published numbers).
	NoPaper bool
}

// Figure is one column of statistics.
type Figure struct {
	Name string
	Get  func(Stats) float64
}

// LatencyFigures are the default columns.
var LatencyFigures = []Figure{
	{"p50", func(s Stats) float64 { return s.P50US }},
	{"p90", func(s Stats) float64 { return s.P90US }},
	{"p99", func(s Stats) float64 { return s.P99US }},
	{"p99.9", func(s Stats) float64 { return s.P999US }},
	{"max", func(s Stats) float64 { return s.MaxUS }},
}

// MeanFigure is the mean, for views that show it.
var MeanFigure = Figure{"mean", func(s Stats) float64 { return s.MeanUS }}

func (v View) figures() []Figure {
	if v.Figures == nil {
		return LatencyFigures
	}
	return v.Figures
}

// column is one column of the series table, in both renderings.
type column struct {
	name, unit string
	numeric    bool // right-aligned in Markdown
}

// columns are the series table's columns: the series, its figures in the view's unit, the paper's.
func (v View) columns() []column {
	unit := v.Unit
	if unit == "" {
		unit = "µs"
	}
	cols := []column{{name: "arm"}, {name: "tool"}, {name: "metric"}, {name: "samples", numeric: true}, {name: "lost", numeric: true}}
	for _, f := range v.figures() {
		cols = append(cols, column{f.Name, unit, true})
	}
	if v.NoPaper {
		return cols
	}
	return append(cols, column{name: "paper"})
}

func (c column) title(upper bool) string {
	n := c.name
	if upper {
		n = strings.ToUpper(n)
	}
	if c.unit == "" {
		return n
	}
	return n + " " + c.unit
}

// align is the column's Markdown alignment: numbers to the right.
func (c column) align() string {
	if c.numeric {
		return "--:"
	}
	return "---"
}

// allLost stands in every figure of a series whose samples were all lost, and noSamples in those
// of a series that had none (a simulated point whose flows held none of a size class).
const (
	allLost   = "all lost"
	noSamples = "none"
)

// cells is one series' line of the table, the same in both renderings. A series without a
// delivered sample has no figures, so nothing to compare with the paper's.
func (v View) cells(s Series) []string {
	paper := ""
	if v.Paper != nil && !s.Empty() {
		paper = v.Paper(s)
	}
	c := []string{s.Arm, s.Tool, s.Metric, fmt.Sprint(s.Samples), fmt.Sprint(s.Lost)}
	empty := allLost
	if s.Samples == 0 {
		empty = noSamples
	}
	for _, f := range v.figures() {
		if s.Empty() {
			c = append(c, empty)
		} else {
			c = append(c, fmt.Sprintf("%.*f", v.Digits, f.Get(s.Stats)))
		}
	}
	if v.NoPaper {
		return c
	}
	return append(c, paper)
}

func (v View) titles(upper bool) []string {
	var t []string
	for _, c := range v.columns() {
		t = append(t, c.title(upper))
	}
	return t
}

// interruptedTitle opens the line that says a run was stopped before it finished.
const interruptedTitle = "INTERRUPTED, PARTIAL RESULTS"

// faultsTitle opens the list of faults, in both renderings.
const faultsTitle = "MEASUREMENT FAULTS: these results are not a measurement of the network"

// Table prints the summary table: faults first, one line per series, then the plotted figures,
// skipped arms and the targets.
func (v View) Table(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\n", v.Header.Experiment, v.Headline)
	if v.Header.Interrupted != "" {
		fmt.Fprintf(w, "%s: %s\n", interruptedTitle, v.Header.Interrupted)
	}
	if len(v.Outcome.Faults) > 0 {
		fmt.Fprintf(w, "%s:\n", faultsTitle)
		for _, f := range v.Outcome.Faults {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(v.titles(true), "\t")+"\t")
	for _, s := range v.Outcome.Series {
		fmt.Fprintln(tw, strings.Join(v.cells(s), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range v.Outcome.Plotted {
		if err := p.table(w); err != nil {
			return err
		}
	}
	for _, a := range v.Outcome.Arms {
		if a.Skipped != "" {
			fmt.Fprintf(w, "arm %s skipped: %s\n", a.Name, a.Skipped)
		}
		if a.Truncated != "" {
			fmt.Fprintf(w, "arm %s TRUNCATED: %s\n", a.Name, a.Truncated)
		}
	}
	for _, t := range v.Outcome.Targets {
		fmt.Fprintf(w, "target %-20s %s: %s\n", t.Name, t.Verdict(), t.Criterion)
		for _, e := range t.Worst {
			fmt.Fprintf(w, "  worst: %s\n", e)
		}
	}
	return nil
}

// buildText names the qjump that made a run, after its duration; nothing for a run made before
// that was recorded. A build that stamped neither a commit nor a version (-buildvcs=false, a tree
// outside git) says so, rather than "qjump unknown", which read as a version called unknown.
func buildText(b version.Info) string {
	switch {
	case b == (version.Info{}):
		return ""
	case b.Commit() == "unknown":
		return ", qjump (unstamped build: no version or commit recorded, as with -buildvcs=false or outside git)"
	}
	return ", qjump " + b.Commit()
}

// Markdown is summary.md: the table in Markdown, the arms, the plotted figures, the targets, and
// the plots.
func (v View) Markdown() string {
	var b strings.Builder
	h := v.Header
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", h.Title, v.Headline)
	fmt.Fprintf(&b, "Started %s, took %.0f s%s%s. %s\n\n", h.Started.Format("2006-01-02 15:04 MST"), h.DurationS,
		quickText(h.Quick), buildText(h.Build), v.Method)
	if h.Interrupted != "" {
		fmt.Fprintf(&b, "**%s: %s.**\n\n", interruptedTitle, h.Interrupted)
	}
	if len(v.Outcome.Faults) > 0 {
		fmt.Fprintf(&b, "**%s:**\n\n", faultsTitle)
		for _, f := range v.Outcome.Faults {
			fmt.Fprintf(&b, "- %s\n", f)
		}
		b.WriteString("\n")
	}
	b.WriteString(mdLine(v.titles(false)))
	b.WriteString("|")
	for _, c := range v.columns() {
		b.WriteString(c.align() + "|")
	}
	b.WriteString("\n")
	for _, s := range v.Outcome.Series {
		b.WriteString(mdLine(v.cells(s)))
	}
	b.WriteString("\n| arm | traffic sharing the network | QJump |\n|---|---|---|\n")
	for _, a := range v.Outcome.Arms {
		desc := a.Description
		if a.Skipped != "" {
			desc += " — **skipped: " + a.Skipped + "**"
		}
		if a.Truncated != "" {
			desc += " — **truncated: " + a.Truncated + "**"
		}
		fmt.Fprintf(&b, "| %s | %s (bulk: %s) | %s |\n", a.Name, desc, a.Bulk, onOff(a.QJump))
	}
	if len(v.Outcome.Plotted) > 0 {
		b.WriteString("\n## Figures\n")
	}
	for _, p := range v.Outcome.Plotted {
		p.markdown(&b)
	}
	// A run judged against no target (the simulator's Fig. 9) gets no empty Targets section.
	if len(v.Outcome.Targets) > 0 {
		b.WriteString("\n## Targets\n\n")
	}
	for _, t := range v.Outcome.Targets {
		fmt.Fprintf(&b, "- **%s** — %s: %s\n", t.Name, t.Criterion, t.Verdict())
		for _, e := range t.Worst {
			fmt.Fprintf(&b, "  - worst: %s\n", e)
		}
	}
	// Nor does a run without plots (the simulator's single point) get an empty Plots section.
	var plots []string
	for _, f := range v.Outcome.Files {
		if strings.HasSuffix(f, ".png") {
			plots = append(plots, fmt.Sprintf("![%s](%s)\n", f, f))
		}
	}
	if len(plots) > 0 {
		b.WriteString("\n## Plots\n\n" + strings.Join(plots, ""))
	}
	return b.String()
}

func mdLine(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" }

func quickText(q bool) string {
	if q {
		return " (--quick)"
	}
	return ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
