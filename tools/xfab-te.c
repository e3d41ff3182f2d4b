// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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
 */
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

static volatile sig_atomic_t stop_flag, hup_flag;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_flag = 1;
	else
		stop_flag = 1;
}

static double ms_since(uint64_t t0)
{
	return (double)(xfab_mono_ns() - t0) / 1e6;
}

static void wall_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ld", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A log line on stderr, with the time. */
static void say(const char *fmt, ...)
{
	char when[32];
	va_list ap;

	wall_time(when, sizeof(when));
	fprintf(stderr, "%s xfab-te: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void event(struct ctx *c, const char *kind, double ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A logged event, also kept (the last MAX_EVENTS) for the status file. */
static void event(struct ctx *c, const char *kind, double ms, const char *fmt, ...)
{
	struct event *e;
	va_list ap;

	if (c->n_ev == MAX_EVENTS) {
		memmove(&c->ev[0], &c->ev[1], (MAX_EVENTS - 1) * sizeof(c->ev[0]));
		c->n_ev--;
	}
	e = &c->ev[c->n_ev++];
	memset(e, 0, sizeof(*e));
	wall_time(e->when, sizeof(e->when));
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		e->unix_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	}
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	e->gen = c->gen;
	e->max_load = c->have_plan ? c->plan.max_load : 0;
	e->ms = ms;
	say("%s: %s", kind, e->what);
}

/* ---- files ---- */

/* ---- demand ---- */

/* The jobs in --jobs DIR (*.json, by name) into names; -1 on a bad dir. */
static int jobs_in_dir(const char *dir, char names[][512], int max, char *err, size_t errlen)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), k = 0;

	if (n < 0) {
		snprintf(err, errlen, "--jobs %s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name);

		if (list[i]->d_name[0] != '.' && l > 5 &&
		    !strcmp(list[i]->d_name + l - 5, ".json") && k < max)
			snprintf(names[k++], 512, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

/* The flows of a job, kept for plan -j's listing. */
static void keep_flows(struct ctx *c, const struct xfab_job *job, int job_idx)
{
	size_t n = xfab_job_flows(job, NULL, 0);
	struct xfab_job_flow *fl;
	struct flowrec *grown;

	if (c->n_flows + n > MAX_FLOWS)
		return; /* listing only: a huge job is planned, not listed */
	fl = calloc(n ? n : 1, sizeof(*fl));
	grown = realloc(c->flows, (c->n_flows + n + 1) * sizeof(*grown));
	if (!fl || !grown) {
		free(fl);
		if (grown)
			c->flows = grown;
		return;
	}
	c->flows = grown;
	xfab_job_flows(job, fl, n);
	for (size_t i = 0; i < n; i++) {
		struct flowrec *r = &c->flows[c->n_flows++];

		r->src = xfab_te_host_index(c->f, inet_ntoa(fl[i].saddr));
		r->dst = xfab_te_host_index(c->f, inet_ntoa(fl[i].daddr));
		r->sport = fl[i].sport;
		r->src_qpn = fl[i].src_qpn;
		r->dst_qpn = fl[i].dst_qpn;
		r->job = job_idx;
	}
	free(fl);
}

static int add_job(struct ctx *c, struct xfab_te_demands *dm, const char *path, char *err,
		   size_t errlen)
{
	struct xfab_job *job = calloc(1, sizeof(*job));
	char inner[400];
	int idx;

	if (!job) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (xfab_job_load(path, job, err, errlen)) {
		free(job);
		return -1;
	}
	if (xfab_te_demand_job(dm, c->f, job, inner, sizeof(inner))) {
		snprintf(err, errlen, "%s: %s", path, inner);
		free(job);
		return -1;
	}
	idx = c->n_job_names < (int)(sizeof(c->job_names) / sizeof(c->job_names[0]))
		  ? c->n_job_names++
		  : -1;
	if (idx >= 0) {
		snprintf(c->job_names[idx], sizeof(c->job_names[idx]), "%s",
			 job->name[0] ? job->name : path);
		keep_flows(c, job, idx);
	}
	free(job);
	return 0;
}

/* Every --job, --matrix and job of --jobs DIR into a new demand; with
 * skip_bad (run), a bad file in DIR is said and left out. */
static int load_demand(struct ctx *c, struct xfab_te_demands *dm, int skip_bad, char *err,
		       size_t errlen)
{
	static char names[256][512];
	int n;

	xfab_te_demands_init(dm);
	free(c->flows);
	c->flows = NULL;
	c->n_flows = 0;
	c->n_job_names = 0;
	for (int i = 0; i < c->o.n_jobs; i++)
		if (add_job(c, dm, c->o.jobs[i], err, errlen))
			goto fail;
	for (int i = 0; i < c->o.n_matrices; i++) {
		char inner[400],
		    *text = xfab_read_text(c->o.matrices[i], MAX_FILE_MIB, err, errlen);
		int rc;

		if (!text)
			goto fail;
		rc = xfab_te_demand_matrix(dm, c->f, text, inner, sizeof(inner));
		free(text);
		if (rc) {
			snprintf(err, errlen, "%s:%s", c->o.matrices[i], inner);
			goto fail;
		}
	}
	if (!c->o.jobs_dir)
		return 0;
	n = jobs_in_dir(c->o.jobs_dir, names, 256, err, errlen);
	if (n < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		struct xfab_te_demands copy;
		char why[512];

		/* a job refused halfway must leave nothing: add it to a copy */
		xfab_te_demands_init(&copy);
		for (size_t k = 0; k < dm->n; k++)
			xfab_te_demand_add(&copy, dm->d[k].src, dm->d[k].dst, dm->d[k].bytes);
		if (add_job(c, &copy, names[i], why, sizeof(why))) {
			xfab_te_demands_free(&copy);
			if (!skip_bad) {
				snprintf(err, errlen, "%s", why);
				goto fail;
			}
			say("job refused, left out of the plan: %s", why);
			continue;
		}
		xfab_te_demands_free(dm);
		*dm = copy;
	}
	return 0;
fail:
	xfab_te_demands_free(dm);
	return -1;
}

/* What --jobs DIR holds now: names, sizes and times (a change replans). */
static uint64_t jobs_signature(const char *dir)
{
	static char names[256][512];
	char err[256];
	uint64_t h = 1469598103934665603ull;
	int n = jobs_in_dir(dir, names, 256, err, sizeof(err));

	for (int i = 0; i < n; i++) {
		struct stat st;
		uint64_t v[3] = {0, 0, 0};

		if (!stat(names[i], &st)) {
			v[0] = (uint64_t)st.st_size;
			v[1] = (uint64_t)st.st_mtim.tv_sec;
			v[2] = (uint64_t)st.st_mtim.tv_nsec;
		}
		for (const char *s = names[i]; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		for (int k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ull;
	}
	return h ^ (uint64_t)n;
}

/* ---- link state: each switch's pinned ports map ---- */

static void dp_close(struct sw_rt *s)
{
	if (s->ports_fd >= 0)
		close(s->ports_fd);
	s->ports_fd = -1;
	s->have_dp = 0;
}

/* Opens the switch's ports map and finds its fabric ports in it. */
static int dp_open(struct ctx *c, int sw)
{
	const struct xfab_te_switch *fs = &c->f->sw[sw];
	struct sw_rt *s = &c->sw[sw];
	char path[512], msg[256];
	struct stat st;

	dp_close(s);
	if (!fs->pins[0]) {
		snprintf(s->dp_error, sizeof(s->dp_error), "no pin directory in the fabric file");
		return -1;
	}
	if (xfab_abi_check(fs->pins, "xfab-te", msg, sizeof(msg))) {
		snprintf(s->dp_error, sizeof(s->dp_error), "%s", msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", fs->pins, XFAB_MAP_PORTS);
	s->ports_fd = bpf_obj_get(path);
	if (s->ports_fd < 0 || stat(path, &st)) {
		snprintf(s->dp_error, sizeof(s->dp_error), "%s: %s", path, strerror(errno));
		dp_close(s);
		return -1;
	}
	s->ports_ino = st.st_ino;
	memset(s->ifindex, 0, (size_t)fs->n_ports * sizeof(*s->ifindex));
	for (__u32 ifi = 1; ifi < XFAB_MAX_IFINDEX; ifi++) {
		struct xfab_port port;

		if (bpf_map_lookup_elem(s->ports_fd, &ifi, &port) || port.ifindex != ifi)
			continue;
		port.name[sizeof(port.name) - 1] = '\0';
		for (int p = 0; p < fs->n_ports; p++)
			if (!strcmp(fs->ports[p].name, port.name))
				s->ifindex[p] = ifi;
	}
	s->have_dp = 1;
	s->dp_error[0] = '\0';
	return 0;
}

/* Reads the switch's ports' states into the fabric; a switch whose data
 * plane is gone has every port down. Returns whether it has one. */
static int dp_read(struct ctx *c, int sw)
{
	const struct xfab_te_switch *fs = &c->f->sw[sw];
	struct sw_rt *s = &c->sw[sw];
	char path[512];
	struct stat st;
	int rescan = 0;

	snprintf(path, sizeof(path), "%s/%s", fs->pins, XFAB_MAP_PORTS);
	/* pins gone, or pinned anew (another xfabd): open again */
	if (s->ports_fd >= 0 && (stat(path, &st) || st.st_ino != s->ports_ino))
		dp_close(s);
	if (s->ports_fd < 0 && dp_open(c, sw)) {
		for (int p = 0; p < fs->n_ports; p++)
			xfab_te_set_port(c->f, sw, p, 0);
		return 0;
	}
	for (int p = 0; p < fs->n_ports; p++) {
		struct xfab_port port;
		__u32 ifi = s->ifindex[p];
		int up = 0;

		if (ifi && !bpf_map_lookup_elem(s->ports_fd, &ifi, &port) && port.ifindex == ifi &&
		    !strncmp(port.name, fs->ports[p].name, sizeof(port.name)))
			up = (port.flags & XFAB_PORT_UP) == XFAB_PORT_UP;
		else
			rescan = 1; /* not (or no longer) where it was: down meanwhile */
		xfab_te_set_port(c->f, sw, p, up);
	}
	/* a port recreated with another ifindex is found again by a scan, at
	 * most once a second (a scan reads every ifindex slot) */
	if (rescan && xfab_mono_ns() >= s->rescan_ns) {
		s->rescan_ns = xfab_mono_ns() + 1000000000ull;
		dp_close(s);
	}
	return 1;
}

/* Every switch's ports; the links' states follow. */
static void read_links(struct ctx *c)
{
	for (int i = 0; i < c->f->n_switches; i++)
		dp_read(c, i);
}

static void link_name(const struct xfab_te_fabric *f, int l, char *buf, size_t len)
{
	const struct xfab_te_link *k = &f->links[l];

	snprintf(buf, len, "%s:%s-%s:%s", f->sw[k->lower].name,
		 f->sw[k->lower].ports[k->lower_port].name, f->sw[k->upper].name,
		 f->sw[k->upper].ports[k->upper_port].name);
}

/* --down SW:PORT */
static int apply_down(struct ctx *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->o.n_down; i++) {
		char sw[64];
		const char *colon = strchr(c->o.down[i], ':');
		int s, p;

		if (!colon || colon == c->o.down[i] ||
		    (size_t)(colon - c->o.down[i]) >= sizeof(sw)) {
			snprintf(err, errlen, "--down %s: expected SWITCH:PORT", c->o.down[i]);
			return -1;
		}
		snprintf(sw, sizeof(sw), "%.*s", (int)(colon - c->o.down[i]), c->o.down[i]);
		s = xfab_te_switch_index(c->f, sw);
		p = xfab_te_port_index(c->f, s, colon + 1);
		if (s < 0 || p < 0) {
			snprintf(err, errlen, "--down %s: no %s in the fabric", c->o.down[i],
				 s < 0 ? "such switch" : "such port on that switch");
			return -1;
		}
		xfab_te_set_port(c->f, s, p, 0);
	}
	return 0;
}

/* ---- the control sockets ---- */

static void ctl_close(struct sw_rt *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* One request line to the switch's xfabd, its answer line into resp; a
 * connection xfabd closed (its 5 s per connection) is opened again once.
 * 0, or -1 with why in err. */
static int exchange(struct ctx *c, int sw, const char *line, char *resp, size_t rlen, char *err,
		    size_t errlen)
{
	struct sw_rt *s = &c->sw[sw];
	const char *path = c->f->sw[sw].ctl;

	if (!path[0]) {
		snprintf(err, errlen, "no control socket in the fabric file");
		return -1;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		enum xfab_ctl_xfer x;

		if (s->fd < 0) {
			s->fd = xfab_ctl_connect(path);
			if (s->fd < 0) {
				snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
					 errno == ENOENT || errno == ECONNREFUSED
					     ? " (xfabd is not running)"
					     : "");
				return -1;
			}
		}
		x = xfab_ctl_exchange(s->fd, line, strlen(line), resp, rlen, REPLY_MS);
		if (x == XFAB_CTL_XFER_OK)
			return 0;
		ctl_close(s);
		if (x == XFAB_CTL_XFER_TIMEOUT) {
			snprintf(err, errlen, "%s: no answer within %d ms", path, REPLY_MS);
			return -1;
		}
		if (x == XFAB_CTL_XFER_LONG) {
			snprintf(err, errlen, "%s: an answer longer than a line", path);
			return -1;
		}
		/* closed: opened again, once */
	}
	snprintf(err, errlen, "%s: xfabd closed the connection without an answer", path);
	return -1;
}

/* A request and xfabd's verdict: 1 accepted, 0 refused (field, error
 * filled), -1 no answer (error filled). */
static int request(struct ctx *c, int sw, const struct xfab_ctl_req *req, char *resp, size_t rlen,
		   char *field, size_t flen, char *error, size_t elen)
{
	char line[XFAB_CTL_MAX_LINE + 1];
	int n = xfab_ctl_format_request(req, line, sizeof(line)), ok;

	field[0] = '\0';
	if (n < 0) {
		snprintf(error, elen, "a request longer than %d bytes", XFAB_CTL_MAX_LINE);
		return 0;
	}
	if (exchange(c, sw, line, resp, rlen, error, elen))
		return -1;
	if (xfab_ctl_parse_response(resp, &ok, error, elen, field, flen)) {
		snprintf(error, elen, "xfabd's answer is not a response: %.100s", resp);
		ctl_close(&c->sw[sw]);
		return -1;
	}
	return ok ? 1 : 0;
}

struct listed {
	char in[16], prefix[64], via[1024];
	uint64_t gen;
};

/* The switch's generation, TE state and runtime pins (te-list, every
 * page); pins may be NULL (the first page only). 0, or -1 with err. */
static int fetch(struct ctx *c, int sw, uint64_t *gen, int *te_on, struct listed **pins,
		 size_t *n_pins, char *err, size_t errlen)
{
	char resp[XFAB_CTL_MAX_LINE + 1], field[32];
	unsigned from = 0;

	if (pins) {
		*pins = NULL;
		*n_pins = 0;
	}
	for (int page = 0; page < 1 << 20; page++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_LIST};
		struct json_pos pos;
		char jerr[128];
		struct json_value *root;
		const struct json_value *g, *t, *list, *next;
		int rc;

		r.from_index = from;
		snprintf(r.from, sizeof(r.from), "%u", from);
		rc = request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), err, errlen);
		if (rc <= 0) {
			if (rc == 0 && !strcmp(field, "cmd"))
				snprintf(err, errlen, "this xfabd knows no te-list: upgrade it");
			goto fail;
		}
		root = json_parse(resp, jerr, sizeof(jerr), &pos);
		g = root ? json_get(root, "generation") : NULL;
		t = root ? json_get(root, "te") : NULL;
		list = root ? json_get(root, "pins") : NULL;
		next = root ? json_get(root, "next") : NULL;
		if (!g || g->type != JSON_NUMBER || !t || t->type != JSON_BOOL || !list ||
		    list->type != JSON_ARRAY) {
			snprintf(err, errlen, "te-list: an answer without its fields");
			json_free(root);
			goto fail;
		}
		*gen = strtoull(g->str, NULL, 10);
		*te_on = t->boolean;
		for (unsigned i = 0; pins && i < list->count; i++) {
			const struct json_value *e = &list->children[i], *in = json_get(e, "in"),
						*pfx = json_get(e, "prefix"),
						*via = json_get(e, "via"), *pg = json_get(e, "gen");
			struct listed *grown = realloc(*pins, (*n_pins + 1) * sizeof(**pins));

			if (!grown || !in || !pfx || !via || !pg) {
				if (grown)
					*pins = grown;
				snprintf(err, errlen, "te-list: a pin without its fields");
				json_free(root);
				goto fail;
			}
			*pins = grown;
			snprintf(grown[*n_pins].in, sizeof(grown->in), "%s", in->str);
			snprintf(grown[*n_pins].prefix, sizeof(grown->prefix), "%s", pfx->str);
			snprintf(grown[*n_pins].via, sizeof(grown->via), "%s", via->str);
			grown[*n_pins].gen = strtoull(pg->str, NULL, 10);
			(*n_pins)++;
		}
		if (!pins || !next || next->type != JSON_NUMBER) {
			json_free(root);
			return 0;
		}
		from = (unsigned)strtoul(next->str, NULL, 10);
		json_free(root);
	}
	snprintf(err, errlen, "te-list: no last page");
fail:
	if (pins) {
		free(*pins);
		*pins = NULL;
		*n_pins = 0;
	}
	return -1;
}

/* The next generation: above every switch's and our own; 0 when no
 * switch answers. */
static uint64_t next_gen(struct ctx *c)
{
	uint64_t top = c->gen;
	int answered = 0;

	for (int i = 0; i < c->f->n_switches; i++) {
		char err[400];
		uint64_t g;
		int te;

		if (fetch(c, i, &g, &te, NULL, NULL, err, sizeof(err)))
			continue;
		answered++;
		if (g > top)
			top = g;
	}
	if (!answered || top == UINT64_MAX)
		return 0;
	return top + 1;
}

static void pin_prefix(const struct xfab_te_pin *p, char *buf, size_t len)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &p->prefix, a, sizeof(a));
	snprintf(buf, len, "%s/%d", a, p->plen);
}

/* The plan's pins for one switch with generation gen: 1 every one taken,
 * 0 refused or unreachable (s->state, s->error say), -2 fenced (a newer
 * generation holds the switch). */
static int add_pins(struct ctx *c, int sw, const struct xfab_te_plan *plan, uint64_t gen)
{
	struct sw_rt *s = &c->sw[sw];
	char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320];

	s->pins_wanted = s->pins_added = 0;
	for (size_t i = 0; i < plan->n_pins; i++)
		s->pins_wanted += plan->pins[i].sw == sw;
	s->state = SW_OK;
	s->error[0] = '\0';
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_ADD, .generation = gen};
		int rc;

		if (p->sw != sw)
			continue;
		snprintf(r.in, sizeof(r.in), "%s", c->f->sw[sw].ports[p->in].name);
		pin_prefix(p, r.prefix, sizeof(r.prefix));
		inet_ntop(AF_INET, &p->via, r.via, sizeof(r.via));
		snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
		rc = request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), error,
			     sizeof(error));
		if (rc < 0) {
			s->state = SW_UNREACHABLE;
			snprintf(s->error, sizeof(s->error), "%s", error);
			return 0;
		}
		if (rc == 0) {
			s->state = SW_REFUSED;
			snprintf(s->error, sizeof(s->error), "te-add %s|%s via %s: %s%s%s", r.in,
				 r.prefix, r.via, field, *field ? ": " : "", error);
			return !strcmp(field, "gen") ? -2 : 0;
		}
		s->pins_added++;
	}
	return 1;
}

