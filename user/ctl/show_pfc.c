// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * show pfc counters|status, show pfcwd config|stats: the lossless classes
 * as SONiC's `show pfc` and `show pfcwd` print them (docs/DEBUGGING.md).
 * The figures come from pfc_cfg (xfabd), pfc_state (the data plane: pause
 * received, PG occupancy) and pfc_queue (xfabd: gates, pause sent, the
 * watchdog), all keyed XFAB_QUEUE_KEY(slot, priority).
 */
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "opts.h"
#include "pfcwd.h"

/* One port's PFC records, zero where a map holds nothing. */
struct pfc_view {
	struct xfab_pfc_cfg cfg;
	struct xfab_pfc_state st[XFAB_NUM_PRIO];
	struct xfab_pfc_queue q[XFAB_NUM_PRIO];
};

static void load_pfc(__u32 slot, struct pfc_view *v)
{
	static int cfg_fd = -1, st_fd = -1, q_fd = -1;

	if (cfg_fd < 0) {
		cfg_fd = ctl_open_map(XFAB_MAP_PFC_CFG);
		st_fd = ctl_open_map(XFAB_MAP_PFC_STATE);
		q_fd = ctl_open_map(XFAB_MAP_PFC_QUEUE);
	}
	memset(v, 0, sizeof(*v));
	bpf_map_lookup_elem(cfg_fd, &slot, &v->cfg);
	for (__u32 prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		__u32 key = XFAB_QUEUE_KEY(slot, prio);

		bpf_map_lookup_elem(st_fd, &key, &v->st[prio]);
		bpf_map_lookup_elem(q_fd, &key, &v->q[prio]);
	}
}

/* "3,4" for a priority mask; "N/A" for none (SONiC's word). */
static const char *prio_list(__u8 mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
		if (mask & (1u << prio))
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", prio);
	if (!off)
		snprintf(buf, len, "N/A");
	return buf;
}

static void prio_array(const char *k, __u8 mask)
{
	ctl_jw_open(k, '[');
	for (__u32 prio = 0; prio < XFAB_NUM_PRIO; prio++)
		if (mask & (1u << prio))
			ctl_jw_uint(NULL, prio);
	ctl_jw_close(']');
}

/* ---- show pfc counters ---- */

static void counters_table(const struct xfab_port *ports, size_t n, int tx)
{
	char name[IF_NAMESIZE];
	struct pfc_view v;

	printf("%10s", tx ? "Port Tx" : "Port Rx");
	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		char head[8];

		snprintf(head, sizeof(head), "PFC%d", prio);
		printf("  %8s", head);
	}
	printf("\n----------");
	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
		printf("  --------");
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		load_pfc(ports[i].slot, &v);
		printf("%10s", ctl_port_name(ports[i].ifindex, name));
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
			printf("  %8llu", (unsigned long long)(tx ? v.q[prio].tx_frames
								  : v.st[prio].rx_frames));
		printf("\n");
	}
}

static int show_pfc_counters(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	char name[IF_NAMESIZE];
	struct pfc_view v;

	if (!ctl_json) {
		counters_table(ports, n, 0);
		printf("\n");
		counters_table(ports, n, 1);
		return 0;
	}
	ctl_jw_open(NULL, '[');
	for (size_t i = 0; i < n; i++) {
		load_pfc(ports[i].slot, &v);
		ctl_jw_open(NULL, '{');
		ctl_jw_string("port", ctl_port_name(ports[i].ifindex, name));
#define PER_PRIO(key, expr)                                                                        \
	do {                                                                                       \
		ctl_jw_open(key, '[');                                                             \
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)                                   \
			ctl_jw_uint(NULL, (expr));                                                 \
		ctl_jw_close(']');                                                                 \
	} while (0)
		PER_PRIO("rx", v.st[prio].rx_frames);
		PER_PRIO("tx", v.q[prio].tx_frames);
		PER_PRIO("rx_xon", v.st[prio].rx_xon);
		PER_PRIO("tx_xon", v.q[prio].tx_xon);
		PER_PRIO("rx_ignored", v.st[prio].rx_ignored);
#undef PER_PRIO
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
	return 0;
}

/* ---- show pfc status ---- */

/* Egress queue prio is paused now: the peer's pause has not run out, or
 * xfabd's gate is still closed. */
static int queue_paused(const struct pfc_view *v, int prio, __u64 now)
{
	return v->st[prio].paused_until_ns > now || v->q[prio].gated;
}

