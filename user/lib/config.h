/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The switch config: SONiC config_db-style JSON tables, parsed and validated
 * as a whole before anything touches the kernel (docs/CONFIG.md). */
#ifndef XFAB_CONFIG_H
#define XFAB_CONFIG_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "dscp.h"    /* xfab_default_dscp_to_tc */
#include "acl.h"     /* struct xfab_cfg_acl */
#include "damping.h" /* struct xfab_damp_cfg */
#include "json.h"
#include "textparse.h" /* xfab_parse_mac */
#include "xfab_abi.h"

#define XFAB_CFG_MAX_ERRORS 16
#define XFAB_IFNAMSIZ 16
#define XFAB_HOSTNAME_MAX 48

struct xfab_cfg_error {
	char file[256];
	int line;
	int col;
	char key[160]; /* TABLE|entry[.field] */
	char msg[256];
};

struct xfab_cfg_errors {
	int count; /* errors kept in e[] (at most XFAB_CFG_MAX_ERRORS) */
	struct xfab_cfg_error e[XFAB_CFG_MAX_ERRORS];
	int total; /* every error found, also those past e[] */
};

struct xfab_prefix {
	int family; /* AF_INET / AF_INET6 */
	__u8 addr[16];
	int plen;
};

/* A port's lossless priorities (docs/PFC.md): PORT_QOS_MAP, BUFFER_PG (or
 * the derived thresholds), CABLE_LENGTH, PFC_WD. */
struct xfab_cfg_pfc {
	__u8 enabled;		       /* priorities with PFC on (pfc_enable) */
	__u32 speed_mbps;	       /* converts pause quanta to time: PORT speed, else rate */
	__u32 cable_m;		       /* CABLE_LENGTH (5 m unless set) */
	__u32 xoff[XFAB_NUM_PRIO];     /* bytes: ingress occupancy of the PG that sends XOFF */
	__u32 xon[XFAB_NUM_PRIO];      /* ... falling below which sends XON */
	__u32 headroom[XFAB_NUM_PRIO]; /* ... accepted above XOFF while the pause takes hold */
	int pg_line[XFAB_NUM_PRIO];    /* BUFFER_PG entry that set the PG; 0: derived */
	__u8 wd_action;		       /* enum xfab_pfcwd_action; OFF: no PFC_WD entry */
	__u32 wd_detection_ms, wd_restoration_ms;
	struct json_pos pos; /* of the PORT_QOS_MAP entry */
};

struct xfab_cfg_port {
	char name[XFAB_IFNAMSIZ];
	int admin_up;
	__u32 mtu;
	__u32 rate_mbps;       /* 0: not set (no modelled queue, no shaping) */
	__u32 buffer_bytes;    /* 0: not set */
	int wred[XFAB_NUM_TC]; /* WRED profile index per class, -1: none */
	/* QUEUE weight (or a SONiC scheduler's) per class, 1..100; 0: not
	 * set (xfab_config_class_weight) */
	__u8 weight[XFAB_NUM_TC];
	__u32 speed_mbps; /* PORT speed; 0: not set */
	struct xfab_cfg_pfc pfc;
	char description[64];
	char alias[64];	     /* SONiC's PORT alias (front-panel name); the lab wires by it */
	struct json_pos pos; /* of the PORT entry's key */
	int vnet;	     /* INTERFACE|port vnet_name: VNET id (index + 1); 0: underlay */
	/* link event damping (SONiC's PORT fields; config/damping.c) */
	struct xfab_damp_cfg damping;
};

struct xfab_cfg_addr {
	int port; /* index into ports */
	struct xfab_prefix pfx;
};

struct xfab_cfg_nexthop {
	int port; /* index into ports */
	int family;
	__u8 gw[16];
};

struct xfab_cfg_route {
	struct xfab_prefix pfx;
	int blackhole;
	int n_nexthops;
	struct xfab_cfg_nexthop *nexthops; /* n_nexthops of them (NULL for a blackhole) */
	__u16 *weights;			   /* 1 each unless "weight" is given */
	struct json_pos pos;		   /* of the entry's key */
	int shared;			   /* nexthops/weights belong to an earlier route */
	const char *key;		   /* the key as written; valid while parsing only */
};

struct xfab_cfg_wred {
	char name[64];
	__u32 kmin_bytes;
	__u32 kmax_bytes;
	__u32 pmax_percent; /* 0..100 */
	int ecn;
	int drop_nonect;
};

#define XFAB_MAX_WRED_PROFILES 16

/* TE_PATH: <ingress port, destination prefix> -> explicit nexthop(s). */
struct xfab_cfg_te {
	int in_port; /* index into ports */
	struct xfab_cfg_route path;
};

