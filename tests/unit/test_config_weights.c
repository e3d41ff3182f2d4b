// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classes' weights on a port (docs/CONFIG.md, QUEUE and "QoS and
 * buffers"): an xfab file's QUEUE weight, a SONiC file's SCHEDULER weight
 * reached through QUEUE.scheduler (sonic-queue.yang: QUEUE|PORT|Q, Q a
 * queue or a range X-Y; sonic-scheduler.yang: weight 1..100, default 1;
 * sonic-swss qosorch.cpp applies a QUEUE entry's scheduler to each queue of
 * its range), and what xfab cannot honour refused at its file:line:col.
 * Expected weights are written by hand from those files.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "json.h"
#include "cfgbad.h"
#include "srcdir.h"
#include "cfgsonic.h"

static void weights_are(const struct xfab_cfg_port *port, const unsigned int *want)
{
	for (int tc = 0; tc < 8; tc++)
		assert_int_equal(xfab_config_class_weight(port, tc), want[tc]);
}

/* ---- an xfab file ---- */

static const char *xfab_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\", \"datapath\": \"tc\"}},\n"
    " \"PORT\": {\"eth1\": {\"rate\": 10000}, \"eth2\": {\"rate\": 1000},\n"
    "          \"eth3\": {}},\n"
    " \"QUEUE\": {\"eth1|0-2\": {\"weight\": 10}, \"eth1|3\": {\"weight\": 60},\n"
    "           \"eth1|4-7\": {\"weight\": 10}}}\n";

/* eth1: class 3 weighs 60, the others 10; eth2 names none: all equal, as
 * before weights (unweighted). */
static void xfab_weights(void **state)
{
	static const unsigned int eth1[8] = {10, 10, 10, 60, 10, 10, 10, 10};
	static const unsigned int eth2[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	struct xfab_config cfg;

	(void)state;
	cfgbad_parse_ok(xfab_text, &cfg);
	weights_are(&cfg.ports[0], eth1);
	assert_int_equal(xfab_config_port_weighted(&cfg.ports[0]), 1);
	weights_are(&cfg.ports[1], eth2);
	assert_int_equal(xfab_config_port_weighted(&cfg.ports[1]), 0);
	xfab_config_free(&cfg);
}

/* One text edited: from replaced by to (its first occurrence). */
static char *edited(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static const struct {
	const char *name, *from, *to, *needle, *key, *msg;
} xfab_bad[] = {
    {"a weight on the xdp datapath", "\"tc\"", "\"xdp\"", "10}", "QUEUE|eth1|0-2.weight",
     "weights share the tc datapath's queues"},
    {"a weight on a port without a rate", "\"eth1|4-7\"",
     "\"eth3|1\": {\"weight\": 5}, \"eth1|4-7\"", "5}", "QUEUE|eth3|1.weight", "eth3 has no rate"},
    {"a weight of 0", "{\"weight\": 60}", "{\"weight\": 0}", "0}", "QUEUE|eth1|3.weight", "1..100"},
    {"a weight above SONiC's 100", "{\"weight\": 60}", "{\"weight\": 101}", "101",
     "QUEUE|eth1|3.weight", "1..100"},
    {"an entry binding nothing", "{\"weight\": 60}", "{ }", "{ }", "QUEUE|eth1|3",
     "missing field \"wred_profile\" or \"weight\""},
};

static void xfab_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(xfab_bad) / sizeof(xfab_bad[0]); i++) {
		char *text = edited(xfab_text, xfab_bad[i].from, xfab_bad[i].to);
		const char *from = strstr(text, xfab_bad[i].to);
		struct bad_case c = {xfab_bad[i].name, text, NULL, xfab_bad[i].key,
				     xfab_bad[i].msg};
		char *needle_text;

		/* cfgbad locates the needle's first occurrence: here, its
		 * first within the edit (or after it) */
		assert_non_null(from);
		needle_text = strstr(from, xfab_bad[i].needle);
		assert_non_null(needle_text);
		c.needle = needle_text;
		cfgbad_check_as(&c, NULL);
		free(text);
	}
}

/* ---- a SONiC file ---- */

static const char *sonic_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\", \"datapath\": \"tc\"}},\n"
    " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\", \"rate\": \"100000\"},\n"
    "          \"Ethernet4\": {\"lanes\": \"4,5,6,7\", \"rate\": \"40000\"},\n"
    "          \"Ethernet8\": {\"lanes\": \"8,9,10,11\", \"rate\": \"1000\"},\n"
    "          \"Ethernet12\": {\"lanes\": \"12,13,14,15\"}},\n"
    " \"SCHEDULER\": {\"scheduler.0\": {\"type\": \"DWRR\", \"weight\": \"10\"},\n"
    "               \"scheduler.1\": {\"type\": \"DWRR\", \"weight\": \"60\"},\n"
    "               \"scheduler.2\": {\"type\": \"WRR\"}},\n"
    " \"QUEUE\": {\"Ethernet0|0-2\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet0|3\": {\"scheduler\": \"scheduler.1\"},\n"
    "           \"Ethernet0|4-7\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet4|0-6\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet8|3-4\": {\"scheduler\": \"scheduler.2\"},\n"
    "           \"Ethernet12|3\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet12|4\": {\"scheduler\": \"scheduler.0\"}}}\n";