/* The older generations' pins off the switch: 1, 0 (state, error), -2. */
static int sweep(struct ctx *c, int sw, uint64_t gen, int *removed)
{
	struct sw_rt *s = &c->sw[sw];
	char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320];
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_SWEEP, .generation = gen};
	const char *k;
	int rc;

	snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
	rc = request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), error, sizeof(error));
	if (rc < 0) {
		s->state = SW_UNREACHABLE;
		snprintf(s->error, sizeof(s->error), "%s", error);
		return 0;
	}
	if (rc == 0) {
		s->state = SW_REFUSED;
		snprintf(s->error, sizeof(s->error), "te-sweep %s: %s%s%s", r.gen, field,
			 *field ? ": " : "", error);
		return !strcmp(field, "gen") ? -2 : 0;
	}
	k = strstr(resp, "\"removed\":");
	*removed = k ? atoi(k + 10) : 0;
	return 1;
}

/*
 * The plan with generation gen on every switch, make before break: every
 * switch's new pins first, then, on each switch that took all of its, the
 * sweep of older generations. A switch that failed keeps its old pins (and
 * those of the new it took) and is said; `run` tries it again. Returns 0
 * when every switch took it, 1 when some did not, -2 when fenced.
 */
static int apply_plan(struct ctx *c, const struct xfab_te_plan *plan, uint64_t gen)
{
	uint64_t t0 = xfab_mono_ns();
	int failed = 0, fenced = 0, removed = 0, pins = 0;

	for (int i = 0; i < c->f->n_switches && !fenced; i++) {
		int rc = add_pins(c, i, plan, gen);

		fenced = rc == -2;
		failed += rc != 1;
		pins += c->sw[i].pins_added;
	}
	for (int i = 0; i < c->f->n_switches && !fenced; i++) {
		int k = 0, rc;

		if (c->sw[i].state != SW_OK)
			continue;
		rc = sweep(c, i, gen, &k);
		fenced = rc == -2;
		failed += rc != 1;
		removed += k;
	}
	c->apply_ms = ms_since(t0);
	for (int i = 0; i < c->f->n_switches; i++)
		if (c->sw[i].state != SW_OK)
			c->sw[i].next_retry_ns = xfab_mono_ns() + RETRY_MS * 1000000ull;
	if (fenced) {
		for (int i = 0; i < c->f->n_switches; i++)
			if (c->sw[i].state == SW_REFUSED && strstr(c->sw[i].error, "stale plan"))
				say("fenced by %s: %s", c->f->sw[i].name, c->sw[i].error);
		return -2;
	}
	c->gen = gen;
	c->complete = !failed;
	if (failed) {
		char list[1024] = "";
		size_t o = 0;
		int bad = 0;

		for (int i = 0; i < c->f->n_switches; i++) {
			struct sw_rt *s = &c->sw[i];

			if (s->state == SW_OK)
				continue;
			bad++;
			if (o < sizeof(list) - 1)
				o += (size_t)snprintf(list + o, sizeof(list) - o,
						      "%s%s %s (%d of %d pins): %s", o ? "; " : "",
						      c->f->sw[i].name, sw_state_names[s->state],
						      s->pins_added, s->pins_wanted, s->error);
		}
		say("plan %llu HALF APPLIED: %d of %d switches took it, %d pins added, %d older "
		    "removed, in %.1f ms; %s; the switches that failed keep their older pins",
		    (unsigned long long)gen, c->f->n_switches - bad, c->f->n_switches, pins,
		    removed, c->apply_ms, list);
		return 1;
	}
	say("plan %llu applied on all %d switches: %d pins added, %d older removed, in %.1f ms",
	    (unsigned long long)gen, c->f->n_switches, pins, removed, c->apply_ms);
	return 0;
}

