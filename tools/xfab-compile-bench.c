// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-compile-bench: what one control-plane event costs on a switch with a
 * big route table, no kernel needed. The library writes into a counting map
 * writer and into FIB arrays in plain memory, the way xfabd writes the
 * pinned maps and the mmapped FIBs.
 *
 * Two ways of handling an event are timed on the same switch, both by the
 * one compiler xfabd uses (the RIB and user/lib/compile.c):
 *   full:        a full rebuild: a fresh RIB and compile state load the whole
 *                config (with the event applied to it and to the live
 *                state) and write every entry, into empty FIB arrays;
 *   incremental: the running RIB and compile state told of the event: only
 *                what the event implies.
 * Events: a neighbour's MAC changes, a port goes down, comes back up, one
 * route is added, the same route is removed.
 *
 *   xfab-compile-bench [--routes N] [--repeat R] [--json FILE]
 */
/* FIB groups of each family (1M /24s in 16.0.0.0/4 need 4,096 IPv4 groups) */
#define BENCH_FIB_GROUPS 16384
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compile.h"
#include "config.h"
#include "opts.h"
#include "rib.h"
#include "maps.h"

#define PORTS 16
#define SETS 16 /* nexthop sets: 8-way ECMP over a window of the ports */
#define WAYS 8

/* ---- a map writer that counts ---- */

struct counter {
	size_t writes;
};

static int c_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	(void)t, (void)key, (void)val;
	((struct counter *)arg)->writes++;
	return 0;
}

static int c_remove(void *arg, enum xfab_table t, const void *key)
{
	(void)t, (void)key;
	((struct counter *)arg)->writes++;
	return 0;
}

/* ---- the switch ---- */

static __u8 neigh_mac[PORTS][6];

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)family, (void)addr;
	if (ifindex < 10 || ifindex >= 10 + PORTS)
		return -ENOENT;
	memcpy(mac, neigh_mac[ifindex - 10], 6);
	return 0;
}

struct sw {
	struct xfab_config cfg;
	struct xfab_cfg_nexthop *set_nh[SETS];
	__u16 *set_w[SETS];
	struct xfab_port_live live[XFAB_MAX_PORTS];
	__u32 *tbl24, *tbl8, *tbl16, *tbl8_6;
	struct xfab_fib_hw fib4;
	struct xfab_fib_hw fib6;
	struct counter cnt;
	struct xfab_map_ops ops;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "xfab-compile-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory", ENOMEM);
	return p;
}

/* 16 ports (eth1..16: 10.0.<p>.1/24, gateway .2), n routes: /24s from
 * 32.0.0.0 over 16 sets of 8-way ECMP, every 16th over a single nexthop. */
