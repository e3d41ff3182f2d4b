// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The model's ingress ACL (ACL.md): the acl switch's ACL_TABLE and
 * ACL_RULE, written into its config text from the tables below (one
 * source), read here as ACL.md's "What is supported" says each field is
 * written, and judged by its "Semantics". Nothing here includes bpf/ or
 * the library.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "xfab_abi.h" /* the reason numbering only */

/*
 * The tables: both types, bound by a port list and by a comma string,
 * two tables of one type and one of each family on p1 (their rules merged
 * by priority), the lossless port p4 (xdp hands its lossless class to tc
 * first), the uplink p3 (VXLAN to the VTEP judged by its outer headers),
 * the tenant's p6; p2 has none.
 */
static const struct {
	const char *name, *fields;
} m_acl_tables[] = {
    {"EDGE_V4", "\"type\": \"L3\", \"stage\": \"ingress\", \"ports\": [\"p1\", \"p4\"]"},
    {"EDGE_V6", "\"type\": \"l3v6\", \"ports\": \"p1,p6\", \"policy_desc\": \"edge, v6\""},
    {"EXTRA_V4", "\"type\": \"L3\", \"ports\": [\"p1\"]"},
    {"TENANT", "\"type\": \"L3\", \"ports\": [\"p6\"]"},
    {"UPLINK", "\"type\": \"L3\", \"ports\": \"p3\""},
    {"CATCH", "\"type\": \"L3V6\", \"ports\": [\"p4\"]"},
};
#define M_ACL_N_TABLES (sizeof(m_acl_tables) / sizeof(m_acl_tables[0]))

/* Every match field of ACL.md's table and both actions; priorities that
 * overlap (a FORWARD hole above a DROP, a narrower rule below a wider
 * one) and tie (9 and 10 across two tables of p1: the first written
 * wins). A rule's counter is its index here (ACL.md "Reload"). */
