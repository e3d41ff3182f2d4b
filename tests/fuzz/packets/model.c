// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference model (model.h). Every rule below cites where it comes
 * from: ARCHITECTURE.md's "Pipeline stages" (numbered as there), CONFIG.md,
 * LOAD_BALANCING.md, PFC.md, QOS.md, or an RFC where the docs are silent.
 * Byte-level work is done on the frame as an array with explicit lengths;
 * nothing here includes bpf/ or the library.
 */
#define _GNU_SOURCE
#include "model_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfab_abi.h" /* the reason numbering only */

/* ---- the switch (one source for the model and the config text) ---- */

/* p7 exists (a harness veth) but is not in PORT: port_unknown */
static const struct m_port m_ports[MODEL_N_SLOTS] = {
    {"p1", 1, 1500, 0, 0, {"10.0.1.1/24", "fd01::1/64"}, 0},
    {"p2", 1, 1400, 0, 0, {"10.0.2.0/31", "fd02::2/127"}, 0},
    {"p3", 1, 1500, 0, 0, {"10.0.3.0/31", "fd03::2/127"}, 0},
    {"p4", 1, 1500, 1000, 1u << 3, {NULL, NULL}, 0},		/* PFC on priority 3 */
    {"p5", 0, 1500, 0, 0, {NULL, NULL}, 0},			/* admin down */
    {"p6", 1, 1500, 0, 0, {"192.168.1.1/24", "fd66::1/64"}, 1}, /* the tenant's */
};

/* The overlay (OVERLAY.md): this VTEP, one VNET with its VNI, and the
 * VNET's own routes (no tunnel routes: the model does not encapsulate). */
#define M_VTEP_SRC "10.252.0.1"
static const struct {
	const char *prefix, *ifname, *nexthop;
} m_vnet_routes[] = {
    {"192.168.9.0/24", "p6", "192.168.1.2"},
    {"192.168.8.0/24", "p6", NULL}, /* connected to the port, no neighbours */
    {"fd99::/32", "p6", "fd66::2"},
};
#define M_N_VNET_ROUTES (sizeof(m_vnet_routes) / sizeof(m_vnet_routes[0]))

/* VNET_ROUTE_TUNNEL: remote tenant prefixes, encapsulated to endpoints the
 * underlay reaches through a group, a nexthop with a small MTU, an
 * unresolved gateway, no route at all */
static const struct {
	const char *prefix, *endpoints, *mac;
} m_tunnels[] = {
    {"192.168.50.0/24", "10.9.0.7,10.8.0.9", NULL},
    {"fd50::/32", "10.77.1.140", "02:00:00:00:77:01"},
    {"192.168.51.0/24", "10.6.0.5", NULL},
    {"192.168.52.0/24", "11.0.0.9", NULL},
};
#define M_N_TUNNELS (sizeof(m_tunnels) / sizeof(m_tunnels[0]))

struct m_route_cfg {
	const char *prefix;
	const char *nexthops; /* comma list, NULL: blackhole */
};

static const struct m_route_cfg m_routes_cfg[] = {
    {"10.0.0.0/8", "10.0.3.1"}, /* covers the connected subnets */
    {"10.9.0.0/16", "10.0.2.1,10.0.3.1"},
    {"10.8.0.0/16", "10.0.2.1"},
    {"10.7.0.0/16", NULL},
    {"10.6.0.0/16", "10.0.1.99"}, /* a gateway no neighbour entry resolves */
    {"10.77.0.0/16", "10.0.2.1"},
    {"10.77.1.128/25", "10.0.3.1"},
    {"10.77.1.200/32", NULL},
    {"198.18.0.0/15", "10.0.2.1,10.0.3.1"},
    {"fd09::/32", "fd02::3,fd03::3"},
    {"fd09:0:0:5::/64", "fd03::3"},
    {"fd09:0:0:5::7/128", NULL},
    {"fd08::/32", "fd02::3"},
    {"fd06::/32", "fd01::99"},
    {"2001:db8::/32", NULL},
};
#define M_N_ROUTES_CFG (sizeof(m_routes_cfg) / sizeof(m_routes_cfg[0]))

struct m_neigh_cfg {
	int slot;
	const char *addr;
	uint8_t mac[6];
};

