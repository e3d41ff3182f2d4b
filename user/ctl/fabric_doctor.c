// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric doctor (--fabric FILE | --lab NAME) [--window S]
 *     [--threshold PCT] [--min-frames K] [--watch N] [--job FILE] [--drain]
 *     [--svg FILE]
 * xfabctl fabric doctor (--fabric FILE | --lab NAME) --undrain [--link SW:PORT]
 *
 * Which links lose or damage frames (docs/DEBUGGING.md "fabric doctor"):
 * every switch's counters read, a window waited, read again
 * (fabric_collect.c; each link's two ends in an order that keeps the skew
 * between them from looking like loss), the difference judged by the
 * library (fabdoctor.h: sent vs received, damage drops, the rule, the
 * ranking). --watch N reads again every window, up to N times, judging
 * everything since the first read, until a suspect is named.
 * --job names the job's QPs whose paths (as each switch's loaded program
 * decides, fabric_trace.c) leave by a suspect port. --drain sends
 * port-drain to both ends of each suspect link (the operator's move,
 * automated: the link leaves every group, xfabd counts it); --undrain
 * returns them. --svg draws the window with the suspects marked. Exit: 0
 * no suspect, 1 suspects, 2 usage, 3 the fabric could not be read, an end
 * could not be drained or the drawing could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "ctlproto.h"
#include "fabric_doctor.h"
#include "json.h"

#define DOC_WINDOW_DEFAULT 2.0
#define RC_SUSPECTS 1
#define RC_USAGE 2
#define RC_UNREADABLE 3
#define DOC_REASON_MAX 64 /* what xfabd takes of a drain's reason */

static int usage(const char *msg)
{
	fprintf(stderr, "xfabctl fabric doctor: %s\n", msg);
	return RC_USAGE;
}

