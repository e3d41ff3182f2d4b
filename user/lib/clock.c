// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <time.h>

#include "clock.h"

__u64 xfab_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

double xfab_mono_s(void)
{
	return (double)xfab_mono_ns() / 1e9;
}
