// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's model of a fabric: switches, ports, hosts and the switch-switch
 * links with their state and speed (te.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "te_int.h"

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

/* A switch and its ports as the reader resolved them (peers both ways,
 * directions agreeing with the tiers). */
static int model_switch(const struct xfab_fab_switch *in, struct xfab_te_switch *s)
{
	snprintf(s->name, sizeof(s->name), "%s", in->name);
	snprintf(s->netns, sizeof(s->netns), "%s", in->netns);
	snprintf(s->ctl, sizeof(s->ctl), "%s", in->ctl);
	snprintf(s->pins, sizeof(s->pins), "%s", in->pins);
	s->tier = in->tier;
	s->ports = calloc(in->n_ports ? in->n_ports : 1, sizeof(*s->ports));
	if (!s->ports)
		return -1;
	s->n_ports = (int)in->n_ports;
	for (unsigned int i = 0; i < in->n_ports; i++) {
		const struct xfab_fab_port *ip = &in->ports[i];
		struct xfab_te_port *p = &s->ports[i];

		snprintf(p->name, sizeof(p->name), "%s", ip->name);
		p->peer_sw = ip->peer_sw;
		p->peer_host = ip->peer_host;
		p->peer_port = ip->peer_sw_port;
		p->up = ip->dir == XFAB_FAB_UP;
		p->link = -1;
		p->oper_up = 1;
		p->addr = ip->addr;
		p->speed_mbps = ip->speed_mbps;
	}
	return 0;
}

/* The switch-switch links, each held by its lower end's port going up. */
static int model_links(struct xfab_te_fabric *f)
{
	int n_links = 0;

	for (int i = 0; i < f->n_switches; i++)
		for (int p = 0; p < f->sw[i].n_ports; p++)
			n_links += f->sw[i].ports[p].up && f->sw[i].ports[p].peer_sw >= 0;
	f->links = calloc(n_links ? (size_t)n_links : 1, sizeof(*f->links));
	if (!f->links)
		return -1;
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

/* Hosts with their subnets: hosts of one subnet (on one leaf, the reader
 * made sure) share a prefix id, the key of the pins towards it. */
static void model_hosts(const struct xfab_fabric *in, struct xfab_te_fabric *f)
{
	for (int i = 0; i < f->n_hosts; i++) {
		const struct xfab_fab_host *ih = &in->hosts[i];
		struct xfab_te_host *h = &f->hosts[i];
		uint32_t mask;

		snprintf(h->name, sizeof(h->name), "%s", ih->name);
		h->leaf = ih->leaf;
		h->leaf_port = ih->leaf_port;
		h->addr = ih->addr;
		h->plen = ih->plen;
		mask = h->plen == 32 ? 0xffffffffu : ~(0xffffffffu >> h->plen);
		h->net.s_addr = htonl(ntohl(h->addr.s_addr) & mask);
		h->prefix_id = f->n_prefixes;
		for (int j = 0; j < i; j++)
			if (f->hosts[j].net.s_addr == h->net.s_addr &&
			    f->hosts[j].plen == h->plen) {
				h->prefix_id = f->hosts[j].prefix_id;
				break;
			}
		if (h->prefix_id == f->n_prefixes)
			f->n_prefixes++;
	}
}

static struct xfab_te_fabric *model_of(const struct xfab_fabric *in)
{
	struct xfab_te_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	snprintf(f->name, sizeof(f->name), "%s", in->name);
	f->sw = calloc(in->n_switches, sizeof(*f->sw));
	f->hosts = calloc(in->n_hosts ? in->n_hosts : 1, sizeof(*f->hosts));
	if (!f->sw || !f->hosts)
		goto fail;
	for (unsigned int i = 0; i < in->n_switches; i++) {
		f->n_switches = (int)i + 1; /* so that free sees its ports */
		if (model_switch(&in->switches[i], &f->sw[i]))
			goto fail;
	}
	f->n_hosts = (int)in->n_hosts;
	model_hosts(in, f);
	if (model_links(f))
		goto fail;
	link_scales(f);
	return f;
fail:
	xfab_te_fabric_free(f);
	return NULL;
}

struct xfab_te_fabric *xfab_te_fabric_parse(const char *text, char *err, size_t errlen)
{
	struct xfab_te_fabric *f;
	struct xfab_fabric in;

	if (xfab_fabric_parse_checked(text, XFAB_FAB_CHECK_GATEWAYS, &in, err, errlen))
		return NULL;
	f = model_of(&in);
	xfab_fabric_free(&in);
	if (!f)
		snprintf(err, errlen, "out of memory");
	return f;
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
