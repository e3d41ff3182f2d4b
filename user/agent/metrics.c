// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "metrics.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

void agent_metrics_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The map's fd, or -1: no such map (its series read 0, or are left out). */
int agent_metrics_map_fd(const struct xfab_metrics_src *src, const char *map)
{
	return src->map_fd ? src->map_fd(src->map_arg, map) : -1;
}

int agent_metrics_obj_map_fd(void *obj, const char *map)
{
	return bpf_object__find_map_fd_by_name(obj, map);
}

/* One counter family per reason table (drops, punts). */
static void reasons(FILE *f, const char *sw, const char *name, const char *help, int fd, __u32 max,
		    const char *(*reason_name)(__u32))
{
	agent_metrics_family(f, name, "counter", help);
	for (__u32 r = 1; r < max; r++) {
		__u64 v[2] = {0};

		xfab_percpu_sum(fd, r, v, 2);
		fprintf(f, "%s{switch=\"%s\",reason=\"%s\"} %llu\n", name, sw, reason_name(r),
			(unsigned long long)v[0]);
	}
}

static void fib_status(FILE *f, const char *sw, struct xfab_fib_status *st)
{
	struct xfab_fib_status c;

	pthread_mutex_lock(&st->lock);
	c = *st;
	pthread_mutex_unlock(&st->lock);
	agent_metrics_family(f, "xfab_fib_sync_routes", "gauge",
			     "Kernel routes mirrored (FIB_SYNC), by whether they are programmed.");
	fprintf(f, "xfab_fib_sync_routes{switch=\"%s\",state=\"programmed\"} %llu\n", sw,
		c.routes - c.foreign - c.unresolved);
	fprintf(f, "xfab_fib_sync_routes{switch=\"%s\",state=\"foreign\"} %llu\n", sw, c.foreign);
	fprintf(f, "xfab_fib_sync_routes{switch=\"%s\",state=\"unresolved\"} %llu\n", sw,
		c.unresolved);
	agent_metrics_family(f, "xfab_fib_sync_nexthop_objects", "gauge",
			     "Kernel nexthop objects mirrored.");
	fprintf(f, "xfab_fib_sync_nexthop_objects{switch=\"%s\"} %llu\n", sw, c.nexthops);
	agent_metrics_family(
	    f, "xfab_fib_sync_messages_total", "counter",
	    "Route and nexthop messages read from the kernel, by what became of them.");
	fprintf(f, "xfab_fib_sync_messages_total{switch=\"%s\",result=\"applied\"} %llu\n", sw,
		c.events - c.skipped - c.refused - c.failed);
	fprintf(f, "xfab_fib_sync_messages_total{switch=\"%s\",result=\"skipped\"} %llu\n", sw,
		c.skipped);
	fprintf(f, "xfab_fib_sync_messages_total{switch=\"%s\",result=\"refused\"} %llu\n", sw,
		c.refused);
	fprintf(f, "xfab_fib_sync_messages_total{switch=\"%s\",result=\"failed\"} %llu\n", sw,
		c.failed);
	agent_metrics_family(f, "xfab_fib_sync_resyncs_total", "counter",
			     "Full resynchronisations after lost events (ENOBUFS).");
	fprintf(f, "xfab_fib_sync_resyncs_total{switch=\"%s\"} %llu\n", sw, c.resyncs);
	agent_metrics_family(f, "xfab_fib_sync_batches_total", "counter",
			     "Batches of events written to the data plane.");
	fprintf(f, "xfab_fib_sync_batches_total{switch=\"%s\"} %llu\n", sw, c.batches);
	agent_metrics_family(
	    f, "xfab_fib_sync_lag_seconds", "gauge",
	    "From reading a batch's first event to its data-plane write: the last batch.");
	fprintf(f, "xfab_fib_sync_lag_seconds{switch=\"%s\"} %.6f\n", sw, c.lag_last_s);
	agent_metrics_family(f, "xfab_fib_sync_lag_max_seconds", "gauge",
			     "The same, the largest since xfabd started.");
	fprintf(f, "xfab_fib_sync_lag_max_seconds{switch=\"%s\"} %.6f\n", sw, c.lag_max_s);
}

/* The PFC series: per (port, priority), from pfc_state (data plane) and
 * pfc_queue (xfabd). */
