package testbed

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/config"
)

// The testbed enables QJump exactly as a deployment does: the real `qjump up` inside each host's
// namespace and the real `qjump run` around each program. It never limits rates itself.

// Binary is the qjump executable run inside namespaces: this very program, unless it is a test
// binary (which would run its tests when handed qjump's arguments); then the qjump on PATH, and
// tests set it to the binary they build (tbtest.RequireTools).
var Binary = func() string {
	p, err := os.Executable()
	if err != nil || strings.HasSuffix(p, ".test") {
		return "qjump"
	}
	return p
}()

// EnableQJump runs `qjump up` on every host's interface in mode with upArgs (model flags or
// --config), marking the field the switch classifies on. `qjump up` takes the host's egress over
// in either mode (the emulated NIC or the simple FIFO) and `qjump down` gives it back. The
// experiments run shape mode: their bounds count its burst.
func (tb *Testbed) EnableQJump(ctx context.Context, mode config.Mode, upArgs []string) error {
	argv := append([]string{Binary, "up"}, tb.UpArgs(mode, upArgs)...)
	tb.UpWarnings = nil
	for i := 1; i <= tb.Config.Hosts; i++ {
		full := InNS(tb.Names.HostNS(i), argv...)
		out, err := output(ctx, full[0], full[1:]...)
		if err != nil {
			return err
		}
		if i == 1 { // every host runs the same configuration on the same kind of interface
			tb.UpWarnings = upWarnings(out)
		}
	}
	tb.qjump = true
	return nil
}

// upWarnings are the warnings in what `qjump up` printed, without their "qjump: warning: ".
func upWarnings(out string) []string {
	var w []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "qjump: warning: "); ok {
			w = append(w, rest)
		}
	}
	return w
}

// UpArgs is the whole argument list EnableQJump gives `qjump up` (after "up") on every host, for
// the record: the testbed's own flags, then upArgs. Without them a copied command ran police
// mode, whose fan-in bound is half of what the experiments' shape mode is judged against. A flag
// wins over a --config file's key, so a caller with a file passes the file's mode and checks its
// mark (cli's checkQJumpConfig): --mode shape before the file ran a file's police as shape. The
// mark is the field the switch classifies on unless upArgs gives one (mark: both, which marks
// that field too).
func (tb *Testbed) UpArgs(mode config.Mode, upArgs []string) []string {
	own := []string{"--dev", tb.Names.HostIface(), "--mode", string(mode)}
	if !slices.Contains(upArgs, "--mark") {
		own = append(own, "--mark", string(tb.Config.Classify))
	}
	return append(own, upArgs...)
}

// DisableQJump runs `qjump down` on every host, which puts the host's own egress back.
func (tb *Testbed) DisableQJump(ctx context.Context) error {
	for i := 1; i <= tb.Config.Hosts; i++ {
		argv := InNS(tb.Names.HostNS(i), Binary, "down", "--dev", hostIface)
		if err := run(ctx, argv[0], argv[1:]...); err != nil {
			return err
		}
	}
	tb.qjump = false
	return nil
}

func qjumpDown(ctx context.Context, ns string) {
	argv := InNS(ns, Binary, "down", "--dev", hostIface)
	_ = exec.CommandContext(ctx, argv[0], argv[1:]...).Run()
}

// AtLevel wraps argv so that it runs on QJump level l through `qjump run`. Static binaries (Go,
// such as our own probe) ignore LD_PRELOAD, so they go through the cgroup mode.
func AtLevel(l int, static bool, argv ...string) []string {
	w := []string{Binary, "run", "--level", strconv.Itoa(l)}
	if static {
		w = append(w, "--mode", "cgroup")
	}
	return append(append(w, "--"), argv...)
}
