package probe

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// The readers below are the inverse of the writers in sample.go and memcached.go: this package
// owns the sample formats, so it is the one place that knows their columns. Columns are found by
// header name, and a field that does not parse is an error naming the line and the column.

// ReadClientCSV reads a client's sample file (ClientCSVHeader). The derived columns, oneway_ns and
// rtt_ns, are not read: Sample.OneWayNS and Sample.RTTNS give them from the stamps.
func ReadClientCSV(r io.Reader) ([]Sample, error) {
	var out []Sample
	err := readCSV(r, ClientCSVHeader, func(f *fields) {
		out = append(out, Sample{Seq: f.uint("seq"), SendNS: f.int("send_ns"), TxNS: f.int("tx_kernel_ns"),
			ServerNS: f.int("server_rx_ns"), RecvNS: f.int("rx_kernel_ns"), Lost: f.bool("lost")})
	})
	return out, err
}

// ReadServerCSV reads a server's arrival file (ServerCSVHeader).
func ReadServerCSV(r io.Reader) ([]Arrival, error) {
	var out []Arrival
	err := readCSV(r, ServerCSVHeader, func(f *fields) {
		sender := f.uint("sender")
		if sender > 0xffff {
			f.fail("sender", errors.New("above 65535"))
		}
		out = append(out, Arrival{Sender: uint16(sender), Seq: f.uint("seq"), SendNS: f.int("send_ns"),
			RecvNS: f.int("rx_kernel_ns")})
	})
	return out, err
}

// ReadKVCSV reads the memcached load's sample file (KVCSVHeader).
func ReadKVCSV(r io.Reader) ([]KVSample, error) {
	var out []KVSample
	err := readCSV(r, KVCSVHeader, func(f *fields) {
		out = append(out, KVSample{Seq: int(f.int("seq")), Op: f.str("op"), SendNS: f.int("send_ns"),
			LatencyNS: f.int("latency_ns"), OK: f.bool("ok")})
	})
	return out, err
}

// ReadFile opens path and reads it with one of the readers above.
func ReadFile[T any](path string, read func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open samples: %w", err)
	}
	defer f.Close()
	out, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// fields is one record, its columns found by name; the first field that does not parse is kept.
type fields struct {
	cols map[string]int
	rec  []string
	line int
	err  error
}

func (f *fields) str(name string) string { return f.rec[f.cols[name]] }

func (f *fields) int(name string) int64 {
	v, err := strconv.ParseInt(f.str(name), 10, 64)
	f.fail(name, err)
	return v
}

func (f *fields) uint(name string) uint64 {
	v, err := strconv.ParseUint(f.str(name), 10, 64)
	f.fail(name, err)
	return v
}

func (f *fields) bool(name string) bool {
	v, err := strconv.ParseBool(f.str(name))
	f.fail(name, err)
	return v
}

func (f *fields) fail(name string, err error) {
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("line %d, column %s: %w", f.line, name, err)
	}
}

// readCSV checks that the header has every column of want, then calls row for each record.
func readCSV(r io.Reader, want []string, row func(*fields)) error {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	f := &fields{cols: map[string]int{}, line: 1}
	for i, name := range header {
		f.cols[name] = i
	}
	for _, name := range want {
		if _, ok := f.cols[name]; !ok {
			return fmt.Errorf("header %v has no column %s", header, name)
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f.rec, f.line = rec, f.line+1
		if row(f); f.err != nil {
			return f.err
		}
	}
}
