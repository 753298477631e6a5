// Package host reads what QJump needs to know about the machine it runs on: the process's
// capabilities, where cgroup v2 and bpffs are mounted, where QJump keeps its pinned state, which
// network namespace the calling thread is in, and whether a process still runs. It holds no QJump
// logic; the dataplane and the app utility decide what to do with the answers.
package host
