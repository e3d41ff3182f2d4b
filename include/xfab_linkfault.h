/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfab-linkfault's fault program (tools/xfab-linkfault.bpf.c) and the tool
 * (tools/xfab-linkfault.c) share these: the fault's settings and what it
 * counts. Not part of xfab's data plane: the tool puts the program in front
 * of xfab's (or the kernel's) receive path on one device.
 */
#ifndef XFAB_LINKFAULT_H
#define XFAB_LINKFAULT_H

#include <linux/types.h>

/* The program's name, the one the tool knows its own program by. */
#define XFAB_LF_PROG_NAME "xfab_lf_fault"

enum xfab_lf_mode {
	XFAB_LF_LOSS = 1,    /* the share is dropped */
	XFAB_LF_CORRUPT = 2, /* the share is damaged and goes on */
};

/* lf_conf[0], written by the tool before it attaches the program. */
struct xfab_lf_conf {
	__u32 mode;	     /* enum xfab_lf_mode */
	__u32 percent_centi; /* the share in hundredths of a percent, 1..10000 */
	/* a frame is hit when bpf_get_prandom_u32() < threshold:
	 * percent_centi * 2^32 / 10000 (2^32: every frame) */
	__u64 threshold;
	__u32 chain; /* 1: survivors tail-call lf_next[0], 0: XDP_PASS */
	__u32 pad;
};
_Static_assert(sizeof(struct xfab_lf_conf) == 24, "xfab_lf_conf layout");

/* lf_stats[0], per CPU: summed by the tool. */
struct xfab_lf_stats {
	__u64 seen;	       /* every frame the program ran for */
	__u64 dropped;	       /* loss: the share dropped */
	__u64 corrupted_ipv4;  /* corrupt: IPv4 header damaged (checksum fails) */
	__u64 corrupted_ipv6;  /* corrupt: IPv6 version damaged */
	__u64 corrupted_other; /* corrupt: any other frame, source MAC damaged */
	__u64 unchained;       /* survivors whose tail call failed (passed) */
};
_Static_assert(sizeof(struct xfab_lf_stats) == 48, "xfab_lf_stats layout");

#endif