/* The VXLAN overlay (docs/OVERLAY.md): VXLAN_TUNNEL, VNET, and the tenant
 * routes of VNET_ROUTE_TUNNEL and VNET_ROUTE. */
struct xfab_cfg_vnet {
	char name[16];
	__u32 vni;
};

/* VNET_ROUTE_TUNNEL|vnet|prefix: encapsulate to the endpoint(s). */
struct xfab_cfg_tunnel {
	int vnet; /* VNET id (index + 1) */
	struct xfab_prefix pfx;
	__u32 vni;
	__u8 mac[6]; /* inner destination MAC; zero: the VTEP's own */
	int n_endpoints;
	__u8 endpoints[XFAB_TUNNEL_MAX_ENDPOINTS][4];
};

/* VNET_ROUTE|vnet|prefix: a local tenant route, through a nexthop on a
 * tenant port or (no nexthop) connected to it. */
struct xfab_cfg_vnet_route {
	int vnet;
	int port;		  /* ifname */
	struct xfab_cfg_route rt; /* one nexthop, or none (connected) */
};

struct xfab_cfg_neigh {
	int port;
	int family;
	__u8 addr[16];
	__u8 mac[6];
};

/* COPP_TABLE|group (docs/COPP.md): the group's meter, its default unless
 * configured. cir 0: not policed. */
struct xfab_cfg_copp {
	__u32 cir; /* packets per second */
	__u32 cbs; /* packets */
	int configured;
};

struct xfab_config {
	char hostname[XFAB_HOSTNAME_MAX];
	/* DEVICE_METADATA type (LeafRouter, SpineRouter, ToRRouter; "": none):
	 * kept for the export, whose FRR rendering reads it (allowas-in) */
	char device_type[16];
	int datapath; /* enum xfab_datapath */
	__u32 hash_seed;
	int n_ports;
	struct xfab_cfg_port ports[XFAB_MAX_PORTS];
	int n_addrs;
	struct xfab_cfg_addr *addrs;
	int n_routes;
	struct xfab_cfg_route *routes;
	int n_neighs;
	struct xfab_cfg_neigh *neighs;
	int te_enabled; /* a TE_PATH table is present (even empty) */
	int n_te;
	struct xfab_cfg_te *te;
	/* ECMP|global */
	__u32 hash_fields; /* XFAB_HASH_F_* */
	int symmetric;
	int resilient;
	/* QoS */
	__u8 dscp_to_tc[XFAB_NUM_DSCP];
	int n_wred;
	struct xfab_cfg_wred wred[XFAB_MAX_WRED_PROFILES];
	__u32 pfcwd_poll_ms; /* PFC_WD|GLOBAL POLL_INTERVAL (200) */
	/* FLOWLET|global */
	int flowlet;
	int flowlet_mode; /* enum xfab_flowlet_mode */
	__u32 flowlet_gap_us;
	__u32 load_window_us;
	__u32 flowlet_age_ms;
	/* FIB_SYNC|global: mirror the kernel's routes (what a routing daemon
	 * such as FRR's zebra installs) into the data plane */
	int fib_sync;
	__u32 fib_table;	    /* 254: main */
	__u8 fib_protocols[32];	    /* bit p: rtm_protocol p mirrored */
	__u32 fib_withdraw_hold_ms; /* a withdrawn route whose ports are up waits
				     * this long for its return (fibsync.c) */
	__u32 fib_restart_hold_ms;  /* ... and, after the daemon that owns it
				     * starts, until this long after its start */
	/* LOCAL_REPAIR|global: what the data plane does before the routing
	 * protocol converges */
	int repair_bounce;	      /* a dead path bounces to a repair port */
	int split_horizon;	      /* a group never sends back out of the ingress port */
	__u32 repair_hold_ms;	      /* bounce: a withdrawn route whose ports just went down
				       * stays (dead, bouncing) this long (FIB_SYNC) */
	struct xfab_cfg_route repair; /* bounce: the peers of the repair ports */
	/* the overlay */
	__u8 router_mac[6]; /* DEVICE_METADATA mac: the VTEP's MAC; zero: the first port's */
	int vtep;	    /* a VXLAN_TUNNEL is configured */
	char vtep_name[16];
	__u8 vtep_src[4];
	int n_vnets;
	struct xfab_cfg_vnet vnets[XFAB_MAX_VNETS - 1];
	/* a SONiC file's LOOPBACK_INTERFACE (config/sonic_loopback.c):
	 * Loopback0's IPv4 address (the VTEP's when VXLAN_TUNNEL names none),
	 * and the BGP router id: DEVICE_METADATA bgp_router_id, else it */
	int has_loopback4;
	__u8 loopback4[4];
	int has_router_id;
	__u8 router_id[4];
	int n_tunnels;
	struct xfab_cfg_tunnel *tunnels;
	int n_vnet_routes;
	struct xfab_cfg_vnet_route *vnet_routes;
	/* where DEVICE_METADATA set what a reload cannot change */
	struct json_pos hostname_pos;
	struct json_pos datapath_pos; /* of the field, or of "localhost" */
	/* The FIBs' groups ([0] IPv4, [1] IPv6; xfab_abi.h): DEVICE_METADATA
	 * fib_ipv4_groups / fib_ipv6_groups, 0: sized to the config
	 * (xfab_config_fib_groups); what this config's own prefixes need
	 * (capacity.c, at parse); what the maps xfabd loaded hold (0: none
	 * loaded), the limit of a reload or a pin. */
	__u32 fib_groups[2];
	struct json_pos fib_groups_pos[2];
	__u32 fib_groups_need[2];
	__u32 fib_groups_loaded[2];
	/* control-plane policing: per CoPP group (enum xfab_copp_group) */
	struct xfab_cfg_copp copp[XFAB_COPP_GROUPS];
	struct xfab_cfg_acl acl; /* ACL_TABLE, ACL_RULE (acl.h) */
	/* read as SONiC's CONFIG_DB (docs/CONFIG.md): the tables ("NTP") and
	 * fields ("PORT.fec") SONiC defines and xfab does not implement,
	 * accepted, each once: the tables, then the fields, in the file's order */
	int sonic;
	int n_ignored;
	char **ignored;
	/* xfab_config_digest of the bytes parsed: whether a file still holds
	 * the text a running xfabd loaded (xfabctl config export) */
	__u64 digest;
};

