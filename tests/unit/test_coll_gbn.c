// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of xfab-coll's transport pieces: the go-back-N receiver and
 * sender of an RC QP (user/lib/coll.c: in order, a gap answered by one
 * NAK, duplicates, 24-bit PSN wrap, stale ACKs and NAKs, timeouts,
 * retransmissions counted), DCQCN's reaction point against figures worked
 * out by hand (exact fractions, checked separately in Python: cut, alpha,
 * fast recovery, additive and hyper increase, the minimum rate, the return
 * to line rate), and the RoCE headers and pacer (user/lib/roce.c): BTH and
 * AETH bytes against packets written out by hand from the IBTA layout,
 * PSN distances, the pacer's schedule and its bucket, and which SEND
 * opcode each packet of a message carries (IBTA 9.2's values, by hand).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "coll.h"
#include "roce.h"

static void test_rx_in_order(void **state)
{
	struct xfab_gbn_rx rx = {0};

	(void)state;
	for (uint32_t psn = 0; psn < 5; psn++)
		assert_int_equal(xfab_gbn_rx_packet(&rx, psn), XFAB_GBN_ACCEPT);
	assert_int_equal(rx.epsn, 5);
	assert_int_equal(rx.accepted, 5);
	assert_int_equal(rx.oos, 0);
	assert_int_equal(rx.naks, 0);
}

/* A gap: one NAK, the rest of the gap discarded silently, the expected
 * PSN taken, then a new gap NAKed again. */
static void test_rx_gap(void **state)
{
	struct xfab_gbn_rx rx = {0};

	(void)state;
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0), XFAB_GBN_ACCEPT);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 2), XFAB_GBN_NAK); /* 1 lost */
	assert_int_equal(rx.epsn, 1);				    /* the NAK's PSN */
	assert_int_equal(xfab_gbn_rx_packet(&rx, 3), XFAB_GBN_DISCARD);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 4), XFAB_GBN_DISCARD);
	assert_int_equal(rx.oos, 3);
	assert_int_equal(rx.naks, 1);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 1), XFAB_GBN_ACCEPT); /* the resend */
	assert_int_equal(xfab_gbn_rx_packet(&rx, 2), XFAB_GBN_ACCEPT);
	assert_int_equal(rx.epsn, 3);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 5), XFAB_GBN_NAK); /* a new gap */
	assert_int_equal(rx.naks, 2);
	assert_int_equal(rx.accepted, 3);
}

/* Duplicates (a resent window the receiver had) are ignored, not taken,
 * and answered (DUP: the caller ACKs). */
static void test_rx_duplicate(void **state)
{
	struct xfab_gbn_rx rx = {0};

	(void)state;
	for (uint32_t psn = 0; psn < 4; psn++)
		xfab_gbn_rx_packet(&rx, psn);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 2), XFAB_GBN_DUP);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0), XFAB_GBN_DUP);
	assert_int_equal(rx.epsn, 4);
	assert_int_equal(rx.dups, 2);
	assert_int_equal(rx.oos, 0);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 4), XFAB_GBN_ACCEPT);
}

/* PSNs are 24 bits: 0xffffff is followed by 0. */
static void test_rx_wrap(void **state)
{
	struct xfab_gbn_rx rx = {.epsn = 0xfffffe};

	(void)state;
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0xfffffe), XFAB_GBN_ACCEPT);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0xffffff), XFAB_GBN_ACCEPT);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0x000000), XFAB_GBN_ACCEPT);
	assert_int_equal(rx.epsn, 0x1000001);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0xffffff), XFAB_GBN_DUP);
	assert_int_equal(xfab_gbn_rx_packet(&rx, 0x000002), XFAB_GBN_NAK);
	assert_int_equal(xfab_psn_unwrap(0x1000001, 0xffffff), 0xffffff);
	assert_int_equal(xfab_psn_unwrap(0xfffffe, 5), 0x1000005);
	assert_int_equal(xfab_psn_unwrap(3, 0xfffff0), 0); /* before the first */
	assert_int_equal(xfab_psn_diff(2, 0xfffffe), 4);
	assert_int_equal(xfab_psn_diff(0xfffffe, 2), -4);
	assert_int_equal(xfab_psn_diff(7, 7), 0);
}

