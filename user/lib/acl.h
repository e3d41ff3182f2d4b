/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ingress ACLs in userspace (docs/ACL.md): the config's ACL_TABLE and
 * ACL_RULE as parsed (config/acl.c), and their compiler into the acl_*
 * maps (acl_compile.c). Included by config.h for struct xfab_cfg_acl; it
 * includes nothing of the library's, so no cycle.
 */
#ifndef XFAB_LIB_ACL_H
#define XFAB_LIB_ACL_H

#include <linux/types.h>

#include "json.h"
#include "xfab_abi.h"

/* ACL_TABLE|NAME: an L3 (IPv4) or L3V6 table at ingress on some ports. */
struct xfab_cfg_acl_table {
	char name[XFAB_ACL_NAME_MAX];
	int is_v6;	     /* L3V6 */
	__u64 ports;	     /* bit p: the config's port p */
	struct json_pos pos; /* of the entry's key */
};

/* ACL_RULE|TABLE|RULE: match holds the compiled record (counter = the
 * rule's index in xfab_cfg_acl.rules). */
struct xfab_cfg_acl_rule {
	char name[XFAB_ACL_NAME_MAX];
	int table;
	__u32 priority;
	struct xfab_acl_rule match;
	struct json_pos pos;
};

struct xfab_cfg_acl {
	int n_tables;
	int n_rules;
	struct xfab_cfg_acl_table tables[XFAB_ACL_MAX_TABLES];
	struct xfab_cfg_acl_rule rules[XFAB_ACL_MAX_COUNTERS];
};

#define XFAB_ACL_MAX_PRIORITY 999999u /* SONiC's range (sonic-acl.yang) */

struct xfab_config;
struct ctx;

/* The config parser's hook (config/parse.c, after PORT): both tables;
 * errors through the parser's machinery. */
void cfg_parse_acl(struct ctx *c, const struct json_value *tables, const struct json_value *rules);

/* Port p's rules, by priority (highest first, a tie to the rule first in
 * the config): their indexes in idx (room for max). Returns how many
 * there are, which may exceed max (only max are written). */
int xfab_acl_port_rules(const struct xfab_config *cfg, int p, int *idx, int max);

/* The map layer's entries of the ACL tables ({key, value} as maps.h lays
 * them out). */
struct xfab_e_acl_port {
	__u32 key; /* port slot */
	struct xfab_acl_port val;
};
struct xfab_e_acl_rule {
	__u32 key; /* XFAB_ACL_ROW(slot, i) */
	struct xfab_acl_rule val;
};
struct xfab_e_acl_info {
	__u32 key; /* counter */
	struct xfab_acl_info val;
};

/* Every entry of the acl_ports, acl_rules and acl_info tables for cfg,
 * handed to emit (t: enum xfab_table). 0, or emit's first error. */
typedef int (*xfab_acl_emit_fn)(void *arg, int t, const void *entry);
int xfab_acl_build(const struct xfab_config *cfg, xfab_acl_emit_fn emit, void *arg);

#endif
