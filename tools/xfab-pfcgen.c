// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-pfcgen: sends 802.1Qbb PFC or 802.3x PAUSE frames out of an interface,
 * as a host or a peer switch would, for tests and experiments.
 *
 *   xfab-pfcgen --dev IF [--prio 3,4 | --vector 0x18] [--time QUANTA | --time-us US | --xon]
 *               [--pause] [--count N] [--rate PPS] [--duration S] [--timers N]
 *               [--src-mac MAC] [--speed MBPS] [-j]
 *
 * Frames leave through an AF_PACKET socket with PACKET_QDISC_BYPASS: they do
 * not wait behind data in the interface's qdisc, as a NIC's MAC sends pause
 * ahead of its queues. Every named priority asks the same time (default the
 * longest, 65,535 quanta; --xon: 0, resume). --pause sends PAUSE (one time,
 * every priority) instead. --timers N (0..7) sends short frames holding only
 * the first N times, unpadded. A storm is a high --rate with the longest
 * time over a --duration.
 *
 * Bounded: without --duration one frame (or --count); with it, until the
 * duration or the count runs out, whichever first; at most 60 s and 10M
 * frames. --rate paces (packet n at start + n / rate; 0 = back to back).
 * It prints what it sent (-j: one JSON object).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "pfcframe.h"
#include "textparse.h"

#define MAX_SECONDS 60
#define MAX_COUNT 10000000L

