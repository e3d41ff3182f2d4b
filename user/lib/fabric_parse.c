// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one reader of xfab-lab's fabric.json (fabric.h): every check the
 * fabric report and the TE controller rely on, refused with the place. */
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
	const struct json_value *v = xfab_json_get(obj, key);
	char field[160];

	snprintf(field, sizeof(field), "%s.%s", where, key);
	out[0] = '\0';
	if (!v || v->type == JSON_NULL)
		return required ? xfab_json_errf(err, errlen, obj->pos, field, "missing") : 0;
	if (v->type != JSON_STRING)
		return xfab_json_errf(err, errlen, v->pos, field, "a string is needed, not %s",
				      xfab_json_type_name(v->type));
	if (!v->str[0] || strlen(v->str) >= len)
		return xfab_json_errf(err, errlen, v->pos, field, "1..%zu characters", len - 1);
	snprintf(out, len, "%s", v->str);
	return 0;
}

static const struct json_value *fab_member(const struct json_value *obj, const char *key,
					   enum json_type type, const char *where, char *err,
					   size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);
	char field[160];

	snprintf(field, sizeof(field), "%s%s%s", where, where[0] ? "." : "", key);
	if (!v) {
		xfab_json_errf(err, errlen, obj->pos, field, "missing");
		return NULL;
	}
	if (v->type != type) {
		xfab_json_errf(err, errlen, v->pos, field, "%s is needed, not %s",
			       type == JSON_OBJECT ? "an object" : "an array",
			       xfab_json_type_name(v->type));
		return NULL;
	}
	return v;
}

/* An optional whole number in 1..max: absent or null is 0. */
static int fab_uint(const struct json_value *obj, const char *key, const char *where,
		    unsigned long max, uint32_t *out, char *err, size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);
	unsigned long x = 0;
	char field[160], *end = NULL;

	*out = 0;
	if (!v || v->type == JSON_NULL)
		return 0;
	snprintf(field, sizeof(field), "%s.%s", where, key);
	if (v->type == JSON_NUMBER && v->str[0] >= '0' && v->str[0] <= '9') {
		errno = 0;
		x = strtoul(v->str, &end, 10);
	}
	if (!end || *end || errno || x < 1 || x > max)
		return xfab_json_errf(err, errlen, v->pos, field, "an integer 1..%lu", max);
	*out = (uint32_t)x;
	return 0;
}

/* "a.b.c.d/len", the length in min_len..32: 0, or -1 with the reason in
 * why ("not an IPv4 address" when the address itself is bad). */
static int fab_v4_prefix(const char *text, int min_len, struct in_addr *addr, int *plen,
			 const char **why)
{
	char copy[32], *slash, *end;
	long l;

	*why = "not an IPv4 address";
	if (strlen(text) >= sizeof(copy))
		return -1;
	snprintf(copy, sizeof(copy), "%s", text);
	slash = strchr(copy, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, copy, addr) != 1)
		return -1;
	*why = min_len ? "not an IPv4 address with a length 1..32"
		       : "not an IPv4 address with a length";
	if (!slash || !slash[1])
		return -1;
	l = strtol(slash + 1, &end, 10);
	if (*end || l < min_len || l > 32)
		return -1;
	*plen = (int)l;
	return 0;
}

/* A port's own fields: its peer, direction, address and speed. */
static int parse_port(const struct json_value *p, const char *field, struct xfab_fab_port *port,
		      char *err, size_t errlen)
{
	const struct json_value *dir;
	char v4[32], where[160];
	const char *why;

	if (fab_string(p, "peer", field, 1, port->peer, sizeof(port->peer), err, errlen) ||
	    fab_string(p, "peer_port", field, 1, port->peer_port, sizeof(port->peer_port), err,
		       errlen))
		return -1;
	dir = xfab_json_get(p, "direction");
	snprintf(where, sizeof(where), "%s.direction", field);
	if (!dir)
		return xfab_json_errf(err, errlen, p->pos, where, "missing");
	if (dir->type != JSON_STRING || (strcmp(dir->str, "up") && strcmp(dir->str, "down")))
		return xfab_json_errf(err, errlen, dir->pos, where, "\"up\" or \"down\"");
	port->dir = dir->str[0] == 'u' ? XFAB_FAB_UP : XFAB_FAB_DOWN;
	port->peer_sw = port->peer_sw_port = port->peer_host = port->link = -1;
	if (fab_string(p, "ipv4", field, 0, v4, sizeof(v4), err, errlen) ||
	    fab_uint(p, "speed_mbps", field, 100000000, &port->speed_mbps, err, errlen))
		return -1;
	snprintf(where, sizeof(where), "%s.ipv4", field);
	if (v4[0] && fab_v4_prefix(v4, 0, &port->addr, &port->plen, &why))
		return xfab_json_errf(err, errlen, xfab_json_get(p, "ipv4")->pos, where,
				      "\"%s\" is %s", v4, why);
	return 0;
}

