package probe

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Sample is one probe packet's fate, seen by the client. Times are CLOCK_REALTIME nanoseconds; a
// stamp the kernel did not give is 0.
type Sample struct {
	Seq      uint64
	SendNS   int64 // application clock just before sendmsg
	TxNS     int64 // kernel software transmit stamp (driver took the packet, after the host qdisc)
	ServerNS int64 // kernel receive stamp at the server (request/response only)
	RecvNS   int64 // kernel receive stamp of the reply at the client (request/response only)
	Lost     bool  // no reply before the timeout
}

// OneWayNS is the request's one-way latency, sender's send to server's kernel receive.
func (s Sample) OneWayNS() int64 {
	if s.Lost || s.ServerNS == 0 {
		return 0
	}
	return s.ServerNS - s.SendNS
}

// RTTNS is the round trip, send to the kernel receive stamp of the reply.
func (s Sample) RTTNS() int64 {
	if s.Lost || s.RecvNS == 0 {
		return 0
	}
	return s.RecvNS - s.SendNS
}

// ClientCSVHeader is the header of the client's sample file (documented in docs/testbed.md).
var ClientCSVHeader = []string{"seq", "send_ns", "tx_kernel_ns", "server_rx_ns", "rx_kernel_ns", "oneway_ns", "rtt_ns", "lost"}

// WriteClientCSV writes every sample, lost ones included.
func WriteClientCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(ClientCSVHeader)
	for _, s := range samples {
		_ = cw.Write([]string{strconv.FormatUint(s.Seq, 10), i64(s.SendNS), i64(s.TxNS), i64(s.ServerNS),
			i64(s.RecvNS), i64(s.OneWayNS()), i64(s.RTTNS()), strconv.FormatBool(s.Lost)})
	}
	cw.Flush()
	return cw.Error()
}

// Arrival is one packet received by the server.
type Arrival struct {
	Sender uint16
	Seq    uint64
	SendNS int64
	RecvNS int64 // kernel receive stamp
}

// ServerCSVHeader is the header of the server's arrival file.
var ServerCSVHeader = []string{"sender", "seq", "send_ns", "rx_kernel_ns", "oneway_ns"}

// WriteServerCSV writes every arrival.
func WriteServerCSV(w io.Writer, arrivals []Arrival) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(ServerCSVHeader)
	for _, a := range arrivals {
		_ = cw.Write([]string{strconv.Itoa(int(a.Sender)), strconv.FormatUint(a.Seq, 10), i64(a.SendNS),
			i64(a.RecvNS), i64(a.RecvNS - a.SendNS)})
	}
	cw.Flush()
	return cw.Error()
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }
