/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_packets' runs after a frame's own (fz_egress.c): the tc egress
 * program on what the tc datapath forwarded, xfab_tc_handoff on what XDP
 * handed off, and the ecn switch's queue state set before each frame.
 */
#ifndef XFAB_FUZZ_FZ_EGRESS_H
#define XFAB_FUZZ_FZ_EGRESS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "model.h"

/* The program a frame's output ran through next, and what it left. */
struct fz_after {
	int ran; /* 0: none, FZ_RAN_EGRESS, FZ_RAN_HANDOFF */
	int err; /* -errno of BPF_PROG_TEST_RUN, 0 */
	__u32 retval;
	uint8_t out[MODEL_MAX_FRAME + 256];
	size_t out_len;
	int live;      /* the frame ran live too: xfab_xdp, then xfab_tc_handoff at tcx ingress */
	int live_err;  /* -errno of that run, 0 */
	int live_seen; /* the frame the model's tc side forwards arrived at its port's peer */
};
#define FZ_RAN_EGRESS 1
#define FZ_RAN_HANDOFF 2

/* Before a frame (b, len on harness port): on the ecn switch, the
 * occupancy the frame's bytes pick among those where QOS.md's decision is
 * certain, told to the model. */
void fz_egress_prepare(struct model *m, const uint8_t *b, size_t len, int port);
/* Before a run the model predicted (mr): the xdp queue it names set to
 * that occupancy. 0 or -1. */
int fz_egress_before(struct harness *h, const struct model_result *mr, int tc);
/* After model_run (mr): a hand-over is run live, its tc side's result
 * (model_handoff) in mr->handoff_tc. */
void fz_egress_model(const struct model *m, struct model_result *mr, const uint8_t *b, size_t len,
		     int port);
/* A compared run in the summary; the summary line. */
void fz_egress_count(int tc, const struct model_result *mr);
void fz_egress_print(void);
/* After a run that left (retval, out): the program the model says the
 * output meets next, run on it (a->ran 0: none). */
void fz_egress_after(struct harness *h, const struct model_result *mr, int in_port, __u32 retval,
		     const uint8_t *out, size_t out_len, struct fz_after *a);
/* 0: that run did what the model says (in: its input); else why. */
int fz_egress_compare(const struct model_result *mr, const struct fz_after *a, const uint8_t *in,
		      size_t in_len, char *why, size_t why_len);
/* The after-run in a mismatch report. */
void fz_egress_report(const struct fz_after *a);

#endif
