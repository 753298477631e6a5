package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// flowsHeader is flows.csv's header: one row per flow, issue 10's columns (size, start, FCT,
// ideal FCT, scheme, level) with the flow's hosts, its normalised FCT and its timeouts.
var flowsHeader = []string{"id", "src", "dst", "size_bytes", "start_us", "fct_us", "ideal_us", "normalised", "scheme", "level", "timeouts"}

// WriteFlowsCSV writes one row per flow. An unfinished flow's fct_us and normalised are empty,
// not 0, so that no reader averages it in as a flow that took no time.
func WriteFlowsCSV(w io.Writer, r *FCTResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(flowsHeader)
	for _, f := range r.Flows {
		fct, norm := "", ""
		if f.Done {
			fct, norm = ff(f.FCTUs), ff(f.Normalised())
		}
		_ = cw.Write([]string{
			strconv.Itoa(int(f.ID)), strconv.Itoa(f.Src), strconv.Itoa(f.Dst), strconv.FormatInt(f.Size, 10),
			ff(f.StartUs), fct, ff(f.IdealUs), norm, string(r.Scheme), strconv.Itoa(int(f.Level)),
			strconv.Itoa(int(f.Timeouts)),
		})
	}
	cw.Flush()
	return cw.Error()
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// writeFlowsFile writes r's flows to path, atomically: an interrupted run leaves whole flows
// files or none.
func writeFlowsFile(path string, r *FCTResult) error {
	return results.WriteFileAtomic(path, func(w io.Writer) error { return WriteFlowsCSV(w, r) })
}

// ReadFlowsFile reads a flows.csv back, the flows of scheme. A row that no run writes (a size or
// an ideal FCT that is not positive, a level outside 0-7, another scheme's) is refused, naming its
// line: an ideal FCT of 0 made every statistic infinite, and a report failed naming results.json,
// which it could not write (review, helper-71).
func ReadFlowsFile(path string, scheme Scheme) ([]FlowRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open flows: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rows []FlowRow
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		row, err := parseFlow(rec, scheme)
		if err != nil {
			return nil, fmt.Errorf("read %s: line %d: %w", path, i+1, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func parseFlow(rec []string, scheme Scheme) (FlowRow, error) {
	if len(rec) != len(flowsHeader) {
		return FlowRow{}, fmt.Errorf("%d fields, want %d", len(rec), len(flowsHeader))
	}
	var r FlowRow
	var errs [9]error
	var id, level, timeouts int
	id, errs[0] = strconv.Atoi(rec[0])
	r.Src, errs[1] = strconv.Atoi(rec[1])
	r.Dst, errs[2] = strconv.Atoi(rec[2])
	r.Size, errs[3] = strconv.ParseInt(rec[3], 10, 64)
	r.StartUs, errs[4] = strconv.ParseFloat(rec[4], 64)
	if rec[5] != "" {
		r.FCTUs, errs[5] = strconv.ParseFloat(rec[5], 64)
		// Empty is unfinished. Files written before flows had a Done flag (2026-11-28) said 0.000, which no finished
		// flow can write since a point whose ideal FCT rounds below 100 ns is refused
		// (FCTConfig.Validate), so 0 still reads as unfinished.
		r.Done = r.FCTUs > 0
	}
	r.IdealUs, errs[6] = strconv.ParseFloat(rec[6], 64)
	level, errs[7] = strconv.Atoi(rec[9])
	timeouts, errs[8] = strconv.Atoi(rec[10])
	for _, e := range errs {
		if e != nil {
			return FlowRow{}, e
		}
	}
	r.ID, r.Level, r.Timeouts = int32(id), uint8(level), int32(timeouts)
	return r, checkFlow(r, rec, level, scheme)
}

// checkFlow refuses a row that no run writes, naming the column and what a run writes there.
func checkFlow(r FlowRow, rec []string, level int, scheme Scheme) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case r.ID < 0 || r.Src < 0 || r.Dst < 0:
		return fmt.Errorf("id %s, src %s, dst %s: a run writes numbers from 0", rec[0], rec[1], rec[2])
	case r.Size <= 0:
		return fmt.Errorf("size_bytes %s: a run writes a flow's size, more than 0", rec[3])
	case !finite(r.StartUs) || r.StartUs < 0:
		return fmt.Errorf("start_us %s: a run writes a time from 0", rec[4])
	case !finite(r.FCTUs) || r.FCTUs < 0:
		return fmt.Errorf("fct_us %s: a run writes a positive time, or nothing for an unfinished flow", rec[5])
	case !finite(r.IdealUs) || r.IdealUs <= 0:
		return fmt.Errorf("ideal_us %s: a run writes the flow's time alone on the idle fabric, more than 0", rec[6])
	case level < 0 || level >= int(model.NumLevels):
		return fmt.Errorf("level %s: a run writes a level from 0 to %d", rec[9], model.NumLevels-1)
	case r.Timeouts < 0:
		return fmt.Errorf("timeouts %s: a run writes a count from 0", rec[10])
	case scheme != "" && rec[8] != string(scheme):
		return fmt.Errorf("scheme %q: results.json says this point's flows are %s's; the file is another point's", rec[8], scheme)
	}
	return nil
}
