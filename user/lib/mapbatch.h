/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Deleting many keys from a map with BPF_MAP_DELETE_BATCH: a million routes
 * withdrawn were a million bpf() calls. */
#ifndef XFAB_MAPBATCH_H
#define XFAB_MAPBATCH_H

#include <linux/types.h>
#include <stddef.h>

/* Deletes the n keys at keys (key_size bytes apart) from map fd, in order,
 * as many per system call as the kernel takes. A key the map does not hold
 * is skipped, as a single delete's ENOENT would be. Where the kernel has no
 * batches for the map, *unsupported is set and the keys go one by one (as
 * they do from then on). 0, or -errno of the first key that failed
 * otherwise (its index in *failed; the keys after it are not tried). */
int xfab_map_delete_keys(int fd, const void *keys, __u32 n, size_t key_size, int *unsupported,
			 __u32 *failed);

#endif
