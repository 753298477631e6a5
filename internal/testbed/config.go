package testbed

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/model"
)

// Classify says which header field the switch reads a packet's level from.
type Classify string

const (
	// ClassifyDSCP reads the DSCP class selector, the top three bits of the IPv4 TOS byte.
	ClassifyDSCP Classify = "dscp"
	// ClassifyPCP reads the 802.1Q priority code point of a VLAN tag.
	ClassifyPCP Classify = "pcp"
)

// Defaults of the emulated cluster: a 100 Mb/s edge is slow enough that two cores emulate it
// faithfully with room for the traffic generators (see docs/testbed.md for what was measured).
const (
	DefaultRate      = model.Rate(100e6)
	DefaultBuffer    = 100
	DefaultHostQueue = 1000
	MaxHosts         = 32
	MaxRate          = model.Rate(1e9)
	// MinRate is the slowest link the testbed emulates: each of a switch port's eight queues is an
	// HTB class with a rate of its own, 8 kbit/s (64 kbit/s in all), and borrows the rest of R in
	// priority order. From 1 Mb/s up those own rates are a trickle beside strict priority; below
	// it they are a large share of R (all of it at 64 kbit/s), and tc cannot shape under 8 bit/s
	// (a byte a second) at all.
	MinRate   = model.Rate(1e6)
	MaxBuffer = 100000
)

// RateAllowed is what the testbed's rate R may be, and why.
var RateAllowed = fmt.Sprintf("need %s to %s: below %s the eight queues of a switch port, each with 8kb/s of R "+
	"its own, are no longer strict priority, and %s is what two cores emulate (docs/testbed.md)", MinRate, MaxRate, MinRate, MaxRate)

// Config describes the emulated cluster.
type Config struct {
	// Prefix names every namespace and link.
	Prefix string `json:"prefix"`
	// Hosts is the number of host namespaces, n in QJump's model.
	Hosts int `json:"hosts"`
	// Rate is the emulated edge rate R, applied at the egress of every link direction.
	Rate model.Rate `json:"rate_bps"`
	// Buffer is each switch egress queue's limit in packets, B.
	Buffer int `json:"buffer_packets"`
	// HostQueue is the host egress FIFO's limit in packets (a NIC's txqueuelen).
	HostQueue int `json:"host_queue_packets"`
	// Classify is the field the switch classifies on.
	Classify Classify `json:"classify"`
	// HostNIC is how the hosts' interfaces behave: a server's NIC or the simple FIFO.
	HostNIC HostNIC `json:"host_nic,omitempty"` // absent from results of runs before it was a choice
}

// DefaultConfig is the testbed that `qjump testbed up` builds without flags, apart from Hosts.
func DefaultConfig(hosts int) Config {
	return Config{Prefix: DefaultPrefix, Hosts: hosts, Rate: DefaultRate, Buffer: DefaultBuffer,
		HostQueue: DefaultHostQueue, Classify: ClassifyDSCP, HostNIC: HostNICRealistic}
}

// Validate checks the configuration before anything touches the kernel.
func (c Config) Validate() error {
	if err := CheckPrefix(c.Prefix); err != nil {
		return err
	}
	if c.Hosts < 2 || c.Hosts > MaxHosts {
		return &model.FieldError{Field: "hosts", Value: fmt.Sprint(c.Hosts), Allowed: fmt.Sprintf("from 2 to %d hosts", MaxHosts)}
	}
	if !(c.Rate >= MinRate) || c.Rate > MaxRate {
		return &model.FieldError{Field: "rate", Value: c.Rate.String(), Allowed: RateAllowed}
	}
	if c.Buffer < 1 || c.Buffer > MaxBuffer {
		return &model.FieldError{Field: "buffer", Value: fmt.Sprint(c.Buffer), Allowed: fmt.Sprintf("from 1 to %d packets", MaxBuffer)}
	}
	if c.HostQueue < 1 || c.HostQueue > MaxBuffer {
		return &model.FieldError{Field: "host-queue", Value: fmt.Sprint(c.HostQueue), Allowed: fmt.Sprintf("from 1 to %d packets", MaxBuffer)}
	}
	if c.HostNIC != HostNICRealistic && c.HostNIC != HostNICSimple {
		return &model.FieldError{Field: "host-nic", Value: string(c.HostNIC), Allowed: "realistic or simple"}
	}
	if c.Classify != ClassifyDSCP && c.Classify != ClassifyPCP {
		return &model.FieldError{Field: "classify", Value: string(c.Classify), Allowed: "dscp or pcp"}
	}
	return nil
}
