// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fabric read from xfab-lab's fabric.json, and what is worked out over
 * it: which end counts a link's direction, ECMP imbalance, a flow's path
 * (fabric.h). */
#include "fabric.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "textfile.h"

/* A string member copied into out (size len): required or not, 1..len-1
 * characters. Absent and not required: out is "". */
static int fab_string(const struct json_value *obj, const char *key, const char *where,
		      int required, char *out, size_t len, char *err, size_t errlen)
{
	const struct json_value *v = json_get(obj, key);
	char field[160];

	snprintf(field, sizeof(field), "%s.%s", where, key);
	out[0] = '\0';
	if (!v || v->type == JSON_NULL)
		return required ? json_errf(err, errlen, obj->pos, field, "missing") : 0;
	if (v->type != JSON_STRING)
		return json_errf(err, errlen, v->pos, field, "a string is needed, not %s",
				 json_type_name(v->type));
	if (!v->str[0] || strlen(v->str) >= len)
		return json_errf(err, errlen, v->pos, field, "1..%zu characters", len - 1);
	snprintf(out, len, "%s", v->str);
	return 0;
}

static const struct json_value *fab_member(const struct json_value *obj, const char *key,
					   enum json_type type, const char *where, char *err,
					   size_t errlen)
{
	const struct json_value *v = json_get(obj, key);
	char field[160];

	snprintf(field, sizeof(field), "%s%s%s", where, where[0] ? "." : "", key);
	if (!v) {
		json_errf(err, errlen, obj->pos, field, "missing");
		return NULL;
	}
	if (v->type != type) {
		json_errf(err, errlen, v->pos, field, "%s is needed, not %s",
			  type == JSON_OBJECT ? "an object" : "an array", json_type_name(v->type));
		return NULL;
	}
	return v;
}

