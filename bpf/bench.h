/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * make bench's stage builds (enum xfab_bench_stop in xfab_abi.h): xfabd
 * sets these before load only when told to (--bench-stop), and then loads
 * and attaches xfab_xdp_bench, a second instance of the pipeline with the
 * stage checks, in xfab_xdp's place. A switch never loads that program:
 * its pipeline has no check at all, and pays nothing for the bench.
 */
#ifndef XFAB_BPF_BENCH_H
#define XFAB_BPF_BENCH_H

#include <linux/bpf.h>

#include "xfab_abi.h"

const volatile __u32 xfab_bench_stop = XFAB_BENCH_FULL;
const volatile __u32 xfab_bench_port = 0; /* ifindex the stopped pipeline sends to */
const volatile __u32 xfab_bench_slot = 0; /* and its port's slot (tx_ports) */

/* A stage's internal answer: stop here, the frame goes out as it is. */
#define XFAB_ACT_BENCH 7

/* Only the pipeline instance built for the bench (bench: a compile-time
 * constant, 1 in xfab_xdp_bench alone) has these checks at all. */
static __always_inline int xfab_bench_stops_after(int bench, __u32 stage)
{
	return bench && xfab_bench_stop == stage;
}

#endif
