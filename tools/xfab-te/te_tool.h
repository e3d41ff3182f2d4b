/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfab-te: a centralised TE controller for an xfab fabric (docs/TE.md).
 *
 *   xfab-te plan   --fabric FILE (--job FILE | --matrix FILE)... [--down SW:PORT]...
 *                  [--live] [-j]
 *   xfab-te apply  --fabric FILE (--job FILE | --matrix FILE)... [--down SW:PORT]...
 *                  [--gen N] [-j]
 *   xfab-te run    --fabric FILE [--job FILE | --matrix FILE]... [--jobs DIR]
 *                  [--interval S] [--poll-ms MS] [--json FILE] [--clear-on-exit]
 *   xfab-te status --fabric FILE [-j]
 *   xfab-te clear  --fabric FILE [--gen N]
 *
 * The fabric is xfab-lab's fabric.json; the demand, job files (the bytes of
 * each connection, user/lib/job.c) and traffic matrices. The paths and pins
 * come from user/lib/te.c. Each switch is programmed through its xfabd's
 * control socket (docs/CONTROL.md): every pin of a new plan generation is
 * added on every switch first, then each switch sweeps the pins of older
 * generations (make before break). Link state is read from each switch's
 * pinned `ports` map (the oper state xfabd keeps for its data plane).
 *
 * Files (this header is what they share): options.c the command line;
 * demand.c jobs and matrices; links.c link state; ctl.c the control
 * sockets; apply.c a plan onto the switches; cmds.c plan, apply, status,
 * clear; run.c the controller's loop; output.c the plan and the status
 * file; events.c the log and the events; main.c the entry point.
 */
#ifndef XFAB_TOOL_TE_H
#define XFAB_TOOL_TE_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "common.h"
#include "ctlclient.h"
#include "ctlproto.h"
#include "job.h"
#include "json.h"
#include "jsonw.h"
#include "te.h"
#include "textfile.h"
#include "xfab_abi.h"

#define MAX_INPUTS 64	     /* --job, --matrix, --down each */
#define MAX_FILE_MIB 16	     /* a fabric, job or matrix file */
#define REPLY_MS 3000	     /* an answer from xfabd */
#define RETRY_MS 1000	     /* a switch that failed is tried again after */
#define JOBS_CHECK_MS 1000   /* --jobs DIR is looked at */
#define MAX_EVENTS 64	     /* kept for --json */
#define MAX_LISTED_FLOWS 64  /* per pair in plan -j */
#define MAX_FLOWS (1u << 20) /* job flows kept for listing */

/* ---- options ---- */

struct opts {
	const char *cmd, *fabric, *jobs_dir, *status_path;
	const char *jobs[MAX_INPUTS], *matrices[MAX_INPUTS], *down[MAX_INPUTS];
	int n_jobs, n_matrices, n_down;
	int json, live, clear_on_exit;
	uint64_t gen;
	double interval; /* s */
	int poll_ms;
};

/* ---- run-time state ---- */

enum sw_state { SW_IDLE, SW_OK, SW_UNREACHABLE, SW_REFUSED };

static const char *const sw_state_names[] = {"idle", "ok", "unreachable", "refused"};

struct sw_rt {
	int fd;	      /* control connection; -1: none */
	int ports_fd; /* its pinned ports map; -1: none */
	ino_t ports_ino;
	__u32 *ifindex; /* per fabric port: its ifindex in the map (0: not found) */
	int have_dp;	/* its data plane's maps are there */
	char dp_error[256];
	enum sw_state state; /* of the last apply */
	char error[400];
	int pins_wanted, pins_added;
	uint64_t next_retry_ns;
	uint64_t rescan_ns; /* a port not found: the map is scanned again then */
};

struct flowrec { /* a job QP, for the listing */
	int src, dst;
	uint16_t sport;
	uint32_t src_qpn, dst_qpn;
	int job;
};

struct event {
	char when[32];
	uint64_t unix_ms;
	char kind[16];
	char what[320];
	uint64_t gen;
	double max_load;
	double ms; /* detection to applied; < 0: not an apply */
};

struct ctx {
	struct opts o;
	struct xfab_te_fabric *f;
	struct sw_rt *sw;
	struct xfab_te_demands dm;
	struct flowrec *flows;
	size_t n_flows;
	char job_names[MAX_INPUTS * 4][64];
	int n_job_names;
	struct xfab_te_plan plan; /* the last plan computed and applied */
	int have_plan;
	double plan_ms;
	uint64_t gen;	    /* the generation last applied (0: none) */
	int complete;	    /* every switch took it */
	double apply_ms;    /* its last apply */
	const char *status; /* running, stopped, fenced */
	struct event ev[MAX_EVENTS];
	int n_ev;
};

/* A runtime pin as a switch lists it (te-list). */
struct listed {
	char in[16], prefix[64], via[1024];
	uint64_t gen;
};

/* events.c */
void te_event(struct ctx *c, const char *kind, double ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
double te_ms_since(uint64_t t0);
void te_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void te_wall_time(char *buf, size_t len);

/* demand.c */
uint64_t te_jobs_signature(const char *dir);
int te_load_demand(struct ctx *c, struct xfab_te_demands *dm, int skip_bad, char *err,
		   size_t errlen);

/* links.c */
int te_apply_down(struct ctx *c, char *err, size_t errlen);
void te_dp_close(struct sw_rt *s);
void te_link_name(const struct xfab_te_fabric *f, int l, char *buf, size_t len);
void te_read_links(struct ctx *c);

/* ctl.c */
void te_ctl_close(struct sw_rt *s);
int te_fetch(struct ctx *c, int sw, uint64_t *gen, int *te_on, struct listed **pins, size_t *n_pins,
	     char *err, size_t errlen);
int te_request(struct ctx *c, int sw, const struct xfab_ctl_req *req, char *resp, size_t rlen,
	       char *field, size_t flen, char *error, size_t elen);

/* apply.c */
int te_add_pins(struct ctx *c, int sw, const struct xfab_te_plan *plan, uint64_t gen);
int te_apply_plan(struct ctx *c, const struct xfab_te_plan *plan, uint64_t gen);
uint64_t te_next_gen(struct ctx *c);
void te_pin_prefix(const struct xfab_te_pin *p, char *buf, size_t len);
int te_sweep(struct ctx *c, int sw, uint64_t gen, int *removed);

/* output.c */
void te_plan_json(struct xfab_jw *w, const struct ctx *c, const struct xfab_te_plan *plan);
void te_print_plan_text(const struct ctx *c, const struct xfab_te_plan *plan);
void te_switches_json(struct xfab_jw *w, const struct ctx *c);
void te_write_status(struct ctx *c);

/* cmds.c */
int te_clear_all(struct ctx *c, uint64_t gen);
int te_cmd_apply(struct ctx *c);
int te_cmd_clear(struct ctx *c);
int te_cmd_plan(struct ctx *c);
int te_cmd_status(struct ctx *c);
int te_compute(struct ctx *c, struct xfab_te_plan *plan);

/* run.c */
int te_cmd_run(struct ctx *c);

/* options.c */
int te_parse_opts(int argc, char **argv, struct ctx *c);

#endif
