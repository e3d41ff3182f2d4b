// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The export's ACL_TABLE and ACL_RULE (export.c), read back from the
 * compiled match records (config/acl.c): SONiC's field names (docs/ACL.md,
 * sonic-acl.yang). The rules keep the config's order: a tie in PRIORITY
 * goes to the rule written first. A table's policy_desc is not kept. */
#include "export_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static void cfg_exp_acl_table(struct cfg_exp *x, const struct xfab_config *cfg,
			      const struct xfab_cfg_acl_table *t)
{
	char ports[XFAB_MAX_PORTS * XFAB_IFNAMSIZ + 1];
	size_t o = 0;

	ports[0] = '\0';
	for (int p = 0; p < cfg->n_ports; p++)
		if (t->ports & (1ull << p))
			o += (size_t)snprintf(ports + o, sizeof(ports) - o, "%s%s", o ? "," : "",
					      cfg->ports[p].name);
	cfg_exp_add(x, "ACL_TABLE", t->name, "type", "%s", t->is_v6 ? "L3V6" : "L3");
	cfg_exp_add(x, "ACL_TABLE", t->name, "stage", "ingress");
	cfg_exp_add_list(x, "ACL_TABLE", t->name, "ports", ports);
}

/* addr/mask (network order) as a prefix: the mask is contiguous (the
 * parser made it from a length). */
static void cfg_exp_acl_prefix(struct cfg_exp *x, const char *key, const char *field, int v6,
			       const __be32 *addr, const __be32 *mask)
{
	char a[INET6_ADDRSTRLEN];
	int plen = 0;

	for (int w = 0; w < 4; w++)
		plen += __builtin_popcount(ntohl(mask[w]));
	cfg_exp_add(x, "ACL_RULE", key, field, "%s/%d",
		    cfg_exp_addr(v6 ? AF_INET6 : AF_INET, (const __u8 *)addr, a, sizeof(a)), plen);
}

static void cfg_exp_acl_ports(struct cfg_exp *x, const char *key, const char *field, __u16 lo,
			      __u16 hi)
{
	if (lo == hi)
		cfg_exp_add(x, "ACL_RULE", key, field, "%u", lo);
	else
		cfg_exp_add(x, "ACL_RULE", key, field, "%u-%u", lo, hi);
}

static void cfg_exp_acl_match(struct cfg_exp *x, const char *key, const struct xfab_acl_rule *m)
{
	const char *r = "ACL_RULE";
	int v6 = m->is_v6;

	if (m->fields & XFAB_ACL_F_SRC)
		cfg_exp_acl_prefix(x, key, v6 ? "SRC_IPV6" : "SRC_IP", v6, m->src, m->src_mask);
	if (m->fields & XFAB_ACL_F_DST)
		cfg_exp_acl_prefix(x, key, v6 ? "DST_IPV6" : "DST_IP", v6, m->dst, m->dst_mask);
	if (m->fields & XFAB_ACL_F_PROTO)
		cfg_exp_add(x, r, key, "IP_PROTOCOL", "%u", m->proto);
	if (m->fields & XFAB_ACL_F_SPORT)
		cfg_exp_acl_ports(x, key,
				  m->sport_lo == m->sport_hi ? "L4_SRC_PORT" : "L4_SRC_PORT_RANGE",
				  m->sport_lo, m->sport_hi);
	if (m->fields & XFAB_ACL_F_DPORT)
		cfg_exp_acl_ports(x, key,
				  m->dport_lo == m->dport_hi ? "L4_DST_PORT" : "L4_DST_PORT_RANGE",
				  m->dport_lo, m->dport_hi);
	if (m->fields & XFAB_ACL_F_DSCP)
		cfg_exp_add(x, r, key, "DSCP", "%u", m->dscp);
	if (m->fields & XFAB_ACL_F_TCP_FLAGS)
		cfg_exp_add(x, r, key, "TCP_FLAGS", "0x%02x/0x%02x", m->tcp_flags, m->tcp_mask);
	if (m->fields & XFAB_ACL_F_BTH)
		cfg_exp_add(x, r, key, "BTH_OPCODE", "0x%02x/0x%02x", m->bth_opcode, m->bth_mask);
	if (m->fields & XFAB_ACL_F_AETH)
		cfg_exp_add(x, r, key, "AETH_SYNDROME", "0x%02x/0x%02x", m->aeth, m->aeth_mask);
}

void cfg_exp_acl(struct cfg_exp *x, const struct xfab_config *cfg)
{
	const struct xfab_cfg_acl *acl = &cfg->acl;
	char key[2 * XFAB_ACL_NAME_MAX + 2];

	for (int t = 0; t < acl->n_tables; t++)
		cfg_exp_acl_table(x, cfg, &acl->tables[t]);
	for (int i = 0; i < acl->n_rules; i++) {
		const struct xfab_cfg_acl_rule *rule = &acl->rules[i];

		snprintf(key, sizeof(key), "%s|%s", acl->tables[rule->table].name, rule->name);
		cfg_exp_keep_order(x, i);
		cfg_exp_add_u32(x, "ACL_RULE", key, "PRIORITY", rule->priority);
		cfg_exp_add(x, "ACL_RULE", key, "PACKET_ACTION", "%s",
			    rule->match.action == XFAB_ACL_DROP ? "DROP" : "FORWARD");
		cfg_exp_acl_match(x, key, &rule->match);
	}
	cfg_exp_keep_order(x, -1);
}
