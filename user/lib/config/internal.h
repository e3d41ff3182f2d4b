/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the config validator's files (one per table group); not part of
 * the library's interface (config.h is). */
#ifndef XFAB_CONFIG_INTERNAL_H
#define XFAB_CONFIG_INTERNAL_H

#include "config.h"

struct xfab_sonic_catalogue;

#define XFAB_CONFIG_MAX_BYTES (1u << 30) /* a full table: ~190 B a route */

/* One parse: where errors go and what is being filled. */
struct ctx {
	const char *file;
	struct xfab_cfg_errors *errs;
	struct xfab_config *cfg;
	/* the last ROUTE's plain nexthop list: a full table repeats it */
	const char *last_nh_text;
	int last_route;	   /* its index (the array moves as it grows); -1: none */
	size_t routes_cap; /* of cfg->routes */
	/* the table the routes are read from, for their errors' keys:
	 * "ROUTE", or SONiC's "STATIC_ROUTE" (one or the other in a file) */
	const char *route_table;
	/* SONiC's catalogue when the file is read as SONiC's CONFIG_DB
	 * (sonic.c); NULL: an xfab file */
	struct xfab_sonic_catalogue *sonic;
	/* the whole document, where SONiC's references are looked up
	 * (sonic_refs.c) */
	const struct json_value *root;
};

