package dataplane

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// upInTestNetns brings eth0 of a new namespace pair (named after prefix) up with d and runs f in
// the namespace with eth0's paths, taking it down and the pair away after.
func upInTestNetns(t testing.TB, prefix string, d config.Dataplane, f func(p paths)) {
	t.Helper()
	testutil.RequirePriv(t, "network namespaces")
	k := os.Getpid() % 250
	pair, err := nspair.New(context.Background(), fmt.Sprintf("%s-%d", prefix, k),
		fmt.Sprintf("198.18.%d.1", k), fmt.Sprintf("198.18.%d.2", k))
	if err != nil {
		t.Fatal(err)
	}
	defer pair.Remove()
	testutil.InNetns(t, pair.A, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: d}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = Down("eth0") }()
		p, err := pathsFor("eth0")
		if err != nil {
			t.Fatal(err)
		}
		f(p)
	})
}
