// Package sim is a packet-level discrete-event network simulator in the spirit of htsim: an
// event list with an integer picosecond clock, packets that carry their route, and network
// elements (ports: a queue with the link behind it) that are both event sources and packet sinks.
//
// Determinism: the event list orders events by (time, order of scheduling), every random stream
// is seeded explicitly, and nothing iterates a map on the event path, so one seed gives the same
// result byte for byte on any machine and with any number of runs in parallel.
//
// Subpackages hold what is built on the engine: transports (tcp: TCP, DCTCP, pFabric), the QJump
// host limiter (qjump), the leaf-spine fabric (topology), flow-size workloads (workload) and the
// experiments (experiment).
package sim
