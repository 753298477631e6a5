package experiment

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim/tcp"
)

// The authors' ns-2 levels: by payload size, each level's budget the size limit in wire bytes,
// so that a flow's first transmission always fits its interval.
func TestNS2LevelIsTheAuthorsTable(t *testing.T) {
	for _, c := range []struct {
		size   int64
		level  uint8
		budget int64
	}{
		{1, 7, 72_000}, {8_760, 7, 72_000}, {8_761, 6, 156_000}, {18_980, 6, 156_000}, {27_740, 5, 228_000},
		{48_180, 4, 396_000}, {77_380, 3, 636_000}, {100_000, 2, 1_596_000}, {973_820, 1, 8_004_000},
		{973_821, 0, 10_500_000}, {1 << 40, 0, 10_500_000},
	} {
		l, b := NS2Level(c.size)
		if l != c.level || b != c.budget {
			t.Errorf("NS2Level(%d) = %d, %d; want %d, %d", c.size, l, b, c.level, c.budget)
		}
	}
	for _, l := range ns2Levels[:len(ns2Levels)-1] {
		wire := l.maxBytes + int64(tcp.PacketsFor(l.maxBytes))*tcp.Header
		if wire*8 != l.budgetBits {
			t.Errorf("level %d: a %d-byte flow is %d bits on the wire, its budget %d", l.level, l.maxBytes, wire*8, l.budgetBits)
		}
	}
}

// qjump-ns2 runs every flow to the end on the authors' level for its size; sim fct takes its
// name, and it is not among Fig. 9's schemes.
func TestQJumpNS2Runs(t *testing.T) {
	r := runSmall(t, QJumpNS2, 7)
	for _, f := range r.Flows {
		if l, _ := NS2Level(f.Size); f.Level != l {
			t.Fatalf("flow %d of %d bytes on level %d, want %d", f.ID, f.Size, f.Level, l)
		}
	}
	if schemeText(QJumpNS2, schemeFabric(QJumpNS2, smallFabric())) == "" {
		t.Error("qjump-ns2 has no description for its arms")
	}
	if s, err := ParseScheme("qjump-ns2"); err != nil || s != QJumpNS2 {
		t.Errorf("ParseScheme(qjump-ns2) = %q, %v", s, err)
	}
	for _, s := range Schemes {
		if s == QJumpNS2 {
			t.Error("qjump-ns2 is among Fig. 9's schemes")
		}
	}
}
