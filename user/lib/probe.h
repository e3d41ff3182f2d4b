/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel feature probe: xfab needs Linux >= 6.6 for tcx links
 * (BPF_TCX_INGRESS/EGRESS) and the bpf_cast_to_kern_ctx kfunc. Both are
 * looked up in the running kernel's BTF, so nothing is loaded or attached.
 */
#ifndef XFAB_PROBE_H
#define XFAB_PROBE_H

#include <stddef.h>

/* The kernel release and required version, for messages. */
#define XFAB_KERNEL_MIN "6.6"
#define XFAB_KERNEL_HINT                                                                           \
	"Debian 12's stock 6.1 kernel is too old; install linux-image-amd64 from "                 \
	"bookworm-backports (6.12 series) or any kernel >= " XFAB_KERNEL_MIN

struct btf;

/* The first feature xfab needs that this BTF lacks, or NULL. */
const char *xfab_probe_btf(const struct btf *btf);

/* 0 when every feature is there; otherwise -1 with msg saying which
 * feature is missing and which kernel is needed. */
int xfab_probe_kernel(char *msg, size_t len);

#endif
