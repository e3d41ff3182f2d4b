// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ACL_TABLE and ACL_RULE (docs/ACL.md): SONiC's L3 and L3V6 ingress ACLs.
 * Field names and value formats are SONiC's (sonic-acl.yang, swss's
 * aclorch); every value may be a string, as in config_db. What xfab does
 * not do is refused by name, never ignored.
 */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- values ---- */

/* Decimal, or hexadecimal with 0x (SONiC writes TCP_FLAGS and the RoCE
 * fields either way), up to max. */
static int acl_number(const char *t, __u32 max, __u32 *out)
{
	__u64 v = 0;

	if ((t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))) {
		const char *p = t + 2;

		if (!*p || strlen(p) > 8)
			return -1;
		for (; *p; p++) {
			int d = *p >= '0' && *p <= '9'	 ? *p - '0'
				: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
				: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
							 : -1;

			if (d < 0)
				return -1;
			v = v * 16 + (__u64)d;
		}
	} else if (cfg_decimal(t, strlen(t), max, &v) != CFG_DEC_OK) {
		return -1;
	}
	if (v > max)
		return -1;
	*out = (__u32)v;
	return 0;
}

static int acl_field_number(struct ctx *c, const struct json_value *f, const char *fk, __u32 max,
			    __u32 *out)
{
	char buf[32];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));

	if (!t)
		return -1;
	if (acl_number(t, max, out)) {
		cfg_add_error(c, f->pos, fk, "'%s' is not a number 0..%u (decimal or 0x hex)", t,
			      max);
		return -1;
	}
	return 0;
}

/* "VALUE" or "VALUE/MASK" (a missing mask: every bit of max). */
static int acl_value_mask(struct ctx *c, const struct json_value *f, const char *fk, __u32 max,
			  __u8 *value, __u8 *mask)
{
	char buf[32], text[32], *slash;
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	__u32 v, m = max;

	if (!t)
		return -1;
	snprintf(text, sizeof(text), "%s", t);
	slash = strchr(text, '/');
	if (slash)
		*slash = '\0';
	if (acl_number(text, max, &v) || (slash && acl_number(slash + 1, max, &m))) {
		cfg_add_error(c, f->pos, fk, "'%s' is not VALUE or VALUE/MASK, each 0..%u", t, max);
		return -1;
	}
	if (v & ~m) {
		cfg_add_error(c, f->pos, fk, "'%s' sets bits outside its mask (0x%x)", t, v & ~m);
		return -1;
	}
	*value = (__u8)v;
	*mask = (__u8)m;
	return 0;
}

/* "LO-HI" (LO <= HI), or one port (LO = HI). */
static int acl_port_range(struct ctx *c, const struct json_value *f, const char *fk, int range,
			  __u16 *lo, __u16 *hi)
{
	char buf[32], text[32], *dash;
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	__u32 a, b;

	if (!t)
		return -1;
	snprintf(text, sizeof(text), "%s", t);
	dash = strchr(text, '-');
	if (dash)
		*dash = '\0';
	if (range != (dash != NULL) || acl_number(text, 65535, &a) ||
	    acl_number(dash ? dash + 1 : text, 65535, &b) || a > b) {
		cfg_add_error(c, f->pos, fk, "'%s' is not %s", t,
			      range ? "a port range LO-HI, 0 <= LO <= HI <= 65535"
				    : "a port 0..65535");
		return -1;
	}
	*lo = (__u16)a;
	*hi = (__u16)b;
	return 0;
}

/* An address or prefix of the table's family into (addr, mask). */
static int acl_prefix(struct ctx *c, const struct json_value *f, const char *fk, int v6,
		      __be32 *addr, __be32 *mask)
{
	char buf[64], text[64], why[160];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	struct xfab_prefix pfx;

	if (!t)
		return -1;
	snprintf(text, sizeof(text), strchr(t, '/') ? "%s" : v6 ? "%s/128" : "%s/32", t);
	if (xfab_parse_prefix(text, &pfx, why, sizeof(why))) {
		cfg_add_error(c, f->pos, fk, "%s", why);
		return -1;
	}
	if ((pfx.family == AF_INET6) != v6) {
		cfg_add_error(c, f->pos, fk, "'%s' is not an %s prefix", t, v6 ? "IPv6" : "IPv4");
		return -1;
	}
	for (int w = 0; w < 4; w++) {
		int bits = pfx.plen - w * 32;
		__u32 m = bits >= 32 ? ~0u : bits <= 0 ? 0 : ~0u << (32 - bits);
		__u32 a;

		memcpy(&a, pfx.addr + (size_t)w * 4, 4);
		mask[w] = htonl(m);
		addr[w] = a & mask[w]; /* host bits are ignored, as SONiC does */
	}
	return 0;
}

