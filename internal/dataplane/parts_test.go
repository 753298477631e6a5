package dataplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/stats"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestPartsScriptFitsTheSource: bench/dataplane/parts finds each part it compiles out by a line
// of bpf/qjump.bpf.c, so a change to the program can leave the script behind (the clock's move
// into police mode did, 2026-11-28, and the next measurement found it). Its --check mode makes
// and compiles every variant without measuring, here, so that such a change fails the tests.
func TestPartsScriptFitsTheSource(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		testutil.Unavailable(t, "clang is not installed (scripts/deps installs it)")
	}
	out, err := exec.Command("../../bench/dataplane/parts", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("bench/dataplane/parts --check: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "6 variants compiled") {
		t.Errorf("bench/dataplane/parts --check said %q, want its 6 variants compiled", out)
	}
}

// TestPartsCost is a measurement, not a check: what each part of the program costs a packet. It
// runs only when QJUMP_PARTS_DIR names a directory of objects compiled from variants of
// bpf/qjump.bpf.c (bench/dataplane/parts builds them, each with one part compiled out), and needs
// root. Every variant is loaded with BenchProgram's configuration in police mode and measured in
// turns with the two floors and the committed program, packet by packet, as BenchProgram measures;
// a part's cost is what leaving it out saves against the unchanged source compiled the same way
// (the variant "base"), taken round by round so that the host's drift between rounds cancels.
// Where the kernel puts a load's code and maps moves its cost by a few ns, sometimes 10, so each
// program is loaded QJUMP_PARTS_LOADS times (default 3) and a round's figure for it is the median
// over its loads.
func TestPartsCost(t *testing.T) {
	dir := os.Getenv("QJUMP_PARTS_DIR")
	if dir == "" {
		t.Skip("QJUMP_PARTS_DIR not set: run bench/dataplane/parts")
	}
	testutil.RequirePriv(t, "BPF_PROG_TEST_RUN")
	rounds, loads := envCount(t, "QJUMP_PARTS_ROUNDS", 15), envCount(t, "QJUMP_PARTS_LOADS", 3)
	objs, err := filepath.Glob(filepath.Join(dir, "*.o"))
	if err != nil || len(objs) == 0 {
		t.Fatalf("no variants (*.o) in %s: %v", dir, err)
	}
	sort.Strings(objs)
	var floors floorObjects
	if err := loadFloorObjects(&floors, nil); err != nil {
		t.Fatal(err)
	}
	defer floors.Close()
	// Programs in groups, one group per name: a floor, or the loads of one program.
	names := []string{"empty", "clock only", "committed"}
	groups := [][]*ebpf.Program{{floors.FloorEmpty}, {floors.FloorClock}, nil}
	for range loads {
		o, err := benchObjects(config.Police, benchLevel)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		groups[2] = append(groups[2], o.QjumpEgress)
	}
	for _, path := range objs {
		names = append(names, strings.TrimSuffix(filepath.Base(path), ".o"))
		var g []*ebpf.Program
		for range loads {
			coll := loadVariant(t, path)
			defer coll.Close()
			g = append(g, coll.Programs["qjump_egress"])
		}
		groups = append(groups, g)
	}
	var progs []*ebpf.Program
	for _, g := range groups {
		progs = append(progs, g...)
	}
	perRound := make([][]float64, len(groups))
	for r := 0; r < rounds; r++ {
		costs, err := runInTurns(progs, 20000, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range groups {
			perRound[i] = append(perRound[i], stats.Median(costs[:len(g)]))
			costs = costs[len(g):]
		}
	}
	// Savings are taken against the variant "base" (the source unchanged, compiled and loaded as
	// the variants are) when there is one, else against the committed program.
	ref := 2
	for i, n := range names {
		if n == "base" {
			ref = i
		}
	}
	fmt.Printf("%d rounds of 20000 packets per program, in turns, %d loads of each; medians over rounds\n", rounds, loads)
	fmt.Printf("%-12s %9s %11s %9s\n", "program", "ns", "over clock", "saves vs "+names[ref])
	for i, n := range names {
		over, saves := make([]float64, rounds), make([]float64, rounds)
		for r := range rounds {
			over[r] = perRound[i][r] - perRound[1][r]
			saves[r] = perRound[ref][r] - perRound[i][r]
		}
		fmt.Printf("%-12s %9.1f %11.1f %9.1f\n", n, stats.Median(perRound[i]), stats.Median(over), stats.Median(saves))
	}
}

// envCount is the positive integer in the environment variable name, or def when it is unset.
func envCount(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// loadVariant loads a variant of the program with BenchProgram's police-mode configuration, its
// shared maps private to it, as benchObjects does for the committed program.
func loadVariant(t *testing.T, path string) *ebpf.Collection {
	t.Helper()
	spec, err := ebpf.LoadCollectionSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	spec.Maps[qjumpMapCgroupCeilings].Pinning = ebpf.PinNone
	spec.Maps[qjumpMapCeilingDepths].Pinning = ebpf.PinNone
	d := benchConfig()
	d.Mode = config.Police
	if err := spec.Variables[qjumpVarConfig].Set(encode(d, 1, [model.NumLevels]uint32{})); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return coll
}