static const struct {
	const char *key, *fields;
} m_acl_rules[] = {
    /* 0 */ {"EDGE_V4|SSH_ADMIN", "\"PRIORITY\": \"200\", \"PACKET_ACTION\": \"FORWARD\", "
				  "\"SRC_IP\": \"10.0.1.2/32\", \"IP_PROTOCOL\": \"6\", "
				  "\"L4_DST_PORT_RANGE\": \"20-23\""},
    /* 1 */
    {"EDGE_V4|SSH", "\"PRIORITY\": \"100\", \"PACKET_ACTION\": \"drop\", \"IP_PROTOCOL\": "
		    "\"0x06\", \"L4_DST_PORT\": \"22\""},
    /* 2 */
    {"EDGE_V4|NET8", "\"PRIORITY\": \"50\", \"PACKET_ACTION\": \"DROP\", \"DST_IP\": "
		     "\"10.8.0.0/16\", \"IP_TYPE\": \"IPV4ANY\""},
    /* 3 */
    {"EDGE_V4|NET8_HOLE", "\"PRIORITY\": \"60\", \"PACKET_ACTION\": \"FORWARD\", \"DST_IP\": "
			  "\"10.8.1.77/24\", \"ETHER_TYPE\": \"0x0800\""},
    /* 4 */
    {"EDGE_V4|UDP_SPORTS", "\"PRIORITY\": \"70\", \"PACKET_ACTION\": \"DROP\", \"IP_PROTOCOL\": "
			   "\"17\", \"L4_SRC_PORT_RANGE\": \"1000-1999\""},
    /* 5 */
    {"EDGE_V4|EF_FROM_10_1", "\"PRIORITY\": \"40\", \"PACKET_ACTION\": \"DROP\", \"DSCP\": "
			     "\"46\", \"SRC_IP\": \"10.1.2.3/16\", \"IP_TYPE\": \"IP\""},
    /* 6 */
    {"EDGE_V4|SYN_TO_10_9", "\"PRIORITY\": \"80\", \"PACKET_ACTION\": \"DROP\", \"TCP_FLAGS\": "
			    "\"0x02/0x12\", \"DST_IP\": \"10.9.0.0/16\""},
    /* 7 */
    {"EDGE_V4|ROCE_NAK", "\"PRIORITY\": \"90\", \"PACKET_ACTION\": \"DROP\", \"BTH_OPCODE\": "
			 "\"0x11/0xff\", \"AETH_SYNDROME\": \"0x60/0xe0\""},
    /* 8 */
    {"EDGE_V4|ROCE_UD", "\"PRIORITY\": \"78\", \"PACKET_ACTION\": \"DROP\", \"BTH_OPCODE\": "
			"\"0x60/0xe0\""},
    /* 9 */
    {"EDGE_V4|ROCE_OK", "\"PRIORITY\": \"75\", \"PACKET_ACTION\": \"FORWARD\", \"L4_DST_PORT\": "
			"\"4791\""},
    /* 10 */
    {"EXTRA_V4|UDP_TIE", "\"PRIORITY\": \"75\", \"PACKET_ACTION\": \"DROP\", \"IP_PROTOCOL\": "
			 "\"17\", \"DST_IP\": \"198.18.0.0/15\""},
    /* 11 */
    {"EXTRA_V4|GRE", "\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"IP_PROTOCOL\": \"47\""},
    /* 12 */
    {"EXTRA_V4|HI_PORTS", "\"PRIORITY\": \"65\", \"PACKET_ACTION\": \"DROP\", "
			  "\"L4_DST_PORT_RANGE\": \"65534-65535\""},
    /* 13 */
    {"EXTRA_V4|SPORT0", "\"PRIORITY\": \"66\", \"PACKET_ACTION\": \"DROP\", \"L4_SRC_PORT\": "
			"\"0\", \"IP_PROTOCOL\": \"6\""},
    /* 14 */
    {"EDGE_V6|FD08", "\"PRIORITY\": \"100\", \"PACKET_ACTION\": \"DROP\", \"DST_IPV6\": "
		     "\"fd08::/32\""},
    /* 15 */
    {"EDGE_V6|FD08_HOST", "\"PRIORITY\": \"110\", \"PACKET_ACTION\": \"FORWARD\", \"DST_IPV6\": "
			  "\"fd08::1/128\""},
    /* 16 */
    {"EDGE_V6|DOC_UDP", "\"PRIORITY\": \"50\", \"PACKET_ACTION\": \"DROP\", \"SRC_IPV6\": "
			"\"2001:db8:1::/48\", \"IP_PROTOCOL\": \"17\""},
    /* 17 */
    {"EDGE_V6|DNS_SRC", "\"PRIORITY\": \"60\", \"PACKET_ACTION\": \"DROP\", \"L4_SRC_PORT\": "
			"\"53\", \"IP_TYPE\": \"IPV6ANY\""},
    /* 18 */
    {"EDGE_V6|AF11", "\"PRIORITY\": \"20\", \"PACKET_ACTION\": \"DROP\", \"DSCP\": \"10\""},
    /* 19 */
    {"EDGE_V6|FIN", "\"PRIORITY\": \"70\", \"PACKET_ACTION\": \"DROP\", \"TCP_FLAGS\": "
		    "\"0x01/0x01\", \"IP_PROTOCOL\": \"6\""},
    /* 20 */
    {"EDGE_V6|ICMP6", "\"PRIORITY\": \"30\", \"PACKET_ACTION\": \"DROP\", \"IP_PROTOCOL\": "
		      "\"58\", \"ETHER_TYPE\": \"0x86dd\""},
    /* 21 */
    {"EDGE_V6|TENANT_NET", "\"PRIORITY\": \"40\", \"PACKET_ACTION\": \"DROP\", \"DST_IPV6\": "
			   "\"fd99::/32\""},
    /* 22 */
    {"EDGE_V6|TENANT_WEB", "\"PRIORITY\": \"45\", \"PACKET_ACTION\": \"FORWARD\", \"SRC_IPV6\": "
			   "\"fd66::2/128\", \"L4_DST_PORT_RANGE\": \"5000-6000\""},
    /* 23 */
    {"EDGE_V6|ROCE_ACK", "\"PRIORITY\": \"15\", \"PACKET_ACTION\": \"FORWARD\", "
			 "\"AETH_SYNDROME\": \"0x00/0x60\", \"BTH_OPCODE\": \"0x11/0x1f\""},
    /* 24 */
    {"EDGE_V6|CS7_LAST", "\"PRIORITY\": \"5\", \"PACKET_ACTION\": \"DROP\", \"IP_TYPE\": "
			 "\"NON_IPV4\", \"DSCP\": \"63\""},
    /* 25 */
    {"TENANT|SUBNET9", "\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"DST_IP\": "
		       "\"192.168.9.0/25\""},
    /* 26 */
    {"TENANT|ROUTER", "\"PRIORITY\": \"20\", \"PACKET_ACTION\": \"DROP\", \"DST_IP\": "
		      "\"192.168.1.1/32\""},
    /* 27 */
    {"TENANT|TUNNEL_LOW", "\"PRIORITY\": \"30\", \"PACKET_ACTION\": \"DROP\", \"DST_IP\": "
			  "\"192.168.50.0/24\", \"L4_DST_PORT_RANGE\": \"0-1023\""},
    /* 28 */
    {"UPLINK|VXLAN_FROM_10_9", "\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"SRC_IP\": "
			       "\"10.9.0.0/16\", \"L4_DST_PORT\": \"4789\", \"IP_PROTOCOL\": "
			       "\"17\""},
    /* 29 */
    {"UPLINK|CS7", "\"PRIORITY\": \"20\", \"PACKET_ACTION\": \"DROP\", \"DSCP\": \"56\""},
    /* 30 */
    {"UPLINK|ICMP", "\"PRIORITY\": \"5\", \"PACKET_ACTION\": \"DROP\", \"IP_PROTOCOL\": \"1\""},
    /* 31 */
    {"CATCH|ALL6", "\"PRIORITY\": \"0\", \"PACKET_ACTION\": \"FORWARD\", \"IP_TYPE\": \"ANY\""},
    /* 32 */
    {"EDGE_V4|UNRESOLVED", "\"PRIORITY\": \"35\", \"PACKET_ACTION\": \"DROP\", \"DST_IP\": "
			   "\"10.6.0.0/16\", \"TCP_FLAGS\": \"0x10\""},
};
#define M_ACL_N_RULES (sizeof(m_acl_rules) / sizeof(m_acl_rules[0]))