static void make_switch(struct sw *s, size_t n)
{
	struct xfab_config *cfg = &s->cfg;

	memset(s, 0, sizeof(*s));
	snprintf(cfg->hostname, sizeof(cfg->hostname), "leaf1");
	cfg->hash_seed = xfab_default_hash_seed(cfg->hostname);
	cfg->hash_fields = XFAB_HASH_F_SRC_IP | XFAB_HASH_F_DST_IP;
	cfg->resilient = 1;
	xfab_default_dscp_to_tc(cfg->dscp_to_tc);
	cfg->n_ports = PORTS;
	cfg->n_addrs = PORTS;
	cfg->addrs = xcalloc(PORTS, sizeof(*cfg->addrs));
	for (int p = 0; p < PORTS; p++) {
		snprintf(cfg->ports[p].name, sizeof(cfg->ports[p].name), "eth%d", p + 1);
		cfg->ports[p].admin_up = 1;
		cfg->ports[p].mtu = 9100;
		for (int tc = 0; tc < XFAB_NUM_TC; tc++)
			cfg->ports[p].wred[tc] = -1;
		cfg->addrs[p].port = p;
		cfg->addrs[p].pfx.family = AF_INET;
		cfg->addrs[p].pfx.plen = 24;
		cfg->addrs[p].pfx.addr[0] = 10;
		cfg->addrs[p].pfx.addr[2] = (__u8)(p + 1);
		cfg->addrs[p].pfx.addr[3] = 1;
		s->live[p].ifindex = (__u32)(10 + p);
		s->live[p].mac[0] = 2;
		s->live[p].mac[5] = (__u8)p;
		s->live[p].oper_up = 1;
		neigh_mac[p][0] = 2;
		neigh_mac[p][4] = (__u8)(p + 1);
		neigh_mac[p][5] = 2;
	}
	for (int k = 0; k < SETS; k++) {
		s->set_nh[k] = xcalloc(WAYS, sizeof(*s->set_nh[k]));
		s->set_w[k] = xcalloc(WAYS, sizeof(*s->set_w[k]));
		for (int w = 0; w < WAYS; w++) {
			int p = (k + w) % PORTS;

			s->set_nh[k][w].port = p;
			s->set_nh[k][w].family = AF_INET;
			s->set_nh[k][w].gw[0] = 10;
			s->set_nh[k][w].gw[2] = (__u8)(p + 1);
			s->set_nh[k][w].gw[3] = 2;
			s->set_w[k][w] = 1;
		}
	}
	cfg->routes = xcalloc(n + 1, sizeof(*cfg->routes)); /* room for the added one */
	cfg->n_routes = (int)n;
	for (size_t i = 0; i < n; i++) {
		struct xfab_cfg_route *r = &cfg->routes[i];
		__u32 a = htonl((32u << 24) + ((__u32)i << 8));
		int k = (int)(i % SETS);

		r->pfx.family = AF_INET;
		r->pfx.plen = 24;
		memcpy(r->pfx.addr, &a, 4);
		r->n_nexthops = i % 16 == 15 ? 1 : WAYS;
		r->nexthops = s->set_nh[k];
		r->weights = s->set_w[k];
		r->shared = 1;
	}
	s->tbl24 = xcalloc(XFAB_FIB4_TBL16_SIZE, 4);
	s->tbl8 = xcalloc((size_t)BENCH_FIB_GROUPS * 256, 4);
	s->tbl16 = xcalloc(XFAB_FIB6_TBL16_SIZE, 4);
	s->tbl8_6 = xcalloc((size_t)BENCH_FIB_GROUPS * 256, 4);
	if (xfab_fib_attach(&s->fib4, 4, s->tbl24, s->tbl8, BENCH_FIB_GROUPS) ||
	    xfab_fib_attach(&s->fib6, 16, s->tbl16, s->tbl8_6, BENCH_FIB_GROUPS))
		die("FIB", ENOMEM);
	s->ops.update = c_update;
	s->ops.remove = c_remove;
	s->ops.arg = &s->cnt;
	s->ops.fib4 = &s->fib4;
	s->ops.fib6 = &s->fib6;
}

static void free_switch(struct sw *s)
{
	xfab_fib_detach(&s->fib4);
	xfab_fib_detach(&s->fib6);
	free(s->tbl24);
	free(s->tbl8);
	free(s->tbl16);
	free(s->tbl8_6);
	for (int k = 0; k < SETS; k++) {
		free(s->set_nh[k]);
		free(s->set_w[k]);
	}
	free(s->cfg.routes);
	free(s->cfg.addrs);
}

/* ---- events ---- */

enum event { EV_NEIGH, EV_DOWN, EV_UP, EV_ADD, EV_DEL, EV_COUNT };
static const char *const ev_name[EV_COUNT] = {"neighbour MAC change", "link down", "link up",
					      "route add", "route remove"};
static const char *const ev_key[EV_COUNT] = {"neigh", "link_down", "link_up", "route_add",
					     "route_del"};

struct result {
	size_t entries;	 /* map entries and FIB entries written */
	size_t compiled; /* of which map entries (the rest: FIB entries) */
	double ms[64];	 /* per repeat */
	int n;
};

/* The event's change to the switch's state (config, live, neighbours). */
static void apply_event(struct sw *s, enum event ev, int rep)
{
	switch (ev) {
	case EV_NEIGH:
		neigh_mac[3][3] = (__u8)(rep + 1);
		break;
	case EV_DOWN:
		s->live[3].oper_up = 0;
		break;
	case EV_UP:
		s->live[3].oper_up = 1;
		break;
	case EV_ADD: {
		struct xfab_cfg_route *r = &s->cfg.routes[s->cfg.n_routes];

		memset(r, 0, sizeof(*r));
		r->pfx.family = AF_INET;
		r->pfx.plen = 24;
		r->pfx.addr[0] = 100;
		r->n_nexthops = WAYS;
		r->nexthops = s->set_nh[1];
		r->weights = s->set_w[1];
		r->shared = 1;
		s->cfg.n_routes++;
		break;
	}
	case EV_DEL:
		s->cfg.n_routes--;
		break;
	default:
		break;
	}
}

