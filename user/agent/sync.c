// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writing the tables: the config goes into the RIB (user/lib/rib.c) and
 * compile.c writes what changed through the batching map writer below; a
 * link or neighbour event goes straight to compile.c, which rewrites only
 * the port, nexthop and group entries that depend on it. An event that
 * cannot be applied alone marks the agent dirty, and the event loop
 * recompiles from the config (which writes only what differs).
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "common.h"
#include "mapbatch.h"
#include "xfab.skel.h"

/* ---- map writes ---- */

static int write_one(struct agent *a, enum xfab_table t, const void *key, const void *val)
{
	if (bpf_map_update_elem(a->map_fd[t], key, val, BPF_ANY)) {
		int err = -errno;

		log_err("update of map %s failed: %s", xfab_table_descs[t].map_name,
			strerror(errno));
		return err;
	}
	return 0;
}

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's "operation not supported" */
#endif

/* Writes the buffered deletes. */
static int flush_deletes(struct agent *a, struct batch *b, __u32 n)
{
	const struct xfab_table_desc *d = &xfab_table_descs[b->t];
	__u32 failed = 0;
	int err = xfab_map_delete_keys(a->map_fd[b->t], b->keys, n, d->key_size,
				       &b->del_unsupported, &failed);

	if (err)
		log_err("delete from map %s failed: %s", d->map_name, strerror(-err));
	return err;
}

/* Writes the buffered updates or deletes (of whichever table they belong
 * to). */
static int ops_flush(void *arg, enum xfab_table t)
{
	struct agent *a = arg;
	struct batch *b = &a->batch;
	const struct xfab_table_desc *d = &xfab_table_descs[b->t];
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	__u32 n = b->n, done = n;
	int err = 0;

	(void)t;
	if (!n)
		return 0;
	b->n = 0;
	if (b->del)
		return flush_deletes(a, b, n);
	if (!b->unsupported) {
		if (!bpf_map_update_batch(a->map_fd[b->t], b->keys, b->vals, &done, &opts))
			return 0;
		if (errno == EINVAL || errno == ENOTSUPP || errno == EOPNOTSUPP) {
			b->unsupported = 1;
			done = 0;
		}
	} else {
		done = 0;
	}
	/* Not batched, or stopped part way: the rest one by one (which also
	 * names the failing entry's error). */
	for (__u32 i = done; !err && i < n; i++)
		err = write_one(a, b->t, b->keys + (size_t)i * d->key_size,
				b->vals + (size_t)i * d->val_size);
	return err;
}

/* Room in the buffer for an entry of table t, as an update or a delete:
 * what is buffered for another table, or of the other kind, is written
 * first (so writes reach the map in the order they were made). */
static int batch_take(struct agent *a, enum xfab_table t, int del)
{
	struct batch *b = &a->batch;
	int err;

	if (!b->keys) {
		/* room for the bigger (IPv6) key of the two tables */
		size_t entry = sizeof(struct xfab_e_route_v6);

		b->keys = calloc(BATCH_MAX, entry);
		b->vals = calloc(BATCH_MAX, entry);
		if (!b->keys || !b->vals)
			return -ENOMEM;
	}
	if (b->n && (b->t != t || b->del != del)) {
		err = ops_flush(a, b->t);
		if (err)
			return err;
	}
	b->t = t;
	b->del = del;
	return 0;
}

/* ---- the xdp datapath's egress guard ----
 *
 * The pipeline checks a port's device before it sends there (bpf/kern.h's
 * port_dev), once the device is known: the port's own ingress programs
 * note it with every frame they receive. Until then a port's frames leave
 * through the DEVMAP egress program (xfab_xdp_egress), which takes a port
 * whose device went down out of use at its first frame. It costs every
 * frame sent (a program run per frame: about 10 ns here), so a port has it
 * only while the data plane has not seen its device. */

static int write_tx_port(struct agent *a, __u32 slot, const struct bpf_devmap_val *val)
{
	struct bpf_devmap_val v = *val;

	v.bpf_prog.fd = v.ifindex && !agent_port_dev_noted(a, v.ifindex)
			    ? bpf_program__fd(a->skel->progs.xfab_xdp_egress)
			    : 0;
	return write_one(a, XFAB_T_TX_PORTS, &slot, &v);
}

