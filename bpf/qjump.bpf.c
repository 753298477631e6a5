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
 * P and B_i count wire bytes, the line time a frame takes at R (docs/model.md). A frame of len
 * bytes (skb->len: MACs to the end of the payload, no FCS; an 802.1Q tag counts whether in-band,
 * offloaded or about to be pushed) costs
 *
 *	w(len) = max(len, 60) + 24			(padding, FCS, preamble, gap)
 *
 * and a GSO/TSO packet of s = gso_segs > 1 segments, h bytes of L2-L4 headers (TCP's doff, UDP's
 * 8) and g = gso_size bytes of payload per segment costs what its segments cost on the wire:
 *
 *	(s−1)·w(h + g) + w(h + last),  last = len − h − (s−1)·g
 *
 * which is len + (s−1)·h + 24·s when no segment is padded (model.WireBytesGSO, the same sum; a test
 * runs both on the same packets).
 *
 * Epochs are a fixed grid on the monotonic clock, [k·E, (k+1)·E): a level counts the bytes it has
 * sent in the current epoch (used, reset at its first packet of each epoch) and admits a packet
 * of w bytes while used + w ≤ B_i. So the bytes admitted at a level in one epoch never exceed B_i,
 * and over any t the level sends at most (t/E + 1)·B_i: the rate is T_i with no drift, because the
 * grid does not move with traffic. A packet with w > B_i can never pass: it is counted as larger
 * than the budget, not as over it. Counting what was used rather than what is left keeps the bound
 * across a reload: the new B_i applies at once to the bytes the epoch has already carried, and an
 * epoch that was started under another E ends at the earlier of its own end and the new grid's,
 * then follows the new grid. An unlimited level is classified, marked and counted, never held.
 *
 * Exact on any number of CPUs. A level's state is one map value: the end of its current epoch,
 * and a charge word holding the bytes used in that epoch with a tag. A packet is charged by a
 * compare-and-swap of the charge word from (tag, used) to (tag, used + w), only if used + w ≤
 * B_i. The epoch rollover, once per epoch and level, runs under the value's bpf_spin_lock: it
 * re-checks the epoch under the lock (one CPU rolls, the others find it done), swaps the charge
 * word to (tag + 1, 0) and then moves epoch_end on. So the bytes of one tag, i.e. of one epoch,
 * are a sum of charges that each kept the total within B_i, and a charge prepared before a
 * rollover fails its swap against the new tag and is retried in the new epoch. A CPU that read
 * the clock just before a rollover is charged in the new epoch, which only ever refuses early. The
 * tag has 24 bits: a CPU would have to stall inside one program run for 2^24 epochs to see a tag
 * come round again. Uncontended, the common path is two loads and one compare-and-swap. A packet
 * whose swap loses QJ_CHARGE_TRIES races in a row is dropped and counted as contended. The clock
 * is read once per packet that police mode charges, and by no other: an unlimited level (bulk at
 * level 0, by default) and shape mode, where the shaper decides, have no epoch to find, and the
 * read is the largest single cost of a packet (about 34 ns of the 84-107 ns a charged packet costs
 * over an empty program on the Intel host of docs/performance.md, "The clock only where a budget
 * is charged"). The division that finds the epoch grid runs only at a rollover.
 *
 * Over budget, police mode drops the packet (Listing 1 of the paper) or, with autoclass, demotes it
 * to the highest lower level that still has budget (the original module's autoclassifier). The
 * demotion sticks to the socket for the rest of the epoch, so that its later packets cannot
 * overtake the demoted ones at the higher level. Shape mode charges nothing here: every packet of
 * a level goes to the level's shaper (a qdisc the loader set up at T_i with burst B_i, strict
 * priority by level), which holds what is over budget and segments GSO packets; what it held is
 * read from its own statistics.
 *
 * Level of a packet: skb->priority (what SO_PRIORITY sets) through a table, the default level
 * for unclassified traffic. The host's own control traffic (anything not IP: ARP, LLDP, LACP,
 * STP; and IPv6 neighbour discovery, MLD and IGMP, which the kernel sends at priority 7) takes
 * the default level too: it must neither eat the guaranteed level's budget nor be dropped by it.
 * A level without a factor carries no traffic of its own (as in the model): its packets go to its
 * carrier, the nearest configured level below it (or the lowest configured one). Last, the
 * ceiling of the sending socket's cgroup v2 and of every cgroup above it: a packet is never sent
 * above the lowest of them, and with no configured level at or below it, it is dropped.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
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
#define UDP_HLEN 8
/* Levels index arrays; the mask keeps the verifier sure of the bound whatever clang does. */
#define QJ_LEVEL_MASK (QJ_LEVELS - 1)
#define QJ_NO_LEVEL_FOUND 0xff

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The configuration: constants of this loaded copy of the program, set by the loader before the
 * kernel sees it (the object's .rodata, frozen). The verifier then knows every flag and the mode
 * and drops the branches that cannot run, and reading the configuration costs no map lookup. A
 * reload loads a new copy with the new constants and the same budget, counter and ceiling maps,
 * and swaps it into the hook in one step (a TCX link update, or a cls_bpf filter replace): each
 * packet runs one whole copy, old or new, never a mix.
 */
const volatile struct qj_config config = {};

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

/* cgroup v2 id -> its ceiling and depth; one map pinned for every device. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct qj_ceiling);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cgroup_ceilings SEC(".maps");

/*
 * The depths where some cgroup has a ceiling; the loader keeps it equal to the depths in
 * cgroup_ceilings. A packet looks up only its cgroup's ancestors at those depths, and nothing at
 * all while no ceiling is set: one load, which the verifier inlines.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct qj_depths);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ceiling_depths SEC(".maps");

/* Autoclass: the sockets demoted in the current epoch; freed with the socket. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct qj_demotion);
} demotions SEC(".maps");

/* Where the IP and transport headers start, or why there is none to mark. */
enum l3_kind { L3_OTHER, L3_IPV4, L3_IPV6, L3_MALFORMED };

struct l3 {
	__u8 kind;	/* enum l3_kind */
	__u8 proto;	/* IPPROTO_* of the transport header */
	__u8 control;	/* the host's own control traffic (see the top) */
	__u8 off;	/* offset of the IP header from the start of the frame */
	__u16 l4;	/* offset of the transport header */
};

/* ICMPv6 types of MLD (130-132, 143) and neighbour discovery (133-137). */
static __always_inline bool icmp6_control(__u8 type)
{
	return (type >= 130 && type <= 137) || type == 143;
}

/* IPv6: the transport header after no or one hop-by-hop header (MLD carries a router alert). */
static __always_inline void parse_ipv6_next(struct l3 *r, void *data, void *data_end,
					    struct ipv6hdr *ip6)
{
	__u8 *hbh, *icmp;

	r->proto = ip6->nexthdr;
	r->l4 = r->off + sizeof(*ip6);
	if (r->proto == IPPROTO_HOPOPTS) {
		hbh = data + (r->l4 & 0xff);
		if ((void *)(hbh + 2) > data_end)
			return;
		r->proto = hbh[0];
		r->l4 += (hbh[1] + 1) * 8;
	}
	if (r->proto == IPPROTO_ICMPV6) {
		icmp = data + (r->l4 & 0x7ff);
		if ((void *)(icmp + 1) <= data_end)
			r->control = icmp6_control(*icmp);
	}
}

/* Fills r from the frame's headers; r starts as malformed, with nothing found. */
static __always_inline void parse_l3(struct __sk_buff *skb, struct l3 *r)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	__u16 proto;

	if ((void *)(eth + 1) > data_end)
		return;
	proto = eth->h_proto;
	r->off = sizeof(*eth);
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		__be16 *inner = data + sizeof(*eth) + 2;

		if ((void *)(inner + 1) > data_end)
			return;
		proto = *inner;
		r->off += VLAN_HLEN;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + r->off;

		if ((void *)(ip + 1) > data_end || ip->version != 4 || ip->ihl < 5 ||
		    data + r->off + ip->ihl * 4 > data_end)
			return;
		r->kind = L3_IPV4;
		r->proto = ip->protocol;
		r->l4 = r->off + ip->ihl * 4;
		r->control = r->proto == IPPROTO_IGMP;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = data + r->off;

		if ((void *)(ip6 + 1) > data_end || ip6->version != 6)
			return;
		r->kind = L3_IPV6;
		parse_ipv6_next(r, data, data_end, ip6);
	} else {
		r->kind = L3_OTHER;
		r->control = 1;
	}
}