enum pfc_src { PFC_STATE, PFC_QUEUE };
enum pfc_kind { PFC_U64, PFC_U32, PFC_U8, PFC_NS_AS_S };
static const struct {
	const char *name, *type, *help;
	enum pfc_src src;
	enum pfc_kind kind;
	size_t off;
} pfc_metrics[] = {
    {"xfab_pfc_rx_frames_total", "counter",
     "PFC and PAUSE frames received on the port naming the priority.", PFC_STATE, PFC_U64,
     offsetof(struct xfab_pfc_state, rx_frames)},
    {"xfab_pfc_rx_xon_total", "counter", "... of which XON (time 0).", PFC_STATE, PFC_U64,
     offsetof(struct xfab_pfc_state, rx_xon)},
    {"xfab_pfc_rx_ignored_total", "counter",
     "... naming the priority while it is not lossless or its queue is stormed.", PFC_STATE,
     PFC_U64, offsetof(struct xfab_pfc_state, rx_ignored)},
    {"xfab_pfc_tx_frames_total", "counter",
     "PFC frames sent out of the port naming the priority (XOFF, refreshes, XON).", PFC_QUEUE,
     PFC_U64, offsetof(struct xfab_pfc_queue, tx_frames)},
    {"xfab_pfc_tx_xon_total", "counter", "... of which XON.", PFC_QUEUE, PFC_U64,
     offsetof(struct xfab_pfc_queue, tx_xon)},
    {"xfab_pfc_paused_seconds_total", "counter",
     "Time the egress queue of the priority was paused by the peer.", PFC_QUEUE, PFC_NS_AS_S,
     offsetof(struct xfab_pfc_queue, paused_ns)},
    {"xfab_pfc_pauses_total", "counter", "Times the egress queue of the priority was paused.",
     PFC_QUEUE, PFC_U64, offsetof(struct xfab_pfc_queue, pauses)},
    {"xfab_pfc_paused", "gauge", "1 while the egress queue of the priority is paused.", PFC_QUEUE,
     PFC_U8, offsetof(struct xfab_pfc_queue, gated)},
    {"xfab_pfc_occupancy_bytes", "gauge",
     "Bytes in the priority group of the ingress port still queued (PFC accounting).", PFC_STATE,
     PFC_U64, offsetof(struct xfab_pfc_state, occupancy_bytes)},
    {"xfab_pfc_peak_occupancy_bytes", "gauge", "The largest such occupancy.", PFC_STATE, PFC_U64,
     offsetof(struct xfab_pfc_state, peak_occupancy_bytes)},
    {"xfab_pfc_xoff", "gauge", "1 while the priority group is above XOFF (peer asked to pause).",
     PFC_STATE, PFC_U32, offsetof(struct xfab_pfc_state, xoff)},
    {"xfab_pfcwd_storms_detected_total", "counter", "PFC storms the watchdog declared.", PFC_QUEUE,
     PFC_U64, offsetof(struct xfab_pfc_queue, storms_detected)},
    {"xfab_pfcwd_storms_restored_total", "counter", "PFC storms the watchdog restored.", PFC_QUEUE,
     PFC_U64, offsetof(struct xfab_pfc_queue, storms_restored)},
    {"xfab_pfcwd_stormed", "gauge", "1 while the watchdog holds the queue stormed.", PFC_QUEUE,
     PFC_U8, offsetof(struct xfab_pfc_queue, stormed)},
    {"xfab_pfcwd_tx_dropped_total", "counter",
     "Packets to the stormed queue the watchdog's drop action discarded.", PFC_STATE, PFC_U64,
     offsetof(struct xfab_pfc_state, wd_tx_dropped)},
    {"xfab_pfcwd_rx_dropped_total", "counter",
     "Packets into the stormed priority group the watchdog's drop action discarded.", PFC_STATE,
     PFC_U64, offsetof(struct xfab_pfc_state, wd_rx_dropped)},
};

