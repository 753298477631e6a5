package dataplane

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// ProgramBuild names the eBPF program this qjump loads: the first 12 hex digits of the SHA-256 of
// its object (qjump_bpfel.o, embedded). A device's record keeps the build of the program that
// runs on it, because up and reload load the program of the binary that runs them and nothing
// else replaces it: a host whose qjump was upgraded since goes on running the old program, with
// whatever the new one fixes, until a reload. Status says so, and the agent reloads it.
var ProgramBuild = sync.OnceValue(func() string {
	sum := sha256.Sum256(_QjumpBytes)
	return hex.EncodeToString(sum[:6])
})
