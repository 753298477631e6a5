package cli

import (
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// statusJSON is `qjump status --json`: the same data as the tables, numbers in base units.
type statusJSON struct {
	Devices []deviceJSON `json:"devices"`
	// LeftOver: interfaces that have QJump's egress tree or program and no QJump state, each
	// with what to do (dataplane.Orphans); empty when none has.
	LeftOver []string `json:"left_over"`
}

type deviceJSON struct {
	Device   string `json:"device"`
	UpAs     string `json:"up_as,omitempty"` // the device's name at up, if renamed since
	Attached bool   `json:"attached"`
	// EgressTree: QJump's egress tree (strict priority by level under a root at R) is on the
	// device as up built it; false when it was deleted or replaced by hand, which EgressTreeGone
	// says and Warnings say what to do about.
	EgressTree     bool             `json:"egress_tree"`
	EgressTreeGone string           `json:"egress_tree_gone,omitempty"`
	Attach         dataplane.Attach `json:"attach"`
	Generation     uint64           `json:"generation"`
	// Program is the build of the program that runs (dataplane.ProgramBuild of the qjump that
	// loaded it), null for one loaded by a version that recorded none; ProgramIsThisBuild says
	// whether it is this qjump's.
	Program            *string `json:"program"`
	ProgramIsThisBuild bool    `json:"program_is_this_build"`
	EpochNs            int64   `json:"epoch_ns"`
	// PacketBytes is the P that runs, in wire bytes, and PacketAuto whether it follows the
	// device (calc --json's fields of the same names): Config says "auto" for such a P, so that
	// a file from it keeps following the MTU, and no longer the size.
	PacketBytes int64 `json:"packet_bytes"`
	PacketAuto  bool  `json:"packet_auto"`
	// Config is the configuration as a file gives it again (config.ToGivenFile): packet auto
	// when P follows the device, and the target rates the factors were solved from.
	Config config.File `json:"config"`
	Levels []levelJSON `json:"levels"`
	// Warnings: what status finds wrong with the device as it is now, its egress tree gone or the
	// configuration it runs (deviceWarnings); empty when nothing is.
	Warnings []string `json:"warnings"`
	// Agent is the qjump agent that runs QJump on the device (agentSight); absent when status sees
	// none.
	Agent *agentJSON `json:"agent,omitempty"`
}

// agentJSON is a qjump agent as status sees it.
type agentJSON struct {
	Pid      int    `json:"pid"`                 // 0: in a pid namespace status cannot see
	StateDir string `json:"state_dir,omitempty"` // its --state-dir; absent when not known
}

type levelJSON struct {
	Level       int      `json:"level"`
	Configured  bool     `json:"configured"`
	Carrier     int      `json:"carrier"`
	Unlimited   bool     `json:"unlimited"`
	BudgetBytes *int64   `json:"budget_bytes"`
	RateBps     *float64 `json:"rate_bps"` // null for a level not configured, as budget_bytes
	// TargetRateBps is the rate the level's factor was solved from (--target-rate, target_rate:),
	// which reload keeps and solves again when the epoch changes; null for a factor given as one.
	TargetRateBps *float64 `json:"target_rate_bps"`
	// Guaranteed and FanInDelayNs are calc's fields of the same names for the mode that runs:
	// whether the level has a latency bound under full fan-in, and the bound (null when not).
	Guaranteed   bool   `json:"guaranteed"`
	FanInDelayNs *int64 `json:"fan_in_delay_ns"`
	dataplane.Counters
}

func newStatusJSON(all []dataplane.Status, orphans []string, mtu mtuOf) statusJSON {
	out := statusJSON{Devices: []deviceJSON{}, LeftOver: append([]string{}, orphans...)}
	seen := lookForAgent()
	for _, st := range all {
		bounds := st.Config.ModelOfMode()
		d := deviceJSON{Device: st.Device, UpAs: st.UpAs, Attached: st.Attached, Attach: st.Attach,
			EgressTree: st.TreeOn(), EgressTreeGone: treeGoneText(st), Generation: st.Generation,
			ProgramIsThisBuild: st.ProgramIsThisBuild(),
			EpochNs:            st.Config.Model.Epoch().Nanoseconds(), Config: config.ToGivenFile(st.Config),
			PacketBytes: int64(st.Config.Model.Packet), PacketAuto: st.Config.AutoPacket,
			Warnings: append([]string{}, deviceWarnings(st, mtu, seen)...)}
		if r, ok := seen.of(st.Device); ok {
			d.Agent = &agentJSON{Pid: r.Pid, StateDir: r.StateDir}
		}
		if st.Program != "" {
			d.Program = ptr(st.Program)
		}
		for l := model.NumLevels - 1; l >= 0; l-- {
			f, ok := st.Config.Model.Factors[model.Level(l)]
			carrier, _ := st.Config.Model.Factors.Carrier(model.Level(l))
			lj := levelJSON{Level: l, Configured: ok, Carrier: int(carrier), Counters: st.Levels[l]}
			if ok {
				lj.Unlimited, lj.RateBps = f.Unlimited, ptr(float64(st.Config.Model.LevelRate(f)))
			}
			lj.TargetRateBps = targetRate(st.Config, model.Level(l))
			if b, limited := st.Config.Model.Budget(f); ok && limited {
				lj.BudgetBytes = ptr(int64(b))
			}
			if fi := bounds.FanIn(model.Level(l)); ok && fi.Guaranteed {
				lj.Guaranteed, lj.FanInDelayNs = true, ptr(fi.Delay.Nanoseconds())
			}
			d.Levels = append(d.Levels, lj)
		}
		out.Devices = append(out.Devices, d)
	}
	return out
}

// targetRate is the rate level l's factor was solved from (--target-rate, target_rate:), which
// reload keeps and solves again when the epoch changes; nil for a factor given as one, or none.
func targetRate(d config.Dataplane, l model.Level) *float64 {
	r, solved := d.SolvedRates[l]
	if _, configured := d.Model.Factors[l]; !solved || !configured {
		return nil
	}
	return ptr(float64(r))
}

// treeGoneText is egress_tree_gone: what is there instead of the tree, or that the interface is
// gone, which took the tree with it (review, helper-80: egress_tree said true for an interface
// deleted since up).
func treeGoneText(st dataplane.Status) string {
	if st.DeviceGone {
		return "the interface is gone"
	}
	return st.TreeGone
}