static void sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xfab-pfcgen --dev IF [--prio 3,4 | --vector 0x18]\n"
		   "                   [--time QUANTA | --time-us US | --xon] [--pause]\n"
		   "                   [--count N] [--rate PPS] [--duration S] [--timers N]\n"
		   "                   [--src-mac MAC] [--speed MBPS] [-j]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dev", required_argument, NULL, 'd'},     {"prio", required_argument, NULL, 'p'},
	    {"vector", required_argument, NULL, 'v'},  {"time", required_argument, NULL, 't'},
	    {"time-us", required_argument, NULL, 'u'}, {"xon", no_argument, NULL, 'x'},
	    {"pause", no_argument, NULL, 'P'},	       {"count", required_argument, NULL, 'c'},
	    {"rate", required_argument, NULL, 'r'},    {"duration", required_argument, NULL, 'D'},
	    {"timers", required_argument, NULL, 'T'},  {"src-mac", required_argument, NULL, 'm'},
	    {"speed", required_argument, NULL, 's'},   {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	const char *dev = NULL;
	long quanta = XFAB_PFC_MAX_QUANTA, time_us = -1, count = -1, rate = 0, timers = 8,
	     speed = 0, v;
	double duration = 0;
	int have_vector = 0, have_time = 0, xon = 0, pause = 0, json = 0, have_mac = 0, opt, fd,
	    one = 1;
	__u8 vector = 0, mac[6], frame[64];
	__u16 q[XFAB_NUM_PRIO];
	char err[160], *end;
	size_t len;
	struct ifreq ifr = {0};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	uint64_t start, deadline, sent = 0, errors = 0;
	int last_errno = 0;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			if (xfab_pfc_parse_prios(optarg, &vector, err, sizeof(err))) {
				fprintf(stderr, "xfab-pfcgen: --prio: %s\n", err);
				return 2;
			}
			have_vector = 1;
			break;
		case 'v':
			if (xfab_parse_opt_long("xfab-pfcgen", "--vector", optarg, 0, 0, 0xff, &v))
				return 2;
			vector = (__u8)v;
			have_vector = 1;
			break;
		case 't':
			if (xfab_parse_opt_long("xfab-pfcgen", "--time", optarg, 0, 0,
						XFAB_PFC_MAX_QUANTA, &quanta))
				return 2;
			have_time = 1;
			break;
		case 'u':
			if (xfab_parse_opt_long("xfab-pfcgen", "--time-us", optarg, 0, 0, 100000000,
						&time_us))
				return 2;
			have_time = 1;
			break;
		case 'x':
			xon = 1;
			break;
		case 'P':
			pause = 1;
			break;
		case 'c':
			if (xfab_parse_opt_long("xfab-pfcgen", "--count", optarg, 0, 1, MAX_COUNT,
						&count))
				return 2;
			break;
		case 'r':
			if (xfab_parse_opt_long("xfab-pfcgen", "--rate", optarg, 0, 0, 10000000,
						&rate))
				return 2;
			break;
		case 'D':
			duration = strtod(optarg, &end);
			if (end == optarg || *end || !(duration > 0 && duration <= MAX_SECONDS)) {
				fprintf(stderr,
					"xfab-pfcgen: --duration \"%s\": seconds, up to %d\n",
					optarg, MAX_SECONDS);
				return 2;
			}
			break;
		case 'T':
			if (xfab_parse_opt_long("xfab-pfcgen", "--timers", optarg, 0, 0,
						XFAB_NUM_PRIO, &timers))
				return 2;
			break;
		case 'm':
			if (xfab_parse_mac(optarg, mac)) {
				fprintf(stderr,
					"xfab-pfcgen: --src-mac \"%s\": aa:bb:cc:dd:ee:ff\n",
					optarg);
				return 2;
			}
			have_mac = 1;
			break;
		case 's':
			if (xfab_parse_opt_long("xfab-pfcgen", "--speed", optarg, 0, 1, 10000000,
						&speed))
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
	if (optind < argc || !dev) {
		usage(stderr);
		return 2;
	}
	if (xon && have_time) {
		fprintf(stderr, "xfab-pfcgen: --xon is time 0: not with --time\n");
		return 2;
	}
	if (pause && (have_vector || timers != 8)) {
		fprintf(stderr, "xfab-pfcgen: --pause names every priority with one time: no "
				"--prio, --vector or --timers\n");
		return 2;
	}
	if (!pause && !have_vector) {
		fprintf(stderr, "xfab-pfcgen: which priorities? --prio LIST or --vector N "
				"(or --pause)\n");
		return 2;
	}
	if (time_us >= 0) {
		if (!speed) {
			fprintf(stderr, "xfab-pfcgen: --time-us needs --speed (quanta are 512 bit "
					"times at the port's speed)\n");
			return 2;
		}
		quanta = xfab_pfc_ns_to_quanta((__u64)time_us * 1000, (__u32)speed);
	}
	if (xon)
		quanta = 0;
	if (count < 0)
		count = duration > 0 ? MAX_COUNT : 1;
	if (duration <= 0)
		duration = MAX_SECONDS;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "xfab-pfcgen: packet socket: %s\n", strerror(errno));
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	sll.sll_ifindex = (int)if_nametoindex(dev);
	if (!sll.sll_ifindex || strlen(dev) >= IFNAMSIZ) {
		fprintf(stderr, "xfab-pfcgen: --dev %s: no such interface\n", dev);
		return 1;
	}
	if (!have_mac) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
			fprintf(stderr, "xfab-pfcgen: %s: its MAC address: %s\n", dev,
				strerror(errno));
			return 1;
		}
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "xfab-pfcgen: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (int i = 0; i < XFAB_NUM_PRIO; i++)
		q[i] = (__u16)(pause || (vector & (1u << i)) ? quanta : 0);
	len = pause ? xfab_pause_build(frame, sizeof(frame), mac, (__u16)quanta)
		    : xfab_pfc_build(frame, sizeof(frame), mac, vector, q, (unsigned int)timers);
	if (!len) {
		fprintf(stderr, "xfab-pfcgen: cannot build the frame\n");
		return 1;
	}

	start = xfab_mono_ns();
	deadline = start + (uint64_t)(duration * 1e9);
	while (sent < (uint64_t)count) {
		uint64_t t = xfab_mono_ns();

		if (t >= deadline)
			break;
		if (rate > 0) {
			uint64_t due = start + (sent * 1000000000ull) / (uint64_t)rate;

			if (due >= deadline)
				break;
			if (due > t)
				sleep_until(due);
		}
		if (send(fd, frame, len, 0) < 0) {
			errors++;
			last_errno = errno;
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, "xfab-pfcgen: send on %s: %s\n", dev,
					strerror(errno));
				break;
			}
			continue;
		}
		sent++;
	}
	double secs = (double)(xfab_mono_ns() - start) / 1e9;
	char prios[32] = "";

	for (int i = 0, n = 0; i < XFAB_NUM_PRIO; i++)
		if (pause || (vector & (1u << i)))
			n +=
			    snprintf(prios + n, sizeof(prios) - (size_t)n, "%s%d", n ? "," : "", i);
	if (json) {
		printf(
		    "{\"dev\":\"%s\",\"kind\":\"%s\",\"opcode\":%u,\"vector\":%u,"
		    "\"priorities\":[%s],\"quanta\":%ld,\"timers\":%ld,\"frame_bytes\":%zu,"
		    "\"src_mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\",\"sent\":%llu,\"errors\":%llu,"
		    "\"seconds\":%.6f",
		    dev, pause ? "pause" : "pfc",
		    pause ? XFAB_MAC_CONTROL_PAUSE : XFAB_MAC_CONTROL_PFC, pause ? 0xffu : vector,
		    prios, quanta, pause ? 1 : timers, len, mac[0], mac[1], mac[2], mac[3], mac[4],
		    mac[5], (unsigned long long)sent, (unsigned long long)errors, secs);
		if (speed)
			printf(
			    ",\"speed_mbps\":%ld,\"pause_ns\":%llu", speed,
			    (unsigned long long)xfab_pfc_quanta_to_ns((__u32)quanta, (__u32)speed));
		printf("}\n");
	} else {
		printf("sent %llu %s frames (priorities %s, %ld quanta%s, %zu bytes) out of %s in "
		       "%.3f s",
		       (unsigned long long)sent, pause ? "PAUSE" : "PFC", prios[0] ? prios : "none",
		       quanta, quanta ? "" : ": XON", len, dev, secs);
		if (speed)
			printf(", %.3f ms each at %ld Mbit/s",
			       (double)xfab_pfc_quanta_to_ns((__u32)quanta, (__u32)speed) / 1e6,
			       speed);
		printf("\n");
	}
	if (errors)
		fprintf(stderr, "xfab-pfcgen: %llu send errors (last: %s)\n",
			(unsigned long long)errors, strerror(last_errno));
	close(fd);
	return sent ? 0 : 1;
}