/* A rule as ACL.md reads it. */
struct m_acl_rule {
	int v6;	   /* the table's family: L3 matches IPv4 only, L3V6 IPv6 only */
	int ports; /* the slots its table is bound to (bit n) */
	unsigned prio;
	int drop;
	int src_plen, dst_plen; /* -1: not named */
	uint8_t src[16], dst[16];
	int proto;					/* -1: not named */
	int sp_lo, sp_hi, dp_lo, dp_hi;			/* -1: not named */
	int dscp;					/* -1: not named */
	int tcp_v, tcp_m, bth_v, bth_m, aeth_v, aeth_m; /* mask -1: not named */
};

static struct m_acl_rule m_acl_r[M_ACL_N_RULES];

static void acl_die(const char *key, const char *what)
{
	fprintf(stderr, "model_acl: rule %s: %s\n", key, what);
	abort();
}

/* "Numbers may be decimal or 0x hex." */
static int acl_num(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 0);

	return *s && !*end && v >= 0 && v <= max ? (int)v : -2;
}

/* An address or prefix of the table's family; host bits ignored. */
static void acl_prefix(const char *key, const char *s, int v6, uint8_t *addr, int *plen)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	int width = v6 ? 128 : 32;

	snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - s) : (int)strlen(s), s);
	memset(addr, 0, 16);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, addr) != 1)
		acl_die(key, "address");
	*plen = slash ? acl_num(slash + 1, width) : width;
	if (*plen < 0)
		acl_die(key, "prefix length");
	for (int i = *plen; i < width; i++)
		addr[i >> 3] &= (uint8_t) ~(0x80 >> (i & 7));
}

/* VALUE/MASK (TCP_FLAGS also VALUE: mask 0xff). */
static void acl_value_mask(const char *key, const char *s, int mask_optional, int *v, int *m)
{
	char buf[32];
	const char *slash = strchr(s, '/');

	snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - s) : (int)strlen(s), s);
	*v = acl_num(buf, 255);
	*m = slash ? acl_num(slash + 1, 255) : mask_optional ? 0xff : -2;
	if (*v < 0 || *m < 0)
		acl_die(key, "VALUE/MASK");
}

static void acl_range(const char *key, const char *s, int *lo, int *hi)
{
	char a[16], b[16];

	if (sscanf(s, "%15[^-]-%15s", a, b) != 2)
		acl_die(key, "LO-HI");
	*lo = acl_num(a, 65535);
	*hi = acl_num(b, 65535);
	if (*lo < 0 || *hi < *lo)
		acl_die(key, "LO-HI");
}

