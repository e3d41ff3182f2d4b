// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-flood: floods a switch's control plane from a host, as fast as the
 * host can send (or at --rate), for the CoPP tests (docs/COPP.md):
 *
 *   xfab-flood --dev IF --dmac MAC --src IP --dst IP [--arp-target IP]
 *              [--kind ttl1|arp|mix] [--seconds S] [--count N] [--rate PPS] [-j]
 *
 *   ttl1  IPv4 UDP with TTL 1 from --src to --dst (a remote host), to the
 *         switch's MAC --dmac: each one a time-exceeded punt at the switch;
 *   arp   ARP requests (broadcast) for --arp-target (the switch's address),
 *         from --src and the interface's MAC;
 *   mix   the two, alternately (the default).
 *
 * Frames leave through an AF_PACKET socket with PACKET_QDISC_BYPASS, in
 * batches of 64 per sendmmsg. Bounded: until --seconds (default 20, at
 * most 600) or --count frames (default and most 10^9), whichever first.
 * It prints what it sent (-j: one JSON object): frames per kind, seconds,
 * the rate, and send errors (ENOBUFS: the device's queue was full).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "frame.h"
#include "opts.h"

#define MAX_SECONDS 600
#define MAX_COUNT 1000000000L
#define BATCH 64

enum kind { KIND_TTL1, KIND_ARP, KIND_MIX };

static const char *const kind_names[] = {"ttl1", "arp", "mix", NULL};

struct flood_args {
	const char *dev;
	uint8_t dmac[6], src[4], dst[4], target[4];
	int have_dmac, have_dst, have_target, json;
	long seconds, count, rate;
	int kind; /* enum kind */
};

/* The options into f: 0, or the exit status. */
static int parse_args(struct flood_args *f, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("dev", 0, f->dev, "IF", "the port to send on", .required = 1),
	    XFAB_OPT_MAC("dmac", 0, f->dmac, "MAC", "the switch port's MAC (ttl1, mix)",
			 .seen = &f->have_dmac),
	    XFAB_OPT_FUNC("src", 0, f->src, xfab_opts_ip4, "IP", "the frames' source address",
			  .required = 1),
	    XFAB_OPT_FUNC("dst", 0, f->dst, xfab_opts_ip4, "IP",
			  "the TTL-1 frames' destination (ttl1, mix)", .seen = &f->have_dst),
	    XFAB_OPT_FUNC("arp-target", 0, f->target, xfab_opts_ip4, "IP",
			  "the address the ARP requests ask for (arp, mix)",
			  .seen = &f->have_target),
	    XFAB_OPT_ENUM("kind", 0, f->kind, kind_names, "ttl1|arp|mix",
			  "what to send (default mix: both, alternately)"),
	    XFAB_OPT_INT("seconds", 0, f->seconds, 1, MAX_SECONDS, "S", "stop after S seconds",
			 .base = 10),
	    XFAB_OPT_INT("count", 0, f->count, 1, MAX_COUNT, "N", "stop after N frames",
			 .base = 10),
	    XFAB_OPT_INT("rate", 0, f->rate, 0, 100000000, "PPS",
			 "frames per second (0: as fast as it can)", .base = 10),
	    XFAB_OPT_FLAG("json", 'j', f->json, "the result as JSON"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-flood", "--dev IF --src IP ...", rows, NULL};
	int ret = xfab_opts_parse_all(&spec, argc, argv);

	if (ret >= 0)
		return ret;
	if (f->kind != KIND_ARP && (!f->have_dst || !f->have_dmac)) {
		fprintf(stderr, "xfab-flood: --kind %s needs --dst and --dmac\n",
			f->kind == KIND_TTL1 ? "ttl1" : "mix");
		return 2;
	}
	if (f->kind != KIND_TTL1 && !f->have_target) {
		fprintf(stderr, "xfab-flood: --kind %s needs --arp-target\n",
			f->kind == KIND_ARP ? "arp" : "mix");
		return 2;
	}
	return -1;
}

/* The TTL-1 frame (UDP 33434, traceroute's port) and the ARP request. */
static long build_ttl1(const uint8_t smac[6], const uint8_t dmac[6], const uint8_t src[4],
		       const uint8_t dst[4], uint8_t *buf, size_t cap)
{
	struct xfab_frame f;

	memset(&f, 0, sizeof(f));
	memcpy(f.smac, smac, 6);
	memcpy(f.dmac, dmac, 6);
	f.l3 = XFAB_FRAME_IPV4;
	memcpy(f.ip4.src, src, 4);
	memcpy(f.ip4.dst, dst, 4);
	f.ip4.ttl = 1;
	f.l4.proto = IPPROTO_UDP;
	f.l4.sport = 40000;
	f.l4.dport = 33434;
	f.payload_len = 18;
	return xfab_frame_build(&f, buf, cap, NULL);
}

static long build_arp(const uint8_t smac[6], const uint8_t src[4], const uint8_t target[4],
		      uint8_t *buf, size_t cap)
{
	static uint8_t arp[28];
	struct xfab_frame f;

	memset(&f, 0, sizeof(f));
	memcpy(f.smac, smac, 6);
	memset(f.dmac, 0xff, 6);
	memcpy(arp, "\x00\x01\x08\x00\x06\x04\x00\x01", 8); /* Ethernet, IPv4, request */
	memcpy(arp + 8, smac, 6);
	memcpy(arp + 14, src, 4);
	memset(arp + 18, 0, 6);
	memcpy(arp + 24, target, 4);
	f.l3 = XFAB_FRAME_RAW;
	f.ethertype = ETH_P_ARP;
	f.payload = arp;
	f.payload_len = sizeof(arp);
	return xfab_frame_build(&f, buf, cap, NULL);
}

/* The packet socket on --dev (frames around its qdisc when it can) and the
 * port's MAC in smac: the fd, or -1 (said on stderr). */
static int open_port(const struct flood_args *f, uint8_t smac[6])
{
	struct ifreq ifr = {0};
	int fd, one = 1;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "xfab-flood: packet socket: %s\n", strerror(errno));
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, "xfab-flood: %s: its MAC address: %s\n", f->dev, strerror(errno));
		close(fd);
		return -1;
	}
	memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
	/* best effort: without it frames wait in the qdisc, still sent */
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

/* One sendmmsg's worth of frames: the kinds --kind asks for. */
struct flood_batch {
	struct sockaddr_ll sll;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint8_t frames[2][128];
};

static void build_batch(const struct flood_args *f, const uint8_t smac[6], struct flood_batch *b)
{
	long len[2];

	len[0] = f->have_dst && f->have_dmac
		     ? build_ttl1(smac, f->dmac, f->src, f->dst, b->frames[0], sizeof(b->frames[0]))
		     : -1;
	len[1] = f->have_target
		     ? build_arp(smac, f->src, f->target, b->frames[1], sizeof(b->frames[1]))
		     : -1;
	b->sll.sll_halen = 6;
	memset(b->msgs, 0, sizeof(b->msgs));
	for (int i = 0; i < BATCH; i++) {
		int k = f->kind == KIND_TTL1 ? 0 : f->kind == KIND_ARP ? 1 : (i & 1);

		b->iov[i].iov_base = b->frames[k];
		b->iov[i].iov_len = (size_t)len[k];
		b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
		b->msgs[i].msg_hdr.msg_iovlen = 1;
		b->msgs[i].msg_hdr.msg_name = &b->sll;
		b->msgs[i].msg_hdr.msg_namelen = sizeof(b->sll);
	}
}

struct flood_result {
	uint64_t sent[2], errors, total; /* sent: TTL 1, ARP */
	int last_errno;
	double seconds;
};

/* Batches until --seconds or --count, paced at --rate. */
static void flood(const struct flood_args *f, int fd, struct flood_batch *b,
		  struct flood_result *res)
{
	uint64_t start = xfab_mono_ns(), deadline = start + (uint64_t)f->seconds * 1000000000ull,
		 now;

	for (now = start; now < deadline && res->total < (uint64_t)f->count; now = xfab_mono_ns()) {
		unsigned int n = BATCH;
		int r;

		if ((uint64_t)f->count - res->total < n)
			n = (unsigned int)((uint64_t)f->count - res->total);
		if (f->rate) { /* frame total + n may leave at start + (total + n) / rate */
			uint64_t at = start + (res->total + n) * 1000000000ull / (uint64_t)f->rate;

			if (at > now) {
				struct timespec ts = {(time_t)(at / 1000000000ull),
						      (long)(at % 1000000000ull)};

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				continue;
			}
		}
		/* the batch starts on a TTL-1 frame: mix alternates from 0 */
		r = sendmmsg(fd, b->msgs, n, 0);
		if (r < 0) {
			res->errors++;
			res->last_errno = errno;
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
				break;
			continue;
		}
		for (int i = 0; i < r; i++)
			res->sent[b->iov[i].iov_base == b->frames[1]]++;
		res->total += (uint64_t)r;
	}
	res->seconds = (double)(xfab_mono_ns() - start) / 1e9;
}

static void report(const struct flood_args *f, const struct flood_result *res)
{
	double s = res->seconds;
	const char *last = res->last_errno ? strerror(res->last_errno) : "";

	if (f->json)
		printf("{\"sent\": %llu, \"ttl1\": %llu, \"arp\": %llu, \"seconds\": %.3f, "
		       "\"pps\": %.0f, \"errors\": %llu, \"last_error\": \"%s\"}\n",
		       (unsigned long long)res->total, (unsigned long long)res->sent[0],
		       (unsigned long long)res->sent[1], s, s > 0 ? (double)res->total / s : 0,
		       (unsigned long long)res->errors, last);
	else
		printf("sent %llu frames (%llu TTL 1, %llu ARP) in %.3f s: %.0f/s; %llu "
		       "send errors%s%s\n",
		       (unsigned long long)res->total, (unsigned long long)res->sent[0],
		       (unsigned long long)res->sent[1], s, s > 0 ? (double)res->total / s : 0,
		       (unsigned long long)res->errors, res->last_errno ? ": last " : "", last);
}

int main(int argc, char **argv)
{
	struct flood_args f = {.seconds = 20, .count = MAX_COUNT, .kind = KIND_MIX};
	static struct flood_batch b = {.sll = {.sll_family = AF_PACKET}};
	struct flood_result res = {0};
	int fd, ret = parse_args(&f, argc, argv), e;
	uint8_t smac[6];

	if (ret >= 0)
		return ret;
	if (strlen(f.dev) >= IFNAMSIZ || !(b.sll.sll_ifindex = (int)if_nametoindex(f.dev))) {
		fprintf(stderr, "xfab-flood: --dev %s: no such interface\n", f.dev);
		return 2;
	}
	fd = open_port(&f, smac);
	if (fd < 0)
		return 1;
	build_batch(&f, smac, &b);
	flood(&f, fd, &b, &res);
	close(fd);
	report(&f, &res);
	e = res.last_errno;
	return e && e != ENOBUFS && e != EAGAIN && e != EINTR ? 1 : 0;
}
