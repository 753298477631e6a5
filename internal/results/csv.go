package results

import (
	"encoding/csv"
	"errors"
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

// parseRow reads one row; an error names the column, the value and what the column takes, as
// strconv's own text ("strconv.ParseFloat: parsing \"x\": invalid syntax") names none of them.
func parseRow(rec []string) (Row, error) {
	row := Row{Arm: rec[0], Tool: rec[1], Metric: rec[2]}
	var err error
	field := func(col int, allowed string, parse func(string) error) {
		if err == nil && parse(rec[col]) != nil {
			err = fmt.Errorf("%s %q: %s", RowHeader[col], rec[col], allowed)
		}
	}
	field(3, "need a whole number (the sending host)", func(v string) (e error) { row.Sender, e = strconv.Atoi(v); return })
	field(4, "need a whole number, 0 or more", func(v string) (e error) { row.Seq, e = strconv.ParseUint(v, 10, 64); return })
	field(5, "need a whole number of nanoseconds", func(v string) (e error) { row.SendNS, e = strconv.ParseInt(v, 10, 64); return })
	field(6, "need a whole number of nanoseconds", func(v string) (e error) { row.LatencyNS, e = strconv.ParseInt(v, 10, 64); return })
	field(7, "need true or false", func(v string) (e error) { row.Lost, e = strconv.ParseBool(v); return })
	field(8, "need a finite number", func(v string) error {
		p, e := strconv.ParseFloat(v, 64)
		if e == nil && (math.IsNaN(p) || math.IsInf(p, 0)) {
			return errors.New("not finite") // NaN would never group with itself
		}
		row.Param = p
		return e
	})
	if err != nil {
		return Row{}, err
	}
	return row, nil
}
