// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * floor.bpf.c - the two floors `qjump bench dataplane` measures QJump against: a program that
 * does nothing, and one that only reads the clock (QJump reads it once per packet, so no rate
 * limiter built on it can be cheaper).
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

/* TCX verdicts (linux/bpf.h of 6.6+); the same values work for cls_bpf direct action. */
#ifndef TCX_NEXT
#define TCX_NEXT -1
#define TCX_DROP 2
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";

volatile __u64 sink;

SEC("tc")
int floor_empty(struct __sk_buff *skb)
{
	return TCX_NEXT;
}

SEC("tc")
int floor_clock(struct __sk_buff *skb)
{
	sink = bpf_ktime_get_ns();
	return TCX_NEXT;
}
