package barrier

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Options configure Run.
type Options struct {
	ID       int           // this participant, an index into Peers
	Peers    []string      // every participant's address:port, in id order (at least 2)
	Listen   string        // where to listen ("": Peers[ID])
	Rounds   int           // rounds to run at most
	For      time.Duration // run this long at most
	Size     int           // message bytes
	Interval time.Duration // pause between rounds
	Timeout  time.Duration // a round that takes longer fails
	Connect  time.Duration // every peer must be connected within this
	Ready    func()        // called once listening
}

// MinSize is the smallest message: magic, sender and round.
const MinSize = frameHeader

// MaxSize bounds a message.
const MaxSize = 65536

// Validate checks the options; errors name the field (*model.FieldError).
func (o Options) Validate() error {
	switch {
	case len(o.Peers) < 2:
		return field("peers", strings.Join(o.Peers, ","), "two or more participant address:port, comma-separated")
	case len(o.Peers) > 1<<16:
		return field("peers", strconv.Itoa(len(o.Peers)), "at most 65536 participants")
	case o.ID < 0 || o.ID >= len(o.Peers):
		return field("id", strconv.Itoa(o.ID), "0 to "+strconv.Itoa(len(o.Peers)-1)+" (an index into --peers)")
	case o.Rounds < 1:
		return field("rounds", strconv.Itoa(o.Rounds), "at least 1")
	case o.For <= 0:
		return field("for", o.For.String(), "more than 0")
	case o.Size < MinSize || o.Size > MaxSize:
		return field("size", strconv.Itoa(o.Size), strconv.Itoa(MinSize)+" to "+strconv.Itoa(MaxSize)+" bytes")
	case o.Interval < 0:
		return field("interval", o.Interval.String(), "0 or more")
	case o.Timeout <= 0:
		return field("timeout", o.Timeout.String(), "more than 0")
	case o.Connect <= 0:
		return field("connect", o.Connect.String(), "more than 0")
	}
	for _, p := range o.Peers {
		if _, _, err := net.SplitHostPort(p); err != nil {
			return field("peers", strings.Join(o.Peers, ","), "address:port, comma-separated")
		}
	}
	return nil
}

func field(name, value, allowed string) error {
	return &model.FieldError{Field: name, Value: value, Allowed: allowed}
}