static const struct m_neigh_cfg m_neigh_cfg[] = {
    {0, "10.0.1.2", {0x02, 0, 0, 0, 0x01, 0x02}},    {0, "fd01::2", {0x02, 0, 0, 0, 0x01, 0x02}},
    {1, "10.0.2.1", {0x02, 0, 0, 0, 0x02, 0x01}},    {2, "10.0.3.1", {0x02, 0, 0, 0, 0x03, 0x01}},
    {1, "fd02::3", {0x02, 0, 0, 0, 0x02, 0x03}},     {2, "fd03::3", {0x02, 0, 0, 0, 0x03, 0x03}},
    {5, "192.168.1.2", {0x02, 0, 0, 0, 0x06, 0x02}}, {5, "fd66::2", {0x02, 0, 0, 0, 0x06, 0x02}},
};
#define M_N_NEIGH (sizeof(m_neigh_cfg) / sizeof(m_neigh_cfg[0]))

#define M_HASH_SEED 12345u

int m_parse_prefix(const char *s, int *family, uint8_t addr[16], int *plen)
{
	char buf[64];
	const char *slash = strchr(s, '/');

	if (!slash || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	*plen = atoi(slash + 1);
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1)
		*family = 4;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		*family = 6;
	else
		return -1;
	return 0;
}

int m_parse_addr(const char *s, int *family, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1)
		*family = 4;
	else if (inet_pton(AF_INET6, s, addr) == 1)
		*family = 6;
	else
		return -1;
	return 0;
}

/* Does addr lie in prefix/plen (both of the family's width)? */
int m_in_prefix(const uint8_t *addr, const uint8_t *prefix, int plen)
{
	for (int i = 0; i < plen; i++) {
		int bit = 7 - (i & 7);

		if (((addr[i >> 3] >> bit) & 1) != ((prefix[i >> 3] >> bit) & 1))
			return 0;
	}
	return 1;
}

struct m_route *m_add_route(struct model *m, int family, const uint8_t *addr, int plen, int type)
{
	struct m_route *r;

	if (m->n_rt >= M_MAX_ROUTES)
		return NULL;
	r = &m->rt[m->n_rt++];
	memset(r, 0, sizeof(*r));
	r->family = family;
	memcpy(r->addr, addr, 16);
	r->plen = plen;
	r->type = type;
	return r;
}

