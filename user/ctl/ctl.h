/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfabctl: what every command file shares. The commands read the pinned
 * maps of one switch (ctl_pin_dir); main.c resolves it and dispatches through
 * its command table. Changes (TE pins, clears) are requests to xfabd over
 * its control socket (request.c): xfabctl writes no map.
 */
#ifndef XFAB_CTL_H
#define XFAB_CTL_H

#include <stddef.h>
#include <stdio.h>

#include "common.h"
#include "config.h"
#include "opts.h"

/* Set by main() before any command runs. */
extern int ctl_json;
extern char ctl_pin_dir[512];

/* Everything the command line may say; each command reads what it needs. */
struct ctl_opts {
	const char *in, *src, *dst, *proto; /* hash, trace (in: te too) */
	long sport, dport, qp, flow_label;
	long dscp, ecn, ttl, len, index; /* trace */
	const char *pcap, *smac, *dmac;
	const char *prefix, *via, *gen; /* te */
	double interval;		/* watch */
	long count;
	const char *ports, *action, *detection, *restoration, *poll; /* pfcwd */
	int check_storm, empty;					     /* show pfcwd stats */
	const char *fabric, *lab, *job, *since, *save, *svg;	     /* fabric report */
	double window, threshold;				     /* fabric doctor */
	long min_frames, watch;
	int drain, undrain, threshold_set, min_frames_set;
	const char *link;
	const char *operand, *reason; /* interface drain PORT [--reason TEXT] */
	/* config export, show config-coverage: -c FILE instead of the switch's */
	const char *config, *output, *format, *catalogue;
};

/* The options every command was given (main.c): the option tables
 * (commands.c, and a show file's own) store into it. */
extern struct ctl_opts ctl_given;

/*
 * One word of the command line. A node names the words that may follow it
 * (sub); a leaf runs: a view takes no options, a verb takes its own table
 * of them (opts, with args its synopsis for --help). A leaf is the last
 * word; a node that is a view too (show vnet) may be the last.
 */
struct ctl_cmd {
	const char *name;
	const struct ctl_cmd *sub;
	int (*view)(void);
	int (*verb)(const struct ctl_opts *o);
	const char *help;
	int fabric;		     /* works across a fabric: no one switch to find */
	const struct xfab_opt *opts; /* the verb's options (NULL: none) */
	const char *args;	     /* its synopsis after the words, for --help */
	int operand;		     /* a verb taking one word after it (a PORT): o->operand */
	int config_file;	     /* with -c FILE it reads the file: no switch to find */
};

/*
 * show_registry.c: `show`'s objects. Each show file registers its own
 * (CTL_SHOW below) under its feature's name, so a feature's show touches
 * no other file; rank places
 * an object in the list and in --help (ascending), whatever the link order
 * of the files that register them.
 */
struct ctl_show {
	const char *feature; /* the feature registry's name (user/lib/feature.h) */
	int rank;
	struct ctl_cmd cmd;
};
void ctl_show_register(const struct ctl_show *show);
/* The registered objects in rank order, ended by a {NULL} entry. */
extern struct ctl_cmd ctl_show_cmds[];

/* A constructor, not a linker section: it runs before main() in any
 * link order, needs no linker script symbols, and the sanitizers' padding
 * of globals cannot misalign it (they pad globals in custom sections). */
#define CTL_SHOW(id, feature_, rank_, ...)                                                         \
	static const struct ctl_show id = {                                                        \
	    .feature = (feature_), .rank = (rank_), .cmd = {__VA_ARGS__}};                         \
	__attribute__((constructor)) static void id##_register(void)                               \
	{                                                                                          \
		ctl_show_register(&id);                                                            \
	}

/* commands.c: the command table and the help generated from it */
extern const struct ctl_cmd ctl_top_cmds[];
extern const struct xfab_opt ctl_global_opts[];
/* Global options' values: -s, -P, --pin-root (NULL when not given). */
extern const char *ctl_switch, *ctl_pin_dir_opt, *ctl_pin_root;
/* xfabctl --help, or a command's (words: the words that led to it). */
void ctl_usage(FILE *out);
void ctl_cmd_usage(const struct ctl_cmd *c, const char *words, FILE *out);
/* The rows a verb accepts (the global ones, then its own) in rows[cap],
 * ended; their number. */
size_t ctl_cmd_rows(const struct ctl_cmd *c, struct xfab_opt *rows, size_t cap);