static void pfc_series(const struct xfab_metrics_src *src, FILE *f)
{
	int fd_state = agent_metrics_map_fd(src, XFAB_MAP_PFC_STATE),
	    fd_queue = agent_metrics_map_fd(src, XFAB_MAP_PFC_QUEUE);

	for (size_t m = 0; m < sizeof(pfc_metrics) / sizeof(pfc_metrics[0]); m++) {
		agent_metrics_family(f, pfc_metrics[m].name, pfc_metrics[m].type,
				     pfc_metrics[m].help);
		for (int p = 0; p < src->n_ports; p++)
			for (__u32 prio = 0; prio < XFAB_NUM_PRIO; prio++) {
				__u32 key = XFAB_QUEUE_KEY((__u32)p, prio);
				struct xfab_pfc_state st = {0};
				struct xfab_pfc_queue q = {0};
				const char *rec;
				__u64 v;

				if (pfc_metrics[m].src == PFC_STATE) {
					bpf_map_lookup_elem(fd_state, &key, &st);
					rec = (const char *)&st;
				} else {
					bpf_map_lookup_elem(fd_queue, &key, &q);
					rec = (const char *)&q;
				}
				fprintf(f, "%s{switch=\"%s\",port=\"%s\",priority=\"%u\"} ",
					pfc_metrics[m].name, src->hostname, src->port_names[p],
					prio);
				switch (pfc_metrics[m].kind) {
				case PFC_U32: {
					__u32 w;

					memcpy(&w, rec + pfc_metrics[m].off, sizeof(w));
					fprintf(f, "%u\n", w);
					break;
				}
				case PFC_U8:
					fprintf(
					    f, "%u\n",
					    (unsigned)*(const __u8 *)(rec + pfc_metrics[m].off));
					break;
				case PFC_NS_AS_S:
					memcpy(&v, rec + pfc_metrics[m].off, sizeof(v));
					fprintf(f, "%.9f\n", v / 1e9);
					break;
				default:
					memcpy(&v, rec + pfc_metrics[m].off, sizeof(v));
					fprintf(f, "%llu\n", (unsigned long long)v);
				}
			}
	}
}

/* The overlay, per configured VNET (labels vnet and vni): what its VTEP
 * encapsulated and decapsulated, what it dropped (by reason) and punted. */
static void vnet_series(const struct xfab_metrics_src *src, FILE *f)
{
	static const struct {
		const char *name, *help;
	} m[] = {
	    {"xfab_vnet_encap_packets_total", "Tenant packets the VTEP sent into a tunnel."},
	    {"xfab_vnet_encap_bytes_total", "Their inner frames' bytes."},
	    {"xfab_vnet_decap_packets_total", "Tunnel packets the VTEP delivered to the tenant."},
	    {"xfab_vnet_decap_bytes_total", "Their inner frames' bytes."},
	    {"xfab_vnet_drops_total", "Tenant packets dropped (xfab_vnet_dropped_total: why)."},
	    {"xfab_vnet_punts_total", "Tenant packets handed to the kernel."},
	};
	struct xfab_vnet v[XFAB_MAX_VNETS];
	__u64 st[XFAB_MAX_VNETS][6] = {{0}};
	int have[XFAB_MAX_VNETS] = {0};
	int fd_vnets = agent_metrics_map_fd(src, XFAB_MAP_VNETS),
	    fd_stats = agent_metrics_map_fd(src, XFAB_MAP_VNET_STATS);
	int fd_drops = agent_metrics_map_fd(src, XFAB_MAP_VNET_DROPS);

	if (fd_vnets < 0 || fd_stats < 0 || fd_drops < 0)
		return;
	for (__u32 id = 1; id < XFAB_MAX_VNETS; id++) {
		have[id] = bpf_map_lookup_elem(fd_vnets, &id, &v[id]) == 0 &&
			   (v[id].flags & XFAB_VNET_VALID);
		if (have[id] && xfab_percpu_sum(fd_stats, id, st[id], 6))
			memset(st[id], 0, sizeof(st[id]));
	}
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		agent_metrics_family(f, m[k].name, "counter", m[k].help);
		for (__u32 id = 1; id < XFAB_MAX_VNETS; id++)
			if (have[id])
				fprintf(f, "%s{switch=\"%s\",vnet=\"%.15s\",vni=\"%u\"} %llu\n",
					m[k].name, src->hostname, v[id].name, v[id].vni,
					(unsigned long long)st[id][k]);
	}
	agent_metrics_family(f, "xfab_vnet_dropped_total", "counter",
			     "Tenant packets dropped, by reason.");
	for (__u32 id = 1; id < XFAB_MAX_VNETS; id++)
		for (__u32 r = 1; have[id] && r < XFAB_DROP_MAX; r++) {
			__u64 d[2] = {0};

			if (xfab_percpu_sum(fd_drops, XFAB_VNET_DROP_KEY(id, r), d, 2) || !d[0])
				continue;
			fprintf(f,
				"xfab_vnet_dropped_total{switch=\"%s\",vnet=\"%.15s\",vni=\"%u\","
				"reason=\"%s\"} %llu\n",
				src->hostname, v[id].name, v[id].vni, xfab_drop_name(r),
				(unsigned long long)d[0]);
		}
}