/* Names first (switches, their ports; hosts), so peers can be resolved. */
static int parse_switch(const struct json_value *v, unsigned int checks, struct xfab_fab_switch *sw,
			char *err, size_t errlen)
{
	int report = !!(checks & XFAB_FAB_CHECK_REPORT);

	const struct json_value *tier, *ports;
	char where[96], field[160];

	snprintf(where, sizeof(where), "switches.%s", v->key);
	if (v->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, v->pos, where, "an object is needed, not %s",
				      xfab_json_type_name(v->type));
	if (strlen(v->key) >= sizeof(sw->name) || !v->key[0])
		return xfab_json_errf(err, errlen, v->key_pos, where, "a name of 1..%zu characters",
				      sizeof(sw->name) - 1);
	snprintf(sw->name, sizeof(sw->name), "%s", v->key);
	tier = xfab_json_get(v, "tier");
	snprintf(field, sizeof(field), "%s.tier", where);
	if (!tier)
		return xfab_json_errf(err, errlen, v->pos, field, "missing");
	if (tier->type != JSON_NUMBER ||
	    (strcmp(tier->str, "1") && strcmp(tier->str, "2") && strcmp(tier->str, "3")))
		return xfab_json_errf(
		    err, errlen, tier->pos, field, "1 (leaf), 2 (spine) or 3 (super-spine), not %s",
		    tier->type == JSON_NUMBER ? tier->str : xfab_json_type_name(tier->type));
	sw->tier = tier->str[0] - '0';
	if (fab_string(v, "role", where, 0, sw->role, sizeof(sw->role), err, errlen) ||
	    fab_string(v, "netns", where, report, sw->netns, sizeof(sw->netns), err, errlen) ||
	    fab_string(v, "pins", where, report, sw->pins, sizeof(sw->pins), err, errlen) ||
	    /* a unix socket's path: sun_path's 108 bytes */
	    fab_string(v, "ctl", where, 0, sw->ctl, 108, err, errlen))
		return -1;
	ports = fab_member(v, "ports", JSON_OBJECT, where, err, errlen);
	if (!ports)
		return -1;
	snprintf(field, sizeof(field), "%s.ports", where);
	if (ports->count > XFAB_FAB_MAX_PORTS)
		return xfab_json_errf(err, errlen, ports->pos, field,
				      "%u ports; a switch has at most %d", ports->count,
				      XFAB_FAB_MAX_PORTS);
	sw->n_ports = ports->count;
	for (unsigned int i = 0; i < ports->count; i++) {
		const struct json_value *p = &ports->children[i];
		struct xfab_fab_port *port = &sw->ports[i];

		snprintf(field, sizeof(field), "%s.ports.%s", where, p->key);
		if (p->type != JSON_OBJECT)
			return xfab_json_errf(err, errlen, p->pos, field,
					      "an object is needed, not %s",
					      xfab_json_type_name(p->type));
		if (!p->key[0] || strlen(p->key) >= sizeof(port->name))
			return xfab_json_errf(err, errlen, p->key_pos, field,
					      "a port name of 1..%zu characters",
					      sizeof(port->name) - 1);
		snprintf(port->name, sizeof(port->name), "%s", p->key);
		if (parse_port(p, field, port, err, errlen))
			return -1;
	}
	return 0;
}

/* A host: its leaf (a tier 1 switch), the leaf's port it hangs off, its
 * address with its subnet's length. */
static int parse_host(const struct json_value *v, const struct xfab_fabric *f,
		      struct xfab_fab_host *h, char *err, size_t errlen)
{
	char where[96], field[120], leaf[32], port[16], addr[64];
	const char *why;

