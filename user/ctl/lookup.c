// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading the pinned maps: the helpers every command shares. */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "ctl.h"

int ctl_open_map(const char *name)
{
	static int abi_ok;
	char msg[512];
	int fd;

	/* Pins of another ABI would be misread: refuse them first. */
	if (!abi_ok && xfab_abi_check(ctl_pin_dir, "xfabctl", msg, sizeof(msg)) == -EPROTO) {
		fprintf(stderr, "xfabctl: %s\n", msg);
		exit(1);
	}
	abi_ok = 1;
	fd = xfab_open_pinned_map(ctl_pin_dir, name);
	if (fd < 0) {
		fprintf(stderr, "xfabctl: cannot open %s/%s: %s\n", ctl_pin_dir, name,
			strerror(-fd));
		exit(1);
	}
	return fd;
}

/* A port's name as xfabd recorded it (valid from any namespace); other
 * interfaces by the kernel's name. */
static int ports_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = xfab_open_pinned_map(ctl_pin_dir, XFAB_MAP_PORTS);
	return fd;
}

const char *ctl_port_name(__u32 ifindex, char *buf)
{
	struct xfab_port port;
	int fd = ports_fd();

	if (fd >= 0 && bpf_map_lookup_elem(fd, &ifindex, &port) == 0 && port.ifindex == ifindex &&
	    port.name[0]) {
		snprintf(buf, IF_NAMESIZE, "%s", port.name);
		return buf;
	}
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

void ctl_addr_str(int v6, const __u8 *addr, char *buf, size_t len)
{
	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len);
}

/* Iterates all keys of a hash/LPM map into a malloc'd array. */
void *ctl_map_keys(int fd, size_t key_size, size_t *count)
{
	size_t cap = 64, n = 0;
	char *keys = malloc(cap * key_size), *prev = NULL;

	if (!keys)
		exit(1);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			keys = realloc(keys, cap * key_size);
			if (!keys)
				exit(1);
			prev = n ? keys + (n - 1) * key_size : NULL;
		}
		if (bpf_map_get_next_key(fd, prev, keys + n * key_size))
			break;
		prev = keys + n * key_size;
		n++;
	}
	*count = n;
	return keys;
}

int ctl_load_nexthop(int fd, __u32 id, struct xfab_nexthop *nh)
{
	return bpf_map_lookup_elem(fd, &id, nh) == 0 && (nh->flags & XFAB_NH_VALID) ? 0 : -1;
}

static int cmp_port(const void *a, const void *b)
{
	const struct xfab_port *x = a, *y = b;

	return x->slot - y->slot;
}

size_t ctl_load_ports(struct xfab_port *ports)
{
	int fd = ctl_open_map(XFAB_MAP_PORTS);
	size_t n, out = 0;
	__u32 *keys = ctl_map_keys(fd, sizeof(__u32), &n);

	for (size_t i = 0; i < n && out < XFAB_MAX_PORTS; i++)
		if (bpf_map_lookup_elem(fd, &keys[i], &ports[out]) == 0 && ports[out].ifindex)
			out++;
	qsort(ports, out, sizeof(*ports), cmp_port);
	free(keys);
	return out;
}

/* The data plane sends out of the port (configured, up and running). */
int ctl_port_live(__u32 ifindex)
{
	struct xfab_port port;
	int fd = ports_fd();

	return fd >= 0 && bpf_map_lookup_elem(fd, &ifindex, &port) == 0 &&
	       port.ifindex == ifindex && (port.flags & XFAB_PORT_UP) == XFAB_PORT_UP;
}

void ctl_print_nexthop_json(int nh_fd, __u32 id)
{
	struct xfab_nexthop nh;
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];

	ctl_jw_open(NULL, '{');
	ctl_jw_uint("nexthop", id);
	if (ctl_load_nexthop(nh_fd, id, &nh) == 0) {
		ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
		ctl_jw_string("via", gw);
		ctl_jw_string("dev", ctl_port_name(nh.ifindex, name));
		ctl_jw_bool("live", ctl_port_live(nh.ifindex));
		ctl_jw_bool("resolved", nh.flags & XFAB_NH_RESOLVED);
		if (nh.flags & XFAB_NH_RESOLVED) {
			xfab_format_mac(nh.dmac, mac, sizeof(mac));
			ctl_jw_string("mac", mac);
		}
	}
	ctl_jw_close('}');
}

void ctl_print_nexthop_text(int nh_fd, __u32 id, const char *sep)
{
	struct xfab_nexthop nh;
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE];

	if (ctl_load_nexthop(nh_fd, id, &nh)) {
		printf("%snexthop %u (missing)", sep, id);
		return;
	}
	ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
	printf("%svia %s dev %s%s%s", sep, gw, ctl_port_name(nh.ifindex, name),
	       nh.flags & XFAB_NH_RESOLVED ? "" : " (unresolved)",
	       ctl_port_live(nh.ifindex) ? "" : " (down)");
}

/* The longest prefix of `table` holding addr, found by walking the trie's
 * keys (the kernel's lookup returns the value, not the prefix). */
int ctl_find_route(int v6, const __u8 *addr, __u32 table, int *plen_out, struct xfab_route *rt_out)
{
	int fd = ctl_open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
	size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key), n;
	char *keys = ctl_map_keys(fd, ksz, &n);
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		char *k = keys + i * ksz;
		__u32 prefixlen = *(__u32 *)k, ktable = ntohl(*(__u32 *)(k + 4));
		struct xfab_prefix p = {.family = v6 ? AF_INET6 : AF_INET};

		if (ktable != table || prefixlen < 32)
			continue;
		p.plen = (int)prefixlen - 32;
		memcpy(p.addr, k + 8, v6 ? 16 : 4);
		if (p.plen > best && xfab_prefix_contains(&p, p.family, addr)) {
			best = p.plen;
			if (bpf_map_lookup_elem(fd, k, rt_out))
				best = -1;
		}
	}
	free(keys);
	*plen_out = best;
	return best >= 0 ? 0 : -1;
}

int ctl_parse_proto(const char *p)
{
	if (!p || !strcmp(p, "udp"))
		return IPPROTO_UDP;
	if (!strcmp(p, "tcp"))
		return IPPROTO_TCP;
	if (!strcmp(p, "icmp"))
		return IPPROTO_ICMP;
	if (!strcmp(p, "icmpv6"))
		return IPPROTO_ICMPV6;
	return atoi(p);
}
