// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus text exposition xfabd serves (user/agent/metrics.c), read
 * by a parser of the format's rules written here (promtool's, as
 * docs/OPERATIONS.md states them): every sample's family has one HELP and
 * one TYPE line before its first sample, a family's samples come together
 * (none after another family started), one label set per family, `switch`
 * first in it, counters and only counters named *_total, values numbers,
 * the TYPE one of counter and gauge; and the series of a switch of 3 ports
 * with the kernel-FIB mirror on are all there (ports x classes,
 * ports x priorities), from no maps (every value 0), and the damping
 * series of its one damped port.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

#define MAX_FAM 128

struct fam {
	char name[96];
	int help, type, counter, samples;
	char labels[160]; /* the label names of its first sample, comma-joined */
};

static struct fam fams[MAX_FAM];
static int n_fams;

static struct fam *fam_get(const char *name, int add)
{
	for (int i = 0; i < n_fams; i++)
		if (!strcmp(fams[i].name, name))
			return &fams[i];
	if (!add || n_fams == MAX_FAM)
		return NULL;
	memset(&fams[n_fams], 0, sizeof(fams[n_fams]));
	snprintf(fams[n_fams].name, sizeof(fams[n_fams].name), "%s", name);
	return &fams[n_fams++];
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The label names of "{a=\"x\",b=\"y\"}" as "a,b"; -1 if malformed. */
static int label_names(const char *p, const char *end, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	while (p < end) {
		const char *eq = memchr(p, '=', (size_t)(end - p));

		if (!eq || eq[1] != '"')
			return -1;
		if (o + (size_t)(eq - p) + 2 >= len)
			return -1;
		if (o)
			out[o++] = ',';
		memcpy(out + o, p, (size_t)(eq - p));
		o += (size_t)(eq - p);
		out[o] = '\0';
		p = strchr(eq + 2, '"'); /* values hold no quote */
		if (!p || p >= end)
			return -1;
		p++;
		if (p < end && *p == ',')
			p++;
	}
	return 0;
}

/* Parses the exposition; fails the test at the first broken rule. */
static void parse(char *text)
{
	char cur[96] = "";
	char *save = NULL;

	n_fams = 0;
	for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char name[96], kind[16];
		struct fam *f;

		if (!strncmp(ln, "# HELP ", 7) || !strncmp(ln, "# TYPE ", 7)) {
			int is_type = ln[2] == 'T';

			assert_int_equal(sscanf(ln + 7, "%95s %15s", name, kind), 2);
			f = fam_get(name, 1);
			assert_non_null(f);
			/* a family is described once, before its samples */
			if (is_type ? f->type++ : f->help++)
				fail_msg("%s: a second %s line", name, is_type ? "TYPE" : "HELP");
			assert_int_equal(f->samples, 0);
			if (is_type) {
				if (strcmp(kind, "counter") && strcmp(kind, "gauge"))
					fail_msg("%s: TYPE %s", name, kind);
				f->counter = !strcmp(kind, "counter");
			}
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		{
			const char *brace = strchr(ln, '{'), *close = strchr(ln, '}');
			char labels[160], *endv;
			size_t nl;

			assert_non_null(brace);
			assert_non_null(close);
			nl = (size_t)(brace - ln);
			assert_true(nl < sizeof(name));
			memcpy(name, ln, nl);
			name[nl] = '\0';
			f = fam_get(name, 0);
			if (!f || !f->help || !f->type)
				fail_msg("%s: a sample before its HELP and TYPE", name);
			if (strcmp(name, cur))
				fail_msg("%s: a sample away from its family (in %s's)", name, cur);
			if (label_names(brace + 1, close, labels, sizeof(labels)))
				fail_msg("%s: malformed labels", ln);
			if (!f->samples)
				snprintf(f->labels, sizeof(f->labels), "%s", labels);
			else if (strcmp(f->labels, labels))
				fail_msg("%s: labels %s, then %s", name, f->labels, labels);
			if (strncmp(labels, "switch", 6))
				fail_msg("%s: labels %s do not start with switch", name, labels);
			assert_int_equal(close[1], ' ');
			strtod(close + 2, &endv);
			if (endv == close + 2 || *endv)
				fail_msg("%s: value %s", name, close + 2);
			f->samples++;
		}
	}
}

static struct xfab_fib_status fib;
static struct xfab_damping_pub damping;
static struct xfab_metrics_src src;

/* eth2 damped (SONiC's HLD example config) and suppressed by two flaps;
 * eth1 and eth3 without damping: no series */
static void damping_setup(void)
{
	static const struct xfab_damp_cfg on = {XFAB_DAMP_AIED, 30000, 15000, 1600, 1200, 1000};
	static const struct xfab_damp_cfg off = {0};

	memset(&damping, 0, sizeof(damping));
	pthread_mutex_init(&damping.lock, NULL);
	damping.n_ports = 3;
	for (int p = 0; p < 3; p++) {
		snprintf(damping.names[p], sizeof(damping.names[p]), "eth%d", p + 1);
		xfab_damp_init(&damping.d[p], p == 1 ? &on : &off, 1, 0);
	}
	for (int i = 0; i < 2; i++) {
		xfab_damp_event(&damping.d[1], 0, (__u64)i * 1000);
		xfab_damp_event(&damping.d[1], 1, (__u64)i * 1000 + 500);
	}
	assert_true(damping.d[1].suppressed);
	/* eth3 drained, twice so far (drain.c) */
	damping.drained[2] = 1;
	damping.drains_total[2] = 2;
}

static char *write_exposition(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	memset(&src, 0, sizeof(src));
	snprintf(src.hostname, sizeof(src.hostname), "leaf1");
	src.n_ports = 3;
	for (int p = 0; p < 3; p++)
		snprintf(src.port_names[p], sizeof(src.port_names[p]), "eth%d", p + 1);
	src.map_fd = NULL; /* no maps: every counter reads 0 */
	pthread_mutex_init(&fib.lock, NULL);
	fib.enabled = 1;
	fib.routes = 10;
	src.fib = &fib;
	damping_setup();
	src.damping = &damping;
	agent_metrics_write(&src, f);
	fclose(f);
	return buf;
}

static void test_format_rules(void **state)
{
	char *buf = write_exposition();

	(void)state;
	parse(buf);
	for (int i = 0; i < n_fams; i++) {
		/* counters and only counters end in _total */
		if (fams[i].counter != ends_with(fams[i].name, "_total"))
			fail_msg("%s: TYPE %s", fams[i].name,
				 fams[i].counter ? "counter" : "gauge");
		assert_int_equal(fams[i].help, 1);
		assert_int_equal(fams[i].type, 1);
	}
	free(buf);
}

static void test_series_present(void **state)
{
	static const struct {
		const char *name, *labels;
		int samples; /* 3 ports x 8 classes, x 8 priorities, ... */
	} want[] = {
	    {"xfab_port_rx_packets_total", "switch,port", 3},
	    {"xfab_port_tx_bytes_total", "switch,port", 3},
	    {"xfab_port_drops_total", "switch,port", 3},
	    {"xfab_queue_packets_total", "switch,port,tc", 3 * 8},
	    {"xfab_queue_ecn_marked_total", "switch,port,tc", 3 * 8},
	    {"xfab_queue_occupancy_bytes", "switch,port,tc", 3 * 8},
	    {"xfab_queue_watermark_bytes", "switch,port,tc", 3 * 8},
	    {"xfab_pfc_rx_frames_total", "switch,port,priority", 3 * 8},
	    {"xfab_pfc_paused_seconds_total", "switch,port,priority", 3 * 8},
	    {"xfab_pfcwd_stormed", "switch,port,priority", 3 * 8},
	    {"xfab_fib_sync_routes", "switch,state", 3},
	    {"xfab_fib_sync_messages_total", "switch,result", 4},
	    {"xfab_fib_sync_lag_max_seconds", "switch", 1},
	    {"xfab_port_damping_penalty", "switch,port", 1},
	    {"xfab_port_damping_suppressed", "switch,port", 1},
	    {"xfab_port_damping_reuse_seconds", "switch,port", 1},
	    {"xfab_port_damping_suppressions_total", "switch,port", 1},
	    {"xfab_port_link_events_total", "switch,port,event", 2},
	    {"xfab_port_link_events_advertised_total", "switch,port,event", 2},
	    {"xfab_port_drained", "switch,port", 3},
	    {"xfab_port_drains_total", "switch,port", 3},
	};
	char *buf = write_exposition();

	(void)state;
	parse(buf);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct fam *f = fam_get(want[i].name, 0);

		if (!f)
			fail_msg("%s: missing", want[i].name);
		assert_string_equal(f->labels, want[i].labels);
		assert_int_equal(f->samples, want[i].samples);
	}
	/* the drains: every port, eth3 drained twice (a fresh text: parse
	 * cuts the one it read) */
	free(buf);
	buf = write_exposition();
	assert_non_null(strstr(buf, "\nxfab_port_drained{switch=\"leaf1\",port=\"eth3\"} 1\n"));
	assert_non_null(strstr(buf, "\nxfab_port_drained{switch=\"leaf1\",port=\"eth1\"} 0\n"));
	assert_non_null(
	    strstr(buf, "\nxfab_port_drains_total{switch=\"leaf1\",port=\"eth3\"} 2\n"));
	/* reasons and events: one series each, a label of their own */
	assert_string_equal(fam_get("xfab_drops_total", 0)->labels, "switch,reason");
	assert_string_equal(fam_get("xfab_lb_events_total", 0)->labels, "switch,event");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_rules),
	    cmocka_unit_test(test_series_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
