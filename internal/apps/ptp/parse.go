package ptp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Sample is one offset measurement of the slave.
type Sample struct {
	TimeNS      int64   // CLOCK_REALTIME when the runner read the line (shared by every namespace)
	PTP4lS      float64 // ptp4l's own time stamp on the line (CLOCK_MONOTONIC seconds)
	OffsetNS    int64   // master offset
	State       int     // servo state (s0 unlocked, s1 jumped, s2 locked; always 0 with ntpshm)
	FreqPPB     int64   // frequency adjustment
	PathDelayNS int64   // mean path delay
}

// offsetLine is ptp4l's per-sample line, e.g.
// "ptp4l[1307.458]: master offset       -381 s0 freq      +0 path delay      3295".
var offsetLine = regexp.MustCompile(`^ptp4l\[([0-9.]+)\]: (?:\[[^]]*\] )?master offset\s+(-?\d+) s(\d) freq\s+([+-]?\d+) path delay\s+(-?\d+)\s*$`)

// ParseLine reads one line of ptp4l's output; ok is false for anything but a sample.
func ParseLine(line string) (s Sample, ok bool) {
	m := offsetLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return Sample{}, false
	}
	var err [5]error
	s.PTP4lS, err[0] = strconv.ParseFloat(m[1], 64)
	s.OffsetNS, err[1] = strconv.ParseInt(m[2], 10, 64)
	s.State, err[2] = strconv.Atoi(m[3])
	s.FreqPPB, err[3] = strconv.ParseInt(strings.TrimPrefix(m[4], "+"), 10, 64)
	s.PathDelayNS, err[4] = strconv.ParseInt(m[5], 10, 64)
	for _, e := range err {
		if e != nil {
			return Sample{}, false
		}
	}
	return s, true
}

// CSVHeader is the header of the slave's sample file (documented in docs/testbed.md).
var CSVHeader = []string{"time_ns", "ptp4l_s", "offset_ns", "path_delay_ns", "state", "freq_ppb"}

// WriteCSV writes one row per sample.
func WriteCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	for _, s := range samples {
		_ = cw.Write([]string{strconv.FormatInt(s.TimeNS, 10), strconv.FormatFloat(s.PTP4lS, 'f', 3, 64),
			strconv.FormatInt(s.OffsetNS, 10), strconv.FormatInt(s.PathDelayNS, 10), strconv.Itoa(s.State),
			strconv.FormatInt(s.FreqPPB, 10)})
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads what WriteCSV wrote.
func ReadCSV(r io.Reader) ([]Sample, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(CSVHeader, ",") {
		return nil, fmt.Errorf("read ptp samples: header is not %s", strings.Join(CSVHeader, ","))
	}
	out := make([]Sample, 0, len(rows)-1)
	for i, row := range rows[1:] {
		var s Sample
		var errs [6]error
		s.TimeNS, errs[0] = strconv.ParseInt(row[0], 10, 64)
		s.PTP4lS, errs[1] = strconv.ParseFloat(row[1], 64)
		s.OffsetNS, errs[2] = strconv.ParseInt(row[2], 10, 64)
		s.PathDelayNS, errs[3] = strconv.ParseInt(row[3], 10, 64)
		s.State, errs[4] = strconv.Atoi(row[4])
		s.FreqPPB, errs[5] = strconv.ParseInt(row[5], 10, 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("read ptp samples: row %d: %w", i+2, err)
		}
		out = append(out, s)
	}
	return out, nil
}
