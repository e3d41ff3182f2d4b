// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* clear watermark */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "ctl.h"

/* Peaks back to zero; the current occupancy stays. */
int clear_watermark(void)
{
	int fd = open_map(XFAB_MAP_QUEUE_WATERMARK);

	for (__u32 key = 0; key < XFAB_MAX_QUEUES; key++) {
		struct xfab_queue_watermark wm;

		if (bpf_map_lookup_elem(fd, &key, &wm) || !wm.peak_bytes)
			continue;
		wm.peak_bytes = 0;
		if (bpf_map_update_elem(fd, &key, &wm, BPF_ANY)) {
			fprintf(stderr, "xfabctl: cannot clear watermark %u: %s\n", key,
				strerror(errno));
			return 1;
		}
	}
	return 0;
}
