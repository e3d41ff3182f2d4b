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
#include <getopt.h>
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
#include "textparse.h"

#define MAX_SECONDS 600
#define MAX_COUNT 1000000000L
#define BATCH 64

enum kind { KIND_TTL1, KIND_ARP, KIND_MIX };

static int parse_ip4(const char *opt, const char *s, uint8_t out[4])
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "xfab-flood: %s \"%s\": not an IPv4 address\n", opt, s);
		return -1;
	}
	memcpy(out, &a, 4);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xfab-flood --dev IF --dmac MAC --src IP --dst IP [--arp-target IP]\n"
		   "                  [--kind ttl1|arp|mix] [--seconds S] [--count N] [--rate "
		   "PPS] [-j]\n");
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dev", required_argument, NULL, 'd'},
	    {"dmac", required_argument, NULL, 'm'},
	    {"src", required_argument, NULL, 's'},
	    {"dst", required_argument, NULL, 't'},
	    {"arp-target", required_argument, NULL, 'a'},
	    {"kind", required_argument, NULL, 'k'},
	    {"seconds", required_argument, NULL, 'S'},
	    {"count", required_argument, NULL, 'c'},
	    {"rate", required_argument, NULL, 'r'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *dev = NULL;
	uint8_t dmac[6], smac[6], src[4], dst[4], target[4], frames[2][128];
	int have_dmac = 0, have_src = 0, have_dst = 0, have_target = 0, json = 0, opt, fd, one = 1;
	long seconds = 20, count = MAX_COUNT, rate = 0;
	enum kind kind = KIND_MIX;
	struct ifreq ifr = {0};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t start, deadline, now, sent[2] = {0, 0}, errors = 0, total = 0;
	long len[2];
	int last_errno = 0;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'm':
			if (xfab_parse_mac(optarg, dmac)) {
				fprintf(stderr, "xfab-flood: --dmac \"%s\": aa:bb:cc:dd:ee:ff\n",
					optarg);
				return 2;
			}
			have_dmac = 1;
			break;
		case 's':
			if (parse_ip4("--src", optarg, src))
				return 2;
			have_src = 1;
			break;
		case 't':
			if (parse_ip4("--dst", optarg, dst))
				return 2;
			have_dst = 1;
			break;
		case 'a':
			if (parse_ip4("--arp-target", optarg, target))
				return 2;
			have_target = 1;
			break;
		case 'k':
			if (!strcmp(optarg, "ttl1")) {
				kind = KIND_TTL1;
			} else if (!strcmp(optarg, "arp")) {
				kind = KIND_ARP;
			} else if (!strcmp(optarg, "mix")) {
				kind = KIND_MIX;
			} else {
				fprintf(stderr, "xfab-flood: --kind \"%s\": ttl1, arp or mix\n",
					optarg);
				return 2;
			}
			break;
		case 'S':
			if (xfab_parse_opt_long("xfab-flood", "--seconds", optarg, 10, 1,
						MAX_SECONDS, &seconds))
				return 2;
			break;
		case 'c':
			if (xfab_parse_opt_long("xfab-flood", "--count", optarg, 10, 1, MAX_COUNT,
						&count))
				return 2;
			break;
		case 'r':
			if (xfab_parse_opt_long("xfab-flood", "--rate", optarg, 10, 0, 100000000,
						&rate))
				return 2;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !dev || !have_src) {
		usage(stderr);
		return 2;
	}
	if (kind != KIND_ARP && (!have_dst || !have_dmac)) {
		fprintf(stderr, "xfab-flood: --kind %s needs --dst and --dmac\n",
			kind == KIND_TTL1 ? "ttl1" : "mix");
		return 2;
	}
	if (kind != KIND_TTL1 && !have_target) {
		fprintf(stderr, "xfab-flood: --kind %s needs --arp-target\n",
			kind == KIND_ARP ? "arp" : "mix");
		return 2;
	}
	if (strlen(dev) >= IFNAMSIZ || !(sll.sll_ifindex = (int)if_nametoindex(dev))) {
		fprintf(stderr, "xfab-flood: --dev %s: no such interface\n", dev);
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "xfab-flood: packet socket: %s\n", strerror(errno));
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, "xfab-flood: %s: its MAC address: %s\n", dev, strerror(errno));
		close(fd);
		return 1;
	}
	memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
	/* best effort: without it frames wait in the qdisc, still sent */
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	len[0] = have_dst && have_dmac
		     ? build_ttl1(smac, dmac, src, dst, frames[0], sizeof(frames[0]))
		     : -1;
	len[1] = have_target ? build_arp(smac, src, target, frames[1], sizeof(frames[1])) : -1;
	sll.sll_halen = 6;
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		int k = kind == KIND_TTL1 ? 0 : kind == KIND_ARP ? 1 : (i & 1);

		iov[i].iov_base = frames[k];
		iov[i].iov_len = (size_t)len[k];
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &sll;
		msgs[i].msg_hdr.msg_namelen = sizeof(sll);
	}
	start = xfab_mono_ns();
	deadline = start + (uint64_t)seconds * 1000000000ull;
	for (now = start; now < deadline && total < (uint64_t)count; now = xfab_mono_ns()) {
		unsigned int n = BATCH;
		int r;

		if ((uint64_t)count - total < n)
			n = (unsigned int)((uint64_t)count - total);
		if (rate) { /* frame total + n may leave at start + (total + n) / rate */
			uint64_t at = start + (total + n) * 1000000000ull / (uint64_t)rate;

			if (at > now) {
				struct timespec ts = {(time_t)(at / 1000000000ull),
						      (long)(at % 1000000000ull)};

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				continue;
			}
		}
		/* the batch starts on a TTL-1 frame: mix alternates from 0 */
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			errors++;
			last_errno = errno;
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
				break;
			continue;
		}
		for (int i = 0; i < r; i++)
			sent[iov[i].iov_base == frames[1]]++;
		total += (uint64_t)r;
	}
	now = xfab_mono_ns();
	close(fd);
	{
		double s = (double)(now - start) / 1e9;

		if (json)
			printf("{\"sent\": %llu, \"ttl1\": %llu, \"arp\": %llu, \"seconds\": %.3f, "
			       "\"pps\": %.0f, \"errors\": %llu, \"last_error\": \"%s\"}\n",
			       (unsigned long long)total, (unsigned long long)sent[0],
			       (unsigned long long)sent[1], s, s > 0 ? (double)total / s : 0,
			       (unsigned long long)errors, last_errno ? strerror(last_errno) : "");
		else
			printf("sent %llu frames (%llu TTL 1, %llu ARP) in %.3f s: %.0f/s; %llu "
			       "send errors%s%s\n",
			       (unsigned long long)total, (unsigned long long)sent[0],
			       (unsigned long long)sent[1], s, s > 0 ? (double)total / s : 0,
			       (unsigned long long)errors, last_errno ? ": last " : "",
			       last_errno ? strerror(last_errno) : "");
	}
	return last_errno && last_errno != ENOBUFS && last_errno != EAGAIN && last_errno != EINTR
		   ? 1
		   : 0;
}
