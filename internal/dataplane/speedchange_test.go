package dataplane

import (
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// A tree built for the device as it was keeps its leaves when the device's speed changes (the
// speed decides whether a level's leaf is a segmenter or a FIFO). A later reload, here with the
// same configuration as an upgraded agent's is, planned the old and the new tree both for the
// speed of now, found them alike, changed no leaf, and recorded the new plan's kinds: the tree
// check then took the old leaves for ones put there by hand. The reload now starts from the
// leaves as built, replaces them, and the tree is whole.
func TestReloadAfterTheSpeedChangedReplacesItsLeaves(t *testing.T) {
	d := testConfig()
	d.Model.Hosts, d.Model.Rate, d.Model.Packet = 12, 10e9, 1514
	d.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	testutil.Set(t, &deviceSpeed, func(string) model.Rate { return 40e9 }) // R below it: segmenters
	upInTestNetns(t, "qjsp", d, func(p paths) {
		rec, err := readRecord(p)
		if err != nil || rec.Tree == nil || rec.Tree.Levels[0].Kind != leafSegmenter {
			t.Fatalf("up at 40 Gb/s with R=10G: tree %+v, %v; want segmenters", rec.Tree, err)
		}
		deviceSpeed = func(string) model.Rate { return 10e9 } // R at it now: FIFOs
		if err := Reload("eth0", d); err != nil {
			t.Fatalf("reload after the speed fell to R: %v", err)
		}
		st, err := DeviceStatus("eth0")
		if err != nil || st.TreeGone != "" {
			t.Errorf("after the reload: the tree %q, %v; want it whole", st.TreeGone, err)
		}
		leaves, err := leafQdiscs(rec.Ifindex)
		if err != nil {
			t.Fatal(err)
		}
		for l := range model.NumLevels {
			if got := leaves[leafHandle(l)]; got != "pfifo" {
				t.Errorf("level %d's leaf after the reload: %q, want the pfifo the device's speed now needs", l, got)
			}
		}
	})
}
