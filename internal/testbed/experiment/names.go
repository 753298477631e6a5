package experiment

// The tools that measure and the metrics they measure, as samples.csv and results.json name them.
const (
	toolProbe     = "probe"     // our UDP probe with kernel timestamps
	toolPing      = "ping"      // the system's ping
	toolMemcached = "memcached" // our closed-loop memcached client

	metricOneWay  = "oneway"  // application send to kernel receive stamp
	metricNetwork = "network" // kernel transmit stamp to kernel receive stamp
	metricRTT     = "rtt"     // round trip
	metricRequest = "request" // a memcached request, write to end of reply
)
