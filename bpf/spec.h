/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Load-time specialisation (include/xfab_abi.h, enum xfab_code): which
 * optional code this load of the programs carries. xfabd sets xfab_code
 * before loading, from its config; libbpf freezes .rodata, so the verifier
 * knows the value, hard-wires every branch on it and deletes the code
 * behind a bit that is off (as Cilium's CONFIG() and xdp-forward's
 * `volatile const` do). Left as it is (the tests' loads), every bit is on:
 * the programs then decide everything from their tables at run time.
 */
#ifndef XFAB_BPF_SPEC_H
#define XFAB_BPF_SPEC_H

#include <linux/types.h>

#include "xfab_abi.h"

const volatile __u32 xfab_code = XFAB_CODE_ALL;

/* 1 if this load carries the code of bit (one of enum xfab_code). */
static __always_inline int xfab_code_on(__u32 bit)
{
	return (xfab_code & bit) != 0;
}

#endif
