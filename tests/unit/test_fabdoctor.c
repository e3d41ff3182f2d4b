// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the fabric doctor's analysis (user/lib/fabdoctor.c) on
 * planted snapshots of a small fabric written out here (two spines, two
 * leaves, a host on each). Each case plants counters before and after a
 * window (before is not zero: the analysis works on the difference) and
 * checks what the doctor must conclude; every expected figure, sentence
 * and order below is worked out by hand in the comment beside it, not by
 * the code under test: a clean fabric names nothing; a lossy link is named
 * with its evidence; damaged frames are found by drop reason and bounded
 * per port; counts whose low end is just under the threshold (frames in
 * flight between two reads) name nothing, just over do, and so does the
 * floor; two faults rank by the low end of their rates.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabdoctor.h"
#include "names.h"

/* spine1 eth1 - leaf1 eth1, spine1 eth2 - leaf2 eth1, spine2 eth1 - leaf1
 * eth2, spine2 eth2 - leaf2 eth2; leaf1 eth3 - h1, leaf2 eth3 - h2. */
static const char fabric_text[] =
    "{\"name\": \"t\", \"switches\": {\n"
    " \"spine1\": {\"role\": \"spine\", \"tier\": 2, \"netns\": \"t-spine1\", \"pins\": "
    "\"/p/s1\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth1\", \"direction\": "
    "\"down\"},\n"
    "            \"eth2\": {\"peer\": \"leaf2\", \"peer_port\": \"eth1\", \"direction\": "
    "\"down\"}}},\n"
    " \"spine2\": {\"role\": \"spine\", \"tier\": 2, \"netns\": \"t-spine2\", \"pins\": "
    "\"/p/s2\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth2\", \"direction\": "
    "\"down\"},\n"
    "            \"eth2\": {\"peer\": \"leaf2\", \"peer_port\": \"eth2\", \"direction\": "
    "\"down\"}}},\n"
    " \"leaf1\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": \"t-leaf1\", \"pins\": \"/p/l1\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth1\", \"direction\": "
    "\"up\"},\n"
    "            \"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth1\", \"direction\": "
    "\"up\"},\n"
    "            \"eth3\": {\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": "
    "\"down\"}}},\n"
    " \"leaf2\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": \"t-leaf2\", \"pins\": \"/p/l2\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth2\", \"direction\": "
    "\"up\"},\n"
    "            \"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth2\", \"direction\": "
    "\"up\"},\n"
    "            \"eth3\": {\"peer\": \"h2\", \"peer_port\": \"eth0\", \"direction\": "
    "\"down\"}}}},\n"
    " \"hosts\": {\n"
    "  \"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", \"port\": \"eth0\", \"ipv4\": "
    "\"10.1.1.2/24\", \"netns\": \"t-h1\"},\n"
    "  \"h2\": {\"leaf\": \"leaf2\", \"leaf_port\": \"eth3\", \"port\": \"eth0\", \"ipv4\": "
    "\"10.2.1.2/24\", \"netns\": \"t-h2\"}},\n"
    " \"links\": [\n"
    "  {\"upper\": \"spine1\", \"upper_port\": \"eth1\", \"lower\": \"leaf1\", \"lower_port\": "
    "\"eth1\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine1\", \"upper_port\": \"eth2\", \"lower\": \"leaf2\", \"lower_port\": "
    "\"eth1\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine2\", \"upper_port\": \"eth1\", \"lower\": \"leaf1\", \"lower_port\": "
    "\"eth2\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine2\", \"upper_port\": \"eth2\", \"lower\": \"leaf2\", \"lower_port\": "
    "\"eth2\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"leaf1\", \"upper_port\": \"eth3\", \"lower\": \"h1\", \"lower_port\": "
    "\"eth0\", \"kind\": \"leaf-host\"},\n"
    "  {\"upper\": \"leaf2\", \"upper_port\": \"eth3\", \"lower\": \"h2\", \"lower_port\": "
    "\"eth0\", \"kind\": \"leaf-host\"}]}\n";

struct fix {
	uint64_t queued[4 * XFAB_FAB_MAX_PORTS]; /* at the window's close */
	struct xfab_fabric f;
	struct xfab_fab_snap before, after;
	struct xfab_doc_opts o;
	struct xfab_doc_result r;
};

