/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the config exporter's files (export*.c): the rows an export
 * collects before it sorts and writes them. Not part of the library's
 * interface (config.h is). */
#ifndef XFAB_CONFIG_EXPORT_INT_H
#define XFAB_CONFIG_EXPORT_INT_H

#include "config.h"

/* One value of the export: TABLE|key.field = value. A row with no field is
 * an entry without fields ({}); with no key, a table without entries. */
struct exp_row {
	char *table, *key, *field, *value;
	int order; /* the key's place when its table keeps the config's order */
	int list;  /* value is a comma list written as a JSON array (a leaf-list) */
};

struct exp {
	struct exp_row *rows;
	size_t n, cap;
	int failed; /* out of memory: the export fails as a whole */
	int order;  /* stamped on the rows added (exp_keep_order) */
};

/* value printf-style; table or key NULL as above. */
void exp_add(struct exp *x, const char *table, const char *key, const char *field, const char *fmt,
	     ...) __attribute__((format(printf, 5, 6)));
void exp_add_u32(struct exp *x, const char *table, const char *key, const char *field, __u32 v);
/* A leaf-list (ACL_TABLE ports): value, a comma list, as an array. */
void exp_add_list(struct exp *x, const char *table, const char *key, const char *field,
		  const char *value);
/* An entry with no fields, and a table with no entries. */
void exp_entry(struct exp *x, const char *table, const char *key);
void exp_table(struct exp *x, const char *table);
/* The rows added from now on keep place order in their table, before the
 * sorted ones: a table whose order means something to xfab (PORT, VNET,
 * VNET_ROUTE_TUNNEL: the index compiled; ACL_RULE: a tie in PRIORITY).
 * -1: sorted again. */
void exp_keep_order(struct exp *x, int order);

/* "10.0.0.0/24", "fd00::/64" */
const char *exp_prefix(const struct xfab_prefix *p, char *buf, size_t len);
const char *exp_addr(int family, const __u8 *a, char *buf, size_t len);
const char *exp_mac(const __u8 mac[6], char *buf, size_t len);
/* A path's "nexthop", "ifname" and (when not all 1) "weight" fields. */
void exp_path(struct exp *x, const struct xfab_config *cfg, const char *table, const char *key,
	      const struct xfab_cfg_route *rt);

/* Each table group's writer (one table-driven list: export.c). */
void exp_device(struct exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void exp_ports(struct exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void exp_l3(struct exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void exp_routes(struct exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void exp_overlay(struct exp *x, const struct xfab_config *cfg); /* export_tables.c */
void exp_lb(struct exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void exp_dscp(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_wred(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_queues(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_pfc(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_buffers(struct exp *x, const struct xfab_config *cfg); /* export_qos.c */
void exp_pfc_wd(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_copp(struct exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void exp_acl(struct exp *x, const struct xfab_config *cfg);	/* export_acl.c */

#endif