/* The groups xfabd loads a FIB with (v6: 0 IPv4, 1 IPv6): the configured
 * count, or twice what the config needs (room for what FIB_SYNC brings and
 * for reloads), a power of two, XFAB_FIB_GROUPS_DEFAULT at least. */
__u32 xfab_config_fib_groups(const struct xfab_config *cfg, int v6);

/* PFC sizing (docs/PFC.md, CONFIG.md#buffer_pg): the reaction time a
 * derived headroom covers, and the derived thresholds in MTUs. */
#define XFAB_PFC_REACTION_US 2000
#define XFAB_PFC_XOFF_MTUS 8
#define XFAB_PFC_XON_MTUS 6
#define XFAB_PFC_CABLE_M 5
#define XFAB_PFC_NS_PER_M 5
/* Headroom for a PG at speed_mbps over cable_m of cable with mtu:
 * 2 x MTU + what arrives in the reaction time and the cable's round trip. */
__u32 xfab_pfc_headroom(__u32 speed_mbps, __u32 cable_m, __u32 mtu);
/* The limit of port p's lossless queue prio: it never drops, so it holds
 * XOFF + headroom of every port that can feed it (its own buffer at least). */
__u32 xfab_pfc_queue_limit(const struct xfab_config *cfg, int p, int prio);

/* What a config file is written as. AUTO: SONiC's CONFIG_DB when one of
 * its tables is SONiC's and not xfab's (a mistyped table is neither), else
 * xfab's. In a SONiC file what SONiC defines and xfab does not implement is
 * checked against SONiC's catalogue and listed in cfg->ignored. */
enum xfab_cfg_format { XFAB_CFG_AUTO, XFAB_CFG_XFAB, XFAB_CFG_SONIC };
/* Where the build's and the package's catalogue is (make install). */
#define XFAB_SONIC_CATALOGUE "/usr/share/xfab/sonic/catalogue.json"
struct xfab_cfg_source {
	enum xfab_cfg_format format;
	const char *catalogue; /* SONiC's (config/sonic/catalogue.json); NULL: the default */
};

/* Parses and validates text (named file in errors). Returns 0 and fills cfg,
 * or -1 with errs filled and cfg untouched. */
int xfab_config_parse(const char *file, const char *text, struct xfab_config *cfg,
		      struct xfab_cfg_errors *errs);
/* Reads and parses a file. */
int xfab_config_load(const char *path, struct xfab_config *cfg, struct xfab_cfg_errors *errs);
/* The same, as src says (NULL: AUTO with the default catalogue). */
int xfab_config_parse_as(const char *file, const char *text, const struct xfab_cfg_source *src,
			 struct xfab_config *cfg, struct xfab_cfg_errors *errs);
int xfab_config_load_as(const char *path, const struct xfab_cfg_source *src,
			struct xfab_config *cfg, struct xfab_cfg_errors *errs);
void xfab_config_free(struct xfab_config *cfg);
/* FNV-1a, 64 bits, of len bytes of buf, continuing from h (start from
 * XFAB_CFG_DIGEST_INIT): tells an edited file from the one loaded; not a
 * defence against a forger. */