static void test_tx(void **state)
{
	struct xfab_gbn_tx tx = {0};

	(void)state;
	for (int i = 0; i < 10; i++)
		assert_int_equal(xfab_gbn_tx_next(&tx), (uint64_t)i);
	assert_int_equal(tx.max, 10);
	assert_int_equal(tx.retransmits, 0);
	/* ACK 4: 0..4 done */
	assert_int_equal(xfab_gbn_tx_ack(&tx, 4), 5);
	assert_int_equal(tx.una, 5);
	assert_int_equal(xfab_gbn_tx_ack(&tx, 3), 0);  /* stale */
	assert_int_equal(xfab_gbn_tx_ack(&tx, 12), 0); /* never sent */
	assert_int_equal(tx.una, 5);
	/* NAK 7: 5, 6 done, back to 7 */
	assert_int_equal(xfab_gbn_tx_nak(&tx, 7), 1);
	assert_int_equal(tx.una, 7);
	assert_int_equal(tx.nxt, 7);
	assert_int_equal(xfab_gbn_tx_nak(&tx, 6), 0); /* stale */
	assert_int_equal(xfab_gbn_tx_next(&tx), 7);
	assert_int_equal(xfab_gbn_tx_next(&tx), 8);
	assert_int_equal(tx.retransmits, 2);
	assert_int_equal(xfab_gbn_tx_next(&tx), 9);
	assert_int_equal(xfab_gbn_tx_next(&tx), 10); /* new again */
	assert_int_equal(tx.retransmits, 3);
	assert_int_equal(tx.max, 11);
	/* a timeout goes back to the oldest unacked */
	xfab_gbn_tx_timeout(&tx);
	assert_int_equal(tx.nxt, 7);
	assert_int_equal(tx.timeouts, 1);
	/* an ACK past the rewound position moves it on */
	assert_int_equal(xfab_gbn_tx_ack(&tx, 8), 2);
	assert_int_equal(tx.nxt, 9);
	/* a NAK for everything sent: all acknowledged, nothing to resend */
	assert_int_equal(xfab_gbn_tx_nak(&tx, 11), 1);
	assert_int_equal(tx.una, 11);
	assert_int_equal(xfab_gbn_tx_next(&tx), 11);
	assert_int_equal(tx.retransmits, 3);
	assert_int_equal(tx.naks, 2);
}

/* Sender and receiver together over a lossy wire: every 7th packet lost,
 * NAKs and timeouts; everything arrives once and in order. */
static void test_gbn_together(void **state)
{
	struct xfab_gbn_tx tx = {0};
	struct xfab_gbn_rx rx = {0};
	uint64_t wire = 0, delivered = 0, rounds = 0;

	(void)state;
	while (tx.una < 200 && rounds++ < 10000) {
		int nak = -1;

		/* a window of 16 */
		while (tx.nxt < 200 && tx.nxt - tx.una < 16) {
			uint64_t seq = xfab_gbn_tx_next(&tx);

			if (++wire % 7 == 0)
				continue; /* lost */
			switch (xfab_gbn_rx_packet(&rx, (uint32_t)seq & XFAB_PSN_MASK)) {
			case XFAB_GBN_ACCEPT:
				assert_int_equal(seq, delivered);
				delivered++;
				break;
			case XFAB_GBN_NAK:
				nak = (int)rx.epsn;
				break;
			default:
				break;
			}
		}
		if (rx.epsn)
			xfab_gbn_tx_ack(&tx, (uint32_t)(rx.epsn - 1));
		if (nak >= 0)
			xfab_gbn_tx_nak(&tx, (uint32_t)nak);
		else if (tx.una < tx.nxt)
			xfab_gbn_tx_timeout(&tx);
	}
	assert_int_equal(delivered, 200);
	assert_int_equal(tx.una, 200);
	assert_true(tx.retransmits > 0);
	assert_true(rx.oos > 0);
}

