package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// referenceL2 is the L2 cache per core of the hosts the calendar's bucket widths were measured
// on (Intel Xeons with 2 MB): at 144 hosts the 1 MB wheel of 2 ns buckets was the fastest there.
const referenceL2 = 2 << 20

// l2Halvings is how many times this host's L2 per core halves referenceL2 (0 when it is as large
// or larger, or cannot be read), read once from sysfs. On an AMD EPYC with 1 MB of L2 the 1 MB
// wheel alone filled it and a hop missed L2 0.44 times (bench/sim/instructions); with buckets
// twice as wide, a 512 kB wheel, 0.18 times, and the TCP point ran 2.5 % faster side by side.
// The bucket width changes no output: events run in (time, scheduling order) whatever it is.
var l2Halvings = sync.OnceValue(func() uint {
	return halvingsBelow(readL2("/sys/devices/system/cpu/cpu0/cache"), referenceL2)
})

// halvingsBelow is how many times size must be doubled to reach reference, at most 3 (a wheel an
// eighth of the size is all the buckets' widths were ever measured with); 0 for an unknown size.
func halvingsBelow(size, reference int64) uint {
	var n uint
	for size > 0 && size < reference && n < 3 {
		size *= 2
		n++
	}
	return n
}

// readL2 returns the size in bytes of the level-2 data or unified cache listed under dir (sysfs's
// cpuN/cache), or 0 if none can be read.
func readL2(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		read := func(file string) string {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name(), file))
			return strings.TrimSpace(string(b))
		}
		if !strings.HasPrefix(e.Name(), "index") || read("level") != "2" || read("type") == "Instruction" {
			continue
		}
		return parseCacheSize(read("size"))
	}
	return 0
}

// parseCacheSize reads sysfs's cache sizes ("1024K", "2M"), 0 if it cannot.
func parseCacheSize(s string) int64 {
	unit := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		unit, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		unit, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n * unit
}
