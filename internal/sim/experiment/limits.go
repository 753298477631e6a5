package experiment

// MaxHosts bounds the fabric a point may build. Every simulated host costs about 1.5 kB of
// ports, queues and routes before any traffic (measured: 10,000 hosts 14 MB, 100,000 hosts
// 140 MB), each worker builds its own fabric, and the experiments are about fabrics of hundreds
// of hosts (the paper's has 144). 100,000 hosts is far beyond them and still fits in memory; a
// topology of millions would run the machine out of memory before the first flow.
const MaxHosts = 100_000

// MaxCoreLinks bounds the ToR–spine links (racks × spines) the same way: each is a pair of
// switch ports.
const MaxCoreLinks = 100_000