static int check_opts(const struct ctl_opts *o)
{
	if (o->undrain && (o->drain || o->job || o->watch || o->window || o->threshold_set ||
			   o->min_frames_set || o->svg))
		return usage("--undrain returns drained links and takes only --link: no "
			     "--drain, --job, --watch, --window, --threshold, --min-frames or "
			     "--svg");
	if (o->link && !o->undrain)
		return usage("--link names the link --undrain returns; the doctor itself looks "
			     "at every link");
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The counters now: everything, then each link's ends in order. */
static int read_counters(struct fab_doctor *d, struct xfab_fab_snap *s, int closing)
{
	char err[512];

	if (ctl_fab_collect(&d->r.f, d->r.pm, s, err, sizeof(err)) ||
	    ctl_fab_collect_links(&d->r.f, d->r.pm, s, closing ? d->queued : NULL, err,
				  sizeof(err))) {
		fprintf(stderr, "xfabctl fabric doctor: %s\n", err);
		return RC_UNREADABLE;
	}
	return 0;
}

/* One read at the start, then one every window_s: each round judges
 * everything since the start (evidence accumulates: a link carrying little
 * traffic reaches the floor in a longer window), until one names a suspect
 * or max_rounds are done. */
static int rounds(struct fab_doctor *d)
{
	int rc = read_counters(d, &d->before, 0);

	if (rc)
		return rc;
	for (d->rounds = 1;; d->rounds++) {
		sleep_s(d->window_s);
		rc = read_counters(d, &d->after, 1);
		if (rc)
			return rc;
		xfab_doc_result_free(&d->res);
		if (xfab_doc_analyse(&d->r.f, &d->before, &d->after, d->queued, &d->o, &d->res)) {
			fprintf(stderr, "xfabctl fabric doctor: out of memory\n");
			return RC_UNREADABLE;
		}
		d->elapsed_s = d->res.window_s;
		if (d->res.n_suspects || d->rounds >= d->max_rounds)
			break;
	}
	if (d->res.resets)
		fprintf(
		    stderr,
		    "xfabctl fabric doctor: %u counters went back in the window (cleared, or made "
		    "anew): their whole value is counted; first: %s\n",
		    d->res.resets, d->res.reset_note);
	return 0;
}

/* ---- the job ---- */

static int trace_job(struct fab_doctor *d, const char *path)
{
	char err[512];

	d->r.job_path = path;
	if (xfab_job_load(path, &d->r.job, err, sizeof(err))) {
		fprintf(stderr, "xfabctl fabric doctor: --job %s\n", err);
		return RC_USAGE;
	}
	if (ctl_fab_report_arrays(&d->r)) {
		fprintf(stderr, "xfabctl fabric doctor: out of memory\n");
		return RC_UNREADABLE;
	}
	return ctl_fab_job_paths(&d->r) == 2 ? RC_USAGE : 0;
}

/* ---- drains: requests to each end's xfabd ---- */

/* {"cmd":"port-drain","port":P,"reason":R} (R NULL: port-undrain) to sw's
 * xfabd; the answer in x. 0, or -1 (said why). */
static int port_request(const struct fab_doctor *d, struct doc_drain *x, const char *reason)
{
	const struct xfab_fab_switch *sw = &d->r.f.switches[x->sw];
	char line[XFAB_CTL_MAX_LINE + 1], port[64], why[600], resp[XFAB_CTL_MAX_LINE + 1];
	char jerr[128];
	struct json_pos pos;
	struct json_value *doc;
	const struct json_value *v;
	int n;

	if (xfab_ctl_json_string(port, sizeof(port), sw->ports[x->port].name) < 0 ||
	    (reason && xfab_ctl_json_string(why, sizeof(why), reason) < 0))
		return -1;
	if (reason)
		n = snprintf(line, sizeof(line),
			     "{\"cmd\":\"port-drain\",\"port\":%s,\"reason\":%s}\n", port, why);
	else
		n = snprintf(line, sizeof(line), "{\"cmd\":\"port-undrain\",\"port\":%s}\n", port);
	if (n < 0 || (size_t)n >= sizeof(line) || !sw->ctl[0]) {
		fprintf(stderr, "xfabctl fabric doctor: %s: %s\n", sw->name,
			sw->ctl[0] ? "the request is too long" : "no control socket in the fabric");
		return -1;
	}
	if (ctl_query_line(sw->ctl, line, (size_t)n, "fabric doctor", resp, sizeof(resp)))
		return -1;
	doc = xfab_json_parse(resp, jerr, sizeof(jerr), &pos);
	v = doc ? xfab_json_get(doc, "drained") : NULL;
	x->ok = 1;
	x->drained = v && v->type == JSON_BOOL && v->boolean;
	xfab_json_free(doc);
	return 0;
}

static int add_drain(struct fab_doctor *d, int sw, int port)
{
	for (unsigned int i = 0; i < d->n_drains; i++)
		if (d->drains[i].sw == sw && d->drains[i].port == port)
			return -1; /* already: the other direction of a link */
	if (d->n_drains >= DOC_MAX_DRAINS)
		return -1;
	d->drains[d->n_drains].sw = sw;
	d->drains[d->n_drains].port = port;
	return (int)d->n_drains++;
}

/* Both ends of each suspect link, the evidence as the reason. */
static int drain_suspects(struct fab_doctor *d)
{
	int rc = 0;

	for (unsigned int i = 0; i < d->res.n_suspects; i++) {
		const struct xfab_doc_dir *x = &d->res.dirs[d->res.ranked[i]];
		int ends[2][2] = {{x->tx_sw, x->tx_port}, {x->rx_sw, x->rx_port}};
		const struct xfab_fab_switch *ts = &d->r.f.switches[x->tx_sw];
		const struct xfab_fab_switch *rs = &d->r.f.switches[x->rx_sw];
		char reason[DOC_REASON_MAX + 1];

		/* xfabd keeps a short reason (64 bytes): the rate and the
		 * direction; the whole evidence is in this command's output */
		snprintf(reason, sizeof(reason), "fabric doctor: %.2f %% bad %s:%s>%s:%s",
			 100 * x->rate, ts->name, ts->ports[x->tx_port].name, rs->name,
			 rs->ports[x->rx_port].name);
		for (int e = 0; e < 2; e++) {
			int k = add_drain(d, ends[e][0], ends[e][1]);

			if (k >= 0 && port_request(d, &d->drains[k], reason))
				rc = RC_UNREADABLE;
		}
	}
	return rc;
}

/* --undrain: the ends of --link's link, or every switch-to-switch port. */
static int undrain(struct fab_doctor *d, const char *link)
{
	const struct xfab_fabric *f = &d->r.f;
	int rc = 0, want = -1;

	if (link) {
		char name[64];
		const char *colon = strchr(link, ':');
		int s, p;

		snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - link) : 0, link);
		s = colon ? xfab_fab_switch_find(f, name) : -1;
		p = s >= 0 ? xfab_fab_port_find(&f->switches[s], colon + 1) : -1;
		if (p < 0 || f->switches[s].ports[p].peer_sw < 0) {
			fprintf(stderr,
				"xfabctl fabric doctor: --link %s: no switch-to-switch port of "
				"fabric %s (SW:PORT, as leaf1:eth1)\n",
				link, f->name);
			return RC_USAGE;
		}
		want = f->switches[s].ports[p].link;
	}
	for (unsigned int l = 0; l < f->n_links; l++) {
		const struct xfab_fab_link *ln = &f->links[l];
		int ends[2][2] = {{ln->lower, ln->lower_port}, {ln->upper, ln->upper_port}};

		if (ln->lower < 0 || (want >= 0 && (int)l != want))
			continue;
		for (int e = 0; e < 2; e++) {
			int k = add_drain(d, ends[e][0], ends[e][1]);

			if (k >= 0 && port_request(d, &d->drains[k], NULL))
				rc = RC_UNREADABLE;
		}
	}
	ctl_doc_undrain_out(d);
	return rc;
}

