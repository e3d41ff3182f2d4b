// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab_config_coverage (user/lib/config/coverage.c), behind xfabctl show
 * config-coverage: a SONiC file's tables and fields, each used, mapped or
 * ignored, in the file's order, the rows written by hand from SONiC's YANG
 * (sonic-device_metadata.yang: hwsku; sonic-port.yang: lanes, fec, speed;
 * sonic-ntp.yang: NTP; sonic-wred-profile.yang, sonic-loopback-interface.yang,
 * sonic-static-route.yang) and docs/CONFIG.md (what xfab implements).
 */
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
#include "srcdir.h"

static const char *text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"hwsku\": \"S6000\"}},\n"
    " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\", \"fec\": \"rs\", \"mtu\": \"9100\",\n"
    "                          \"speed\": \"100000\"},\n"
    "          \"Ethernet4\": {\"lanes\": \"4,5,6,7\"}},\n"
    " \"NTP\": {\"global\": {\"admin_state\": \"enabled\"}},\n"
    " \"DSCP_TO_TC_MAP\": {\"AZURE\": {\"46\": \"5\"}},\n"
    " \"WRED_PROFILE\": {\"W\": {\"green_min_threshold\": \"1000\", \"green_max_threshold\": "
    "\"2000\",\n"
    "                       \"ecn\": \"ecn_all\", \"wred_green_enable\": \"true\"}},\n"
    " \"LOOPBACK_INTERFACE\": {\"Loopback0\": {}, \"Loopback0|10.1.0.1/32\": {}},\n"
    " \"STATIC_ROUTE\": {\"default|10.8.0.0/16\": {\"blackhole\": \"true\"}}}\n";

static char got[4096];

static void row(void *arg, const struct xfab_cov_item *it)
{
	size_t n = strlen(got);

	(void)arg;
	snprintf(got + n, sizeof(got) - n, "%s %s %u %s%s%s\n", it->table,
		 it->field ? it->field : "-", it->entries, xfab_cov_status_name(it->status),
		 it->note ? ": " : "", it->note ? it->note : "");
}

static void sonic_file(void **state)
{
	static const char *want =
	    "DEVICE_METADATA - 1 used\n"
	    "DEVICE_METADATA hostname 1 used\n"
	    "DEVICE_METADATA hwsku 1 ignored\n"
	    "PORT - 2 used\n"
	    "PORT lanes 2 ignored\n"
	    "PORT fec 1 ignored\n"
	    "PORT mtu 1 used\n"
	    "PORT speed 1 mapped: converts PFC pause quanta to time; in a SONiC file, a PFC port's "
	    "rate\n"
	    "NTP - 1 ignored\n"
	    "DSCP_TO_TC_MAP - 1 used\n"
	    "WRED_PROFILE - 1 mapped: green's curve onto xfab's one curve: "
	    "every packet is green\n"
	    "WRED_PROFILE green_min_threshold 1 used\n"
	    "WRED_PROFILE green_max_threshold 1 used\n"
	    "WRED_PROFILE ecn 1 mapped: green among its colours: ECT packets "
	    "marked\n"
	    "WRED_PROFILE wred_green_enable 1 mapped: onto drop_nonect: Not-ECT "
	    "packets dropped\n"
	    "LOOPBACK_INTERFACE - 2 mapped: the VTEP and router-id source\n"
	    "STATIC_ROUTE - 1 mapped: onto ROUTE: the default VRF\n"
	    "STATIC_ROUTE blackhole 1 used\n";
	struct xfab_cfg_source src = {XFAB_CFG_SONIC, NULL};
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	struct json_value *root;
	struct json_pos pos;
	char catalogue[4096], err[128];

	(void)state;
	snprintf(catalogue, sizeof(catalogue), "%s/config/sonic/catalogue.json", test_srcdir());
	src.catalogue = catalogue;
	assert_int_equal(xfab_config_parse_as("c.json", text, &src, &cfg, &errs), 0);
	root = xfab_json_parse(text, err, sizeof(err), &pos);
	assert_non_null(root);
	got[0] = '\0';
	xfab_config_coverage(&cfg, root, row, NULL);
	assert_string_equal(got, want);
	xfab_json_free(root);
	xfab_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sonic_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