/* A table's or a rule's name: 1..63 bytes of letters, digits and "_-.:"
 * (what SONiC's names use; the metrics' labels need no escaping). */
static int acl_name_ok(const char *name, size_t len)
{
	if (len == 0 || len >= XFAB_ACL_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_-.:", name[i]))
			return 0;
	return 1;
}

/* ---- ACL_TABLE ---- */

static void bind_port(struct ctx *c, struct json_pos pos, const char *fk, const char *name,
		      struct xfab_cfg_acl_table *t)
{
	int p = xfab_config_port_index(c->cfg, name);

	if (p < 0)
		cfg_add_error(c, pos, fk, "unknown port '%s' (not in PORT)", name);
	else
		t->ports |= 1ull << p;
}

/* ports: a list of names, or one string of names with commas (both are
 * seen in SONiC's config_db files). */
static void parse_table_ports(struct ctx *c, const struct json_value *f, const char *fk,
			      struct xfab_cfg_acl_table *t)
{
	if (f->type == JSON_STRING) {
		char text[1024], *items[XFAB_MAX_PORTS];
		int n;

		if (strlen(f->str) >= sizeof(text)) {
			cfg_add_error(c, f->pos, fk, "too long");
			return;
		}
		snprintf(text, sizeof(text), "%s", f->str);
		n = cfg_split_list(text, items, XFAB_MAX_PORTS);
		if (n < 0)
			cfg_add_error(c, f->pos, fk, "%s",
				      n == CFG_LIST_EMPTY_ITEM ? "an empty port name"
							       : "more names than ports");
		for (int i = 0; i < n; i++)
			bind_port(c, f->pos, fk, items[i], t);
		return;
	}
	if (f->type != JSON_ARRAY) {
		cfg_add_error(c, f->pos, fk, "a list of port names");
		return;
	}
	for (size_t i = 0; i < f->count; i++) {
		const struct json_value *v = &f->children[i];

		if (v->type != JSON_STRING)
			cfg_add_error(c, v->pos, fk, "a port name must be a string");
		else
			bind_port(c, v->pos, fk, v->str, t);
	}
}

/* ACL_TABLE|NAME: {"type": "L3", "stage": "ingress", "ports": [...],
 * "policy_desc": "..."}. */
static void parse_table(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"type", "stage", "ports", "policy_desc", NULL};
	struct xfab_cfg_acl *acl = &c->cfg->acl;
	struct xfab_cfg_acl_table *t = &acl->tables[acl->n_tables];
	const struct json_value *f;
	char key[160], fk[160], buf[32];
	const char *v;
	int bad = c->errs->total;

	snprintf(key, sizeof(key), "ACL_TABLE|%.140s", e->key);
	if (acl->n_tables == XFAB_ACL_MAX_TABLES) {
		cfg_add_error(c, e->key_pos, key, "more than %d ACL tables", XFAB_ACL_MAX_TABLES);
		return;
	}
	if (!acl_name_ok(e->key, strlen(e->key))) {
		cfg_add_error(c, e->key_pos, key,
			      "a table name is 1..%d letters, digits, '_', '-', '.' or ':'",
			      XFAB_ACL_NAME_MAX - 1);
		return;
	}
	if (cfg_check_fields(c, e, key, fields))
		return;
	memset(t, 0, sizeof(*t));
	f = xfab_json_get(e, "type");
	cfg_field_key(fk, sizeof(fk), key, "type");
	v = f ? cfg_field_text(c, f, fk, buf, sizeof(buf)) : NULL;
	if (!f)
		cfg_add_error(c, e->pos, key, "missing field \"type\" (L3 or L3V6)");
	else if (v && !strcasecmp(v, "L3V6"))
		t->is_v6 = 1;
	else if (v && strcasecmp(v, "L3"))
		cfg_add_error(c, f->pos, fk,
			      "type '%s' is not supported: xfab has L3 and L3V6 tables", v);
	f = xfab_json_get(e, "stage");
	cfg_field_key(fk, sizeof(fk), key, "stage");
	v = f ? cfg_field_text(c, f, fk, buf, sizeof(buf)) : NULL;
	if (v && !strcasecmp(v, "egress"))
		cfg_add_error(c, f->pos, fk, "egress ACLs are not implemented (ingress only)");
	else if (v && strcasecmp(v, "ingress"))
		cfg_add_error(c, f->pos, fk, "stage '%s': ingress or egress", v);
	f = xfab_json_get(e, "policy_desc");
	cfg_field_key(fk, sizeof(fk), key, "policy_desc");
	if (f)
		cfg_parse_text(c, f, fk, NULL, 256);
	f = xfab_json_get(e, "ports");
	cfg_field_key(fk, sizeof(fk), key, "ports");
	if (f)
		parse_table_ports(c, f, fk, t);
	if (c->errs->total != bad)
		return;
	snprintf(t->name, sizeof(t->name), "%s", e->key);
	t->pos = e->key_pos;
	acl->n_tables++;
}

