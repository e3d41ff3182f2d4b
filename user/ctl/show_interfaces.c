// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show interfaces damping: link event damping per port (docs/OPERATIONS.md,
 * "Flapping links"), and show interfaces status: each port's state and
 * drain ("Draining a port"), asked of xfabd page by page (damping-status:
 * the dampers and drains live in the agent, not in a map). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "ctlproto.h"
#include "json.h"

/* A field's text ("-" when absent). */
static const char *dfield(const struct json_value *o, const char *k)
{
	const struct json_value *v = xfab_json_get(o, k);

	if (!v)
		return "-";
	if (v->type == JSON_BOOL)
		return v->boolean ? "true" : "false";
	return v->str ? v->str : "?";
}

static void damping_row_json(const struct json_value *o)
{
	ctl_jw_open(NULL, '{');
	for (size_t i = 0; i < o->count; i++) {
		const struct json_value *v = &o->children[i];

		if (v->type == JSON_BOOL)
			ctl_jw_bool(v->key, v->boolean);
		else if (v->type == JSON_STRING)
			ctl_jw_string(v->key, v->str);
		else
			ctl_jw_double(v->key, strtod(v->str, NULL));
	}
	ctl_jw_close('}');
}

/* "12.3 s" from a count of ms, for the last column. */
static void damping_secs(char *buf, size_t len, const char *ms)
{
	snprintf(buf, len, "%.1f s", strtod(ms, NULL) / 1000);
}

static void damping_row(const struct json_value *o)
{
	char since[32], reuse[32], when[80];

	if (strcmp(dfield(o, "algorithm"), "aied")) {
		printf("%-12s %-9s\n", dfield(o, "port"), dfield(o, "algorithm"));
		return;
	}
	snprintf(when, sizeof(when), "-");
	if (!strcmp(dfield(o, "suppressed"), "true")) {
		damping_secs(since, sizeof(since), dfield(o, "suppressed_ms"));
		damping_secs(reuse, sizeof(reuse), dfield(o, "reuse_in_ms"));
		snprintf(when, sizeof(when), "%s / %s", since, reuse);
	}
	printf("%-12s %-9s %-7s %-8s %-7s %-11s %-13s %-9s %-5s %-10s %s\n", dfield(o, "port"),
	       "aied", dfield(o, "flap_penalty"), dfield(o, "suppress_threshold"),
	       dfield(o, "reuse_threshold"), dfield(o, "decay_half_life"),
	       dfield(o, "max_suppress_time"), dfield(o, "penalty"), dfield(o, "link"),
	       strcmp(dfield(o, "suppressed"), "true") ? dfield(o, "state") : "suppressed", when);
}

/* One page: each port's row printed by row; the next page's start, 0 at
 * the end, -1 on an answer without ports. */
static long damping_page(const char *resp, void (*row)(const struct json_value *o))
{
	char err[128];
	struct json_pos pos;
	struct json_value *root = xfab_json_parse(resp, err, sizeof(err), &pos);
	const struct json_value *ports = root ? xfab_json_get(root, "ports") : NULL, *next;
	long n = 0;

	if (!ports || ports->type != JSON_ARRAY) {
		fprintf(stderr, "xfabctl show interfaces: xfabd's answer has no ports: %s", resp);
		xfab_json_free(root);
		return -1;
	}
	for (size_t i = 0; i < ports->count; i++)
		row(&ports->children[i]);
	next = xfab_json_get(root, "next");
	if (next && next->str)
		n = strtol(next->str, NULL, 10);
	xfab_json_free(root);
	return n;
}

/* Every port's damping-status object through row (JSON: through
 * damping_row_json, in {"ports":[...]}). */
static int interfaces_each(void (*row)(const struct json_value *o), const char *what)
{
	char resp[XFAB_CTL_MAX_LINE + 1];
	long from = 0;

	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_open("ports", '[');
		row = damping_row_json;
	}
	/* a page holds at least one port: at most as many pages as ports */
	for (int page = 0; page <= XFAB_MAX_PORTS; page++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_DAMPING_STATUS};
		long next;

		r.from_index = (uint32_t)from;
		snprintf(r.from, sizeof(r.from), "%ld", from);
		if (ctl_query(&r, what, resp, sizeof(resp)))
			return 1; /* ctl_query said why */
		next = damping_page(resp, row);
		if (next < 0 || (next && next <= from))
			return 1;
		if (!next)
			break;
		from = next;
	}
	if (ctl_json) {
		ctl_jw_close(']');
		ctl_jw_close('}');
		ctl_jw_end();
	}
	return 0;
}

static int show_damping(void)
{
	if (!ctl_json) {
		printf("%-12s %-9s %-7s %-8s %-7s %-11s %-13s %-9s %-5s %-10s %s\n", "Interface",
		       "Algorithm", "Flap", "Suppress", "Reuse", "Half-life", "Max suppress",
		       "Penalty", "Link", "State", "Suppressed for / reuse in");
		printf("%-12s %-9s %-7s %-8s %-7s %-11s %-13s %-9s %-5s %-10s %s\n", "", "",
		       "penalty", "", "", "(ms)", "(ms)", "(now)", "", "", "");
	}
	return interfaces_each(damping_row, "show interfaces damping");
}

/* show interfaces status: a port's state as xfabd acts on it, and its drain. */
static void status_row(const struct json_value *o)
{
	int drained = !strcmp(dfield(o, "drained"), "true");
	char since[32] = "-";

	if (drained) {
		time_t t = (time_t)strtoll(dfield(o, "drained_since"), NULL, 10);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S", &tm);
	}
	printf("%-12s %-5s %-10s %-7s %-19s %-6s %s\n", dfield(o, "port"), dfield(o, "oper"),
	       !strcmp(dfield(o, "suppressed"), "true") ? "suppressed" : "-",
	       drained ? "drained" : "-", since, dfield(o, "drains"),
	       drained && *dfield(o, "drain_reason") ? dfield(o, "drain_reason") : "-");
}

static int show_status(void)
{
	if (!ctl_json)
		printf("%-12s %-5s %-10s %-7s %-19s %-6s %s\n", "Interface", "Oper", "Damping",
		       "Drain", "Drained since (UTC)", "Drains", "Reason");
	return interfaces_each(status_row, "show interfaces status");
}

static const struct ctl_cmd show_interfaces_cmds[] = {
    {"status", NULL, show_status, NULL,
     "per port: state as xfabd acts on it, damping, drained (since, why, how often) (xfabd)"},
    {"damping", NULL, show_damping, NULL,
     "link event damping per port: parameters, penalty now, state, reuse time (xfabd)"},
    {NULL},
};

CTL_SHOW(show_interfaces_obj, "damping", 175, "interfaces", .sub = show_interfaces_cmds,
	 .help = "interfaces: status (drains), damping (link event damping, SONiC's PORT fields)")
