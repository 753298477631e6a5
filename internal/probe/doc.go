// Package probe is the testbed's latency probe: UDP request/response and one-way packets stamped
// by the kernel (SO_TIMESTAMPING, software stamps) on send and on receive. All network namespaces
// of one machine share CLOCK_REALTIME, the clock those stamps use, so a one-way latency computed
// from a sender's stamp and a receiver's stamp is exact: no clock synchronisation error.
//
// Latency starts at the sender's application clock read just before sendmsg, so that queueing in
// the sending host's qdisc counts (that is where a shared source host delays a probe), and ends at
// the receiver's kernel software receive stamp, so that the receiving process's scheduling does
// not. The sender's kernel transmit stamp (taken when the driver takes the packet, after the
// qdisc) is reported beside it.
package probe
