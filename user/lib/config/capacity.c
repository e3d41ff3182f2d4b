// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Capacity: whether what a config asks for fits the maps and the FIBs, so a
 * config that cannot be programmed is refused before anything is written.
 *
 * Two questions. xfab_config_parse asks whether one config fits on its own
 * (xfabd --check and start-up). xfab_config_check_change asks whether the
 * switch-over from the running config to a new one fits: tables are written
 * make-before-break (new entries first, old ones removed last; nexthop and
 * group ids of the running tables stay reserved during the write; a FIB
 * group stays with its /24 or path while old entries point at it), so until
 * the old entries go, the maps hold the union of both configs.
 *
 * Counted: nexthops (XFAB_MAX_NEXTHOPS - 1 ids), groups (XFAB_MAX_GROUPS - 1
 * ids), LPM entries per family (connected subnets, own addresses, routes and
 * TE entries), static neighbours, and each FIB's groups (one per path that
 * holds longer prefixes; the loaded maps' count, else the configured one).
 * The error names the first entry of the new config that does not fit.
 */
#include "fib6.h"
#include "internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one config contributes to one count: a key and who brought it. */
struct cap_item {
	const void *key;
	size_t len;
	long seq; /* -1: the running config's; else the order in the new config */
	int src;  /* >= 0: a ROUTE; <= -2: TE entry -2 - src; -1: an interface */
};

struct cap_list {
	struct cap_item *items;
	size_t n, cap;
	unsigned char *arena; /* fixed-size keys live here */
	size_t arena_used, arena_cap;
	int oom;
};

static void *cap_key(struct cap_list *l, size_t len)
{
	if (l->arena_used + len > l->arena_cap) {
		/* keys are referenced by pointer: chain a new block instead of
		 * moving the old one (the old blocks are kept in the items) */
		size_t cap = len > (1u << 20) ? len : (1u << 20);
		unsigned char *blk = malloc(cap);

		if (!blk) {
			l->oom = 1;
			return NULL;
		}
		/* remember the block as an item of length 0, freed at the end */
		if (l->n == l->cap) {
			size_t ncap = l->cap ? l->cap * 2 : 1024;
			struct cap_item *bigger = realloc(l->items, ncap * sizeof(*bigger));

			if (!bigger) {
				free(blk);
				l->oom = 1;
				return NULL;
			}
			l->items = bigger;
			l->cap = ncap;
		}
		l->items[l->n++] = (struct cap_item){.key = blk, .len = 0, .seq = -2};
		l->arena = blk;
		l->arena_used = 0;
		l->arena_cap = cap;
	}
	l->arena_used += len;
	return l->arena + l->arena_used - len;
}

static void cap_add(struct cap_list *l, const void *key, size_t len, long seq, int src)
{
	void *k = cap_key(l, len);

	if (!k)
		return;
	memcpy(k, key, len);
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 1024;
		struct cap_item *bigger = realloc(l->items, ncap * sizeof(*bigger));

		if (!bigger) {
			l->oom = 1;
			return;
		}
		l->items = bigger;
		l->cap = ncap;
	}
	l->items[l->n++] = (struct cap_item){.key = k, .len = len, .seq = seq, .src = src};
}

static void cap_free(struct cap_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].len == 0 && l->items[i].seq == -2)
			free((void *)l->items[i].key);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int cmp_item(const void *a, const void *b)
{
	const struct cap_item *x = a, *y = b;
	int c;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->key, y->key, x->len);
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct cap_item *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct cap_result {
	size_t old_keys, new_keys; /* distinct keys: the running config's, and the rest */
	int over;		   /* 1: the limit is passed */
	struct cap_item culprit;   /* the new config's item that passes it */
};