/* ---- ACL_RULE ---- */

static int acl_table_by_name(const struct xfab_cfg_acl *acl, const char *name, size_t len)
{
	for (int i = 0; i < acl->n_tables; i++)
		if (strlen(acl->tables[i].name) == len && !strncmp(acl->tables[i].name, name, len))
			return i;
	return -1;
}

/* IP_TYPE: the values aclorch knows; in a table of one family the rule
 * either narrows nothing or can never match (refused). */
static void parse_ip_type(struct ctx *c, const struct json_value *f, const char *fk, int v6)
{
	static const char *const same[] = {"ANY", "IP", NULL};
	char buf[32];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));

	if (!t)
		return;
	for (const char *const *s = same; *s; s++)
		if (!strcasecmp(t, *s))
			return;
	if (!strcasecmp(t, v6 ? "IPV6ANY" : "IPV4ANY") ||
	    !strcasecmp(t, v6 ? "NON_IPV4" : "NON_IPV6"))
		return;
	if (!strcasecmp(t, v6 ? "IPV4ANY" : "IPV6ANY") ||
	    !strcasecmp(t, v6 ? "NON_IPV6" : "NON_IPV4"))
		cfg_add_error(c, f->pos, fk, "'%s' never matches in an %s table (%s only)", t,
			      v6 ? "L3V6" : "L3", v6 ? "IPv6" : "IPv4");
	else if (!strcasecmp(t, "NON_IP") || !strncasecmp(t, "ARP", 3))
		cfg_add_error(c, f->pos, fk,
			      "'%s': non-IP and ARP frames go to the kernel before the ACL stage",
			      t);
	else
		cfg_add_error(
		    c, f->pos, fk,
		    "unknown IP_TYPE '%s' (ANY, IP, IPV4ANY, IPV6ANY, NON_IPV4, NON_IPV6)", t);
}

