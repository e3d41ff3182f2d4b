// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of xfabd's FIB_SYNC driver (user/agent/fibsync.c): the resync
 * after lost events (ENOBUFS) and LOCAL_REPAIR's held withdrawals, on a
 * real RIB, mirror and compiler writing into maps that keep their own copy
 * (shadow.h). The kernel is played here: its table is a list of routes,
 * which the dump (agent_nl_dump_routes, defined below in place of
 * netlink.c's) hands over as rtnetlink messages built by hand, and which
 * can fail part way as a dump the kernel interrupts does.
 *   - resync: what the kernel no longer has goes, what changed is
 *     rewritten, what stayed is not written; an empty table empties the
 *     mirror; counted;
 *   - a dump that fails part way sweeps nothing and leaves a resync due,
 *     which the next one clears;
 *   - a withdrawal through a port that lost its carrier within the hold
 *     time is held (the route stays), through a live port or one down for
 *     longer it is not; a route installed again voids its hold; a hold
 *     that ran out deletes the route;
 *   - a withdrawal through live ports within restart_hold_ms of the routing
 *     daemon's start (played) is held until that long after the start, and
 *     voided by a re-add; not when a port is down, the daemon older, or
 *     none runs;
 *   - a port taken down (admin): the kernel drops its IPv4 routes without a
 *     message; the mirror keeps a route whose one path it was, held, as
 *     after a carrier loss (without the bounce it goes at once).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "agent.h"
#include "common.h"
#include "netlink.h"
#include "shadow.h"

/* ---- the kernel, played: its table and its dump ---- */

struct kroute {
	const char *dst; /* a /16 */
	const char *gw;
	int ifindex;
};

static const struct kroute *k_table;
static int k_n, k_fail_after = -1; /* the dump fails after this many; -1: never */

static void k_msg(char *buf, int type, const struct kroute *r)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct in_addr a;

	nlh->nlmsg_type = (__u16)type;
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 16;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BGP;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	assert_int_equal(inet_pton(AF_INET, r->dst, &a), 1);
	mnl_attr_put(nlh, RTA_DST, 4, &a);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	assert_int_equal(inet_pton(AF_INET, r->gw, &a), 1);
	mnl_attr_put(nlh, RTA_GATEWAY, 4, &a);
	mnl_attr_put_u32(nlh, RTA_OIF, (__u32)r->ifindex);
}

int agent_nl_dump_routes(const struct xfab_nl_handlers *h)
{
	static char buf[1024];

	for (int i = 0; i < k_n; i++) {
		if (i == k_fail_after)
			return -EIO;
		memset(buf, 0, sizeof(buf));
		k_msg(buf, RTM_NEWROUTE, &k_table[i]);
		h->route(h->arg, (struct nlmsghdr *)buf);
	}
	return 0;
}

/* The routing daemon's start, played in place of owner.c's: 0, none runs */
static __u64 owner_started;

__u64 agent_owner_start(int protocol, __u64 now)
{
	(void)now;
	assert_int_equal(protocol, RTPROT_BGP); /* the withdrawn route's */
	return owner_started;
}

/* eth1..eth4 are ifindex 10..13 */
int agent_port_of_ifindex(const struct agent *a, __u32 ifindex)
{
	(void)a;
	return ifindex >= 10 && ifindex < 14 ? (int)ifindex - 10 : -1;
}

/* ---- a switch ---- */

#define CONFIG                                                                                     \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                      \
	" \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},\n"                   \
	" \"INTERFACE\": {\"eth1|10.0.1.1/24\": {}, \"eth2|10.0.2.1/24\": {},\n"                   \
	"   \"eth3|10.0.3.1/24\": {}, \"eth4|10.0.4.1/24\": {}}}\n"

struct sw {
	struct shadow sh;
	struct agent *a;
};

static const struct kroute three[] = {
    {"40.1.0.0", "10.0.1.2", 10}, {"40.2.0.0", "10.0.2.2", 11}, {"40.3.0.0", "10.0.3.2", 12}};

