// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show queues, watermark: SONiC-style queue counters and watermarks */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/*
 * show queues and show queue counters (SONiC's name): one table, per port
 * and class, of what went through the queue, what it dropped and marked,
 * and how long the peer's PFC kept it paused; `show queues` adds the WRED
 * profile.
 */
static int queue_table(int profile)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	int st_fd = ctl_open_map(XFAB_MAP_QUEUE_STATS), cfg_fd = ctl_open_map(XFAB_MAP_QUEUE_CFG);
	/* paused time: zero where the pins have no pfc_queue */
	int pq_fd = xfab_open_pinned_map(ctl_pin_dir, XFAB_MAP_PFC_QUEUE);
	char name[IF_NAMESIZE];

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s %4s %12s %14s %10s %12s %12s%s\n", "Port", "TxQ", "Counter/pkts",
		       "Counter/bytes", "Drop/pkts", "ECN marked", "Paused(ms)",
		       profile ? "  Profile (Kmin/Kmax/Pmax)" : "");
	for (size_t i = 0; i < n; i++) {
		ctl_port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			__u32 key = XFAB_QUEUE_KEY((__u32)ports[i].slot, tc);
			struct xfab_queue_stats st;
			struct xfab_queue_cfg qc = {0};
			struct xfab_pfc_queue pq = {0};
			char prof[64] = "-";

			if (xfab_percpu_sum(st_fd, key, (__u64 *)&st, 4))
				memset(&st, 0, sizeof(st));
			bpf_map_lookup_elem(cfg_fd, &key, &qc);
			if (pq_fd >= 0)
				bpf_map_lookup_elem(pq_fd, &key, &pq);
			if (qc.flags & XFAB_WRED_ENABLED)
				snprintf(prof, sizeof(prof), "%u/%u/%.1f%%%s", qc.kmin_bytes,
					 qc.kmax_bytes, qc.pmax / 42949672.96,
					 qc.flags & XFAB_WRED_ECN ? " ecn" : "");
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string("port", name);
				ctl_jw_uint("tc", tc);
				ctl_jw_uint("packets", st.packets);
				ctl_jw_uint("bytes", st.bytes);
				ctl_jw_uint("dropped", st.dropped);
				ctl_jw_uint("ecn_marked", st.ecn_marked);
				ctl_jw_uint("paused_ns", pq.paused_ns);
				ctl_jw_uint("pauses", pq.pauses);
				ctl_jw_bool("paused", pq.gated);
				ctl_jw_uint("rate_kbps", qc.rate_kbps);
				ctl_jw_uint("buffer_bytes", qc.buffer_bytes);
				ctl_jw_bool("wred", qc.flags & XFAB_WRED_ENABLED);
				ctl_jw_close('}');
			} else {
				printf("%-10s  UC%u %12llu %14llu %10llu %12llu %12.3f%s%s\n", name,
				       tc, (unsigned long long)st.packets,
				       (unsigned long long)st.bytes, (unsigned long long)st.dropped,
				       (unsigned long long)st.ecn_marked, pq.paused_ns / 1e6,
				       profile ? "  " : "", profile ? prof : "");
			}
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

static int show_queues(void)
{
	return queue_table(1);
}

static int show_queue_counters(void)
{
	return queue_table(0);
}

static int show_watermark(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	int fd = ctl_open_map(XFAB_MAP_QUEUE_WATERMARK);
	char name[IF_NAMESIZE];

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s %4s %14s %14s\n", "Port", "TxQ", "Current(B)", "Peak(B)");
	for (size_t i = 0; i < n; i++) {
		ctl_port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			__u32 key = XFAB_QUEUE_KEY((__u32)ports[i].slot, tc);
			struct xfab_queue_watermark wm = {0};

			bpf_map_lookup_elem(fd, &key, &wm);
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string("port", name);
				ctl_jw_uint("tc", tc);
				ctl_jw_uint("current_bytes", wm.current_bytes);
				ctl_jw_uint("peak_bytes", wm.peak_bytes);
				ctl_jw_close('}');
			} else {
				printf("%-10s  UC%u %14llu %14llu\n", name, tc,
				       (unsigned long long)wm.current_bytes,
				       (unsigned long long)wm.peak_bytes);
			}
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

static const struct ctl_cmd show_queue_cmds[] = {
    {"counters", NULL, show_queue_counters, NULL,
     "per queue: packets, bytes, drops, ECN marks, time paused by PFC"},
    {NULL},
};

CTL_SHOW(show_queues_obj, "qos", 140, "queues", .view = show_queues,
	 .help = "per port and class: packets, bytes, drops, ECN marks, profile")
CTL_SHOW(show_watermark_obj, "qos", 150, "watermark", .view = show_watermark,
	 .help = "per port and class: current and peak queue occupancy")
CTL_SHOW(show_queue_obj, "qos", 160, "queue", .sub = show_queue_cmds,
	 .help = "queue counters (SONiC's name)")
