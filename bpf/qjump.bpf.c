// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * qjump.bpf.c - QJump's per-host rate limiter (the paper's sch_qjump) on TC egress.
 *
 * The maths. For n hosts on edge links of R bit/s, a budget unit of P bytes, switch delay ε and
 * mesochronous compensation m, the network epoch is
 *
 *	E = m·n·P·8/R + ε				(nanoseconds, epoch_ns)
 *
 * and level i, with throughput factor f_i, may send
 *
 *	B_i = f_i·P bytes per epoch, i.e. T_i = f_i·P·8/E bit/s.
 *
 * Epochs are a fixed grid on the monotonic clock, [k·E, (k+1)·E): a level counts the bytes it has
 * sent in the current epoch (used, reset at its first packet of each epoch) and admits a packet of
 * len bytes while used + len ≤ B_i. So the bytes admitted at a level in one epoch never exceed B_i,
 * and over any t the level sends at most (t/E + 1)·B_i: the rate is T_i with no drift, because the
 * grid does not move with traffic. Counting what was used rather than what is left keeps that true
 * across a reload: the new B_i applies at once to the bytes the epoch has already carried. An
 * unlimited level is classified, marked and counted, never held.
 *
 * Exact on any number of CPUs. A level's state is one map value: the end of its current epoch,
 * and a charge word holding the bytes used in that epoch with a tag. A packet is charged by a
 * compare-and-swap of the charge word from (tag, used) to (tag, used + len), only if used + len ≤
 * B_i. The epoch rollover, once per epoch and level, runs under the value's bpf_spin_lock: it
 * re-checks the epoch under the lock (one CPU rolls, the others find it done), swaps the charge
 * word to (tag + 1, 0) and then moves epoch_end on. So the bytes of one tag, i.e. of one epoch,
 * are a sum of charges that each kept the total within B_i, and a charge prepared before a
 * rollover fails its swap against the new tag and is retried in the new epoch. A CPU that read
 * the clock just before a rollover is charged in the new epoch, which only ever refuses early. The
 * tag has 24 bits: a CPU would have to stall inside one program run for 2^24 epochs to see a tag
 * come round again. Uncontended, the common path is two loads and one compare-and-swap; a lock on
 * every packet cost about 15 ns more here (docs/performance.md). The clock is read once per
 * packet; the division that finds the epoch grid runs only at a rollover.
 *
 * A packet is charged its skb->len, headers included: a GSO/TSO super-packet is charged whole, so
 * one larger than B_i never fits a policed level (docs/dataplane.md).
 *
 * Over budget, police mode drops the packet (Listing 1 of the paper) or, with autoclass, demotes it
 * to the highest lower level that still has budget (the original module's autoclassifier). Shape
 * mode never drops for budget: every packet of a level goes to the level's HTB class (rate T_i,
 * burst B_i, strict priority by level) set up by the loader, and the packets over budget are
 * counted as shaped; HTB then holds them, so TCP gets back-pressure instead of losses.
 *
 * Level of a packet: skb->priority (what SO_PRIORITY sets) through a table, the default level
 * for unclassified traffic, then clamped by the ceiling of the sending socket's cgroup v2. A level
 * without a factor carries no traffic of its own (as in the model): its packets go to its carrier,
 * the nearest configured level below it (or the lowest configured one), so that leaving a level
 * out never creates an unlimited class above the budgeted ones.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "qjump.h"

#define READ_ONCE(x) (*(const volatile typeof(x) *)&(x))
/* Compare-and-swap attempts before a packet gives up its budget: only contention makes one fail. */
#define QJ_CHARGE_TRIES 8
#define VLAN_HLEN 4
#define VLAN_PCP_SHIFT 13
#define VLAN_VID_MASK 0x0fff
#define IP_ECN_MASK 0x03
/* Levels index arrays; the mask keeps the verifier sure of the bound whatever clang does. */
#define QJ_LEVEL_MASK (QJ_LEVELS - 1)

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The active configuration. Swapping the inner map is one atomic pointer store in the kernel and
 * RCU keeps the old inner map alive until every program that looked it up is done; rewriting one
 * big map value in place instead could be read half old, half new by a CPU in the middle of it.
 * The inner value is declared as bytes because clang 14 emits only a forward declaration of a
 * struct reached through __array; the layout map below names struct qj_config in BTF.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_ARRAY);
		__uint(max_entries, 1);
		__type(key, __u32);
		__type(value, __u8[sizeof(struct qj_config)]);
	});
} config SEC(".maps");

