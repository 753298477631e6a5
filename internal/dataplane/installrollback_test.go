package dataplane

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// A reload that swapped the program and then failed to record the new configuration put the old
// egress tree back but left the new program running, with the record naming the old
// configuration: the device ran neither configuration whole, while the refusal said the old one
// was back. Now the program that ran is put back too. Played by failing the record's write.
func TestReloadThatCannotRecordPutsTheProgramBack(t *testing.T) {
	upInTestNetns(t, "qjir", testConfig(), func(p paths) {
		before := runningProgramIDs(t, p)
		st, err := DeviceStatus("eth0")
		if err != nil {
			t.Fatal(err)
		}
		failed := errors.New("refused by the test")
		testutil.Set(t, &recordWriter, func(paths, record) error { return failed })
		next := testConfig()
		next.Model.Factors[5] = model.Limited(3)
		err = Reload("eth0", next)
		if !errors.Is(err, failed) || !strings.Contains(err.Error(), "the program that ran is back") {
			t.Fatalf("reload whose record cannot be written: %v; want the failure and the program that ran said back", err)
		}
		if after := runningProgramIDs(t, p); after != before {
			t.Errorf("after the failed reload the hook runs program %d (pinned %d); want the one that ran, %d (pinned %d)",
				after.hook, after.pinned, before.hook, before.pinned)
		}
		after, err := DeviceStatus("eth0")
		if err != nil || after.Generation != st.Generation || !after.Attached || after.TreeGone != "" {
			t.Errorf("after the failed reload: generation %d (was %d), attached %v, tree gone %q, %v; want as before, whole",
				after.Generation, st.Generation, after.Attached, after.TreeGone, err)
		}
	})
}

type programIDs struct{ hook, pinned ebpf.ProgramID }

// runningProgramIDs is the program on the device's hook and the one pinned as running.
func runningProgramIDs(t *testing.T, p paths) programIDs {
	t.Helper()
	prog, err := ebpf.LoadPinnedProgram(p.pin(pinProg), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	pinned, err := prog.Info()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := pinned.ID()
	rec, err := readRecord(p)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Attach != AttachTCX {
		t.Skipf("the device's hook is %s; the test reads a TCX link's program", rec.Attach)
	}
	l, err := link.LoadPinnedLink(p.pin(pinLink), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	info, err := l.Info()
	if err != nil {
		t.Fatal(err)
	}
	return programIDs{hook: info.Program, pinned: pid}
}
