package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

// The application experiments (ptp, 2pc, barrier, memcached-sweep, mixed) run our hidden verbs
// (`qjump ptp`, `qjump 2pc`, `qjump barrier`) inside the hosts, each of which says it is ready by
// creating its --ready file.

// readyWait is how long a verb may take to start on a loaded machine (ptp4l's master takes a few
// announce intervals to claim the grand master role).
const readyWait = 20 * time.Second

// rawPath is a file in the run's raw/ directory.
func (env *Env) rawPath(name string) string { return filepath.Join(env.opts.OutDir, "raw", name) }

// startApp starts `qjump ARGS... --ready FILE` on host `on` at level l (when QJump is on) and
// returns once it has created FILE: no guess of how long a start takes.
func (env *Env) startApp(ctx context.Context, name string, on int, l model.Level, args ...string) (*proc, error) {
	ready := env.rawPath(fmt.Sprintf("%s-h%d.ready", strings.ReplaceAll(name, " ", "-"), on))
	_ = os.Remove(ready)
	argv := append(append([]string{testbed.Binary}, args...), "--ready", ready)
	p, err := env.procs.start(name, env.tb.Exec(on, env.atLevel(l, true, argv...)...))
	if err != nil {
		return nil, err
	}
	defer os.Remove(ready)
	for deadline := time.Now().Add(readyWait); time.Now().Before(deadline); {
		if _, err := os.Stat(ready); err == nil {
			return p, nil
		}
		if p.exited() {
			return nil, fmt.Errorf("%s on h%d ended before it was ready: %s", name, on, strings.TrimSpace(p.out.String()))
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s on h%d was not ready within %s", name, on, model.DurationText(readyWait))
}

// freeze stops every process of p's group (SIGSTOP), as a host that has failed without closing
// its connections; thaw lets it go on (SIGCONT), so that it can then be stopped cleanly.
func freeze(p *proc) error { return syscall.Kill(-p.cmd.Process.Pid, syscall.SIGSTOP) }

func thaw(p *proc) { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT) }

// wireFrameUS is one maximum frame time at R in µs: a 1500-byte MTU frame on the wire (1538 B
// with header, FCS, preamble and gap; 123 µs at 100 Mb/s), the most a level-7 packet waits
// behind a lower level's frame already on the link. The emulated link counts 1514 B (121 µs).
func wireFrameUS(r *Results) float64 {
	return float64(model.FullFrameWire(model.DefaultMTU, false)) * 8 / r.Model.RateBPS * 1e6
}