/* Whatever wrote the entries (this xfabd, or the one before a restart),
 * the entries themselves say which run the program (its id). */
void agent_egress_guard_refresh(struct agent *a)
{
	agent_ports_egress_refresh(a);
	if (!a->skel || a->cfg.datapath != XFAB_DP_XDP)
		return;
	for (__u32 p = 0; p < (__u32)a->cfg.n_ports; p++) {
		struct bpf_devmap_val v;

		if (bpf_map_lookup_elem(a->map_fd[XFAB_T_TX_PORTS], &p, &v) || !v.ifindex ||
		    !v.bpf_prog.id || !agent_port_dev_noted(a, v.ifindex))
			continue;
		if (write_tx_port(a, p, &v) == 0)
			log_dbg("port %s: device seen, its egress guard is off",
				a->cfg.ports[p].name);
	}
}

static int ops_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	struct agent *a = arg;
	struct batch *b = &a->batch;
	const struct xfab_table_desc *d = &xfab_table_descs[t];

	if (t == XFAB_T_TX_PORTS && a->skel) {
		__u32 slot;

		memcpy(&slot, key, sizeof(slot));
		return write_tx_port(a, slot, val);
	}
	/* Only the big tables are worth batching. */
	if (t != XFAB_T_ROUTES_V4 && t != XFAB_T_ROUTES_V6)
		return write_one(a, t, key, val);
	if (batch_take(a, t, 0))
		return write_one(a, t, key, val);
	memcpy(b->keys + (size_t)b->n * d->key_size, key, d->key_size);
	memcpy(b->vals + (size_t)b->n * d->val_size, val, d->val_size);
	if (++b->n == BATCH_MAX)
		return ops_flush(a, t);
	return 0;
}

static int ops_remove(void *arg, enum xfab_table t, const void *key)
{
	struct agent *a = arg;

	if (xfab_table_descs[t].is_array) {
		static const char zeroes[sizeof(struct xfab_group)];

		return ops_update(arg, t, key, zeroes);
	}
	if ((t == XFAB_T_ROUTES_V4 || t == XFAB_T_ROUTES_V6) && !batch_take(a, t, 1)) {
		struct batch *b = &a->batch;
		size_t ks = xfab_table_descs[t].key_size;

		memcpy(b->keys + (size_t)b->n * ks, key, ks);
		if (++b->n == BATCH_MAX)
			return ops_flush(a, t);
		return 0;
	}
	if (bpf_map_delete_elem(a->map_fd[t], key) && errno != ENOENT) {
		int err = -errno;

		log_err("delete from map %s failed: %s", xfab_table_descs[t].map_name,
			strerror(errno));
		return err;
	}
	return 0;
}

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	struct agent *a = arg;
	struct xfab_neigh_key key = {.ifindex = ifindex, .family = (__u8)family};
	struct xfab_neigh val;

	memcpy(key.addr, addr, family == AF_INET ? 4 : 16);
	if (bpf_map_lookup_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &val))
		return -ENOENT;
	memcpy(mac, val.mac, 6);
	return 0;
}

static int compile_start(struct agent *a)
{
	struct xfab_map_ops ops = {.update = ops_update,
				   .remove = ops_remove,
				   .flush = ops_flush,
				   .arg = a,
				   .fib4 = a->fib4.tbl16 ? &a->fib4 : NULL,
				   .fib6 = a->fib6.tbl16 ? &a->fib6 : NULL};

	a->rib = xfab_rib_new();
	a->compile = a->rib ? xfab_compile_new(a->rib, &ops, neigh_lookup, a) : NULL;
	if (!a->compile) {
		xfab_rib_free(a->rib);
		a->rib = NULL;
		return -ENOMEM;
	}
	return 0;
}

void agent_compile_stop(struct agent *a)
{
	xfab_compile_free(a->compile);
	xfab_nlsync_free(a->nlsync);
	a->nlsync = NULL;
	free(a->fs.held);
	a->fs.held = NULL;
	a->fs.n_held = a->fs.cap_held = 0;
	xfab_rib_free(a->rib);
	a->compile = NULL;
	a->rib = NULL;
}

