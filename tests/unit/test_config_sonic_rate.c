// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A SONiC file's lossless port runs at its PORT speed (user/lib/config/
 * device.c; docs/SONIC.md, "PORT's speed and xfab's rate"): SONiC's PORT has
 * no rate, its speed is what the port sends at (sonic-buildimage
 * src/sonic-yang-models/yang-models/sonic-port.yang: speed, "Port speed in
 * Mbps"), and xfab's lossless priorities need the port's queues told their
 * rate. Expected rates are the files' own numbers, written here by hand.
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
#include "cfgbad.h"
#include "srcdir.h"
#include "cfgsonic.h"

#define META "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"

/* A SONiC file (asked: its tables are xfab's too) of four ports: Ethernet0
 * lossless on 3 at 40G, Ethernet4 lossy at 100G, Ethernet8 lossless with
 * xfab's own rate below its speed, Ethernet12 lossless at 1G. */
static const char *rates_text =
    META " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\", \"speed\": \"40000\"},\n"
	 "          \"Ethernet4\": {\"lanes\": \"4,5,6,7\", \"speed\": \"100000\"},\n"
	 "          \"Ethernet8\": {\"lanes\": \"8,9,10,11\", \"speed\": \"40000\", \"rate\": "
	 "\"10000\"},\n"
	 "          \"Ethernet12\": {\"lanes\": \"12\", \"speed\": \"1000\"}},\n"
	 " \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"},\n"
	 "                  \"Ethernet8\": {\"pfc_enable\": \"3,4\"},\n"
	 "                  \"Ethernet12\": {\"pfc_enable\": \"4\"}}\n}\n";

static const struct xfab_cfg_port *port(const struct xfab_config *cfg, const char *name)
{
	int i = xfab_config_port_index(cfg, name);

	assert_true(i >= 0);
	return &cfg->ports[i];
}

/* A lossless port's rate is its speed (40,000 and 1,000 Mbit/s); a lossy
 * one stays unshaped (rate 0: its speed only times PFC quanta); a rate
 * the file gives (xfab's field, 10,000) is kept over the speed. */
static void lossless_speed_is_rate(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(rates_text, XFAB_CFG_SONIC, &cfg);
	assert_int_equal(cfg.sonic, 1);
	assert_int_equal(port(&cfg, "Ethernet0")->rate_mbps, 40000);
	assert_int_equal(port(&cfg, "Ethernet0")->speed_mbps, 40000);
	assert_int_equal(port(&cfg, "Ethernet0")->pfc.enabled, 1u << 3);
	assert_int_equal(port(&cfg, "Ethernet4")->rate_mbps, 0);
	assert_int_equal(port(&cfg, "Ethernet4")->speed_mbps, 100000);
	assert_int_equal(port(&cfg, "Ethernet8")->rate_mbps, 10000);
	assert_int_equal(port(&cfg, "Ethernet8")->speed_mbps, 40000);
	assert_int_equal(port(&cfg, "Ethernet12")->rate_mbps, 1000);
	assert_int_equal(port(&cfg, "Ethernet12")->pfc.enabled, 1u << 4);
	xfab_config_free(&cfg);
}

/* Without a speed (sonic-port.yang makes it mandatory; xfab's reader does
 * not) a lossless SONiC port has no rate and is refused as before; an xfab
 * file's speed never becomes its rate (xfab's PORT has rate for that). */
static const struct bad_case sonic_bad[] = {
    {"a lossless SONiC port without a speed",
     META " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\"}},\n"
	  " \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}\n}\n",
     "\"3\"", "PORT_QOS_MAP|Ethernet0.pfc_enable", "set PORT|Ethernet0 speed (Mbit/s)"},
};
static const struct bad_case xfab_bad[] = {
    {"an xfab file's lossless port with a speed and no rate",
     META " \"PORT\": {\"eth1\": {\"speed\": \"40000\"}},\n"
	  " \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"3\"}}\n}\n",
     "\"3\"", "PORT_QOS_MAP|eth1.pfc_enable", "set PORT|eth1 rate (Mbit/s)"},
};

static void no_speed_no_rate(void **state)
{
	(void)state;
	cfgbad_check_as(&sonic_bad[0], cfgsonic_source(XFAB_CFG_SONIC));
	cfgbad_check_as(&xfab_bad[0], cfgsonic_source(XFAB_CFG_AUTO));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lossless_speed_is_rate),
	    cmocka_unit_test(no_speed_no_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