/* w(len) at the top: the line time of one frame. */
static __always_inline __u64 frame_wire(__u64 len)
{
	return (len < QJ_FRAME_MIN ? QJ_FRAME_MIN : len) + QJ_FRAME_OVERHEAD;
}

/* L2-L4 header bytes every segment of a GSO packet repeats; tag: a tag not in skb->len. */
static __always_inline __u64 gso_headers(struct __sk_buff *skb, const struct l3 *l3, __u32 tag)
{
	__u8 doff;

	if (l3->kind != L3_IPV4 && l3->kind != L3_IPV6)
		return tag;
	if (l3->proto == IPPROTO_UDP)
		return l3->l4 + UDP_HLEN + tag;
	if (l3->proto == IPPROTO_TCP && !bpf_skb_load_bytes(skb, l3->l4 + 12, &doff, 1))
		return l3->l4 + (doff >> 4) * 4 + tag;
	return l3->l4 + tag;
}

/* What a packet costs on the wire (the top); pushing: PCP marking will push a tag on it. */
static __always_inline __u64 wire_bytes(struct __sk_buff *skb, const struct l3 *l3, bool pushing)
{
	__u32 tag = skb->vlan_present || pushing ? VLAN_HLEN : 0;
	__u64 len = skb->len + tag, segs = skb->gso_segs, gso, hdr, full, last;

	if (segs <= 1)
		return frame_wire(len);
	gso = skb->gso_size;
	hdr = gso_headers(skb, l3, tag);
	full = segs - 1;
	last = len - hdr - full * gso;
	if (len < hdr + full * gso + 1 || last > gso) {
		/* Not what the kernel builds: its own estimate for qdiscs (len + (s−1)·h), never
		 * less than s minimum frames, and every segment's overhead (model.WireBytesGSO). */
		hdr = len + full * hdr;
		if (hdr < segs * QJ_FRAME_MIN)
			hdr = segs * QJ_FRAME_MIN;
		return hdr + segs * QJ_FRAME_OVERHEAD;
	}
	return full * frame_wire(hdr + gso) + frame_wire(hdr + last);
}