/* ---- the plan, printed ---- */

static void print_plan_text(const struct ctx *c, const struct xfab_te_plan *plan)
{
	const struct xfab_te_fabric *f = c->f;
	char name[96];
	int down = 0;

	for (int l = 0; l < f->n_links; l++)
		down += !xfab_te_link_up(f, l);
	printf("TE plan for %s: %zu pairs (%zu placed, %zu on one leaf, %zu without a live "
	       "path), %zu pins, %d of %d links down, computed in %.2f ms\n",
	       f->name[0] ? f->name : "the fabric", plan->n_pairs, plan->placed, plan->same_leaf,
	       plan->no_path, plan->n_pins, down, f->n_links, c->plan_ms);
	if (plan->max_dlink >= 0) {
		xfab_te_dlink_name(f, plan->max_dlink, name, sizeof(name));
		printf("max link load %.0f bytes on %s\n", plan->max_load, name);
	}
	printf("\npairs, largest first:\n");
	for (size_t i = 0; i < plan->n_pairs; i++) {
		const struct xfab_te_pair *pr = &plan->pairs[i];
		double worst = 0;

		printf("  %-8s -> %-8s %14llu  ", f->hosts[pr->src].name, f->hosts[pr->dst].name,
		       (unsigned long long)pr->bytes);
		if (pr->state != XFAB_TE_PLACED) {
			printf("%s\n", pr->state == XFAB_TE_SAME_LEAF
					   ? "one leaf: not pinned"
					   : "no live path: not pinned (ECMP)");
			continue;
		}
		for (int h = 0; h < pr->n_hops; h++) {
			printf("%s%s", h ? " " : "", f->sw[pr->sw[h]].name);
			if (h < pr->n_hops - 1) {
				printf(":%s>", f->sw[pr->sw[h]].ports[pr->out[h]].name);
				if (plan->load[pr->dlink[h]] > worst)
					worst = plan->load[pr->dlink[h]];
			}
		}
		printf("   max on path %.0f\n", worst);
	}
	printf("\nlinks (bytes each way, counted at the fastest link's speed):\n");
	for (int d = 0; d < plan->n_dlinks; d++) {
		if (plan->load[d] <= 0)
			continue;
		xfab_te_dlink_name(f, d, name, sizeof(name));
		printf("  %-28s %14.0f%s\n", name, plan->load[d],
		       xfab_te_link_up(f, d / 2) ? "" : "  (down)");
	}
	printf("\npins:\n");
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		const struct xfab_te_port *out = &f->sw[p->sw].ports[p->out];
		char pfx[64], via[INET_ADDRSTRLEN];

		pin_prefix(p, pfx, sizeof(pfx));
		inet_ntop(AF_INET, &p->via, via, sizeof(via));
		printf("  %-10s in %-8s %-18s via %-15s (%s, out %s)  %d pair(s)\n",
		       f->sw[p->sw].name, f->sw[p->sw].ports[p->in].name, pfx, via,
		       f->sw[out->peer_sw].name, out->name, p->pairs);
	}
}

