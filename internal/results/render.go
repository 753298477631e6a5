package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// View is a results document as the table and summary.md show it: the generic parts, and the
// lines only its producer can write.
type View struct {
	Header   Header
	Outcome  Outcome
	Headline string              // the setup in one line (hosts, rate, model), after the title
	Method   string              // how QJump ran, one sentence after the start time
	Paper    func(Series) string // the paper's figure beside a series, "" where none compares; may be nil
}

// column is one column of the series table, in both renderings.
type column struct {
	name, unit string
	numeric    bool // right-aligned in Markdown
}

var seriesColumns = []column{{name: "arm"}, {name: "tool"}, {name: "metric"}, {name: "samples", numeric: true},
	{name: "lost", numeric: true}, {"p50", "µs", true}, {"p90", "µs", true}, {"p99", "µs", true},
	{"p99.9", "µs", true}, {"max", "µs", true}, {name: "paper", unit: "(p50 / p99)"}}

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

// allLost stands in every figure of a series whose samples were all lost.
const allLost = "all lost"

// cells is one series' line of the table, the same in both renderings. A series without a
// delivered sample has no figures, so nothing to compare with the paper's.
func (v View) cells(s Series) []string {
	paper := ""
	if v.Paper != nil && !s.Empty() {
		paper = v.Paper(s)
	}
	c := []string{s.Arm, s.Tool, s.Metric, fmt.Sprint(s.Samples), fmt.Sprint(s.Lost)}
	for _, x := range []float64{s.P50US, s.P90US, s.P99US, s.P999US, s.MaxUS} {
		if s.Empty() {
			c = append(c, allLost)
		} else {
			c = append(c, fmt.Sprintf("%.0f", x))
		}
	}
	return append(c, paper)
}

func (v View) titles(upper bool) []string {
	var t []string
	for _, c := range seriesColumns {
		t = append(t, c.title(upper))
	}
	return t
}

// faultsTitle opens the list of faults, in both renderings.
const faultsTitle = "MEASUREMENT FAULTS: these results are not a measurement of the network"

// Table prints the summary table: faults first, one line per series, then skipped arms and the
// targets.
func (v View) Table(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\n", v.Header.Experiment, v.Headline)
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
	for _, a := range v.Outcome.Arms {
		if a.Skipped != "" {
			fmt.Fprintf(w, "arm %s skipped: %s\n", a.Name, a.Skipped)
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

// Markdown is summary.md: the table in Markdown, the arms, the targets, and the plots.
func (v View) Markdown() string {
	var b strings.Builder
	h := v.Header
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", h.Title, v.Headline)
	fmt.Fprintf(&b, "Started %s, took %.0f s%s. %s\n\n", h.Started.Format("2006-01-02 15:04 MST"), h.DurationS, quickText(h.Quick), v.Method)
	if len(v.Outcome.Faults) > 0 {
		fmt.Fprintf(&b, "**%s:**\n\n", faultsTitle)
		for _, f := range v.Outcome.Faults {
			fmt.Fprintf(&b, "- %s\n", f)
		}
		b.WriteString("\n")
	}
	b.WriteString(mdLine(v.titles(false)))
	b.WriteString("|")
	for _, c := range seriesColumns {
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
		fmt.Fprintf(&b, "| %s | %s (bulk: %s) | %s |\n", a.Name, desc, a.Bulk, onOff(a.QJump))
	}
	b.WriteString("\n## Targets\n\n")
	for _, t := range v.Outcome.Targets {
		fmt.Fprintf(&b, "- **%s** — %s: %s\n", t.Name, t.Criterion, t.Verdict())
		for _, e := range t.Worst {
			fmt.Fprintf(&b, "  - worst: %s\n", e)
		}
	}
	b.WriteString("\n## Plots\n\n")
	for _, f := range v.Outcome.Files {
		if strings.HasSuffix(f, ".png") {
			fmt.Fprintf(&b, "![%s](%s)\n", f, f)
		}
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