/*
 * The lowest ceiling of the socket's cgroup and its ancestors at the depths in mask. A global
 * function: the verifier checks it once on its own, not once per path of the program that calls
 * it, which the loop over depths would multiply beyond its limit.
 */
__attribute__((noinline)) __u32 qj_ceiling_walk(struct __sk_buff *skb, __u32 mask)
{
	__u32 ceiling = QJ_LEVELS - 1;
	struct qj_ceiling *c;
	__u64 id;
	int d;

	if (!skb)
		return ceiling;
	for (d = 0; d < QJ_CEILING_DEPTHS; d++) {
		if (!(mask >> d))
			break;
		if (!(mask & (1U << d)))
			continue;
		id = bpf_skb_ancestor_cgroup_id(skb, d);
		if (!id)
			break; /* the socket's cgroup is above depth d */
		c = bpf_map_lookup_elem(&cgroup_ceilings, &id);
		if (c && c->level < ceiling)
			ceiling = c->level;
	}
	return ceiling;
}

/*
 * The ceiling of the packet's socket: QJ_LEVELS - 1 while no cgroup has one, at the cost of a
 * load. With ceilings at one depth only (pods, services: the usual case) it looks up the one
 * ancestor here, without the call into the walk.
 */
static __always_inline __u32 ceiling_of(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct qj_depths *depths = bpf_map_lookup_elem(&ceiling_depths, &key);
	struct qj_ceiling *c;
	__u64 id;

	if (!depths || !depths->mask)
		return QJ_LEVELS - 1;
	if (depths->only >= QJ_CEILING_DEPTHS)
		return qj_ceiling_walk(skb, depths->mask);
	id = bpf_skb_ancestor_cgroup_id(skb, depths->only);
	c = id ? bpf_map_lookup_elem(&cgroup_ceilings, &id) : NULL;
	return c && c->level < QJ_LEVELS ? c->level : QJ_LEVELS - 1;
}