static size_t writes(const struct xfab_compile_stats *st)
{
	size_t n = 0;

	for (int t = 0; t < XFAB_T_COUNT; t++)
		n += st->updates[t] + st->removes[t];
	return n;
}

int agent_rebuild_and_apply(struct agent *a, const struct xfab_config *cfg)
{
	const struct xfab_compile_stats *st;
	struct xfab_compile_counts n;
	double t0 = xfab_mono_ns() / 1e6, t1;
	int err;

	if (!a->compile && (err = compile_start(a))) {
		log_err("cannot compile tables: %s", strerror(-err));
		return err;
	}
	err = xfab_rib_load_config(a->rib, cfg);
	if (err) {
		log_err("cannot compile tables: %s", strerror(-err));
		return err;
	}
	t1 = xfab_mono_ns() / 1e6;
	err = xfab_compile_config(a->compile, cfg, a->live);
	if (err) {
		if (err == -ENOSPC)
			log_err("out of room (nexthop or group ids, or FIB groups: IPv4 %u, IPv6 "
				"%u, DEVICE_METADATA fib_ipv4_groups / fib_ipv6_groups)",
				a->fib4.n_groups, a->fib6.n_groups);
		else
			log_err("cannot write tables: %s", strerror(-err));
		/* What was written stays; the prefixes not done stay dirty and
		 * the next event retries them. */
		return err;
	}
	st = xfab_compile_last(a->compile);
	xfab_compile_counts(a->compile, &n);
	log_info("programmed %zu IPv4 and %zu IPv6 routes: compile %.0f ms, write %.0f ms "
		 "(%zu map entries written; FIB: IPv4 %zu entries stored, IPv6 %zu)",
		 n.routes_v4, n.routes_v6, t1 - t0, xfab_mono_ns() / 1e6 - t1, writes(st),
		 st->fib4_written, st->fib6_written);
	return 0;
}

/* ---- events ---- */

/* The tc datapath takes a port out of use itself when a device fails under
 * its packets (the ports table's OPER_UP, xfab.bpf.c), before this event
 * arrives. An event that changes nothing for xfabd (a flap the kernel
 * reported as one event) puts the table right again. */
static void port_entry_check(struct agent *a, int p, int up)
{
	__u32 ifindex = a->live[p].ifindex;
	struct xfab_port v;

	if (bpf_map_lookup_elem(a->map_fd[XFAB_T_PORTS], &ifindex, &v) || v.ifindex != ifindex ||
	    !(v.flags & XFAB_PORT_OPER_UP) == !up)
		return;
	if (up)
		v.flags |= XFAB_PORT_OPER_UP;
	else
		v.flags &= ~XFAB_PORT_OPER_UP;
	if (bpf_map_update_elem(a->map_fd[XFAB_T_PORTS], &ifindex, &v, BPF_ANY))
		log_warn("port %s: cannot correct its entry: %s", a->cfg.ports[p].name,
			 strerror(errno));
	else
		log_info("port %s is %s (the data plane had it %s)", a->cfg.ports[p].name,
			 up ? "up" : "down", up ? "down" : "up");
}

void agent_port_set_up(struct agent *a, int p, int up)
{
	a->live[p].oper_up = up;
	if (!up)
		a->down_ns[p] = xfab_mono_ns();
	log_info("port %s is %s", a->cfg.ports[p].name, up ? "up" : "down");
	if (!a->compile || xfab_compile_link(a->compile, p, up))
		a->dirty = 1;
	else
		log_dbg("port %s: %zu entries written", a->cfg.ports[p].name,
			writes(xfab_compile_last(a->compile)));
}

void agent_damping_expire(struct agent *a)
{
	__u64 now = xfab_mono_ns();

	for (int p = 0; p < a->cfg.n_ports; p++) {
		int up;

		if (!a->damping.d[p].suppressed)
			continue;
		up = agent_damping_tick(a, p, now) && !a->drain.on[p];
		if (a->live[p].oper_up != up)
			agent_port_set_up(a, p, up);
	}
}