static struct xfab_fab_port_ctr *port(struct fix *x, struct xfab_fab_snap *s, const char *sw,
				      const char *p)
{
	int si = xfab_fab_switch_find(&x->f, sw), pi;

	if (si < 0)
		fail_msg("no switch %s", sw);
	pi = xfab_fab_port_find(&x->f.switches[si], p);
	if (pi < 0)
		fail_msg("no port %s %s", sw, p);
	return &s->sw[si].ports[pi];
}

static uint64_t *drops(struct fix *x, struct xfab_fab_snap *s, const char *sw, unsigned int r)
{
	return &s->sw[xfab_fab_switch_find(&x->f, sw)].drop_packets[r];
}

/* Counters the fabric had before the window: not zero, different per
 * port, so a case that forgot the difference sees nonsense. */
static int setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	char err[256];

	assert_non_null(x);
	if (xfab_fabric_parse(fabric_text, &x->f, err, sizeof(err)))
		fail_msg("the fabric is refused: %s", err);
	assert_int_equal(xfab_fab_snap_init(&x->before, &x->f), 0);
	assert_int_equal(xfab_fab_snap_init(&x->after, &x->f), 0);
	for (unsigned int s = 0; s < x->f.n_switches; s++) {
		for (unsigned int p = 0; p < x->f.switches[s].n_ports; p++) {
			struct xfab_fab_port_ctr *c = &x->before.sw[s].ports[p];

			c->rx_packets = 7000000 + 1000 * s + p;
			c->tx_packets = 9000000 + 1000 * s + p;
			c->punts = 300 + s;
			c->drops = 20 + p;
		}
		x->before.sw[s].drop_packets[XFAB_DROP_IPV4_BAD_CHECKSUM] = 5;
		x->before.sw[s].drop_packets[XFAB_DROP_NO_ROUTE] = 15 + s;
	}
	memcpy(x->after.sw, x->before.sw, x->f.n_switches * sizeof(*x->before.sw));
	x->before.time = 1000.0;
	x->after.time = 1002.0;
	x->o.threshold = XFAB_DOC_THRESHOLD_DEFAULT;
	x->o.min_bad = XFAB_DOC_MIN_BAD_DEFAULT;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fix *x = *state;

	xfab_doc_result_free(&x->r);
	xfab_fab_snap_free(&x->before);
	xfab_fab_snap_free(&x->after);
	xfab_fabric_free(&x->f);
	free(x);
	return 0;
}

/* In the window: tx frames out of one end, rx of them at the other, and
 * `punts` frames from the sender's kernel (BGP, BFD) arrived and punted. */
static void flow(struct fix *x, const char *tsw, const char *tp, const char *rsw, const char *rp,
		 uint64_t tx, uint64_t rx, uint64_t punts)
{
	port(x, &x->after, tsw, tp)->tx_packets += tx;
	port(x, &x->after, rsw, rp)->rx_packets += rx + punts;
	port(x, &x->after, rsw, rp)->punts += punts;
}

/* Every direction of every spine-leaf link carries 100,000 frames, all
 * arriving, and 60 control frames from the peer's kernel. */
static void clean_traffic(struct fix *x)
{
	static const char *const l[][4] = {
	    {"leaf1", "eth1", "spine1", "eth1"},
	    {"leaf2", "eth1", "spine1", "eth2"},
	    {"leaf1", "eth2", "spine2", "eth1"},
	    {"leaf2", "eth2", "spine2", "eth2"},
	};

	for (size_t i = 0; i < 4; i++) {
		flow(x, l[i][0], l[i][1], l[i][2], l[i][3], 100000, 100000, 60);
		flow(x, l[i][2], l[i][3], l[i][0], l[i][1], 100000, 100000, 60);
	}
}

static void assert_near(double got, double want, double eps)
{
	if (fabs(got - want) > eps)
		fail_msg("%.15g, not %.15g", got, want);
}

static void analyse(struct fix *x)
{
	xfab_doc_result_free(&x->r);
	assert_int_equal(xfab_doc_analyse(&x->f, &x->before, &x->after, x->queued, &x->o, &x->r),
			 0);
	assert_int_equal(x->r.resets, 0);
}

static const struct xfab_doc_dir *suspect(struct fix *x, unsigned int i)
{
	assert_true(i < x->r.n_suspects);
	return &x->r.dirs[x->r.ranked[i]];
}

static void assert_why(struct fix *x, const struct xfab_doc_dir *d, const char *want)
{
	char why[512];

	xfab_doc_why(&x->f, d, why, sizeof(why));
	assert_string_equal(why, want);
}

