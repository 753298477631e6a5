package twopc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Outcome of a transaction.
const (
	Committed = "commit"
	Aborted   = "abort"
)

// Txn is one transaction, seen by the coordinator. Times are CLOCK_REALTIME nanoseconds.
type Txn struct {
	ID         uint64
	StartNS    int64  // PREPARE sent
	DecisionNS int64  // every vote in (or the deadline passed): the commit point
	EndNS      int64  // every DONE in (or the deadline passed)
	Outcome    string // Committed or Aborted
	Servers    int    // live servers it involved
}

// Failure is a server the coordinator declared dead.
type Failure struct {
	Server     int
	Addr       string
	Txn        uint64 // the transaction it failed in
	Phase      string // prepare or decide: the message it did not answer
	SentNS     int64  // when that message was sent
	DetectedNS int64  // when the coordinator declared the server dead
	Cause      string
}

// DetectNS is how long the coordinator took to notice, from the unanswered message.
func (f Failure) DetectNS() int64 { return f.DetectedNS - f.SentNS }

// Report is what a coordinator run measured.
type Report struct {
	Transport       Transport
	Servers         int
	ReplyWait       time.Duration // a server silent this long after a message is dead
	StartNS, EndNS  int64
	Committed       int
	Aborted         int
	Failures        []Failure
	LateReplies     int // replies from servers already declared dead
	Retransmissions int // udp
	SendErrors      int // sends the host refused (counted as lost)
	Txns            []Txn
}

// CommittedPerSec is the committed transaction rate over the run.
func (r Report) CommittedPerSec() float64 {
	if r.EndNS <= r.StartNS {
		return 0
	}
	return float64(r.Committed) / (float64(r.EndNS-r.StartNS) / 1e9)
}

// ErrNoServers ends a run whose every server was declared dead.
var ErrNoServers = errors.New("every server was declared dead")

type coordinator struct {
	opts   CoordinatorOptions
	link   link
	live   map[int]bool
	report *Report
}

// Coordinate runs transactions until opts.Count are done, opts.For passes, ctx ends or no server
// is left, and returns what it measured (with ErrNoServers in the last case).
func Coordinate(ctx context.Context, opts CoordinatorOptions) (Report, error) {
	if err := opts.Validate(); err != nil {
		return Report{}, err
	}
	var l link
	var err error
	if opts.Transport == TCP {
		l, err = dialTCP(ctx, opts)
	} else {
		l, err = dialDatagram(opts)
	}
	if err != nil {
		return Report{}, err
	}
	defer l.close()
	c := &coordinator{opts: opts, link: l, live: map[int]bool{},
		report: &Report{Transport: opts.Transport, Servers: len(opts.Servers), ReplyWait: opts.replyWait()}}
	for i := range opts.Servers {
		c.live[i] = true
	}
	err = c.run(ctx)
	c.report.Retransmissions, c.report.SendErrors = l.stats()
	return *c.report, err
}

func (c *coordinator) run(ctx context.Context) error {
	c.report.StartNS = now()
	defer func() { c.report.EndNS = now() }()
	end := time.Now().Add(c.opts.For)
	for id := uint64(1); id <= uint64(c.opts.Count) && time.Now().Before(end) && ctx.Err() == nil; id++ {
		if len(c.live) == 0 {
			return ErrNoServers
		}
		if err := c.transaction(id); err != nil {
			return err
		}
	}
	if len(c.live) == 0 {
		return ErrNoServers
	}
	return nil
}

func (c *coordinator) transaction(id uint64) error {
	t := Txn{ID: id, StartNS: now(), Servers: len(c.live)}
	votes, err := c.phase(message{kind: kindPrepare, txn: id, payload: c.opts.Size}, kindVote)
	if err != nil {
		return err
	}
	commit := len(votes) == t.Servers
	for _, yes := range votes {
		commit = commit && yes
	}
	t.DecisionNS, t.Outcome = now(), Aborted
	if commit {
		t.Outcome = Committed
		c.report.Committed++
	} else {
		c.report.Aborted++
	}
	if len(c.live) > 0 {
		if _, err := c.phase(message{kind: kindDecide, txn: id, ok: commit}, kindDone); err != nil {
			return err
		}
	}
	t.EndNS = now()
	c.report.Txns = append(c.report.Txns, t)
	return nil
}

// phase sends m to every live server and collects their replies of kind want until all are in
// or the reply deadline passes; a server that fails or stays silent is declared dead.
func (c *coordinator) phase(m message, want kind) (map[int]bool, error) {
	to := c.liveServers()
	sent := now()
	deadline := time.Now().Add(c.report.ReplyWait)
	c.link.send(to, m)
	waiting := map[int]bool{}
	for _, s := range to {
		waiting[s] = true
	}
	replies := map[int]bool{}
	for len(waiting) > 0 {
		ev, err := c.link.recv(deadline)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch {
		case ev.failed != nil:
			if c.live[ev.from] {
				c.declareDead(ev.from, m, sent, ev.failed.Error())
			}
			delete(waiting, ev.from)
		case !c.live[ev.from]:
			c.report.LateReplies++
		case ev.msg.kind == want && ev.msg.txn == m.txn && waiting[ev.from]:
			replies[ev.from] = ev.msg.ok
			delete(waiting, ev.from)
		}
	}
	for s := range waiting {
		c.declareDead(s, m, sent, fmt.Sprintf("no %s within %s", want, model.DurationText(c.report.ReplyWait)))
	}
	return replies, nil
}

func (c *coordinator) declareDead(s int, m message, sent int64, cause string) {
	delete(c.live, s)
	c.link.forget(s)
	c.report.Failures = append(c.report.Failures, Failure{Server: s, Addr: c.opts.Servers[s], Txn: m.txn,
		Phase: m.kind.String(), SentNS: sent, DetectedNS: now(), Cause: cause})
}

func (c *coordinator) liveServers() []int {
	var out []int
	for i := range c.opts.Servers {
		if c.live[i] {
			out = append(out, i)
		}
	}
	return out
}

// now is the wall clock every namespace shares, in nanoseconds.
func now() int64 { return time.Now().UnixNano() }
