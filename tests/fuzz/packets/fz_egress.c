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
 *     uncounted (ARCHITECTURE.md stage 4b). Then the frame runs live
 *     (live_run below), where the stack gives xfab_tc_handoff the marker.
 *   - ecn: before each frame the xdp queue the model names holds an
 *     occupancy where QOS.md's decision is certain (fz_egress_prepare,
 *     fz_egress_before).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
	uint64_t egress, egress_drop, handoff, xdp_queue[MQ_UNCERTAIN + 1], live[MV_COUNT];
	uint64_t live_waits;	   /* reads of a peer that found nothing yet */
	uint64_t live_wait_max_ns; /* the longest wait that ended with a frame */
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
	if (mr->handoff_tc)
		FS.live[mr->handoff_tc->verdict]++;
}

void fz_egress_print(void)
{
	printf("  xdp queues: pass %llu mark %llu buffer_full %llu wred %llu; after tc: egress "
	       "%llu (dropped %llu); after xdp: handoff unmarked %llu, live: tc side forward "
	       "%llu drop %llu punt %llu (peer reads that waited: %llu, the longest %.3f ms)\n",
	       (unsigned long long)FS.xdp_queue[MQ_PASS], (unsigned long long)FS.xdp_queue[MQ_MARK],
	       (unsigned long long)FS.xdp_queue[MQ_DROP_TAIL],
	       (unsigned long long)FS.xdp_queue[MQ_DROP_WRED], (unsigned long long)FS.egress,
	       (unsigned long long)FS.egress_drop, (unsigned long long)FS.handoff,
	       (unsigned long long)FS.live[MV_FORWARD], (unsigned long long)FS.live[MV_DROP],
	       (unsigned long long)FS.live[MV_PUNT], (unsigned long long)FS.live_waits,
	       (double)FS.live_wait_max_ns / 1e6);
}

/*
 * The hand-over live. BPF_PROG_TEST_RUN cannot give an skb metadata, but
 * its live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES) gives what XDP passes
 * to the stack as the driver would: an skb with the metadata in front, on
 * the ingress port, through its tcx ingress, where xfab_tc_handoff is
 * attached as xfabd attaches it (PFC.md: on every port with PFC). What the
 * tc side forwards leaves by the egress veth (no egress program attached)
 * to its peer, where a packet socket per port reads it.
 */
static struct model_result fz_ho; /* the tc side the model predicts */
static int fz_ho_port = -1, fz_ho_link = -1, fz_peer[MODEL_N_SLOTS];
/* How long a forwarded frame may take to reach the peer: the wait is only
 * a bound for the failing case (how often the frame was not there yet when
 * the run returned is counted: live_waits in the summary). */
#define FZ_LIVE_WAIT_MS 2000
/* The longest frame a veth passes to its peer: Linux's is_skb_forwardable,
 * MTU (the harness's 1500) + Ethernet header + a VLAN tag. The pipeline
 * judges the L3 length against the port's MTU and sends trailing bytes
 * after the IP packet on as they came, so a frame with more may be
 * forwarded and then dropped by the kernel at the veth. */
#define FZ_VETH_MAX_FRAME (1500 + 14 + 4)
#define FZ_TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */

void fz_egress_model(const struct model *m, struct model_result *mr, const uint8_t *b, size_t len,
		     int port)
{
	if (mr->verdict != MV_HANDOFF)
		return;
	model_handoff(m, port, b, len, &fz_ho);
	mr->handoff_tc = &fz_ho;
}

/* xfab_tc_handoff at tcx ingress of port (moved there from another),
 * and a packet socket on every port's peer. 0 or -1. */
static int live_attach(struct harness *h, int port)
{
	char name[IF_NAMESIZE];

	if (fz_ho_port != port) {
		if (fz_ho_link >= 0)
			close(fz_ho_link); /* the last fd of a tcx link: detached */
		fz_ho_link = bpf_link_create(bpf_program__fd(h->skel->progs.xfab_tc_handoff),
					     (int)h->ifindex[port],
					     (enum bpf_attach_type)FZ_TCX_INGRESS, NULL);
		if (fz_ho_link < 0)
			return -1;
		fz_ho_port = port;
	}
	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		struct sockaddr_ll sll = {.sll_family = AF_PACKET,
					  .sll_protocol = htons(ETH_P_ALL)};

		if (fz_peer[p] > 0)
			continue;
		snprintf(name, sizeof(name), "p%dpeer", p + 1);
		sll.sll_ifindex = (int)if_nametoindex(name);
		fz_peer[p] = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
		if (fz_peer[p] <= 0 || !sll.sll_ifindex ||
		    bind(fz_peer[p], (struct sockaddr *)&sll, sizeof(sll)))
			return -1;
	}
	return 0;
}