static void test_clean(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	analyse(x);
	/* 4 spine-leaf links, 2 directions each; the host links have none */
	assert_int_equal(x->r.n_dirs, 8);
	assert_near(x->r.window_s, 2.0, 1e-9);
	assert_int_equal(x->r.n_suspects, 0);
	for (unsigned int i = 0; i < x->r.n_dirs; i++) {
		assert_int_equal(x->r.dirs[i].sent, 100000);
		/* rx 100,060 less 60 punted */
		assert_int_equal(x->r.dirs[i].arrived, 100000);
		assert_int_equal(x->r.dirs[i].lost, 0);
		assert_false(x->r.dirs[i].suspect);
	}
	/* the first direction: link 0 (spine1 eth1 - leaf1 eth1) up */
	assert_why(x, &x->r.dirs[0],
		   "leaf1 eth1 -> spine1 eth1: sent 100,000, received 100,000, lost 0 (0.00 %)");
}

static void test_lossy_link(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	/* leaf2 eth1 -> spine1 eth2: 1,010 of its 100,000 never arrive */
	port(x, &x->after, "spine1", "eth2")->rx_packets -= 1010;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	/* link 1 up is dirs[2] */
	assert_int_equal(x->r.ranked[0], 2);
	assert_int_equal(suspect(x, 0)->lost, 1010);
	assert_int_equal(suspect(x, 0)->bad, 1010);
	assert_near(suspect(x, 0)->rate, 0.0101, 1e-12);
	assert_why(x, suspect(x, 0),
		   "leaf2 eth1 -> spine1 eth2: sent 100,000, received 98,990, lost 1,010 (1.01 %)");
	/* the other way over the same cable is clean */
	assert_false(x->r.dirs[3].suspect);
	assert_int_equal(x->r.dirs[3].lost, 0);
}

static void test_damaged_frames(void **state)
{
	struct fix *x = *state;
	const struct xfab_doc_dir *d;

	clean_traffic(x);
	/* spine2 eth1 -> leaf1 eth2: every frame arrives, 400 of them with a
	 * bad IPv4 checksum, dropped at leaf1 eth2 (its port drops +400) */
	*drops(x, &x->after, "leaf1", XFAB_DROP_IPV4_BAD_CHECKSUM) += 400;
	port(x, &x->after, "leaf1", "eth2")->drops += 400;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	d = suspect(x, 0);
	assert_int_equal(x->r.ranked[0], 5); /* link 2 down */
	assert_int_equal(d->lost, 0);
	assert_int_equal(d->damaged_lo, 400);
	assert_int_equal(d->damaged_hi, 400);
	assert_int_equal(d->bad, 400);
	assert_true(d->damage_reasons == 1ull << XFAB_DROP_IPV4_BAD_CHECKSUM);
	assert_why(x, d,
		   "spine2 eth1 -> leaf1 eth2: sent 100,000, received 100,000, lost 0 (0.00 %), "
		   "damaged 400 (0.40 %: ipv4_bad_checksum)");
	/* leaf1's other spine port dropped nothing: no share of it */
	assert_int_equal(x->r.dirs[1].damaged_hi, 0);
	assert_false(x->r.dirs[1].suspect);

	/* leaf1's host port drops 100 for no route as well: eth2's share is
	 * now at least 400 - 100 = 300, at most min(400, 400) = 400; the
	 * host port's no-route drops are no damage */
	*drops(x, &x->after, "leaf1", XFAB_DROP_NO_ROUTE) += 100;
	port(x, &x->after, "leaf1", "eth3")->drops += 100;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	d = suspect(x, 0);
	assert_int_equal(d->damaged_lo, 300);
	assert_int_equal(d->damaged_hi, 400);
	assert_int_equal(d->bad, 300);
	assert_why(x, d,
		   "spine2 eth1 -> leaf1 eth2: sent 100,000, received 100,000, lost 0 (0.00 %), "
		   "damaged 300 to 400 (ipv4_bad_checksum at leaf1; other ports dropped too)");
}