/* Distinct keys over both configs; which item of the new one passes limit. */
static int cap_count(struct cap_list *l, size_t limit, struct cap_result *r)
{
	struct cap_item *firsts;
	size_t nf = 0, i = 0;

	memset(r, 0, sizeof(*r));
	if (l->n > 1)
		qsort(l->items, l->n, sizeof(*l->items), cmp_item);
	firsts = malloc((l->n ? l->n : 1) * sizeof(*firsts));
	if (!firsts)
		return -1;
	while (i < l->n) {
		size_t j = i + 1;

		while (j < l->n && l->items[j].len == l->items[i].len &&
		       !memcmp(l->items[j].key, l->items[i].key, l->items[i].len))
			j++;
		if (l->items[i].len) { /* not an arena block */
			if (l->items[i].seq < 0)
				r->old_keys++;
			else
				firsts[nf++] = l->items[i]; /* sorted: lowest seq first */
		}
		i = j;
	}
	r->new_keys = nf;
	if (r->old_keys + nf > limit) {
		qsort(firsts, nf, sizeof(*firsts), cmp_seq);
		r->over = 1;
		r->culprit = firsts[limit > r->old_keys ? limit - r->old_keys : 0];
	}
	free(firsts);
	return 0;
}

/* ---- what a config brings to each count ---- */

struct cap_src {
	const struct xfab_config *cfg;
	long seq0; /* -1: the running config; 0: the new one (seq by order) */
};

static long seq_of(const struct cap_src *s, long order)
{
	return s->seq0 < 0 ? -1 : order;
}

struct nh_key {
	__s32 port;
	__s32 family;
	__u8 gw[16];
};

struct member_key {
	struct nh_key nh;
	__u32 weight;
};

static int cmp_member_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct member_key));
}

/* A path's nexthops and (two or more members) its group. */
static void add_path(struct cap_list *nhs, struct cap_list *groups, const struct cap_src *s,
		     const struct xfab_cfg_route *r, long order, int src)
{
	struct member_key mem[XFAB_GROUP_MAX_MEMBERS];

	if (r->blackhole)
		return;
	for (int k = 0; k < r->n_nexthops; k++) {
		memset(&mem[k], 0, sizeof(mem[k]));
		mem[k].nh.port = r->nexthops[k].port;
		mem[k].nh.family = r->nexthops[k].family;
		memcpy(mem[k].nh.gw, r->nexthops[k].gw, 16);
		mem[k].weight = r->weights ? r->weights[k] : 1;
		cap_add(nhs, &mem[k].nh, sizeof(mem[k].nh), seq_of(s, order), src);
	}
	if (r->n_nexthops < 2)
		return;
	qsort(mem, (size_t)r->n_nexthops, sizeof(mem[0]), cmp_member_key);
	cap_add(groups, mem, sizeof(mem[0]) * (size_t)r->n_nexthops, seq_of(s, order), src);
}

struct lpm_key {
	__s32 table; /* -1: the default table; else the TE ingress port */
	__s32 plen;
	__u8 addr[16];
};

static void add_lpm(struct cap_list *lpm, const struct cap_src *s, int table,
		    const struct xfab_prefix *p, long order, int src)
{
	struct lpm_key k = {.table = table, .plen = p->plen};
	int bits = p->family == AF_INET ? 32 : 128;

	for (int b = 0; b < p->plen && b < bits; b++)
		if (p->addr[b / 8] & (0x80 >> (b % 8)))
			k.addr[b / 8] |= (__u8)(0x80 >> (b % 8));
	cap_add(&lpm[p->family == AF_INET6], &k, sizeof(k), seq_of(s, order), src);
}

struct cap_lists {
	struct cap_list nhs, groups, lpm[2], neighs;
};

/* Items in the order of the file: interfaces, routes, TE entries (the
 * order parse reads them), so the culprit is the first that does not fit. */
