// Package twopc is a small two-phase atomic-commit application, the paper's Fig. 6 workload: one
// coordinator and N servers, over three transports, so that the testbed can show what bounded
// latency buys a coordination protocol.
//
// The protocol is the same on every transport. For each transaction the coordinator sends
// PREPARE to every live server; each server answers VOTE (yes, or no when it cannot commit). The
// coordinator decides commit only if every live server voted yes in time, sends DECIDE (commit or
// abort) to every live server, and each answers DONE. A transaction counts as committed at the
// decision; the next one starts when every live server has answered DONE (one transaction in
// flight: the committed rate is the reciprocal of two protocol round trips).
//
// What differs is how messages travel and what a missing reply means:
//
//   - tcp: one connection per server, reliability from the kernel. A server is declared dead when
//     its connection fails or when it has not replied within Timeout of the message.
//   - udp: datagrams with explicit acknowledgements and retransmissions, in both directions.
//     Every data datagram carries a sequence number that the receiver acknowledges (and uses to
//     drop duplicates); the sender retransmits after Timeout, at most Retries times, and declares
//     the peer dead when the last retransmission goes unacknowledged, (Retries+1)·Timeout after
//     the first send. A vote or DONE that is lost is retransmitted by the server the same way.
//   - qjump: the paper's "UDP broadcast when QJump is enabled". The coordinator sends each PREPARE
//     and DECIDE once, as one datagram to a broadcast address (or, without one, one datagram per
//     server), with no acknowledgement and no retransmission; servers send each VOTE and DONE
//     once. This relies on the guaranteed level (level 7, f7 = 1): QJump admits every packet of
//     that level into the network at most once per epoch and delivers it within one network
//     epoch, so a request and its reply take at most two epochs unless a host has failed. The
//     coordinator therefore declares a server dead when its reply has not arrived DetectEpochs
//     (default 2) epochs after the message was sent, aborts the transaction, and goes on without
//     that server. What QJump removes is the acknowledgement and retransmission layer, and the N
//     copies of each coordinator message; the protocol's own replies (votes and DONEs) remain.
//
// A reply counts as in time when the coordinator's host has received it by the deadline, even if
// the coordinator process, not scheduled at that moment, reads it a little later. A server
// process that is not scheduled for longer than the deadline is declared dead: on a loaded
// machine with epochs of a few milliseconds that happens, and the summary shows it.
//
// A dead server is left out of every later transaction; its late replies are counted and
// ignored. All times reported are CLOCK_REALTIME nanoseconds, shared by all network namespaces of
// one machine, so an experiment can subtract the moment it stopped a server from the moment the
// coordinator noticed.
package twopc