/*
 * The level a packet is sent at (the top), or QJ_NO_LEVEL_FOUND when its ceiling is below every
 * configured level; *at is the level to count it at either way.
 */
static __always_inline __u32 classify(struct __sk_buff *skb, const volatile struct qj_config *cfg,
				      const struct l3 *l3, __u32 *at)
{
	__u32 prio = skb->priority;
	__u32 level = QJ_UNCLASSIFIED, ceiling, carrier;

	if (prio < QJ_PRIORITIES && !l3->control)
		level = cfg->prio_level[prio];
	if (level >= QJ_LEVELS)
		level = cfg->default_level;
	ceiling = ceiling_of(skb);
	if (ceiling < level)
		level = ceiling;
	/* The loader validates every level it writes, so the mask only reassures the verifier. */
	carrier = cfg->carrier[level & QJ_LEVEL_MASK];
	*at = carrier;
	if (carrier > ceiling) {
		*at = ceiling;
		return QJ_NO_LEVEL_FOUND;
	}
	return carrier;
}

/* Starts the epoch that contains now, unless another CPU already has; follows a reload's E. */
static __always_inline void rollover(struct qj_budget *b, __u64 epoch_ns, __u64 now)
{
	__u64 end;

	bpf_spin_lock(&b->lock);
	end = (now / epoch_ns + 1) * epoch_ns;
	if (now >= b->epoch_end) {
		__u64 tag = (b->charge >> QJ_USED_BITS) + 1;

		/* The charge word first: a CPU that sees the new epoch_end also sees it reset. */
		__sync_lock_test_and_set(&b->charge, tag << QJ_USED_BITS);
		b->epoch_end = end;
	} else if (end < b->epoch_end) {
		/* A reload shortened E: the epoch under way ends with the new grid's, keeping what
		 * it has carried. (A longer E lets it run to its own end.) */
		b->epoch_end = end;
	}
	b->epoch_ns = epoch_ns;
	bpf_spin_unlock(&b->lock);
}

/* Charges w bytes to level's budget: QJ_SENT if the level had them in this epoch, else why not. */
static __always_inline enum qj_verdict charge(const volatile struct qj_config *cfg, __u32 level, __u64 w,
					      __u64 now)
{
	const volatile struct qj_level *lc = &cfg->level[level & QJ_LEVEL_MASK];
	struct qj_budget *b;
	__u64 old;
	int i;

	if (!lc->limited)
		return QJ_SENT;
	if (w > lc->budget)
		return QJ_OVERSIZE;
	b = bpf_map_lookup_elem(&budget, &level);
	if (!b)
		return QJ_DROPPED;
	if (now >= READ_ONCE(b->epoch_end) || READ_ONCE(b->epoch_ns) != cfg->epoch_ns)
		rollover(b, cfg->epoch_ns, now);
	for (i = 0; i < QJ_CHARGE_TRIES; i++) {
		old = READ_ONCE(b->charge);
		if ((old & QJ_USED_MASK) + w > lc->budget)
			return QJ_DROPPED;
		if (__sync_val_compare_and_swap(&b->charge, old, old + w) == old)
			return QJ_SENT;
	}
	return QJ_CONTENDED;
}

/* Police + autoclass: the highest configured level below level that still has budget, or -1. */
static __always_inline int demote(const volatile struct qj_config *cfg, __u32 level, __u64 w, __u64 now)
{
	int l;

	for (l = QJ_LEVELS - 2; l >= 0; l--) {
		if (l < (int)level && cfg->carrier[l] == l && charge(cfg, l, w, now) == QJ_SENT)
			return l;
	}
	return -1;
}