static void add_config(struct cap_lists *L, const struct cap_src *s)
{
	const struct xfab_config *cfg = s->cfg;
	long order = 0;

	for (int i = 0; i < cfg->n_addrs; i++, order++) {
		const struct xfab_prefix *p = &cfg->addrs[i].pfx;
		struct xfab_prefix self = *p;

		add_lpm(L->lpm, s, -1, p, order, -1);
		self.plen = p->family == AF_INET ? 32 : 128;
		add_lpm(L->lpm, s, -1, &self, order, -1);
	}
	for (int i = 0; i < cfg->n_routes; i++, order++) {
		const struct xfab_cfg_route *r = &cfg->routes[i];

		add_lpm(L->lpm, s, -1, &r->pfx, order, i);
		/* a route sharing the one before's nexthop list adds nothing new */
		if (!(i && r->shared && r->nexthops == cfg->routes[i - 1].nexthops))
			add_path(&L->nhs, &L->groups, s, r, order, i);
	}
	for (int i = 0; i < cfg->n_te; i++, order++) {
		const struct xfab_cfg_route *r = &cfg->te[i].path;

		add_lpm(L->lpm, s, cfg->te[i].in_port, &r->pfx, order, -2 - i);
		add_path(&L->nhs, &L->groups, s, r, order, -2 - i);
	}
	for (int i = 0; i < cfg->n_neighs; i++, order++) {
		struct nh_key k = {.port = cfg->neighs[i].port, .family = cfg->neighs[i].family};

		memcpy(k.gw, cfg->neighs[i].addr, 16);
		cap_add(&L->neighs, &k, sizeof(k), seq_of(s, order), -1);
	}
}

/* The key of a culprit as the error names it. */
static void culprit_key(const struct xfab_config *cfg, int src, int parsing, char *key, size_t len,
			struct json_pos *pos)
{
	const struct xfab_cfg_route *r;
	char a[INET6_ADDRSTRLEN];

	pos->line = pos->col = 0;
	if (src == -1) {
		snprintf(key, len, "INTERFACE");
		return;
	}
	r = src >= 0 ? &cfg->routes[src] : &cfg->te[-2 - src].path;
	*pos = r->pos;
	if (src >= 0 && parsing && r->key) {
		snprintf(key, len, "ROUTE|%s", r->key);
		return;
	}
	cfg_addr_str(r->pfx.family, r->pfx.addr, a, sizeof(a));
	if (src >= 0)
		snprintf(key, len, "ROUTE|%s/%d", a, r->pfx.plen);
	else
		snprintf(key, len, "TE_PATH|%s|%s/%d", cfg->ports[cfg->te[-2 - src].in_port].name,
			 a, r->pfx.plen);
}

static void report(struct ctx *c, const struct cap_result *r, const char *what, size_t limit,
		   int parsing, int switch_over)
{
	struct json_pos pos;
	char key[160];

	culprit_key(c->cfg, r->culprit.src, parsing, key, sizeof(key), &pos);
	if (!switch_over)
		cfg_add_error(c, pos, key,
			      "the config needs %zu %s; the tables hold %zu: no room for this one",
			      r->new_keys, what, limit);
	else
		cfg_add_error(c, pos, key,
			      "the switch-over needs %zu %s (the running config's %zu and %zu new, "
			      "all live until the old are removed); the tables hold %zu: no room "
			      "for this one (reload in two steps, or restart xfabd)",
			      r->old_keys + r->new_keys, what, r->old_keys, r->new_keys, limit);
}

/* The groups a FIB may use: the loaded maps' (a reload, a pin), else the
 * configured count, else any (the maps are sized to the config). */
static size_t fib_limit(const struct xfab_config *cfg, int v6)
{
	if (cfg->fib_groups_loaded[v6])
		return cfg->fib_groups_loaded[v6];
	return cfg->fib_groups[v6] ? cfg->fib_groups[v6] : XFAB_FIB_GROUPS_MAX;
}

__u32 xfab_config_fib_groups(const struct xfab_config *cfg, int v6)
{
	__u32 n = XFAB_FIB_GROUPS_DEFAULT;

	if (cfg->fib_groups[v6])
		return cfg->fib_groups[v6];
	while (n < 2 * (__u64)cfg->fib_groups_need[v6] && n < XFAB_FIB_GROUPS_MAX)
		n *= 2;
	return n;
}

/* A FIB's groups (xfab_abi.h: one per (level, leading bytes) path that
 * holds longer prefixes), over both configs' prefixes of the family (an
 * own address brings its /32 or /128). Parsing, it records what this
 * config needs (the maps' size follows). */
