// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* watch: per-second rates, refreshed */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

struct watch_row {
	char name[IF_NAMESIZE + 8];
	__u64 v[6];
};

/* Reads what `watch` shows: per port (counters) or per port and class. */
static size_t watch_read(int queues, struct watch_row *rows, size_t cap)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = ctl_load_ports(ports), out = 0;
	int fd = ctl_open_map(queues ? XFAB_MAP_QUEUE_STATS : XFAB_MAP_PORT_STATS);
	char name[IF_NAMESIZE];

	for (size_t i = 0; i < n; i++) {
		ctl_port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < (queues ? XFAB_NUM_TC : 1u) && out < cap; tc++) {
			struct watch_row *r = &rows[out++];

			memset(r, 0, sizeof(*r));
			if (queues) {
				snprintf(r->name, sizeof(r->name), "%s UC%u", name, tc);
				xfab_percpu_sum(fd, XFAB_QUEUE_KEY((__u32)ports[i].slot, tc), r->v,
						4);
			} else {
				snprintf(r->name, sizeof(r->name), "%s", name);
				xfab_percpu_sum(fd, ports[i].slot, r->v, 6);
			}
		}
	}
	return out;
}

static int cmd_watch(const char *what, double interval, long count)
{
	static struct watch_row a[XFAB_MAX_QUEUES], b[XFAB_MAX_QUEUES];
	int queues = !strcmp(what, "queues"), tty = isatty(STDOUT_FILENO);
	size_t n;

	if (!queues && strcmp(what, "counters")) {
		fprintf(stderr, "xfabctl watch: counters or queues\n");
		return 2;
	}
	if (interval < 0.1)
		interval = 1;
	watch_read(queues, a, (size_t)XFAB_MAX_QUEUES);
	for (long it = 0; count <= 0 || it < count; it++) {
		struct timespec ts = {(time_t)interval,
				      (long)((interval - (double)(time_t)interval) * 1e9)};

		nanosleep(&ts, NULL);
		n = watch_read(queues, b, (size_t)XFAB_MAX_QUEUES);
		if (tty && !ctl_json)
			printf("\033[H\033[2J");
		if (ctl_json) {
			ctl_jw_open(NULL, '[');
		} else if (queues) {
			printf("%-14s %12s %14s %10s %10s   (per second, every %.1f s)\n", "Queue",
			       "Pkts/s", "Bits/s", "Drops/s", "Marks/s", interval);
		} else {
			printf("%-10s %12s %14s %12s %14s %10s %10s   (per second, every %.1f s)\n",
			       "Port", "RX_PPS", "RX_BPS", "TX_PPS", "TX_BPS", "DROP/s", "PUNT/s",
			       interval);
		}
		for (size_t i = 0; i < n; i++) {
			double d[6];

			for (int k = 0; k < 6; k++)
				d[k] = (double)(b[i].v[k] - a[i].v[k]) / interval;
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string(queues ? "queue" : "port", b[i].name);
				if (queues) {
					ctl_jw_uint("packets_per_s", (__u64)d[0]);
					ctl_jw_uint("bits_per_s", (__u64)(d[1] * 8));
					ctl_jw_uint("ecn_marked_per_s", (__u64)d[2]);
					ctl_jw_uint("dropped_per_s", (__u64)d[3]);
				} else {
					ctl_jw_uint("rx_pps", (__u64)d[0]);
					ctl_jw_uint("rx_bps", (__u64)(d[1] * 8));
					ctl_jw_uint("tx_pps", (__u64)d[2]);
					ctl_jw_uint("tx_bps", (__u64)(d[3] * 8));
					ctl_jw_uint("drops_per_s", (__u64)d[4]);
					ctl_jw_uint("punts_per_s", (__u64)d[5]);
				}
				ctl_jw_close('}');
			} else if (queues) {
				printf("%-14s %12.0f %14.0f %10.0f %10.0f\n", b[i].name, d[0],
				       d[1] * 8, d[3], d[2]);
			} else {
				printf("%-10s %12.0f %14.0f %12.0f %14.0f %10.0f %10.0f\n",
				       b[i].name, d[0], d[1] * 8, d[2], d[3] * 8, d[4], d[5]);
			}
		}
		if (ctl_json) {
			ctl_jw_close(']');
			ctl_jw_end();
		}
		fflush(stdout);
		memcpy(a, b, sizeof(a[0]) * n);
	}
	return 0;
}

int ctl_watch_counters(const struct ctl_opts *o)
{
	return cmd_watch("counters", o->interval, o->count);
}

int ctl_watch_queues(const struct ctl_opts *o)
{
	return cmd_watch("queues", o->interval, o->count);
}