/* RFC 6298's estimator, worked by hand (ms): 8 -> srtt 8, rttvar 4,
 * RTO 8 + 4 x 4 = 24; then 4 -> rttvar (3 x 4 + 4) / 4 = 4, srtt (7 x 8 +
 * 4) / 8 = 7.5, RTO 23.5; clamped to min and max; G the floor of 4 rttvar. */
/*
 * The RTO's bounds (docs/TOOLS.md's rule: min = max(10 ms, 2 x a rank's
 * window at its rate), max = max(200 ms, 8 x min)), figures worked by
 * hand: 40 Mbit/s is 5,000,000 B/s; 512 packets of 1,082 wire bytes take
 * 512 x 1082 / 5e6 s = 110.7968 ms, twice that 221.5936 ms, 8 x that
 * 1772.7488 ms. At 10 Gbit/s (1.25e9 B/s) twice the window is 0.886 ms,
 * under the 10 ms floor.
 */
static void test_rto_bounds(void **state)
{
	const uint64_t ms = 1000000;
	uint64_t min, max;

	(void)state;
	min = max = 0;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(min, 221593600);
	assert_int_equal(max, 1772748800);
	min = max = 0;
	xfab_rto_bounds(1250000000, 512, 1082, &min, &max);
	assert_int_equal(min, 10 * ms);
	assert_int_equal(max, 200 * ms);
	min = max = 0; /* unpaced: the floors */
	xfab_rto_bounds(0, 512, 1082, &min, &max);
	assert_int_equal(min, 10 * ms);
	assert_int_equal(max, 200 * ms);
	/* 25 ms: 8 x 25 = 200, the ceiling exactly; 30 ms: 240 */
	min = 25 * ms, max = 0;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(min, 25 * ms);
	assert_int_equal(max, 200 * ms);
	min = 30 * ms, max = 0;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(max, 240 * ms);
	/* a maximum below the derived minimum: the minimum is taken down to it */
	min = 0, max = 100 * ms;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(min, 100 * ms);
	assert_int_equal(max, 100 * ms);
	/* a maximum above it: kept, the minimum the rule's */
	min = 0, max = 5000 * ms;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(min, 221593600);
	assert_int_equal(max, 5000 * ms);
	/* both given: both kept */
	min = 3 * ms, max = 7 * ms;
	xfab_rto_bounds(5000000, 512, 1082, &min, &max);
	assert_int_equal(min, 3 * ms);
	assert_int_equal(max, 7 * ms);
}

/* The RTO clock moves on by the time PFC paused the rank, never past now. */
static void test_rto_clock(void **state)
{
	(void)state;
	assert_int_equal(xfab_rto_clock(1000, 0, 5000), 1000);
	assert_int_equal(xfab_rto_clock(1000, 2500, 5000), 3500);
	assert_int_equal(xfab_rto_clock(1000, 4000, 5000), 5000);
	assert_int_equal(xfab_rto_clock(1000, 9000, 5000), 5000);
}

static void test_rtt(void **state)
{
	const uint64_t ms = 1000000;
	struct xfab_rtt e = {0};

	(void)state;
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 10 * ms, 200 * ms), 10 * ms);
	xfab_rtt_sample(&e, 8 * ms);
	assert_int_equal(e.srtt, 8 * ms);
	assert_int_equal(e.rttvar, 4 * ms);
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 10 * ms, 200 * ms), 24 * ms);
	xfab_rtt_sample(&e, 4 * ms);
	assert_int_equal(e.rttvar, 4 * ms);
	assert_int_equal(e.srtt, 7500000);
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 10 * ms, 200 * ms), 23500000);
	assert_int_equal(e.samples, 2);
	/* 100 us: 0.1 + max(G 2, 0.2) = 2.1 ms, below the minimum */
	e = (struct xfab_rtt){0};
	xfab_rtt_sample(&e, 100000);
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 1 * ms, 200 * ms), 2100000);
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 10 * ms, 200 * ms), 10 * ms);
	/* 1 s: above the maximum */
	e = (struct xfab_rtt){0};
	xfab_rtt_sample(&e, 1000 * ms);
	assert_int_equal(xfab_rtt_rto(&e, 10 * ms, 2 * ms, 10 * ms, 200 * ms), 200 * ms);
}