/* json_out.c: a JSON writer on stdout (k == NULL inside an array). */
void ctl_jw_open(const char *k, char c);
void ctl_jw_close(char c);
void ctl_jw_string(const char *k, const char *v);
void ctl_jw_uint(const char *k, unsigned long long v);
void ctl_jw_bool(const char *k, int v);
void ctl_jw_double(const char *k, double v);
void ctl_jw_null(const char *k);
/* Ends a top-level value with a newline, if one was written. */
void ctl_jw_end(void);

/* lookup.c: reading the maps */
int ctl_open_map(const char *name);
const char *ctl_port_name(__u32 ifindex, char *buf);
void ctl_addr_str(int v6, const __u8 *addr, char *buf, size_t len);
void *ctl_map_keys(int fd, size_t key_size, size_t *count);
int ctl_load_nexthop(int fd, __u32 id, struct xfab_nexthop *nh);
size_t ctl_load_ports(struct xfab_port *ports);
int ctl_port_live(__u32 ifindex);
void ctl_print_nexthop_json(int nh_fd, __u32 id);
void ctl_print_nexthop_text(int nh_fd, __u32 id, const char *sep);
int ctl_find_route(int v6, const __u8 *addr, __u32 table, int *plen_out, struct xfab_route *rt_out);
int ctl_parse_proto(const char *p);

/* netns.c: a port by its recorded name (0 or -1), the list of them, and
 * entering the network namespace that holds the port (0 or -1) */
int ctl_find_port(const char *name, struct xfab_port *port);
void ctl_print_port_names(FILE *out);
int ctl_enter_port_netns(const struct xfab_port *port);

/* show_lb.c: TE entries, also `te show` (the other show_*.c views are
 * their own files' and registered there: CTL_SHOW) */
int ctl_show_te(void);

/* verbs that take options */
int ctl_cmd_hash(const struct ctl_opts *o);
int ctl_cmd_trace(const struct ctl_opts *o);
int ctl_te_add(const struct ctl_opts *o);
int ctl_te_del(const struct ctl_opts *o);
int ctl_te_clear(const struct ctl_opts *o);
int ctl_te_sweep(const struct ctl_opts *o);
/* te.c: the switch's runtime pins as xfabd lists them (te-list, every
 * page), for show te. -1 when xfabd does not answer (nothing said). */
struct te_listed {
	char in[16], prefix[64], via[1024];
	unsigned long long gen;
};
int ctl_te_list(void);
int ctl_te_list_all(struct te_listed **pins, size_t *n, unsigned long long *generation);
int ctl_watch_counters(const struct ctl_opts *o);
int ctl_watch_queues(const struct ctl_opts *o);
int ctl_clear_watermark(void);
int ctl_clear_counters(void);
int ctl_restart(void);
int ctl_pfcwd_start(const struct ctl_opts *o);
int ctl_pfcwd_stop(const struct ctl_opts *o);
int ctl_pfcwd_interval(const struct ctl_opts *o);
/* interface.c: interface drain|undrain PORT (through xfabd) */
int ctl_interface_drain(const struct ctl_opts *o);
int ctl_interface_undrain(const struct ctl_opts *o);
/* fabric_report.c: every switch of a fabric (no -s) */
int ctl_cmd_fabric_report(const struct ctl_opts *o);
/* fabric_doctor.c: the links that lose or damage frames (0 none, 1 some) */
int ctl_cmd_fabric_doctor(const struct ctl_opts *o);

/* config_source.c: the config a command reads, parsed into cfg: the file
 * -c names, or the one the switch's xfabd runs, refused when it no longer
 * holds the text xfabd loaded. 0, or the exit status (said why). */
int ctl_config_read(const struct ctl_opts *o, const char *what, struct xfab_config *cfg, char *path,
		    size_t path_len);
/* config_export.c: config export [--format sonic] [-o FILE] [-c FILE] */
int ctl_config_export(const struct ctl_opts *o);

/* request.c: one request to xfabd, its answer printed (-j: as sent);
 * 0, 1 when refused or xfabd is not there, 2 for a request too long */
struct xfab_ctl_req;
int ctl_request(const struct xfab_ctl_req *req, const char *what);
/* The same, the answer line left in resp: 0 done, 1 refused (said why),
 * < 0 no answer (said why; -2 the request does not fit). */
int ctl_query(const struct xfab_ctl_req *req, const char *what, char *resp, size_t rlen);
/* The same for a request line already made (newline included), to the
 * control socket at sock (a fabric's switch: fabric.json's "ctl"). */
int ctl_query_line(const char *sock, const char *line, size_t len, const char *what, char *resp,
		   size_t rlen);
/* Set: ctl_query says nothing when no xfabd answers (a view that can do
 * without it). */
extern int ctl_quiet;

#endif