/* The fields that take a value of their own kind. */
static void parse_rule_fields(struct ctx *c, const struct json_value *e, const char *key, int v6,
			      struct xfab_acl_rule *r)
{
	const struct json_value *f;
	char fk[160];
	__u32 n;

#define ACL_FIELD(name)                                                                            \
	((f = xfab_json_get(e, name)) && (cfg_field_key(fk, sizeof(fk), key, name), 1))
	if (ACL_FIELD(v6 ? "SRC_IPV6" : "SRC_IP") && !acl_prefix(c, f, fk, v6, r->src, r->src_mask))
		r->fields |= XFAB_ACL_F_SRC;
	if (ACL_FIELD(v6 ? "DST_IPV6" : "DST_IP") && !acl_prefix(c, f, fk, v6, r->dst, r->dst_mask))
		r->fields |= XFAB_ACL_F_DST;
	if (ACL_FIELD("IP_PROTOCOL") && !acl_field_number(c, f, fk, 255, &n)) {
		r->proto = (__u8)n;
		r->fields |= XFAB_ACL_F_PROTO;
	}
	if (ACL_FIELD("L4_SRC_PORT") && !acl_port_range(c, f, fk, 0, &r->sport_lo, &r->sport_hi))
		r->fields |= XFAB_ACL_F_SPORT;
	if (ACL_FIELD("L4_SRC_PORT_RANGE")) {
		if (r->fields & XFAB_ACL_F_SPORT)
			cfg_add_error(c, f->pos, fk, "L4_SRC_PORT is set too: one or the other");
		else if (!acl_port_range(c, f, fk, 1, &r->sport_lo, &r->sport_hi))
			r->fields |= XFAB_ACL_F_SPORT;
	}
	if (ACL_FIELD("L4_DST_PORT") && !acl_port_range(c, f, fk, 0, &r->dport_lo, &r->dport_hi))
		r->fields |= XFAB_ACL_F_DPORT;
	if (ACL_FIELD("L4_DST_PORT_RANGE")) {
		if (r->fields & XFAB_ACL_F_DPORT)
			cfg_add_error(c, f->pos, fk, "L4_DST_PORT is set too: one or the other");
		else if (!acl_port_range(c, f, fk, 1, &r->dport_lo, &r->dport_hi))
			r->fields |= XFAB_ACL_F_DPORT;
	}
	if (ACL_FIELD("DSCP") && !acl_field_number(c, f, fk, 63, &n)) {
		r->dscp = (__u8)n;
		r->dscp_mask = 63;
		r->fields |= XFAB_ACL_F_DSCP;
	}
	if (ACL_FIELD("TCP_FLAGS") && !acl_value_mask(c, f, fk, 255, &r->tcp_flags, &r->tcp_mask))
		r->fields |= XFAB_ACL_F_TCP_FLAGS;
	if (ACL_FIELD("BTH_OPCODE") && !acl_value_mask(c, f, fk, 255, &r->bth_opcode, &r->bth_mask))
		r->fields |= XFAB_ACL_F_BTH;
	if (ACL_FIELD("AETH_SYNDROME") && !acl_value_mask(c, f, fk, 255, &r->aeth, &r->aeth_mask))
		r->fields |= XFAB_ACL_F_AETH;
	if (ACL_FIELD("IP_TYPE"))
		parse_ip_type(c, f, fk, v6);
	if (ACL_FIELD("ETHER_TYPE") && !acl_field_number(c, f, fk, 65535, &n) &&
	    n != (v6 ? 0x86dd : 0x0800))
		cfg_add_error(c, f->pos, fk, "0x%04x never matches in an %s table (0x%04x)", n,
			      v6 ? "L3V6" : "L3", v6 ? 0x86dd : 0x0800);
	/* an address of the other family: the table's type decides */
	if (ACL_FIELD(v6 ? "SRC_IP" : "SRC_IPV6") || ACL_FIELD(v6 ? "DST_IP" : "DST_IPV6"))
		cfg_add_error(c, f->pos, fk, "an %s table's rules match %s addresses (%s)",
			      v6 ? "L3V6" : "L3", v6 ? "IPv6" : "IPv4",
			      v6 ? "SRC_IPV6, DST_IPV6" : "SRC_IP, DST_IP");
#undef ACL_FIELD
}

/* Fields that only match one protocol, with an IP_PROTOCOL of another:
 * the rule could never match. */
static void check_rule_protocol(struct ctx *c, const struct json_value *e, const char *key,
				const struct xfab_acl_rule *r)
{
	char fk[160];

	if (!(r->fields & XFAB_ACL_F_PROTO))
		return;
	cfg_field_key(fk, sizeof(fk), key, "IP_PROTOCOL");
	if ((r->fields & XFAB_ACL_F_TCP_FLAGS) && r->proto != IPPROTO_TCP)
		cfg_add_error(c, xfab_json_get(e, "IP_PROTOCOL")->pos, fk,
			      "TCP_FLAGS match TCP (6) only, not protocol %u", r->proto);
	else if ((r->fields & (XFAB_ACL_F_BTH | XFAB_ACL_F_AETH)) && r->proto != IPPROTO_UDP)
		cfg_add_error(c, xfab_json_get(e, "IP_PROTOCOL")->pos, fk,
			      "BTH_OPCODE and AETH_SYNDROME match RoCEv2 (UDP, 17) only, not "
			      "protocol %u",
			      r->proto);
	else if ((r->fields & (XFAB_ACL_F_SPORT | XFAB_ACL_F_DPORT)) && r->proto != IPPROTO_TCP &&
		 r->proto != IPPROTO_UDP)
		cfg_add_error(c, xfab_json_get(e, "IP_PROTOCOL")->pos, fk,
			      "L4 ports match TCP (6) and UDP (17) only, not protocol %u",
			      r->proto);
}

static void parse_action(struct ctx *c, const struct json_value *e, const char *key,
			 struct xfab_acl_rule *r)
{
	const struct json_value *f = xfab_json_get(e, "PACKET_ACTION");
	char fk[160], buf[32];
	const char *t;

	cfg_field_key(fk, sizeof(fk), key, "PACKET_ACTION");
	if (!f) {
		cfg_add_error(c, e->pos, key, "missing field \"PACKET_ACTION\" (DROP or FORWARD)");
		return;
	}
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (t && !strcasecmp(t, "DROP"))
		r->action = XFAB_ACL_DROP;
	else if (t && !strcasecmp(t, "FORWARD"))
		r->action = XFAB_ACL_FORWARD;
	else if (t)
		cfg_add_error(c, f->pos, fk, "'%s' is not supported: xfab does DROP and FORWARD",
			      t);
}