/* DCQCN at a line rate of 10^9 bytes/s with xfab-coll's parameters (g
 * 1/256, K = T = 55 us, B 128 KiB, F 5, R_AI 5e6 B/s, R_HAI 25e6 B/s). */
static void test_dcqcn(void **state)
{
	struct xfab_dcqcn d;

	(void)state;
	xfab_dcqcn_init(&d, &xfab_dcqcn_defaults, 1000000000, 0);
	assert_int_equal(d.rc, 1000000000);
	/* CNP: rt = 1e9, rc = 1e9 * (1 - 1/2), alpha = 255/256 + 1/256 = 1 */
	xfab_dcqcn_cnp(&d, 0);
	assert_int_equal(d.rt, 1000000000);
	assert_int_equal(d.rc, 500000000);
	assert_float_equal(d.alpha, 1.0, 0);
	/* 55 us: alpha 255/256; fast recovery rc = (1e9 + 5e8) / 2 */
	xfab_dcqcn_time(&d, 55000);
	assert_float_equal(d.alpha, 0.99609375, 0);
	assert_int_equal(d.rc, 750000000);
	assert_int_equal(d.rt, 1000000000);
	/* CNP at 60 us: rt = 7.5e8, rc = 7.5e8 * (1 - 0.99609375 / 2) =
	 * 376464843.75, alpha = 65281/65536 */
	xfab_dcqcn_cnp(&d, 60000);
	assert_int_equal(d.rt, 750000000);
	assert_int_equal(d.rc, 376464843);
	assert_float_equal(d.alpha, 65281.0 / 65536, 0);
	assert_int_equal(d.cuts, 2);
	/* 5 timer periods: fast recovery towards rt, rounding up */
	xfab_dcqcn_time(&d, 60000 + 2 * 55000);
	assert_int_equal(d.rc, 656616211);
	xfab_dcqcn_time(&d, 60000 + 5 * 55000);
	assert_int_equal(d.rc, 738327027);
	assert_int_equal(d.rt, 750000000);
	assert_int_equal(d.t_cnt, 5);
	/* the 6th: additive, rt + 5e6 */
	xfab_dcqcn_time(&d, 60000 + 6 * 55000);
	assert_int_equal(d.rt, 755000000);
	assert_int_equal(d.rc, 746663514);
	{
		double want = 65281.0 / 65536; /* decayed by 255/256 six times */

		for (int i = 0; i < 6; i++)
			want *= 255.0 / 256;
		assert_float_equal(d.alpha, want, 1e-15);
	}
	/* the byte counter: 128 KiB, one event (additive: T_cnt 6 > F) */
	xfab_dcqcn_sent(&d, 100000);
	assert_int_equal(d.rc, 746663514);
	xfab_dcqcn_sent(&d, 31072);
	assert_int_equal(d.bc_cnt, 1);
	assert_int_equal(d.rt, 760000000);
	assert_int_equal(d.rc, 753331757);
	/* 4 more additive, then both counters past F: hyper, rt + 25e6 */
	xfab_dcqcn_sent(&d, 4ull * 131072);
	assert_int_equal(d.rt, 780000000);
	assert_int_equal(d.rc, 774895735);
	xfab_dcqcn_sent(&d, 131072);
	assert_int_equal(d.rt, 805000000);
	assert_int_equal(d.rc, 789947868);
	/* a second idle: back at line rate, and it stays there */
	xfab_dcqcn_time(&d, 2000000000);
	assert_int_equal(d.rc, 1000000000);
	assert_int_equal(d.rt, 1000000000);
	xfab_dcqcn_time(&d, 2000055000);
	assert_int_equal(d.rc, 1000000000);

	/* the floor: 2e6 B/s cut in half is below 10 Mbit/s */
	xfab_dcqcn_init(&d, &xfab_dcqcn_defaults, 2000000, 0);
	xfab_dcqcn_cnp(&d, 0);
	assert_int_equal(d.rc, 1250000);
}

