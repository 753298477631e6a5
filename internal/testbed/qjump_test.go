package testbed

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
)

// The arguments recorded are those that ran: with the testbed's own --dev, --mode shape and
// --mark, which results.json's up_args and summary.md left out (a copied command ran police mode).
func TestUpArgsAreTheOnesThatRun(t *testing.T) {
	c := DefaultConfig(2)
	c.Classify = ClassifyPCP
	tb := &Testbed{Config: c, Names: Names{Prefix: "qjx"}}
	got := strings.Join(tb.UpArgs(config.Shape, []string{"--hosts", "2", "--factors", "7=1"}), " ")
	if want := "--dev eth0 --mode shape --mark pcp --hosts 2 --factors 7=1"; got != want {
		t.Errorf("UpArgs: %q, want %q", got, want)
	}
}
