package twopc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// ServerReport is what a server did.
type ServerReport struct {
	Transport Transport
	Prepared  int // PREPAREs answered yes
	VotedNo   int
	Committed int
	Aborted   int
	Unknown   int // decisions for transactions it never prepared (it voted no, or missed the PREPARE)
}

// maxPrepared bounds a server's memory: a coordinator that prepares this many transactions
// without deciding them gets no votes until it does.
const maxPrepared = 1 << 20

// participant is a server's protocol state, the same for every transport.
type participant struct {
	mu          sync.Mutex
	voteNoEvery int
	prepared    map[uint64]bool
	report      ServerReport
}

// handle answers one coordinator message; ok is false for anything that needs no answer.
func (p *participant) handle(m message) (reply message, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.kind {
	case kindPrepare:
		yes := p.voteNoEvery == 0 || m.txn%uint64(p.voteNoEvery) != 0
		yes = yes && len(p.prepared) < maxPrepared
		if yes {
			p.prepared[m.txn] = true
			p.report.Prepared++
		} else {
			p.report.VotedNo++
		}
		return message{kind: kindVote, txn: m.txn, ok: yes}, true
	case kindDecide:
		switch {
		case !p.prepared[m.txn]:
			p.report.Unknown++
		case m.ok:
			p.report.Committed++
		default:
			p.report.Aborted++
		}
		delete(p.prepared, m.txn)
		return message{kind: kindDone, txn: m.txn}, true
	}
	return message{}, false
}

// Serve answers a coordinator until ctx ends or opts.For passes, and returns what it did.
func Serve(ctx context.Context, opts ServerOptions) (ServerReport, error) {
	if err := opts.Validate(); err != nil {
		return ServerReport{}, err
	}
	p := &participant{voteNoEvery: opts.VoteNoEvery, prepared: map[uint64]bool{},
		report: ServerReport{Transport: opts.Transport}}
	ctx, cancel := context.WithTimeout(ctx, opts.For)
	defer cancel()
	var err error
	if opts.Transport == TCP {
		err = serveTCP(ctx, opts, p)
	} else {
		err = serveDatagram(ctx, opts, p)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.report, err
}

func serveDatagram(ctx context.Context, opts ServerOptions, p *participant) error {
	conn, err := net.ListenPacket("udp4", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", opts.Listen, err)
	}
	if opts.wrap != nil {
		conn = opts.wrap(conn)
	}
	defer conn.Close()
	ep := newEndpoint(conn, opts.Transport == UDP, opts.Timeout, opts.Retries)
	if opts.Ready != nil {
		opts.Ready()
	}
	for ctx.Err() == nil {
		from, m, err := ep.recv(time.Now().Add(50 * time.Millisecond))
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, errPeerFailed):
			continue // a coordinator that stops acknowledging is its own problem
		case err != nil:
			return err
		}
		if reply, ok := p.handle(m); ok {
			ep.send([]net.Addr{from}, reply)
		}
	}
	return nil
}

func serveTCP(ctx context.Context, opts ServerOptions, p *participant) error {
	ln, err := net.Listen("tcp4", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", opts.Listen, err)
	}
	return acceptTCP(ctx, ln, opts.Ready, p)
}

// acceptTCP answers every coordinator that connects to ln until ctx ends or an accept fails. Either
// way it closes every connection before it waits for their goroutines: a connection ends only
// when its peer closes, so an accept that failed on its own (EMFILE) waited, its error unsaid,
// until every coordinator went (review, helper-86).
func acceptTCP(parent context.Context, ln net.Listener, ready func(), p *participant) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-ctx.Done()
		_ = ln.Close()
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	}()
	if ready != nil {
		ready()
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			stopped := parent.Err() != nil
			cancel()
			<-closed
			wg.Wait()
			if stopped {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		mu.Lock()
		conns[c] = true
		if ctx.Err() != nil { // the closer may have run already
			_ = c.Close()
		}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			answer(c, p)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
			_ = c.Close()
		}()
	}
}

// answer serves one coordinator connection until it closes.
func answer(c net.Conn, p *participant) {
	buf := make([]byte, headerLen+MaxSize)
	for {
		m, err := readFrame(c, buf)
		if err != nil {
			return
		}
		if reply, ok := p.handle(m); ok {
			if _, err := c.Write(reply.marshal()); err != nil {
				return
			}
		}
	}
}
