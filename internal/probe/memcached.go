package probe

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// KVOptions configure a closed-loop memcached load: one connection, one request outstanding, a
// seeded mix of GETs and SETs of fixed-size values over a fixed key space.
type KVOptions struct {
	Server   string        // memcached address:port
	Count    int           // measured requests
	Interval time.Duration // least time between request starts (bounds the offered load)
	Value    int           // value bytes (the paper's workload: 1 kB)
	GetRatio float64       // fraction of GETs, the rest are SETs
	Keys     int           // key space, populated before measuring
	Seed     uint64        // the same seed gives the same request sequence
	For      time.Duration // stop measuring after this long even if Count is not reached (0: no limit)
	Populate bool          // set every key before measuring
	// Timeout is how long a request may wait for its reply (0: DefaultKVTimeout); one that waits
	// longer, or whose connection fails, is a lost sample, and the load connects again.
	Timeout time.Duration
}

// DefaultKVTimeout is a request's longest wait: longer than any latency the experiments measure,
// shorter than TCP's backoff after a few losses of one segment (0.2, 0.4, 0.8 s...), which is how
// a request of a contended 100 Mb/s arm can go unanswered for seconds.
const DefaultKVTimeout = 2 * time.Second

// maxLostInRow is how many requests in a row may go unanswered before the load gives up: a
// server that accepts and never replies is not a congested network.
const maxLostInRow = 5

// KVSample is one request.
type KVSample struct {
	Seq       int
	Op        string // get or set
	SendNS    int64
	LatencyNS int64 // write of the request to the end of the reply, application clock
	OK        bool
}

// KVLoad populates the key space, then issues opts.Count requests and returns one sample each.
func KVLoad(ctx context.Context, opts KVOptions) ([]KVSample, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	conn, err := dialRetry(ctx, opts.Server, 3*time.Second)
	if err != nil {
		return nil, err
	}
	defer func() { conn.Close() }() // the one open at the end: a lost request opens another
	rd := bufio.NewReader(conn)
	value := strings.Repeat("q", opts.Value)
	for k := 0; opts.Populate && k < opts.Keys; k++ {
		if err := kvSet(conn, rd, k, value); err != nil {
			return nil, fmt.Errorf("populate memcached: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x716a))
	samples := make([]KVSample, 0, opts.Count)
	var last time.Time
	var end time.Time
	if opts.For > 0 {
		end = time.Now().Add(opts.For)
	}
	timeout := cmp.Or(opts.Timeout, DefaultKVTimeout)
	lostInRow := 0
	for i := 0; i < opts.Count && ctx.Err() == nil && (end.IsZero() || time.Now().Before(end)); i++ {
		if wait := time.Until(last.Add(opts.Interval)); wait > 0 {
			time.Sleep(wait)
		}
		last = time.Now()
		key, get := rng.IntN(opts.Keys), rng.Float64() < opts.GetRatio
		s := KVSample{Seq: i, Op: "set", SendNS: now()}
		_ = conn.SetDeadline(time.Now().Add(timeout))
		if get {
			s.Op = "get"
			err = kvGet(conn, rd, key, opts.Value)
		} else {
			err = kvSet(conn, rd, key, value)
		}
		s.LatencyNS, s.OK = now()-s.SendNS, err == nil
		samples = append(samples, s)
		if err == nil {
			lostInRow = 0
			continue
		}
		// Lost. The reply may still come, so the connection is out of step: open another.
		if lostInRow++; lostInRow == maxLostInRow {
			return samples, fmt.Errorf("%d requests in a row unanswered within %s, the last (request %d): %w", lostInRow, model.DurationText(timeout), i, err)
		}
		again, dialErr := dialRetry(ctx, opts.Server, 3*time.Second)
		if dialErr != nil {
			return samples, fmt.Errorf("after request %d was lost: %w", i, dialErr)
		}
		conn.Close()
		conn, rd = again, bufio.NewReader(again)
	}
	return samples, nil
}

func dialRetry(ctx context.Context, addr string, within time.Duration) (net.Conn, error) {
	end := time.Now().Add(within)
	for {
		conn, err := net.DialTimeout("tcp4", addr, time.Second)
		if err == nil || time.Now().After(end) || ctx.Err() != nil {
			if err != nil {
				return nil, fmt.Errorf("connect to memcached %s: %w", addr, err)
			}
			return conn, nil
		}
		// Only trying tells whether the server listens yet; wait a little between tries, or stop
		// when the load is cancelled.
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

func kvSet(w io.Writer, rd *bufio.Reader, key int, value string) error {
	if _, err := fmt.Fprintf(w, "set k%d 0 0 %d\r\n%s\r\n", key, len(value), value); err != nil {
		return err
	}
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	if line != "STORED\r\n" {
		return fmt.Errorf("set k%d: %q", key, strings.TrimSpace(line))
	}
	return nil
}

func kvGet(w io.Writer, rd *bufio.Reader, key, size int) error {
	if _, err := fmt.Fprintf(w, "get k%d\r\n", key); err != nil {
		return err
	}
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "VALUE ") {
		// value, CRLF, then END CRLF
		if _, err := io.CopyN(io.Discard, rd, int64(size)+2); err != nil {
			return err
		}
		if line, err = rd.ReadString('\n'); err != nil {
			return err
		}
	}
	if line != "END\r\n" {
		return fmt.Errorf("get k%d: %q", key, strings.TrimSpace(line))
	}
	return nil
}

// KVCSVHeader is the header of the memcached load's sample file.
var KVCSVHeader = []string{"seq", "op", "send_ns", "latency_ns", "ok"}

// WriteKVCSV writes every request.
func WriteKVCSV(w io.Writer, samples []KVSample) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(KVCSVHeader)
	for _, s := range samples {
		_ = cw.Write([]string{strconv.Itoa(s.Seq), s.Op, i64(s.SendNS), i64(s.LatencyNS), strconv.FormatBool(s.OK)})
	}
	cw.Flush()
	return cw.Error()
}
