package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// RowHeader is samples.csv's header line.
var RowHeader = []string{"arm", "tool", "metric", "sender", "seq", "send_ns", "latency_ns", "lost", "param"}

// WriteRowsFile writes rows to path as samples.csv, atomically (WriteFileAtomic).
func WriteRowsFile(path string, rows []Row) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return WriteRows(w, rows) })
}

// WriteRows writes the header and rows in samples.csv's format.
func WriteRows(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(RowHeader)
	for _, r := range rows {
		_ = cw.Write([]string{r.Arm, r.Tool, r.Metric, strconv.Itoa(r.Sender), strconv.FormatUint(r.Seq, 10),
			strconv.FormatInt(r.SendNS, 10), strconv.FormatInt(r.LatencyNS, 10), strconv.FormatBool(r.Lost),
			strconv.FormatFloat(r.Param, 'g', -1, 64)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write samples: %w", err)
	}
	return nil
}

// ReadRowsFile reads samples.csv at path.
func ReadRowsFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open samples: %w", err)
	}
	defer f.Close()
	rows, err := ReadRows(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}

// ReadRows parses samples.csv: a header line, then one row per sample. An error names the line.
func ReadRows(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || !slices.Equal(recs[0], RowHeader) {
		return nil, fmt.Errorf("line 1 is not samples.csv's header %q", strings.Join(RowHeader, ","))
	}
	var rows []Row
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if len(rec) != len(RowHeader) {
			return nil, fmt.Errorf("line %d has %d fields, want %d", i+1, len(rec), len(RowHeader))
		}
		row, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func parseRow(rec []string) (Row, error) {
	var row Row
	var errs [6]error
	row.Arm, row.Tool, row.Metric = rec[0], rec[1], rec[2]
	row.Sender, errs[0] = strconv.Atoi(rec[3])
	row.Seq, errs[1] = strconv.ParseUint(rec[4], 10, 64)
	row.SendNS, errs[2] = strconv.ParseInt(rec[5], 10, 64)
	row.LatencyNS, errs[3] = strconv.ParseInt(rec[6], 10, 64)
	row.Lost, errs[4] = strconv.ParseBool(rec[7])
	row.Param, errs[5] = strconv.ParseFloat(rec[8], 64)
	if errs[5] == nil && (math.IsNaN(row.Param) || math.IsInf(row.Param, 0)) {
		errs[5] = fmt.Errorf("param %q: need a finite number", rec[8]) // NaN would never group with itself
	}
	for _, e := range errs {
		if e != nil {
			return Row{}, e
		}
	}
	return row, nil
}