	snprintf(where, sizeof(where), "hosts.%s", v->key);
	if (v->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, v->pos, where, "an object is needed, not %s",
				      xfab_json_type_name(v->type));
	if (!v->key[0] || strlen(v->key) >= sizeof(h->name))
		return xfab_json_errf(err, errlen, v->key_pos, where, "a name of 1..%zu characters",
				      sizeof(h->name) - 1);
	snprintf(h->name, sizeof(h->name), "%s", v->key);
	if (fab_string(v, "netns", where, 0, h->netns, sizeof(h->netns), err, errlen) ||
	    fab_string(v, "leaf", where, 1, leaf, sizeof(leaf), err, errlen) ||
	    fab_string(v, "leaf_port", where, 1, port, sizeof(port), err, errlen) ||
	    fab_string(v, "ipv4", where, 1, addr, sizeof(addr), err, errlen))
		return -1;
	h->leaf = xfab_fab_switch_find(f, leaf);
	snprintf(field, sizeof(field), "%s.leaf", where);
	if (h->leaf < 0 || f->switches[h->leaf].tier != 1)
		return xfab_json_errf(err, errlen, xfab_json_get(v, "leaf")->pos, field,
				      "\"%s\" is no leaf (tier 1) of the fabric", leaf);
	h->leaf_port = xfab_fab_port_find(&f->switches[h->leaf], port);
	snprintf(field, sizeof(field), "%s.leaf_port", where);
	if (h->leaf_port < 0)
		return xfab_json_errf(err, errlen, xfab_json_get(v, "leaf_port")->pos, field,
				      "%s has no port %s", leaf, port);
	snprintf(field, sizeof(field), "%s.ipv4", where);
	if (fab_v4_prefix(addr, 1, &h->addr, &h->plen, &why)) {
		/* the address alone named when it is the address that is bad */
		char *slash = strchr(addr, '/');

		if (slash && !strcmp(why, "not an IPv4 address"))
			*slash = '\0';
		return xfab_json_errf(err, errlen, xfab_json_get(v, "ipv4")->pos, field,
				      "\"%s\" is %s", addr, why);
	}
	return 0;
}

static uint32_t fab_mask(int plen)
{
	return plen >= 32 ? 0xffffffffu : ~(0xffffffffu >> plen);
}

/* Host i against those before it: no address twice, and a subnet on one
 * leaf (a pin towards a subnet leads to one leaf). */
static int check_host_addr(const struct json_value *hv, const struct xfab_fabric *f, unsigned int i,
			   char *err, size_t errlen)
{
	const struct xfab_fab_host *h = &f->hosts[i];
	uint32_t net = ntohl(h->addr.s_addr) & fab_mask(h->plen);
	const struct json_value *v4 = xfab_json_get(hv, "ipv4");
	char field[64];

	snprintf(field, sizeof(field), "hosts.%s.ipv4", h->name);
	for (unsigned int j = 0; j < i; j++) {
		const struct xfab_fab_host *o = &f->hosts[j];

		if (o->addr.s_addr == h->addr.s_addr)
			return xfab_json_errf(err, errlen, v4->pos, field,
					      "%s has the same address", o->name);
		if (o->plen == h->plen && (ntohl(o->addr.s_addr) & fab_mask(o->plen)) == net &&
		    o->leaf != h->leaf)
			return xfab_json_errf(err, errlen, v4->pos, field,
					      "its subnet is also %s's, on another leaf", o->name);
	}
	return 0;
}

/* Peers: every switch port names a node that exists and, for a switch,
 * names this port back; the direction agrees with the tiers. */
