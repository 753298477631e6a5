package experiment

import "sync"

// parallel runs point(i) for i in [0, n) on workers goroutines and then done(i) for each, one at
// a time, as points finish. Every point is its own simulation with its own seeded streams, so the
// results do not depend on the number of workers or on their timing; only the order of done does.
func parallel(n, workers int, point, done func(i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				point(i)
				mu.Lock()
				done(i)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}