static void test_damage_reasons(void **state)
{
	(void)state;
	assert_true(xfab_doc_damage_reason(XFAB_DROP_IPV4_BAD_CHECKSUM));
	assert_true(xfab_doc_damage_reason(XFAB_DROP_IPV4_BAD_LENGTH));
	assert_true(xfab_doc_damage_reason(XFAB_DROP_ETH_TRUNCATED));
	assert_false(xfab_doc_damage_reason(XFAB_DROP_NO_ROUTE));
	assert_false(xfab_doc_damage_reason(XFAB_DROP_ACL_DROP));
	assert_false(xfab_doc_damage_reason(XFAB_DROP_BUFFER_FULL));
	assert_false(xfab_doc_damage_reason(XFAB_DROP_NONE));
}

/* Frames in flight between two reads (or counted late on a loaded box), a
 * few frames short on a clean link, or a share not clearly above the
 * threshold, must name nothing. The rule: bad >= 10 and the low end
 * (bad - 3 sqrt(bad)) / sent above 0.1 %. */
static void test_noise_below_rule(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	/* 17 frames short on a 5,000-frame direction: 0.34 %, but its low end
	 * (17 - 3 x 4.1231) / 5,000 = 4.631 / 5,000 = 0.0926 % is not above */
	port(x, &x->after, "leaf1", "eth1")->tx_packets -= 95000;
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 95000 + 17;
	/* 134 short of 100,000: (134 - 3 x 11.5758) / 100,000 = 0.0993 % */
	port(x, &x->after, "leaf2", "eth2")->rx_packets -= 134;
	/* 100 short of 100,000: exactly 0.1 %, its low end (100 - 30) 0.07 % */
	port(x, &x->after, "leaf1", "eth2")->rx_packets -= 100;
	/* received more than sent (the sender's kernel forwarded some): no loss */
	port(x, &x->after, "leaf2", "eth1")->rx_packets += 500;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 0);
	assert_int_equal(x->r.dirs[0].lost, 17);
	assert_int_equal(x->r.dirs[7].lost, 134);
	assert_int_equal(x->r.dirs[5].lost, 100);
	assert_int_equal(x->r.dirs[3].lost, 0);

	/* one frame more each: 18 of 5,000, (18 - 12.728) / 5,000 = 0.1054 %,
	 * and 135 of 100,000, (135 - 34.857) / 100,000 = 0.1001 %: suspect */
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 1;
	port(x, &x->after, "leaf2", "eth2")->rx_packets -= 1;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 2);
	assert_true(x->r.dirs[0].suspect);
	assert_true(x->r.dirs[7].suspect);
	assert_false(x->r.dirs[5].suspect);
	/* a floor of 20 frames (--min-frames) keeps the 18 out */
	x->o.min_bad = 20;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	assert_true(x->r.dirs[7].suspect);
	/* ... and 135 frames is the floor itself: still named */
	x->o.min_bad = 135;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	/* a higher threshold (0.5 %) names neither */
	x->o.min_bad = XFAB_DOC_MIN_BAD_DEFAULT;
	x->o.threshold = 0.005;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 0);
}

/* --threshold 0 --min-frames 1: any loss beyond the noise. 9 frames short
 * of 100,000 have a low end of 0 (9 - 3 x 3): none; 10 have 10 - 9.487 > 0:
 * suspect. */
static void test_threshold_zero(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	x->o.threshold = 0;
	x->o.min_bad = 1;
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 9;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 0);
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 1;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	assert_true(x->r.dirs[0].suspect);
}

/* Frames still in the sender's egress queue when the window closes were
 * counted as sent and will arrive: not lost. */
static void test_queued_in_flight(void **state)
{
	struct fix *x = *state;
	int l1 = xfab_fab_switch_find(&x->f, "leaf1");
	struct xfab_fab_port_ctr *tx = port(x, &x->after, "leaf1", "eth1");

	clean_traffic(x);
	/* leaf1 eth1 -> spine1 eth1 (dirs[0]): 10,000 frames of 1,200 bytes
	 * sent, 9,960 arrived (40 short: 0.40 %, above floor and threshold),
	 * and leaf1 eth1's queues held 48,000 bytes at the close: 40 frames */
	tx->tx_packets -= 90000;
	tx->tx_bytes += 12000000;
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 90000 + 40;
	XFAB_DOC_QUEUED(x->queued, l1, 0) = 48000;
	analyse(x);
	assert_int_equal(x->r.dirs[0].in_flight, 40);
	assert_int_equal(x->r.dirs[0].lost, 0);
	assert_int_equal(x->r.n_suspects, 0);
	/* 47,999 bytes are still 40 frames (rounded up) */
	XFAB_DOC_QUEUED(x->queued, l1, 0) = 47999;
	analyse(x);
	assert_int_equal(x->r.dirs[0].in_flight, 40);
	assert_int_equal(x->r.n_suspects, 0);
	/* 100 lost beside the 40 queued: 9,860 arrived; lost 100 (1.00 %) */
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 100;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 1);
	assert_int_equal(suspect(x, 0)->lost, 100);
	assert_why(x, suspect(x, 0),
		   "leaf1 eth1 -> spine1 eth1: sent 10,000, received 9,860, 40 in flight, lost 100 "
		   "(1.00 %)");
	/* what another port has queued is not this link's */
	XFAB_DOC_QUEUED(x->queued, l1, 0) = 0;
	XFAB_DOC_QUEUED(x->queued, l1, 1) = 48000;
	analyse(x);
	assert_int_equal(x->r.dirs[0].in_flight, 0);
	assert_int_equal(x->r.dirs[0].lost, 140);
}

