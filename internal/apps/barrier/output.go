package barrier

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSVHeader is the header of a participant's round file (documented in docs/testbed.md).
var CSVHeader = []string{"round", "start_ns", "latency_ns"}

// WriteCSV writes one row per completed round.
func WriteCSV(w io.Writer, rounds []Round) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	for _, r := range rounds {
		_ = cw.Write([]string{strconv.FormatUint(r.N, 10), strconv.FormatInt(r.StartNS, 10), strconv.FormatInt(r.LatencyNS, 10)})
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads what WriteCSV wrote.
func ReadCSV(r io.Reader) ([]Round, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(CSVHeader, ",") {
		return nil, fmt.Errorf("read barrier rounds: header is not %s", strings.Join(CSVHeader, ","))
	}
	out := make([]Round, 0, len(rows)-1)
	for i, row := range rows[1:] {
		var rd Round
		var errs [3]error
		rd.N, errs[0] = strconv.ParseUint(row[0], 10, 64)
		rd.StartNS, errs[1] = strconv.ParseInt(row[1], 10, 64)
		rd.LatencyNS, errs[2] = strconv.ParseInt(row[2], 10, 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("read barrier rounds: row %d: %w", i+2, err)
		}
		out = append(out, rd)
	}
	return out, nil
}
