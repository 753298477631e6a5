package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

func newTestbedCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Emulate a QJump cluster in network namespaces and reproduce the paper's experiments",
		Long: `testbed builds N hosts and one switch on this machine, each a network namespace, joined by
veth pairs. The switch is a Linux bridge whose egress ports have eight strict-priority queues of B
packets, classified on DSCP (--classify pcp: on the 802.1Q priority); every link is shaped to the
emulated rate R. Hosts start without QJump, as a server's NIC under the kernel's defaults
(--host-nic realistic: 4 TX queues, pfifo_fast each; --host-nic simple: one FIFO); --qjump enables
it with the real 'qjump up' inside each host.

Everything is named with the prefix (default qjtb: namespaces qjtb-h1..qjtb-hN, qjtb-sw) and
removed by 'qjump testbed down', also what a crashed run left behind. Needs root.`,
		Example: `  qjump testbed up --hosts 4 --rate 100M --buffer 100
  qjump testbed exec 1 -- ping -c 3 198.18.0.2
  qjump testbed status
  qjump testbed down

  # the paper's experiments (each builds and removes its own testbed)
  qjump testbed run ping-iperf --quick --out /tmp/pi`,
	}
	requireSubcommand(cmd)
	cmd.AddCommand(newTestbedUpCommand(nil), newTestbedDownCommand(nil), newTestbedStatusCommand(nil),
		newTestbedExecCommand(nil), newTestbedRunCommand(nil), newTestbedReportCommand(nil),
		newTestbedStallsCommand())
	return cmd
}

// testbedFlags are the emulated cluster's parameters, shared by up and run.
type testbedFlags struct {
	cfg testbed.Config
	// typed is --rate as the user typed it, for the warning of a rate without a unit, as the
	// model's --rate is warned about (modelFlags).
	typed typedTexts
}

func newTestbedFlags() *testbedFlags {
	return &testbedFlags{cfg: testbed.DefaultConfig(0)}
}

func (f *testbedFlags) register(fs *pflag.FlagSet) {
	// 0 is "the experiment's own" while the flag is not given (run, advise); typed, it is refused
	// as it parses rather than taken for the flag left out.
	hostsAllowed := fmt.Sprintf("need a whole number of hosts, from 2 to %d", testbed.MaxHosts)
	fs.Var(&unitValue[int]{&f.cfg.Hosts, parseWhole(1, hostsAllowed)}, "hosts", fmt.Sprintf("number of hosts, n (2 to %d)", testbed.MaxHosts))
	fs.Var(&unitValue[model.Rate]{&f.cfg.Rate, f.parseRate}, "rate",
		fmt.Sprintf("emulated edge rate R of every link, e.g. 100M, 1G (%s to %s)", testbed.MinRate, testbed.MaxRate))
	fs.IntVar(&f.cfg.Buffer, "buffer", f.cfg.Buffer, "B: packets each switch egress queue holds")
	fs.IntVar(&f.cfg.HostQueue, "host-queue", f.cfg.HostQueue, "packets the host egress queue holds (simple: the FIFO; realistic: each TX queue's txqueuelen)")
	fs.StringVar((*string)(&f.cfg.HostNIC), "host-nic", string(f.cfg.HostNIC),
		"host interfaces: realistic (4 TX queues, TSO/GSO/GRO on, pfifo_fast per queue at R) or simple (one FIFO at R, offloads off)")
	fs.StringVar((*string)(&f.cfg.Classify), "classify", string(f.cfg.Classify), "what the switch reads the level from: dscp or pcp")
	prefixFlag(fs, &f.cfg.Prefix)
	f.typed.keep(fs, "rate")
}

// parseRate reads --rate and refuses, as it parses, a rate the testbed cannot emulate, so that
// the value is named as the user typed it; a number without a unit is said to be bits per
// second, whether it is refused (--rate 10) or taken (a warning). The testbed's bounds on R are
// its own, known before any other flag is read, so pflag's refusal quotes the text: only a rate
// taken is kept in typed, for the warning.
func (f *testbedFlags) parseRate(s string) (model.Rate, error) {
	r, err := model.ParseRate(s)
	if err != nil {
		return 0, err
	}
	if r < testbed.MinRate || r > testbed.MaxRate {
		return 0, rateOutside(testbed.RateAllowed, s, r, "M")
	}
	return r, nil
}

// warnings are what the flags gave that is valid but suspicious: a rate without a unit.
func (f *testbedFlags) warnings() []string { return f.typed.unitlessRate() }

func (f *testbedFlags) config() (testbed.Config, error) {
	c := f.cfg
	if err := c.Validate(); err != nil {
		return c, asFlagError(err)
	}
	return c, nil
}

// prefixFlag registers --prefix, which names the testbed a verb works on. The value is checked
// as it is parsed, the one place every verb's --prefix goes through: `down --prefix Zq` made
// /run/qjump-testbed/Zq.lock before anything refused it, and `--prefix ../../tmp/x` a lock file
// outside that directory.
func prefixFlag(fs *pflag.FlagSet, prefix *string) {
	*prefix = testbed.DefaultPrefix
	fs.Var(prefixValue{prefix}, "prefix", "prefix of the testbed's namespaces and links: "+testbed.PrefixAllowed)
}

// prefixValue is --prefix: a string that testbed.CheckPrefix accepts.
type prefixValue struct{ p *string }

func (v prefixValue) Set(s string) error {
	var fe *model.FieldError
	if err := testbed.CheckPrefix(s); errors.As(err, &fe) {
		return errors.New("need " + fe.Allowed)
	}
	*v.p = s
	return nil
}

// String is the value as --help shows its default; pflag also calls it on a zero prefixValue.
func (v prefixValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v prefixValue) Type() string { return "string" }
