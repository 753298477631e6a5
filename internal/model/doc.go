// Package model holds QJump's equations: the network epoch, per-level budgets and rates, the
// throughput factor for a target rate and the worst-case fan-in delay of each level.
//
// Inputs are n hosts, the edge rate R (bit/s of the slowest host link), P bytes (what one host may
// send per epoch at throughput factor 1, counted on the wire: WireBytes), ε (what the fan-in delay
// leaves out on the longest path: each switch's processing delay and one largest frame's time a
// hop, and the host link's time for one frame; docs/model.md, "What D counts"), m (mesochronous compensation: host epochs are not aligned, so one host can emit m budgets
// inside one epoch-long window) and a throughput factor f_i for each level i in 0..7 (7 highest).
//
//	network epoch            E   = m·n·P·8/R + ε
//	level i budget           B_i = ⌊f_i·P⌋ bytes per epoch
//	level i rate             T_i = B_i·8/E              (line rate at B = ⌈R·E/8⌉, f ≈ m·n)
//	factor for a target rate f_i = ⌈T_i·E/8⌉/P          (≈ T_i·E/(8·P); the paper's f_i = n·T_i/R is m = 1, ε = 0)
//	fan-in delay of level 7  D_7 = n·b·P·8·f_7/R + ε    (b budgets a host back to back; below the top, FanIn)
//
// D_i is a guarantee only while Σ_{j≥i} f_j ≤ m; beyond that, level i is oversubscribed under full
// fan-in by Σ_{j≥i} f_j / m and the model reports that instead of a number. A level with no factor
// (unlimited) has no budget at all, so neither it nor any level below it has a bound.
//
// P and every budget count wire bytes: a frame of len bytes (skb->len) takes max(len, 60) + 24
// bytes of line time, a GSO packet the sum over its segments, so E is exactly the wire time of n
// hosts' m budgets. The default P is one full frame of the device (FullFrameWire).
//
// Validate refuses what cannot work (an epoch the clocks cannot hold, a budget below one minimum
// frame, CheckTargetRates a target above R); Warnings names a level whose budget is smaller than
// the device's largest frame.
//
// The paper and its artifacts disagree on m (the slides use 2nP/R, the ns-2 scripts nP/R); m makes
// the choice explicit and every output names it.
package model
