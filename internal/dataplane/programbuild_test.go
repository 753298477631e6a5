package dataplane

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
)

// A device runs the program of the qjump that brought it up or last reloaded it, and nothing
// else replaces it: a qjump upgraded since would go on running the old program, whatever the new
// one fixes. The record keeps the program's build; status says whether it is this qjump's, and a
// reload with the same configuration loads this one's, budgets and counters carrying on. The
// older builds are played by rewriting the record: an earlier version's says none.
func TestReloadLoadsThisBuildsProgram(t *testing.T) {
	upInTestNetns(t, "qjpb", testConfig(), func(p paths) {
		st, err := DeviceStatus("eth0")
		if err != nil || st.Program != ProgramBuild() || !st.ProgramIsThisBuild() {
			t.Fatalf("after up: program %q (this build %v), %v; want this build's, %s", st.Program, st.ProgramIsThisBuild(), err, ProgramBuild())
		}
		for _, older := range []string{"", "0123456789ab"} {
			rec, err := readRecord(p)
			if err != nil {
				t.Fatal(err)
			}
			rec.Program = older
			if err := writeRecord(p, rec); err != nil {
				t.Fatal(err)
			}
			st, err := DeviceStatus("eth0")
			if err != nil || st.Program != older || st.ProgramIsThisBuild() {
				t.Fatalf("running build %q: status says program %q (this build %v), %v", older, st.Program, st.ProgramIsThisBuild(), err)
			}
			if err := Reload("eth0", st.Config); err != nil {
				t.Fatalf("reload over build %q with the same configuration: %v", older, err)
			}
			after, err := DeviceStatus("eth0")
			if err != nil || !after.ProgramIsThisBuild() || after.Generation != st.Generation+1 || !after.Attached {
				t.Errorf("reload over build %q: program %q, generation %d (was %d), attached %v, %v; want this build's, one more, attached",
					older, after.Program, after.Generation, st.Generation, after.Attached, err)
			}
		}
	})
}

// An upgrade that changed the program's maps leaves pinned maps the new program cannot take over.
// Where they are the device's own (budgets, counters, demotions), a reload refuses with
// ErrOtherBuildMaps, saying that only up --replace loads this build's (with new budgets and
// counters, which the agent then does), and changes nothing. Where they are the ones every device
// shares (the cgroup ceilings), a down and up of the device cannot replace them either: the reload
// refuses otherwise, leaving the program that runs. Played by pinning, in place of one of them, a
// map of another layout: of another size, of the same size with its value's fields moved (which
// only the maps' BTF tells apart), or without BTF; or by removing one, as a build that has not got
// it would have left.
func TestReloadOverAnotherBuildsMapsRefuses(t *testing.T) {
	otherSize := &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 3}
	const replace, shared = "qjump up --replace --dev eth0", "cannot use the cgroup ceilings' maps that every interface shares"
	for _, c := range []struct {
		name       string
		pin        func(p paths) string // the pin played with
		other      *ebpf.MapSpec        // pinned in its place; nil: removed
		deviceMaps bool                 // ErrOtherBuildMaps, or the shared maps' refusal
		says       []string
	}{
		{"the counters of another layout", func(p paths) string { return p.pin(pinCounters) }, otherSize, true, []string{replace}},
		{"the budgets with fields moved", func(p paths) string { return p.pin(pinBudget) },
			movedFields(t, qjumpMapBudget, "epoch_end", "charge"), true,
			[]string{replace, "map budget: value layout differs: member epoch_end at offset 8, was 16"}},
		{"the counters without BTF", func(p paths) string { return p.pin(pinCounters) }, withoutBTF(t, qjumpMapCounters), true,
			[]string{replace, "map counters: the pinned map carries no BTF"}},
		{"a map the running build has not", func(p paths) string { return p.pin(pinDemotions) }, nil, true, []string{replace}},
		{"the shared ceilings of another layout", func(p paths) string { return p.shared(qjumpMapCgroupCeilings) }, otherSize, false,
			[]string{shared}},
		{"the shared ceilings with fields moved", func(p paths) string { return p.shared(qjumpMapCgroupCeilings) },
			movedFields(t, qjumpMapCgroupCeilings, "level", "depth"), false,
			[]string{shared, "use pinned map cgroup_ceilings: value layout differs: member level at offset 0, was 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			upInTestNetns(t, "qjpm", testConfig(), func(p paths) {
				before, err := DeviceStatus("eth0")
				if err != nil {
					t.Fatal(err)
				}
				pin := c.pin(p)
				kept, err := ebpf.LoadPinnedMap(pin, nil) // pinned again after, for down to find
				if err != nil {
					t.Fatal(err)
				}
				defer kept.Close()
				if err := os.Remove(pin); err != nil {
					t.Fatal(err)
				}
				defer func() { _ = os.Remove(pin); _ = kept.Pin(pin) }()
				if c.other == nil {
					rec, err := readRecord(p)
					if err != nil {
						t.Fatal(err)
					}
					rec.Program = "0123456789ab"
					if err := writeRecord(p, rec); err != nil {
						t.Fatal(err)
					}
					before.Program = rec.Program
				} else {
					other, err := ebpf.NewMap(c.other)
					if err != nil {
						t.Fatal(err)
					}
					defer other.Close()
					if err := other.Pin(pin); err != nil {
						t.Fatal(err)
					}
				}
				err = Reload("eth0", before.Config)
				if err == nil || errors.Is(err, ErrOtherBuildMaps) != c.deviceMaps || !saysAll(err, c.says) {
					t.Fatalf("reload: %v; want ErrOtherBuildMaps %v, saying %q", err, c.deviceMaps, c.says)
				}
				rec, err := readRecord(p)
				if err != nil || rec.Generation != before.Generation || rec.Program != before.Program || !attached(p, rec) {
					t.Errorf("after the refused reload: generation %d (was %d), program %q (was %q), attached %v, %v; want nothing changed",
						rec.Generation, before.Generation, rec.Program, before.Program, attached(p, rec), err)
				}
			})
		})
	}
}

// movedFields is the spec of this build's map name as another build would have it that swapped
// the fields a and b of its value: the same sizes, another layout.
func movedFields(t *testing.T, name, a, b string) *ebpf.MapSpec {
	spec := thisBuildsMap(t, name)
	spec.Pinning = ebpf.PinNone
	spec.Value = swapMembers(t, spec.Value, a, b)
	return spec
}

// withoutBTF is the spec of this build's map name with no BTF: one made by hand.
func withoutBTF(t *testing.T, name string) *ebpf.MapSpec {
	spec := thisBuildsMap(t, name)
	spec.Pinning = ebpf.PinNone
	spec.Key, spec.Value = nil, nil
	return spec
}

func saysAll(err error, texts []string) bool {
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			return false
		}
	}
	return true
}