static void check_fib(struct ctx *c, const struct xfab_config *old, int parsing, int v6)
{
	const struct xfab_config *cfgs[2] = {old, c->cfg};
	size_t total = 0, n = 0, limit = fib_limit(old ? old : c->cfg, v6), need;
	int family = v6 ? AF_INET6 : AF_INET, full = v6 ? 128 : 32;
	__u8(*addr)[16];
	int *plen, *src, *is_new;
	long over = -1;
	int first = old ? 0 : 1; /* the running config, if any, comes first */

	for (int k = first; k < 2; k++)
		total += (size_t)cfgs[k]->n_addrs + (size_t)cfgs[k]->n_routes;
	addr = calloc(total ? total : 1, 16);
	plen = malloc((total ? total : 1) * sizeof(int));
	src = malloc((total ? total : 1) * sizeof(int));
	is_new = malloc((total ? total : 1) * sizeof(int));
	if (!addr || !plen || !src || !is_new) {
		cfg_add_error(c, (struct json_pos){0, 0}, "ROUTE", "out of memory");
		goto out;
	}
	for (int k = first; k < 2; k++) {
		const struct xfab_config *cfg = cfgs[k];

		for (int i = 0; i < cfg->n_addrs + cfg->n_routes; i++) {
			int is_route = i >= cfg->n_addrs;
			const struct xfab_prefix *p =
			    is_route ? &cfg->routes[i - cfg->n_addrs].pfx : &cfg->addrs[i].pfx;

			if (p->family != family)
				continue;
			memcpy(addr[n], p->addr, v6 ? 16 : 4);
			plen[n] = is_route ? p->plen : full;
			src[n] = is_route ? i - cfg->n_addrs : -1;
			is_new[n++] = k;
		}
	}
	need = xfab_fib_groups_needed((const __u8(*)[16])addr, plen, n, limit, &over);
	if (need == (size_t)-1) {
		cfg_add_error(c, (struct json_pos){0, 0}, "ROUTE", "out of memory");
	} else if (over >= 0 && is_new[over]) {
		struct json_pos pos;
		char key[160];

		culprit_key(c->cfg, src[over], parsing, key, sizeof(key), &pos);
		if (!old)
			cfg_add_error(c, pos, key,
				      "the routes and interface addresses would need more than %zu "
				      "%s FIB groups (DEVICE_METADATA %s): no room for this one",
				      limit, v6 ? "IPv6" : "IPv4",
				      v6 ? "fib_ipv6_groups" : "fib_ipv4_groups");
		else
			cfg_add_error(c, pos, key,
				      "the switch-over would need more than %zu %s FIB groups (the "
				      "running config's and this one's paths, all live until the "
				      "old are removed; xfabd loaded %zu): no room for this one "
				      "(reload in two steps, or restart xfabd with a larger %s)",
				      limit, v6 ? "IPv6" : "IPv4", limit,
				      v6 ? "fib_ipv6_groups" : "fib_ipv4_groups");
	} else if (!old) {
		c->cfg->fib_groups_need[v6] = (__u32)need;
	}
out:
	free(addr);
	free(plen);
	free(src);
	free(is_new);
}

/* parsing: the config's JSON is still there (the culprit is named by its
 * key as written); otherwise it is named from the parsed prefix. */
