// Package testbed emulates a small QJump cluster on one Linux machine: N hosts and one switch, each
// a network namespace, joined by veth pairs. The switch is a Linux bridge whose egress ports serve
// eight strict-priority queues (HTB classes with prio, since this kernel has no prio/mqprio
// qdisc) of B packets each, classified on the DSCP class selector; every link direction is shaped to
// the emulated edge rate R at its egress qdisc. Hosts egress through a single FIFO until QJump is
// enabled with the real `qjump up` inside each host namespace.
//
// Everything the testbed creates carries a prefix (default "qjtb"), so Cleanup can remove what a
// crashed run left without touching anything else on the machine.
package testbed