/* CoPP (docs/COPP.md): per group, its meter and what it admitted and
 * policed. */
static void copp_series(const struct xfab_metrics_src *src, FILE *f)
{
	struct xfab_copp_stats st[XFAB_COPP_GROUPS];
	struct xfab_copp_cfg cfg[XFAB_COPP_GROUPS];
	int fd_stats = agent_metrics_map_fd(src, XFAB_MAP_COPP_STATS),
	    fd_cfg = agent_metrics_map_fd(src, XFAB_MAP_COPP_CFG);
	const char *sw = src->hostname;

	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		if (fd_stats < 0 ||
		    xfab_percpu_sum(fd_stats, g, (__u64 *)&st[g], sizeof(st[g]) / 8))
			memset(&st[g], 0, sizeof(st[g]));
		if (fd_cfg < 0 || bpf_map_lookup_elem(fd_cfg, &g, &cfg[g]))
			memset(&cfg[g], 0, sizeof(cfg[g]));
	}
	agent_metrics_family(f, "xfab_copp_green_packets_total", "counter",
			     "Packets for the kernel its CoPP group admitted, by group.");
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		fprintf(f, "xfab_copp_green_packets_total{switch=\"%s\",group=\"%s\"} %llu\n", sw,
			xfab_copp_group_name(g), (unsigned long long)st[g].green_packets);
	agent_metrics_family(
	    f, "xfab_copp_red_packets_total", "counter",
	    "Packets for the kernel dropped over their CoPP group's rate (policed), by group.");
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		fprintf(f, "xfab_copp_red_packets_total{switch=\"%s\",group=\"%s\"} %llu\n", sw,
			xfab_copp_group_name(g), (unsigned long long)st[g].red_packets);
	agent_metrics_family(f, "xfab_copp_cir_packets_per_second", "gauge",
			     "A CoPP group's committed rate (0: not policed).");
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		fprintf(f, "xfab_copp_cir_packets_per_second{switch=\"%s\",group=\"%s\"} %u\n", sw,
			xfab_copp_group_name(g), cfg[g].cir);
	agent_metrics_family(f, "xfab_copp_cbs_packets", "gauge",
			     "A CoPP group's burst (bucket size).");
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		fprintf(f, "xfab_copp_cbs_packets{switch=\"%s\",group=\"%s\"} %u\n", sw,
			xfab_copp_group_name(g), cfg[g].cbs);
}