static void plan_json(struct xfab_jw *w, const struct ctx *c, const struct xfab_te_plan *plan)
{
	const struct xfab_te_fabric *f = c->f;
	char name[96];

	xfab_jw_num3(w, "compute_ms", c->plan_ms);
	xfab_jw_uint(w, "pairs_total", plan->n_pairs);
	xfab_jw_uint(w, "placed", plan->placed);
	xfab_jw_uint(w, "same_leaf", plan->same_leaf);
	xfab_jw_uint(w, "no_path", plan->no_path);
	xfab_jw_num3(w, "max_load", plan->max_load);
	if (plan->max_dlink >= 0) {
		xfab_te_dlink_name(f, plan->max_dlink, name, sizeof(name));
		xfab_jw_string(w, "max_link", name);
	}
	xfab_jw_open(w, "links_down", '[');
	for (int l = 0; l < f->n_links; l++)
		if (!xfab_te_link_up(f, l)) {
			link_name(f, l, name, sizeof(name));
			xfab_jw_string(w, NULL, name);
		}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "pairs", '[');
	for (size_t i = 0; i < plan->n_pairs; i++) {
		const struct xfab_te_pair *pr = &plan->pairs[i];
		double worst = 0;
		int listed = 0;

		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "src", f->hosts[pr->src].name);
		xfab_jw_string(w, "dst", f->hosts[pr->dst].name);
		xfab_jw_uint(w, "bytes", pr->bytes);
		xfab_jw_string(w, "state",
			       pr->state == XFAB_TE_PLACED	? "placed"
			       : pr->state == XFAB_TE_SAME_LEAF ? "same-leaf"
								: "no-path");
		xfab_jw_uint(w, "candidates", (uint64_t)pr->candidates);
		if (pr->state == XFAB_TE_PLACED) {
			xfab_jw_open(w, "path", '[');
			for (int h = 0; h < pr->n_hops; h++) {
				xfab_jw_open(w, NULL, '{');
				xfab_jw_string(w, "switch", f->sw[pr->sw[h]].name);
				xfab_jw_string(w, "in", f->sw[pr->sw[h]].ports[pr->in[h]].name);
				xfab_jw_string(w, "out", f->sw[pr->sw[h]].ports[pr->out[h]].name);
				xfab_jw_close(w, '}');
			}
			xfab_jw_close(w, ']');
			xfab_jw_open(w, "links", '[');
			for (int h = 0; h < pr->n_hops - 1; h++) {
				xfab_jw_open(w, NULL, '{');
				xfab_te_dlink_name(f, pr->dlink[h], name, sizeof(name));
				xfab_jw_string(w, "link", name);
				xfab_jw_num3(w, "load", plan->load[pr->dlink[h]]);
				xfab_jw_close(w, '}');
				if (plan->load[pr->dlink[h]] > worst)
					worst = plan->load[pr->dlink[h]];
			}
			xfab_jw_close(w, ']');
			xfab_jw_num3(w, "max_on_path", worst);
		}
		xfab_jw_open(w, "flows", '[');
		for (size_t k = 0; k < c->n_flows && listed < MAX_LISTED_FLOWS; k++) {
			const struct flowrec *fr = &c->flows[k];

			if (fr->src != pr->src || fr->dst != pr->dst)
				continue;
			xfab_jw_open(w, NULL, '{');
			if (fr->job >= 0)
				xfab_jw_string(w, "job", c->job_names[fr->job]);
			xfab_jw_uint(w, "sport", fr->sport);
			xfab_jw_uint(w, "dport", XFAB_ROCE_UDP_PORT);
			xfab_jw_uint(w, "src_qp", fr->src_qpn);
			xfab_jw_uint(w, "dst_qp", fr->dst_qpn);
			xfab_jw_close(w, '}');
			listed++;
		}
		xfab_jw_close(w, ']');
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "loads", '[');
	for (int d = 0; d < plan->n_dlinks; d++) {
		if (plan->load[d] <= 0)
			continue;
		xfab_te_dlink_name(f, d, name, sizeof(name));
		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "link", name);
		xfab_jw_num3(w, "load", plan->load[d]);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "pins", '[');
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		const struct xfab_te_port *out = &f->sw[p->sw].ports[p->out];
		char pfx[64], via[INET_ADDRSTRLEN];

		pin_prefix(p, pfx, sizeof(pfx));
		inet_ntop(AF_INET, &p->via, via, sizeof(via));
		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "switch", f->sw[p->sw].name);
		xfab_jw_string(w, "in", f->sw[p->sw].ports[p->in].name);
		xfab_jw_string(w, "prefix", pfx);
		xfab_jw_string(w, "via", via);
		xfab_jw_string(w, "out", out->name);
		xfab_jw_string(w, "next", f->sw[out->peer_sw].name);
		xfab_jw_uint(w, "pairs", (uint64_t)p->pairs);
		xfab_jw_uint(w, "bytes", p->bytes);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
}