/* The socket's demotion record (created if create), or NULL for a packet without a socket. */
static __always_inline struct qj_demotion *demotion_of(struct __sk_buff *skb, bool create)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return NULL;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return NULL;
	return bpf_sk_storage_get(&demotions, sk, 0, create ? BPF_SK_STORAGE_GET_F_CREATE : 0);
}

/*
 * Police mode: charges the packet at level, or at the level its socket was demoted to in this
 * epoch; over budget with autoclass, demotes it and remembers that for the socket. Returns the
 * verdict and, when sent, the level in *sent.
 */
static __always_inline enum qj_verdict police(struct __sk_buff *skb, const volatile struct qj_config *cfg,
					      __u32 level, __u64 w, __u32 *sent)
{
	bool autoclass = cfg->flags & QJ_AUTOCLASS;
	struct qj_demotion *dm = NULL;
	enum qj_verdict v;
	__u64 now;
	int lower;

	*sent = level;
	/* An unlimited level is never charged, nor demoted from (a demotion is a limited level's),
	 * so it needs no clock (the top). */
	if (!cfg->level[level & QJ_LEVEL_MASK].limited)
		return QJ_SENT;
	now = bpf_ktime_get_ns();
	if (autoclass) {
		dm = demotion_of(skb, false);
		if (dm && now < dm->until && dm->level < level)
			*sent = dm->level;
	}
	v = charge(cfg, *sent, w, now);
	if (v == QJ_SENT || !autoclass)
		return v;
	lower = demote(cfg, *sent, w, now);
	if (lower < 0)
		return v;
	*sent = lower;
	if (!dm)
		dm = demotion_of(skb, true);
	if (dm) {
		dm->level = lower;
		dm->until = (now / cfg->epoch_ns + 1) * cfg->epoch_ns;
	}
	return QJ_SENT;
}

/* Folds a 32-bit one's complement sum to 16 bits. */
static __always_inline __u16 csum_fold32(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/*
 * Rewrites the DSCP bits in place, through packet pointers. The verifier then prepends a check
 * that pulls a cloned skb's header first (bpf_skb_pull_data), which costs a TCP packet (a clone
 * whose header TCP has released to it) little; the helpers bpf_l3_csum_replace and
 * bpf_skb_store_bytes instead cost every packet about 70 ns here (docs/performance.md).
 */
static __always_inline void mark_dscp(struct __sk_buff *skb, const struct l3 *l3, __u8 dscp)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	/* The mask bounds the offset for the verifier; parse_l3 never sets more than 18. */
	__u32 off = l3->off & 0xff;

	if (l3->kind == L3_IPV4) {
		struct iphdr *ip = data + off;
		__u16 old, new;
		__u8 tos;

		if ((void *)(ip + 1) > data_end)
			return;
		tos = (dscp << 2) | (ip->tos & IP_ECN_MASK);
		if (tos == ip->tos)
			return;
		/* The header checksum covers the 16-bit word that holds TOS: update it
		 * incrementally (RFC 1624), HC' = ~(~HC + ~m + m'). One's complement sums come
		 * out the same in either byte order, so the words stay as they are in memory.
		 * The new word is built in a register and stored once: storing the TOS byte and
		 * reading the word back made the CPU wait for the store (a load wider than the
		 * store it overlaps cannot be forwarded from it), a few ns a packet here. */
		old = *(__u16 *)ip;
		new = old;
		((__u8 *)&new)[1] = tos; /* TOS is the word's second byte in memory */
		*(__u16 *)ip = new;
		ip->check = ~csum_fold32((__u16)~ip->check + (__u16)~old + new);
	} else if (l3->kind == L3_IPV6) {
		/* Traffic class straddles the first two bytes; no checksum covers it. */
		__u8 *w = data + off;
		__u8 tc;

		if ((void *)(w + 2) > data_end)
			return;
		tc = (dscp << 2) | ((w[1] >> 4) & IP_ECN_MASK);
		w[0] = (w[0] & 0xf0) | (tc >> 4);
		w[1] = (w[1] & 0x0f) | (tc << 4);
	}
}

