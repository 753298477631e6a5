package apputil

import (
	"strconv"
	"strings"
)

// The shim's environment (see preload/qjump_preload.c).
const (
	EnvLevel   = "QJUMP_LEVEL"
	EnvSndBuf  = "QJUMP_SNDBUF"
	EnvEnforce = "QJUMP_ENFORCE"
	envPreload = "LD_PRELOAD"
)

// preloadEnv returns environ with the shim preloaded and the settings for it. The shim goes after
// any LD_PRELOAD already there, so a program that preloads its own wrapper keeps it. Settings
// inherited from an outer `qjump run` are replaced, not merged: the innermost run decides.
func preloadEnv(environ []string, shim string, s Settings) []string {
	env := make([]string, 0, len(environ)+4)
	preload := shim
	for _, kv := range cgroupEnv(environ) {
		key, value, _ := strings.Cut(kv, "=")
		if key != envPreload {
			env = append(env, kv)
			continue
		}
		switch value = strings.TrimSpace(value); {
		case strings.Contains(value, shim):
			preload = value // an outer run's: the shim is there, and so are the user's others
		case value != "":
			preload = value + " " + shim
		}
	}
	env = append(env, envPreload+"="+preload, EnvLevel+"="+strconv.Itoa(int(s.Level)))
	if s.SndBuf > 0 {
		env = append(env, EnvSndBuf+"="+strconv.Itoa(s.SndBuf))
	}
	if s.Enforce {
		env = append(env, EnvEnforce+"=1")
	}
	return env
}

// cgroupEnv returns environ for CMD of `run --mode cgroup`: without the shim's settings that an
// outer preload run left there. The shim stays preloaded but does nothing without QJUMP_LEVEL;
// with it, it set every socket's priority after the cgroup's programs had, so CMD of
// `qjump run --level 5 -- sh -c 'qjump run --mode cgroup --level 2 -- CMD'` was on level 5.
// The innermost run decides, as in preloadEnv.
func cgroupEnv(environ []string) []string {
	env := make([]string, 0, len(environ))
	for _, kv := range environ {
		switch key, _, _ := strings.Cut(kv, "="); key {
		case EnvLevel, EnvSndBuf, EnvEnforce:
			continue
		}
		env = append(env, kv)
	}
	return env
}