/* Ethernet0: queue 3's scheduler weighs 60, the ranges 0-2 and 4-7 10;
 * Ethernet4: 0-6 weigh 10, queue 7 names none: 1, SONiC's default;
 * Ethernet8: scheduler.2 has no weight (1) and the others none: all
 * equal; Ethernet12 (no rate) has 10 on 3 and 4, 1 elsewhere: refused
 * (sonic_refused), so here without those entries. Honoured: the weight
 * is not listed as ignored. */
static void sonic_weights(void **state)
{
	static const unsigned int eth0[8] = {10, 10, 10, 60, 10, 10, 10, 10};
	static const unsigned int eth4[8] = {10, 10, 10, 10, 10, 10, 10, 1};
	static const unsigned int eth8[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	static const char *const ignored[] = {"PORT.lanes", NULL};
	char *text = edited(sonic_text,
			    ",\n           \"Ethernet12|3\": {\"scheduler\": \"scheduler.0\"},\n"
			    "           \"Ethernet12|4\": {\"scheduler\": \"scheduler.0\"}",
			    "");
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(text, XFAB_CFG_AUTO, &cfg);
	assert_int_equal(cfg.sonic, 1);
	cfgsonic_ignored_are(&cfg, ignored);
	weights_are(&cfg.ports[0], eth0);
	weights_are(&cfg.ports[1], eth4);
	weights_are(&cfg.ports[2], eth8);
	assert_int_equal(xfab_config_port_weighted(&cfg.ports[1]), 1);
	assert_int_equal(xfab_config_port_weighted(&cfg.ports[2]), 0);
	xfab_config_free(&cfg);
	free(text);
}

/* On the xdp datapath the phantom queues each drain at the port rate: the
 * weight is listed as ignored and every class weighs the same. */
static void sonic_xdp_ignored(void **state)
{
	static const char *const ignored[] = {"PORT.lanes", "SCHEDULER.weight", NULL};
	char *text = edited(sonic_text, "\"datapath\": \"tc\"", "\"datapath\": \"xdp\"");
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(text, XFAB_CFG_AUTO, &cfg);
	cfgsonic_ignored_are(&cfg, ignored);
	for (int p = 0; p < cfg.n_ports; p++)
		assert_int_equal(xfab_config_port_weighted(&cfg.ports[p]), 0);
	xfab_config_free(&cfg);
	free(text);
}

/* Ethernet12 has no rate and its queues weigh differently: refused once,
 * at its first QUEUE entry's scheduler. */
static void sonic_refused(void **state)
{
	struct bad_case c = {"weights on a port without a rate", sonic_text, NULL,
			     "QUEUE|Ethernet12|3.scheduler",
			     "Ethernet12's queues weigh differently"};
	const char *at = strstr(sonic_text, "\"Ethernet12|3\"");

	(void)state;
	assert_non_null(at);
	c.needle = strstr(at, "\"scheduler.0\"");
	cfgbad_check_as(&c, cfgsonic_source(XFAB_CFG_AUTO));
}

static char cov_rows[2048];

/* A SCHEDULER or QUEUE row of xfab_config_coverage, as xfabctl prints it. */
static void cov_row(void *arg, const struct xfab_cov_item *it)
{
	size_t n = strlen(cov_rows);

	(void)arg;
	if (strcmp(it->table, "SCHEDULER") && strcmp(it->table, "QUEUE"))
		return;
	snprintf(cov_rows + n, sizeof(cov_rows) - n, "%s %s %u %s\n", it->table,
		 it->field ? it->field : "-", it->entries, xfab_cov_status_name(it->status));
}

/* show config-coverage (docs/SONIC.md): SCHEDULER's type and weight and
 * QUEUE's scheduler are mapped onto the tc queues' shares; on the xdp
 * datapath the weight is ignored (the tables are SONiC's, used).
 * sonic_text (Ethernet12 given a rate): 3 schedulers, 2 with a weight, 7
 * QUEUE entries. */
static void coverage(void **state)
{
	static const char *const tc_rows = "SCHEDULER - 3 used\n"
					   "SCHEDULER type 3 mapped\n"
					   "SCHEDULER weight 2 mapped\n"
					   "QUEUE - 7 used\n"
					   "QUEUE scheduler 7 mapped\n";
	static const char *const xdp_rows = "SCHEDULER - 3 used\n"
					    "SCHEDULER type 3 mapped\n"
					    "SCHEDULER weight 2 ignored\n"
					    "QUEUE - 7 used\n"
					    "QUEUE scheduler 7 mapped\n";
	char *rateless = edited(sonic_text, "\"lanes\": \"12,13,14,15\"",
				"\"lanes\": \"12,13,14,15\", \"rate\": \"1000\"");
	char *xdp = edited(rateless, "\"datapath\": \"tc\"", "\"datapath\": \"xdp\"");
	const char *texts[2] = {rateless, xdp}, *want[2] = {tc_rows, xdp_rows};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct xfab_config cfg;
		struct json_value *root;
		struct json_pos pos;
		char err[128];

		cfgsonic_parse_ok(texts[i], XFAB_CFG_AUTO, &cfg);
		root = xfab_json_parse(texts[i], err, sizeof(err), &pos);
		assert_non_null(root);
		cov_rows[0] = '\0';
		xfab_config_coverage(&cfg, root, cov_row, NULL);
		assert_string_equal(cov_rows, want[i]);
		xfab_json_free(root);
		xfab_config_free(&cfg);
	}
	free(xdp);
	free(rateless);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(xfab_weights),  cmocka_unit_test(xfab_refused),
	    cmocka_unit_test(sonic_weights), cmocka_unit_test(sonic_xdp_ignored),
	    cmocka_unit_test(sonic_refused), cmocka_unit_test(coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