static double median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

/* Empty FIBs for a fresh compile (their arrays zeroed, as loaded). */
static void fib_reset(struct sw *s)
{
	xfab_fib_detach(&s->fib4);
	xfab_fib_detach(&s->fib6);
	memset(s->tbl24, 0, (size_t)XFAB_FIB4_TBL16_SIZE * 4);
	memset(s->tbl8, 0, (size_t)BENCH_FIB_GROUPS * 256 * 4);
	memset(s->tbl16, 0, (size_t)XFAB_FIB6_TBL16_SIZE * 4);
	memset(s->tbl8_6, 0, (size_t)BENCH_FIB_GROUPS * 256 * 4);
	if (xfab_fib_attach(&s->fib4, 4, s->tbl24, s->tbl8, BENCH_FIB_GROUPS) ||
	    xfab_fib_attach(&s->fib6, 16, s->tbl16, s->tbl8_6, BENCH_FIB_GROUPS))
		die("FIB", ENOMEM);
}

/* A full rebuild of the switch as it is: a fresh RIB and compile state
 * given the whole config. Returns the wall clock in ms; *entries: map and
 * FIB entries written, *map_entries: map entries alone. */
static double fresh_compile(struct sw *s, size_t *entries, size_t *map_entries)
{
	const struct xfab_compile_stats *st;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	double t0, ms;
	size_t w = 0;
	int err;

	fib_reset(s);
	s->cnt.writes = 0;
	t0 = (double)xfab_mono_ns() / 1e6;
	rib = xfab_rib_new();
	c = rib ? xfab_compile_new(rib, &s->ops, neigh_lookup, NULL) : NULL;
	if (!c)
		die("compile", ENOMEM);
	err = xfab_rib_load_config(rib, &s->cfg);
	if (!err)
		err = xfab_compile_config(c, &s->cfg, s->live);
	if (err)
		die("full rebuild", err);
	ms = (double)xfab_mono_ns() / 1e6 - t0;
	st = xfab_compile_last(c);
	for (int t = 0; t < XFAB_T_COUNT; t++)
		w += st->updates[t] + st->removes[t];
	if (w != s->cnt.writes)
		die("the stats disagree with the writer", EINVAL);
	*entries = w + st->fib4_written + st->fib6_written;
	*map_entries = w;
	xfab_compile_free(c);
	xfab_rib_free(rib);
	return ms;
}

static void run_full(size_t n_routes, int repeat, struct result *res, double *setup_ms)
{
	struct sw s;
	size_t entries, map_entries;

	make_switch(&s, n_routes);
	*setup_ms = fresh_compile(&s, &entries, &map_entries);
	for (int rep = 0; rep < repeat; rep++)
		for (int ev = 0; ev < EV_COUNT; ev++) {
			struct result *r = &res[ev];

			apply_event(&s, (enum event)ev, rep);
			r->ms[r->n++] = fresh_compile(&s, &r->entries, &r->compiled);
		}
	free_switch(&s);
}

