// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fabric report: every switch's counters, read from its pinned maps as
 * `show counters`, `show queues`, `show pfc counters` and `show drops` read
 * them (per-CPU counters summed), into one snapshot. A switch's pins are
 * named by fabric.json; maps need no network namespace.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "ctl.h"
#include "fabdoctor.h"
#include "fabric_report.h"

/* The port table: which slot and ifindex each of the fabric's ports has. */
static int read_ports(const struct xfab_fab_switch *sw, int fd, struct fab_port_map *pm)
{
	size_t n;
	__u32 *keys = ctl_map_keys(fd, sizeof(__u32), &n);

	memset(pm, 0, sizeof(*pm));
	for (size_t i = 0; i < n; i++) {
		struct xfab_port port;
		int p;

		if (bpf_map_lookup_elem(fd, &keys[i], &port) || !port.ifindex)
			continue;
		port.name[sizeof(port.name) - 1] = '\0';
		p = xfab_fab_port_find(sw, port.name);
		if (p < 0 || port.slot >= XFAB_MAX_PORTS)
			continue; /* not a fabric port (none is, in a lab) */
		pm->port[p].found = 1;
		pm->port[p].ifindex = port.ifindex;
		pm->port[p].slot = port.slot;
		memcpy(pm->port[p].mac, port.mac, 6);
	}
	free(keys);
	return 0;
}

/* fds of one switch's maps: required ones, and PFC's (absent: zeros) */
struct sw_maps {
	int ports, port_stats, queue_stats, drop_stats, pfc_state, pfc_queue;
};

static void close_maps(struct sw_maps *m)
{
	int *fds[] = {&m->ports,      &m->port_stats, &m->queue_stats,
		      &m->drop_stats, &m->pfc_state,  &m->pfc_queue};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
}

static int open_maps(const struct xfab_fab_switch *sw, struct sw_maps *m, char *err, size_t errlen)
{
	static const char *const required[] = {XFAB_MAP_PORTS, XFAB_MAP_PORT_STATS,
					       XFAB_MAP_QUEUE_STATS, XFAB_MAP_DROP_STATS};
	int *fds[] = {&m->ports, &m->port_stats, &m->queue_stats, &m->drop_stats};
	struct stat st;
	char msg[512];
	int rc;

	m->ports = m->port_stats = m->queue_stats = m->drop_stats = -1;
	m->pfc_state = m->pfc_queue = -1;
	if (stat(sw->pins, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "switch %s: no pins at %s (is the lab up and its xfabd started?)",
			 sw->name, sw->pins);
		return -1;
	}
	rc = xfab_abi_check(sw->pins, "xfabctl", msg, sizeof(msg));
	if (rc == -EPROTO || rc == -ENOENT) {
		snprintf(err, errlen, "switch %s: %s", sw->name,
			 rc == -ENOENT ? "nothing pinned (is its xfabd started?)" : msg);
		return -1;
	}
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		*fds[i] = xfab_open_pinned_map(sw->pins, required[i]);
		if (*fds[i] < 0) {
			snprintf(err, errlen, "switch %s: cannot open %s/%s: %s", sw->name,
				 sw->pins, required[i], strerror(-*fds[i]));
			*fds[i] = -1;
			close_maps(m);
			return -1;
		}
	}
	m->pfc_state = xfab_open_pinned_map(sw->pins, XFAB_MAP_PFC_STATE);
	m->pfc_queue = xfab_open_pinned_map(sw->pins, XFAB_MAP_PFC_QUEUE);
	m->pfc_state = m->pfc_state < 0 ? -1 : m->pfc_state;
	m->pfc_queue = m->pfc_queue < 0 ? -1 : m->pfc_queue;
	return 0;
}