int xfab_fab_switch_find(const struct xfab_fabric *f, const char *name)
{
	for (unsigned int i = 0; i < f->n_switches; i++)
		if (!strcmp(f->switches[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_port_find(const struct xfab_fab_switch *sw, const char *name)
{
	for (unsigned int i = 0; i < sw->n_ports; i++)
		if (!strcmp(sw->ports[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_host_find(const struct xfab_fabric *f, const char *name)
{
	for (unsigned int i = 0; i < f->n_hosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_host_by_addr(const struct xfab_fabric *f, struct in_addr addr)
{
	for (unsigned int i = 0; i < f->n_hosts; i++)
		if (f->hosts[i].addr.s_addr == addr.s_addr)
			return (int)i;
	return -1;
}

/* Names first (switches, their ports; hosts), so peers can be resolved. */
static int parse_switch(const struct json_value *v, struct xfab_fab_switch *sw, char *err,
			size_t errlen)
{
	const struct json_value *tier, *ports;
	char where[96], field[160];

	snprintf(where, sizeof(where), "switches.%s", v->key);
	if (v->type != JSON_OBJECT)
		return json_errf(err, errlen, v->pos, where, "an object is needed, not %s",
				 json_type_name(v->type));
	if (strlen(v->key) >= sizeof(sw->name) || !v->key[0])
		return json_errf(err, errlen, v->key_pos, where, "a name of 1..%zu characters",
				 sizeof(sw->name) - 1);
	snprintf(sw->name, sizeof(sw->name), "%s", v->key);
	tier = json_get(v, "tier");
	snprintf(field, sizeof(field), "%s.tier", where);
	if (!tier)
		return json_errf(err, errlen, v->pos, field, "missing");
	if (tier->type != JSON_NUMBER ||
	    (strcmp(tier->str, "1") && strcmp(tier->str, "2") && strcmp(tier->str, "3")))
		return json_errf(
		    err, errlen, tier->pos, field, "1 (leaf), 2 (spine) or 3 (super-spine), not %s",
		    tier->type == JSON_NUMBER ? tier->str : json_type_name(tier->type));
	sw->tier = tier->str[0] - '0';
	if (fab_string(v, "role", where, 0, sw->role, sizeof(sw->role), err, errlen) ||
	    fab_string(v, "netns", where, 1, sw->netns, sizeof(sw->netns), err, errlen) ||
	    fab_string(v, "pins", where, 1, sw->pins, sizeof(sw->pins), err, errlen) ||
	    fab_string(v, "ctl", where, 0, sw->ctl, sizeof(sw->ctl), err, errlen))
		return -1;
	ports = fab_member(v, "ports", JSON_OBJECT, where, err, errlen);
	if (!ports)
		return -1;
	snprintf(field, sizeof(field), "%s.ports", where);
	if (ports->count > XFAB_FAB_MAX_PORTS)
		return json_errf(err, errlen, ports->pos, field,
				 "%u ports; a switch has at most %d", ports->count,
				 XFAB_FAB_MAX_PORTS);
	sw->n_ports = ports->count;
	for (unsigned int i = 0; i < ports->count; i++) {
		const struct json_value *p = &ports->children[i], *dir;
		struct xfab_fab_port *port = &sw->ports[i];

		snprintf(field, sizeof(field), "%s.ports.%s", where, p->key);
		if (p->type != JSON_OBJECT)
			return json_errf(err, errlen, p->pos, field, "an object is needed, not %s",
					 json_type_name(p->type));
		if (!p->key[0] || strlen(p->key) >= sizeof(port->name))
			return json_errf(err, errlen, p->key_pos, field,
					 "a port name of 1..%zu characters",
					 sizeof(port->name) - 1);
		snprintf(port->name, sizeof(port->name), "%s", p->key);
		if (fab_string(p, "peer", field, 1, port->peer, sizeof(port->peer), err, errlen) ||
		    fab_string(p, "peer_port", field, 1, port->peer_port, sizeof(port->peer_port),
			       err, errlen))
			return -1;
		dir = json_get(p, "direction");
		snprintf(field, sizeof(field), "%s.ports.%s.direction", where, p->key);
		if (!dir)
			return json_errf(err, errlen, p->pos, field, "missing");
		if (dir->type != JSON_STRING ||
		    (strcmp(dir->str, "up") && strcmp(dir->str, "down")))
			return json_errf(err, errlen, dir->pos, field, "\"up\" or \"down\"");
		port->dir = dir->str[0] == 'u' ? XFAB_FAB_UP : XFAB_FAB_DOWN;
		port->peer_sw = port->peer_sw_port = port->peer_host = port->link = -1;
	}
	return 0;
}

static int parse_host(const struct json_value *v, struct xfab_fab_host *h, char *err, size_t errlen)
{
	char where[96], addr[64], *slash;

	snprintf(where, sizeof(where), "hosts.%s", v->key);
	if (v->type != JSON_OBJECT)
		return json_errf(err, errlen, v->pos, where, "an object is needed, not %s",
				 json_type_name(v->type));
	if (!v->key[0] || strlen(v->key) >= sizeof(h->name))
		return json_errf(err, errlen, v->key_pos, where, "a name of 1..%zu characters",
				 sizeof(h->name) - 1);
	snprintf(h->name, sizeof(h->name), "%s", v->key);
	if (fab_string(v, "netns", where, 0, h->netns, sizeof(h->netns), err, errlen) ||
	    fab_string(v, "ipv4", where, 1, addr, sizeof(addr), err, errlen))
		return -1;
	slash = strchr(addr, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, addr, &h->addr) != 1) {
		char field[120];

		snprintf(field, sizeof(field), "%s.ipv4", where);
		return json_errf(err, errlen, json_get(v, "ipv4")->pos, field,
				 "\"%s\" is not an IPv4 address", addr);
	}
	h->leaf = h->leaf_port = -1;
	return 0;
}

/* Peers: every switch port names a node that exists and, for a switch,
 * names this port back; the direction agrees with the tiers. */
static int resolve_ports(const struct json_value *switches, struct xfab_fabric *f, char *err,
			 size_t errlen)
{
	for (unsigned int s = 0; s < f->n_switches; s++) {
		struct xfab_fab_switch *sw = &f->switches[s];
		const struct json_value *ports = json_get(&switches->children[s], "ports");

		for (unsigned int i = 0; i < sw->n_ports; i++) {
			struct xfab_fab_port *p = &sw->ports[i];
			const struct json_value *pv = &ports->children[i];
			const struct json_value *peer = json_get(pv, "peer");
			const struct json_value *peer_port = json_get(pv, "peer_port");
			const struct json_value *dir = json_get(pv, "direction");
			char field[160];
			int o;

			snprintf(field, sizeof(field), "switches.%s.ports.%s", sw->name, p->name);
			p->peer_sw = xfab_fab_switch_find(f, p->peer);
			p->peer_host = p->peer_sw < 0 ? xfab_fab_host_find(f, p->peer) : -1;
			if (p->peer_sw < 0 && p->peer_host < 0)
				return json_errf(err, errlen, peer->pos, field,
						 "peer \"%s\" is neither a switch nor a host",
						 p->peer);
			if (p->peer_host >= 0) {
				struct xfab_fab_host *h = &f->hosts[p->peer_host];

				if (sw->tier != 1 || p->dir != XFAB_FAB_DOWN)
					return json_errf(err, errlen, peer->pos, field,
							 "host %s: hosts hang off leaves (tier 1), "
							 "by ports going down",
							 h->name);
				if (h->leaf >= 0 && (h->leaf != (int)s || h->leaf_port != (int)i))
					return json_errf(
					    err, errlen, peer->pos, field,
					    "host %s is also on %s %s", h->name,
					    f->switches[h->leaf].name,
					    f->switches[h->leaf].ports[h->leaf_port].name);
				h->leaf = (int)s;
				h->leaf_port = (int)i;
				continue;
			}
			o = xfab_fab_port_find(&f->switches[p->peer_sw], p->peer_port);
			if (o < 0)
				return json_errf(err, errlen, peer_port->pos, field,
						 "%s has no port %s", p->peer, p->peer_port);
			if (strcmp(f->switches[p->peer_sw].ports[o].peer, sw->name) ||
			    strcmp(f->switches[p->peer_sw].ports[o].peer_port, p->name))
				return json_errf(err, errlen, peer_port->pos, field,
						 "%s %s names %s %s as its peer, not this port",
						 p->peer, p->peer_port,
						 f->switches[p->peer_sw].ports[o].peer,
						 f->switches[p->peer_sw].ports[o].peer_port);
			p->peer_sw_port = o;
			if (f->switches[p->peer_sw].tier ==
			    sw->tier + (p->dir == XFAB_FAB_UP ? 1 : -1))
				continue;
			return json_errf(err, errlen, dir->pos, field,
					 "\"%s\" to %s, a tier %d switch, from tier %d",
					 p->dir == XFAB_FAB_UP ? "up" : "down", p->peer,
					 f->switches[p->peer_sw].tier, sw->tier);
		}
	}
	return 0;
}

/* One end of a link: a switch's port, or a host. */
static int link_end(const struct xfab_fabric *f, const struct json_value *ln, const char *node_key,
		    const char *port_key, const char *where, int *node, int *port, int *host,
		    char *err, size_t errlen)
{
	char name[32], pname[16], field[96];

	if (fab_string(ln, node_key, where, 1, name, sizeof(name), err, errlen) ||
	    fab_string(ln, port_key, where, 1, pname, sizeof(pname), err, errlen))
		return -1;
	snprintf(field, sizeof(field), "%s.%s", where, node_key);
	*node = xfab_fab_switch_find(f, name);
	*port = -1;
	if (host)
		*host = -1;
	if (*node < 0) {
		int h = host ? xfab_fab_host_find(f, name) : -1;

		if (h < 0)
			return json_errf(err, errlen, json_get(ln, node_key)->pos, field,
					 "unknown %s \"%s\"", host ? "switch or host" : "switch",
					 name);
		*host = h;
		return 0;
	}
	*port = xfab_fab_port_find(&f->switches[*node], pname);
	if (*port < 0) {
		snprintf(field, sizeof(field), "%s.%s", where, port_key);
		return json_errf(err, errlen, json_get(ln, port_key)->pos, field,
				 "%s has no port %s", name, pname);
	}
	return 0;
}

static int parse_links(const struct json_value *links, struct xfab_fabric *f, char *err,
		       size_t errlen)
{
	for (unsigned int i = 0; i < links->count; i++) {
		const struct json_value *ln = &links->children[i];
		struct xfab_fab_link *l = &f->links[i];
		struct xfab_fab_port *up;
		char where[32];

		snprintf(where, sizeof(where), "links[%u]", i);
		if (ln->type != JSON_OBJECT)
			return json_errf(err, errlen, ln->pos, where, "an object is needed, not %s",
					 json_type_name(ln->type));
		if (fab_string(ln, "kind", where, 0, l->kind, sizeof(l->kind), err, errlen) ||
		    link_end(f, ln, "upper", "upper_port", where, &l->upper, &l->upper_port, NULL,
			     err, errlen) ||
		    link_end(f, ln, "lower", "lower_port", where, &l->lower, &l->lower_port,
			     &l->lower_host, err, errlen))
			return -1;
		up = &f->switches[l->upper].ports[l->upper_port];
		if (up->dir != XFAB_FAB_DOWN ||
		    (l->lower >= 0 ? up->peer_sw != l->lower || up->peer_sw_port != l->lower_port
				   : up->peer_host != l->lower_host))
			return json_errf(err, errlen, ln->pos, where,
					 "%s %s goes %s to %s %s, not to this link's lower end",
					 f->switches[l->upper].name, up->name,
					 up->dir == XFAB_FAB_DOWN ? "down" : "up", up->peer,
					 up->peer_port);
		if (up->link >= 0)
			return json_errf(err, errlen, ln->pos, where,
					 "%s %s is on links[%d] already",
					 f->switches[l->upper].name, up->name, up->link);
		up->link = (int)i;
		if (l->lower >= 0) {
			struct xfab_fab_port *low = &f->switches[l->lower].ports[l->lower_port];

			if (low->link >= 0)
				return json_errf(err, errlen, ln->pos, where,
						 "%s %s is on links[%d] already",
						 f->switches[l->lower].name, low->name, low->link);
			low->link = (int)i;
		}
	}
	for (unsigned int s = 0; s < f->n_switches; s++)
		for (unsigned int p = 0; p < f->switches[s].n_ports; p++)
			if (f->switches[s].ports[p].link < 0)
				return json_errf(err, errlen, links->pos, "links",
						 "none holds %s %s (to %s)", f->switches[s].name,
						 f->switches[s].ports[p].name,
						 f->switches[s].ports[p].peer);
	return 0;
}

void xfab_fabric_free(struct xfab_fabric *f)
{
	free(f->switches);
	free(f->hosts);
	free(f->links);
	memset(f, 0, sizeof(*f));
}

static int parse_doc(const struct json_value *doc, struct xfab_fabric *f, char *err, size_t errlen)
{
	const struct json_value *switches, *hosts, *links, *name;

	if (doc->type != JSON_OBJECT)
		return json_errf(err, errlen, doc->pos, "fabric", "an object is needed, not %s",
				 json_type_name(doc->type));
	name = json_get(doc, "name");
	if (name && (name->type != JSON_STRING || strlen(name->str) >= sizeof(f->name)))
		return json_errf(err, errlen, name->pos, "name", "a string of up to %zu characters",
				 sizeof(f->name) - 1);
	snprintf(f->name, sizeof(f->name), "%s", name ? name->str : "fabric");
	switches = fab_member(doc, "switches", JSON_OBJECT, "", err, errlen);
	if (!switches)
		return -1;
	hosts = json_get(doc, "hosts");
	if (hosts && hosts->type != JSON_OBJECT)
		return json_errf(err, errlen, hosts->pos, "hosts", "an object is needed, not %s",
				 json_type_name(hosts->type));
	links = fab_member(doc, "links", JSON_ARRAY, "", err, errlen);
	if (!links)
		return -1;
	if (!switches->count || switches->count > XFAB_FAB_MAX_SWITCHES)
		return json_errf(err, errlen, switches->pos, "switches", "%u switches; 1..%d",
				 switches->count, XFAB_FAB_MAX_SWITCHES);
	if (hosts && hosts->count > XFAB_FAB_MAX_HOSTS)
		return json_errf(err, errlen, hosts->pos, "hosts", "%u hosts; at most %d",
				 hosts->count, XFAB_FAB_MAX_HOSTS);
	f->n_switches = switches->count;
	f->n_hosts = hosts ? hosts->count : 0;
	f->n_links = links->count;
	f->switches = calloc(f->n_switches, sizeof(*f->switches));
	f->hosts = calloc(f->n_hosts + 1, sizeof(*f->hosts));
	f->links = calloc(f->n_links + 1, sizeof(*f->links));
	if (!f->switches || !f->hosts || !f->links)
		return json_errf(err, errlen, doc->pos, "fabric", "out of memory");
	for (unsigned int i = 0; i < f->n_switches; i++)
		if (parse_switch(&switches->children[i], &f->switches[i], err, errlen))
			return -1;
	for (unsigned int i = 0; hosts && i < f->n_hosts; i++) {
		if (parse_host(&hosts->children[i], &f->hosts[i], err, errlen))
			return -1;
		if (xfab_fab_switch_find(f, f->hosts[i].name) >= 0)
			return json_errf(err, errlen, hosts->children[i].key_pos, "hosts",
					 "%s is a switch's name too", f->hosts[i].name);
	}
	if (resolve_ports(switches, f, err, errlen))
		return -1;
	for (unsigned int i = 0; hosts && i < f->n_hosts; i++)
		if (f->hosts[i].leaf < 0)
			return json_errf(err, errlen, hosts->children[i].pos, f->hosts[i].name,
					 "no leaf port leads to this host");
	return parse_links(links, f, err, errlen);
}

int xfab_fabric_parse(const char *text, struct xfab_fabric *f, char *err, size_t errlen)
{
	struct json_pos pos = {0, 0};
	struct json_value *doc;
	char jerr[128];
	int rc;

	memset(f, 0, sizeof(*f));
	doc = json_parse(text, jerr, sizeof(jerr), &pos);
	if (!doc)
		return json_errf(err, errlen, pos, "fabric", "%s", jerr);
	rc = parse_doc(doc, f, err, errlen);
	json_free(doc);
	if (rc)
		xfab_fabric_free(f);
	return rc;
}

int xfab_fabric_load(const char *path, struct xfab_fabric *f, char *err, size_t errlen)
{
	char inner[256], *text;
	int rc;

	memset(f, 0, sizeof(*f));
	text = xfab_read_text(path, 16, err, errlen);
	if (!text)
		return -1;
	rc = xfab_fabric_parse(text, f, inner, sizeof(inner));
	free(text);
	if (rc)
		snprintf(err, errlen, "%s:%s", path, inner);
	return rc;
}

/* ---- what is worked out over a fabric ---- */

void xfab_fab_link_counter(const struct xfab_fabric *f, unsigned int link, enum xfab_fab_dir dir,
			   int *sw, int *port, int *rx)
{
	const struct xfab_fab_link *l = &f->links[link];

	*rx = 0;
	if (dir == XFAB_FAB_DOWN) {
		*sw = l->upper;
		*port = l->upper_port;
	} else if (l->lower >= 0) {
		*sw = l->lower;
		*port = l->lower_port;
	} else {
		/* a host sends up: its leaf's port counts what it received */
		*sw = l->upper;
		*port = l->upper_port;
		*rx = 1;
	}
}

void xfab_imbalance(const uint64_t *v, unsigned int n, struct xfab_imbalance *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	for (unsigned int i = 0; i < n; i++) {
		out->sum += v[i];
		if (v[i] > out->max) {
			out->max = v[i];
			out->argmax = i;
		}
	}
	if (!n)
		return;
	out->mean = (double)out->sum / n;
	out->ratio = out->sum ? (double)out->max / out->mean : 0;
}

int xfab_fab_tier_imbalance(const struct xfab_fabric *f, int tier, enum xfab_fab_dir dir,
			    const uint64_t *link_val, struct xfab_fab_tier_imb *out)
{
	uint64_t *all = calloc((size_t)f->n_links + 1, sizeof(*all));
	uint64_t vals[XFAB_FAB_MAX_PORTS] = {0};
	unsigned int n_all = 0;

	memset(out, 0, sizeof(*out));
	out->tier = tier;
	out->dir = dir;
	out->worst = -1;
	out->groups = calloc((size_t)f->n_switches, sizeof(*out->groups));
	if (!all || !out->groups) {
		free(all);
		free(out->groups);
		out->groups = NULL;
		return -1;
	}
	for (unsigned int s = 0; s < f->n_switches; s++) {
		const struct xfab_fab_switch *sw = &f->switches[s];
		struct xfab_fab_group *g = &out->groups[out->n_groups];

		if (sw->tier != tier)
			continue;
		g->sw = (int)s;
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			if (sw->ports[p].dir != XFAB_FAB_UP || sw->ports[p].peer_sw < 0)
				continue;
			vals[g->n_links] = link_val[sw->ports[p].link];
			all[n_all++] = vals[g->n_links];
			g->links[g->n_links++] = sw->ports[p].link;
		}
		if (!g->n_links)
			continue;
		xfab_imbalance(vals, g->n_links, &g->imb);
		if (g->imb.sum &&
		    (out->worst < 0 || g->imb.ratio > out->groups[out->worst].imb.ratio))
			out->worst = (int)out->n_groups;
		out->n_groups++;
	}
	xfab_imbalance(all, n_all, &out->all);
	free(all);
	return 0;
}

/* ---- a flow's path ---- */

const char *xfab_fab_path_status_name(enum xfab_fab_path_status s)
{
	static const char *const names[] = {
	    [XFAB_PATH_DELIVERED] = "delivered", [XFAB_PATH_WRONG_HOST] = "wrong host",
	    [XFAB_PATH_STOPPED] = "stopped",	 [XFAB_PATH_LOOP] = "loop",
	    [XFAB_PATH_TOO_LONG] = "too long",	 [XFAB_PATH_ERROR] = "error",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int xfab_fab_hop_sent(const struct xfab_fab_path *path, unsigned int h)
{
	return h + 1 < path->n_hops ||
	       (h + 1 == path->n_hops && path->status != XFAB_PATH_STOPPED &&
		path->status != XFAB_PATH_ERROR);
}

void xfab_fab_walk(const struct xfab_fabric *f, unsigned int src_host, unsigned int dst_host,
		   xfab_fab_decide_fn decide, void *ctx, struct xfab_fab_path *path)
{
	unsigned int sw = (unsigned int)f->hosts[src_host].leaf;
	unsigned int in = (unsigned int)f->hosts[src_host].leaf_port;

	memset(path, 0, sizeof(*path));
	path->last_host = -1;
	for (unsigned int h = 0; h < XFAB_FAB_MAX_HOPS; h++) {
		struct xfab_fab_hop *hop = &path->hops[h];
		const struct xfab_fab_port *out;
		int rc;

		/* a switch's decision depends on where the flow came in: the
		 * same port twice is the same decision again, a loop */
		for (unsigned int k = 0; k < h; k++) {
			if (path->hops[k].sw == sw && path->hops[k].in_port == in) {
				path->status = XFAB_PATH_LOOP;
				snprintf(path->why, sizeof(path->why), "into %s by %s again",
					 f->switches[sw].name, f->switches[sw].ports[in].name);
				return;
			}
		}
		hop->sw = sw;
		hop->in_port = in;
		path->n_hops = h + 1;
		rc = decide(ctx, hop, path->why, sizeof(path->why));
		if (rc) {
			path->status = rc > 0 ? XFAB_PATH_STOPPED : XFAB_PATH_ERROR;
			return;
		}
		if (hop->out_port >= f->switches[sw].n_ports) {
			path->status = XFAB_PATH_ERROR;
			snprintf(path->why, sizeof(path->why),
				 "%s: egress port %u is not in the fabric", f->switches[sw].name,
				 hop->out_port);
			return;
		}
		out = &f->switches[sw].ports[hop->out_port];
		if (out->peer_host >= 0) {
			path->last_host = out->peer_host;
			path->status = (unsigned int)out->peer_host == dst_host
					   ? XFAB_PATH_DELIVERED
					   : XFAB_PATH_WRONG_HOST;
			if (path->status == XFAB_PATH_WRONG_HOST)
				snprintf(path->why, sizeof(path->why), "handed to %s, not %s",
					 f->hosts[out->peer_host].name, f->hosts[dst_host].name);
			return;
		}
		sw = (unsigned int)out->peer_sw;
		in = (unsigned int)out->peer_sw_port;
	}
	path->status = XFAB_PATH_TOO_LONG;
	snprintf(path->why, sizeof(path->why), "still in the fabric after %d switches",
		 XFAB_FAB_MAX_HOPS);
}
