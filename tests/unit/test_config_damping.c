// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PORT's link event damping fields in the config (docs/CONFIG.md, "Link
 * event damping"): SONiC's names (the HLD's CONFIG_DB PORT fields, its
 * example entry below as SONiC writes it, strings and numbers mixed);
 * without them, or with "disabled", no damping; "aied" needs every
 * parameter but flap_penalty (1000 by default, the HLD's), each non-zero,
 * decay_half_life <= max_suppress_time and reuse_threshold <=
 * suppress_threshold; every bad value is refused with its file:line:col
 * and key, the output untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "cfgbad.h"

#define HDR "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
#define P(eth1) HDR " \"PORT\": {\"eth1\": {" eth1 "},\n  \"eth2\": {}}\n}\n"
#define AIED "\"link_event_damping_algorithm\": \"aied\", "
#define ALL4                                                                                       \
	"\"max_suppress_time\": \"40000\", \"decay_half_life\": \"30000\", "                       \
	"\"suppress_threshold\": 1500, \"reuse_threshold\": 1300"

/* No fields: damping off, every parameter 0 (SONiC's YANG defaults). */
static void test_default_off(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgbad_parse_ok(P(""), &cfg);
	for (int p = 0; p < 2; p++) {
		const struct xfab_damp_cfg *d = &cfg.ports[p].damping;

		assert_int_equal(d->algo, XFAB_DAMP_DISABLED);
		assert_int_equal(d->max_suppress_time_ms | d->decay_half_life_ms |
				     d->suppress_threshold | d->reuse_threshold | d->flap_penalty,
				 0);
		assert_false(xfab_damp_enabled(d));
	}
	xfab_config_free(&cfg);
}

/* The HLD's CONFIG_DB example, word for word, on eth1 only. */
static void test_hld_example(void **state)
{
	struct xfab_config cfg;
	const struct xfab_damp_cfg *d;

	(void)state;
	cfgbad_parse_ok(P("\"max_suppress_time\": \"40000\", \"flap_penalty\": \"1000\", "
			  "\"decay_half_life\": \"30000\", \"suppress_threshold\": 1500, "
			  "\"reuse_threshold\": 1300, \"link_event_damping_algorithm\": \"aied\""),
			&cfg);
	d = &cfg.ports[0].damping;
	assert_int_equal(d->algo, XFAB_DAMP_AIED);
	assert_int_equal(d->max_suppress_time_ms, 40000);
	assert_int_equal(d->decay_half_life_ms, 30000);
	assert_int_equal(d->suppress_threshold, 1500);
	assert_int_equal(d->reuse_threshold, 1300);
	assert_int_equal(d->flap_penalty, 1000);
	assert_true(xfab_damp_enabled(d));
	assert_false(xfab_damp_enabled(&cfg.ports[1].damping));
	xfab_config_free(&cfg);
}

/* flap_penalty defaults to 1000 with aied; equal thresholds and a
 * half-life equal to the max suppress time are allowed (<=); with
 * "disabled" the parameters are kept but do nothing, 0 included (the
 * HLD's "disabled" example). */
static void test_defaults_and_edges(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgbad_parse_ok(P(AIED "\"max_suppress_time\": \"5\", \"decay_half_life\": \"5\", "
			       "\"suppress_threshold\": 7, \"reuse_threshold\": 7"),
			&cfg);
	assert_int_equal(cfg.ports[0].damping.flap_penalty, 1000);
	assert_true(xfab_damp_enabled(&cfg.ports[0].damping));
	xfab_config_free(&cfg);
	cfgbad_parse_ok(
	    P("\"link_event_damping_algorithm\": \"disabled\", \"max_suppress_time\": \"0\", "
	      "\"reuse_threshold\": \"0\", \"flap_penalty\": 4294967295"),
	    &cfg);
	assert_int_equal(cfg.ports[0].damping.algo, XFAB_DAMP_DISABLED);
	assert_int_equal(cfg.ports[0].damping.flap_penalty, 4294967295u);
	assert_false(xfab_damp_enabled(&cfg.ports[0].damping));
	xfab_config_free(&cfg);
}

static const struct bad_case bad[] = {
    {"unknown algorithm", P("\"link_event_damping_algorithm\": \"exp\""), "\"exp\"",
     "PORT|eth1.link_event_damping_algorithm", "must be \"disabled\" or \"aied\""},
    {"algorithm not a string", P("\"link_event_damping_algorithm\": [1]"), "[1]",
     "PORT|eth1.link_event_damping_algorithm", ""},
    {"aied without a half-life",
     P(AIED "\"max_suppress_time\": \"4\", \"suppress_threshold\": 3, \"reuse_threshold\": 2"),
     "\"eth1\"", "PORT|eth1", "needs decay_half_life"},
    {"aied with nothing", P("\"link_event_damping_algorithm\": \"aied\""), "\"eth1\"", "PORT|eth1",
     "needs max_suppress_time"},
    {"aied with a 0", P(AIED ALL4 ", \"flap_penalty\": \"0\""), "\"0\"", "PORT|eth1.flap_penalty",
     "0 turns damping off"},
    {"aied with a 0 threshold",
     P(AIED "\"max_suppress_time\": \"4\", \"decay_half_life\": \"3\", "
	    "\"suppress_threshold\": 0, \"reuse_threshold\": 0"),
     "0, \"reuse", "PORT|eth1.suppress_threshold", "0 turns damping off"},
    {"negative", P(AIED ALL4 ", \"flap_penalty\": \"-5\""), "\"-5\"", "PORT|eth1.flap_penalty", ""},
    {"beyond uint32", P("\"max_suppress_time\": \"4294967296\""), "\"4294967296\"",
     "PORT|eth1.max_suppress_time", ""},
    {"not a number", P("\"decay_half_life\": \"30s\""), "\"30s\"", "PORT|eth1.decay_half_life", ""},
    {"half-life beyond the max suppress time",
     P(AIED "\"max_suppress_time\": \"1000\", \"decay_half_life\": \"1001\", "
	    "\"suppress_threshold\": 3, \"reuse_threshold\": 2"),
     "\"1001\"", "PORT|eth1.decay_half_life", "must not exceed max_suppress_time (1000 ms)"},
    {"reuse above suppress",
     P(AIED "\"max_suppress_time\": \"4\", \"decay_half_life\": \"3\", "
	    "\"suppress_threshold\": 1300, \"reuse_threshold\": 1301"),
     "1301", "PORT|eth1.reuse_threshold", "must not exceed suppress_threshold (1300)"},
    {"a misspelt field", P("\"flap_penalties\": \"1000\""), "\"flap_penalties\"",
     "PORT|eth1.flap_penalties", "unknown field"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cfgbad_check(&bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_off),
	    cmocka_unit_test(test_hld_example),
	    cmocka_unit_test(test_defaults_and_edges),
	    cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests_name("config_damping", tests, NULL, NULL);
}