/* splitmix64 (Steele, Lea and Flood 2014): LOAD_BALANCING.md's key stream. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z;

	*x += 0x9e3779b97f4a7c15ull;
	z = *x;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void append(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, fmt, a, b);
}

void m_add(char *c, size_t size, const char *text)
{
	size_t n = strlen(c);

	snprintf(c + n, size - n, "%s", text);
}

static void write_config(struct model *m)
{
	char *c = m->config, line[160];
	size_t sz = sizeof(m->config);
	int first;

	c[0] = '\0';
	append(c, sz,
	       "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"fuzz-packets\", "
	       "\"hash_seed\": \"%s\"%s}},\n \"PORT\": {",
	       "12345", "");
	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		const struct m_port *pp = &m->port[p];

		snprintf(line, sizeof(line), "%s\"%s\": {\"mtu\": \"%d\"%s", p ? ", " : "",
			 pp->name, pp->mtu, pp->admin_up ? "" : ", \"admin_status\": \"down\"");
		append(c, sz, "%s%s", line, "");
		if (pp->rate) {
			snprintf(line, sizeof(line), ", \"rate\": \"%d\"", pp->rate);
			append(c, sz, "%s%s", line, "");
		}
		if (pp->buffer) {
			snprintf(line, sizeof(line), ", \"buffer\": \"%u\"", pp->buffer);
			append(c, sz, "%s%s", line, "");
		}
		append(c, sz, "}%s%s", "", "");
	}
	append(c, sz, "},\n \"INTERFACE\": {%s%s", "", "");
	first = 1;
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		if (m->port[p].vnet) {
			append(c, sz,
			       first ? "\"%s\": {\"vnet_name\": \"%s\"}"
				     : ", \"%s\": {\"vnet_name\": \"%s\"}",
			       m->port[p].name, "Vnet_red");
			first = 0;
		}
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		for (int a = 0; a < 2; a++) {
			if (!m->port[p].addrs[a])
				continue;
			append(c, sz, first ? "\"%s|%s\": {}" : ", \"%s|%s\": {}", m->port[p].name,
			       m->port[p].addrs[a]);
			first = 0;
		}
	append(c, sz, "},\n \"ROUTE\": {%s%s", "", "");
	for (size_t i = 0; i < M_N_ROUTES_CFG; i++) {
		const struct m_route_cfg *r = &m_routes_cfg[i];

		if (r->nexthops)
			append(c, sz, "%s\"%s\": {\"nexthop\": \"", i ? ",\n  " : "", r->prefix);
		else
			append(c, sz, "%s\"%s\": {\"blackhole\": \"true\"}", i ? ",\n  " : "",
			       r->prefix);
		if (r->nexthops)
			append(c, sz, "%s\"}%s", r->nexthops, "");
	}
	append(c, sz, "},\n \"NEIGH\": {%s%s", "", "");
	for (size_t i = 0; i < M_N_NEIGH; i++) {
		const uint8_t *e = m_neigh_cfg[i].mac;
		char mac[32];

		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", e[0], e[1], e[2], e[3],
			 e[4], e[5]);
		snprintf(line, sizeof(line), "%s\"%s|%s\": {\"neigh\": \"%s\"}", i ? ", " : "",
			 m->port[m_neigh_cfg[i].slot].name, m_neigh_cfg[i].addr, mac);
		append(c, sz, "%s%s", line, "");
	}
	snprintf(line, sizeof(line), "%u", M_VNI);
	append(c, sz,
	       "},\n \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"%s\"}},\n \"VNET\": "
	       "{\"Vnet_red\": {\"vxlan_tunnel\": \"vtep\", \"vni\": \"%s\"}},\n \"VNET_ROUTE\": {",
	       M_VTEP_SRC, line);
	for (size_t i = 0; i < M_N_VNET_ROUTES; i++) {
		append(c, sz, "%s\"Vnet_red|%s\": {", i ? ", " : "", m_vnet_routes[i].prefix);
		append(c, sz, "\"ifname\": \"%s\"%s", m_vnet_routes[i].ifname,
		       m_vnet_routes[i].nexthop ? ", \"nexthop\": \"" : "}");
		if (m_vnet_routes[i].nexthop)
			append(c, sz, "%s\"}%s", m_vnet_routes[i].nexthop, "");
	}
	append(c, sz, "},\n \"VNET_ROUTE_TUNNEL\": {%s%s", "", "");
	for (size_t i = 0; i < M_N_TUNNELS; i++) {
		append(c, sz, "%s\"Vnet_red|%s\": {", i ? ", " : "", m_tunnels[i].prefix);
		append(c, sz, "\"endpoint\": \"%s\"%s", m_tunnels[i].endpoints,
		       m_tunnels[i].mac ? ", \"mac_address\": \"" : "}");
		if (m_tunnels[i].mac)
			append(c, sz, "%s\"}%s", m_tunnels[i].mac, "");
	}
	append(c, sz, "},\n \"PORT_QOS_MAP\": {%s%s", "", "");
	first = 1;
	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		char list[32] = "";

		if (!m->port[p].pfc_enable)
			continue;
		for (int q = 0; q < 8; q++)
			if (m->port[p].pfc_enable & (1 << q))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
					 list[0] ? "," : "", q);
		append(c, sz,
		       first ? "\"%s\": {\"pfc_enable\": \"%s\"}"
			     : ", \"%s\": {\"pfc_enable\": \"%s\"}",
		       m->port[p].name, list);
		first = 0;
	}
	m_qos_config(m, c, sz); /* model_qos.c: WRED_PROFILE, QUEUE */
	append(c, sz, "}%s%s", "", "");
	m_acl_config(m, c, sz);	 /* model_acl.c */
	m_copp_config(m, c, sz); /* model_copp.c */
	m_lb_config(m, c, sz);	 /* model_lb.c: ECMP, LOCAL_REPAIR, TE_PATH */
	append(c, sz, "\n}\n%s%s", "", "");
}

static void number_nexthops(struct model *m);

