// Package agent is `qjump agent`: the node agent that keeps QJump up on every host of a cluster
// from one shared configuration file. It brings the dataplane up on the interfaces the file names,
// adopts what a previous agent left pinned without detaching it, applies changes of the file
// atomically (keeping the running configuration when a new one is invalid), follows interfaces
// as they come and go, keeps cgroups (and, on Kubernetes, annotated pods) on their levels, and
// serves Prometheus metrics and health endpoints.
//
// One goroutine (Agent.Run's loop) owns all state; the watchers (config file, netlink, cgroup
// trees, pods) only send it events, so nothing else needs a lock.
package agent
