package barrier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Round is one barrier: StartNS is the wall clock (CLOCK_REALTIME, shared by every namespace) at
// this participant's send, LatencyNS the monotonic time from that send to the last peer's message.
type Round struct {
	N         uint64
	StartNS   int64
	LatencyNS int64
}

// ErrTimeout is a round, or the mesh, that did not complete in time.
var ErrTimeout = errors.New("barrier timed out")

// arrival is a peer's message, or the end of its connection.
type arrival struct {
	from  int
	round uint64
	err   error
}

// Run joins the mesh and runs barrier rounds until opts.Rounds are done, opts.For passes, ctx
// ends or a peer ends its run. It returns the rounds completed, also with an error.
func Run(ctx context.Context, opts Options) ([]Round, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	listen := opts.Listen
	if listen == "" {
		listen = opts.Peers[opts.ID]
	}
	ln, err := net.Listen("tcp4", listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", listen, err)
	}
	if opts.Ready != nil {
		opts.Ready()
	}
	m, err := connect(ctx, opts, ln)
	ln.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	defer m.end(opts.Timeout)
	arrivals := make(chan arrival, 4*len(opts.Peers))
	done := make(chan struct{})
	defer close(done)
	for j, c := range m.conns {
		if c != nil {
			go receive(j, c, opts.Size, arrivals, done)
		}
	}
	b := &barrier{opts: opts, mesh: m, arrivals: arrivals, latest: make([]uint64, len(opts.Peers)),
		ended: make([]bool, len(opts.Peers)), buf: make([]byte, opts.Size)}
	rounds, err := b.run(ctx)
	b.sendAll(roundBye) // peers end with us instead of timing out
	return rounds, err
}

// receive turns one peer's frames into arrivals until its connection ends.
func receive(from int, c net.Conn, size int, out chan<- arrival, done <-chan struct{}) {
	buf := make([]byte, size)
	for {
		_, round, err := readFrame(c, buf)
		select {
		case out <- arrival{from: from, round: round, err: err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

type barrier struct {
	opts     Options
	mesh     *mesh
	arrivals chan arrival
	latest   []uint64 // the last round heard from each peer (frames on one connection arrive in order)
	ended    []bool   // peers that said their run is over
	buf      []byte
}

func (b *barrier) run(ctx context.Context) ([]Round, error) {
	end := time.Now().Add(b.opts.For)
	rounds := make([]Round, 0, b.opts.Rounds)
	for r := uint64(1); r <= uint64(b.opts.Rounds) && ctx.Err() == nil && time.Now().Before(end); r++ {
		if r > 1 && b.opts.Interval > 0 {
			time.Sleep(b.opts.Interval)
		}
		wall, start := time.Now().UnixNano(), time.Now()
		if err := b.sendAll(r); err != nil {
			return rounds, err
		}
		if err := b.await(ctx, r, start.Add(b.opts.Timeout)); err != nil {
			if errors.Is(err, errPeerEnded) || ctx.Err() != nil {
				return rounds, nil // an interrupt ends the run as its time limit does
			}
			return rounds, err
		}
		rounds = append(rounds, Round{N: r, StartNS: wall, LatencyNS: time.Since(start).Nanoseconds()})
	}
	return rounds, nil
}

var errPeerEnded = errors.New("a peer ended its run")

func (b *barrier) sendAll(round uint64) error {
	frame(b.buf, b.opts.ID, round)
	for j, c := range b.mesh.conns {
		if c == nil {
			continue
		}
		_ = c.SetWriteDeadline(time.Now().Add(b.opts.Timeout))
		if _, err := c.Write(b.buf); err != nil && round != roundBye {
			return fmt.Errorf("round %d: send to participant %d: %w", round, j, err)
		}
	}
	return nil
}

// await returns once every peer's message for round r is in.
func (b *barrier) await(ctx context.Context, r uint64, deadline time.Time) error {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for waiting := b.waiting(r); len(waiting) > 0; waiting = b.waiting(r) {
		for _, j := range waiting {
			if b.ended[j] {
				return errPeerEnded // j will send no more rounds
			}
		}
		select {
		case a := <-b.arrivals:
			if err := b.take(a, r); err != nil {
				return err
			}
		case <-t.C:
			return fmt.Errorf("%w: round %d: no message from participant(s) %v within %s", ErrTimeout, r, waiting, model.DurationText(b.opts.Timeout))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (b *barrier) take(a arrival, r uint64) error {
	switch {
	case a.err == nil && a.round == roundBye:
		b.ended[a.from] = true
		return nil
	case a.err == nil:
		b.latest[a.from] = a.round
		return nil
	case b.ended[a.from]:
		return nil // it said goodbye first
	case errors.Is(a.err, io.EOF) || errors.Is(a.err, io.ErrUnexpectedEOF):
		return fmt.Errorf("round %d: participant %d closed its connection without ending its run", r, a.from)
	default:
		return fmt.Errorf("round %d: participant %d: %w", r, a.from, a.err)
	}
}

func (b *barrier) waiting(r uint64) []int {
	var out []int
	for j, c := range b.mesh.conns {
		if c != nil && b.latest[j] < r {
			out = append(out, j)
		}
	}
	sort.Ints(out)
	return out
}