static void switches_json(struct xfab_jw *w, const struct ctx *c)
{
	xfab_jw_open(w, "switches", '[');
	for (int i = 0; i < c->f->n_switches; i++) {
		const struct sw_rt *s = &c->sw[i];

		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "name", c->f->sw[i].name);
		xfab_jw_string(w, "state", sw_state_names[s->state]);
		xfab_jw_uint(w, "pins_wanted", (uint64_t)s->pins_wanted);
		xfab_jw_uint(w, "pins_added", (uint64_t)s->pins_added);
		if (s->error[0])
			xfab_jw_string(w, "error", s->error);
		xfab_jw_bool(w, "data_plane", s->have_dp);
		if (s->dp_error[0])
			xfab_jw_string(w, "data_plane_error", s->dp_error);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
}

/* --json FILE: the last plan, generation, switches and events (written
 * whole to FILE.tmp, then renamed over FILE). */
static void write_status(struct ctx *c)
{
	char tmp[4200], when[32];
	struct xfab_jw w;

	if (!c->o.status_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", c->o.status_path);
	xfab_jw_init(&w, fopen(tmp, "w"));
	if (!w.out) {
		say("--json %s: %s", tmp, strerror(errno));
		return;
	}
	wall_time(when, sizeof(when));
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_string(&w, "fabric", c->f->name);
	xfab_jw_string(&w, "state", c->status);
	xfab_jw_string(&w, "updated", when);
	xfab_jw_uint(&w, "generation", c->gen);
	xfab_jw_bool(&w, "complete", c->complete);
	xfab_jw_num3(&w, "apply_ms", c->apply_ms);
	if (c->have_plan) {
		xfab_jw_open(&w, "plan", '{');
		plan_json(&w, c, &c->plan);
		xfab_jw_close(&w, '}');
	}
	switches_json(&w, c);
	xfab_jw_open(&w, "events", '[');
	for (int i = 0; i < c->n_ev; i++) {
		const struct event *e = &c->ev[i];

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "time", e->when);
		xfab_jw_uint(&w, "unix_ms", e->unix_ms);
		xfab_jw_string(&w, "kind", e->kind);
		xfab_jw_string(&w, "what", e->what);
		xfab_jw_uint(&w, "generation", e->gen);
		xfab_jw_num3(&w, "max_load", e->max_load);
		if (e->ms >= 0)
			xfab_jw_num3(&w, "detect_to_applied_ms", e->ms);
		xfab_jw_close(&w, '}');
	}
	xfab_jw_close(&w, ']');
	xfab_jw_close(&w, '}');
	fputc('\n', w.out);
	if (fclose(w.out) || rename(tmp, c->o.status_path))
		say("--json %s: %s", c->o.status_path, strerror(errno));
}

/* ---- commands ---- */

static int compute(struct ctx *c, struct xfab_te_plan *plan)
{
	char err[512];
	uint64_t t0 = xfab_mono_ns();

	if (xfab_te_plan_compute(c->f, &c->dm, plan, err, sizeof(err))) {
		say("plan: %s", err);
		return -1;
	}
	c->plan_ms = ms_since(t0);
	return 0;
}

static int cmd_plan(struct ctx *c)
{
	struct xfab_te_plan plan;
	char err[256];

	if (c->o.live) {
		read_links(c);
		if (apply_down(c, err, sizeof(err)))
			return 2;
	}
	if (compute(c, &plan))
		return 1;
	if (c->o.json) {
		struct xfab_jw w = {.out = stdout, .first = {1}};

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "fabric", c->f->name);
		plan_json(&w, c, &plan);
		xfab_jw_close(&w, '}');
		putchar('\n');
	} else {
		print_plan_text(c, &plan);
	}
	xfab_te_plan_free(&plan);
	return 0;
}

static int cmd_apply(struct ctx *c)
{
	uint64_t gen = c->o.gen;
	int rc;

	char err[256];

	read_links(c);
	if (apply_down(c, err, sizeof(err))) /* checked at start: cannot fail here */
		return 2;
	if (compute(c, &c->plan))
		return 1;
	c->have_plan = 1;
	if (!gen)
		gen = next_gen(c);
	if (!gen) {
		say("no switch answers on its control socket: nothing applied");
		return 1;
	}
	rc = apply_plan(c, &c->plan, gen);
	if (c->o.json) {
		struct xfab_jw w = {.out = stdout, .first = {1}};

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "fabric", c->f->name);
		xfab_jw_uint(&w, "generation", gen);
		xfab_jw_string(&w, "result", rc == 0 ? "applied" : rc == -2 ? "fenced" : "partial");
		xfab_jw_num3(&w, "apply_ms", c->apply_ms);
		plan_json(&w, c, &c->plan);
		switches_json(&w, c);
		xfab_jw_close(&w, '}');
		putchar('\n');
	} else if (rc == 0) {
		printf(
		    "plan %llu applied: %zu pins on %d switches, max link load %.0f, computed in "
		    "%.2f ms, applied in %.1f ms\n",
		    (unsigned long long)gen, c->plan.n_pins, c->f->n_switches, c->plan.max_load,
		    c->plan_ms, c->apply_ms);
	}
	if (rc == -2)
		say("plan %llu refused: a switch holds a newer generation (another controller's "
		    "plan); nothing of this one was kept where it was refused",
		    (unsigned long long)gen);
	return rc == 0 ? 0 : rc == -2 ? 3 : 1;
}