static const char *const m_variant_names[MODEL_V_COUNT] = {
    [MODEL_V_BASE] = "base",
    [MODEL_V_SYMMETRIC] = "symmetric",
    [MODEL_V_ROCE_QP] = "roce-qp",
    [MODEL_V_INNER] = "inner",
    [MODEL_V_SPLIT_HORIZON] = "split-horizon",
    [MODEL_V_TE_PIN] = "te-pin",
    [MODEL_V_DEAD_MEMBER] = "dead-member",
    [MODEL_V_ACL] = "acl",
    [MODEL_V_COPP_RATE] = "copp-rate",
    [MODEL_V_ECN] = "ecn",
};

const char *model_variant_name(int variant)
{
	return variant >= 0 && variant < MODEL_V_COUNT ? m_variant_names[variant] : "?";
}

int model_variant_by_name(const char *name)
{
	for (int v = 0; v < MODEL_V_COUNT; v++)
		if (!strcmp(name, m_variant_names[v]))
			return v;
	return -1;
}

int model_variant_of(const struct model *m)
{
	return m->variant;
}

int model_oper_up(const struct model *m, int slot)
{
	return slot >= 0 && slot < MODEL_N_SLOTS ? m->oper_up[slot] : 0;
}

struct model *model_new(const uint8_t port_macs[MODEL_N_PORTS][6], int variant)
{
	struct model *m = calloc(1, sizeof(*m));
	uint64_t st = M_HASH_SEED;

	if (!m)
		return NULL;
	if (variant < 0 || variant >= MODEL_V_COUNT)
		goto fail;
	m->variant = variant;
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		m->oper_up[p] = 1; /* every veth is up, p5 too (its admin status is config) */
	memcpy(m->mac, port_macs, sizeof(m->mac));
	memcpy(m->port, m_ports, sizeof(m->port));
	/* copp-rate: p4 without PFC, so nothing is handed over: a live
	 * hand-over's tc side (fz_egress.c) punts outside the run whose clock
	 * window the meter's oracle brackets (fz_policy.c); the hand-over's
	 * punts are judged in the other switches, unmetered */
	if (variant == MODEL_V_COPP_RATE)
		m->port[3].pfc_enable = 0;
	m_qos_variant(m);
	/* INTERFACE: the subnet is connected, the address local (CONFIG.md) */
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		for (int a = 0; a < 2; a++) {
			uint8_t addr[16], net[16];
			int fam, plen, width;
			struct m_route *r;

			if (!m->port[p].addrs[a])
				continue;
			if (m_parse_prefix(m->port[p].addrs[a], &fam, addr, &plen))
				goto fail;
			width = fam == 4 ? 32 : 128;
			memset(net, 0, sizeof(net));
			for (int i = 0; i < plen; i++)
				net[i >> 3] |= addr[i >> 3] & (0x80 >> (i & 7));
			r = m_add_route(m, fam, net, plen, RT_CONNECTED);
			if (!r)
				goto fail;
			r->port = p;
			r->vnet = m->port[p].vnet;
			r = m_add_route(m, fam, addr, width, RT_LOCAL);
			if (!r)
				goto fail;
			r->vnet = m->port[p].vnet;
		}
	for (size_t i = 0; i < M_N_ROUTES_CFG; i++) {
		const struct m_route_cfg *c = &m_routes_cfg[i];
		uint8_t addr[16];
		int fam, plen;
		struct m_route *r;

		if (m_parse_prefix(c->prefix, &fam, addr, &plen))
			goto fail;
		r = m_add_route(m, fam, addr, plen, c->nexthops ? RT_NEXTHOP : RT_BLACKHOLE);
		if (!r)
			goto fail;
		if (c->nexthops) {
			char list[128], *save = NULL, *tok;

			snprintf(list, sizeof(list), "%s", c->nexthops);
			for (tok = strtok_r(list, ",", &save); tok && r->n_gw < M_MAX_GW;
			     tok = strtok_r(NULL, ",", &save)) {
				int gfam;

				if (m_parse_addr(tok, &gfam, r->gw[r->n_gw]) || gfam != fam)
					goto fail;
				r->order[r->n_gw] = r->n_gw;
				r->n_gw++;
			}
			if (r->n_gw > 1) {
				r->type = RT_GROUP;
				/* routes with the same nexthops share one group */
				r->group = -1;
				for (int g = 0; g < m->n_groups; g++) {
					const struct m_route *o = &m->rt[m->group_route[g]];

					if (o->n_gw == r->n_gw &&
					    !memcmp(o->gw, r->gw,
						    sizeof(r->gw[0]) * (size_t)r->n_gw))
						r->group = g;
				}
				if (r->group < 0) {
					r->group = m->n_groups;
					m->group_route[m->n_groups++] = (int)(r - m->rt);
				}
			}
		}
	}
	for (size_t i = 0; i < M_N_VNET_ROUTES; i++) {
		uint8_t addr[16];
		int fam, plen;
		struct m_route *r;

		if (m_parse_prefix(m_vnet_routes[i].prefix, &fam, addr, &plen))
			goto fail;
		r = m_add_route(m, fam, addr, plen,
				m_vnet_routes[i].nexthop ? RT_NEXTHOP : RT_CONNECTED);
		if (!r)
			goto fail;
		r->vnet = 1;
		r->port = 5;
		if (m_vnet_routes[i].nexthop) {
			int gfam;

			if (m_parse_addr(m_vnet_routes[i].nexthop, &gfam, r->gw[0]) || gfam != fam)
				goto fail;
			r->n_gw = 1;
		}
	}
	for (size_t i = 0; i < M_N_TUNNELS; i++) {
		char list[128], *save = NULL, *tok;
		uint8_t addr[16];
		int fam, plen;
		struct m_route *r;

		if (m_parse_prefix(m_tunnels[i].prefix, &fam, addr, &plen))
			goto fail;
		r = m_add_route(m, fam, addr, plen, RT_TUNNEL);
		if (!r)
			goto fail;
		r->vnet = 1;
		snprintf(list, sizeof(list), "%s", m_tunnels[i].endpoints);
		for (tok = strtok_r(list, ",", &save); tok && r->n_gw < M_MAX_GW;
		     tok = strtok_r(NULL, ",", &save))
			if (inet_pton(AF_INET, tok, r->gw[r->n_gw++]) != 1)
				goto fail;
		if (m_tunnels[i].mac &&
		    sscanf(m_tunnels[i].mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &r->mac[0],
			   &r->mac[1], &r->mac[2], &r->mac[3], &r->mac[4], &r->mac[5]) != 6)
			goto fail;
	}
	inet_pton(AF_INET, M_VTEP_SRC, m->vtep);
	/* the hash keys: k0, src[0..3], dst[0..3], ports, misc, label
	 * (LOAD_BALANCING.md); the fields are the variant's (model_lb.c) */
	m->k0 = splitmix64(&st);
	for (int i = 0; i < 4; i++)
		m->ksrc[i] = splitmix64(&st);
	for (int i = 0; i < 4; i++)
		m->kdst[i] = splitmix64(&st);
	m->kports = splitmix64(&st);
	m->kmisc = splitmix64(&st);
	m->klabel = splitmix64(&st);
	if (m_lb_setup(m)) /* the variant's hash, repair, pins, link state */
		goto fail;
	number_nexthops(m);
	write_config(m);
	return m;
fail:
	free(m);
	return NULL;
}