/* The ports' counters, and drops and punts by reason. */
static void device_series(const struct xfab_metrics_src *src, FILE *f)
{
	static const struct {
		const char *name, *help;
		int field; /* index into struct xfab_port_stats */
	} port_metrics[] = {
	    {"xfab_port_rx_packets_total", "Packets received on the port.", 0},
	    {"xfab_port_rx_bytes_total", "Bytes received on the port.", 1},
	    {"xfab_port_tx_packets_total", "Packets xfab forwarded out of the port.", 2},
	    {"xfab_port_tx_bytes_total", "Bytes xfab forwarded out of the port.", 3},
	    {"xfab_port_drops_total", "Packets dropped on ingress at the port.", 4},
	    {"xfab_port_punts_total", "Packets handed to the kernel at the port.", 5},
	};
	struct xfab_port_stats ps[XFAB_MAX_PORTS];
	int fd_ports = agent_metrics_map_fd(src, XFAB_MAP_PORT_STATS);
	const char *sw = src->hostname;

	for (int p = 0; p < src->n_ports; p++)
		if (xfab_percpu_sum(fd_ports, (__u32)p, (__u64 *)&ps[p], 6))
			memset(&ps[p], 0, sizeof(ps[p]));
	for (size_t m = 0; m < sizeof(port_metrics) / sizeof(port_metrics[0]); m++) {
		agent_metrics_family(f, port_metrics[m].name, "counter", port_metrics[m].help);
		for (int p = 0; p < src->n_ports; p++)
			fprintf(f, "%s{switch=\"%s\",port=\"%s\"} %llu\n", port_metrics[m].name, sw,
				src->port_names[p],
				(unsigned long long)((__u64 *)&ps[p])[port_metrics[m].field]);
	}
	reasons(f, sw, "xfab_drops_total", "Packets dropped, by reason.",
		agent_metrics_map_fd(src, XFAB_MAP_DROP_STATS), XFAB_DROP_MAX, xfab_drop_name);
	reasons(f, sw, "xfab_punts_total", "Packets handed to the kernel, by reason.",
		agent_metrics_map_fd(src, XFAB_MAP_PUNT_STATS), XFAB_PUNT_MAX, xfab_punt_name);
}

/* Per port and class: the queues' counters, occupancy and peak. */
static void queue_series(const struct xfab_metrics_src *src, FILE *f)
{
	static const struct {
		const char *name, *type, *help;
	} queue_metrics[] = {
	    {"xfab_queue_packets_total", "counter", "Packets through the queue."},
	    {"xfab_queue_bytes_total", "counter", "Bytes through the queue."},
	    {"xfab_queue_ecn_marked_total", "counter", "Packets the queue marked CE."},
	    {"xfab_queue_dropped_total", "counter", "Packets the queue dropped (tail, WRED)."},
	};
	int fd_stats = agent_metrics_map_fd(src, XFAB_MAP_QUEUE_STATS),
	    fd_wm = agent_metrics_map_fd(src, XFAB_MAP_QUEUE_WATERMARK);
	const char *sw = src->hostname;

	for (size_t m = 0; m < sizeof(queue_metrics) / sizeof(queue_metrics[0]); m++) {
		agent_metrics_family(f, queue_metrics[m].name, queue_metrics[m].type,
				     queue_metrics[m].help);
		for (int p = 0; p < src->n_ports; p++)
			for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
				struct xfab_queue_stats qs;

				if (xfab_percpu_sum(fd_stats, XFAB_QUEUE_KEY((__u32)p, tc),
						    (__u64 *)&qs, 4))
					memset(&qs, 0, sizeof(qs));
				fprintf(f, "%s{switch=\"%s\",port=\"%s\",tc=\"%u\"} %llu\n",
					queue_metrics[m].name, sw, src->port_names[p], tc,
					(unsigned long long)((__u64 *)&qs)[m]);
			}
	}
	/* each family's samples together after its HELP and TYPE (the text
	 * format's rule; a parser may take a second group for a new family) */
	for (int peak = 0; peak < 2; peak++) {
		const char *name =
		    peak ? "xfab_queue_watermark_bytes" : "xfab_queue_occupancy_bytes";

		agent_metrics_family(f, name, "gauge",
				     peak ? "Peak queue occupancy since cleared."
					  : "Queue occupancy last seen by a packet.");
		for (int p = 0; p < src->n_ports; p++)
			for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
				struct xfab_queue_watermark wm = {0};
				__u32 key = XFAB_QUEUE_KEY((__u32)p, tc);

				bpf_map_lookup_elem(fd_wm, &key, &wm);
				fprintf(
				    f, "%s{switch=\"%s\",port=\"%s\",tc=\"%u\"} %llu\n", name, sw,
				    src->port_names[p], tc,
				    (unsigned long long)(peak ? wm.peak_bytes : wm.current_bytes));
			}
	}
}

/* Load-balancing events: flowlets, path changes, TE. */
static void lb_series(const struct xfab_metrics_src *src, FILE *f)
{
	int fd = agent_metrics_map_fd(src, XFAB_MAP_LB_STATS);

	agent_metrics_family(f, "xfab_lb_events_total", "counter",
			     "Load-balancing events (flowlets, TE).");
	for (__u32 e = 0; e < XFAB_LB_MAX; e++) {
		__u64 v = 0;

		xfab_percpu_sum(fd, e, &v, 1);
		fprintf(f, "xfab_lb_events_total{switch=\"%s\",event=\"%s\"} %llu\n", src->hostname,
			xfab_lb_name(e), (unsigned long long)v);
	}
}