static int cmd_status(struct ctx *c)
{
	struct xfab_jw w = {.out = stdout, .first = {1}};
	int bad = 0;

	if (c->o.json)
		xfab_jw_open(&w, NULL, '[');
	else
		printf("%-10s %-12s %-12s %-6s %s\n", "Switch", "Generation", "Runtime pins", "TE",
		       "Control socket");
	for (int i = 0; i < c->f->n_switches; i++) {
		struct listed *pins;
		size_t n = 0;
		uint64_t gen = 0;
		int te = 0;
		char err[400];
		int rc = fetch(c, i, &gen, &te, &pins, &n, err, sizeof(err));

		bad += rc != 0;
		if (c->o.json) {
			xfab_jw_open(&w, NULL, '{');
			xfab_jw_string(&w, "switch", c->f->sw[i].name);
			xfab_jw_bool(&w, "reachable", rc == 0);
			if (rc) {
				xfab_jw_string(&w, "error", err);
			} else {
				xfab_jw_uint(&w, "generation", gen);
				xfab_jw_bool(&w, "te", te);
				xfab_jw_open(&w, "pins", '[');
				for (size_t k = 0; k < n; k++) {
					xfab_jw_open(&w, NULL, '{');
					xfab_jw_string(&w, "in", pins[k].in);
					xfab_jw_string(&w, "prefix", pins[k].prefix);
					xfab_jw_string(&w, "via", pins[k].via);
					xfab_jw_uint(&w, "gen", pins[k].gen);
					xfab_jw_close(&w, '}');
				}
				xfab_jw_close(&w, ']');
			}
			xfab_jw_close(&w, '}');
		} else if (rc) {
			printf("%-10s %-12s %-12s %-6s %s\n", c->f->sw[i].name, "-", "-", "-", err);
		} else {
			printf("%-10s %-12llu %-12zu %-6s %s\n", c->f->sw[i].name,
			       (unsigned long long)gen, n, te ? "on" : "off", c->f->sw[i].ctl);
		}
		if (!rc)
			free(pins);
	}
	if (c->o.json) {
		xfab_jw_close(&w, ']');
		putchar('\n');
	}
	return bad ? 1 : 0;
}

/* te-clear with a generation on every switch: every runtime pin goes. */
static int clear_all(struct ctx *c, uint64_t gen)
{
	int bad = 0;

	for (int i = 0; i < c->f->n_switches; i++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_CLEAR, .generation = gen};
		char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320];
		int rc;

		snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
		rc = request(c, i, &r, resp, sizeof(resp), field, sizeof(field), error,
			     sizeof(error));
		if (rc != 1) {
			say("%s: te-clear %s: %s%s%s", c->f->sw[i].name,
			    rc < 0 ? "no answer" : "refused", field, *field ? ": " : "", error);
			bad++;
		}
	}
	return bad;
}

static int cmd_clear(struct ctx *c)
{
	uint64_t gen = c->o.gen ? c->o.gen : next_gen(c);

	if (!gen) {
		say("no switch answers on its control socket");
		return 1;
	}
	if (clear_all(c, gen))
		return 1;
	printf("every runtime pin removed, generation %llu on %d switches\n",
	       (unsigned long long)gen, c->f->n_switches);
	return 0;
}

/* Whether every switch holds exactly the plan's pins with generation gen. */
static int audit(struct ctx *c, char *why, size_t len)
{
	for (int i = 0; i < c->f->n_switches; i++) {
		struct listed *pins;
		size_t n, want = 0;
		uint64_t gen;
		int te, ok = 1;
		char err[400];

		if (fetch(c, i, &gen, &te, &pins, &n, err, sizeof(err))) {
			snprintf(why, len, "%s does not answer: %s", c->f->sw[i].name, err);
			return 0;
		}
		if (gen != c->gen) {
			snprintf(why, len, "%s holds generation %llu, not %llu%s", c->f->sw[i].name,
				 (unsigned long long)gen, (unsigned long long)c->gen,
				 gen < c->gen ? " (xfabd restarted?)" : "");
			free(pins);
			return 0;
		}
		for (size_t k = 0; k < c->plan.n_pins; k++) {
			const struct xfab_te_pin *p = &c->plan.pins[k];
			char pfx[64], via[INET_ADDRSTRLEN];
			int found = 0;

			if (p->sw != i)
				continue;
			want++;
			pin_prefix(p, pfx, sizeof(pfx));
			inet_ntop(AF_INET, &p->via, via, sizeof(via));
			for (size_t j = 0; j < n && !found; j++)
				found = !strcmp(pins[j].in, c->f->sw[i].ports[p->in].name) &&
					!strcmp(pins[j].prefix, pfx) && !strcmp(pins[j].via, via) &&
					pins[j].gen == c->gen;
			ok &= found;
		}
		if (!ok || n != want) {
			snprintf(why, len, "%s holds %zu runtime pins, the plan %zu%s",
				 c->f->sw[i].name, n, want, ok ? "" : " (some differ)");
			free(pins);
			return 0;
		}
		free(pins);
	}
	return 1;
}

/* Applies a new plan if its pins differ from the applied one's (or when
 * forced); logs what changed. t_detect: when the change was seen. */
static void replan(struct ctx *c, const char *cause, uint64_t t_detect, int force)
{
	struct xfab_te_plan next;
	double before = c->have_plan ? c->plan.max_load : 0;
	uint64_t gen;
	int rc;

	if (compute(c, &next))
		return;
	if (c->have_plan && c->complete && !force && xfab_te_pins_equal(&next, &c->plan)) {
		xfab_te_plan_free(&c->plan);
		c->plan = next;
		event(c, "plan", -1, "%s: the same pins (max link load %.0f, was %.0f)", cause,
		      next.max_load, before);
		return;
	}
	gen = c->gen ? c->gen + 1 : next_gen(c);
	if (!gen) {
		xfab_te_plan_free(&next);
		event(c, "error", -1, "%s: no switch answers; plan not applied", cause);
		return;
	}
	if (c->have_plan)
		xfab_te_plan_free(&c->plan);
	c->plan = next;
	c->have_plan = 1;
	rc = apply_plan(c, &c->plan, gen);
	if (rc == -2) {
		c->status = "fenced";
		stop_flag = 1;
		event(
		    c, "fenced", -1,
		    "%s: plan %llu refused, a switch holds a newer generation: another controller "
		    "runs; this one stands down",
		    cause, (unsigned long long)gen);
		return;
	}
	event(c, rc ? "partial" : "apply", ms_since(t_detect),
	      "%s: plan %llu %s, %zu pins, max link load %.0f (was %.0f), computed in %.2f ms, "
	      "applied in %.1f ms",
	      cause, (unsigned long long)gen, rc ? "half applied" : "applied", c->plan.n_pins,
	      c->plan.max_load, before, c->plan_ms, c->apply_ms);
}