void model_free(struct model *m)
{
	free(m);
}

const char *model_config_text(const struct model *m)
{
	return m->config;
}

int model_n_groups(const struct model *m)
{
	return m->n_groups;
}

int model_group_gateways(const struct model *m, int g, int *family, uint8_t gw[][16], int max)
{
	const struct m_route *r;
	int n;

	if (g < 0 || g >= m->n_groups)
		return 0;
	r = &m->rt[m->group_route[g]];
	*family = r->family;
	n = r->n_gw < max ? r->n_gw : max;
	memcpy(gw, r->gw, sizeof(r->gw[0]) * (size_t)n);
	return n;
}

int model_group_live(const struct model *m, int g)
{
	int n = 0;

	if (g < 0 || g >= m->n_groups)
		return 0;
	for (int k = 0; k < m->rt[m->group_route[g]].n_gw; k++)
		n += m_gw_live(m, &m->rt[m->group_route[g]], k);
	return n;
}

int model_group_bucket(const struct model *m, int g, int b)
{
	if (g < 0 || g >= m->n_groups)
		return -1;
	return m_bucket_gw(m, &m->rt[m->group_route[g]], b);
}

const uint8_t *m_neighbour(int slot, int v6, const uint8_t *addr)
{
	for (size_t i = 0; i < M_N_NEIGH; i++) {
		uint8_t a[16];
		int fam;

		if (m_neigh_cfg[i].slot != slot || m_parse_addr(m_neigh_cfg[i].addr, &fam, a) ||
		    fam != (v6 ? 6 : 4) || memcmp(a, addr, v6 ? 16 : 4))
			continue;
		return m_neigh_cfg[i].mac;
	}
	return NULL;
}