/* Does the frame want (len bytes) arrive at slot's peer? The last other
 * frame read is left in a->out for the report. */
static int live_capture(int slot, const uint8_t *want, size_t len, struct fz_after *a)
{
	struct pollfd pfd = {.fd = fz_peer[slot], .events = POLLIN};
	uint64_t t0;

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fz_peer[slot], a->out, sizeof(a->out), 0,
				     (struct sockaddr *)&from, &fl);

		if (n < 0) {
			if (errno != EAGAIN)
				return 0;
			FS.live_waits++;
			t0 = mono_ns();
			if (poll(&pfd, 1, FZ_LIVE_WAIT_MS) <= 0)
				return 0;
			if (mono_ns() - t0 > FS.live_wait_max_ns)
				FS.live_wait_max_ns = mono_ns() - t0;
			continue;
		}
		a->out_len = (size_t)n;
		if (from.sll_pkttype != PACKET_OUTGOING && (size_t)n == len &&
		    !memcmp(a->out, want, len))
			return 1;
	}
}

/* Frame b (len) through xfab_xdp live on port: XDP hands it over again,
 * and the tc side runs. */
static void live_run(struct harness *h, const struct model_result *mr, const uint8_t *b, size_t len,
		     int port, struct fz_after *a)
{
	struct xdp_md ctx = {.data_end = (__u32)len, .ingress_ifindex = h->ifindex[port]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = b, .data_size_in = (__u32)len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		    .repeat = 1);
	const struct model_result *ho = mr->handoff_tc;
	uint8_t junk[MODEL_MAX_FRAME + 256];

	a->live = 1;
	a->live_seen = 0;
	a->out_len = 0;
	if (live_attach(h, port)) {
		a->live_err = -errno;
		return;
	}
	if (ho->verdict == MV_FORWARD) /* what the peer got before (a replay's twin) */
		while (recv(fz_peer[ho->out_slot], junk, sizeof(junk), 0) > 0)
			;
	a->live_err = bpf_prog_test_run_opts(bpf_program__fd(h->skel->progs.xfab_xdp), &opts);
	if (a->live_err) {
		a->live_err = -errno;
		return;
	}
	if (ho->verdict == MV_FORWARD && ho->out_len <= FZ_VETH_MAX_FRAME)
		a->live_seen = live_capture(ho->out_slot, ho->out, ho->out_len, a);
}

void fz_egress_after(struct harness *h, const struct model_result *mr, int in_port, __u32 retval,
		     const uint8_t *out, size_t out_len, struct fz_after *a)
{
	int prog, port;

	a->ran = 0;
	a->live = 0;
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
	else if (mr->handoff_tc && !memcmp(a->out, out, out_len)) /* then marked, live */
		live_run(h, mr, out + 4, out_len - 4, in_port, a);
}

/* The live hand-over: run, and what the tc side forwards arrived (its
 * counters are compared with the frame's). */
static int live_compare(const struct model_result *ho, const struct fz_after *a, char *why,
			size_t why_len)
{
	if (a->live_err) {
		snprintf(why, why_len, "live hand-over: failed: %s", strerror(-a->live_err));
		return 1;
	}
	if (ho->verdict == MV_FORWARD && ho->out_len <= FZ_VETH_MAX_FRAME && !a->live_seen) {
		snprintf(why, why_len,
			 "live hand-over: the tc side's forward (the model's %zu bytes) did not "
			 "arrive at p%d's peer",
			 ho->out_len, ho->out_slot + 1);
		return 1;
	}
	return 0;
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
	if (a->live) /* the live run's frame, not the unmarked run's, is in a->out */
		return live_compare(mr->handoff_tc, a, why, why_len);
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
	if (a->live) /* a->out: the last other frame the peer read, if any */
		fprintf(stderr, "  then live: err %d, the tc side's frame %s; last frame read:",
			a->live_err, a->live_seen ? "arrived" : "did not arrive");
	else
		fprintf(stderr, "  then %s: retval %u, err %d, %zu bytes out:",
			a->ran == FZ_RAN_EGRESS ? "xfab_tc_egress" : "xfab_tc_handoff", a->retval,
			a->err, a->out_len);
	for (size_t i = 0; i < a->out_len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", a->out[i]);
	fprintf(stderr, "\n");
}
