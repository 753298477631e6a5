package ptp

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Role is master or slave.
type Role string

const (
	Master Role = "master"
	Slave  Role = "slave"
)

// Options configure Run.
type Options struct {
	Role      Role
	Interface string        // the interface ptp4l runs on (eth0 on a testbed host)
	For       time.Duration // run this long at most
	Limit     int           // stop after this many samples (slave)
	// Log2 of the Sync and Delay_Req intervals in seconds: -4 is 16 a second.
	SyncInterval     int
	DelayReqInterval int
	Ready            func() // master: took the grand master role; slave: first sample
}

// Interval bounds: 2^-7 s (128 a second) is as fast as ptp4l keeps up with on a shared machine.
const (
	MinInterval = -7
	MaxInterval = 4
)

// Validate checks the options; errors name the field (*model.FieldError).
func (o Options) Validate() error {
	interval := fmt.Sprintf("%d to %d (log2 seconds: -4 is 16 a second)", MinInterval, MaxInterval)
	switch {
	case o.Role != Master && o.Role != Slave:
		return field("role", string(o.Role), "master or slave")
	case o.Interface == "" || strings.ContainsAny(o.Interface, " \t\n/"):
		return field("iface", o.Interface, "a network interface name")
	case o.For <= 0:
		return field("for", o.For.String(), "more than 0")
	case o.Limit < 1:
		return field("limit", strconv.Itoa(o.Limit), "at least 1")
	case o.SyncInterval < MinInterval || o.SyncInterval > MaxInterval:
		return field("sync-interval", strconv.Itoa(o.SyncInterval), interval)
	case o.DelayReqInterval < MinInterval || o.DelayReqInterval > MaxInterval:
		return field("delay-req-interval", strconv.Itoa(o.DelayReqInterval), interval)
	}
	return nil
}

func field(name, value, allowed string) error {
	return &model.FieldError{Field: name, Value: value, Allowed: allowed}
}

// Config is ptp4l's configuration file for o, with its management socket at uds. Since linuxptp
// 4.0 ptp4l also opens a read-only management socket, whose default path two instances on one
// filesystem would share: readOnlySocket names it beside uds (3.x refuses the option).
func Config(o Options, uds string, readOnlySocket bool) string {
	var b strings.Builder
	line := func(k string, v any) { fmt.Fprintf(&b, "%-24s %v\n", k, v) }
	b.WriteString("[global]\n")
	line("time_stamping", "software")
	line("network_transport", "UDPv4")
	line("delay_mechanism", "E2E")
	line("logSyncInterval", o.SyncInterval)
	line("logMinDelayReqInterval", o.DelayReqInterval)
	line("logAnnounceInterval", -2)          // a quick choice of master: announces at 4 a second
	line("summary_interval", o.SyncInterval) // print every sample, not a summary of several
	line("clock_servo", "ntpshm")            // never adjust the shared clock (see the package doc)
	line("tx_timestamp_timeout", 100)        // ms: a loaded host stamps late; do not fault the port
	line("uds_address", uds)
	if readOnlySocket {
		line("uds_ro_address", uds+".ro")
	}
	if o.Role == Master {
		line("priority1", 1) // win the best-master choice
	} else {
		line("slaveOnly", 1)
	}
	return b.String()
}