void agent_on_link(void *arg, const struct xfab_nl_link *l)
{
	struct agent *a = arg;
	int p = agent_port_of_ifindex(a, l->ifindex);
	int admin_down = l->deleted || !l->admin_up, up;

	if (p < 0)
		return;
	/* the state to act on: the event's, or its damper's (damping.c);
	 * a drained port stays down (drain.c) */
	up = agent_damping_link(a, p, l) && !a->drain.on[p];
	if (a->live[p].oper_up != up)
		agent_port_set_up(a, p, up);
	else if (a->map_fd[XFAB_T_PORTS] >= 0)
		port_entry_check(a, p, up);
	/* The data plane stopped using the port above. A port taken down
	 * loses its IPv4 routes and nexthop objects in the kernel without a
	 * message: the mirror drops them too. A port that only lost its
	 * carrier keeps them (the kernel marks them linkdown), so a route
	 * whose one path it was stays, dead, and LOCAL_REPAIR bounces its
	 * packets until the routing daemon withdraws it. Link up restores
	 * nothing: the daemon installs the routes again. */
	if (admin_down && !a->admin_down[p])
		agent_fib_sync_link_down(a, l->ifindex);
	a->admin_down[p] = admin_down;
}

/* A neighbour changed in the map: the nexthops through it resolve again. */
static void neigh_changed(struct agent *a, const struct xfab_nl_neigh *n)
{
	if (!a->compile || xfab_compile_neigh(a->compile, n->ifindex, n->family, n->addr))
		a->dirty = 1;
}

void agent_on_neigh(void *arg, const struct xfab_nl_neigh *n)
{
	struct agent *a = arg;
	struct xfab_neigh_key key = {.ifindex = n->ifindex, .family = (__u8)n->family};
	struct xfab_neigh val = {0}, old;
	int have;

	if (agent_port_of_ifindex(a, n->ifindex) < 0)
		return;
	/* Multicast "neighbours" (ff02::16 -> 33:33:...) are NOARP mappings. */
	if ((n->family == AF_INET6 && n->addr[0] == 0xff) ||
	    (n->family == AF_INET && (n->addr[0] & 0xf0) == 0xe0) || (n->mac[0] & 1))
		return;
	memcpy(key.addr, n->addr, n->family == AF_INET ? 4 : 16);
	have = bpf_map_lookup_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &old) == 0;
	if (have && (old.flags & XFAB_NEIGH_STATIC))
		return; /* configured neighbours win over learnt ones */
	if (n->deleted || !n->usable) {
		if (have) {
			bpf_map_delete_elem(a->map_fd[XFAB_T_NEIGHBORS], &key);
			neigh_changed(a, n);
		}
		return;
	}
	memcpy(val.mac, n->mac, 6);
	if (have && !memcmp(old.mac, val.mac, 6))
		return;
	if (bpf_map_update_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &val, BPF_ANY)) {
		log_warn("cannot store neighbour: %s", strerror(errno));
		return;
	}
	if (xfab_log_verbose) {
		char ip[INET6_ADDRSTRLEN], mac[18];

		inet_ntop(n->family, n->addr, ip, sizeof(ip));
		xfab_format_mac(n->mac, mac, sizeof(mac));
		log_dbg("neighbour %s is %s on ifindex %u", ip, mac, n->ifindex);
	}
	neigh_changed(a, n);
}

/* Nudges the kernel to resolve gateways nobody has talked to yet, so the
 * first packets of a flow need not be punted. */
static void probe_one(void *arg, int p, __u32 id, const struct xfab_nexthop *nh)
{
	struct agent *a = arg;
	int v6 = !!(nh->flags & XFAB_NH_IPV6);
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(9)};
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9)};
	int fd;

	(void)id;
	if (nh->flags & XFAB_NH_RESOLVED || p < 0 || p >= a->cfg.n_ports || !a->live[p].oper_up)
		return;
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, a->cfg.ports[p].name,
		   (socklen_t)strlen(a->cfg.ports[p].name));
	if (v6) {
		memcpy(&sin6.sin6_addr, nh->gw, 16);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		memcpy(&sin.sin_addr, nh->gw, 4);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin, sizeof(sin));
	}
	close(fd);
}

void agent_probe_unresolved(struct agent *a)
{
	if (a->compile)
		xfab_compile_foreach_nexthop(a->compile, probe_one, a);
}