static void test_two_faults_ranked(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	/* A: leaf1 eth1 -> spine1 eth1 loses 2,000 of 100,000 (2 %);
	 * B: spine2 eth2 -> leaf2 eth2 loses 500 of 100,000 (0.5 %) */
	port(x, &x->after, "spine1", "eth1")->rx_packets -= 2000;
	port(x, &x->after, "leaf2", "eth2")->rx_packets -= 500;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 2);
	assert_int_equal(x->r.ranked[0], 0); /* A: link 0 up */
	assert_int_equal(x->r.ranked[1], 7); /* B: link 3 down */

	/* The rate's low end, not the rate: C, spine1 eth2 -> leaf2 eth1,
	 * loses 40 of 2,000 (2 %): (40 - 3 sqrt 40) / 2,000 = (40 - 18.97) /
	 * 2,000 = 1.05 %; D, leaf1 eth2 -> spine2 eth1, loses 1,500 of
	 * 100,000 (1.5 %): (1,500 - 3 sqrt 1,500) / 100,000 = (1,500 -
	 * 116.19) / 100,000 = 1.38 %. D outranks C; A (2,000 of 100,000:
	 * (2,000 - 134.16) / 100,000 = 1.87 %) outranks both, B ((500 -
	 * 67.08) / 100,000 = 0.43 %) comes last. */
	port(x, &x->after, "spine1", "eth2")->tx_packets -= 98000;
	port(x, &x->after, "leaf2", "eth1")->rx_packets -= 98000 + 40;
	port(x, &x->after, "spine2", "eth1")->rx_packets -= 1500;
	analyse(x);
	assert_int_equal(x->r.n_suspects, 4);
	assert_int_equal(x->r.ranked[0], 0); /* A */
	assert_int_equal(x->r.ranked[1], 4); /* D: link 2 up */
	assert_int_equal(x->r.ranked[2], 3); /* C: link 1 down */
	assert_int_equal(x->r.ranked[3], 7); /* B */
	assert_near(suspect(x, 2)->rank, (40 - 3 * 6.324555320336759) / 2000, 1e-12);
}

/* A counter cleared in the window is reported, not taken for loss. */
static void test_reset(void **state)
{
	struct fix *x = *state;

	clean_traffic(x);
	port(x, &x->after, "spine1", "eth1")->rx_packets = 100060;
	xfab_doc_result_free(&x->r);
	assert_int_equal(xfab_doc_analyse(&x->f, &x->before, &x->after, NULL, &x->o, &x->r), 0);
	assert_int_equal(x->r.resets, 1);
	assert_string_equal(x->r.reset_note, "spine1 eth1 rx_packets 100060 < 7000000");
}

static void test_count(void **state)
{
	char b[32];

	(void)state;
	xfab_doc_count(0, b, sizeof(b));
	assert_string_equal(b, "0");
	xfab_doc_count(999, b, sizeof(b));
	assert_string_equal(b, "999");
	xfab_doc_count(1000, b, sizeof(b));
	assert_string_equal(b, "1,000");
	xfab_doc_count(98990, b, sizeof(b));
	assert_string_equal(b, "98,990");
	xfab_doc_count(18446744073709551615ull, b, sizeof(b));
	assert_string_equal(b, "18,446,744,073,709,551,615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_clean, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lossy_link, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_frames, setup, teardown),
	    cmocka_unit_test(test_damage_reasons),
	    cmocka_unit_test_setup_teardown(test_noise_below_rule, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_threshold_zero, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_queued_in_flight, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_faults_ranked, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	    cmocka_unit_test(test_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
