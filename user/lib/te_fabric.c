// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's model of a fabric: switches, ports, hosts and the switch-switch
 * links with their state and speed (te.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "te_int.h"

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

int xfab_te_host_by_addr(const struct xfab_te_fabric *f, struct in_addr a)
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
		return xfab_te_host_by_addr(f, a);
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
		return xfab_te_err(err, errlen, &m->pos, "%s: must be an object", where);
	if (strlen(m->key) >= sizeof(s->name) || !m->key[0])
		return xfab_te_err(err, errlen, &m->key_pos, "%s: a name is 1 to %zu characters", where,
			      sizeof(s->name) - 1);
	snprintf(s->name, sizeof(s->name), "%s", m->key);
	if (xfab_te_get_uint(m, "tier", 1, 1, XFAB_TE_MAX_TIERS, &tier, where, err, errlen) ||
	    xfab_te_get_str(m, "netns", 0, s->netns, sizeof(s->netns), where, err, errlen) ||
	    xfab_te_get_str(m, "ctl", 0, s->ctl, sizeof(s->ctl), where, err, errlen) ||
	    xfab_te_get_str(m, "pins", 0, s->pins, sizeof(s->pins), where, err, errlen))
		return -1;
	s->tier = (int)tier;
	ports = json_get(m, "ports");
	if (!ports || ports->type != JSON_OBJECT)
		return xfab_te_err(err, errlen, ports ? &ports->pos : &m->pos,
			      "%s.ports: must be an object of ports", where);
	if (ports->count > XFAB_TE_MAX_PORTS)
		return xfab_te_err(err, errlen, &ports->pos, "%s.ports: more than %d", where,
			      XFAB_TE_MAX_PORTS);
	s->ports = calloc(ports->count ? ports->count : 1, sizeof(*s->ports));
	if (!s->ports)
		return xfab_te_err(err, errlen, NULL, "out of memory");
	s->n_ports = (int)ports->count;
	for (unsigned i = 0; i < ports->count; i++) {
		const struct json_value *pm = &ports->children[i];
		struct xfab_te_port *p = &s->ports[i];
		char pwhere[128], dir[16], v4[32];
		uint64_t speed;
		int plen;

		snprintf(pwhere, sizeof(pwhere), "%s.ports.%s", where, pm->key);
		if (pm->type != JSON_OBJECT)
			return xfab_te_err(err, errlen, &pm->pos, "%s: must be an object", pwhere);
		if (strlen(pm->key) >= sizeof(p->name) || !pm->key[0])
			return xfab_te_err(err, errlen, &pm->key_pos,
				      "%s: a port name is 1 to %zu characters", pwhere,
				      sizeof(p->name) - 1);
		snprintf(p->name, sizeof(p->name), "%s", pm->key);
		if (xfab_te_get_str(pm, "direction", 1, dir, sizeof(dir), pwhere, err, errlen) ||
		    xfab_te_get_str(pm, "ipv4", 0, v4, sizeof(v4), pwhere, err, errlen) ||
		    xfab_te_get_uint(pm, "speed_mbps", 0, 1, 100000000, &speed, pwhere, err, errlen))
			return -1;
		if (strcmp(dir, "up") && strcmp(dir, "down"))
			return xfab_te_err(err, errlen, &json_get(pm, "direction")->pos,
				      "%s.direction: must be up or down", pwhere);
		p->up = !strcmp(dir, "up");
		if (v4[0] && parse_v4(v4, &p->addr, &plen))
			return xfab_te_err(err, errlen, &json_get(pm, "ipv4")->pos,
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
			if (xfab_te_get_str(pm, "peer", 1, peer, sizeof(peer), where, err, errlen) ||
			    xfab_te_get_str(pm, "peer_port", 1, peer_port, sizeof(peer_port), where, err,
				    errlen))
				return -1;
			port->peer_sw = xfab_te_switch_index(f, peer);
			if (port->peer_sw < 0) {
				port->peer_host = xfab_te_host_index(f, peer);
				if (port->peer_host < 0 ||
				    strcmp(f->hosts[port->peer_host].name, peer))
					return xfab_te_err(err, errlen, &json_get(pm, "peer")->pos,
						      "%s.peer: no switch or host named \"%s\"",
						      where, peer);
				if (f->hosts[port->peer_host].leaf != i ||
				    f->hosts[port->peer_host].leaf_port != p || port->up)
					return xfab_te_err(
					    err, errlen, &json_get(pm, "peer")->pos,
					    "%s.peer: host %s is not on this port (hosts.%s "
					    "says otherwise), or the port is not down",
					    where, peer, peer);
				continue;
			}
			port->peer_port = xfab_te_port_index(f, port->peer_sw, peer_port);
			if (port->peer_port < 0)
				return xfab_te_err(err, errlen, &json_get(pm, "peer_port")->pos,
					      "%s.peer_port: %s has no port %s", where, peer,
					      peer_port);
			if (!port->addr.s_addr)
				return xfab_te_err(err, errlen, &pm->pos,
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
				return xfab_te_err(err, errlen, NULL,
					      "switches.%s.ports.%s: %s %s does not name this port "
					      "back",
					      f->sw[i].name, port->name, o->name, back->name);
			if (o->tier != f->sw[i].tier + (port->up ? 1 : -1))
				return xfab_te_err(
				    err, errlen, NULL,
				    "switches.%s.ports.%s: direction %s, but %s is tier %d "
				    "and this switch tier %d",
				    f->sw[i].name, port->name, port->up ? "up" : "down", o->name,
				    o->tier, f->sw[i].tier);
		}
	f->links = calloc(n_links ? (size_t)n_links : 1, sizeof(*f->links));
	if (!f->links)
		return xfab_te_err(err, errlen, NULL, "out of memory");
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
			return xfab_te_err(err, errlen, &m->pos, "%s: must be an object", where);
		if (strlen(m->key) >= sizeof(h->name) || !m->key[0])
			return xfab_te_err(err, errlen, &m->key_pos, "%s: a name is 1 to %zu characters",
				      where, sizeof(h->name) - 1);
		snprintf(h->name, sizeof(h->name), "%s", m->key);
		if (xfab_te_switch_index(f, h->name) >= 0)
			return xfab_te_err(err, errlen, &m->key_pos, "%s: also a switch's name", where);
		if (xfab_te_get_str(m, "leaf", 1, leaf, sizeof(leaf), where, err, errlen) ||
		    xfab_te_get_str(m, "leaf_port", 1, port, sizeof(port), where, err, errlen) ||
		    xfab_te_get_str(m, "ipv4", 1, v4, sizeof(v4), where, err, errlen))
			return -1;
		h->leaf = xfab_te_switch_index(f, leaf);
		if (h->leaf < 0 || f->sw[h->leaf].tier != 1)
			return xfab_te_err(err, errlen, &json_get(m, "leaf")->pos,
				      "%s.leaf: \"%s\" is no leaf (tier 1) of the fabric", where,
				      leaf);
		h->leaf_port = xfab_te_port_index(f, h->leaf, port);
		if (h->leaf_port < 0)
			return xfab_te_err(err, errlen, &json_get(m, "leaf_port")->pos,
				      "%s.leaf_port: %s has no port %s", where, leaf, port);
		if (parse_v4(v4, &h->addr, &h->plen) || h->plen == 0)
			return xfab_te_err(err, errlen, &json_get(m, "ipv4")->pos,
				      "%s.ipv4: \"%s\" is not an IPv4 address with a length 1..32",
				      where, v4);
		mask = h->plen == 32 ? 0xffffffffu : ~(0xffffffffu >> h->plen);
		h->net.s_addr = htonl(ntohl(h->addr.s_addr) & mask);
		for (unsigned j = 0; j < i; j++)
			if (f->hosts[j].addr.s_addr == h->addr.s_addr)
				return xfab_te_err(err, errlen, &json_get(m, "ipv4")->pos,
					      "%s.ipv4: %s has the same address", where,
					      f->hosts[j].name);
		h->prefix_id = f->n_prefixes;
		for (unsigned j = 0; j < i; j++)
			if (f->hosts[j].net.s_addr == h->net.s_addr &&
			    f->hosts[j].plen == h->plen) {
				if (f->hosts[j].leaf != h->leaf)
					return xfab_te_err(
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
		xfab_te_err(err, errlen, NULL, "out of memory");
		return NULL;
	}
	root = json_parse(text, jerr, sizeof(jerr), &pos);
	if (!root) {
		xfab_te_err(err, errlen, &pos, "%s", jerr);
		free(f);
		return NULL;
	}
	if (root->type != JSON_OBJECT) {
		xfab_te_err(err, errlen, &root->pos, "fabric: must be an object");
		goto fail;
	}
	if (xfab_te_get_str(root, "name", 0, f->name, sizeof(f->name), "fabric", err, errlen))
		goto fail;
	switches = json_get(root, "switches");
	hosts = json_get(root, "hosts");
	if (!switches || switches->type != JSON_OBJECT || !switches->count) {
		xfab_te_err(err, errlen, switches ? &switches->pos : &root->pos,
		       "switches: must be an object of switches");
		goto fail;
	}
	if (!hosts || hosts->type != JSON_OBJECT) {
		xfab_te_err(err, errlen, hosts ? &hosts->pos : &root->pos,
		       "hosts: must be an object of hosts");
		goto fail;
	}
	if (switches->count > XFAB_TE_MAX_SWITCHES || hosts->count > XFAB_TE_MAX_HOSTS) {
		xfab_te_err(err, errlen, &root->pos, "fabric: more than %d switches or %d hosts",
		       XFAB_TE_MAX_SWITCHES, XFAB_TE_MAX_HOSTS);
		goto fail;
	}
	f->sw = calloc(switches->count, sizeof(*f->sw));
	f->hosts = calloc(hosts->count ? hosts->count : 1, sizeof(*f->hosts));
	if (!f->sw || !f->hosts) {
		xfab_te_err(err, errlen, NULL, "out of memory");
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
