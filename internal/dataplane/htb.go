package dataplane

import "github.com/qjump-net/qjump/internal/model"

// Shape mode's HTB tree on the device: root qdisc htbMajor:, root class htbMajor:1 at the model's
// R (so shape mode also shapes the link), and one leaf per level, htbMajor:(0x10+level), at the
// level's rate f·P·8/E with burst f·P and HTB priority 7-level (HTB serves prio 0 first).
const (
	htbMajor     = 0x514a // "QJ"
	htbRootMinor = 1
	htbLeafBase  = 0x10
)

func htbClassID(l int) uint32 { return htbMajor<<16 | uint32(htbLeafBase+l) }

func htbClassIDs() [model.NumLevels]uint32 {
	var ids [model.NumLevels]uint32
	for l := range ids {
		ids[l] = htbClassID(l)
	}
	return ids
}
