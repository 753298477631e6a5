package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// The bucket width is a matter of speed only: a network of queues and timers gives the same
// events, at the same times and in the same order, whatever the width chosen for the host's
// cache. Widths from 1 ns (a 576-host fabric on a 2 MB L2) to 16 ns are compared.
func TestEventOrderDoesNotDependOnBucketWidth(t *testing.T) {
	want := traceNetwork(newEventList(1, 0))
	if len(want) < 50000 {
		t.Fatalf("trace of %d events: too short to compare", len(want))
	}
	for _, c := range []struct {
		scale float64
		wider uint
	}{{4, 0}, {1, 1}, {1, 2}, {1, 3}, {4, 2}} {
		got := traceNetwork(newEventList(c.scale, c.wider))
		if i := firstDiff(got, want); i >= 0 {
			t.Fatalf("scale %v, buckets 2^%d wider: event %d is %v, with the default width %v",
				c.scale, c.wider, i, at(got, i), at(want, i))
		}
	}
}

type traced struct {
	at  Time
	who int32
}

func at(tr []traced, i int) any {
	if i < len(tr) {
		return tr[i]
	}
	return "none"
}

// traceNetwork runs packets of random sizes through two FIFOs in series (a 10 Gb/s host link into
// a slower one, so that a queue builds and packets are filed up to its drain time ahead) beside
// timers at random times, some due at the same picosecond and some beyond the wheel's horizon,
// and returns every arrival and timer in the order they ran.
func traceNetwork(el *EventList) []traced {
	pool := &PacketPool{}
	var tr []traced
	end := &traceSink{el: el, pool: pool, tr: &tr}
	q1 := NewQueue(el, pool, 10*Gbps, 1000, 0, true)
	q1.SetLink(2700 * Nanosecond)
	q2 := NewQueue(el, pool, 3*Gbps, 150, 20, false)
	q2.SetLink(200 * Nanosecond)
	route := Route{q1, q2, end}
	x := uint64(11)
	rnd := func() uint64 { x = x*6364136223846793005 + 1442695040888963407; return x >> 33 }
	n := int32(0)
	var tick Source
	tick = call(func() {
		tr = append(tr, traced{el.Now(), -1})
		if n >= 40000 {
			return
		}
		for range rnd() % 3 {
			p := pool.Get()
			p.Seq, p.Size = n, int32(64+rnd()%1437)
			n++
			p.SetRoute(route)
			p.SendOn()
		}
		d := Time(rnd() % 3000)
		switch r := rnd() % 64; {
		case r == 0:
			d += 300 * Microsecond // beyond the horizon
		case r < 8:
			d = Time(r) * Nanosecond // ties at whole nanoseconds
		}
		el.Schedule(el.Now()+d, tick)
		if rnd()%4 == 0 {
			el.Schedule(el.Now()+d, call(func() { tr = append(tr, traced{el.Now(), -2}) }))
		}
	})
	el.Schedule(0, tick)
	el.Run(Never)
	return tr
}

// traceSink notes each packet that reaches it.
type traceSink struct {
	el   *EventList
	pool *PacketPool
	tr   *[]traced
}

func (s *traceSink) Receive(p *Packet) {
	*s.tr = append(*s.tr, traced{s.el.Now(), p.Seq})
	s.pool.Put(p)
}

func TestHalvingsBelow(t *testing.T) {
	for _, c := range []struct {
		size int64
		want uint
	}{{0, 0}, {-1, 0}, {4 << 20, 0}, {2 << 20, 0}, {1280 << 10, 1}, {1 << 20, 1}, {512 << 10, 2}, {256 << 10, 3}, {64 << 10, 3}} {
		if got := halvingsBelow(c.size, referenceL2); got != c.want {
			t.Errorf("halvingsBelow(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

func TestReadL2(t *testing.T) {
	dir := t.TempDir()
	write := func(index, level, kind, size string) {
		d := filepath.Join(dir, index)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"level": level, "type": kind, "size": size} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := readL2(dir); got != 0 {
		t.Fatalf("empty dir: %d, want 0", got)
	}
	write("index0", "1", "Data", "48K")
	write("index1", "1", "Instruction", "32K")
	write("index2", "2", "Unified", "1024K")
	write("index3", "3", "Unified", "32768K")
	if got := readL2(dir); got != 1<<20 {
		t.Fatalf("L2 of 1024K read as %d", got)
	}
	if got := readL2(filepath.Join(dir, "missing")); got != 0 {
		t.Fatalf("missing dir: %d, want 0", got)
	}
	for s, want := range map[string]int64{"2M": 2 << 20, "512K": 512 << 10, "4096": 4096, "": 0, "K": 0, "-1K": 0, "x": 0} {
		if got := parseCacheSize(s); got != want {
			t.Errorf("parseCacheSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestBucketWidthWidensWithHalvings(t *testing.T) {
	base := newEventList(1, 0).BucketWidth()
	if base != 1<<defaultShift {
		t.Fatalf("144 hosts: bucket of %d ps, want %d", base, 1<<defaultShift)
	}
	if got := newEventList(1, 1).BucketWidth(); got != 2*base {
		t.Fatalf("one halving of L2: bucket of %d ps, want %d", got, 2*base)
	}
	if got := newEventList(4, 0).BucketWidth(); got != base/2 {
		t.Fatalf("576 hosts: bucket of %d ps, want %d", got, base/2)
	}
}
