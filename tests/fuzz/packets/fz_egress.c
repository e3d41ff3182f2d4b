// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_packets' harness side of the queues and the programs a frame meets
 * after the one it entered by (fz_egress.h; the model's rules are
 * model_qos.c's):
 *
 *   - tc: a frame xfab_tc forwards (TC_ACT_REDIRECT) runs xfab_tc_egress
 *     of the egress port the model names, as the kernel runs it before the
 *     port's qdisc; the harness's veths have noqueue, so the backlog the
 *     program reads (skb->dev->qdisc->qstats.backlog) is 0.
 *   - xdp: a frame XDP hands off (XDP_PASS with its marker) runs
 *     xfab_tc_handoff on the same port with XDP's output as its data.
 *     BPF_PROG_TEST_RUN builds the skb with no metadata (Linux 6.18's
 *     bpf_prog_test_run_skb: data_meta == data; a ctx naming data_meta is
 *     refused with -EINVAL), so the marker is not in front of the packet:
 *     the program must leave it to the kernel (TC_ACT_OK), untouched and
 *     uncounted (ARCHITECTURE.md stage 4b). The handed-over decision itself
 *     cannot run here (docs/TESTING.md).
 *   - ecn: before each frame every queue of the WRED port holds an
 *     occupancy where QOS.md's decision is certain (fz_egress_prepare).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fz_egress.h"
#include "xfab_abi.h"

/* The occupancy regions: empty (below Kmin), far above Kmax, the buffer. */
#define FZ_ABOVE_KMAX 65536ull
/* A set queue starts this far in the future: until then it drains nothing,
 * so the occupancy a packet finds is at least the one set, however long
 * the harness is descheduled between setting it and the run (below 10 s);
 * at most the set one + 10 s at the port's rate (well below the buffer). */
#define FZ_QUEUE_AHEAD_NS 10000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over the frame: its region, the same on every replay. */
static uint32_t frame_hash(const uint8_t *b, size_t len, int port)
{
	uint32_t h = 2166136261u ^ (uint32_t)port;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* The occupancy the model was told, and when the set queue starts. */
static uint64_t fz_occ, fz_last;

/* What the after-runs did, for the summary. */
static struct {
	uint64_t egress, egress_drop, handoff, xdp_queue[MQ_UNCERTAIN + 1];
} FS;

void fz_egress_prepare(struct model *m, const uint8_t *b, size_t len, int port)
{
	uint64_t kmax, buffer, occ, last = 0;

	if (model_wred_port(m, &kmax, &buffer) < 0)
		return;
	switch (frame_hash(b, len, port) % 3) {
	case 0:
		occ = 0; /* empty_at 0: empty whatever the time */
		break;
	case 1:
		occ = kmax + FZ_ABOVE_KMAX;
		break;
	default:
		occ = buffer;
		break;
	}
	if (occ)
		last = mono_ns() + FZ_QUEUE_AHEAD_NS;
	fz_occ = occ;
	fz_last = last;
	model_set_occupancy(m, occ);
}

int fz_egress_before(struct harness *h, const struct model_result *mr, int tc)
{
	__u32 slot = (__u32)mr->queue_key / XFAB_NUM_TC, class = (__u32)mr->queue_key % XFAB_NUM_TC;

	/* xdp's phantom queue the model says the frame meets (another one the
	 * data plane met instead moves counters the model does not expect) */
	if (tc || mr->queue_key < 0)
		return 0;
	if (h_set_queue(h, slot, class, fz_occ, fz_last)) {
		fprintf(stderr, "fuzz_packets: setting queue (%u, %u) failed\n", slot, class);
		return -1;
	}
	return 0;
}

void fz_egress_count(int tc, const struct model_result *mr)
{
	if (!tc && mr->queue_key >= 0)
		FS.xdp_queue[mr->queue_verdict]++;
	FS.egress += mr->eg_run && mr->verdict == MV_FORWARD;
	FS.egress_drop += mr->eg_run && mr->eg_verdict == MV_DROP;
	FS.handoff += mr->handoff_run;
}

void fz_egress_print(void)
{
	printf("  xdp queues: pass %llu mark %llu buffer_full %llu wred %llu; after tc: egress "
	       "%llu (dropped %llu); after xdp: handoff (unmarked) %llu\n",
	       (unsigned long long)FS.xdp_queue[MQ_PASS], (unsigned long long)FS.xdp_queue[MQ_MARK],
	       (unsigned long long)FS.xdp_queue[MQ_DROP_TAIL],
	       (unsigned long long)FS.xdp_queue[MQ_DROP_WRED], (unsigned long long)FS.egress,
	       (unsigned long long)FS.egress_drop, (unsigned long long)FS.handoff);
}

void fz_egress_after(struct harness *h, const struct model_result *mr, int in_port, __u32 retval,
		     const uint8_t *out, size_t out_len, struct fz_after *a)
{
	int prog, port;

	a->ran = 0;
	if (mr->eg_run && retval == TC_ACT_REDIRECT) {
		a->ran = FZ_RAN_EGRESS;
		prog = bpf_program__fd(h->skel->progs.xfab_tc_egress);
		port = mr->out_slot;
	} else if (mr->handoff_run && retval == XDP_PASS) {
		a->ran = FZ_RAN_HANDOFF;
		prog = bpf_program__fd(h->skel->progs.xfab_tc_handoff);
		port = in_port;
	} else {
		return;
	}
	a->out_len = sizeof(a->out);
	a->err = h_run_fd(h, prog, 1, port, out, out_len, a->out, &a->out_len, &a->retval);
	if (a->err)
		a->err = -errno;
}

int fz_egress_compare(const struct model_result *mr, const struct fz_after *a, const uint8_t *in,
		      size_t in_len, char *why, size_t why_len)
{
	const char *prog = a->ran == FZ_RAN_EGRESS ? "xfab_tc_egress" : "xfab_tc_handoff";
	int want = mr->eg_run ? FZ_RAN_EGRESS : mr->handoff_run ? FZ_RAN_HANDOFF : 0;
	__u32 rc = mr->eg_run && mr->eg_verdict == MV_DROP ? TC_ACT_SHOT : TC_ACT_OK;
	/* the handoff program leaves an unmarked frame as it is */
	const uint8_t *expect = a->ran == FZ_RAN_EGRESS ? mr->eg_out : in;

	if (a->ran != want) {
		snprintf(why, why_len, "the output ran %s, the model's runs %s",
			 a->ran ? prog : "no program",
			 want == FZ_RAN_EGRESS	  ? "xfab_tc_egress"
			 : want == FZ_RAN_HANDOFF ? "xfab_tc_handoff"
						  : "none");
		return 1;
	}
	if (!a->ran)
		return 0;
	if (a->err) {
		snprintf(why, why_len, "%s: BPF_PROG_TEST_RUN failed: %s", prog, strerror(-a->err));
		return 1;
	}
	if (a->retval != rc) {
		snprintf(why, why_len, "%s: retval %u, the model's %u", prog, a->retval, rc);
		return 1;
	}
	if (rc == TC_ACT_OK && (a->out_len != in_len || memcmp(a->out, expect, in_len))) {
		snprintf(why, why_len, "%s: output bytes differ (%zu bytes, the model's %zu)", prog,
			 a->out_len, in_len);
		return 1;
	}
	return 0;
}

void fz_egress_report(const struct fz_after *a)
{
	if (!a->ran)
		return;
	fprintf(stderr, "  then %s: retval %u, err %d, %zu bytes out:",
		a->ran == FZ_RAN_EGRESS ? "xfab_tc_egress" : "xfab_tc_handoff", a->retval, a->err,
		a->out_len);
	for (size_t i = 0; i < a->out_len && a->ran; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", a->out[i]);
	fprintf(stderr, "\n");
}