/* One "FIELD": "VALUE" of rule r, by ACL.md's table. */
static void acl_field(const char *key, struct m_acl_rule *r, const char *f, const char *v)
{
	if (!strcmp(f, "PRIORITY"))
		r->prio = (unsigned)acl_num(v, 999999);
	else if (!strcmp(f, "PACKET_ACTION"))
		r->drop = !strcasecmp(v, "DROP");
	else if (!strcmp(f, "SRC_IP") || !strcmp(f, "SRC_IPV6"))
		acl_prefix(key, v, r->v6, r->src, &r->src_plen);
	else if (!strcmp(f, "DST_IP") || !strcmp(f, "DST_IPV6"))
		acl_prefix(key, v, r->v6, r->dst, &r->dst_plen);
	else if (!strcmp(f, "IP_PROTOCOL"))
		r->proto = acl_num(v, 255);
	else if (!strcmp(f, "L4_SRC_PORT"))
		r->sp_lo = r->sp_hi = acl_num(v, 65535);
	else if (!strcmp(f, "L4_DST_PORT"))
		r->dp_lo = r->dp_hi = acl_num(v, 65535);
	else if (!strcmp(f, "L4_SRC_PORT_RANGE"))
		acl_range(key, v, &r->sp_lo, &r->sp_hi);
	else if (!strcmp(f, "L4_DST_PORT_RANGE"))
		acl_range(key, v, &r->dp_lo, &r->dp_hi);
	else if (!strcmp(f, "DSCP"))
		r->dscp = acl_num(v, 63);
	else if (!strcmp(f, "TCP_FLAGS"))
		acl_value_mask(key, v, 1, &r->tcp_v, &r->tcp_m);
	else if (!strcmp(f, "BTH_OPCODE"))
		acl_value_mask(key, v, 0, &r->bth_v, &r->bth_m);
	else if (!strcmp(f, "AETH_SYNDROME"))
		acl_value_mask(key, v, 0, &r->aeth_v, &r->aeth_m);
	else if (strcmp(f, "IP_TYPE") && strcmp(f, "ETHER_TYPE")) /* the own family: no narrowing */
		acl_die(key, f);
}

/* The table of key "TABLE|RULE": its family and ports. */
static void acl_table(const char *key, struct m_acl_rule *r)
{
	for (size_t t = 0; t < M_ACL_N_TABLES; t++) {
		size_t n = strlen(m_acl_tables[t].name);

		if (strncmp(key, m_acl_tables[t].name, n) || key[n] != '|')
			continue;
		r->v6 = strcasestr(m_acl_tables[t].fields, "\"l3v6\"") != NULL;
		for (int p = 0; p < MODEL_N_SLOTS; p++) {
			char name[8];

			snprintf(name, sizeof(name), "p%d", p + 1);
			if (strstr(m_acl_tables[t].fields, name))
				r->ports |= 1 << p;
		}
		return;
	}
	acl_die(key, "no table");
}

static void acl_parse(void)
{
	for (size_t i = 0; i < M_ACL_N_RULES; i++) {
		struct m_acl_rule *r = &m_acl_r[i];
		const char *p = m_acl_rules[i].fields;
		char f[32], v[64];
		int n;

		memset(r, 0, sizeof(*r));
		r->src_plen = r->dst_plen = r->proto = r->dscp = -1;
		r->sp_lo = r->sp_hi = r->dp_lo = r->dp_hi = -1;
		r->tcp_m = r->bth_m = r->aeth_m = -1;
		acl_table(m_acl_rules[i].key, r);
		while (sscanf(p, " \"%31[^\"]\": \"%63[^\"]\"%n", f, v, &n) == 2) {
			acl_field(m_acl_rules[i].key, r, f, v);
			p += n;
			p += strspn(p, ", ");
		}
		if (*p)
			acl_die(m_acl_rules[i].key, "fields");
	}
}

void m_acl_config(const struct model *m, char *c, size_t sz)
{
	size_t n;

	if (m->variant != MODEL_V_ACL)
		return;
	acl_parse();
	n = strlen(c);
	n += (size_t)snprintf(c + n, sz - n, ",\n \"ACL_TABLE\": {");
	for (size_t t = 0; t < M_ACL_N_TABLES && n < sz; t++)
		n += (size_t)snprintf(c + n, sz - n, "%s\"%s\": {%s}", t ? ",\n  " : "",
				      m_acl_tables[t].name, m_acl_tables[t].fields);
	n += (size_t)snprintf(c + n, sz - n, "},\n \"ACL_RULE\": {");
	for (size_t i = 0; i < M_ACL_N_RULES && n < sz; i++)
		n += (size_t)snprintf(c + n, sz - n, "%s\"%s\": {%s}", i ? ",\n  " : "",
				      m_acl_rules[i].key, m_acl_rules[i].fields);
	if (n < sz)
		snprintf(c + n, sz - n, "}");
}

