package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

// Table prints the summary table of r: one line per series, then the targets.
func Table(w io.Writer, r *Results) error {
	fmt.Fprintf(w, "%s: %s\n", r.Experiment, headline(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ARM\tTOOL\tMETRIC\tSAMPLES\tLOST\tP50 µs\tP90 µs\tP99 µs\tP99.9 µs\tMAX µs\tPAPER (p50 / p99)\t")
	for _, s := range r.Series {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t\n", s.Arm, s.Tool, s.Metric,
			s.Samples, s.Lost, s.P50US, s.P90US, s.P99US, s.P999US, s.MaxUS, paperOf(r, s))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range r.Arms {
		if a.Skipped != "" {
			fmt.Fprintf(w, "arm %s skipped: %s\n", a.Name, a.Skipped)
		}
	}
	for _, t := range r.Targets {
		fmt.Fprintf(w, "target %-20s %s: %s\n", t.Name, verdict(t), t.Criterion)
	}
	return nil
}

func headline(r *Results) string {
	c := r.Testbed
	return fmt.Sprintf("%s; %d hosts, R=%s, switch queues of %d packets, bulk TCP %s, ε=%s, epoch %s",
		r.Title, c.Hosts, c.Rate, c.Buffer, r.BulkCC, model.FormatDuration(durNS(r.Model.EpsilonNS)),
		model.FormatDuration(durNS(r.Model.EpochNS)))
}

// paperOf is the paper's figure for a series: each experiment decides which of its series
// measure what the paper measured.
func paperOf(r *Results, s Series) string {
	e, ok := experiments[r.Experiment]
	if !ok || e.paper == nil {
		return ""
	}
	return e.paper(s)
}

func verdict(t Target) string {
	if !t.Evaluated {
		return "NOT EVALUATED (" + t.Note + ")"
	}
	word := "MET"
	if !t.Met {
		word = "MISSED"
	}
	return fmt.Sprintf("%s (%.3g %s, limit %.3g %s)", word, t.Value, t.Unit, t.Limit, t.Unit)
}

// Summary is summary.md: the table in Markdown, the targets, and the plots.
func Summary(r *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", r.Title, headline(r))
	fmt.Fprintf(&b, "Started %s, took %.0f s%s. QJump: ", r.Started.Format("2006-01-02 15:04 MST"), r.DurationS, quickText(r.Quick))
	fmt.Fprintf(&b, "`qjump up %s` on every host.\n\n", strings.Join(r.QJump.UpArgs, " "))
	b.WriteString("| arm | tool | metric | samples | lost | p50 µs | p90 µs | p99 µs | p99.9 µs | max µs | paper (p50 / p99) |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, s := range r.Series {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s |\n", s.Arm, s.Tool, s.Metric,
			s.Samples, s.Lost, s.P50US, s.P90US, s.P99US, s.P999US, s.MaxUS, paperOf(r, s))
	}
	b.WriteString("\n| arm | traffic sharing the network | QJump |\n|---|---|---|\n")
	for _, a := range r.Arms {
		desc := a.Description
		if a.Skipped != "" {
			desc += " — **skipped: " + a.Skipped + "**"
		}
		fmt.Fprintf(&b, "| %s | %s (bulk: %s) | %s |\n", a.Name, desc, a.Bulk, testbed.OnOff(a.QJump))
	}
	b.WriteString("\n## Targets\n\n")
	for _, t := range r.Targets {
		fmt.Fprintf(&b, "- **%s** — %s: %s\n", t.Name, t.Criterion, verdict(t))
	}
	b.WriteString("\n## Plots\n\n")
	for _, f := range r.Files {
		if strings.HasSuffix(f, ".png") {
			fmt.Fprintf(&b, "![%s](%s)\n", f, f)
		}
	}
	return b.String()
}

func quickText(q bool) string {
	if q {
		return " (--quick)"
	}
	return ""
}

func durNS(ns int64) time.Duration { return time.Duration(ns) }