static int setup(void **state)
{
	struct sw *s = calloc(1, sizeof(*s));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct xfab_cfg_errors errs;
	struct agent *a;

	if (!s || !(s->a = calloc(1, sizeof(*s->a))))
		return -1;
	a = s->a;
	for (int p = 0; p < 4; p++) {
		a->live[p].ifindex = (__u32)(10 + p);
		a->live[p].mac[0] = 2;
		a->live[p].mac[5] = (__u8)p;
		a->live[p].oper_up = 1;
	}
	ops.arg = &s->sh;
	if (xfab_config_parse("sw.json", CONFIG, &a->cfg, &errs))
		return -1;
	a->cfg.fib_sync = 1;
	a->cfg.fib_table = RT_TABLE_MAIN;
	a->cfg.fib_protocols[RTPROT_BGP / 8] |= 1u << (RTPROT_BGP % 8);
	a->rib = xfab_rib_new();
	a->compile = xfab_compile_new(a->rib, &ops, NULL, NULL);
	if (!a->rib || !a->compile || xfab_rib_load_config(a->rib, &a->cfg) ||
	    xfab_compile_config(a->compile, &a->cfg, a->live))
		return -1;
	k_table = three;
	k_n = 3;
	k_fail_after = -1;
	owner_started = 0;
	if (agent_fib_sync_start(a))
		return -1;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct sw *s = *state;

	free(s->a->fs.held);
	xfab_compile_free(s->a->compile);
	xfab_nlsync_free(s->a->nlsync);
	xfab_rib_free(s->a->rib);
	xfab_config_free(&s->a->cfg);
	sh_free(&s->sh);
	free(s->a);
	free(s);
	return 0;
}

/* Route dst/16 in the data plane, or NULL. */
static const struct xfab_route *route16(struct sw *s, const char *dst)
{
	struct xfab_lpm_v4_key k = {.prefixlen = 32u + 16};

	assert_int_equal(inet_pton(AF_INET, dst, k.addr), 1);
	return sh_get(&s->sh, XFAB_T_ROUTES_V4, &k);
}

/* The port (ifindex) route dst/16's nexthop leaves by. */
static __u32 egress_of(struct sw *s, const char *dst)
{
	const struct xfab_route *rt = route16(s, dst);
	const struct xfab_nexthop *nh;

	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	nh = sh_get(&s->sh, XFAB_T_NEXTHOPS, &rt->id);
	assert_non_null(nh);
	return nh->ifindex;
}

/* An event from the kernel: a route added or withdrawn, then the batch's write. */
static void k_event(struct sw *s, int type, const struct kroute *r)
{
	static char buf[1024];

	memset(buf, 0, sizeof(buf));
	k_msg(buf, type, r);
	agent_on_route(s->a, (struct nlmsghdr *)buf);
	agent_fib_sync_flush(s->a);
}

/* ---- the resync after lost events ---- */

/* The kernel's table changed while events were lost: 40.3 withdrawn, 40.2
 * moved to eth3. The resync writes those and nothing else; then the table
 * empties, and so does the mirror (a dump of nothing changes nothing by
 * events, the sweep alone does). */
static void test_resync(void **state)
{
	static const struct kroute after[] = {{"40.1.0.0", "10.0.1.2", 10},
					      {"40.2.0.0", "10.0.3.2", 12}};
	struct sw *s = *state;
	struct agent *a = s->a;
	size_t batches = a->fs.batches;

	assert_int_equal(egress_of(s, "40.3.0.0"), 12);
	assert_int_equal(egress_of(s, "40.2.0.0"), 11);
	k_table = after;
	k_n = 2;
	sh_reset_counts(&s->sh);
	assert_int_equal(agent_fib_sync_resync(a), 0);
	assert_null(route16(s, "40.3.0.0"));
	assert_int_equal(egress_of(s, "40.2.0.0"), 12);
	assert_int_equal(egress_of(s, "40.1.0.0"), 10);
	assert_int_equal(s->sh.removes[XFAB_T_ROUTES_V4], 1);
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 1); /* 40.2 only */
	assert_int_equal(a->fs.resyncs, 1);
	assert_int_equal(a->fs.resync_due, 0);
	assert_int_equal(a->fs.batches, batches + 1);
	assert_int_equal(a->fib_pub.resyncs, 1);

	k_n = 0;
	assert_int_equal(agent_fib_sync_resync(a), 0);
	assert_null(route16(s, "40.1.0.0"));
	assert_null(route16(s, "40.2.0.0"));
	assert_int_equal(a->fs.resyncs, 2);
}

/* A dump that fails part way: sweeping would drop what it did not reach,
 * so nothing goes and a resync stays due; the next one, whole, sweeps. */