/* Carries struct qj_layout, the types Go shares, in BTF (qjump.h); never read or written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct qj_layout);
} layout SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QJ_LEVELS);
	__type(key, __u32);
	__type(value, struct qj_budget);
} budget SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, QJ_LEVELS);
	__type(key, __u32);
	__type(value, struct qj_counters);
} counters SEC(".maps");

/* cgroup v2 id -> highest level its sockets may use; one map pinned for every device. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cgroup_ceiling SEC(".maps");

/* Where the IP header starts, or why there is none to mark. */
enum l3_kind { L3_OTHER, L3_IPV4, L3_IPV6, L3_MALFORMED };

struct l3 {
	enum l3_kind kind;
	__u32 off;	/* offset of the IP header from the start of the frame */
};

static __always_inline struct l3 parse_l3(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct l3 r = { .kind = L3_MALFORMED };
	struct ethhdr *eth = data;
	__u16 proto;

	if ((void *)(eth + 1) > data_end)
		return r;
	proto = eth->h_proto;
	r.off = sizeof(*eth);
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		__be16 *inner = data + sizeof(*eth) + 2;

		if ((void *)(inner + 1) > data_end)
			return r;
		proto = *inner;
		r.off += VLAN_HLEN;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + r.off;

		if ((void *)(ip + 1) > data_end || ip->version != 4 || ip->ihl < 5 ||
		    data + r.off + ip->ihl * 4 > data_end)
			return r;
		r.kind = L3_IPV4;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = data + r.off;

		if ((void *)(ip6 + 1) > data_end || ip6->version != 6)
			return r;
		r.kind = L3_IPV6;
	} else {
		r.kind = L3_OTHER;
	}
	return r;
}

static __always_inline __u32 classify(struct __sk_buff *skb, const struct qj_config *cfg)
{
	__u32 prio = skb->priority;
	__u32 level = QJ_UNCLASSIFIED;
	__u64 cgid;
	__u8 *ceiling;

	if (prio < QJ_PRIORITIES)
		level = cfg->prio_level[prio];
	if (level >= QJ_LEVELS)
		level = cfg->default_level;
	cgid = bpf_skb_cgroup_id(skb);
	if (cgid) {
		ceiling = bpf_map_lookup_elem(&cgroup_ceiling, &cgid);
		if (ceiling && *ceiling < level)
			level = *ceiling;
	}
	/* The loader validates every level it writes, so the mask only reassures the verifier. */
	return cfg->carrier[level & QJ_LEVEL_MASK];
}

/* Starts the epoch that contains now, unless another CPU already has. */
static __always_inline void rollover(struct qj_budget *b, __u64 epoch_ns, __u64 now)
{
	bpf_spin_lock(&b->lock);
	if (now >= b->epoch_end) {
		__u64 tag = (b->charge >> QJ_USED_BITS) + 1;

		/* The charge word first: a CPU that sees the new epoch_end also sees it reset. */
		__sync_lock_test_and_set(&b->charge, tag << QJ_USED_BITS);
		b->epoch_end = (now / epoch_ns + 1) * epoch_ns;
	}
	bpf_spin_unlock(&b->lock);
}

/* Charges len bytes to level's budget; true if the level had them in this epoch. */
static __always_inline bool charge(const struct qj_config *cfg, __u32 level, __u64 len, __u64 now)
{
	const struct qj_level *lc = &cfg->level[level & QJ_LEVEL_MASK];
	struct qj_budget *b;
	__u64 old;
	int i;

	if (!lc->limited)
		return true;
	b = bpf_map_lookup_elem(&budget, &level);
	if (!b)
		return false;
	if (now >= READ_ONCE(b->epoch_end))
		rollover(b, cfg->epoch_ns, now);
	for (i = 0; i < QJ_CHARGE_TRIES; i++) {
		old = READ_ONCE(b->charge);
		if ((old & QJ_USED_MASK) + len > lc->budget)
			return false;
		if (__sync_val_compare_and_swap(&b->charge, old, old + len) == old)
			return true;
	}
	return false;
}

/* Police + autoclass: the highest configured level below level that still has budget, or -1. */
static __always_inline int demote(const struct qj_config *cfg, __u32 level, __u64 len, __u64 now)
{
	int l;

	for (l = QJ_LEVELS - 2; l >= 0; l--) {
		if (l < (int)level && cfg->carrier[l] == l && charge(cfg, l, len, now))
			return l;
	}
	return -1;
}

/*
 * Rewrites go through bpf_skb_store_bytes, never through packet pointers: a program that writes
 * packet data directly gets a bpf_skb_pull_data call prepended by the verifier, paid by every
 * packet, also by the ones that need no rewrite.
 */
