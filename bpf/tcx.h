/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The verdicts a TC egress program returns, for every program here and for the Go side (bpf2go).
 * The values are TCX's (linux/bpf.h of 6.6+, which older headers lack); cls_bpf in direct-action
 * mode reads the same values (TC_ACT_UNSPEC: go on, TC_ACT_SHOT: drop), so one program serves
 * both hooks.
 */
#ifndef QJ_TCX_H
#define QJ_TCX_H

enum qj_tc_verdict {
	QJ_TC_NEXT = -1,	/* TCX_NEXT: the packet goes on */
	QJ_TC_DROP = 2,		/* TCX_DROP */
};

#endif /* QJ_TCX_H */