/* An untagged frame that PCP marking will push a tag on. */
static __always_inline bool pushes_tag(struct __sk_buff *skb, const struct l3 *l3)
{
	return !skb->vlan_present && l3->off == sizeof(struct ethhdr);
}

/* Sets the 802.1Q priority: in the hardware-offloaded tag, in an in-band tag, or in a new tag. */
static __always_inline void mark_pcp(struct __sk_buff *skb, const volatile struct qj_config *cfg,
				     const struct l3 *l3, __u8 pcp)
{
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
	if (!pushes_tag(skb, l3)) {
		void *data = (void *)(long)skb->data;
		void *data_end = (void *)(long)skb->data_end;
		__u8 *t = data + sizeof(struct ethhdr);

		if ((void *)(t + 2) > data_end)
			return;
		t[0] = (t[0] & 0x1f) | (pcp << 5);
		return;
	}
	tci = (cfg->vlan_id & VLAN_VID_MASK) | (pcp << VLAN_PCP_SHIFT);
	bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), tci);
}

/* The second verdict a packet of this kind counts under, or QJ_VERDICTS for none. */
static __always_inline enum qj_verdict kind_verdict(enum l3_kind kind)
{
	if (kind == L3_OTHER)
		return QJ_NOT_IP;
	if (kind == L3_MALFORMED)
		return QJ_MALFORMED;
	return QJ_VERDICTS;
}

/* Counts a packet of w wire bytes under verdict v at level, and under also if that is one. */
static __always_inline void count(__u32 level, enum qj_verdict v, __u64 w, enum qj_verdict also)
{
	struct qj_counters *c = bpf_map_lookup_elem(&counters, &level);

	if (!c)
		return;
	c->verdict[v].packets++;
	c->verdict[v].bytes += w;
	if (also == QJ_NOT_IP || also == QJ_MALFORMED) {
		c->verdict[also].packets++;
		c->verdict[also].bytes += w;
	}
}

SEC("tc")
int qjump_egress(struct __sk_buff *skb)
{
	const volatile struct qj_config *cfg = &config;
	__u32 level, at, sent;
	const volatile struct qj_level *lc;
	enum qj_verdict v = QJ_SENT;
	struct l3 l3 = { .kind = L3_MALFORMED };
	bool ip;
	__u64 w;

	parse_l3(skb, &l3);
	if (!cfg->epoch_ns) {
		count(0, QJ_UNCONFIGURED, frame_wire(skb->len), kind_verdict(l3.kind));
		return QJ_TC_NEXT;
	}
	ip = l3.kind == L3_IPV4 || l3.kind == L3_IPV6;
	w = wire_bytes(skb, &l3, ip && (cfg->flags & QJ_MARK_PCP) && pushes_tag(skb, &l3));
	level = classify(skb, cfg, &l3, &at);
	if (level == QJ_NO_LEVEL_FOUND) {
		count(at, QJ_NO_LEVEL, w, kind_verdict(l3.kind));
		return QJ_TC_DROP;
	}
	sent = level;
	if (cfg->mode == QJ_MODE_POLICE)
		v = police(skb, cfg, level, w, &sent);
	if (v != QJ_SENT) {
		count(level, v, w, kind_verdict(l3.kind));
		return QJ_TC_DROP;
	}
	if (sent != level)
		count(level, QJ_DEMOTED, w, QJ_VERDICTS);
	count(sent, QJ_SENT, w, kind_verdict(l3.kind));

	lc = &cfg->level[sent & QJ_LEVEL_MASK];
	/* QJump's egress tree is on the device in both modes: the class makes HTB serve the level. */
	if (lc->classid)
		skb->priority = lc->classid;
	else
		skb->priority = sent;
	if (!ip)
		return QJ_TC_NEXT;
	if (cfg->flags & QJ_MARK_DSCP)
		mark_dscp(skb, &l3, lc->dscp);
	if (cfg->flags & QJ_MARK_PCP)
		mark_pcp(skb, cfg, &l3, lc->pcp);
	return QJ_TC_NEXT;
}