static int show_pfc_status(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	char name[IF_NAMESIZE], lossless[32], paused[32], xoff[32];
	struct pfc_view v;

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s  %-19s  %-8s  %-8s  %s\n%s\n", "Interface", "Lossless priorities",
		       "Paused", "XOFF", "Speed(Mbps)",
		       "----------  -------------------  --------  --------  -----------");
	for (size_t i = 0; i < n; i++) {
		__u64 now = xfab_mono_ns();
		__u8 paused_mask = 0, xoff_mask = 0;

		load_pfc(ports[i].slot, &v);
		ctl_port_name(ports[i].ifindex, name);
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			if (!(v.cfg.enabled & (1u << prio)))
				continue;
			if (queue_paused(&v, prio, now))
				paused_mask |= (__u8)(1u << prio);
			if (v.st[prio].xoff)
				xoff_mask |= (__u8)(1u << prio);
		}
		if (!ctl_json) {
			printf("%-10s  %-19s  %-8s  %-8s  %u\n", name,
			       prio_list(v.cfg.enabled, lossless, sizeof(lossless)),
			       paused_mask ? prio_list(paused_mask, paused, sizeof(paused)) : "-",
			       xoff_mask ? prio_list(xoff_mask, xoff, sizeof(xoff)) : "-",
			       v.cfg.speed_mbps);
			continue;
		}
		ctl_jw_open(NULL, '{');
		ctl_jw_string("port", name);
		prio_array("lossless_priorities", v.cfg.enabled);
		ctl_jw_uint("speed_mbps", v.cfg.speed_mbps);
		ctl_jw_open("priorities", '[');
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			const struct xfab_pfc_state *st = &v.st[prio];

			if (!(v.cfg.enabled & (1u << prio)))
				continue;
			ctl_jw_open(NULL, '{');
			ctl_jw_uint("priority", (unsigned)prio);
			ctl_jw_bool("paused", paused_mask & (1u << prio));
			ctl_jw_bool("gated", v.q[prio].gated);
			ctl_jw_uint("pause_left_ns",
				    st->paused_until_ns > now ? st->paused_until_ns - now : 0);
			ctl_jw_bool("xoff", st->xoff);
			ctl_jw_uint("xoff_bytes", v.cfg.xoff_bytes[prio]);
			ctl_jw_uint("xon_bytes", v.cfg.xon_bytes[prio]);
			ctl_jw_uint("occupancy_bytes", st->occupancy_bytes);
			ctl_jw_uint("peak_occupancy_bytes", st->peak_occupancy_bytes);
			ctl_jw_bool("stormed", v.q[prio].stormed);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		ctl_jw_close('}');
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

/* ---- show pfcwd config|stats ---- */

/* The port's watchdog: its first watched queue (xfabd sets them all
 * alike), or -1 when none is watched. */
static int wd_queue(const struct pfc_view *v, __u8 *mask)
{
	int first = -1;

	*mask = 0;
	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		if (v->q[prio].wd_action == XFAB_PFCWD_OFF)
			continue;
		*mask |= (__u8)(1u << prio);
		if (first < 0)
			first = prio;
	}
	return first;
}

static int show_pfcwd_config(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	char name[IF_NAMESIZE], restore[16];
	struct pfc_view v;
	__u32 poll = 0;
	__u8 mask;

	/* the poll interval is global: any watched queue has it */
	for (size_t i = 0; i < n && !poll; i++) {
		int prio;

		load_pfc(ports[i].slot, &v);
		prio = wd_queue(&v, &mask);
		if (prio >= 0)
			poll = v.q[prio].wd_poll_ms;
	}
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_uint("poll_interval_ms", poll);
		ctl_jw_open("ports", '[');
	} else {
		if (poll)
			printf("Changed polling interval to %ums\n", poll);
		printf("%10s  %8s  %16s  %18s\n%s\n", "PORT", "ACTION", "DETECTION TIME",
		       "RESTORATION TIME",
		       "----------  --------  ----------------  ------------------");
	}
	for (size_t i = 0; i < n; i++) {
		const struct xfab_pfc_queue *q;
		int prio;

		load_pfc(ports[i].slot, &v);
		prio = wd_queue(&v, &mask);
		if (prio < 0)
			continue; /* SONiC lists only the ports with a watchdog */
		q = &v.q[prio];
		ctl_port_name(ports[i].ifindex, name);
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("port", name);
			ctl_jw_string("action", xfab_pfcwd_action_name(q->wd_action));
			ctl_jw_uint("detection_time_ms", q->wd_detection_ms);
			ctl_jw_uint("restoration_time_ms", q->wd_restoration_ms);
			prio_array("priorities", mask);
			ctl_jw_close('}');
			continue;
		}
		if (q->wd_restoration_ms)
			snprintf(restore, sizeof(restore), "%u", q->wd_restoration_ms);
		else
			snprintf(restore, sizeof(restore), "infinite");
		printf("%10s  %8s  %16u  %18s\n", name, xfab_pfcwd_action_name(q->wd_action),
		       q->wd_detection_ms, restore);
	}
	if (ctl_json) {
		ctl_jw_close(']');
		ctl_jw_close('}');
	}
	return 0;
}

/* SONiC's pairs: STORM DETECTED/RESTORED, TX OK/DROP, RX OK/DROP, then the
 * same for the last storm. */
