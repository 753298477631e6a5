// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cgroup_sock: puts every IP socket of a cgroup on a QJump level, for programs LD_PRELOAD cannot
 * reach (static binaries such as Go programs, containers).
 *
 * There are no equations here: a level is a priority. The dataplane reads a packet's level from
 * skb->priority through a table that is the identity by default, so a socket of level L carries
 * sk_priority = L, which every skb it sends inherits. Three hooks cover the ways a socket gets or
 * changes its priority:
 *
 *   cgroup/sock_create   socket(): sk_priority = level (AF_INET, AF_INET6 only).
 *   sockops              an accepted TCP socket, which the kernel clones from its listener without
 *                        the priority: set it when the connection is established. The send buffer,
 *                        when one is asked for, is set here too, on every TCP connection as it is
 *                        established (sock_create may not call bpf_setsockopt): in cgroup mode it
 *                        covers TCP, not UDP.
 *   cgroup/setsockopt    with enforce on, a program's own SO_PRIORITY is refused: optlen = -1 makes
 *                        the kernel skip the option and return success, so the program carries on
 *                        at its level. Each refusal is counted for qjump to report.
 *
 * The level, the send buffer and enforce are constants set at load time: one loaded copy of this
 * object per cgroup.
 */
#include <linux/bpf.h>
#include <linux/socket.h>
#include <bpf/bpf_helpers.h>

#define AF_INET 2
#define AF_INET6 10
#define SOL_SOCKET 1
#define SO_SNDBUF 7
#define SO_PRIORITY 12
#define PAGE_SIZE 4096 /* as in the kernel selftests; resetting below a larger page is harmless */

const volatile __u32 qjump_priority = 0; /* the level's skb->priority */
const volatile __s32 qjump_sndbuf = 0; /* SO_SNDBUF of every TCP connection; 0: default */
const volatile __u32 qjump_enforce = 0; /* 1: refuse the program's own SO_PRIORITY */

__u64 qjump_refused = 0; /* SO_PRIORITY calls refused under enforce */

static __always_inline int is_ip(__u32 family)
{
	return family == AF_INET || family == AF_INET6;
}

SEC("cgroup/sock_create")
int qjump_sock_create(struct bpf_sock *sk)
{
	if (is_ip(sk->family))
		sk->priority = qjump_priority;
	return 1;
}

SEC("sockops")
int qjump_sock_ops(struct bpf_sock_ops *ops)
{
	int prio = qjump_priority;
	int sndbuf = qjump_sndbuf;

	if (!is_ip(ops->family))
		return 1;
	if (ops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		bpf_setsockopt(ops, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio));
	else if (ops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB)
		return 1;
	if (sndbuf > 0)
		bpf_setsockopt(ops, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	return 1;
}

/*
 * pass lets an option through unchanged. Before Linux 6.5, a program that passes an option longer
 * than a page through without touching optlen makes the syscall fail with EFAULT (only the first
 * page was copied for it); optlen = 0 tells the kernel to use the program's original buffer.
 */
static __always_inline int pass(struct bpf_sockopt *ctx)
{
	if (ctx->optlen > PAGE_SIZE)
		ctx->optlen = 0;
	return 1;
}

SEC("cgroup/setsockopt")
int qjump_setsockopt(struct bpf_sockopt *ctx)
{
	struct bpf_sock *sk = ctx->sk;

	if (!qjump_enforce || ctx->level != SOL_SOCKET || ctx->optname != SO_PRIORITY)
		return pass(ctx);
	if (!sk || !is_ip(sk->family))
		return pass(ctx);
	ctx->optlen = -1;
	__sync_fetch_and_add(&qjump_refused, 1);
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