int model_acl_n_rules(const struct model *m)
{
	return m->variant == MODEL_V_ACL ? (int)M_ACL_N_RULES : 0;
}

/* RC and XRC (transport 0, 5) read responses first/last/only, acknowledge,
 * atomic acknowledge carry an AETH (ACL.md "AETH_SYNDROME"; IBTA 9.2). */
static int acl_has_aeth(int opcode)
{
	int op = opcode & 0x1f, transport = opcode >> 5;

	return (transport == 0 || transport == 5) &&
	       (op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11 || op == 0x12);
}

static int acl_in(int v, int lo, int hi)
{
	return lo < 0 || (v >= lo && v <= hi);
}

/* Every field rule r names matches packet k (frame f). */
static int acl_matches(const struct m_acl_rule *r, const uint8_t *f, const struct m_pkt *k)
{
	/* RoCEv2: UDP 4791 with a whole BTH (12 bytes) in the frame */
	int roce =
	    k->have_ports && k->l4_proto == 17 && k->dport == 4791 && k->l4 + 8 + 12 <= k->len;
	size_t aeth = k->l4 + 8 + 12;

	if (r->v6 != k->v6)
		return 0;
	if (r->src_plen >= 0 && !m_in_prefix(k->src, r->src, r->src_plen))
		return 0;
	if (r->dst_plen >= 0 && !m_in_prefix(k->dst, r->dst, r->dst_plen))
		return 0;
	if (r->proto >= 0 && k->l4_proto != r->proto)
		return 0;
	/* ports: TCP and UDP only, never fragments (have_ports) */
	if ((r->sp_lo >= 0 || r->dp_lo >= 0) && !k->have_ports)
		return 0;
	if (!acl_in(k->sport, r->sp_lo, r->sp_hi) || !acl_in(k->dport, r->dp_lo, r->dp_hi))
		return 0;
	if (r->dscp >= 0 && (k->tos >> 2) != r->dscp)
		return 0;
	if (r->tcp_m >= 0 &&
	    (!k->have_ports || k->l4_proto != 6 || (f[k->l4 + 13] & r->tcp_m) != r->tcp_v))
		return 0;
	if (r->bth_m >= 0 && (!roce || (f[k->l4 + 8] & r->bth_m) != r->bth_v))
		return 0;
	if (r->aeth_m >= 0 && (!roce || !acl_has_aeth(f[k->l4 + 8]) || aeth >= k->len ||
			       (f[aeth] & r->aeth_m) != r->aeth_v))
		return 0;
	return 1;
}

/* "Traffic for the switch is not filtered": a local route of the
 * underlay's table (local routes are host routes: the longest match). */
static int acl_to_switch(const struct model *m, const struct m_pkt *k)
{
	for (int i = 0; i < m->n_rt; i++) {
		const struct m_route *rt = &m->rt[i];

		if (rt->vnet == 0 && rt->type == RT_LOCAL && rt->family == (k->v6 ? 6 : 4) &&
		    m_in_prefix(k->dst, rt->addr, rt->plen))
			return 1;
	}
	return 0;
}

/*
 * ACL.md "Semantics": among the rules of every table bound to the ingress
 * port, the highest priority that matches decides, equal priorities in
 * the order the config writes them; DROP is an acl_drop, FORWARD goes on;
 * the rule counts the packet and the frame's bytes as received.
 */
int m_acl(const struct model *m, const uint8_t *f, const struct m_pkt *k, int slot,
	  struct model_result *r)
{
	int best = -1;

	if (m->variant != MODEL_V_ACL || acl_to_switch(m, k))
		return 0;
	for (size_t i = 0; i < M_ACL_N_RULES; i++)
		if ((m_acl_r[i].ports & (1 << slot)) &&
		    (best < 0 || m_acl_r[i].prio > m_acl_r[best].prio) &&
		    acl_matches(&m_acl_r[i], f, k))
			best = (int)i;
	if (best < 0)
		return 0;
	r->acl_rule = best + 1;
	r->acl_bytes = k->len;
	if (!m_acl_r[best].drop)
		return 0;
	r->verdict = MV_DROP;
	r->reason = XFAB_DROP_ACL_DROP;
	return 1;
}