#define WD_PAIRS 5
static void wd_pairs(const struct xfab_pfc_queue *q, __u64 p[WD_PAIRS][2])
{
	const __u64 v[WD_PAIRS][2] = {
	    {q->storms_detected, q->storms_restored},
	    {q->wd_tx_ok, q->wd_tx_drop},
	    {q->wd_rx_ok, q->wd_rx_drop},
	    {q->wd_tx_ok_last, q->wd_tx_drop_last},
	    {q->wd_rx_ok_last, q->wd_rx_drop_last},
	};

	memcpy(p, v, sizeof(v));
}

static int show_pfcwd_stats(const struct ctl_opts *o)
{
	static const char *const heads[] = {"STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP",
					    "TX LAST OK/DROP", "RX LAST OK/DROP"};
	static const char *const keys[][2] = {
	    {"storm_detected", "storm_restored"},
	    {"tx_ok", "tx_drop"},
	    {"rx_ok", "rx_drop"},
	    {"tx_last_ok", "tx_last_drop"},
	    {"rx_last_ok", "rx_last_drop"},
	};
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports);
	char name[IF_NAMESIZE], queue[IF_NAMESIZE + 4], cell[48];
	struct pfc_view v;
	int stormed = 0;

	if (ctl_json) {
		ctl_jw_open(NULL, '[');
	} else {
		printf("%12s  %11s", "QUEUE", "STATUS");
		for (size_t c = 0; c < WD_PAIRS; c++)
			printf("  %*s", (int)strlen(heads[c]), heads[c]);
		printf("\n------------  -----------");
		for (size_t c = 0; c < WD_PAIRS; c++)
			printf("  %.*s", (int)strlen(heads[c]), "-----------------------");
		printf("\n");
	}
	for (size_t i = 0; i < n; i++) {
		load_pfc(ports[i].slot, &v);
		ctl_port_name(ports[i].ifindex, name);
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			const struct xfab_pfc_queue *q = &v.q[prio];
			__u64 p[WD_PAIRS][2] = {0};
			int any = 0;

			wd_pairs(q, p);
			for (size_t c = 0; c < WD_PAIRS; c++)
				any |= p[c][0] || p[c][1];
			if (q->stormed)
				stormed = 1;
			/* SONiC: the watched queues, those whose counters are
			 * all zero only with --empty */
			if (!(any || q->stormed || (o->empty && q->wd_action != XFAB_PFCWD_OFF)))
				continue;
			snprintf(queue, sizeof(queue), "%s:%d", name, prio);
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string("queue", queue);
				ctl_jw_string("port", name);
				ctl_jw_uint("priority", (unsigned)prio);
				ctl_jw_string("status", q->stormed ? "stormed" : "operational");
				ctl_jw_string("action", xfab_pfcwd_action_name(q->wd_action));
				for (size_t c = 0; c < WD_PAIRS; c++) {
					ctl_jw_uint(keys[c][0], p[c][0]);
					ctl_jw_uint(keys[c][1], p[c][1]);
				}
				ctl_jw_close('}');
				continue;
			}
			printf("%12s  %11s", queue, q->stormed ? "stormed" : "operational");
			for (size_t c = 0; c < WD_PAIRS; c++) {
				snprintf(cell, sizeof(cell), "%llu/%llu",
					 (unsigned long long)p[c][0], (unsigned long long)p[c][1]);
				printf("  %*s", (int)strlen(heads[c]), cell);
			}
			printf("\n");
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return o->check_storm && stormed ? 1 : 0;
}

static const struct ctl_cmd show_pfc_cmds[] = {
    {"counters", NULL, show_pfc_counters, NULL, "PFC frames received and sent, per priority"},
    {"status", NULL, show_pfc_status, NULL,
     "lossless priorities; which are paused now, which PGs asked for XOFF"},
    {NULL},
};

static const struct xfab_opt show_pfcwd_stats_opts[] = {
    XFAB_OPT_FLAG("empty", 0, ctl_given.empty, "the watched queues with nothing counted too"),
    XFAB_OPT_FLAG("check-storm", 0, ctl_given.check_storm, "exit 1 if a queue is stormed"),
    XFAB_OPT_END,
};

static const struct ctl_cmd show_pfcwd_cmds[] = {
    {"config", NULL, show_pfcwd_config, NULL,
     "per port: action, detection and restoration time; the poll interval"},
    {"stats", NULL, NULL, show_pfcwd_stats,
     "per watched queue: status, storms, packets passed and dropped [--empty] "
     "[--check-storm: exit 1 if one is stormed]",
     .opts = show_pfcwd_stats_opts, .args = "[--empty] [--check-storm]"},
    {NULL},
};

CTL_SHOW(show_pfc_obj, "pfc", 180, "pfc", .sub = show_pfc_cmds,
	 .help = "PFC (lossless classes): counters | status")
CTL_SHOW(show_pfcwd_obj, "pfcwd", 190, "pfcwd", .sub = show_pfcwd_cmds,
	 .help = "the PFC watchdog: config | stats")
