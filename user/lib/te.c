// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Traffic engineering: the fabric, the demand, the greedy placement and
 * the pins it needs (te.h, docs/TE.md). */
#include "te.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- the fabric ---- */

static int te_err(char *err, size_t errlen, const struct json_pos *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int te_err(char *err, size_t errlen, const struct json_pos *pos, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (pos)
		snprintf(err, errlen, "%d:%d: %s", pos->line, pos->col, what);
	else
		snprintf(err, errlen, "%s", what);
	return -1;
}

/* A string member into buf (required or not); -1 after saying why. */
static int get_str(const struct json_value *obj, const char *key, int required, char *buf,
		   size_t len, const char *where, char *err, size_t errlen)
{
	const struct json_value *v = json_get(obj, key);

	buf[0] = '\0';
	if (!v || v->type == JSON_NULL) {
		if (required)
			return te_err(err, errlen, &obj->pos, "%s: missing \"%s\"", where, key);
		return 0;
	}
	if (v->type != JSON_STRING)
		return te_err(err, errlen, &v->pos, "%s.%s: must be a string", where, key);
	if (strlen(v->str) >= len)
		return te_err(err, errlen, &v->pos, "%s.%s: longer than %zu characters", where, key,
			      len - 1);
	snprintf(buf, len, "%s", v->str);
	return 0;
}

/* A non-negative integer member in [lo, hi]; absent or null: *out = 0 when
 * optional. */
static int get_uint(const struct json_value *obj, const char *key, int required, uint64_t lo,
		    uint64_t hi, uint64_t *out, const char *where, char *err, size_t errlen)
{
	const struct json_value *v = json_get(obj, key);
	unsigned long long x;
	char *end;

	*out = 0;
	if (!v || v->type == JSON_NULL) {
		if (required)
			return te_err(err, errlen, &obj->pos, "%s: missing \"%s\"", where, key);
		return 0;
	}
	if (v->type != JSON_NUMBER || v->str[0] < '0' || v->str[0] > '9')
		return te_err(err, errlen, &v->pos, "%s.%s: must be an integer %llu..%llu", where,
			      key, (unsigned long long)lo, (unsigned long long)hi);
	errno = 0;
	x = strtoull(v->str, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return te_err(err, errlen, &v->pos, "%s.%s: must be an integer %llu..%llu", where,
			      key, (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

/* "a.b.c.d/len" into address and length. */
static int parse_v4(const char *s, struct in_addr *addr, int *plen)
{
	char copy[32], *slash, *end;
	long l;

	if (strlen(s) >= sizeof(copy))
		return -1;
	snprintf(copy, sizeof(copy), "%s", s);
	slash = strchr(copy, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (inet_pton(AF_INET, copy, addr) != 1 || !slash[1])
		return -1;
	l = strtol(slash + 1, &end, 10);
	if (*end || l < 0 || l > 32)
		return -1;
	*plen = (int)l;
	return 0;
}

int xfab_te_switch_index(const struct xfab_te_fabric *f, const char *name)
{
	for (int i = 0; i < f->n_switches; i++)
		if (!strcmp(f->sw[i].name, name))
			return i;
	return -1;
}

int xfab_te_port_index(const struct xfab_te_fabric *f, int sw, const char *port)
{
	if (sw < 0 || sw >= f->n_switches)
		return -1;
	for (int p = 0; p < f->sw[sw].n_ports; p++)
		if (!strcmp(f->sw[sw].ports[p].name, port))
			return p;
	return -1;
}

static int host_by_addr(const struct xfab_te_fabric *f, struct in_addr a)
{
	for (int i = 0; i < f->n_hosts; i++)
		if (f->hosts[i].addr.s_addr == a.s_addr)
			return i;
	return -1;
}

int xfab_te_host_index(const struct xfab_te_fabric *f, const char *name_or_addr)
{
	struct in_addr a;

	for (int i = 0; i < f->n_hosts; i++)
		if (!strcmp(f->hosts[i].name, name_or_addr))
			return i;
	if (inet_pton(AF_INET, name_or_addr, &a) == 1)
		return host_by_addr(f, a);
	return -1;
}

void xfab_te_fabric_free(struct xfab_te_fabric *f)
{
	if (!f)
		return;
	for (int i = 0; f->sw && i < f->n_switches; i++)
		free(f->sw[i].ports);
	free(f->sw);
	free(f->hosts);
	free(f->links);
	free(f);
}

/* One switch's own fields and ports (peers are resolved later). */
static int parse_switch(const struct json_value *m, struct xfab_te_switch *s, char *err,
			size_t errlen)
{
	const struct json_value *ports;
	char where[96];
	uint64_t tier;

	snprintf(where, sizeof(where), "switches.%s", m->key);
	if (m->type != JSON_OBJECT)
		return te_err(err, errlen, &m->pos, "%s: must be an object", where);
	if (strlen(m->key) >= sizeof(s->name) || !m->key[0])
		return te_err(err, errlen, &m->key_pos, "%s: a name is 1 to %zu characters", where,
			      sizeof(s->name) - 1);
	snprintf(s->name, sizeof(s->name), "%s", m->key);
	if (get_uint(m, "tier", 1, 1, XFAB_TE_MAX_TIERS, &tier, where, err, errlen) ||
	    get_str(m, "netns", 0, s->netns, sizeof(s->netns), where, err, errlen) ||
	    get_str(m, "ctl", 0, s->ctl, sizeof(s->ctl), where, err, errlen) ||
	    get_str(m, "pins", 0, s->pins, sizeof(s->pins), where, err, errlen))
		return -1;
	s->tier = (int)tier;
	ports = json_get(m, "ports");
	if (!ports || ports->type != JSON_OBJECT)
		return te_err(err, errlen, ports ? &ports->pos : &m->pos,
			      "%s.ports: must be an object of ports", where);
	if (ports->count > XFAB_TE_MAX_PORTS)
		return te_err(err, errlen, &ports->pos, "%s.ports: more than %d", where,
			      XFAB_TE_MAX_PORTS);
	s->ports = calloc(ports->count ? ports->count : 1, sizeof(*s->ports));
	if (!s->ports)
		return te_err(err, errlen, NULL, "out of memory");
	s->n_ports = (int)ports->count;
	for (unsigned i = 0; i < ports->count; i++) {
		const struct json_value *pm = &ports->children[i];
		struct xfab_te_port *p = &s->ports[i];
		char pwhere[128], dir[16], v4[32];
		uint64_t speed;
		int plen;

		snprintf(pwhere, sizeof(pwhere), "%s.ports.%s", where, pm->key);
		if (pm->type != JSON_OBJECT)
			return te_err(err, errlen, &pm->pos, "%s: must be an object", pwhere);
		if (strlen(pm->key) >= sizeof(p->name) || !pm->key[0])
			return te_err(err, errlen, &pm->key_pos,
				      "%s: a port name is 1 to %zu characters", pwhere,
				      sizeof(p->name) - 1);
		snprintf(p->name, sizeof(p->name), "%s", pm->key);
		if (get_str(pm, "direction", 1, dir, sizeof(dir), pwhere, err, errlen) ||
		    get_str(pm, "ipv4", 0, v4, sizeof(v4), pwhere, err, errlen) ||
		    get_uint(pm, "speed_mbps", 0, 1, 100000000, &speed, pwhere, err, errlen))
			return -1;
		if (strcmp(dir, "up") && strcmp(dir, "down"))
			return te_err(err, errlen, &json_get(pm, "direction")->pos,
				      "%s.direction: must be up or down", pwhere);
		p->up = !strcmp(dir, "up");
		if (v4[0] && parse_v4(v4, &p->addr, &plen))
			return te_err(err, errlen, &json_get(pm, "ipv4")->pos,
				      "%s.ipv4: \"%s\" is not an IPv4 address with a length",
				      pwhere, v4);
		p->speed_mbps = (uint32_t)speed;
		p->peer_sw = p->peer_host = p->peer_port = p->link = -1;
		p->oper_up = 1;
	}
	return 0;
}

/* Ports' peers, both ends agreeing; the switch-switch links. */
static int resolve_ports(struct xfab_te_fabric *f, const struct json_value *switches, char *err,
			 size_t errlen)
{
	int n_links = 0;

	for (int i = 0; i < f->n_switches; i++) {
		struct xfab_te_switch *s = &f->sw[i];
		const struct json_value *ports = json_get(&switches->children[i], "ports");

		for (int p = 0; p < s->n_ports; p++) {
			const struct json_value *pm = &ports->children[p];
			struct xfab_te_port *port = &s->ports[p];
			char where[128], peer[32], peer_port[16];

			snprintf(where, sizeof(where), "switches.%s.ports.%s", s->name, port->name);
			if (get_str(pm, "peer", 1, peer, sizeof(peer), where, err, errlen) ||
			    get_str(pm, "peer_port", 1, peer_port, sizeof(peer_port), where, err,
				    errlen))
				return -1;
			port->peer_sw = xfab_te_switch_index(f, peer);
			if (port->peer_sw < 0) {
				port->peer_host = xfab_te_host_index(f, peer);
				if (port->peer_host < 0 ||
				    strcmp(f->hosts[port->peer_host].name, peer))
					return te_err(err, errlen, &json_get(pm, "peer")->pos,
						      "%s.peer: no switch or host named \"%s\"",
						      where, peer);
				if (f->hosts[port->peer_host].leaf != i ||
				    f->hosts[port->peer_host].leaf_port != p || port->up)
					return te_err(
					    err, errlen, &json_get(pm, "peer")->pos,
					    "%s.peer: host %s is not on this port (hosts.%s "
					    "says otherwise), or the port is not down",
					    where, peer, peer);
				continue;
			}
			port->peer_port = xfab_te_port_index(f, port->peer_sw, peer_port);
			if (port->peer_port < 0)
				return te_err(err, errlen, &json_get(pm, "peer_port")->pos,
					      "%s.peer_port: %s has no port %s", where, peer,
					      peer_port);
			if (!port->addr.s_addr)
				return te_err(err, errlen, &pm->pos,
					      "%s: a fabric link needs an ipv4 address (the pins' "
					      "gateways)",
					      where);
			if (port->up)
				n_links++;
		}
	}
	/* both ends name each other, a tier apart in the direction they say */
	for (int i = 0; i < f->n_switches; i++)
		for (int p = 0; p < f->sw[i].n_ports; p++) {
			const struct xfab_te_port *port = &f->sw[i].ports[p];
			const struct xfab_te_switch *o;
			const struct xfab_te_port *back;

			if (port->peer_sw < 0)
				continue;
			o = &f->sw[port->peer_sw];
			back = &o->ports[port->peer_port];
			if (back->peer_sw != i || back->peer_port != p)
				return te_err(err, errlen, NULL,
					      "switches.%s.ports.%s: %s %s does not name this port "
					      "back",
					      f->sw[i].name, port->name, o->name, back->name);
			if (o->tier != f->sw[i].tier + (port->up ? 1 : -1))
				return te_err(
				    err, errlen, NULL,
				    "switches.%s.ports.%s: direction %s, but %s is tier %d "
				    "and this switch tier %d",
				    f->sw[i].name, port->name, port->up ? "up" : "down", o->name,
				    o->tier, f->sw[i].tier);
		}
	f->links = calloc(n_links ? (size_t)n_links : 1, sizeof(*f->links));
	if (!f->links)
		return te_err(err, errlen, NULL, "out of memory");
	for (int i = 0; i < f->n_switches; i++)
		for (int p = 0; p < f->sw[i].n_ports; p++) {
			struct xfab_te_port *port = &f->sw[i].ports[p];
			struct xfab_te_link *l;

			if (!port->up || port->peer_sw < 0)
				continue;
			l = &f->links[f->n_links];
			l->lower = i;
			l->lower_port = p;
			l->upper = port->peer_sw;
			l->upper_port = port->peer_port;
			port->link = f->n_links;
			f->sw[l->upper].ports[l->upper_port].link = f->n_links;
			f->n_links++;
		}
	return 0;
}

/* Each link's scale: the fastest link's speed over its own, when every
 * link has a speed; 1 otherwise. */
static void link_scales(struct xfab_te_fabric *f)
{
	uint32_t fastest = 0;
	int all = 1;

	for (int l = 0; l < f->n_links; l++) {
		uint32_t sp = f->sw[f->links[l].lower].ports[f->links[l].lower_port].speed_mbps;

		if (!sp)
			all = 0;
		if (sp > fastest)
			fastest = sp;
	}
	for (int l = 0; l < f->n_links; l++) {
		uint32_t sp = f->sw[f->links[l].lower].ports[f->links[l].lower_port].speed_mbps;

		f->links[l].scale = all && sp ? (double)fastest / sp : 1.0;
	}
}

static int parse_hosts(struct xfab_te_fabric *f, const struct json_value *hosts, char *err,
		       size_t errlen)
{
	for (unsigned i = 0; i < hosts->count; i++) {
		const struct json_value *m = &hosts->children[i];
		struct xfab_te_host *h = &f->hosts[i];
		char where[64], leaf[32], port[16], v4[32];
		uint32_t mask;

		snprintf(where, sizeof(where), "hosts.%s", m->key);
		if (m->type != JSON_OBJECT)
			return te_err(err, errlen, &m->pos, "%s: must be an object", where);
		if (strlen(m->key) >= sizeof(h->name) || !m->key[0])
			return te_err(err, errlen, &m->key_pos, "%s: a name is 1 to %zu characters",
				      where, sizeof(h->name) - 1);
		snprintf(h->name, sizeof(h->name), "%s", m->key);
		if (xfab_te_switch_index(f, h->name) >= 0)
			return te_err(err, errlen, &m->key_pos, "%s: also a switch's name", where);
		if (get_str(m, "leaf", 1, leaf, sizeof(leaf), where, err, errlen) ||
		    get_str(m, "leaf_port", 1, port, sizeof(port), where, err, errlen) ||
		    get_str(m, "ipv4", 1, v4, sizeof(v4), where, err, errlen))
			return -1;
		h->leaf = xfab_te_switch_index(f, leaf);
		if (h->leaf < 0 || f->sw[h->leaf].tier != 1)
			return te_err(err, errlen, &json_get(m, "leaf")->pos,
				      "%s.leaf: \"%s\" is no leaf (tier 1) of the fabric", where,
				      leaf);
		h->leaf_port = xfab_te_port_index(f, h->leaf, port);
		if (h->leaf_port < 0)
			return te_err(err, errlen, &json_get(m, "leaf_port")->pos,
				      "%s.leaf_port: %s has no port %s", where, leaf, port);
		if (parse_v4(v4, &h->addr, &h->plen) || h->plen == 0)
			return te_err(err, errlen, &json_get(m, "ipv4")->pos,
				      "%s.ipv4: \"%s\" is not an IPv4 address with a length 1..32",
				      where, v4);
		mask = h->plen == 32 ? 0xffffffffu : ~(0xffffffffu >> h->plen);
		h->net.s_addr = htonl(ntohl(h->addr.s_addr) & mask);
		for (unsigned j = 0; j < i; j++)
			if (f->hosts[j].addr.s_addr == h->addr.s_addr)
				return te_err(err, errlen, &json_get(m, "ipv4")->pos,
					      "%s.ipv4: %s has the same address", where,
					      f->hosts[j].name);
		h->prefix_id = f->n_prefixes;
		for (unsigned j = 0; j < i; j++)
			if (f->hosts[j].net.s_addr == h->net.s_addr &&
			    f->hosts[j].plen == h->plen) {
				if (f->hosts[j].leaf != h->leaf)
					return te_err(
					    err, errlen, &json_get(m, "ipv4")->pos,
					    "%s.ipv4: its subnet is also %s's, on another "
					    "leaf",
					    where, f->hosts[j].name);
				h->prefix_id = f->hosts[j].prefix_id;
				break;
			}
		if (h->prefix_id == f->n_prefixes)
			f->n_prefixes++;
	}
	return 0;
}

struct xfab_te_fabric *xfab_te_fabric_parse(const char *text, char *err, size_t errlen)
{
	struct xfab_te_fabric *f = calloc(1, sizeof(*f));
	const struct json_value *switches, *hosts;
	struct json_value *root;
	struct json_pos pos = {1, 1};
	char jerr[160];

	if (!f) {
		te_err(err, errlen, NULL, "out of memory");
		return NULL;
	}
	root = json_parse(text, jerr, sizeof(jerr), &pos);
	if (!root) {
		te_err(err, errlen, &pos, "%s", jerr);
		free(f);
		return NULL;
	}
	if (root->type != JSON_OBJECT) {
		te_err(err, errlen, &root->pos, "fabric: must be an object");
		goto fail;
	}
	if (get_str(root, "name", 0, f->name, sizeof(f->name), "fabric", err, errlen))
		goto fail;
	switches = json_get(root, "switches");
	hosts = json_get(root, "hosts");
	if (!switches || switches->type != JSON_OBJECT || !switches->count) {
		te_err(err, errlen, switches ? &switches->pos : &root->pos,
		       "switches: must be an object of switches");
		goto fail;
	}
	if (!hosts || hosts->type != JSON_OBJECT) {
		te_err(err, errlen, hosts ? &hosts->pos : &root->pos,
		       "hosts: must be an object of hosts");
		goto fail;
	}
	if (switches->count > XFAB_TE_MAX_SWITCHES || hosts->count > XFAB_TE_MAX_HOSTS) {
		te_err(err, errlen, &root->pos, "fabric: more than %d switches or %d hosts",
		       XFAB_TE_MAX_SWITCHES, XFAB_TE_MAX_HOSTS);
		goto fail;
	}
	f->sw = calloc(switches->count, sizeof(*f->sw));
	f->hosts = calloc(hosts->count ? hosts->count : 1, sizeof(*f->hosts));
	if (!f->sw || !f->hosts) {
		te_err(err, errlen, NULL, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < switches->count; i++) {
		f->n_switches = (int)i + 1; /* so that free sees its ports */
		if (parse_switch(&switches->children[i], &f->sw[i], err, errlen))
			goto fail;
	}
	f->n_hosts = (int)hosts->count;
	if (parse_hosts(f, hosts, err, errlen) || resolve_ports(f, switches, err, errlen))
		goto fail;
	link_scales(f);
	json_free(root);
	return f;
fail:
	json_free(root);
	xfab_te_fabric_free(f);
	return NULL;
}

void xfab_te_set_port(struct xfab_te_fabric *f, int sw, int port, int up)
{
	if (sw >= 0 && sw < f->n_switches && port >= 0 && port < f->sw[sw].n_ports)
		f->sw[sw].ports[port].oper_up = !!up;
}

int xfab_te_link_up(const struct xfab_te_fabric *f, int link)
{
	const struct xfab_te_link *l = &f->links[link];

	return f->sw[l->lower].ports[l->lower_port].oper_up &&
	       f->sw[l->upper].ports[l->upper_port].oper_up;
}

void xfab_te_dlink_name(const struct xfab_te_fabric *f, int dlink, char *buf, size_t len)
{
	const struct xfab_te_link *l = &f->links[dlink / 2];
	int from = dlink % 2 ? l->upper : l->lower,
	    port = dlink % 2 ? l->upper_port : l->lower_port;
	int to = dlink % 2 ? l->lower : l->upper;

	snprintf(buf, len, "%s:%s>%s", f->sw[from].name, f->sw[from].ports[port].name,
		 f->sw[to].name);
}

/* ---- demand ---- */

void xfab_te_demands_init(struct xfab_te_demands *dm)
{
	memset(dm, 0, sizeof(*dm));
}

void xfab_te_demands_free(struct xfab_te_demands *dm)
{
	free(dm->d);
	free(dm->slot);
	memset(dm, 0, sizeof(*dm));
}

static size_t pair_slot(int src, int dst, size_t n_slots)
{
	uint64_t k = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & (n_slots - 1);
}

static int demands_rehash(struct xfab_te_demands *dm, size_t n_slots)
{
	int *slot = malloc(n_slots * sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < n_slots; i++)
		slot[i] = -1;
	for (size_t i = 0; i < dm->n; i++) {
		size_t s = pair_slot(dm->d[i].src, dm->d[i].dst, n_slots);

		while (slot[s] >= 0)
			s = (s + 1) & (n_slots - 1);
		slot[s] = (int)i;
	}
	free(dm->slot);
	dm->slot = slot;
	dm->n_slots = n_slots;
	return 0;
}

int xfab_te_demand_add(struct xfab_te_demands *dm, int src, int dst, uint64_t bytes)
{
	size_t s;

	if (src < 0 || dst < 0 || src == dst)
		return -EINVAL;
	if ((dm->n + 1) * 2 > dm->n_slots && demands_rehash(dm, dm->n_slots ? dm->n_slots * 2 : 64))
		return -ENOMEM;
	for (s = pair_slot(src, dst, dm->n_slots); dm->slot[s] >= 0;
	     s = (s + 1) & (dm->n_slots - 1)) {
		struct xfab_te_demand *d = &dm->d[dm->slot[s]];

		if (d->src == src && d->dst == dst) {
			if (d->bytes > UINT64_MAX - bytes)
				return -ERANGE;
			d->bytes += bytes;
			return 0;
		}
	}
	if (dm->n == dm->cap) {
		size_t cap = dm->cap ? dm->cap * 2 : 32;
		struct xfab_te_demand *d = realloc(dm->d, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		dm->d = d;
		dm->cap = cap;
	}
	dm->d[dm->n] = (struct xfab_te_demand){src, dst, bytes};
	dm->slot[s] = (int)dm->n++;
	return 0;
}

int xfab_te_demand_job(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
		       const struct xfab_job *job, char *err, size_t errlen)
{
	int host[XFAB_JOB_MAX_RANKS];
	struct xfab_job_conn *conns;
	size_t n;
	uint64_t per_conn = xfab_job_qp_bytes(job) * job->qps;
	const char *name = job->name[0] ? job->name : "job";

	if (job->n > XFAB_JOB_MAX_RANKS)
		return te_err(err, errlen, NULL, "%s: more than %d ranks", name,
			      XFAB_JOB_MAX_RANKS);
	for (uint32_t r = 0; r < job->n; r++) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &job->ranks[r].addr, a, sizeof(a));
		host[r] = host_by_addr(f, job->ranks[r].addr);
		if (host[r] < 0)
			return te_err(err, errlen, NULL,
				      "%s: rank %u (%s) is no host of the fabric", name, r, a);
		if (job->ranks[r].host[0] && strcmp(job->ranks[r].host, f->hosts[host[r]].name))
			return te_err(err, errlen, NULL,
				      "%s: rank %u is %s in the job, but %s is %s in the fabric",
				      name, r, job->ranks[r].host, a, f->hosts[host[r]].name);
	}
	n = xfab_job_conns(job, NULL, 0);
	conns = calloc(n ? n : 1, sizeof(*conns));
	if (!conns)
		return te_err(err, errlen, NULL, "out of memory");
	xfab_job_conns(job, conns, n);
	for (size_t i = 0; i < n; i++) {
		int rc = xfab_te_demand_add(dm, host[conns[i].src], host[conns[i].dst], per_conn);

		if (rc) {
			free(conns);
			return te_err(err, errlen, NULL, "%s: %s", name,
				      rc == -ERANGE ? "a pair's bytes overflow" : strerror(-rc));
		}
	}
	free(conns);
	return 0;
}

int xfab_te_demand_matrix(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
			  const char *text, char *err, size_t errlen)
{
	struct json_pos pos = {1, 1};
	char jerr[160];
	struct json_value *root = json_parse(text, jerr, sizeof(jerr), &pos);
	struct xfab_te_demand *tmp = NULL;
	int ret = -1;

	if (!root)
		return te_err(err, errlen, &pos, "%s", jerr);
	if (root->type != JSON_ARRAY) {
		te_err(err, errlen, &root->pos,
		       "a traffic matrix is an array of {\"src\", \"dst\", \"bytes\"}");
		goto out;
	}
	tmp = calloc(root->count ? root->count : 1, sizeof(*tmp));
	if (!tmp) {
		te_err(err, errlen, NULL, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < root->count; i++) {
		const struct json_value *e = &root->children[i];
		char where[32], src[64], dst[64];
		uint64_t bytes;

		snprintf(where, sizeof(where), "[%u]", i);
		if (e->type != JSON_OBJECT) {
			te_err(err, errlen, &e->pos, "%s: must be an object", where);
			goto out;
		}
		for (unsigned k = 0; k < e->count; k++)
			if (strcmp(e->children[k].key, "src") &&
			    strcmp(e->children[k].key, "dst") &&
			    strcmp(e->children[k].key, "bytes")) {
				te_err(err, errlen, &e->children[k].key_pos,
				       "%s: unknown field \"%.32s\" (src, dst, bytes)", where,
				       e->children[k].key);
				goto out;
			}
		if (get_str(e, "src", 1, src, sizeof(src), where, err, errlen) ||
		    get_str(e, "dst", 1, dst, sizeof(dst), where, err, errlen) ||
		    get_uint(e, "bytes", 1, 1, UINT64_MAX >> 1, &bytes, where, err, errlen))
			goto out;
		tmp[i].src = xfab_te_host_index(f, src);
		tmp[i].dst = xfab_te_host_index(f, dst);
		tmp[i].bytes = bytes;
		if (tmp[i].src < 0 || tmp[i].dst < 0) {
			const char *k = tmp[i].src < 0 ? "src" : "dst";

			te_err(err, errlen, &json_get(e, k)->pos,
			       "%s.%s: no host \"%s\" in the fabric", where, k,
			       tmp[i].src < 0 ? src : dst);
			goto out;
		}
		if (tmp[i].src == tmp[i].dst) {
			te_err(err, errlen, &json_get(e, "dst")->pos,
			       "%s.dst: the same host as src", where);
			goto out;
		}
	}
	/* all or nothing: dm changes only once every entry is good */
	{
		struct xfab_te_demands copy;

		xfab_te_demands_init(&copy);
		for (size_t i = 0; i < dm->n; i++)
			if (xfab_te_demand_add(&copy, dm->d[i].src, dm->d[i].dst, dm->d[i].bytes))
				goto nomem;
		for (unsigned i = 0; i < root->count; i++) {
			int rc = xfab_te_demand_add(&copy, tmp[i].src, tmp[i].dst, tmp[i].bytes);

			if (rc == -ERANGE) {
				xfab_te_demands_free(&copy);
				te_err(err, errlen, &root->children[i].pos,
				       "[%u].bytes: the pair's bytes overflow", i);
				goto out;
			}
			if (rc)
				goto nomem;
		}
		xfab_te_demands_free(dm);
		*dm = copy;
		ret = 0;
		goto out;
	nomem:
		xfab_te_demands_free(&copy);
		te_err(err, errlen, NULL, "out of memory");
	}
out:
	free(tmp);
	json_free(root);
	return ret;
}

/* ---- paths ---- */

/* A candidate path: the switches from the source leaf to the destination
 * leaf, the ports in and out of each, the directed links between, and
 * which hops are choices (pins). */
struct cand {
	int n;
	int sw[XFAB_TE_MAX_HOPS], in[XFAB_TE_MAX_HOPS], out[XFAB_TE_MAX_HOPS];
	int dl[XFAB_TE_MAX_HOPS - 1];
	unsigned pin_mask; /* bit i: the switch at hop i has a choice here */
};

struct walk {
	const struct xfab_te_fabric *f;
	const unsigned char *reach; /* [level][switch]: reaches dst leaf in level hops down */
	unsigned char *good;	    /* [level][switch]: can go on up (or turn) and reach it */
	int k;			    /* levels up */
	int dst_port;		    /* the destination host's port on the last leaf */
	struct cand cur;
	struct cand *out;
	size_t n_out, max_out;
	int overflow;
};

#define AT(arr, lvl, sw, n) ((arr)[(size_t)(lvl) * (size_t)(n) + (size_t)(sw)])

/* reach[r][sw]: sw reaches leaf dst going down r hops */
static void down_reach(const struct xfab_te_fabric *f, int dst, unsigned char *reach)
{
	int n = f->n_switches;

	memset(reach, 0, (size_t)XFAB_TE_MAX_TIERS * (size_t)n);
	AT(reach, 0, dst, n) = 1;
	for (int r = 1; r < XFAB_TE_MAX_TIERS; r++)
		for (int s = 0; s < n; s++)
			for (int p = 0; p < f->sw[s].n_ports; p++) {
				const struct xfab_te_port *port = &f->sw[s].ports[p];

				if (!port->up && port->peer_sw >= 0 &&
				    AT(reach, r - 1, port->peer_sw, n)) {
					AT(reach, r, s, n) = 1;
					break;
				}
			}
}

/* The fewest levels up from leaf src that a path to the leaf reach was
 * computed for needs, with good[][] filled for it; -1: none. */
static int levels_up(const struct xfab_te_fabric *f, int src, const unsigned char *reach,
		     unsigned char *good)
{
	int n = f->n_switches, k = -1;

	/* good first holds the switches k levels up from src */
	memset(good, 0, (size_t)XFAB_TE_MAX_TIERS * (size_t)n);
	AT(good, 0, src, n) = 1;
	for (int d = 1; d < XFAB_TE_MAX_TIERS && k < 0; d++) {
		for (int s = 0; s < n; s++) {
			if (!AT(good, d - 1, s, n))
				continue;
			for (int p = 0; p < f->sw[s].n_ports; p++)
				if (f->sw[s].ports[p].up && f->sw[s].ports[p].peer_sw >= 0)
					AT(good, d, f->sw[s].ports[p].peer_sw, n) = 1;
		}
		for (int s = 0; s < n && k < 0; s++)
			if (AT(good, d, s, n) && AT(reach, d, s, n))
				k = d;
	}
	if (k < 0)
		return -1;
	/* then only those that lead on to the turn and down */
	for (int s = 0; s < n; s++)
		AT(good, k, s, n) = AT(good, k, s, n) && AT(reach, k, s, n);
	for (int d = k - 1; d >= 0; d--)
		for (int s = 0; s < n; s++) {
			int any = 0;

			if (!AT(good, d, s, n))
				continue;
			for (int p = 0; p < f->sw[s].n_ports && !any; p++)
				any = f->sw[s].ports[p].up && f->sw[s].ports[p].peer_sw >= 0 &&
				      AT(good, d + 1, f->sw[s].ports[p].peer_sw, n);
			AT(good, d, s, n) = (unsigned char)any;
		}
	for (int d = k + 1; d < XFAB_TE_MAX_TIERS; d++)
		memset(&AT(good, d, 0, n), 0, (size_t)n);
	return k;
}

/* Depth-first over the shortest up-down paths, in port order. */
static void walk(struct walk *w, int pos, int sw, int in, int level, int up, unsigned mask)
{
	const struct xfab_te_fabric *f = w->f;
	const struct xfab_te_switch *s = &f->sw[sw];
	int n = f->n_switches, choices = 0;

	if (w->overflow)
		return;
	w->cur.sw[pos] = sw;
	w->cur.in[pos] = in;
	if (up && level == w->k)
		up = 0; /* the turn */
	if (!up && level == 0) {
		if (w->n_out == w->max_out) {
			w->overflow = 1;
			return;
		}
		w->cur.out[pos] = w->dst_port;
		w->cur.n = pos + 1;
		w->cur.pin_mask = mask;
		w->out[w->n_out++] = w->cur;
		return;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int p = 0; p < s->n_ports; p++) {
			const struct xfab_te_port *port = &s->ports[p];
			int ok = port->peer_sw >= 0 && port->up == up &&
				 (up ? AT(w->good, level + 1, port->peer_sw, n)
				     : AT(w->reach, level - 1, port->peer_sw, n));

			if (!ok)
				continue;
			if (pass == 0) {
				choices++;
				continue;
			}
			w->cur.out[pos] = p;
			w->cur.dl[pos] = 2 * port->link + (up ? 0 : 1);
			walk(w, pos + 1, port->peer_sw, port->peer_port, up ? level + 1 : level - 1,
			     up, choices > 1 ? mask | 1u << pos : mask);
		}
}

/* ---- pins as they are fixed: (switch, ingress, prefix) -> pin ---- */

struct keytab {
	uint64_t *key;
	int *pin; /* index into the plan's pins; -1 empty */
	size_t n, n_slots;
};

static uint64_t pin_key(int sw, int in, int prefix_id)
{
	return (uint64_t)(uint32_t)sw << 40 | (uint64_t)(uint32_t)in << 24 | (uint32_t)prefix_id;
}

static size_t key_slot(uint64_t k, size_t n_slots)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (n_slots - 1);
}

static int keytab_find(const struct keytab *t, uint64_t k)
{
	if (!t->n_slots)
		return -1;
	for (size_t s = key_slot(k, t->n_slots);; s = (s + 1) & (t->n_slots - 1)) {
		if (t->pin[s] < 0)
			return -1;
		if (t->key[s] == k)
			return t->pin[s];
	}
}

static int keytab_put(struct keytab *t, uint64_t k, int pin)
{
	size_t s;

	if ((t->n + 1) * 2 > t->n_slots) {
		size_t n_slots = t->n_slots ? t->n_slots * 2 : 256;
		uint64_t *key = malloc(n_slots * sizeof(*key));
		int *p = malloc(n_slots * sizeof(*p));

		if (!key || !p) {
			free(key);
			free(p);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n_slots; i++)
			p[i] = -1;
		for (size_t i = 0; i < t->n_slots; i++) {
			if (t->pin[i] < 0)
				continue;
			for (s = key_slot(t->key[i], n_slots); p[s] >= 0;
			     s = (s + 1) & (n_slots - 1))
				;
			key[s] = t->key[i];
			p[s] = t->pin[i];
		}
		free(t->key);
		free(t->pin);
		t->key = key;
		t->pin = p;
		t->n_slots = n_slots;
	}
	for (s = key_slot(k, t->n_slots); t->pin[s] >= 0; s = (s + 1) & (t->n_slots - 1))
		;
	t->key[s] = k;
	t->pin[s] = pin;
	t->n++;
	return 0;
}

/* ---- the plan ---- */

static int by_demand(const void *a, const void *b)
{
	const struct xfab_te_pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int by_key(const void *a, const void *b)
{
	const struct xfab_te_pin *x = a, *y = b;
	uint32_t px = ntohl(x->prefix.s_addr), py = ntohl(y->prefix.s_addr);

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->in != y->in)
		return x->in < y->in ? -1 : 1;
	if (px != py)
		return px < py ? -1 : 1;
	return (x->plen > y->plen) - (x->plen < y->plen);
}

/* Relative tolerance of load comparisons (loads scaled by link speeds are
 * not whole numbers). */
static int less(double a, double b)
{
	double mag = b < 0 ? -b : b;

	return a < b - 1e-9 * (mag > 1.0 ? mag : 1.0);
}

struct placer {
	const struct xfab_te_fabric *f;
	struct xfab_te_plan *plan;
	struct keytab keys;
	size_t pin_cap;
	unsigned char *reach_of; /* per destination leaf, computed once: [leaf][level][switch] */
	unsigned char *reach_done;
	unsigned char *good;
	struct cand *cands; /* the pair at hand's candidates */
	size_t n_cands;
	struct cand *taken; /* per pair: the path it holds */
	int *pin_of;	    /* per pair and hop: the pin it holds there, -1 none */
};

/* Whether c agrees with every pin in force for prefix_id (a pin no pair
 * holds any more is in force for nobody). */
static int consistent(const struct placer *pl, const struct cand *c, int prefix_id)
{
	const struct xfab_te_pin *pins = pl->plan->pins;

	for (int i = 0; i < c->n; i++) {
		int pin;

		if (!(c->pin_mask & 1u << i))
			continue;
		pin = keytab_find(&pl->keys, pin_key(c->sw[i], c->in[i], prefix_id));
		if (pin >= 0 && pins[pin].pairs > 0 && pins[pin].out != c->out[i])
			return 0;
	}
	return 1;
}

static int live(const struct xfab_te_fabric *f, const struct cand *c)
{
	for (int i = 0; i < c->n - 1; i++)
		if (!xfab_te_link_up(f, c->dl[i] / 2))
			return 0;
	return 1;
}

/* Pair idx onto c: its loads on the links, its pins held (made, or taken
 * over from no pair); the pair records the path. */
static int take(struct placer *pl, size_t idx, const struct cand *c)
{
	const struct xfab_te_fabric *f = pl->f;
	struct xfab_te_plan *plan = pl->plan;
	struct xfab_te_pair *pr = &plan->pairs[idx];
	const struct xfab_te_host *dst = &f->hosts[pr->dst];
	int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < c->n - 1; i++)
		plan->load[c->dl[i]] += (double)pr->bytes * f->links[c->dl[i] / 2].scale;
	pr->state = XFAB_TE_PLACED;
	pr->n_hops = c->n;
	memcpy(pr->sw, c->sw, sizeof(pr->sw));
	memcpy(pr->in, c->in, sizeof(pr->in));
	memcpy(pr->out, c->out, sizeof(pr->out));
	memcpy(pr->dlink, c->dl, sizeof(pr->dlink));
	pl->taken[idx] = *c;
	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		held[i] = -1;
	for (int i = 0; i < c->n; i++) {
		uint64_t k = pin_key(c->sw[i], c->in[i], dst->prefix_id);
		const struct xfab_te_port *out = &f->sw[c->sw[i]].ports[c->out[i]];
		struct xfab_te_pin *p;
		int pin;

		if (!(c->pin_mask & 1u << i))
			continue;
		pin = keytab_find(&pl->keys, k);
		if (pin < 0) {
			if (plan->n_pins == pl->pin_cap) {
				size_t cap = pl->pin_cap ? pl->pin_cap * 2 : 64;
				struct xfab_te_pin *grown =
				    realloc(plan->pins, cap * sizeof(*grown));

				if (!grown)
					return -ENOMEM;
				plan->pins = grown;
				pl->pin_cap = cap;
			}
			pin = (int)plan->n_pins++;
			memset(&plan->pins[pin], 0, sizeof(plan->pins[pin]));
			if (keytab_put(&pl->keys, k, pin))
				return -ENOMEM;
		}
		p = &plan->pins[pin];
		if (!p->pairs) { /* new, or held by no pair any more: this path's */
			p->sw = c->sw[i];
			p->in = c->in[i];
			p->out = c->out[i];
			p->dst_host = pr->dst;
			p->prefix = dst->net;
			p->plen = dst->plen;
			p->via = f->sw[out->peer_sw].ports[out->peer_port].addr;
		}
		p->pairs++;
		p->bytes += pr->bytes;
		held[i] = pin;
	}
	return 0;
}

/* Pair idx off its path: loads and pins given back. */
static void untake(struct placer *pl, size_t idx)
{
	const struct xfab_te_fabric *f = pl->f;
	struct xfab_te_plan *plan = pl->plan;
	struct xfab_te_pair *pr = &plan->pairs[idx];
	const struct cand *c = &pl->taken[idx];
	int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < c->n - 1; i++)
		plan->load[c->dl[i]] -= (double)pr->bytes * f->links[c->dl[i] / 2].scale;
	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		if (held[i] >= 0) {
			plan->pins[held[i]].pairs--;
			plan->pins[held[i]].bytes -= pr->bytes;
			held[i] = -1;
		}
	pr->state = XFAB_TE_NO_PATH;
}

/* The pair's candidates (the whole topology's shortest paths) into
 * pl->cands; -1 with err past XFAB_TE_MAX_PATHS. */
static int candidates(struct placer *pl, const struct xfab_te_pair *pr, char *err, size_t errlen)
{
	const struct xfab_te_fabric *f = pl->f;
	int a = f->hosts[pr->src].leaf, b = f->hosts[pr->dst].leaf;
	size_t tiers = (size_t)XFAB_TE_MAX_TIERS * (size_t)f->n_switches;
	unsigned char *reach = pl->reach_of + (size_t)b * tiers;
	struct walk w = {.f = f, .out = pl->cands, .max_out = XFAB_TE_MAX_PATHS};

	pl->n_cands = 0;
	if (!pl->reach_done[b]) {
		down_reach(f, b, reach);
		pl->reach_done[b] = 1;
	}
	w.reach = reach;
	w.good = pl->good;
	w.k = levels_up(f, a, reach, pl->good);
	if (w.k < 0)
		return 0; /* the topology joins no path */
	w.dst_port = f->hosts[pr->dst].leaf_port;
	walk(&w, 0, a, f->hosts[pr->src].leaf_port, 0, 1, 0);
	if (w.overflow)
		return te_err(err, errlen, NULL, "%s -> %s: more than %d candidate paths",
			      f->hosts[pr->src].name, f->hosts[pr->dst].name, XFAB_TE_MAX_PATHS);
	pl->n_cands = w.n_out;
	return 0;
}

/* Of pl->cands, the live one that agrees with the pins in force whose most
 * loaded link, with the pair added, is least loaded (then the smaller sum,
 * then the first found); -1 when none. *worst_out: that link's load. */
static int best_candidate(const struct placer *pl, const struct xfab_te_pair *pr, double *worst_out)
{
	const struct xfab_te_fabric *f = pl->f;
	double best_max = 0, best_sum = 0;
	int best = -1;

	for (size_t i = 0; i < pl->n_cands; i++) {
		const struct cand *c = &pl->cands[i];
		double worst = 0, sum = 0;

		if (!live(f, c) || !consistent(pl, c, f->hosts[pr->dst].prefix_id))
			continue;
		for (int h = 0; h < c->n - 1; h++) {
			double after = pl->plan->load[c->dl[h]] +
				       (double)pr->bytes * f->links[c->dl[h] / 2].scale;

			sum += after;
			if (after > worst)
				worst = after;
		}
		if (best < 0 || less(worst, best_max) ||
		    (!less(best_max, worst) && less(sum, best_sum))) {
			best = (int)i;
			best_max = worst;
			best_sum = sum;
		}
	}
	*worst_out = best_max;
	return best;
}

static int place(struct placer *pl, size_t idx, char *err, size_t errlen)
{
	struct xfab_te_pair *pr = &pl->plan->pairs[idx];
	double worst;
	int best;

	if (pl->f->hosts[pr->src].leaf == pl->f->hosts[pr->dst].leaf) {
		pr->state = XFAB_TE_SAME_LEAF;
		return 0;
	}
	pr->state = XFAB_TE_NO_PATH;
	if (candidates(pl, pr, err, errlen))
		return -1;
	for (size_t i = 0; i < pl->n_cands; i++)
		pr->candidates += live(pl->f, &pl->cands[i]);
	best = best_candidate(pl, pr, &worst);
	if (best >= 0 && take(pl, idx, &pl->cands[best]))
		return te_err(err, errlen, NULL, "out of memory");
	return 0;
}

/* Whether pair idx shares a pin with another pair. Such a pair is left
 * where it is: a move could only follow the shared pin (consistent()),
 * and shared pins stay stable from plan to plan. */
static int shares_a_pin(const struct placer *pl, size_t idx)
{
	const int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		if (held[i] >= 0 && pl->plan->pins[held[i]].pairs > 1)
			return 1;
	return 0;
}

static int crosses(const struct xfab_te_pair *pr, int dlink)
{
	for (int i = 0; i < pr->n_hops - 1; i++)
		if (pr->dlink[i] == dlink)
			return 1;
	return 0;
}

/*
 * After the greedy pass: while some pair on the most loaded link has
 * another path whose most loaded link, with the pair on it, stays below
 * that load, the first such pair (in placement order) moves there. Each
 * move lowers the top load or the number of links at it, so this ends; it
 * is bounded besides. Greedy alone can be stuck at twice the optimum
 * (docs/TE.md); pairs that share a pin stay where they are.
 */
static int refine(struct placer *pl, char *err, size_t errlen)
{
	struct xfab_te_plan *plan = pl->plan;
	size_t moves = 4 * plan->n_pairs + 16;

	for (size_t m = 0; m < moves; m++) {
		double top = 0;
		int e = -1, moved = 0;

		for (int d = 0; d < plan->n_dlinks; d++)
			if (plan->load[d] > 0 && (e < 0 || less(top, plan->load[d]))) {
				top = plan->load[d];
				e = d;
			}
		if (e < 0)
			return 0;
		for (size_t i = 0; i < plan->n_pairs && !moved; i++) {
			struct xfab_te_pair *pr = &plan->pairs[i];
			double worst;
			int best;

			if (pr->state != XFAB_TE_PLACED || !crosses(pr, e) || shares_a_pin(pl, i))
				continue;
			if (candidates(pl, pr, err, errlen))
				return -1;
			untake(pl, i);
			best = best_candidate(pl, pr, &worst);
			if (best >= 0 && less(worst, top)) {
				moved = 1;
			} else {
				pl->cands[0] = pl->taken[i];
				best = 0;
			}
			if (take(pl, i, &pl->cands[best]))
				return te_err(err, errlen, NULL, "out of memory");
		}
		if (!moved)
			return 0;
	}
	return 0;
}

void xfab_te_plan_free(struct xfab_te_plan *plan)
{
	free(plan->pairs);
	free(plan->pins);
	free(plan->load);
	memset(plan, 0, sizeof(*plan));
	plan->max_dlink = -1;
}

int xfab_te_plan_compute(const struct xfab_te_fabric *f, const struct xfab_te_demands *dm,
			 struct xfab_te_plan *plan, char *err, size_t errlen)
{
	struct placer pl = {.f = f, .plan = plan};
	size_t tiers = (size_t)XFAB_TE_MAX_TIERS * (size_t)f->n_switches, n = dm->n ? dm->n : 1;
	int ret = -1;

	memset(plan, 0, sizeof(*plan));
	plan->max_dlink = -1;
	plan->n_dlinks = xfab_te_n_dlinks(f);
	plan->load = calloc(plan->n_dlinks ? (size_t)plan->n_dlinks : 1, sizeof(*plan->load));
	plan->pairs = calloc(n, sizeof(*plan->pairs));
	pl.reach_of = malloc(tiers * (size_t)f->n_switches);
	pl.reach_done = calloc((size_t)f->n_switches, 1);
	pl.good = malloc(tiers);
	pl.cands = malloc(XFAB_TE_MAX_PATHS * sizeof(*pl.cands));
	pl.taken = calloc(n, sizeof(*pl.taken));
	pl.pin_of = malloc(n * XFAB_TE_MAX_HOPS * sizeof(*pl.pin_of));
	if (!plan->load || !plan->pairs || !pl.reach_of || !pl.reach_done || !pl.good ||
	    !pl.cands || !pl.taken || !pl.pin_of) {
		te_err(err, errlen, NULL, "out of memory");
		goto out;
	}
	plan->n_pairs = dm->n;
	for (size_t i = 0; i < dm->n; i++) {
		plan->pairs[i].src = dm->d[i].src;
		plan->pairs[i].dst = dm->d[i].dst;
		plan->pairs[i].bytes = dm->d[i].bytes;
		if (dm->d[i].src < 0 || dm->d[i].src >= f->n_hosts || dm->d[i].dst < 0 ||
		    dm->d[i].dst >= f->n_hosts || dm->d[i].src == dm->d[i].dst) {
			te_err(err, errlen, NULL, "demand %zu: not a pair of the fabric's hosts",
			       i);
			goto out;
		}
	}
	qsort(plan->pairs, plan->n_pairs, sizeof(*plan->pairs), by_demand);
	for (size_t i = 0; i < plan->n_pairs * XFAB_TE_MAX_HOPS; i++)
		pl.pin_of[i] = -1;
	for (size_t i = 0; i < plan->n_pairs; i++)
		if (place(&pl, i, err, errlen))
			goto out;
	if (refine(&pl, err, errlen))
		goto out;
	for (size_t i = 0; i < plan->n_pairs; i++) {
		plan->placed += plan->pairs[i].state == XFAB_TE_PLACED;
		plan->same_leaf += plan->pairs[i].state == XFAB_TE_SAME_LEAF;
		plan->no_path += plan->pairs[i].state == XFAB_TE_NO_PATH;
	}
	/* pins no pair holds any more go; the rest in key order */
	{
		size_t k = 0;

		for (size_t i = 0; i < plan->n_pins; i++)
			if (plan->pins[i].pairs)
				plan->pins[k++] = plan->pins[i];
		plan->n_pins = k;
	}
	if (plan->n_pins)
		qsort(plan->pins, plan->n_pins, sizeof(*plan->pins), by_key);
	for (int d = 0; d < plan->n_dlinks; d++)
		if (plan->load[d] > 0 && (plan->max_dlink < 0 || plan->load[d] > plan->max_load)) {
			plan->max_load = plan->load[d];
			plan->max_dlink = d;
		}
	ret = 0;
out:
	free(pl.keys.key);
	free(pl.keys.pin);
	free(pl.reach_of);
	free(pl.reach_done);
	free(pl.good);
	free(pl.cands);
	free(pl.taken);
	free(pl.pin_of);
	if (ret)
		xfab_te_plan_free(plan);
	return ret;
}

int xfab_te_pins_equal(const struct xfab_te_plan *a, const struct xfab_te_plan *b)
{
	if (a->n_pins != b->n_pins)
		return 0;
	for (size_t i = 0; i < a->n_pins; i++) {
		const struct xfab_te_pin *x = &a->pins[i], *y = &b->pins[i];

		if (x->sw != y->sw || x->in != y->in || x->prefix.s_addr != y->prefix.s_addr ||
		    x->plen != y->plen || x->via.s_addr != y->via.s_addr)
			return 0;
	}
	return 1;
}
