package experiment

import (
	"context"
	"sync"
)

// parallel runs point(i) for i in [0, n) on workers goroutines and then done(i) for each, one at
// a time, as points finish. Every point is its own simulation with its own seeded streams, so the
// results do not depend on the number of workers or on their timing; only the order of done does.
//
// When ctx is done (the user pressed Ctrl-C), parallel starts no new point and returns at once:
// the points still running are abandoned (their goroutines finish in the background, and neither
// done nor the result hears of them), so an interrupted sweep answers without waiting out a point
// that may take minutes. finished[i] says whether point i finished and had its done called.
func parallel(ctx context.Context, n, workers int, point, done func(i int)) (finished []bool) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	finished = make([]bool, n)
	abandoned := false
	// No more goroutines than points: each would only wait for a point that never comes.
	for w := 0; w < max(min(workers, n), 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if ctx.Err() != nil {
					continue // handed out as ctx ended: not started
				}
				point(i)
				mu.Lock()
				if !abandoned {
					finished[i] = true
					done(i)
				}
				mu.Unlock()
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case <-ctx.Done():
				return
			case jobs <- i:
			}
		}
	}()
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	return append([]bool(nil), finished...)
}
