package model

import (
	"strconv"
	"time"
)

// DefaultMesochronous is m: host epochs are not aligned, so a host can emit two budgets inside one
// epoch-long window (the slides' 2nP/R).
const DefaultMesochronous = 2

// MinPacket is the smallest P that makes sense: a minimum Ethernet frame.
const MinPacket Bytes = 64

// FullFrame is the usual MTU-sized frame; a P below it means a full frame never fits in a budget
// at factor 1.
const FullFrame Bytes = 1500

// Config holds the model's inputs.
type Config struct {
	Hosts        int           // n: hosts that can send to one destination at once
	Rate         Rate          // R: edge rate in bit/s, the slowest host link
	Packet       Bytes         // P: bytes one host may send per epoch at factor 1
	Epsilon      time.Duration // ε: cumulative switch processing delay on the longest path
	Mesochronous int           // m: epoch misalignment compensation, at least 1
	Factors      Factors       // configured levels
}

// DefaultFactors gives the guaranteed level (7) factor 1 and lets bulk (0) run unlimited: the
// paper's ptpd-and-Hadoop split, a safe start before tuning intermediate levels.
func DefaultFactors() Factors {
	return Factors{TopLevel: Limited(1), 0: Unlimited()}
}

// Validate checks every input and returns a *FieldError for the first one out of range.
func (c Config) Validate() error {
	switch {
	case c.Hosts < 1:
		return fieldError("hosts", strconv.Itoa(c.Hosts), "need a whole number of hosts, at least 1")
	case !(c.Rate > 0):
		return fieldError("rate", c.Rate.String(), rateAllowed)
	case c.Packet < MinPacket:
		return fieldError("packet", c.Packet.String(), "need at least 64B, a minimum Ethernet frame")
	case c.Epsilon < 0:
		return fieldError("epsilon", c.Epsilon.String(), durationAllowed)
	case c.Mesochronous < 1:
		return fieldError("mesochronous", strconv.Itoa(c.Mesochronous), "need a whole number, at least 1")
	}
	for l, f := range c.Factors {
		if l < 0 || l >= NumLevels {
			return fieldError("factors", strconv.Itoa(int(l)), levelAllowed)
		}
		if !f.Unlimited && !(f.Value > 0) {
			return fieldError("factors", f.String(), "need a factor greater than 0, or \"unlimited\"")
		}
	}
	return nil
}

// Warnings lists inputs that are valid but probably not what the user meant.
func (c Config) Warnings() []string {
	var w []string
	if c.Packet < FullFrame {
		w = append(w, "packet "+c.Packet.String()+" is smaller than a 1500-byte frame: "+
			"a full-size frame never fits a factor-1 budget and is dropped or demoted")
	}
	return w
}