/* ACL_RULE|TABLE|RULE: PRIORITY, PACKET_ACTION and the match fields. */
static void parse_rule(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"PRIORITY",
					     "PACKET_ACTION",
					     "IP_TYPE",
					     "ETHER_TYPE",
					     "SRC_IP",
					     "DST_IP",
					     "SRC_IPV6",
					     "DST_IPV6",
					     "IP_PROTOCOL",
					     "L4_SRC_PORT",
					     "L4_DST_PORT",
					     "DSCP",
					     "TCP_FLAGS",
					     "L4_SRC_PORT_RANGE",
					     "BTH_OPCODE",
					     "AETH_SYNDROME",
					     "L4_DST_PORT_RANGE",
					     NULL};
	struct xfab_cfg_acl *acl = &c->cfg->acl;
	struct xfab_cfg_acl_rule *rule = &acl->rules[acl->n_rules];
	const char *bar = strchr(e->key, '|');
	const struct json_value *f;
	char key[160], fk[160];
	int bad = c->errs->total, table;

	snprintf(key, sizeof(key), "ACL_RULE|%.140s", e->key);
	table = bar ? acl_table_by_name(acl, e->key, (size_t)(bar - e->key)) : -1;
	if (!bar || !acl_name_ok(bar + 1, strlen(bar + 1))) {
		cfg_add_error(c, e->key_pos, key,
			      "a rule's key is TABLE|RULE (RULE 1..%d letters, digits, '_', '-', "
			      "'.' or ':')",
			      XFAB_ACL_NAME_MAX - 1);
		return;
	}
	if (table < 0) {
		cfg_add_error(c, e->key_pos, key, "no ACL_TABLE '%.*s'", (int)(bar - e->key),
			      e->key);
		return;
	}
	if (acl->n_rules == XFAB_ACL_MAX_COUNTERS) {
		cfg_add_error(c, e->key_pos, key, "more than %d ACL rules", XFAB_ACL_MAX_COUNTERS);
		return;
	}
	if (cfg_check_fields(c, e, key, fields))
		return;
	memset(rule, 0, sizeof(*rule));
	f = xfab_json_get(e, "PRIORITY");
	cfg_field_key(fk, sizeof(fk), key, "PRIORITY");
	if (!f)
		cfg_add_error(c, e->pos, key, "missing field \"PRIORITY\" (higher wins)");
	else
		acl_field_number(c, f, fk, XFAB_ACL_MAX_PRIORITY, &rule->priority);
	parse_action(c, e, key, &rule->match);
	rule->match.is_v6 = (__u8)acl->tables[table].is_v6;
	parse_rule_fields(c, e, key, acl->tables[table].is_v6, &rule->match);
	if (c->errs->total == bad)
		check_rule_protocol(c, e, key, &rule->match);
	if (c->errs->total != bad)
		return;
	snprintf(rule->name, sizeof(rule->name), "%s", bar + 1);
	rule->table = table;
	rule->pos = e->key_pos;
	rule->match.counter = (__u32)acl->n_rules;
	acl->n_rules++;
}

/* A port's row holds XFAB_ACL_MAX_RULES records: its tables' rules
 * together must fit. */
static void check_rows(struct ctx *c)
{
	const struct xfab_cfg_acl *acl = &c->cfg->acl;
	int idx[1];

	for (int p = 0; p < c->cfg->n_ports; p++) {
		int n = xfab_acl_port_rules(c->cfg, p, idx, 0);
		int t = 0;

		if (n <= XFAB_ACL_MAX_RULES)
			continue;
		while (t < acl->n_tables - 1 && !(acl->tables[t].ports & (1ull << p)))
			t++;
		cfg_add_error(c, acl->tables[t].pos, "ACL_TABLE",
			      "port %s has %d rules from its tables, more than %d",
			      c->cfg->ports[p].name, n, XFAB_ACL_MAX_RULES);
		return;
	}
}

void cfg_parse_acl(struct ctx *c, const struct json_value *tables, const struct json_value *rules)
{
	memset(&c->cfg->acl, 0, sizeof(c->cfg->acl));
	for (size_t i = 0; tables && i < tables->count; i++)
		parse_table(c, &tables->children[i]);
	for (size_t i = 0; rules && i < rules->count; i++)
		parse_rule(c, &rules->children[i]);
	if (!c->errs->total)
		check_rows(c);
}
