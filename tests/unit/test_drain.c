// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * port-drain and port-undrain as xfabd serves them (user/agent/drain.c,
 * docs/CONTROL.md), through the control socket's own handler
 * (agent_ctl_handle): the answers byte for byte; an unknown port refused
 * with the PORT table's names and nothing changed; a drain takes the port
 * out of the groups once (a second changes nothing, its reason and count
 * included), an undrain returns it only if its link is up; the drains file
 * holds what a restarted xfabd needs, and a drain that cannot be written
 * is refused with nothing changed. The parts drain.c calls (the groups,
 * the hold, the kernel's link state) are recorded here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"

#define N_PORTS 3

static struct agent *A;
static struct {
	int set_up[8][2], n_set_up; /* agent_port_set_up(p, up) in order */
	int holds, publishes;
	int link_up; /* what agent_damping_state says */
} rec;
static char dir[64];

void agent_port_set_up(struct agent *a, int p, int up)
{
	a->live[p].oper_up = up;
	if (rec.n_set_up < 8) {
		rec.set_up[rec.n_set_up][0] = p;
		rec.set_up[rec.n_set_up][1] = up;
	}
	rec.n_set_up++;
}

void agent_damping_hold(struct agent *a, int p)
{
	(void)a;
	(void)p;
	rec.holds++;
}

int agent_damping_state(struct agent *a, int p)
{
	(void)a;
	(void)p;
	return rec.link_up;
}

void agent_damping_publish(struct agent *a)
{
	(void)a;
	rec.publishes++;
}

int agent_nl_set_dormant(__u32 ifindex, int on)
{
	(void)ifindex;
	(void)on;
	return 0;
}

static char answer[XFAB_CTL_MAX_LINE];

static const char *ask(const char *line)
{
	agent_ctl_handle(A, line, strlen(line), answer, sizeof(answer));
	return answer;
}

/* The drains file's whole text ("" if there is none). */
static const char *file_text(void)
{
	static char buf[1024];
	FILE *f = fopen(A->drain.path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	(void)state;
	A = calloc(1, sizeof(*A));
	if (!A)
		return -1;
	A->cfg.n_ports = N_PORTS;
	for (int p = 0; p < N_PORTS; p++) {
		snprintf(A->cfg.ports[p].name, sizeof(A->cfg.ports[p].name), "eth%d", p + 1);
		A->live[p].oper_up = 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/xfab-test-drain.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(A->drain.path, sizeof(A->drain.path), "%s/sw.drains", dir);
	memset(&rec, 0, sizeof(rec));
	rec.link_up = 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(A->drain.path);
	rmdir(dir);
	free(A);
	return 0;
}

static void test_unknown_port_refused(void **state)
{
	(void)state;
	assert_string_equal(ask("{\"cmd\":\"port-drain\",\"port\":\"eth9\"}"),
			    "{\"ok\":false,\"error\":\"port \\\"eth9\\\" is not in the PORT table "
			    "(eth1, eth2, eth3)\",\"field\":\"port\"}\n");
	assert_string_equal(ask("{\"cmd\":\"port-undrain\",\"port\":\"eth9\"}"),
			    "{\"ok\":false,\"error\":\"port \\\"eth9\\\" is not in the PORT table "
			    "(eth1, eth2, eth3)\",\"field\":\"port\"}\n");
	assert_int_equal(rec.n_set_up + rec.holds + rec.publishes, 0);
	assert_string_equal(file_text(), "");
}

static void test_drain_and_undrain(void **state)
{
	long long t0 = (long long)time(NULL);
	char want[256];

	(void)state;
	assert_string_equal(
	    ask("{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"doctor: 1.0 % loss\"}"),
	    "{\"ok\":true,\"port\":\"eth2\",\"drained\":true}\n");
	assert_int_equal(rec.n_set_up, 1);
	assert_int_equal(rec.set_up[0][0], 1);
	assert_int_equal(rec.set_up[0][1], 0);
	assert_int_equal(rec.holds, 1);
	assert_true(A->drain.on[1] && !A->drain.on[0] && !A->drain.on[2]);
	assert_true(A->drain.since[1] >= t0 && A->drain.since[1] <= (long long)time(NULL));
	snprintf(want, sizeof(want), "eth2 1 %lld 1 doctor: 1.0 %% loss\n", A->drain.since[1]);
	assert_string_equal(file_text(), want);
	/* again, another reason: nothing changes */
	assert_string_equal(ask("{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"again\"}"),
			    "{\"ok\":true,\"port\":\"eth2\",\"drained\":true}\n");
	assert_int_equal(rec.n_set_up, 1);
	assert_int_equal(rec.holds, 1);
	assert_string_equal(A->drain.reason[1], "doctor: 1.0 % loss");
	assert_int_equal(A->drain.total[1], 1);
	/* undrain with the link up: back in the groups; the count stays */
	assert_string_equal(ask("{\"cmd\":\"port-undrain\",\"port\":\"eth2\"}"),
			    "{\"ok\":true,\"port\":\"eth2\",\"drained\":false}\n");
	assert_int_equal(rec.n_set_up, 2);
	assert_int_equal(rec.set_up[1][0], 1);
	assert_int_equal(rec.set_up[1][1], 1);
	assert_int_equal(rec.holds, 2);
	assert_false(A->drain.on[1]);
	assert_string_equal(file_text(), "eth2 0 0 1 \n");
	assert_string_equal(ask("{\"cmd\":\"port-undrain\",\"port\":\"eth2\"}"),
			    "{\"ok\":true,\"port\":\"eth2\",\"drained\":false}\n");
	assert_int_equal(rec.n_set_up, 2);
	/* drained again, its link down meanwhile: undrain leaves it out */
	ask("{\"cmd\":\"port-drain\",\"port\":\"eth2\"}");
	assert_int_equal(A->drain.total[1], 2);
	rec.link_up = 0;
	ask("{\"cmd\":\"port-undrain\",\"port\":\"eth2\"}");
	assert_int_equal(rec.n_set_up, 3); /* the drain's down only */
	assert_int_equal(A->live[1].oper_up, 0);
}

/* A drain the file cannot hold is refused, and nothing changes. */
static void test_unwritable_refused(void **state)
{
	(void)state;
	snprintf(A->drain.path, sizeof(A->drain.path), "%s/no/such/dir/sw.drains", dir);
	assert_non_null(strstr(ask("{\"cmd\":\"port-drain\",\"port\":\"eth1\"}"),
			       "\"ok\":false,\"error\":\"cannot record the drain in"));
	assert_false(A->drain.on[0]);
	assert_int_equal(A->drain.total[0], 0);
	assert_int_equal(rec.n_set_up + rec.holds, 0);
	assert_int_equal(A->live[0].oper_up, 1);
	snprintf(A->drain.path, sizeof(A->drain.path), "%s/sw.drains", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_unknown_port_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drain_and_undrain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unwritable_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
