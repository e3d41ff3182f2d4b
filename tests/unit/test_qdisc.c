// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tc datapath's class queues (user/agent/qdisc.c): the arguments each
 * HTB class 1:(tc + 1) is built with, from a SONiC file whose QUEUE
 * entries name DWRR schedulers (sonic-queue.yang, sonic-scheduler.yang).
 * A class is guaranteed rate x w / (the port's weights summed) kbit,
 * floored, may use the port rate, and lends by DRR in w x (MTU + 14)
 * bytes (tc-htb(8): quantum); a port whose classes weigh the same keeps
 * 1/8 each and HTB's own quantum. Every figure below is worked by hand.
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

#include "agent.h"
#include "config.h"
#include "srcdir.h"
#include "cfgsonic.h"

/* Ethernet0: 100 Gbit/s, MTU 9100, queue 3 at 60 and the others at 10;
 * Ethernet4: 40 Gbit/s, queues 0-6 at 10, queue 7 none (SONiC's default
 * weight, 1); Ethernet8: 1 Gbit/s, no scheduler. */
static const char *sonic_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\", \"datapath\": \"tc\"}},\n"
    " \"PORT\": {\"Ethernet0\": {\"rate\": \"100000\", \"mtu\": \"9100\"},\n"
    "          \"Ethernet4\": {\"rate\": \"40000\"}, \"Ethernet8\": {\"rate\": \"1000\"}},\n"
    " \"SCHEDULER\": {\"scheduler.0\": {\"type\": \"DWRR\", \"weight\": \"10\"},\n"
    "               \"scheduler.1\": {\"type\": \"DWRR\", \"weight\": \"60\"}},\n"
    " \"QUEUE\": {\"Ethernet0|0-2\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet0|3\": {\"scheduler\": \"scheduler.1\"},\n"
    "           \"Ethernet0|4-7\": {\"scheduler\": \"scheduler.0\"},\n"
    "           \"Ethernet4|0-6\": {\"scheduler\": \"scheduler.0\"}}}\n";

static void classes_are(const struct xfab_cfg_port *port, const char *const *want)
{
	char args[96];

	for (int tc = 0; tc < 8; tc++) {
		agent_qdisc_class_args(port, tc, args, sizeof(args));
		assert_string_equal(args, want[tc]);
	}
}

/* Port p of sonic_text's classes are built with want's arguments. */
static void sonic_port_is(int p, const char *const *want)
{
	struct xfab_config cfg;

	cfgsonic_parse_ok(sonic_text, XFAB_CFG_AUTO, &cfg);
	classes_are(&cfg.ports[p], want);
	xfab_config_free(&cfg);
}

/* Ethernet0: weights sum to 7 x 10 + 60 = 130 of 100,000,000 kbit:
 * 6,000,000,000 / 130 = 46,153,846.15 and 1,000,000,000 / 130 =
 * 7,692,307.69; quanta 60 x 9,114 = 546,840 and 10 x 9,114 = 91,140. */
static void weighted_100g(void **state)
{
	static const char *const q10 = "rate 7692307kbit ceil 100000mbit quantum 91140";
	static const char *const want[8] = {
	    q10, q10, q10, "rate 46153846kbit ceil 100000mbit quantum 546840", q10, q10, q10, q10,
	};

	(void)state;
	sonic_port_is(0, want);
}

/* Ethernet4: 7 x 10 + 1 = 71 of 40,000,000 kbit: 400,000,000 / 71 =
 * 5,633,802.8 and 40,000,000 / 71 = 563,380.3; quanta 10 x 1,514 and
 * 1 x 1,514 (MTU 1500). */
static void default_weight_40g(void **state)
{
	static const char *const q10 = "rate 5633802kbit ceil 40000mbit quantum 15140";
	static const char *const want[8] = {
	    q10, q10, q10, q10, q10, q10, q10, "rate 563380kbit ceil 40000mbit quantum 1514",
	};

	(void)state;
	sonic_port_is(1, want);
}

/* Ethernet8 names no scheduler: the classes are built as before weights,
 * 1,000,000 kbit / 8 = 125,000 each, HTB's quantum. */
static void unweighted_as_before(void **state)
{
	static const char *const eq = "rate 125000kbit ceil 1000mbit";
	static const char *const want[8] = {eq, eq, eq, eq, eq, eq, eq, eq};

	(void)state;
	sonic_port_is(2, want);
}

/* The port tests/netns/test_qdisc_weights_lab.sh builds by hand: 200
 * Mbit/s, MTU 9000, class 0 at weight 3, the others at 1 (sum 10): class 0
 * 200,000 x 3 / 10 = 60,000 kbit, quantum 3 x 9,014 = 27,042; each other
 * 20,000 kbit, quantum 9,014. */
static void lab_port(void **state)
{
	static const char *const q1 = "rate 20000kbit ceil 200mbit quantum 9014";
	static const char *const want[8] = {
	    "rate 60000kbit ceil 200mbit quantum 27042", q1, q1, q1, q1, q1, q1, q1,
	};
	struct xfab_cfg_port port = {.rate_mbps = 200, .mtu = 9000, .weight = {3}};

	(void)state;
	classes_are(&port, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(weighted_100g),
	    cmocka_unit_test(default_weight_40g),
	    cmocka_unit_test(unweighted_as_before),
	    cmocka_unit_test(lab_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