static void read_port(const struct sw_maps *m, __u32 slot, struct xfab_fab_port_ctr *c)
{
	struct xfab_port_stats ps;

	if (xfab_percpu_sum(m->port_stats, slot, (__u64 *)&ps, sizeof(ps) / 8) == 0) {
		c->rx_packets = ps.rx_packets;
		c->rx_bytes = ps.rx_bytes;
		c->tx_packets = ps.tx_packets;
		c->tx_bytes = ps.tx_bytes;
		c->drops = ps.drops;
		c->punts = ps.punts;
	}
	for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
		__u32 key = XFAB_QUEUE_KEY(slot, tc);
		struct xfab_queue_stats qs;
		struct xfab_pfc_state pst;
		struct xfab_pfc_queue pq;

		if (xfab_percpu_sum(m->queue_stats, key, (__u64 *)&qs, sizeof(qs) / 8) == 0) {
			c->q_packets[tc] = qs.packets;
			c->q_bytes[tc] = qs.bytes;
			c->ecn_marked[tc] = qs.ecn_marked;
			c->q_dropped[tc] = qs.dropped;
		}
		if (m->pfc_state >= 0 && bpf_map_lookup_elem(m->pfc_state, &key, &pst) == 0)
			c->pfc_rx[tc] = pst.rx_frames;
		if (m->pfc_queue >= 0 && bpf_map_lookup_elem(m->pfc_queue, &key, &pq) == 0) {
			c->pfc_tx[tc] = pq.tx_frames;
			c->paused_ns[tc] = pq.paused_ns;
			c->pauses[tc] = pq.pauses;
		}
	}
}

int ctl_fab_collect(const struct xfab_fabric *f, struct fab_port_map *pm, struct xfab_fab_snap *s,
		    char *err, size_t errlen)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->time = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	for (unsigned int i = 0; i < f->n_switches; i++) {
		const struct xfab_fab_switch *sw = &f->switches[i];
		struct xfab_fab_sw_ctr *c = &s->sw[i];
		struct sw_maps m;

		if (open_maps(sw, &m, err, errlen))
			return -1;
		read_ports(sw, m.ports, &pm[i]);
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			c->in_table[p] = (unsigned char)pm[i].port[p].found;
			if (pm[i].port[p].found)
				read_port(&m, pm[i].port[p].slot, &c->ports[p]);
		}
		for (__u32 r = 1; r < XFAB_DROP_MAX; r++) {
			struct xfab_reason_stats rs;

			if (xfab_percpu_sum(m.drop_stats, r, (__u64 *)&rs, 2) == 0) {
				c->drop_packets[r] = rs.packets;
				c->drop_bytes[r] = rs.bytes;
			}
		}
		close_maps(&m);
	}
	return 0;
}

/* ---- a link's two ends, read in an order (ctl_fab_collect_links) ---- */

/* Between the closing's tx and rx reads: what was sent by then has landed
 * (a veth's ring, the receiver's softirq on a busy box), the frames sent
 * meanwhile can only hide loss, never make it. What they hide is as many
 * frames as the link carries in this time, so it stays short; a frame that
 * takes longer (a loaded box) can look lost: the rule's low end
 * (fabdoctor.c) keeps a few such from naming a busy link. */
#define DOC_SETTLE_NS 10000000L

struct link_fds {
	int stats, watermark; /* watermark -1: none (a switch without queues) */
};

/* One port's counters now. */
static void read_end(const struct link_fds *fd, const struct fab_port_map *pm, int sw, int port,
		     struct xfab_port_stats *ps)
{
	memset(ps, 0, sizeof(*ps));
	xfab_percpu_sum(fd->stats, pm[sw].port[port].slot, (__u64 *)ps, sizeof(*ps) / 8);
}

/* The bytes queued at a port's egress now, every class (xfab's occupancy
 * as the last packet saw it: bpf/qos.h). */
static uint64_t read_queued(const struct link_fds *fd, const struct fab_port_map *pm, int sw,
			    int port)
{
	uint64_t sum = 0;

	if (fd->watermark < 0)
		return 0;
	for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
		__u32 key = XFAB_QUEUE_KEY(pm[sw].port[port].slot, tc);
		struct xfab_queue_watermark wm;

		if (bpf_map_lookup_elem(fd->watermark, &key, &wm) == 0)
			sum += wm.current_bytes;
	}
	return sum;
}

static void take_rx(struct xfab_fab_port_ctr *c, const struct xfab_port_stats *ps)
{
	c->rx_packets = ps->rx_packets;
	c->rx_bytes = ps->rx_bytes;
	c->drops = ps->drops;
	c->punts = ps->punts;
}

static void take_tx(struct xfab_fab_port_ctr *c, const struct xfab_port_stats *ps)
{
	c->tx_packets = ps->tx_packets;
	c->tx_bytes = ps->tx_bytes;
}

/*
 * The opening: three reads per link, ends a (lower) and b (upper): b (its
 * rx), a (tx and rx), b (its tx): each end's rx before the other end's tx,
 * microseconds apart.
 */