/* Switches that failed the last apply, tried again when due: their pins
 * with the current generation, then their sweep. */
static void retry_failed(struct ctx *c)
{
	uint64_t now = xfab_mono_ns();
	int all = 1;

	if (!c->have_plan || !c->gen)
		return;
	for (int i = 0; i < c->f->n_switches; i++) {
		struct sw_rt *s = &c->sw[i];
		int rc, k = 0;

		if (s->state == SW_OK || s->state == SW_IDLE)
			continue;
		if (now < s->next_retry_ns) {
			all = 0;
			continue;
		}
		rc = add_pins(c, i, &c->plan, c->gen);
		if (rc == 1)
			rc = sweep(c, i, c->gen, &k);
		if (rc == -2) {
			c->status = "fenced";
			stop_flag = 1;
			event(c, "fenced", -1, "%s: %s: this controller stands down",
			      c->f->sw[i].name, s->error);
			return;
		}
		if (rc == 1) {
			event(c, "retry", -1, "%s took plan %llu (%d pins, %d older removed)",
			      c->f->sw[i].name, (unsigned long long)c->gen, s->pins_added, k);
		} else {
			all = 0;
			s->next_retry_ns = now + RETRY_MS * 1000000ull;
		}
	}
	if (all && !c->complete) {
		c->complete = 1;
		event(c, "apply", -1, "plan %llu now on every switch", (unsigned long long)c->gen);
	}
}

static int cmd_run(struct ctx *c)
{
	int n_links = c->f->n_links;
	int *was_up = calloc(n_links ? (size_t)n_links : 1, sizeof(*was_up));
	uint64_t next_audit, next_jobs = 0, sig = 0, t;
	struct sigaction sa = {.sa_handler = on_signal};
	int ret = 0, n_up = 0;

	if (!was_up)
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	c->status = "running";
	if (c->o.jobs_dir)
		sig = jobs_signature(c->o.jobs_dir);
	read_links(c);
	for (int l = 0; l < n_links; l++)
		n_up += was_up[l] = xfab_te_link_up(c->f, l);
	event(c, "start", -1,
	      "%zu pairs from %d job(s) and %d matrix file(s)%s%s, %d of %d links up, poll "
	      "every %d ms, audit every %.0f s",
	      c->dm.n, c->n_job_names, c->o.n_matrices, c->o.jobs_dir ? ", jobs in " : "",
	      c->o.jobs_dir ? c->o.jobs_dir : "", n_up, n_links, c->o.poll_ms, c->o.interval);
	replan(c, "start", xfab_mono_ns(), 1);
	write_status(c);
	next_audit = xfab_mono_ns() + (uint64_t)(c->o.interval * 1e9);
	while (!stop_flag) {
		char what[1024] = "", why[512];
		size_t o = 0;
		int changed = 0, force = 0;
		struct timespec ts = {0, (long)c->o.poll_ms * 1000000L};

		nanosleep(&ts, NULL); /* a signal cuts it short */
		if (stop_flag)
			break;
		/* links */
		read_links(c);
		t = xfab_mono_ns();
		for (int l = 0; l < n_links; l++) {
			int up = xfab_te_link_up(c->f, l);
			char name[96];

			if (up == was_up[l])
				continue;
			was_up[l] = up;
			changed = 1;
			link_name(c->f, l, name, sizeof(name));
			if (o < sizeof(what) - 1)
				o += (size_t)snprintf(what + o, sizeof(what) - o, "%slink %s %s",
						      o ? ", " : "", name, up ? "up" : "down");
		}
		/* the demand: --jobs DIR changed, or SIGHUP (every file again) */
		if (hup_flag || (c->o.jobs_dir && t >= next_jobs)) {
			uint64_t now_sig = c->o.jobs_dir ? jobs_signature(c->o.jobs_dir) : sig;

			next_jobs = t + JOBS_CHECK_MS * 1000000ull;
			if (now_sig != sig || hup_flag) {
				struct xfab_te_demands dm;
				char err[512];

				sig = now_sig;
				if (load_demand(c, &dm, 1, err, sizeof(err))) {
					event(c, "error", -1,
					      "jobs: %s (the plan keeps the old demand)", err);
				} else {
					xfab_te_demands_free(&c->dm);
					c->dm = dm;
					changed = 1;
					if (o < sizeof(what) - 1) /* the last cause */
						snprintf(what + o, sizeof(what) - o,
							 "%s%s: %zu pairs from %d job(s)",
							 o ? ", " : "",
							 hup_flag ? "SIGHUP, demand read again"
								  : "jobs changed",
							 c->dm.n, c->n_job_names);
				}
			}
		}
		hup_flag = 0;
		/* the periodic check of what the switches hold */
		if (!changed && t >= next_audit) {
			next_audit = t + (uint64_t)(c->o.interval * 1e9);
			if (c->have_plan && c->complete && !audit(c, why, sizeof(why))) {
				changed = force = 1;
				snprintf(what, sizeof(what), "audit: %s", why);
			}
		}
		if (changed) {
			replan(c, what, t, force);
			write_status(c);
			continue;
		}
		if (!c->complete) {
			retry_failed(c);
			write_status(c);
		}
	}
	if (strcmp(c->status, "fenced"))
		c->status = "stopped";
	if (c->o.clear_on_exit && c->gen && strcmp(c->status, "fenced")) {
		int bad = clear_all(c, c->gen);

		event(c, "stop", -1, "stopped: --clear-on-exit: pins removed%s",
		      bad ? " (not on every switch: see above)" : " on every switch");
		ret = bad ? 1 : 0;
	} else {
		event(c, "stop", -1, "stopped; the switches keep plan %llu's pins",
		      (unsigned long long)c->gen);
	}
	if (!strcmp(c->status, "fenced"))
		ret = 3;
	write_status(c);
	free(was_up);
	return ret;
}

/* ---- main ---- */

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: xfab-te plan   --fabric FILE (--job FILE | --matrix FILE)... [--down "
	    "SW:PORT]...\n"
	    "                      [--live] [-j]\n"
	    "       xfab-te apply  --fabric FILE (--job FILE | --matrix FILE)... [--down "
	    "SW:PORT]...\n"
	    "                      [--gen N] [-j]\n"
	    "       xfab-te run    --fabric FILE [--job FILE | --matrix FILE]... [--jobs DIR]\n"
	    "                      [--interval S] [--poll-ms MS] [--json FILE] [--clear-on-exit]\n"
	    "       xfab-te status --fabric FILE [-j]\n"
	    "       xfab-te clear  --fabric FILE [--gen N]\n"
	    "  --fabric FILE   xfab-lab's fabric.json (/run/xfab-lab/LAB/fabric.json)\n"
	    "  --job FILE      a collective job (docs/TOOLS.md): its connections' bytes\n"
	    "  --matrix FILE   [{\"src\": HOST, \"dst\": HOST, \"bytes\": N}, ...]\n"
	    "  --jobs DIR      run: every DIR/*.json job, read again when DIR changes or on "
	    "SIGHUP\n"
	    "  --down SW:PORT  take that link as down (plan, apply)\n"
	    "  --live          plan: the links' states from the switches' data planes\n"
	    "  --gen N         the plan's generation (default: above every switch's)\n"
	    "  --interval S    run: how often the switches' pins are checked against the plan\n"
	    "                  (1..3600, default 30)\n"
	    "  --poll-ms MS    run: how often link state is read (20..2000, default 100)\n"
	    "  --json FILE     run: the status (plan, generation, switches, events) as JSON\n"
	    "  --clear-on-exit run: remove every pin on SIGTERM (default: leave them)\n"
	    "  -j              JSON output\n");
}

