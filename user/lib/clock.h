/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one clock of xfab's programs. A file of its own so that a tool that
 * wants only the time takes nothing else from the library. */
#ifndef XFAB_CLOCK_H
#define XFAB_CLOCK_H

#include <linux/types.h>

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
__u64 xfab_mono_ns(void);
/* The same clock in seconds, for timing a run. */
double xfab_mono_s(void);

#endif
