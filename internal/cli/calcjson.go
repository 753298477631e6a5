package cli

import (
	"math"

	"github.com/qjump-net/qjump/internal/model"
)

// calcJSON is `qjump calc --json`, documented field by field in docs/cli.md. Numbers are in base
// units (bits/s, bytes, nanoseconds); the *_text fields repeat them as the table prints them.
// Values that do not exist (the budget of an unlimited level, the bound of an oversubscribed one)
// are null, never a sentinel number.
type calcJSON struct {
	Hosts          int            `json:"hosts"`
	RateBps        float64        `json:"rate_bps"`
	PacketBytes    int64          `json:"packet_bytes"`
	PacketAuto     bool           `json:"packet_auto"`
	MTU            int            `json:"mtu"`
	Mark           string         `json:"mark"`
	MaxFrameBytes  int64          `json:"max_frame_bytes"`
	EpsilonNs      int64          `json:"epsilon_ns"`
	Mesochronous   int            `json:"mesochronous"`
	Mode           string         `json:"mode"`
	BurstBudgets   float64        `json:"burst_budgets"`
	EpochNs        int64          `json:"epoch_ns"`
	EpochText      string         `json:"epoch_text"`
	LineRateFactor float64        `json:"line_rate_factor"`
	Levels         []calcLevelOut `json:"levels"`
	Warnings       []string       `json:"warnings"`
}

type calcLevelOut struct {
	Level            int      `json:"level"`
	Factor           *float64 `json:"factor"`
	Unlimited        bool     `json:"unlimited"`
	BudgetBytes      *int64   `json:"budget_bytes"`
	RateBps          float64  `json:"rate_bps"`
	RateText         string   `json:"rate_text"`
	RateCapped       bool     `json:"rate_capped"`
	FanInFactorSum   *float64 `json:"fan_in_factor_sum"`
	Guaranteed       bool     `json:"guaranteed"`
	FanInDelayNs     *int64   `json:"fan_in_delay_ns"`
	PortBurstBytes   *int64   `json:"port_burst_bytes"`
	Oversubscription *float64 `json:"oversubscription"`
}

func newCalcJSON(res model.Result, f calcFrame) calcJSON {
	c := res.Config
	out := calcJSON{
		Hosts: c.Hosts, RateBps: float64(c.Rate), PacketBytes: int64(c.Packet), PacketAuto: f.auto,
		MTU: f.mtu, Mark: string(f.mark), MaxFrameBytes: int64(c.MaxFrame),
		EpsilonNs: c.Epsilon.Nanoseconds(), Mesochronous: c.Mesochronous,
		Mode: string(modeName(c)), BurstBudgets: c.BurstBudgets(),
		EpochNs: res.Epoch.Nanoseconds(), EpochText: model.BoundText(res.Epoch),
		LineRateFactor: res.LineRateFactor, Levels: []calcLevelOut{}, Warnings: res.Warnings,
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for _, l := range res.Levels {
		out.Levels = append(out.Levels, newCalcLevelOut(l))
	}
	return out
}

func newCalcLevelOut(l model.LevelResult) calcLevelOut {
	o := calcLevelOut{
		Level: int(l.Level), Unlimited: l.Factor.Unlimited, RateBps: float64(l.Rate),
		RateText: l.Rate.String(), RateCapped: l.Capped, Guaranteed: l.FanIn.Guaranteed,
	}
	if !l.Factor.Unlimited {
		o.Factor = ptr(l.Factor.Value)
	}
	if l.HasBudget {
		o.BudgetBytes = ptr(int64(l.Budget))
	}
	if !math.IsInf(l.FanIn.Sum, 0) {
		o.FanInFactorSum = ptr(l.FanIn.Sum)
		o.Oversubscription = ptr(l.FanIn.Oversubscription)
	}
	if l.FanIn.Guaranteed {
		o.FanInDelayNs = ptr(l.FanIn.Delay.Nanoseconds())
		o.PortBurstBytes = ptr(int64(l.FanIn.Buffer))
	}
	return o
}

func ptr[T any](v T) *T { return &v }

// roundSig rounds to six significant digits so that a solved factor prints as 6, not 5.999999999.
func roundSig(f float64) float64 {
	if f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	scale := math.Pow(10, 6-math.Ceil(math.Log10(math.Abs(f))))
	return math.Round(f*scale) / scale
}