static void open_link(const struct link_fds *fds, const struct fab_port_map *pm,
		      const struct xfab_fab_link *ln, struct xfab_fab_snap *s)
{
	int la = ln->lower, pa = ln->lower_port, lb = ln->upper, pb = ln->upper_port;
	struct xfab_fab_port_ctr *a = &s->sw[la].ports[pa], *b = &s->sw[lb].ports[pb];
	struct xfab_port_stats ps;

	read_end(&fds[lb], pm, lb, pb, &ps);
	take_rx(b, &ps);
	read_end(&fds[la], pm, la, pa, &ps);
	take_tx(a, &ps);
	take_rx(a, &ps);
	read_end(&fds[lb], pm, lb, pb, &ps);
	take_tx(b, &ps);
}

/* The closing, tx first: both ends' tx, and what each has queued right
 * after; the rx pass comes DOC_SETTLE_NS later (ctl_fab_collect_links). */
static void close_link_tx(const struct link_fds *fds, const struct fab_port_map *pm,
			  const struct xfab_fab_link *ln, struct xfab_fab_snap *s, uint64_t *queued)
{
	int ends[2][2] = {{ln->lower, ln->lower_port}, {ln->upper, ln->upper_port}};
	struct xfab_port_stats ps;

	for (int e = 0; e < 2; e++) {
		int sw = ends[e][0], p = ends[e][1];

		read_end(&fds[sw], pm, sw, p, &ps);
		take_tx(&s->sw[sw].ports[p], &ps);
		XFAB_DOC_QUEUED(queued, sw, p) = read_queued(&fds[sw], pm, sw, p);
	}
}

static void close_link_rx(const struct link_fds *fds, const struct fab_port_map *pm,
			  const struct xfab_fab_link *ln, struct xfab_fab_snap *s)
{
	int ends[2][2] = {{ln->lower, ln->lower_port}, {ln->upper, ln->upper_port}};
	struct xfab_port_stats ps;

	for (int e = 0; e < 2; e++) {
		read_end(&fds[ends[e][0]], pm, ends[e][0], ends[e][1], &ps);
		take_rx(&s->sw[ends[e][0]].ports[ends[e][1]], &ps);
	}
}

static int link_counted(const struct fab_port_map *pm, const struct xfab_fab_link *ln)
{
	return ln->lower >= 0 && pm[ln->lower].port[ln->lower_port].found &&
	       pm[ln->upper].port[ln->upper_port].found;
}

int ctl_fab_collect_links(const struct xfab_fabric *f, const struct fab_port_map *pm,
			  struct xfab_fab_snap *s, uint64_t *queued, char *err, size_t errlen)
{
	struct link_fds *fds = calloc(f->n_switches ? f->n_switches : 1, sizeof(*fds));
	int rc = 0;

	if (!fds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < f->n_switches; i++)
		fds[i].stats = fds[i].watermark = -1;
	for (unsigned int i = 0; i < f->n_switches && !rc; i++) {
		fds[i].stats = xfab_open_pinned_map(f->switches[i].pins, XFAB_MAP_PORT_STATS);
		fds[i].watermark =
		    xfab_open_pinned_map(f->switches[i].pins, XFAB_MAP_QUEUE_WATERMARK);
		fds[i].watermark = fds[i].watermark < 0 ? -1 : fds[i].watermark;
		if (fds[i].stats < 0) {
			snprintf(err, errlen, "switch %s: cannot open %s/%s: %s",
				 f->switches[i].name, f->switches[i].pins, XFAB_MAP_PORT_STATS,
				 strerror(-fds[i].stats));
			rc = -1;
		}
	}
	for (unsigned int l = 0; l < f->n_links && !rc; l++)
		if (link_counted(pm, &f->links[l])) {
			if (queued)
				close_link_tx(fds, pm, &f->links[l], s, queued);
			else
				open_link(fds, pm, &f->links[l], s);
		}
	if (queued && !rc) {
		struct timespec settle = {0, DOC_SETTLE_NS};

		nanosleep(&settle, NULL);
		for (unsigned int l = 0; l < f->n_links; l++)
			if (link_counted(pm, &f->links[l]))
				close_link_rx(fds, pm, &f->links[l], s);
	}
	for (unsigned int i = 0; i < f->n_switches; i++) {
		if (fds[i].stats >= 0)
			close(fds[i].stats);
		if (fds[i].watermark >= 0)
			close(fds[i].watermark);
	}
	free(fds);
	return rc;
}