/* The port whose connected subnet holds gw. */
int m_gw_port(const struct model *m, int vnet, int v6, const uint8_t *gw)
{
	for (int i = 0; i < m->n_rt; i++) {
		const struct m_route *r = &m->rt[i];

		if (r->vnet == vnet && r->type == RT_CONNECTED && r->family == (v6 ? 6 : 4) &&
		    m_in_prefix(gw, r->addr, r->plen))
			return r->port;
	}
	return -1;
}

/*
 * Group member order, from the config by the compiler's numbering (not
 * from the data plane's tables). xfabd loads the RIB in config order, VNET
 * routes before ROUTE entries (user/lib/rib.c load_config), and compiles the
 * prefixes in the order they were loaded (the RIB's dirty list); a route's
 * nexthop takes the next free id, from 1, on its first use
 * (user/lib/compile_nh.c xfab_nh_get, xfab_id_alloc), a group's gateways
 * being taken in the RIB's member order, by (port, family, address)
 * (rib.c cmp_member); a group lists its members by nexthop id
 * (compile_group.c grp_value, cmp_member), and a fresh fill gives bucket b
 * to member b % n (xfab_group_fill_buckets). So a group's order[] is its
 * gateways by id.
 */
struct m_nh {
	int port, family;
	uint8_t gw[16];
};

/* RIB member order: a before b by (port, family, address). */
static int member_before(const struct m_nh *a, const struct m_nh *b)
{
	if (a->port != b->port)
		return a->port < b->port;
	if (a->family != b->family)
		return a->family < b->family;
	return memcmp(a->gw, b->gw, 16) < 0;
}

/* The id of nexthop x, given one if new (ids: index + 1 in nh). */
static int nexthop_id(struct m_nh *nh, int *n_nh, const struct m_nh *x)
{
	for (int i = 0; i < *n_nh; i++)
		if (nh[i].port == x->port && nh[i].family == x->family &&
		    !memcmp(nh[i].gw, x->gw, 16))
			return i + 1;
	nh[(*n_nh)++] = *x;
	return *n_nh;
}

/* One route's gateways numbered; a group's order[] set by their ids. */
static void number_route(const struct model *m, struct m_route *r, struct m_nh *nh, int *n_nh)
{
	struct m_nh mem[M_MAX_GW];
	int idx[M_MAX_GW], id[M_MAX_GW];

	for (int k = 0; k < r->n_gw; k++) {
		mem[k].port = m_gw_port(m, r->vnet == 1, r->family == 6, r->gw[k]);
		mem[k].family = r->family;
		memcpy(mem[k].gw, r->gw[k], 16);
		idx[k] = k;
	}
	for (int k = 1; k < r->n_gw; k++) /* insertion sort: the RIB's order */
		for (int j = k; j > 0 && member_before(&mem[idx[j]], &mem[idx[j - 1]]); j--) {
			int t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int k = 0; k < r->n_gw; k++)
		id[idx[k]] = nexthop_id(nh, n_nh, &mem[idx[k]]);
	for (int k = 0; k < r->n_gw; k++) /* order[]: gateway indices by id */
		r->order[k] = k;
	for (int k = 1; k < r->n_gw; k++)
		for (int j = k; j > 0 && id[r->order[j]] < id[r->order[j - 1]]; j--) {
			int t = r->order[j];

			r->order[j] = r->order[j - 1];
			r->order[j - 1] = t;
		}
}

static void number_nexthops(struct model *m)
{
	struct m_nh nh[M_MAX_ROUTES * M_MAX_GW];
	int n_nh = 0;

	/* VNET routes first, TE entries last (ARCHITECTURE.md's feature
	 * order), the repair group of gateways numbered already */
	static const int tables[] = {1, 0, M_VNET_TE, M_VNET_REPAIR};

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (int i = 0; i < m->n_rt; i++) {
			struct m_route *r = &m->rt[i];

			if (r->vnet == tables[t] && (r->type == RT_NEXTHOP || r->type == RT_GROUP))
				number_route(m, r, nh, &n_nh);
		}
}