/* ---- validate.c: errors, typed fields, numbers, lists, prefixes ---- */
void cfg_add_error(struct ctx *c, struct json_pos pos, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A field's text (strings, numbers as written, booleans); NULL + error. */
const char *cfg_field_text(struct ctx *c, const struct json_value *f, const char *key, char *buf,
			   size_t len);
int cfg_parse_u32(struct ctx *c, const struct json_value *f, const char *key, __u32 lo, __u32 hi,
		  __u32 *out);
int cfg_parse_bool(struct ctx *c, const struct json_value *f, const char *key, int *out);
/* Every field of entry must be in allowed (NULL-terminated). */
int cfg_check_fields(struct ctx *c, const struct json_value *entry, const char *key,
		     const char *const *allowed);
void cfg_field_key(char *out, size_t len, const char *key, const char *field);
/* In a SONiC file (c->sonic, sonic.c), a field xfab does not implement is
 * checked by these and listed as ignored. name ("NTP", "PORT.fec") on
 * cfg->ignored, once. */
void cfg_sonic_ignore(struct ctx *c, const char *name);
/* Field f of the entry key in SONiC's list (NULL: none): 0 with its value
 * checked against the field's type (an error when it does not fit), or -1
 * when the list has no such field (the caller's refusal). */
int cfg_sonic_check_field(struct ctx *c, const struct json_value *list, const char *key,
			  const struct json_value *f);
void *cfg_grow(void *arr, int count, size_t elem);
#define CFG_LIST_TOO_MANY (-1)
#define CFG_LIST_EMPTY_ITEM (-2)
int cfg_split_list(char *s, char **items, int max);
int cfg_parse_text(struct ctx *c, const struct json_value *f, const char *key, char *out,
		   size_t len);

enum cfg_dec {
	CFG_DEC_OK,
	CFG_DEC_EMPTY,
	CFG_DEC_SIGN,
	CFG_DEC_JUNK,
	CFG_DEC_LEADING_ZERO,
	CFG_DEC_RANGE,
};
/* text[0..len) as a decimal number <= max. */
enum cfg_dec cfg_decimal(const char *text, size_t len, __u64 max, __u64 *out);
const char *cfg_decimal_why(enum cfg_dec r);
int cfg_prefix_host_bits_set(const struct xfab_prefix *pfx);
int cfg_parse_key_prefix(struct ctx *c, const struct json_value *e, const char *key,
			 const char *text, struct xfab_prefix *pfx);

const char *cfg_addr_unusable(int family, const __u8 *a);
int cfg_addr_link_local6(int family, const __u8 *a);
const char *cfg_addr_subnet_edge(const struct xfab_prefix *pfx, const __u8 *a);
int cfg_parse_addr(const char *text, int *family, __u8 addr[16]);
const char *cfg_addr_str(int family, const __u8 *a, char *buf, size_t len);
/* parse(c, the table) if root holds the table name. */
void cfg_read_table(struct ctx *c, const struct json_value *root, const char *name,
		    void (*parse)(struct ctx *c, const struct json_value *tbl));

/* ---- each feature's parse step (struct xfab_feature, user/lib/feature.c):
 * its defaults and its tables, read from the whole document ---- */
void cfg_read_device(struct ctx *c, const struct json_value *root);	 /* device.c */
void cfg_read_overlay(struct ctx *c, const struct json_value *root);	 /* overlay.c */
void cfg_read_vnet_routes(struct ctx *c, const struct json_value *root); /* overlay.c */
void cfg_read_interfaces(struct ctx *c, const struct json_value *root);	 /* l3_interface.c */
void cfg_read_routes(struct ctx *c, const struct json_value *root);	 /* routing.c */
/* SONiC's STATIC_ROUTE (sonic_route.c), for "routes": 1 when the file has
 * one (read, ROUTE refused beside it), else 0. */
int cfg_read_static_routes(struct ctx *c, const struct json_value *root);
void cfg_read_neighs(struct ctx *c, const struct json_value *root);	  /* l3_neigh.c */
void cfg_read_ecmp(struct ctx *c, const struct json_value *root);	  /* lb.c */
void cfg_read_flowlet(struct ctx *c, const struct json_value *root);	  /* lb.c */
void cfg_read_te(struct ctx *c, const struct json_value *root);		  /* lb.c */
void cfg_read_qos(struct ctx *c, const struct json_value *root);	  /* qos.c */
void cfg_read_pfc(struct ctx *c, const struct json_value *root);	  /* pfc.c */
void cfg_read_pfc_wd(struct ctx *c, const struct json_value *root);	  /* pfc.c */
void cfg_read_fib_sync(struct ctx *c, const struct json_value *root);	  /* routing.c */
void cfg_read_local_repair(struct ctx *c, const struct json_value *root); /* routing.c */
void cfg_read_copp(struct ctx *c, const struct json_value *root);	  /* copp.c */
void cfg_read_damping(struct ctx *c, const struct json_value *root);	  /* damping.c */

/* ---- sonic.c: a SONiC CONFIG_DB file ---- */
/* Loads SONiC's catalogue (src's, or the default) into c->sonic: 0, or -1
 * (an error when src asks for a SONiC file). */
int cfg_sonic_open(struct ctx *c, const struct xfab_cfg_source *src);
void cfg_sonic_close(struct ctx *c);
/* Table t, not xfab's, checked against SONiC's and listed as ignored: 0,
 * or -1 when SONiC does not define it either (the caller refuses it). */
int cfg_sonic_table(struct ctx *c, const struct json_value *t);
/* ---- sonic_read.c ---- */
/* SONiC's table name of root, in a SONiC file, for the feature that gives
 * it a meaning: taken off cfg->ignored (sonic.c checked its types); NULL
 * when absent or not a SONiC file (the table is then refused or ignored
 * as before). */
const struct json_value *cfg_sonic_read(struct ctx *c, const struct json_value *root,
					const char *name);
/* name ("TABLE", "TABLE.field") off cfg->ignored: xfab reads it. */
void cfg_sonic_claim(struct ctx *c, const char *name);
/* Entry e of table, one xfab reads, in a SONiC file: SONiC's references
 * and rules (cfg_sonic_refs), as sonic.c checks the tables xfab does not
 * read; nonzero when they refused e. 0 in an xfab file. */
int cfg_sonic_entry_refused(struct ctx *c, const char *table, const struct json_value *e);

/* ---- sonic_loopback.c ---- */
/* LOOPBACK_INTERFACE: Loopback0's IPv4 address, the router id. */
void cfg_read_sonic_loopback(struct ctx *c, const struct json_value *root);

/* ---- sonic_refs.c: SONiC's rules between entries ---- */
/* Entry e of table ("BUFFER_PG", e's key "Ethernet0|3") in a SONiC file:
 * each leafref of its key parts and fields found in the document (c->root:
 * "BUFFER_PG|Ethernet0|3.profile: no BUFFER_PROFILE|x (sonic-buffer-pg.yang
 * leafref)"), and the must and when rules the catalogue compiled for its
 * list and fields holding; each failure refused at the key or the field's
 * value. Nothing for an xfab file, or a key that fits none of the table's
 * lists. Any table's parser may call it for its SONiC entries. */
void cfg_sonic_refs(struct ctx *c, const char *table, const struct json_value *e);
/* ---- copp.c ---- */
void cfg_copp_defaults(struct xfab_config *cfg);
void cfg_parse_copp(struct ctx *c, const struct json_value *tbl);
/* sonic_copp.c: a SONiC file's COPP_GROUP and COPP_TRAP onto the groups */
void cfg_read_sonic_copp(struct ctx *c, const struct json_value *root);

/* ---- device.c ---- */
void cfg_parse_device_metadata(struct ctx *c, const struct json_value *tbl);
void cfg_parse_ports(struct ctx *c, const struct json_value *tbl);

/* ---- the L3 tables: l3_interface.c ---- */
void cfg_parse_interfaces(struct ctx *c, const struct json_value *tbl);
int cfg_connected_port(const struct xfab_config *cfg, int family, const __u8 *gw);
int cfg_is_local_addr(const struct xfab_config *cfg, int family, const __u8 *a);

/* ---- l3_path.c ---- */
int cfg_parse_path(struct ctx *c, const struct json_value *e, const char *key,
		   struct xfab_cfg_route *rt);
/* SONiC's per-nexthop "distance" and "nexthop-vrf" of rt's entry e: only
 * the values xfab implements (one VRF, no backup paths); -1: refused. */
int cfg_parse_route_compat(struct ctx *c, const struct json_value *e, const char *key,
			   const struct xfab_cfg_route *rt);
int cfg_prefix_is_own(struct ctx *c, const struct json_value *e, const char *key,
		      const struct xfab_prefix *pfx, int subnets);

/* ---- l3_route.c ---- */
/* Room for n routes (the ROUTE table's size) before they are read. */
int cfg_reserve_routes(struct ctx *c, size_t n);
/* Entry e of c->route_table, its prefix the text prefix (the key, or the
 * key's part after a SONiC VRF). */
void cfg_parse_route(struct ctx *c, const struct json_value *e, const char *prefix);
void cfg_check_duplicate_routes(struct ctx *c);

/* ---- l3_neigh.c ---- */
void cfg_parse_neighs(struct ctx *c, const struct json_value *tbl);

/* ---- capacity.c ---- */
/* Everything the maps must hold for cfg fits (after a clean parse). */
void cfg_check_capacity(struct ctx *c);

/* ---- lb.c ---- */
const struct json_value *cfg_global_entry(struct ctx *c, const struct json_value *tbl,
					  const char *table);
void cfg_parse_te(struct ctx *c, const struct json_value *e);
void cfg_parse_ecmp(struct ctx *c, const struct json_value *tbl);
void cfg_parse_flowlet(struct ctx *c, const struct json_value *tbl);
/* sonic_fgnhg.c: a SONiC file's FG_NHG, FG_NHG_MEMBER, FG_NHG_PREFIX */
void cfg_read_sonic_fgnhg(struct ctx *c, const struct json_value *root);

/* ---- routing.c ---- */
void cfg_parse_fib_sync(struct ctx *c, const struct json_value *tbl);
void cfg_parse_local_repair(struct ctx *c, const struct json_value *tbl);

/* ---- qos.c ---- */
void cfg_parse_dscp_map(struct ctx *c, const struct json_value *tbl);
void cfg_parse_wred_profiles(struct ctx *c, const struct json_value *tbl);
void cfg_parse_queues(struct ctx *c, const struct json_value *tbl);
/* "TC" or "TC-TC" (low first), decimal 0..7; 0 or -1. */
int cfg_parse_tc_range(const char *t, int *lo, int *hi);

/* overlay.c: VXLAN_TUNNEL and VNET (before INTERFACE binds ports to a
 * VNET), then VNET_ROUTE_TUNNEL and VNET_ROUTE (after it) */
void cfg_parse_vxlan_tunnel(struct ctx *c, const struct json_value *tbl);
void cfg_parse_vnets(struct ctx *c, const struct json_value *tbl);
int cfg_vnet_by_name(const struct xfab_config *cfg, const char *name);
void cfg_parse_vnet_routes(struct ctx *c, const struct json_value *tunnels,
			   const struct json_value *routes);

/* pfc.c */
void cfg_parse_port_qos_map(struct ctx *c, const struct json_value *tbl);
void cfg_parse_cable_length(struct ctx *c, const struct json_value *tbl);
/* pools: BUFFER_POOL in a SONiC file (sonic_buffer.c), else NULL */
void cfg_parse_buffers(struct ctx *c, const struct json_value *profiles,
		       const struct json_value *pgs, const struct json_value *pools);

/* A BUFFER_PROFILE as xfab uses it: a lossless PG's thresholds. */
struct cfg_buffer_profile {
	char name[64];
	__u32 xoff, xon, headroom; /* bytes (xfab's BUFFER_PROFILE fields) */
	int lossy;		   /* SONiC's, without xoff: no PFC PG's */
};

/* ---- sonic_qos.c: SONiC's meaning of the QoS tables (a SONiC file) ---- */
/* WRED_PROFILE entry e, SONiC's fields: green onto w; 0 or -1. */
int cfg_sonic_wred(struct ctx *c, const struct json_value *e, const char *key,
		   struct xfab_cfg_wred *w);
/* TC_TO_QUEUE_MAP and MAP_PFC_PRIORITY_TO_QUEUE (identity), SCHEDULER and
 * QUEUE's scheduler (after QUEUE). */
void cfg_read_sonic_qos(struct ctx *c, const struct json_value *root);
/* QUEUE entry e's scheduler: its SCHEDULER's weight onto classes lo..hi of
 * port p (the tc datapath's; qos.c calls it for each QUEUE entry). */
void cfg_sonic_queue_scheduler(struct ctx *c, const struct json_value *e, int p, int lo, int hi);
/* PORT_QOS_MAP's map fields, TC_TO_PRIORITY_GROUP_MAP
 * (after pfc_enable is read). */
void cfg_sonic_port_qos_maps(struct ctx *c, const struct json_value *root);

/* ---- sonic_buffer.c: SONiC's BUFFER_POOL, BUFFER_PROFILE, BUFFER_QUEUE ---- */
void cfg_sonic_buffer_pools(struct ctx *c, const struct json_value *pools);
/* BUFFER_PROFILE entry e over pools (BUFFER_POOL, may be NULL): 0 or -1. */
int cfg_sonic_buffer_profile(struct ctx *c, const struct json_value *pools,
			     const struct json_value *e, const char *key,
			     struct cfg_buffer_profile *p);
/* BUFFER_QUEUE's ports and profiles (after BUFFER_PROFILE). */
void cfg_sonic_buffer_queues(struct ctx *c, const struct json_value *root);
/* What one PG takes of a pool of pool_bytes it has alone, dynamic_th
 * being alpha = 2^dynamic_th of the pool's free space: alpha/(1 + alpha). */
__u64 cfg_sonic_dynamic_share(int dynamic_th, __u64 pool_bytes);
void cfg_parse_pfc_wd(struct ctx *c, const struct json_value *tbl);

#endif
