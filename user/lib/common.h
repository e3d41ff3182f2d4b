/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by xfabd, xfabctl and the tests: pin paths, per-CPU counter sums
 * (and, through names.h, the names of ABI enums). */
#ifndef XFAB_COMMON_H
#define XFAB_COMMON_H

#include <linux/types.h>
#include <stddef.h>

#include "clock.h" /* xfab_mono_ns, which many of its users want too */
#include "names.h" /* enum names, used with these helpers everywhere */
#include "xfab_abi.h"

/* <root>/<hostname>; root defaults to XFAB_PIN_ROOT. */
int xfab_pin_dir(char *out, size_t len, const char *root, const char *hostname);
/* Opens a pinned map of a switch by its map name; returns an fd or -errno. */
int xfab_open_pinned_map(const char *pin_dir, const char *map_name);
/* Mounts bpffs on /sys/fs/bpf when nothing is mounted there. */
int xfab_ensure_bpffs(void);

/* Sums a per-CPU counter struct of n u64 fields. */
int xfab_percpu_sum(int map_fd, __u32 key, __u64 *out, size_t n_u64);
/* Maps two mmapable array maps read-write (both or neither); -errno. */
int xfab_mmap_pair(int fd_a, size_t len_a, void **a, int fd_b, size_t len_b, void **b);
/* The groups a FIB group map (fib4_tbl8, fib6_tbl8) holds: 256 entries,
 * two per element. 0 or -errno. */
int xfab_map_groups(int fd, __u32 *n_groups);

void xfab_format_mac(const __u8 *mac, char *buf, size_t len);

/* name beside the running program ("<its directory>/name", in buf): a file
 * of the build tree for a program run from build/. name itself when the
 * program's path cannot be read. */
const char *xfab_beside_exe(char *buf, size_t len, const char *name);

/* The Internet checksum (RFC 1071) of len bytes, as it goes in a header:
 * over a header that holds its checksum, 0 means valid. */
__u16 xfab_csum16(const void *data, size_t len);

#endif
