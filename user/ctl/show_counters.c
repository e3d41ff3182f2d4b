// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show counters, drops */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static int show_counters(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	int fd = ctl_open_map(XFAB_MAP_PORT_STATS);
	char name[IF_NAMESIZE];

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s %12s %14s %12s %14s %10s %10s\n", "Port", "RX_OK", "RX_BYTES",
		       "TX_OK", "TX_BYTES", "DROPS", "PUNTS");
	for (size_t i = 0; i < n; i++) {
		struct xfab_port_stats st;

		if (xfab_percpu_sum(fd, ports[i].slot, (__u64 *)&st, sizeof(st) / 8))
			memset(&st, 0, sizeof(st));
		ctl_port_name(ports[i].ifindex, name);
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("port", name);
			ctl_jw_uint("rx_packets", st.rx_packets);
			ctl_jw_uint("rx_bytes", st.rx_bytes);
			ctl_jw_uint("tx_packets", st.tx_packets);
			ctl_jw_uint("tx_bytes", st.tx_bytes);
			ctl_jw_uint("drops", st.drops);
			ctl_jw_uint("punts", st.punts);
			ctl_jw_close('}');
		} else {
			printf("%-10s %12llu %14llu %12llu %14llu %10llu %10llu\n", name,
			       (unsigned long long)st.rx_packets, (unsigned long long)st.rx_bytes,
			       (unsigned long long)st.tx_packets, (unsigned long long)st.tx_bytes,
			       (unsigned long long)st.drops, (unsigned long long)st.punts);
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

/* A by-reason map's counters, from reason `first` (a list's "none" is
 * skipped) to max. */
static void reasons(const char *title, const char *map, __u32 first, __u32 max,
		    const char *(*name)(__u32))
{
	int fd = ctl_open_map(map);

	if (ctl_json)
		ctl_jw_open(title, '[');
	else
		printf("%-20s %12s %14s\n", title, "PACKETS", "BYTES");
	for (__u32 r = first; r < max; r++) {
		struct xfab_reason_stats st;

		if (xfab_percpu_sum(fd, r, (__u64 *)&st, 2))
			memset(&st, 0, sizeof(st));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("reason", name(r));
			ctl_jw_uint("packets", st.packets);
			ctl_jw_uint("bytes", st.bytes);
			ctl_jw_close('}');
		} else {
			printf("%-20s %12llu %14llu\n", name(r), (unsigned long long)st.packets,
			       (unsigned long long)st.bytes);
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
}

static int show_drops(void)
{
	if (ctl_json)
		ctl_jw_open(NULL, '{');
	reasons("drops", XFAB_MAP_DROP_STATS, 1, XFAB_DROP_MAX, xfab_drop_name);
	if (!ctl_json)
		putchar('\n');
	reasons("punts", XFAB_MAP_PUNT_STATS, 1, XFAB_PUNT_MAX, xfab_punt_name);
	if (ctl_json)
		ctl_jw_close('}');
	return 0;
}

/* The xdp fast path's misses (bpf/fast.h): the packets it left to the
 * general pipeline, by the first reason met. */
static int show_fastpath(void)
{
	if (ctl_json)
		ctl_jw_open(NULL, '{');
	reasons("pipeline", XFAB_MAP_FAST_STATS, 0, XFAB_FAST_MISS_MAX, xfab_fast_miss_name);
	if (ctl_json)
		ctl_jw_close('}');
	return 0;
}

CTL_SHOW(show_counters_obj, "device", 20, "counters", .view = show_counters,
	 .help = "per-port packet and byte counters")
CTL_SHOW(show_drops_obj, "device", 30, "drops", .view = show_drops,
	 .help = "drop and punt counters by reason")
CTL_SHOW(show_fastpath_obj, "device", 31, "fastpath", .view = show_fastpath,
	 .help = "xdp packets the fast path left to the pipeline, by reason")
