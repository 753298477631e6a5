// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * floor.bpf.c - the two floors `qjump bench dataplane` measures QJump against: a program that
 * does nothing, and one that only reads the clock (QJump reads it once per packet, so no rate
 * limiter built on it can be cheaper).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "tcx.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

volatile __u64 sink;

SEC("tc")
int floor_empty(struct __sk_buff *skb)
{
	return QJ_TC_NEXT;
}

SEC("tc")
int floor_clock(struct __sk_buff *skb)
{
	sink = bpf_ktime_get_ns();
	return QJ_TC_NEXT;
}