static int num_arg(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"fabric", required_argument, NULL, 'f'},
	    {"job", required_argument, NULL, 'J'},
	    {"matrix", required_argument, NULL, 'm'},
	    {"jobs", required_argument, NULL, 'D'},
	    {"down", required_argument, NULL, 'd'},
	    {"live", no_argument, NULL, 'l'},
	    {"gen", required_argument, NULL, 'g'},
	    {"interval", required_argument, NULL, 'i'},
	    {"poll-ms", required_argument, NULL, 'p'},
	    {"json", required_argument, NULL, 's'},
	    {"clear-on-exit", no_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct ctx ctx; /* one per process; large (the events) */
	struct ctx *c = &ctx;
	char err[600], *text;
	double v;
	int opt, ret;

	c->o.interval = 30;
	c->o.poll_ms = 100;
	c->status = "running";
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	c->o.cmd = argv[1];
	if (strcmp(c->o.cmd, "plan") && strcmp(c->o.cmd, "apply") && strcmp(c->o.cmd, "run") &&
	    strcmp(c->o.cmd, "status") && strcmp(c->o.cmd, "clear")) {
		fprintf(stderr, "xfab-te: unknown command '%s' (plan, apply, run, status, clear)\n",
			c->o.cmd);
		return 2;
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			c->o.fabric = optarg;
			break;
		case 'J':
		case 'm':
		case 'd': {
			const char **list = opt == 'J'	 ? c->o.jobs
					    : opt == 'm' ? c->o.matrices
							 : c->o.down;
			int *n = opt == 'J'   ? &c->o.n_jobs
				 : opt == 'm' ? &c->o.n_matrices
					      : &c->o.n_down;

			if (*n == MAX_INPUTS) {
				fprintf(stderr, "xfab-te: --%s: at most %d\n",
					opt == 'J'   ? "job"
					: opt == 'm' ? "matrix"
						     : "down",
					MAX_INPUTS);
				return 2;
			}
			list[(*n)++] = optarg;
			break;
		}
		case 'D':
			c->o.jobs_dir = optarg;
			break;
		case 'l':
			c->o.live = 1;
			break;
		case 'g':
			if (xfab_ctl_parse_gen(optarg, &c->o.gen)) {
				fprintf(stderr, "xfab-te: --gen: must be 1..%llu\n",
					(unsigned long long)UINT64_MAX);
				return 2;
			}
			break;
		case 'i':
			if (num_arg(optarg, 1, 3600, &c->o.interval)) {
				fprintf(stderr, "xfab-te: --interval: must be 1..3600 seconds\n");
				return 2;
			}
			break;
		case 'p':
			if (num_arg(optarg, 20, 2000, &v) || v != (int)v) {
				fprintf(stderr,
					"xfab-te: --poll-ms: must be 20..2000 milliseconds\n");
				return 2;
			}
			c->o.poll_ms = (int)v;
			break;
		case 's':
			c->o.status_path = optarg;
			break;
		case 'c':
			c->o.clear_on_exit = 1;
			break;
		case 'j':
			c->o.json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "xfab-te: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!c->o.fabric) {
		fprintf(stderr, "xfab-te %s: --fabric FILE is required\n", c->o.cmd);
		return 2;
	}
	if ((!strcmp(c->o.cmd, "plan") || !strcmp(c->o.cmd, "apply")) && !c->o.n_jobs &&
	    !c->o.n_matrices) {
		fprintf(stderr, "xfab-te %s: give the demand: --job FILE or --matrix FILE\n",
			c->o.cmd);
		return 2;
	}
	if (strcmp(c->o.cmd, "run") && (c->o.jobs_dir || c->o.status_path || c->o.clear_on_exit)) {
		fprintf(stderr, "xfab-te %s: --jobs, --json and --clear-on-exit are for run\n",
			c->o.cmd);
		return 2;
	}
	if (c->o.gen && strcmp(c->o.cmd, "apply") && strcmp(c->o.cmd, "clear")) {
		fprintf(stderr, "xfab-te %s: --gen is for apply and clear\n", c->o.cmd);
		return 2;
	}
	if (c->o.n_down && strcmp(c->o.cmd, "plan") && strcmp(c->o.cmd, "apply")) {
		fprintf(stderr, "xfab-te %s: --down is for plan and apply\n", c->o.cmd);
		return 2;
	}
	if (!strcmp(c->o.cmd, "run") && !c->o.n_jobs && !c->o.n_matrices && !c->o.jobs_dir) {
		fprintf(stderr, "xfab-te run: give the demand: --job, --matrix or --jobs DIR\n");
		return 2;
	}
	text = xfab_read_text(c->o.fabric, MAX_FILE_MIB, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "xfab-te: --fabric %s\n", err);
		return 1;
	}
	{
		char inner[512];

		c->f = xfab_te_fabric_parse(text, inner, sizeof(inner));
		free(text);
		if (!c->f) {
			fprintf(stderr, "xfab-te: %s:%s\n", c->o.fabric, inner);
			return 1;
		}
	}
	c->sw = calloc((size_t)c->f->n_switches, sizeof(*c->sw));
	if (!c->sw)
		return 1;
	for (int i = 0; i < c->f->n_switches; i++) {
		c->sw[i].fd = c->sw[i].ports_fd = -1;
		c->sw[i].ifindex = calloc((size_t)c->f->sw[i].n_ports + 1, sizeof(__u32));
		if (!c->sw[i].ifindex)
			return 1;
	}
	if (apply_down(c, err, sizeof(err))) {
		fprintf(stderr, "xfab-te: %s\n", err);
		return 2;
	}
	if (strcmp(c->o.cmd, "status") && strcmp(c->o.cmd, "clear") &&
	    load_demand(c, &c->dm, 0, err, sizeof(err))) {
		fprintf(stderr, "xfab-te: %s\n", err);
		return 1;
	}
	if (!strcmp(c->o.cmd, "plan"))
		ret = cmd_plan(c);
	else if (!strcmp(c->o.cmd, "apply"))
		ret = cmd_apply(c);
	else if (!strcmp(c->o.cmd, "status"))
		ret = cmd_status(c);
	else if (!strcmp(c->o.cmd, "clear"))
		ret = cmd_clear(c);
	else
		ret = cmd_run(c);
	for (int i = 0; i < c->f->n_switches; i++) {
		ctl_close(&c->sw[i]);
		dp_close(&c->sw[i]);
		free(c->sw[i].ifindex);
	}
	if (c->have_plan)
		xfab_te_plan_free(&c->plan);
	xfab_te_demands_free(&c->dm);
	free(c->flows);
	free(c->sw);
	xfab_te_fabric_free(c->f);
	return ret;
}