#define XFAB_CFG_DIGEST_INIT 0xcbf29ce484222325ull
__u64 xfab_config_digest(__u64 h, const void *buf, size_t len);
/* cfg as a SONiC CONFIG_DB document on out (docs/SONIC.md, "Export and
 * coverage"): every table and field that sets what xfab compiles, so that
 * reading it back (format sonic) compiles the same tables. 0, or -1 with
 * errno (ENOMEM, or the write's). */
int xfab_config_export(const struct xfab_config *cfg, FILE *out);

/* What of a config file xfab carries out (config/coverage.c): used (xfab's,
 * or SONiC's with SONiC's meaning), mapped (SONiC's spelling onto xfab's
 * own mechanism, note says how) or ignored (SONiC's, not implemented: on
 * cfg->ignored). */
enum xfab_cov_status { XFAB_COV_USED, XFAB_COV_MAPPED, XFAB_COV_IGNORED };
struct xfab_cov_item {
	const char *table;    /* as the file spells it (valid while root is) */
	const char *field;    /* NULL: the table itself */
	unsigned int entries; /* the table's entries; a field's: those that set it */
	enum xfab_cov_status status;
	const char *note; /* mapped: onto what; else NULL */
};
typedef void (*xfab_cov_fn)(void *arg, const struct xfab_cov_item *item);
/* fn for each table of root (the document cfg was parsed from), in the
 * file's order, each followed by its fields (not for an ignored table, nor
 * for a table whose fields are data: DSCP_TO_TC_MAP, CABLE_LENGTH). */
struct json_value;
void xfab_config_coverage(const struct xfab_config *cfg, const struct json_value *root,
			  xfab_cov_fn fn, void *arg);
const char *xfab_cov_status_name(enum xfab_cov_status s);
/* A reload from running to next (both parsed): refuses what needs a
 * restart (hostname, datapath, port list) and a switch-over the tables
 * cannot hold while old and new entries are both live (make before break).
 * Errors point into next (named file). Returns 0 or -1. */
int xfab_config_check_change(const struct xfab_config *running, const struct xfab_config *next,
			     const char *file, struct xfab_cfg_errors *errs);
/* Whether cfg alone fits the tables (what parsing checks), for a config
 * put together outside a file (xfabd's runtime TE pins merged in). */
int xfab_config_check_capacity(const struct xfab_config *cfg, const char *file,
			       struct xfab_cfg_errors *errs);
int xfab_config_port_index(const struct xfab_config *cfg, const char *name);
/* The port has a queue the data plane judges: a WRED profile on a class,
 * a rate or a buffer (the ports table's XFAB_PORT_QUEUED). */
int xfab_config_port_queued(const struct xfab_cfg_port *port);
/* Class tc's weight in the port's share (docs/CONFIG.md#queue): its own,
 * else 1, SONiC's default weight (sonic-scheduler.yang). */
__u32 xfab_config_class_weight(const struct xfab_cfg_port *port, int tc);
/* 1 when the port's classes do not all weigh the same (then its tc queues
 * share the port by weight), else 0. */
int xfab_config_port_weighted(const struct xfab_cfg_port *port);
/* Some port has lossless priorities (PFC). */
int xfab_config_has_lossless(const struct xfab_config *cfg);

/* One TE_PATH entry given outside a file (xfabd's control requests: IN is
 * the ingress port, PREFIX the destination, NEXTHOP "GW[,GW...]"), checked
 * by the rules of the file's TE_PATH against cfg, which is not changed (nor
 * checked for duplicates). 0, or -1 with errs (key "IN|PREFIX[.nexthop]"). */
int xfab_config_parse_te_entry(const struct xfab_config *cfg, const char *in, const char *prefix,
			       const char *nexthop, struct xfab_cfg_te *te,
			       struct xfab_cfg_errors *errs);
void xfab_cfg_te_free(struct xfab_cfg_te *te);

/* "file:line:col: key: message" ("file: message" for the file as a whole) */
void xfab_cfg_error_format(const struct xfab_cfg_error *e, char *buf, size_t len);

/* Helpers shared with the CLI. */
/* A decimal number lo..hi: digits only, no sign, no leading zero, no
 * trailing junk, no overflow (the config's one number syntax). */
int xfab_parse_u32_strict(const char *text, __u32 lo, __u32 hi, __u32 *out, char *why,
			  size_t whylen);
int xfab_parse_prefix(const char *text, struct xfab_prefix *pfx, char *why, size_t whylen);
int xfab_prefix_contains(const struct xfab_prefix *pfx, int family, const __u8 *addr);
__u32 xfab_default_hash_seed(const char *hostname);
/* "SRC_IP,DST_IP,..." <-> XFAB_HASH_F_*; returns -1 naming the bad field. */
int xfab_parse_hash_fields(const char *text, __u32 *fields, char *bad, size_t badlen);
void xfab_format_hash_fields(__u32 fields, char *buf, size_t len);

#endif
