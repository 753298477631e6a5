package experiment

// The results layer: CSV, JSON and summary tables. It is kept in this file and plot.go so that it
// can move onto the shared results package (internal/results) without touching the simulator.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
)

// WriteFlowsCSV writes one row per flow: size, start, FCT, ideal FCT, scheme, level.
func WriteFlowsCSV(w io.Writer, r *FCTResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "src", "dst", "size_bytes", "start_us", "fct_us", "ideal_us", "normalised", "scheme", "level", "timeouts"})
	for _, f := range r.Flows {
		norm := ""
		if f.FCTUs > 0 {
			norm = ff(f.Normalised())
		}
		_ = cw.Write([]string{
			strconv.Itoa(int(f.ID)), strconv.Itoa(f.Src), strconv.Itoa(f.Dst), strconv.FormatInt(f.Size, 10),
			ff(f.StartUs), ff(f.FCTUs), ff(f.IdealUs), norm, string(r.Scheme), strconv.Itoa(int(f.Level)),
			strconv.Itoa(int(f.Timeouts)),
		})
	}
	cw.Flush()
	return cw.Error()
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// WriteJSON writes v indented to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WritePoint writes a point's flows.csv and results.json into dir.
func WritePoint(dir string, r *FCTResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.Create(filepath.Join(dir, "flows.csv"))
	if err != nil {
		return fmt.Errorf("create flows.csv: %w", err)
	}
	if err := WriteFlowsCSV(f, r); err != nil {
		f.Close()
		return fmt.Errorf("write flows.csv: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return WriteJSON(filepath.Join(dir, "results.json"), r)
}

// PrintStats prints a point's statistics as a table.
func PrintStats(w io.Writer, rs ...*FCTResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tLOAD\tSCHEME\tSMALL AVG\tSMALL P99\tLARGE AVG\tALL AVG\tFLOWS\tUNFINISHED\tDROPS")
	for _, r := range rs {
		s := r.Stats
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", r.Workload, r.Load, r.Scheme,
			fs(s.SmallMean), fs(s.SmallP99), fs(s.LargeMean), fs(s.AllMean), s.Flows, r.Unfinished, r.Drops)
	}
	tw.Flush()
}

func fs(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// PerfLine is the one line of simulator speed every command prints.
func PerfLine(p Perf) string {
	return fmt.Sprintf("wall %.2fs, simulated %.4fs (%.3f sim-s/wall-s), %d events (%.2fM/s), %d packet-hops (%.2fM/s)",
		p.WallSeconds, p.SimulatedSeconds, p.SimulatedSeconds/p.WallSeconds, p.Events, p.EventsPerSecond()/1e6,
		p.PacketHops, p.HopsPerSecond()/1e6)
}

// PrintFanIn prints the fan-in sweep as a table.
func PrintFanIn(w io.Writer, r *FanInResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "HOSTS\tEPOCHS\tF7\tREGION\tBOUND µs\tPROBES\tP50 µs\tP99 µs\tMAX µs\tOVER BOUND\tLOST\n")
	for _, p := range r.Points {
		bound := "none"
		if p.Guaranteed {
			bound = ff(p.BoundUs)
		}
		epochs := "random"
		if r.Aligned {
			epochs = "aligned"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\n", r.Hosts, epochs, p.F7, p.Region, bound, p.Probes,
			ff(p.P50Us), ff(p.P99Us), ff(p.MaxUs), p.OverBound, p.Lost)
	}
	tw.Flush()
}