static void test_resync_partial(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;

	k_fail_after = 1;
	sh_reset_counts(&s->sh);
	assert_int_equal(agent_fib_sync_resync(a), -EIO);
	assert_int_equal(a->fs.resync_due, 1);
	assert_int_equal(a->fs.resyncs, 0);
	assert_int_equal(s->sh.writes, 0);
	for (int i = 0; i < 3; i++)
		assert_non_null(route16(s, three[i].dst));

	k_fail_after = -1;
	k_n = 2; /* 40.3 withdrawn meanwhile */
	assert_int_equal(agent_fib_sync_resync(a), 0);
	assert_int_equal(a->fs.resync_due, 0);
	assert_int_equal(a->fs.resyncs, 1);
	assert_null(route16(s, "40.3.0.0"));
	assert_non_null(route16(s, "40.2.0.0"));
}

/* ---- LOCAL_REPAIR: withdrawals held while a dead path bounces ---- */

static void test_withdrawal_held(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;
	__u64 now = xfab_mono_ns();

	/* a hold far longer than the test takes, however loaded the box */
	a->cfg.repair_hold_ms = 10000;
	/* eth3 lost its carrier just now, eth2 two hold times ago */
	assert_true(now > 20000000000ull); /* (the monotonic clock counts from boot) */
	a->live[2].oper_up = 0;
	a->down_ns[2] = now;
	a->live[1].oper_up = 0;
	a->down_ns[1] = now - 20000000000ull;
	a->down_ns[0] = now; /* eth1 went down just now, and came back */
	/* without the bounce nothing is held */
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.3.0.0"));
	k_event(s, RTM_NEWROUTE, &three[2]);

	a->cfg.repair_bounce = 1;
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 1);
	assert_int_equal(a->fs.held_total, 1);
	assert_int_equal(egress_of(s, "40.3.0.0"), 12); /* still there, to bounce */
	/* through a live port (back up), or one down for longer: withdrawn at once */
	k_event(s, RTM_DELROUTE, &three[0]);
	k_event(s, RTM_DELROUTE, &three[1]);
	assert_null(route16(s, "40.1.0.0"));
	assert_null(route16(s, "40.2.0.0"));
	assert_int_equal(a->fs.n_held, 1);

	/* installed again: the hold is void, its end deletes nothing */
	k_event(s, RTM_NEWROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 0);
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_non_null(route16(s, "40.3.0.0"));

	/* withdrawn again and held; the hold runs out: deleted */
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 1);
	assert_true(agent_fib_sync_expire(a) > 0); /* ms to wait, within the hold */
	assert_non_null(route16(s, "40.3.0.0"));
	a->fs.held[0].deadline_ns = now - 1;
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.3.0.0"));
}

/* FIB_SYNC withdraw_hold_ms: a withdrawal through ports that are up waits
 * for the route's return (zebra's delete and re-add); through a port that
 * is down it goes at once; the hold's end deletes. */
static void test_withdrawal_brief(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;
	const struct kroute moved = {"40.1.0.0", "10.0.2.2", 11};

	a->cfg.fib_withdraw_hold_ms = 10000; /* longer than the test, however slow */
	k_event(s, RTM_DELROUTE, &three[0]);
	assert_int_equal(a->fs.n_held, 1);
	assert_int_equal(a->fs.brief_total, 1);
	assert_int_equal(egress_of(s, "40.1.0.0"), 10); /* still forwarding */
	/* back, by another port: the withdrawal is void, the new path written */
	k_event(s, RTM_NEWROUTE, &moved);
	assert_int_equal(a->fs.n_held, 0);
	assert_int_equal(egress_of(s, "40.1.0.0"), 11);
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_int_equal(egress_of(s, "40.1.0.0"), 11);
	/* eth3 down (long ago): its route is withdrawn at once */
	a->live[2].oper_up = 0;
	a->down_ns[2] = 1;
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.3.0.0"));
	/* not back: the hold's end withdraws it */
	k_event(s, RTM_DELROUTE, &three[1]);
	assert_int_equal(a->fs.n_held, 1);
	assert_non_null(route16(s, "40.2.0.0"));
	a->fs.held[0].deadline_ns = 1;
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_null(route16(s, "40.2.0.0"));
	assert_int_equal(a->fs.brief_total, 2);
}

/* FIB_SYNC restart_hold_ms: within the hold of the routing daemon's start,
 * a withdrawal through ports that are up is held until the hold's end after
 * the start (not after the withdrawal) and voided by the route's return;
 * through a port that is down, past the hold, or with no daemon running it
 * goes at once (withdraw_hold_ms 0 here). */