/* BTH (IBTA vol. 1, 9.2): opcode, SE|M|pad|TVer, P_Key, reserved, DestQP
 * (3), A|reserved, PSN (3). */
static void test_bth(void **state)
{
	/* RC SEND FIRST to QP 0x000123, A bit, PSN 0xabcdef */
	static const uint8_t first[12] = {0x00, 0x00, 0xff, 0xff, 0x00, 0x00,
					  0x01, 0x23, 0x80, 0xab, 0xcd, 0xef};
	/* xfab-roce's packet: SEND ONLY to QP 0x100, PSN 5, no A bit */
	static const uint8_t only[12] = {0x04, 0x00, 0xff, 0xff, 0x00, 0x00,
					 0x01, 0x00, 0x00, 0x00, 0x00, 0x05};
	/* a NAK (PSN sequence error) to QP 0x010203 expecting PSN 7, MSN 5 */
	static const uint8_t nak[16] = {0x11, 0x00, 0xff, 0xff, 0x00, 0x01, 0x02, 0x03,
					0x00, 0x00, 0x00, 0x07, 0x60, 0x00, 0x00, 0x05};
	uint8_t b[16];
	struct xfab_bth h;
	uint8_t syn;
	uint32_t msn;

	(void)state;
	memset(b, 0xaa, sizeof(b));
	xfab_bth_put(b, &(struct xfab_bth){.opcode = XFAB_OP_RC_SEND_FIRST,
					   .pkey = XFAB_DEFAULT_PKEY,
					   .dqpn = 0x123,
					   .ackreq = 1,
					   .psn = 0xabcdef});
	assert_memory_equal(b, first, 12);
	assert_int_equal(b[12], 0xaa); /* nothing past the header */
	xfab_bth_put(b, &(struct xfab_bth){.opcode = XFAB_OP_RC_SEND_ONLY,
					   .pkey = XFAB_DEFAULT_PKEY,
					   .dqpn = 0x100,
					   .psn = 5});
	assert_memory_equal(b, only, 12);
	/* 24-bit fields are cut */
	xfab_bth_put(b, &(struct xfab_bth){.opcode = XFAB_OP_CNP,
					   .pkey = XFAB_DEFAULT_PKEY,
					   .dqpn = 0x7123456,
					   .psn = 0x1000002});
	assert_int_equal(b[0], 0x81);
	assert_int_equal(b[5], 0x12);
	assert_int_equal(b[7], 0x56);
	assert_int_equal(b[9], 0x00);
	assert_int_equal(b[11], 0x02);

	assert_int_equal(xfab_bth_get(nak, sizeof(nak), &h), 0);
	assert_int_equal(h.opcode, XFAB_OP_RC_ACK);
	assert_int_equal(h.pkey, 0xffff);
	assert_int_equal(h.dqpn, 0x010203);
	assert_int_equal(h.ackreq, 0);
	assert_int_equal(h.psn, 7);
	assert_int_equal(xfab_aeth_get(nak + 12, 4, &syn, &msn), 0);
	assert_int_equal(syn, XFAB_AETH_NAK_PSN_SEQ);
	assert_true(XFAB_AETH_IS_NAK(syn));
	assert_false(XFAB_AETH_IS_NAK(XFAB_AETH_ACK));
	assert_int_equal(msn, 5);
	xfab_bth_put(b, &h);
	xfab_aeth_put(b + 12, syn, msn);
	assert_memory_equal(b, nak, 16);
	assert_int_equal(xfab_bth_get(first, sizeof(first), &h), 0);
	assert_int_equal(h.ackreq, 1);
	assert_int_equal(h.psn, 0xabcdef);
	assert_int_equal(xfab_bth_get(first, 11, &h), -1);
	assert_int_equal(xfab_aeth_get(nak, 3, &syn, &msn), -1);
}

/* The pacer: unit n leaves at start + n / rate; a sender late by more
 * than the bucket catches up by the bucket only. */
