package config

import (
	"crypto/sha256"
	"encoding/hex"
)

// Hash identifies a solved configuration: the same on every host that runs the same cluster-wide
// model and dataplane settings, different as soon as one value differs. It hashes the canonical
// form Marshal writes (every table written out, map keys sorted), so a file that spells the same
// configuration differently (a target rate instead of its factor, a default left out) hashes the
// same. `qjump agent` exports it as a metric label so that a dashboard shows a host that differs.
func Hash(d Dataplane) string {
	y, err := Marshal(d)
	if err != nil {
		return "invalid"
	}
	sum := sha256.Sum256(y)
	return hex.EncodeToString(sum[:8])
}