static __always_inline void mark_dscp(struct __sk_buff *skb, struct l3 l3, __u8 dscp)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	/* The mask bounds the offset for the verifier; parse_l3 never sets more than 18. */
	__u32 off = l3.off & 0xff;

	if (l3.kind == L3_IPV4) {
		struct iphdr *ip = data + off;
		__u8 tos;
		__be16 old, new;

		if ((void *)(ip + 1) > data_end)
			return;
		tos = (dscp << 2) | (ip->tos & IP_ECN_MASK);
		if (tos == ip->tos)
			return;
		old = *(__be16 *)ip;
		new = bpf_htons((bpf_ntohs(old) & 0xff00) | tos);
		/* The header checksum covers the word that holds TOS: patch it incrementally. */
		bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check), old, new,
				    sizeof(new));
		bpf_skb_store_bytes(skb, off + offsetof(struct iphdr, tos), &tos,
				    sizeof(tos), 0);
	} else if (l3.kind == L3_IPV6) {
		/* Traffic class straddles the first two bytes; no checksum covers it. */
		__u8 *w = data + off;
		__u8 tc, nw[2];

		if ((void *)(w + 2) > data_end)
			return;
		tc = (dscp << 2) | ((w[1] >> 4) & IP_ECN_MASK);
		nw[0] = (w[0] & 0xf0) | (tc >> 4);
		nw[1] = (w[1] & 0x0f) | (tc << 4);
		if (nw[0] != w[0] || nw[1] != w[1])
			bpf_skb_store_bytes(skb, off, nw, sizeof(nw), 0);
	}
}

/* Sets the 802.1Q priority: in the hardware-offloaded tag, in an in-band tag, or in a new tag. */
static __always_inline void mark_pcp(struct __sk_buff *skb, const struct qj_config *cfg, __u8 pcp)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	__u16 tci;

	if (skb->vlan_present) {
		tci = (skb->vlan_tci & ~(0x7 << VLAN_PCP_SHIFT)) | (pcp << VLAN_PCP_SHIFT);
		if (tci != skb->vlan_tci) {
			__be16 proto = skb->vlan_proto;

			bpf_skb_vlan_pop(skb);
			bpf_skb_vlan_push(skb, proto, tci);
		}
		return;
	}
	if ((void *)(eth + 1) > data_end)
		return;
	if (eth->h_proto == bpf_htons(ETH_P_8021Q) || eth->h_proto == bpf_htons(ETH_P_8021AD)) {
		__u8 *t = data + sizeof(*eth), b;

		if ((void *)(t + 2) > data_end)
			return;
		b = (t[0] & 0x1f) | (pcp << 5);
		if (b != t[0])
			bpf_skb_store_bytes(skb, sizeof(*eth), &b, sizeof(b), 0);
		return;
	}
	tci = (cfg->vlan_id & VLAN_VID_MASK) | (pcp << VLAN_PCP_SHIFT);
	bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), tci);
}

static __always_inline void count(__u32 level, enum qj_verdict v, __u64 len, bool malformed)
{
	struct qj_counters *c = bpf_map_lookup_elem(&counters, &level);

	if (!c)
		return;
	c->verdict[v].packets++;
	c->verdict[v].bytes += len;
	if (malformed)
		c->malformed_packets++;
}

SEC("tc")
int qjump_egress(struct __sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 key = 0, level, sent_level;
	const struct qj_config *cfg;
	const struct qj_level *lc;
	struct l3 l3;
	void *inner;
	__u64 len = skb->len;
	bool malformed;

	inner = bpf_map_lookup_elem(&config, &key);
	if (!inner)
		return QJ_TC_NEXT;
	cfg = bpf_map_lookup_elem(inner, &key);
	if (!cfg || !cfg->epoch_ns)
		return QJ_TC_NEXT;

	level = classify(skb, cfg);
	l3 = parse_l3(skb);
	malformed = l3.kind == L3_MALFORMED;
	sent_level = level;
	if (!charge(cfg, level, len, now)) {
		if (cfg->mode == QJ_MODE_SHAPE) {
			count(level, QJ_SHAPED, len, false);
		} else {
			int lower = -1;

			if (cfg->flags & QJ_AUTOCLASS)
				lower = demote(cfg, level, len, now);
			if (lower < 0) {
				count(level, QJ_DROPPED, len, malformed);
				return QJ_TC_DROP;
			}
			count(level, QJ_DEMOTED, len, false);
			sent_level = lower;
		}
	}
	count(sent_level, QJ_SENT, len, malformed);

	lc = &cfg->level[sent_level & QJ_LEVEL_MASK];
	/* QJump's egress tree is on the device in both modes: the class makes HTB serve the level. */
	if (lc->classid)
		skb->priority = lc->classid;
	else
		skb->priority = sent_level;
	if (cfg->tx_queues > 1)
		skb->queue_mapping = sent_level % cfg->tx_queues;
	if (malformed)
		return QJ_TC_NEXT;
	if (cfg->flags & QJ_MARK_DSCP)
		mark_dscp(skb, l3, lc->dscp);
	if (cfg->flags & QJ_MARK_PCP)
		mark_pcp(skb, cfg, lc->pcp);
	return QJ_TC_NEXT;
}