static void test_pacer(void **state)
{
	struct xfab_pacer p;

	(void)state;
	xfab_pacer_init(&p, 1000, 8, 0); /* 1,000 units/s: 1 ms each */
	assert_int_equal(xfab_pacer_due(&p, 0, 0), 0);
	xfab_pacer_add(&p, 1);
	assert_int_equal(xfab_pacer_due(&p, 0, 0), 1000000);
	xfab_pacer_add(&p, 9);
	assert_int_equal(xfab_pacer_due(&p, 5000000, 0), 10000000);
	assert_int_equal(xfab_pacer_due(&p, 5000000, 250), 10000250); /* extra idle time */
	/* 100 ms: 90 ms late, the bucket (8 ms) kept, the rest dropped */
	assert_int_equal(xfab_pacer_due(&p, 100000000, 0), 92000000);
	assert_int_equal(p.start, 82000000);
	/* within the bucket nothing is dropped */
	xfab_pacer_add(&p, 3);
	assert_int_equal(xfab_pacer_due(&p, 100000000, 0), 95000000);
	/* a new rate from the next due time */
	xfab_pacer_set_rate(&p, 2000, 100000000);
	assert_int_equal(p.start, 95000000);
	xfab_pacer_add(&p, 2);
	assert_int_equal(xfab_pacer_due(&p, 95000000, 0), 96000000);
	/* unpaced */
	xfab_pacer_init(&p, 0, 8, 0);
	xfab_pacer_add(&p, 1000);
	assert_int_equal(xfab_pacer_due(&p, 5, 0), 0);
	/* bytes at 10 Gbit/s: 1250 bytes take 1 us */
	xfab_pacer_init(&p, 1250000000, 16384, 0);
	xfab_pacer_add(&p, 1250);
	assert_int_equal(xfab_pacer_due(&p, 0, 0), 1000);
}

/* A message's packets: one alone is SEND ONLY (0x04); else FIRST (0x00),
 * MIDDLE (0x01) ..., LAST (0x02). */
static void test_send_opcode(void **state)
{
	(void)state;
	assert_int_equal(xfab_rc_send_opcode(0, 1), 0x04);
	assert_int_equal(xfab_rc_send_opcode(0, 2), 0x00);
	assert_int_equal(xfab_rc_send_opcode(1, 2), 0x02);
	assert_int_equal(xfab_rc_send_opcode(0, 5), 0x00);
	for (uint64_t j = 1; j < 4; j++)
		assert_int_equal(xfab_rc_send_opcode(j, 5), 0x01);
	assert_int_equal(xfab_rc_send_opcode(4, 5), 0x02);
	assert_int_equal(xfab_rc_send_opcode(1ull << 32, (1ull << 32) + 1), 0x02);
	assert_int_equal(xfab_rc_send_opcode(1ull << 32, (1ull << 32) + 2), 0x01);
}

static void test_default_tc(void **state)
{
	(void)state;
	assert_int_equal(xfab_default_tc(3), 3);
	assert_int_equal(xfab_default_tc(4), 4);
	assert_int_equal(xfab_default_tc(46), 5);
	assert_int_equal(xfab_default_tc(48), 6);
	assert_int_equal(xfab_default_tc(8), 0);
	assert_int_equal(xfab_default_tc(5), 2);
	assert_int_equal(xfab_default_tc(0), 1);
	assert_int_equal(xfab_default_tc(0x0e >> 2), 3); /* xfab-coll's default TOS */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rx_in_order),	 cmocka_unit_test(test_rx_gap),
	    cmocka_unit_test(test_rx_duplicate), cmocka_unit_test(test_rx_wrap),
	    cmocka_unit_test(test_tx),		 cmocka_unit_test(test_gbn_together),
	    cmocka_unit_test(test_rtt),		 cmocka_unit_test(test_rto_bounds),
	    cmocka_unit_test(test_rto_clock),	 cmocka_unit_test(test_dcqcn),
	    cmocka_unit_test(test_bth),		 cmocka_unit_test(test_pacer),
	    cmocka_unit_test(test_default_tc),	 cmocka_unit_test(test_send_opcode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
