package testbed_test

import (
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
)

// byteSample is a byte counter read at a moment: the midpoint of the read, which took a fork and
// exec of tc, a few ms, and so is known to within half its duration (half).
type byteSample struct {
	at    time.Time
	half  time.Duration
	bytes int64
}

// sampleBytes reads a counter every `every` for d.
func sampleBytes(d, every time.Duration, read func() int64) []byteSample {
	var out []byteSample
	end := time.Now().Add(d)
	for {
		before := time.Now()
		b := read()
		after := time.Now()
		half := after.Sub(before) / 2
		out = append(out, byteSample{at: before.Add(half), half: half, bytes: b})
		if after.After(end) {
			return out
		}
		time.Sleep(every)
	}
}

// shapedSpan is a span between two samples and how long a CPU stood still within it.
type shapedSpan struct {
	from, to byteSample
	stalled  time.Duration
}

func (s shapedSpan) length() time.Duration { return s.to.at.Sub(s.from.at) }

// cleanestSpan is the span of at least minLength between two samples whose rate is known best:
// the least time it is unsure of (the stalls within it, and half of each end's read) for its
// length. ok is false if every span of minLength stood still more than a tenth: such a span says
// too little (a shaper at 86 % of R could pass).
func cleanestSpan(samples []byteSample, stalls machine.Timeline, minLength time.Duration) (best shapedSpan, ok bool) {
	bestUnsure := 0.0
	for i := range samples {
		for j := i + 1; j < len(samples); j++ {
			s := shapedSpan{from: samples[i], to: samples[j]}
			if s.length() < minLength {
				continue
			}
			s.stalled = time.Duration(stalls.Within(s.from.at.UnixNano(), s.to.at.UnixNano()))
			if s.stalled > s.length()/10 {
				continue
			}
			unsure := float64(s.stalled+s.from.half+s.to.half) / float64(s.length())
			if !ok || unsure < bestUnsure {
				best, bestUnsure, ok = s, unsure, true
			}
		}
	}
	return best, ok
}

// shapedRateRange is what bytes over a window say of a shaper's rate when the window held a
// stall of at least one CPU: from the rate over the whole window, if the stall held no packet,
// to the rate over the window less the stall, if it held every one.
func shapedRateRange(bytes int64, window, stalled time.Duration) (low, high float64) {
	bits := float64(bytes) * 8
	return bits / window.Seconds(), bits / (window - stalled).Seconds()
}

// TestCleanestSpan: of samples a second apart over 6 s (each read taking 4 ms) with a CPU still
// for 400 ms in the second and the fifth second, the cleanest span of at least 1 s is the longest
// without a stall, from 2 s to 4 s; with stalls over a tenth of every span, there is none; and a
// short stall does not outweigh a longer span.
func TestCleanestSpan(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var samples []byteSample
	for i := 0; i <= 6; i++ {
		samples = append(samples, byteSample{at: t0.Add(time.Duration(i) * time.Second), half: 2 * time.Millisecond, bytes: int64(i) * 1000})
	}
	stall := func(from, to time.Duration) machine.Stall {
		return machine.Stall{FromNS: t0.Add(from).UnixNano(), ToNS: t0.Add(to).UnixNano()}
	}
	tl := machine.NewTimeline([]machine.Stall{stall(1100*time.Millisecond, 1500*time.Millisecond),
		stall(4200*time.Millisecond, 4600*time.Millisecond)})
	s, ok := cleanestSpan(samples, tl, time.Second)
	if !ok || s.from.at != t0.Add(2*time.Second) || s.to.at != t0.Add(4*time.Second) || s.stalled != 0 {
		t.Errorf("cleanest span %v to %v (stalled %v, ok %v), want 2s to 4s without a stall",
			s.from.at.Sub(t0), s.to.at.Sub(t0), s.stalled, ok)
	}
	var every []machine.Stall
	for i := 0; i < 6; i++ {
		base := time.Duration(i) * time.Second
		every = append(every, stall(base+300*time.Millisecond, base+500*time.Millisecond))
	}
	if s, ok := cleanestSpan(samples, machine.NewTimeline(every), time.Second); ok {
		t.Errorf("stalls of 200 ms a second: found %v to %v (stalled %v), want none clean enough",
			s.from.at.Sub(t0), s.to.at.Sub(t0), s.stalled)
	}
	// A stall of 0.5 ms in the first second: 0 to 6 s is unsure of 4.5 ms in 6 s, better than
	// any span without the stall (4 ms in at most 5 s).
	tl = machine.NewTimeline([]machine.Stall{stall(500*time.Millisecond, 500500*time.Microsecond)})
	if s, ok := cleanestSpan(samples, tl, time.Second); !ok || s.length() != 6*time.Second || s.stalled != 500*time.Microsecond {
		t.Errorf("a 0.5 ms stall: span %v to %v (stalled %v, ok %v), want all 6 s", s.from.at.Sub(t0), s.to.at.Sub(t0), s.stalled, ok)
	}
	// A stall of 50 ms in a span of 2 s is a share of 2.5 %: usable, and the range it gives is
	// the rate over the whole span and over the span less the stall.
	tl = machine.NewTimeline([]machine.Stall{stall(500*time.Millisecond, 550*time.Millisecond)})
	if s, ok := cleanestSpan(samples[:3], tl, 2*time.Second); !ok || s.stalled != 50*time.Millisecond {
		t.Errorf("one 2 s span with a 50 ms stall: stalled %v, ok %v", s.stalled, ok)
	}
	if low, high := shapedRateRange(1000, 2*time.Second, 50*time.Millisecond); low != 4000 || high != 8000/1.95 {
		t.Errorf("range %v-%v, want 4000-%v", low, high, 8000/1.95)
	}
}
