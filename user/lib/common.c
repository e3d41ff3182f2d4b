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

static const char *const drop_names[XFAB_DROP_MAX] = {
    [XFAB_DROP_NONE] = "none",
    [XFAB_DROP_ETH_TRUNCATED] = "eth_truncated",
    [XFAB_DROP_VLAN_STACKED] = "vlan_stacked",
    [XFAB_DROP_IPV4_MALFORMED] = "ipv4_malformed",
    [XFAB_DROP_IPV6_MALFORMED] = "ipv6_malformed",
    [XFAB_DROP_IPV6_EXT_CHAIN] = "ipv6_ext_chain",
    [XFAB_DROP_L4_TRUNCATED] = "l4_truncated",
    [XFAB_DROP_SMAC_MULTICAST] = "smac_multicast",
    [XFAB_DROP_SMAC_EQ_DMAC] = "smac_eq_dmac",
    [XFAB_DROP_NOT_ROUTER_MAC] = "not_router_mac",
    [XFAB_DROP_PORT_UNKNOWN] = "port_unknown",
    [XFAB_DROP_PORT_DOWN] = "port_down",
    [XFAB_DROP_NO_ROUTE] = "no_route",
    [XFAB_DROP_BLACKHOLE] = "blackhole",
    [XFAB_DROP_NEXTHOP_INVALID] = "nexthop_invalid",
    [XFAB_DROP_GROUP_EMPTY] = "group_empty",
    [XFAB_DROP_EGRESS_DOWN] = "egress_down",
    [XFAB_DROP_BAD_SRC_ADDR] = "bad_src_addr",
};

static const char *const punt_names[XFAB_PUNT_MAX] = {
    [XFAB_PUNT_NONE] = "none",
    [XFAB_PUNT_ARP] = "arp",
    [XFAB_PUNT_ND] = "nd",
    [XFAB_PUNT_LINK_LOCAL] = "link_local",
    [XFAB_PUNT_MULTICAST] = "multicast",
    [XFAB_PUNT_TO_SELF] = "to_self",
    [XFAB_PUNT_TTL_EXPIRED] = "ttl_expired",
    [XFAB_PUNT_NEIGH_UNRESOLVED] = "neigh_unresolved",
    [XFAB_PUNT_MTU_EXCEEDED] = "mtu_exceeded",
    [XFAB_PUNT_NON_IP] = "non_ip",
    [XFAB_PUNT_IPV6_HOP_BY_HOP] = "ipv6_hop_by_hop",
};

const char *xfab_drop_name(__u32 reason)
{
	return reason < XFAB_DROP_MAX && drop_names[reason] ? drop_names[reason] : "unknown";
}

const char *xfab_punt_name(__u32 reason)
{
	return reason < XFAB_PUNT_MAX && punt_names[reason] ? punt_names[reason] : "unknown";
}

static const char *const lb_names[XFAB_LB_MAX] = {
    [XFAB_LB_FLOWLET_HIT] = "flowlet_continued",
    [XFAB_LB_FLOWLET_NEW] = "flowlet_started",
    [XFAB_LB_FLOWLET_MOVED] = "flowlet_path_changed",
    [XFAB_LB_FLOWLET_DEAD] = "flowlet_member_down",
    [XFAB_LB_TE_HIT] = "te_steered",
    [XFAB_LB_TE_FALLBACK] = "te_fallback",
};

const char *xfab_lb_name(__u32 event)
{
	return event < XFAB_LB_MAX && lb_names[event] ? lb_names[event] : "unknown";
}

const char *xfab_route_type_name(__u32 type)
{
	switch (type) {
	case XFAB_RT_NEXTHOP:
		return "nexthop";
	case XFAB_RT_GROUP:
		return "group";
	case XFAB_RT_CONNECTED:
		return "connected";
	case XFAB_RT_LOCAL:
		return "local";
	case XFAB_RT_BLACKHOLE:
		return "blackhole";
	default:
		return "unknown";
	}
}

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

__u64 xfab_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

void xfab_format_mac(const __u8 *mac, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
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
