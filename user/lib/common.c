// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "common.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int xfab_pin_dir(char *out, size_t len, const char *root, const char *hostname)
{
	int n = snprintf(out, len, "%s/%s", root ? root : XFAB_PIN_ROOT, hostname);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xfab_open_pinned_map(const char *pin_dir, const char *map_name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_dir, map_name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int xfab_ensure_bpffs(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	mkdir("/sys/fs/bpf", 0755);
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

int xfab_percpu_sum(int map_fd, __u32 key, __u64 *out, size_t n_u64)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc((size_t)ncpu * n_u64, sizeof(__u64));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	memset(out, 0, n_u64 * sizeof(__u64));
	for (int c = 0; c < ncpu; c++)
		for (size_t f = 0; f < n_u64; f++)
			out[f] += vals[(size_t)c * n_u64 + f];
	free(vals);
	return 0;
}

__u16 xfab_csum16(const void *data, size_t len)
{
	const __u8 *p = data;
	__u32 sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (__u32)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

void xfab_format_mac(const __u8 *mac, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
}

int xfab_map_groups(int fd, __u32 *n_groups)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*n_groups = info.max_entries * 2 / 256;
	return *n_groups ? 0 : -EINVAL;
}

int xfab_mmap_pair(int fd_a, size_t len_a, void **a, int fd_b, size_t len_b, void **b)
{
	int err;

	*a = mmap(NULL, len_a, PROT_READ | PROT_WRITE, MAP_SHARED, fd_a, 0);
	if (*a == MAP_FAILED)
		return -errno;
	*b = mmap(NULL, len_b, PROT_READ | PROT_WRITE, MAP_SHARED, fd_b, 0);
	if (*b != MAP_FAILED)
		return 0;
	err = -errno;
	munmap(*a, len_a);
	return err;
}

const char *xfab_beside_exe(char *buf, size_t len, const char *name)
{
	char exe[4000];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return name;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/%s", exe, name);
	return buf;
}
