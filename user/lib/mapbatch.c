// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "mapbatch.h"

#include <bpf/bpf.h>
#include <errno.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's "operation not supported" */
#endif

int xfab_map_delete_keys(int fd, const void *keys, __u32 n, size_t key_size, int *unsupported,
			 __u32 *failed)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	const char *k = keys;
	__u32 i = 0;

	while (i < n && !*unsupported) {
		__u32 count = n - i;

		if (!bpf_map_delete_batch(fd, k + (size_t)i * key_size, &count, &opts))
			return 0;
		/* the batch stops at the first key that failed: count were
		 * deleted before it */
		if (count > n - i) /* cannot happen: the kernel reports at most n - i */
			count = n - i;
		if (errno == ENOENT) {
			i += count + 1; /* not there: nothing to delete */
			continue;
		}
		if (errno == ENOTSUPP || errno == EOPNOTSUPP) { /* no batches for this map */
			*unsupported = 1;
			i += count;
			break;
		}
		*failed = i + count;
		return -errno;
	}
	for (; i < n; i++)
		if (bpf_map_delete_elem(fd, k + (size_t)i * key_size) && errno != ENOENT) {
			*failed = i;
			return -errno;
		}
	return 0;
}