/* ---- --svg ---- */

/* The window's counters drawn (fabric_svg.c), each suspect link marked at
 * its receiving end with the doctor's reason, the job's paths overlaid
 * when --job traced them. */
static int draw(struct fab_doctor *d, const char *path)
{
	static char why[DOC_MAX_DRAINS][512];
	struct fab_svg_mark marks[DOC_MAX_DRAINS];
	unsigned int n = 0;
	char note[200];

	if ((!d->r.cur.sw && xfab_fab_snap_init(&d->r.cur, &d->r.f)) ||
	    ctl_fab_report_arrays(&d->r)) {
		fprintf(stderr, "xfabctl fabric doctor: out of memory\n");
		return RC_UNREADABLE;
	}
	memcpy(d->r.cur.sw, d->after.sw, d->r.f.n_switches * sizeof(*d->r.cur.sw));
	d->r.cur.time = d->after.time;
	xfab_fab_snap_delta(&d->r.cur, &d->before, &d->r.f, note, sizeof(note));
	d->r.since = "the doctor's first read";
	d->r.since_s = d->elapsed_s;
	ctl_fab_link_figures(&d->r);
	for (unsigned int i = 0; i < d->res.n_suspects && n < DOC_MAX_DRAINS; i++, n++) {
		const struct xfab_doc_dir *x = &d->res.dirs[d->res.ranked[i]];

		xfab_doc_why(&d->r.f, x, why[n], sizeof(why[n]));
		marks[n] =
		    (struct fab_svg_mark){(unsigned int)x->rx_sw, (unsigned int)x->rx_port, why[n]};
	}
	return ctl_fab_svg_write(&d->r, marks, n, path) ? RC_UNREADABLE : 0;
}

/* ---- the command ---- */

static int doctor_run(const struct ctl_opts *o, struct fab_doctor *d)
{
	int rc = ctl_fab_load(o, &d->r.f, "fabric doctor");

	d->r.what = "fabric doctor";
	if (rc)
		return rc == 1 ? RC_UNREADABLE : rc;
	if (o->undrain)
		return undrain(d, o->link);
	d->window_s = o->window ? o->window : DOC_WINDOW_DEFAULT;
	d->o.threshold = o->threshold_set ? o->threshold / 100 : XFAB_DOC_THRESHOLD_DEFAULT;
	d->o.min_bad = o->min_frames_set ? (uint64_t)o->min_frames : XFAB_DOC_MIN_BAD_DEFAULT;
	d->max_rounds = o->watch ? (unsigned int)o->watch : 1;
	d->drain = o->drain;
	d->r.pm = calloc(d->r.f.n_switches, sizeof(*d->r.pm));
	d->queued = calloc((size_t)d->r.f.n_switches * XFAB_FAB_MAX_PORTS, sizeof(uint64_t));
	if (!d->r.pm || !d->queued || xfab_fab_snap_init(&d->before, &d->r.f) ||
	    xfab_fab_snap_init(&d->after, &d->r.f)) {
		fprintf(stderr, "xfabctl fabric doctor: out of memory\n");
		return RC_UNREADABLE;
	}
	if ((rc = rounds(d)))
		return rc;
	if (o->job && (rc = trace_job(d, o->job)))
		return rc;
	if (d->drain && (rc = drain_suspects(d)))
		return rc;
	if (o->svg && (rc = draw(d, o->svg)))
		return rc;
	if (ctl_json)
		ctl_doc_json(d);
	else
		ctl_doc_text(d);
	return d->res.n_suspects ? RC_SUSPECTS : 0;
}

int ctl_cmd_fabric_doctor(const struct ctl_opts *o)
{
	struct fab_doctor *d;
	int rc = check_opts(o);

	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "xfabctl fabric doctor: out of memory\n");
		return RC_UNREADABLE;
	}
	rc = doctor_run(o, d);
	xfab_doc_result_free(&d->res);
	xfab_fab_snap_free(&d->before);
	xfab_fab_snap_free(&d->after);
	free(d->queued);
	ctl_fab_report_free(&d->r);
	free(d);
	return rc;
}