static void check_all(struct ctx *c, const struct xfab_config *old, int parsing)
{
	struct cap_lists L;
	struct cap_src s_old = {.cfg = old, .seq0 = -1}, s_new = {.cfg = c->cfg, .seq0 = 0};
	const struct {
		struct cap_list *list;
		const char *what;
		size_t limit;
	} counts[] = {
	    {&L.nhs, "nexthops", XFAB_MAX_NEXTHOPS - 1},
	    {&L.groups, "ECMP groups", XFAB_MAX_GROUPS - 1},
	    {&L.lpm[0], "IPv4 route entries", XFAB_MAX_ROUTES_V4},
	    {&L.lpm[1], "IPv6 route entries", XFAB_MAX_ROUTES_V6},
	    {&L.neighs, "static neighbours", XFAB_MAX_NEIGHBORS},
	};
	memset(&L, 0, sizeof(L));
	if (old)
		add_config(&L, &s_old);
	add_config(&L, &s_new);
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct cap_result r;

		if (counts[k].list->oom || cap_count(counts[k].list, counts[k].limit, &r)) {
			cfg_add_error(c, (struct json_pos){0, 0}, NULL, "out of memory");
			break;
		}
		if (r.over)
			report(c, &r, counts[k].what, counts[k].limit, parsing, old != NULL);
	}
	check_fib(c, old, parsing, 0);
	check_fib(c, old, parsing, 1);
	cap_free(&L.nhs);
	cap_free(&L.groups);
	cap_free(&L.lpm[0]);
	cap_free(&L.lpm[1]);
	cap_free(&L.neighs);
}

void cfg_check_capacity(struct ctx *c)
{
	check_all(c, NULL, 1);
}

int xfab_config_check_capacity(const struct xfab_config *cfg, const char *file,
			       struct xfab_cfg_errors *errs)
{
	struct ctx c = {.file = file, .errs = errs, .cfg = (struct xfab_config *)cfg};

	errs->count = 0;
	errs->total = 0;
	check_all(&c, NULL, 0);
	return errs->total ? -1 : 0;
}

/* What a reload cannot change, then the switch-over's capacity. */
int xfab_config_check_change(const struct xfab_config *running, const struct xfab_config *next,
			     const char *file, struct xfab_cfg_errors *errs)
{
	struct ctx c = {.file = file, .errs = errs, .cfg = (struct xfab_config *)next};

	errs->count = 0;
	errs->total = 0;
	if (strcmp(running->hostname, next->hostname))
		cfg_add_error(&c, next->hostname_pos, "DEVICE_METADATA|localhost.hostname",
			      "the hostname changed (%s -> %s): restart xfabd for that",
			      running->hostname, next->hostname);
	if (running->datapath != next->datapath)
		cfg_add_error(&c, next->datapath_pos, "DEVICE_METADATA|localhost.datapath",
			      "the datapath changed: restart xfabd for that");
	for (int v6 = 0; v6 < 2; v6++) {
		if (running->fib_groups[v6] != next->fib_groups[v6])
			cfg_add_error(&c, next->fib_groups_pos[v6],
				      v6 ? "DEVICE_METADATA|localhost.fib_ipv6_groups"
					 : "DEVICE_METADATA|localhost.fib_ipv4_groups",
				      "the FIB's size changed (%u -> %u groups): restart xfabd for that",
				      running->fib_groups[v6], next->fib_groups[v6]);
	}
		if (running->fib_sync != next->fib_sync || running->fib_table != next->fib_table ||
	    memcmp(running->fib_protocols, next->fib_protocols, sizeof(next->fib_protocols)))
		cfg_add_error(&c, (struct json_pos){0, 0}, "FIB_SYNC",
			      "which kernel routes are mirrored changed: restart xfabd for that");
	for (int p = 0; p < next->n_ports || p < running->n_ports; p++) {
		char key[160];

		if (p < next->n_ports && p < running->n_ports &&
		    !strcmp(next->ports[p].name, running->ports[p].name))
			continue;
		if (p < next->n_ports) {
			snprintf(key, sizeof(key), "PORT|%s", next->ports[p].name);
			cfg_add_error(&c, next->ports[p].pos, key,
				      "the port list changed (port %d was %s): restart xfabd "
				      "for that",
				      p + 1,
				      p < running->n_ports ? running->ports[p].name : "not there");
		} else {
			cfg_add_error(&c, (struct json_pos){0, 0}, "PORT",
				      "port %s was removed: restart xfabd for that",
				      running->ports[p].name);
		}
		break;
	}
	if (!errs->total)
		check_all(&c, running, 0);
	return errs->total ? -1 : 0;
}