static void fib_series(const struct xfab_metrics_src *src, FILE *f)
{
	if (src->fib && src->fib->enabled)
		fib_status(f, src->hostname, src->fib);
}

/* Each feature's series, keyed by its name in the feature registry
 * (user/lib/feature.c; tests/unit/test_feature.c checks the names), in the
 * order the exposition has always had: first the writers of this file,
 * written in below, then those of features that keep their series in files
 * of their own (metrics_FEATURE.c), each appended by the constructor that
 * XFAB_METRICS_WRITER puts in its file, in link order. Such a file needs no
 * line here. Static initialisation is done before any constructor runs, so
 * an appended writer always comes after these. */
struct xfab_metrics_writer agent_metrics_writers[XFAB_METRICS_MAX_WRITERS + 1] = {
    {"device", device_series}, {"copp", copp_series}, {"qos", queue_series},
    {"ecmp", lb_series},       {"pfc", pfc_series},   {"overlay", vnet_series},
    {"fib-sync", fib_series},
};
int agent_metrics_register(const char *feature,
			   void (*write)(const struct xfab_metrics_src *src, FILE *f))
{
	int n = 0;

	while (n < XFAB_METRICS_MAX_WRITERS && agent_metrics_writers[n].feature)
		n++;
	/* the last slot stays {NULL}: the list's end */
	if (n >= XFAB_METRICS_MAX_WRITERS)
		return -1;
	agent_metrics_writers[n] = (struct xfab_metrics_writer){.feature = feature, .write = write};
	return 0;
}

void agent_metrics_write(const struct xfab_metrics_src *src, FILE *f)
{
	for (const struct xfab_metrics_writer *w = agent_metrics_writers; w->feature; w++)
		w->write(src, f);
}

struct server {
	int fd;
	const struct xfab_metrics_src *src;
};

static void serve(struct server *s, int conn)
{
	struct timeval tv = {.tv_sec = 2};
	char req[2048], *body = NULL;
	size_t body_len = 0;
	ssize_t n;
	FILE *mem;
	int ok;

	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = recv(conn, req, sizeof(req) - 1, 0);
	if (n <= 0)
		return;
	req[n] = '\0';
	ok = !strncmp(req, "GET /metrics", 12) || !strncmp(req, "GET / ", 6);
	mem = open_memstream(&body, &body_len);
	if (!mem)
		return;
	if (ok)
		agent_metrics_write(s->src, mem);
	else
		fputs("not found: GET /metrics\n", mem);
	fclose(mem);
	dprintf(conn,
		"HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
		"%zu\r\nConnection: close\r\n\r\n",
		ok ? "200 OK" : "404 Not Found", body_len);
	for (size_t off = 0; off < body_len;) {
		n = send(conn, body + off, body_len - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(body);
}

static void *server_main(void *arg)
{
	struct server *s = arg;

	for (;;) {
		int conn = accept(s->fd, NULL, NULL);

		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		serve(s, conn);
		close(conn);
	}
	return NULL;
}

int agent_metrics_start(const char *addr_port, const struct xfab_metrics_src *src)
{
	struct sockaddr_storage ss = {0};
	char host[128];
	const char *colon = strrchr(addr_port, ':');
	struct server *s;
	pthread_t tid;
	socklen_t len;
	int one = 1, port;
	size_t hl;

	if (!colon || colon == addr_port)
		return -EINVAL;
	hl = (size_t)(colon - addr_port);
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr_port, hl);
	host[hl] = '\0';
	port = atoi(colon + 1);
	if (port <= 0 || port > 65535)
		return -EINVAL;
	if (host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		host[hl - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
			return -EINVAL;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -EINVAL;
		len = sizeof(*s4);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->src = src;
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, 16))
		goto fail;
	if (pthread_create(&tid, NULL, server_main, s))
		goto fail;
	pthread_detach(tid);
	return 0;
fail : {
	int err = -errno;

	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return err ? err : -EIO;
}
}