static void run_incremental(size_t n_routes, int repeat, struct result *res, double *setup_ms)
{
	struct sw s;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct xfab_prefix added = {.family = AF_INET, .plen = 24, .addr = {100}};
	struct xfab_rib_member m[WAYS];
	struct xfab_rib_key key;
	double t0;
	int err;

	make_switch(&s, n_routes);
	rib = xfab_rib_new();
	c = rib ? xfab_compile_new(rib, &s.ops, neigh_lookup, NULL) : NULL;
	if (!c)
		die("compile", ENOMEM);
	t0 = (double)xfab_mono_ns() / 1e6;
	err = xfab_rib_load_config(rib, &s.cfg);
	if (!err)
		err = xfab_compile_config(c, &s.cfg, s.live);
	if (err)
		die("first compile", err);
	*setup_ms = (double)xfab_mono_ns() / 1e6 - t0;
	memset(m, 0, sizeof(m));
	for (int w = 0; w < WAYS; w++) {
		m[w].port = (__u16)s.set_nh[1][w].port;
		m[w].family = AF_INET;
		m[w].weight = 1;
		memcpy(m[w].gw, s.set_nh[1][w].gw, 16);
	}
	xfab_rib_key_of(&key, 0, &added);
	for (int rep = 0; rep < repeat; rep++)
		for (int ev = 0; ev < EV_COUNT; ev++) {
			const struct xfab_compile_stats *st;
			struct result *r = &res[ev];
			size_t w = 0;

			apply_event(&s, (enum event)ev, rep);
			s.cnt.writes = 0;
			t0 = (double)xfab_mono_ns() / 1e6;
			switch (ev) {
			case EV_NEIGH:
				err = xfab_compile_neigh(c, 13, AF_INET, s.set_nh[3][0].gw);
				break;
			case EV_DOWN:
				err = xfab_compile_link(c, 3, 0);
				break;
			case EV_UP:
				err = xfab_compile_link(c, 3, 1);
				break;
			case EV_ADD:
				err = xfab_rib_add(rib, &key, XFAB_RIB_SRC_CONFIG, XFAB_RIB_PATH, 0,
						   m, WAYS);
				if (!err)
					err = xfab_compile_routes(c);
				break;
			default:
				xfab_rib_del(rib, &key, XFAB_RIB_SRC_CONFIG);
				err = xfab_compile_routes(c);
				break;
			}
			if (err)
				die(ev_name[ev], err);
			r->ms[r->n++] = (double)xfab_mono_ns() / 1e6 - t0;
			st = xfab_compile_last(c);
			for (int t = 0; t < XFAB_T_COUNT; t++)
				w += st->updates[t] + st->removes[t];
			if (w != s.cnt.writes)
				die("the stats disagree with the writer", EINVAL);
			r->entries = w + st->fib4_written + st->fib6_written;
			r->compiled = w;
		}
	xfab_compile_free(c);
	xfab_rib_free(rib);
	free_switch(&s);
}

int main(int argc, char **argv)
{
	struct result full[EV_COUNT] = {0}, inc[EV_COUNT] = {0};
	size_t n_routes = 1000000;
	const char *json = NULL;
	double full_setup, inc_setup;
	int repeat = 5, o;
	FILE *f;

	const struct xfab_opt rows[] = {
	    XFAB_OPT_UINT("routes", 0, n_routes, 16, 4000000, "N", "routes in the table (1000000)",
			  .base = 10),
	    XFAB_OPT_INT("repeat", 0, repeat, 1, 64, "N", "runs of each event; the median (5)"),
	    XFAB_OPT_STR("json", 0, json, "FILE", "also write the results to FILE"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-compile-bench", NULL, rows, NULL};

	o = xfab_opts_parse_all(&spec, argc, argv);
	if (o >= 0)
		return o;
	run_incremental(n_routes, repeat, inc, &inc_setup);
	run_full(n_routes, repeat, full, &full_setup);
	printf("%zu routes, %d ports, %d ECMP groups of %d; median of %d repeats\n", n_routes,
	       PORTS, SETS, WAYS, repeat);
	printf("first programming: full %.0f ms, incremental %.0f ms\n", full_setup, inc_setup);
	printf("%-22s %14s %12s %14s %12s\n", "event", "full entries", "full ms", "incr entries",
	       "incr ms");
	for (int ev = 0; ev < EV_COUNT; ev++)
		printf("%-22s %14zu %12.1f %14zu %12.3f\n", ev_name[ev], full[ev].entries,
		       median(full[ev].ms, full[ev].n), inc[ev].entries,
		       median(inc[ev].ms, inc[ev].n));
	if (!json)
		return 0;
	f = fopen(json, "w");
	if (!f)
		die(json, errno);
	fprintf(f,
		"{\"routes\": %zu, \"ports\": %d, \"groups\": %d, \"ways\": %d, \"repeat\": %d,\n",
		n_routes, PORTS, SETS, WAYS, repeat);
	fprintf(f, " \"setup_ms\": {\"full\": %.1f, \"incremental\": %.1f},\n \"events\": [\n",
		full_setup, inc_setup);
	for (int ev = 0; ev < EV_COUNT; ev++)
		fprintf(f,
			"  {\"key\": \"%s\", \"name\": \"%s\", \"full\": {\"entries\": %zu, "
			"\"compiled\": %zu, \"ms\": %.3f}, \"incremental\": {\"entries\": %zu, "
			"\"ms\": %.4f}}%s\n",
			ev_key[ev], ev_name[ev], full[ev].entries, full[ev].compiled,
			median(full[ev].ms, full[ev].n), inc[ev].entries,
			median(inc[ev].ms, inc[ev].n), ev + 1 < EV_COUNT ? "," : "");
	fprintf(f, " ]}\n");
	fclose(f);
	return 0;
}
