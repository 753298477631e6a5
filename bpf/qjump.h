/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Structures shared by the QJump eBPF program (qjump.bpf.c) and its Go loader
 * (internal/dataplane, through bpf2go). Every field has a fixed size and explicit padding so that
 * both sides agree on the layout without guessing.
 */
#ifndef QJUMP_H
#define QJUMP_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "tcx.h"

/* Enums rather than #defines so that bpf2go gives the Go side the same names (-type). */
enum qj_constants {
	QJ_LEVELS = 8,		/* QJump levels: 0 lowest priority (bulk) .. 7 guaranteed latency */
	QJ_PRIORITIES = 16,	/* skb->priority values the priority->level table covers */
	QJ_UNCLASSIFIED = 0xff,	/* table entry: this priority takes the default level */
	QJ_USED_BITS = 40,	/* bits of qj_budget.charge that count bytes; the rest is the tag */
	QJ_CEILING_DEPTHS = 32,	/* cgroup depths (0: the root) a ceiling may be set at */
	QJ_FRAME_MIN = 60,	/* shortest Ethernet frame without FCS: shorter ones are padded */
	QJ_FRAME_OVERHEAD = 24,	/* FCS, preamble, start delimiter, inter-frame gap */
};

enum qj_mode {
	QJ_MODE_POLICE = 0,	/* over budget: drop, or demote with QJ_AUTOCLASS */
	QJ_MODE_SHAPE = 1,	/* no budget here: the level's shaper (a qdisc) holds the packet */
};

enum qj_flags {
	QJ_AUTOCLASS = 1 << 0,	/* police: demote to the highest lower level with budget */
	QJ_MARK_DSCP = 1 << 1,	/* rewrite IPv4 TOS / IPv6 traffic class */
	QJ_MARK_PCP = 1 << 2,	/* push or rewrite an 802.1Q tag */
};

/* Parameters of one level; never written by the program. */
struct qj_level {
	__u64 budget;	/* bytes per epoch, f·P rounded down; unused when !limited */
	__u32 classid;	/* shape mode: HTB class (major << 16 | minor) of this level */
	__u8 limited;	/* 0: unlimited, never held */
	__u8 dscp;	/* DSCP code point (6 bits) this level marks */
	__u8 pcp;	/* 802.1Q priority code point (3 bits) this level marks */
	__u8 pad;
};

/*
 * One complete configuration: the constants of one loaded copy of the program (its read-only
 * global `config`, set by the loader before loading). A reload loads a new copy and swaps it into
 * the hook, so a packet sees one whole configuration, old or new, never a mix.
 */
struct qj_config {
	__u64 epoch_ns;		/* E in nanoseconds */
	__u64 generation;	/* 1 after up, +1 per reload: which configuration this is */
	__u32 flags;		/* enum qj_flags */
	__u16 vlan_id;		/* PCP marking: VLAN id of a pushed tag; 0 = priority tag */
	__u8 mode;		/* enum qj_mode */
	__u8 default_level;	/* level of unclassified traffic */
	__u16 pad0;
	__u8 prio_level[QJ_PRIORITIES];	/* skb->priority -> level, or QJ_UNCLASSIFIED */
	__u8 carrier[QJ_LEVELS];	/* level -> the configured level that carries its traffic */
	__u8 pad[6];
	struct qj_level level[QJ_LEVELS];
};

/*
 * Variables of one level, shared by all CPUs. charge is (tag << QJ_USED_BITS) | used: the bytes
 * the level has sent in the current epoch, and a tag that changes at every epoch rollover so that a
 * compare-and-swap prepared in one epoch fails in the next. lock guards only the rollover.
 */
struct qj_budget {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 epoch_end;	/* ns (bpf_ktime_get_ns) at which the current epoch ends */
	__u64 charge;		/* tag:24 | bytes used in the current epoch:40 */
	__u64 epoch_ns;		/* the E that epoch_end was set under; 0 before the first packet */
};

/* The ceiling of one cgroup, by cgroup v2 id; it holds for every cgroup below it too. */
struct qj_ceiling {
	__u8 level;	/* highest level the cgroup's sockets (and its descendants') may use */
	__u8 depth;	/* the cgroup's depth in the hierarchy, 0 for the root */
};

/* The depths at which some cgroup has a ceiling, which the loader keeps (ceiling_depths). */
struct qj_depths {
	__u32 mask;	/* bit d: a ceiling at depth d */
	__u32 only;	/* the depth when mask has one bit (the common case), else QJ_CEILING_DEPTHS */
};

/* A socket that autoclass demoted: its packets stay at level until the epoch ends at until. */
struct qj_demotion {
	__u64 until;	/* ns (bpf_ktime_get_ns) */
	__u32 level;
	__u32 pad;
};

#define QJ_USED_MASK	((1ULL << QJ_USED_BITS) - 1)

/*
 * What the program did with a packet, and why: one packets/bytes pair each, bytes in wire bytes
 * (what the budget is charged). A packet bumps one of SENT, DROPPED, DEMOTED (then also SENT at the
 * lower level), OVERSIZE, CONTENDED, NO_LEVEL or UNCONFIGURED; NOT_IP and MALFORMED count it
 * again, whatever happened to it. What shape mode's shaper holds back only the shaper (a qdisc)
 * counts. Adding a verdict is one entry here (before QJ_VERDICTS) and its
 * name in internal/dataplane; the layout of qj_counters follows.
 */
enum qj_verdict {
	QJ_SENT,	/* sent at this level */
	QJ_DROPPED,	/* police: over budget and not demoted */
	QJ_DEMOTED,	/* police + autoclass: sent on a lower level (counted there too) */
	QJ_OVERSIZE,	/* police: larger than the level's whole budget, never sendable: dropped */
	QJ_CONTENDED,	/* police: the charge lost QJ_CHARGE_TRIES races to other CPUs: dropped */
	QJ_NO_LEVEL,	/* no configured level at or below the cgroup's ceiling: dropped */
	QJ_UNCONFIGURED,	/* no configuration installed: passed untouched (counted at level 0) */
	QJ_NOT_IP,	/* not IPv4/IPv6 (ARP, LLDP, LACP, STP): never marked */
	QJ_MALFORMED,	/* truncated or bad headers: never marked */
	QJ_VERDICTS,	/* the number of verdicts */
};

struct qj_tally {
	__u64 packets;
	__u64 bytes;
};

/* Per level, per CPU: what happened to the packets that were classified at this level. */
struct qj_counters {
	struct qj_tally verdict[QJ_VERDICTS];	/* indexed by enum qj_verdict */
};

/*
 * Every type the Go loader shares with the program, for bpf2go -type: clang emits no enum that no
 * variable or member has. The layout map carries them in BTF; nothing reads it.
 */
struct qj_layout {
	struct qj_config config;
	struct qj_ceiling ceiling;
	struct qj_depths depths;
	struct qj_demotion demotion;
	enum qj_constants limits;
	enum qj_mode mode;
	enum qj_flags flags;
	enum qj_verdict verdict;
	enum qj_tc_verdict tc_verdict;
};

#endif /* QJUMP_H */