static int fab_resolve_ports(const struct json_value *switches, unsigned int checks,
			     struct xfab_fabric *f, char *err, size_t errlen)
{
	for (unsigned int s = 0; s < f->n_switches; s++) {
		struct xfab_fab_switch *sw = &f->switches[s];
		const struct json_value *ports = xfab_json_get(&switches->children[s], "ports");

		for (unsigned int i = 0; i < sw->n_ports; i++) {
			struct xfab_fab_port *p = &sw->ports[i];
			const struct json_value *pv = &ports->children[i];
			const struct json_value *peer = xfab_json_get(pv, "peer");
			const struct json_value *peer_port = xfab_json_get(pv, "peer_port");
			const struct json_value *dir = xfab_json_get(pv, "direction");
			char field[160];
			int o;

			snprintf(field, sizeof(field), "switches.%s.ports.%s", sw->name, p->name);
			p->peer_sw = xfab_fab_switch_find(f, p->peer);
			p->peer_host = p->peer_sw < 0 ? xfab_fab_host_find(f, p->peer) : -1;
			if (p->peer_sw < 0 && p->peer_host < 0)
				return xfab_json_errf(err, errlen, peer->pos, field,
						      "peer \"%s\" is neither a switch nor a host",
						      p->peer);
			if (p->peer_host >= 0) {
				struct xfab_fab_host *h = &f->hosts[p->peer_host];

				if (sw->tier != 1 || p->dir != XFAB_FAB_DOWN)
					return xfab_json_errf(
					    err, errlen, peer->pos, field,
					    "host %s: hosts hang off leaves (tier 1), "
					    "by ports going down",
					    h->name);
				if (h->leaf != (int)s || h->leaf_port != (int)i)
					return xfab_json_errf(
					    err, errlen, peer->pos, field,
					    "host %s is on %s %s (hosts.%s), not on this port",
					    h->name, f->switches[h->leaf].name,
					    f->switches[h->leaf].ports[h->leaf_port].name, h->name);
				continue;
			}
			o = xfab_fab_port_find(&f->switches[p->peer_sw], p->peer_port);
			if (o < 0)
				return xfab_json_errf(err, errlen, peer_port->pos, field,
						      "%s has no port %s", p->peer, p->peer_port);
			if (strcmp(f->switches[p->peer_sw].ports[o].peer, sw->name) ||
			    strcmp(f->switches[p->peer_sw].ports[o].peer_port, p->name))
				return xfab_json_errf(
				    err, errlen, peer_port->pos, field,
				    "%s %s names %s %s as its peer, not this port", p->peer,
				    p->peer_port, f->switches[p->peer_sw].ports[o].peer,
				    f->switches[p->peer_sw].ports[o].peer_port);
			p->peer_sw_port = o;
			if ((checks & XFAB_FAB_CHECK_GATEWAYS) && !p->addr.s_addr)
				return xfab_json_errf(
				    err, errlen, pv->pos, field,
				    "a fabric link needs an ipv4 address (the pins' "
				    "gateways)");
			if (f->switches[p->peer_sw].tier ==
			    sw->tier + (p->dir == XFAB_FAB_UP ? 1 : -1))
				continue;
			return xfab_json_errf(err, errlen, dir->pos, field,
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
			return xfab_json_errf(err, errlen, xfab_json_get(ln, node_key)->pos, field,
					      "unknown %s \"%s\"",
					      host ? "switch or host" : "switch", name);
		*host = h;
		return 0;
	}
	*port = xfab_fab_port_find(&f->switches[*node], pname);
	if (*port < 0) {
		snprintf(field, sizeof(field), "%s.%s", where, port_key);
		return xfab_json_errf(err, errlen, xfab_json_get(ln, port_key)->pos, field,
				      "%s has no port %s", name, pname);
	}
	return 0;
}

static int parse_links(const struct json_value *links, unsigned int checks, struct xfab_fabric *f,
		       char *err, size_t errlen)
{
	for (unsigned int i = 0; i < links->count; i++) {
		const struct json_value *ln = &links->children[i];
		struct xfab_fab_link *l = &f->links[i];
		struct xfab_fab_port *up;
		char where[32];

		snprintf(where, sizeof(where), "links[%u]", i);
		if (ln->type != JSON_OBJECT)
			return xfab_json_errf(err, errlen, ln->pos, where,
					      "an object is needed, not %s",
					      xfab_json_type_name(ln->type));
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
			return xfab_json_errf(
			    err, errlen, ln->pos, where,
			    "%s %s goes %s to %s %s, not to this link's lower end",
			    f->switches[l->upper].name, up->name,
			    up->dir == XFAB_FAB_DOWN ? "down" : "up", up->peer, up->peer_port);
		if (up->link >= 0)
			return xfab_json_errf(err, errlen, ln->pos, where,
					      "%s %s is on links[%d] already",
					      f->switches[l->upper].name, up->name, up->link);
		up->link = (int)i;
		if (l->lower >= 0) {
			struct xfab_fab_port *low = &f->switches[l->lower].ports[l->lower_port];

			if (low->link >= 0)
				return xfab_json_errf(
				    err, errlen, ln->pos, where, "%s %s is on links[%d] already",
				    f->switches[l->lower].name, low->name, low->link);
			low->link = (int)i;
		}
	}
	/* the report reads each link's counters: every port on one */
	for (unsigned int s = 0; (checks & XFAB_FAB_CHECK_REPORT) && s < f->n_switches; s++)
		for (unsigned int p = 0; p < f->switches[s].n_ports; p++)
			if (f->switches[s].ports[p].link < 0)
				return xfab_json_errf(
				    err, errlen, links->pos, "links", "none holds %s %s (to %s)",
				    f->switches[s].name, f->switches[s].ports[p].name,
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

/* The document's members, each of the type it must have: links is needed
 * by the report only (*links NULL when absent otherwise). */
static int doc_members(const struct json_value *doc, unsigned int checks,
		       const struct json_value **switches, const struct json_value **hosts,
		       const struct json_value **links, char *err, size_t errlen)
{
	if (doc->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, doc->pos, "fabric",
				      "an object is needed, not %s",
				      xfab_json_type_name(doc->type));
	*switches = fab_member(doc, "switches", JSON_OBJECT, "", err, errlen);
	if (!*switches)
		return -1;
	*hosts = fab_member(doc, "hosts", JSON_OBJECT, "", err, errlen);
	if (!*hosts)
		return -1;
	*links = xfab_json_get(doc, "links");
	if ((*links || (checks & XFAB_FAB_CHECK_REPORT)) &&
	    !(*links = fab_member(doc, "links", JSON_ARRAY, "", err, errlen)))
		return -1;
	if (!(*switches)->count || (*switches)->count > XFAB_FAB_MAX_SWITCHES)
		return xfab_json_errf(err, errlen, (*switches)->pos, "switches",
				      "%u switches; 1..%d", (*switches)->count,
				      XFAB_FAB_MAX_SWITCHES);
	if ((*hosts)->count > XFAB_FAB_MAX_HOSTS)
		return xfab_json_errf(err, errlen, (*hosts)->pos, "hosts", "%u hosts; at most %d",
				      (*hosts)->count, XFAB_FAB_MAX_HOSTS);
	return 0;
}

static int parse_hosts(const struct json_value *hosts, struct xfab_fabric *f, char *err,
		       size_t errlen)
{
	for (unsigned int i = 0; i < f->n_hosts; i++) {
		const struct json_value *hv = &hosts->children[i];

		if (parse_host(hv, f, &f->hosts[i], err, errlen))
			return -1;
		if (xfab_fab_switch_find(f, f->hosts[i].name) >= 0)
			return xfab_json_errf(err, errlen, hv->key_pos, "hosts",
					      "%s is a switch's name too", f->hosts[i].name);
		if (check_host_addr(hv, f, i, err, errlen))
			return -1;
	}
	return 0;
}

static int parse_doc(const struct json_value *doc, unsigned int checks, struct xfab_fabric *f,
		     char *err, size_t errlen)
{
	const struct json_value *switches = NULL, *hosts = NULL, *links = NULL, *name;

	if (doc_members(doc, checks, &switches, &hosts, &links, err, errlen) || !switches || !hosts)
		return -1;
	name = xfab_json_get(doc, "name");
	if (name && (name->type != JSON_STRING || strlen(name->str) >= sizeof(f->name)))
		return xfab_json_errf(err, errlen, name->pos, "name",
				      "a string of up to %zu characters", sizeof(f->name) - 1);
	snprintf(f->name, sizeof(f->name), "%s", name ? name->str : "fabric");
	f->n_switches = switches->count;
	f->n_hosts = hosts->count;
	f->n_links = links ? links->count : 0;
	f->switches = calloc(f->n_switches, sizeof(*f->switches));
	f->hosts = calloc(f->n_hosts + 1, sizeof(*f->hosts));
	f->links = calloc(f->n_links + 1, sizeof(*f->links));
	if (!f->switches || !f->hosts || !f->links)
		return xfab_json_errf(err, errlen, doc->pos, "fabric", "out of memory");
	for (unsigned int i = 0; i < f->n_switches; i++)
		if (parse_switch(&switches->children[i], checks, &f->switches[i], err, errlen))
			return -1;
	if (parse_hosts(hosts, f, err, errlen) ||
	    fab_resolve_ports(switches, checks, f, err, errlen))
		return -1;
	for (unsigned int i = 0; i < f->n_hosts; i++) {
		const struct xfab_fab_host *h = &f->hosts[i];
		const struct xfab_fab_port *p = &f->switches[h->leaf].ports[h->leaf_port];
		char field[64];

		snprintf(field, sizeof(field), "hosts.%s.leaf_port", h->name);
		if (p->peer_host != (int)i)
			return xfab_json_errf(err, errlen,
					      xfab_json_get(&hosts->children[i], "leaf_port")->pos,
					      field, "%s %s leads to %s, not to this host",
					      f->switches[h->leaf].name, p->name, p->peer);
	}
	return links ? parse_links(links, checks, f, err, errlen) : 0;
}

int xfab_fabric_parse_checked(const char *text, unsigned int checks, struct xfab_fabric *f,
			      char *err, size_t errlen)
{
	struct json_pos pos = {0, 0};
	struct json_value *doc;
	char jerr[128];
	int rc;

	memset(f, 0, sizeof(*f));
	doc = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	if (!doc)
		return xfab_json_errf(err, errlen, pos, "fabric", "%s", jerr);
	rc = parse_doc(doc, checks, f, err, errlen);
	xfab_json_free(doc);
	if (rc)
		xfab_fabric_free(f);
	return rc;
}

int xfab_fabric_parse(const char *text, struct xfab_fabric *f, char *err, size_t errlen)
{
	return xfab_fabric_parse_checked(text, XFAB_FAB_CHECK_REPORT, f, err, errlen);
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
