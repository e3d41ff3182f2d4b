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
#include "fib.h"
#include "internal.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One count: the distinct keys over both configs, each kept once. Items
 * come in the order of the configs (the running one first, then the new
 * one in file order), so the item that passes the limit is known the
 * moment it is added: no list of every item, no sort. A million routes
 * cost their keys and a table of 4-byte offsets.
 */
struct cap_item {
	long seq; /* -1: the running config's; else the order in the new config */
	int src;  /* >= 0: a ROUTE; <= -2: TE entry -2 - src; -1: an interface */
};

struct cap_list {
	unsigned char *keys; /* each key: its length (4 bytes), then the key */
	size_t used, room;
	/* each distinct key: its hash (high half) and its offset in keys + 1
	 * (low half; 0: empty), so a probe reads a key only on a hash match */
	__u64 *slots;
	size_t n_slots;
	size_t old_keys, new_keys; /* distinct: the running config's, the rest */
	size_t limit;
	int over;		 /* the limit is passed */
	struct cap_item culprit; /* the new config's item that passes it */
	int oom;
};

static __u32 cap_hash(const void *key, size_t len)
{
	const __u8 *b = key;
	__u64 h = 0x9e3779b97f4a7c15ull ^ len;

	for (size_t i = 0; i < len; i += 8) {
		__u64 w = 0;

		memcpy(&w, b + i, len - i < 8 ? len - i : 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (__u32)h;
}

/* Room for n distinct keys of about key_len bytes (more still fit). */
static int cap_reserve(struct cap_list *l, size_t n, size_t key_len)
{
	size_t n_slots = l->n_slots ? l->n_slots : 1024, room;
	__u64 *slots;

	while (n_slots < 2 * n)
		n_slots *= 2;
	room = n * ((sizeof(__u32) + key_len + 3) & ~(size_t)3);
	if (room > l->room && room < UINT32_MAX) {
		unsigned char *keys = realloc(l->keys, room);

		if (!keys)
			return -1;
		l->keys = keys;
		l->room = room;
	}
	if (n_slots == l->n_slots)
		return 0;
	slots = calloc(n_slots, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < l->n_slots; i++) {
		size_t j;

		if (!l->slots[i])
			continue;
		for (j = (l->slots[i] >> 32) & (n_slots - 1); slots[j]; j = (j + 1) & (n_slots - 1))
			;
		slots[j] = l->slots[i];
	}
	free(l->slots);
	l->slots = slots;
	l->n_slots = n_slots;
	return 0;
}

/* Adds a key (a new one counts) in the order of the items. */
static void cap_add(struct cap_list *l, const void *key, size_t len, long seq, int src)
{
	size_t need = (sizeof(__u32) + len + 3) & ~(size_t)3, j;
	size_t distinct = l->old_keys + l->new_keys;
	__u32 len32 = (__u32)len, h = cap_hash(key, len);

	if (l->oom)
		return;
	if ((distinct + 1) * 2 > l->n_slots && cap_reserve(l, distinct + 1, len)) {
		l->oom = 1;
		return;
	}
	for (j = h & (l->n_slots - 1); l->slots[j]; j = (j + 1) & (l->n_slots - 1)) {
		const unsigned char *k = l->keys + (__u32)l->slots[j] - 1;

		if ((__u32)(l->slots[j] >> 32) == h && !memcmp(k, &len32, sizeof(len32)) &&
		    !memcmp(k + sizeof(len32), key, len))
			return; /* counted already, by an earlier item */
	}
	if (l->used + need > l->room) {
		size_t room = l->room ? l->room * 2 : 4096;
		unsigned char *keys;

		while (room < l->used + need)
			room *= 2;
		keys = room < UINT32_MAX ? realloc(l->keys, room) : NULL;
		if (!keys) {
			l->oom = 1;
			return;
		}
		l->keys = keys;
		l->room = room;
	}
	memcpy(l->keys + l->used, &len32, sizeof(len32));
	memcpy(l->keys + l->used + sizeof(len32), key, len);
	l->slots[j] = (__u64)h << 32 | ((__u32)l->used + 1);
	l->used += need;
	if (seq < 0) {
		l->old_keys++;
		return;
	}
	l->new_keys++;
	/* the first new key past the limit (the running config's own keys
	 * may pass it already: then the first new key) */
	if (!l->over && l->old_keys + l->new_keys > l->limit) {
		l->over = 1;
		l->culprit = (struct cap_item){.seq = seq, .src = src};
	}
}

static void cap_free(struct cap_list *l)
{
	free(l->keys);
	free(l->slots);
	memset(l, 0, sizeof(*l));
}

struct cap_result {
	size_t old_keys, new_keys; /* distinct keys: the running config's, and the rest */
	int over;		   /* 1: the limit is passed */
	struct cap_item culprit;   /* the new config's item that passes it */
};

/* Distinct keys over both configs; which item of the new one passes limit. */
static int cap_count(struct cap_list *l, size_t limit, struct cap_result *r)
{
	memset(r, 0, sizeof(*r));
	if (l->oom || limit != l->limit)
		return -1;
	r->old_keys = l->old_keys;
	r->new_keys = l->new_keys;
	r->over = l->over;
	r->culprit = l->culprit;
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

/* The prefix's key: its address masked to its length (whole bytes, then
 * the bits of the last one). */
static void lpm_key_of(struct lpm_key *k, int table, const struct xfab_prefix *p)
{
	int bits = p->family == AF_INET ? 32 : 128, plen = p->plen < bits ? p->plen : bits;

	memset(k, 0, sizeof(*k));
	k->table = table;
	k->plen = p->plen;
	memcpy(k->addr, p->addr, (size_t)plen / 8);
	if (plen % 8)
		k->addr[plen / 8] = (__u8)(p->addr[plen / 8] & (0xff << (8 - plen % 8)));
}

static void add_lpm(struct cap_list *lpm, const struct cap_src *s, int table,
		    const struct xfab_prefix *p, long order, int src)
{
	struct lpm_key k;

	lpm_key_of(&k, table, p);
	cap_add(&lpm[p->family == AF_INET6], &k, sizeof(k), seq_of(s, order), src);
}

/* Fetches the slot a key will be looked up in (a million routes miss the
 * cache in their table: the one a little ahead is fetched meanwhile). */
static void lpm_prefetch(struct cap_list *lpm, int table, const struct xfab_prefix *p)
{
	struct cap_list *l = &lpm[p->family == AF_INET6];
	struct lpm_key k;

	if (!l->n_slots)
		return;
	lpm_key_of(&k, table, p);
	__builtin_prefetch(&l->slots[cap_hash(&k, sizeof(k)) & (l->n_slots - 1)]);
}

struct cap_lists {
	struct cap_list nhs, groups, lpm[2], neighs;
};

/* Items in the order of the file: interfaces, routes, TE entries (the
 * order parse reads them), so the culprit is the first that does not fit. */
/* Paths a config added already, by their arrays (a direct-mapped cache):
 * routes that share one parse of a nexthop list (a full table repeats the
 * same list) bring nothing new, and are not taken apart again. */
#define SEEN_PATHS 64

struct seen_path {
	const void *nexthops, *weights;
	int n;
};

static int path_seen(struct seen_path *seen, const struct xfab_cfg_route *r)
{
	struct seen_path *sp = &seen[((uintptr_t)r->nexthops >> 4) % SEEN_PATHS];

	if (r->nexthops && sp->nexthops == r->nexthops && sp->weights == r->weights &&
	    sp->n == r->n_nexthops)
		return 1;
	*sp = (struct seen_path){r->nexthops, r->weights, r->n_nexthops};
	return 0;
}

static void add_config(struct cap_lists *L, const struct cap_src *s)
{
	const struct xfab_config *cfg = s->cfg;
	struct seen_path seen[SEEN_PATHS] = {0};
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

		if (i + 16 < cfg->n_routes)
			lpm_prefetch(L->lpm, -1, &cfg->routes[i + 16].pfx);
		add_lpm(L->lpm, s, -1, &r->pfx, order, i);
		/* the same arrays as a route before: nothing new */
		if (!path_seen(seen, r))
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
	size_t n_lpm[2] = {0, 0};

	memset(&L, 0, sizeof(L));
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		counts[k].list->limit = counts[k].limit;
	/* the route entries, known in advance (a million: no rehashing) */
	for (int k = 0; k < 2; k++) {
		const struct xfab_config *cfg = k ? c->cfg : old;

		for (int i = 0; cfg && i < cfg->n_addrs; i++)
			n_lpm[cfg->addrs[i].pfx.family == AF_INET6] += 2;
		for (int i = 0; cfg && i < cfg->n_routes; i++)
			n_lpm[cfg->routes[i].pfx.family == AF_INET6]++;
		for (int i = 0; cfg && i < cfg->n_te; i++)
			n_lpm[cfg->te[i].path.pfx.family == AF_INET6]++;
	}
	for (int f = 0; f < 2; f++)
		L.lpm[f].oom = cap_reserve(&L.lpm[f], n_lpm[f], sizeof(struct lpm_key));
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
			cfg_add_error(
			    &c, next->fib_groups_pos[v6],
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
