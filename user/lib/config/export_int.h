/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the config exporter's files (export*.c): the rows an export
 * collects before it sorts and writes them. Not part of the library's
 * interface (config.h is). */
#ifndef XFAB_CONFIG_EXPORT_INT_H
#define XFAB_CONFIG_EXPORT_INT_H

#include "config.h"

/* One value of the export: TABLE|key.field = value. A row with no field is
 * an entry without fields ({}); with no key, a table without entries. */
struct cfg_exp_row {
	char *table, *key, *field, *value;
	int order; /* the key's place when its table keeps the config's order */
	int list;  /* value is a comma list written as a JSON array (a leaf-list) */
};

struct cfg_exp {
	struct cfg_exp_row *rows;
	size_t n, cap;
	int failed; /* out of memory: the export fails as a whole */
	int order;  /* stamped on the rows added (cfg_exp_keep_order) */
};

/* value printf-style; table or key NULL as above. */
void cfg_exp_add(struct cfg_exp *x, const char *table, const char *key, const char *field,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void cfg_exp_add_u32(struct cfg_exp *x, const char *table, const char *key, const char *field,
		     __u32 v);
/* A leaf-list (ACL_TABLE ports): value, a comma list, as an array. */
void cfg_exp_add_list(struct cfg_exp *x, const char *table, const char *key, const char *field,
		      const char *value);
/* An entry with no fields, and a table with no entries. */
void cfg_exp_entry(struct cfg_exp *x, const char *table, const char *key);
void cfg_exp_table(struct cfg_exp *x, const char *table);
/* The rows added from now on keep place order in their table, before the
 * sorted ones: a table whose order means something to xfab (PORT, VNET,
 * VNET_ROUTE_TUNNEL: the index compiled; ACL_RULE: a tie in PRIORITY).
 * -1: sorted again. */
void cfg_exp_keep_order(struct cfg_exp *x, int order);

/* "10.0.0.0/24", "fd00::/64" */
const char *cfg_exp_prefix(const struct xfab_prefix *p, char *buf, size_t len);
const char *cfg_exp_addr(int family, const __u8 *a, char *buf, size_t len);
const char *cfg_exp_mac(const __u8 mac[6], char *buf, size_t len);

/* Sorts the rows and writes them (export_rows.c); frees them. */
void cfg_exp_write(struct cfg_exp *x, FILE *out);
void cfg_exp_free(struct cfg_exp *x);

/* Each table group's writer (one table-driven list: export.c). */
void cfg_exp_device(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void cfg_exp_ports(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void cfg_exp_l3(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void cfg_exp_routes(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void cfg_exp_overlay(struct cfg_exp *x, const struct xfab_config *cfg); /* export_tables.c */
void cfg_exp_lb(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_tables.c */
void cfg_exp_dscp(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_wred(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_queues(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_pfc(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_buffers(struct cfg_exp *x, const struct xfab_config *cfg); /* export_qos.c */
void cfg_exp_pfc_wd(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_copp(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_qos.c */
void cfg_exp_acl(struct cfg_exp *x, const struct xfab_config *cfg);	/* export_acl.c */

#endif
