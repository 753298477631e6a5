package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// PlotTable is the numbers a plot draws, as a table: one row per point of its x axis (a ratio, a
// factor, an arm), one column per curve or bar. The printed table and summary.md show it and
// results.json holds it ("plotted"), so that a plot's figure is written down where the series
// table has no column for it: a rate (2pc's committed transactions/s, memcached's requests/s) or
// an RMS and its ratio to the ideal (Fig. 7).
type PlotTable struct {
	Title   string       `json:"title"`           // what the plot shows
	Files   []string     `json:"files,omitempty"` // the plots' PNGs (mixed draws one per application)
	Key     string       `json:"key"`             // what a row is: "interference ratio", "arm"
	Columns []PlotColumn `json:"columns"`
	Rows    []PlotRow    `json:"rows"`
	// Paper is the paper's reading of the same figure, where it gives one: its rates belong here,
	// beside the rates, not beside a latency series.
	Paper string `json:"paper,omitempty"`
}

// PlotColumn is one curve or set of bars of a PlotTable.
type PlotColumn struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
}

// PlotRow is one point of a PlotTable's x axis and the value of each column there, in the
// columns' order; null where the column has none (an arm that did not run, a ratio to 0).
type PlotRow struct {
	Key    string     `json:"key"`
	Values []*float64 `json:"values"`
}

// Value is v as a PlotRow holds it.
func Value(v float64) *float64 { return &v }

// noValue stands in a cell without a value.
const noValue = "–"

// cells is the row as printed: its key, then each value to three significant digits.
func (r PlotRow) cells(columns int) []string {
	c := []string{r.Key}
	for i := range columns {
		if i < len(r.Values) && r.Values[i] != nil {
			c = append(c, figure(*r.Values[i]))
		} else {
			c = append(c, noValue)
		}
	}
	return c
}

func (p PlotTable) titles(upper bool) []string {
	t := []string{column{name: p.Key}.title(upper)}
	for _, c := range p.Columns {
		t = append(t, column{name: c.Name, unit: c.Unit}.title(upper))
	}
	return t
}

// heading is the table's title with its plots.
func (p PlotTable) heading() string {
	if len(p.Files) == 0 {
		return p.Title
	}
	return fmt.Sprintf("%s (%s)", p.Title, strings.Join(p.Files, ", "))
}

// table prints the table in text, under its heading.
func (p PlotTable) table(w io.Writer) error {
	fmt.Fprintln(w, p.heading())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(p.titles(true), "\t")+"\t")
	for _, r := range p.Rows {
		fmt.Fprintln(tw, strings.Join(r.cells(len(p.Columns)), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.Paper != "" {
		fmt.Fprintf(w, "  paper: %s\n", p.Paper)
	}
	return nil
}

// markdown is the table in Markdown, under its heading, after a blank line.
func (p PlotTable) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n**%s**", p.Title)
	if len(p.Files) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(p.Files, ", "))
	}
	b.WriteString("\n\n" + mdLine(p.titles(false)) + "|---|")
	for range p.Columns {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, r := range p.Rows {
		b.WriteString(mdLine(r.cells(len(p.Columns))))
	}
	if p.Paper != "" {
		fmt.Fprintf(b, "\nThe paper: %s.\n", p.Paper)
	}
}
