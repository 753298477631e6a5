package experiment

import (
	"time"
)

// longArmEvery is how often an arm that runs for longer says it is still running: an arm sized in
// epochs (fan-in) lasts minutes under a long epoch, and printed nothing until its end.
var longArmEvery = 30 * time.Second

// stillRunning logs, every longArmEvery until the returned stop is called, how far into its d the
// arm is. An arm shorter than longArmEvery says nothing more.
func (env *Env) stillRunning(arm string, d time.Duration) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(longArmEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				env.logf("       %s: %s of %s", arm, time.Since(start).Round(time.Second), d.Round(time.Second))
			}
		}
	}()
	return func() { close(done) }
}