static void test_withdrawal_restart(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;
	__u64 now = xfab_mono_ns(), hold = 10000000000ull;

	a->cfg.fib_restart_hold_ms = 10000;
	owner_started = now - 1000000000ull; /* 1 s ago */
	k_event(s, RTM_DELROUTE, &three[0]);
	assert_int_equal(a->fs.n_held, 1);
	assert_int_equal(a->fs.held[0].deadline_ns, owner_started + hold);
	assert_int_equal(a->fs.restart_total, 1);
	assert_int_equal(a->fs.brief_total, 0);
	assert_int_equal(egress_of(s, "40.1.0.0"), 10); /* still forwarding */
	k_event(s, RTM_NEWROUTE, &three[0]);		/* bgpd sent it again */
	assert_int_equal(a->fs.n_held, 0);
	assert_int_equal(egress_of(s, "40.1.0.0"), 10);
	/* through a port that is down: at once */
	a->live[2].oper_up = 0;
	a->down_ns[2] = 1;
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.3.0.0"));
	/* the daemon started longer ago than the hold: at once (looked up
	 * again once the cached start is older than 100 ms) */
	owner_started = now - hold - 1;
	a->fs.owner_seen_ns = 0;
	k_event(s, RTM_DELROUTE, &three[1]);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.2.0.0"));
	/* no daemon runs: at once */
	k_event(s, RTM_NEWROUTE, &three[1]);
	owner_started = 0;
	a->fs.owner_seen_ns = 0;
	k_event(s, RTM_DELROUTE, &three[1]);
	assert_null(route16(s, "40.2.0.0"));
	/* young again, not back by the hold's end: deleted then */
	k_event(s, RTM_NEWROUTE, &three[1]);
	owner_started = xfab_mono_ns();
	a->fs.owner_seen_ns = 0;
	k_event(s, RTM_DELROUTE, &three[1]);
	assert_int_equal(a->fs.n_held, 1);
	assert_true(agent_fib_sync_expire(a) > 9000); /* ms: the start's hold */
	assert_non_null(route16(s, "40.2.0.0"));
	a->fs.held[0].deadline_ns = 1;
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_null(route16(s, "40.2.0.0"));
	assert_int_equal(a->fs.restart_total, 2);
	assert_int_equal(a->fs.brief_total, 0);
}

/* eth3 taken down (admin): 40.3, whose one path it was, stays held and
 * dead; 40.1 and 40.2 are untouched; the hold's end withdraws it. */
static void test_admin_down_held(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;

	a->cfg.repair_hold_ms = 10000;
	a->cfg.repair_bounce = 1;
	a->live[2].oper_up = 0;
	a->down_ns[2] = xfab_mono_ns();
	agent_fib_sync_link_down(a, 12);
	assert_int_equal(a->fs.n_held, 1);
	assert_int_equal(egress_of(s, "40.3.0.0"), 12);
	assert_int_equal(egress_of(s, "40.2.0.0"), 11);
	assert_int_equal(egress_of(s, "40.1.0.0"), 10);
	/* the daemon's own withdrawal, later, finds it held already */
	k_event(s, RTM_DELROUTE, &three[2]);
	assert_int_equal(a->fs.n_held, 1);
	assert_non_null(route16(s, "40.3.0.0"));
	a->fs.held[0].deadline_ns = 1;
	assert_int_equal(agent_fib_sync_expire(a), -1);
	assert_null(route16(s, "40.3.0.0"));
	assert_non_null(route16(s, "40.2.0.0"));
}

/* Without the bounce a port taken down takes its routes at once. */
static void test_admin_down_unheld(void **state)
{
	struct sw *s = *state;
	struct agent *a = s->a;

	a->cfg.repair_hold_ms = 10000;
	a->live[1].oper_up = 0;
	a->down_ns[1] = xfab_mono_ns();
	agent_fib_sync_link_down(a, 11);
	assert_int_equal(a->fs.n_held, 0);
	assert_null(route16(s, "40.2.0.0"));
	assert_non_null(route16(s, "40.3.0.0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_resync_partial, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdrawal_held, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdrawal_brief, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdrawal_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_admin_down_held, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_admin_down_unheld, setup, teardown),
	};

	return cmocka_run_group_tests_name("fibsync", tests, NULL, NULL);
}
