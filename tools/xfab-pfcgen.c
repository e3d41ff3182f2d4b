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
 * SIGINT or SIGTERM ends it early, as the count would (a storm a test
 * stops when it is done with it). It prints what it sent (-j: one JSON
 * object, with the wall-clock times of the first and last frame, to set
 * beside a switch's log lines).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
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
#include "opts.h"

#define MAX_SECONDS 60
#define MAX_COUNT 10000000L

static volatile sig_atomic_t pfcgen_stop;

static void pfcgen_on_signal(int sig)
{
	(void)sig;
	pfcgen_stop = 1;
}

/* Sleeps until t, or until a stop signal came. */
static void sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !pfcgen_stop)
		;
}

/* CLOCK_REALTIME in seconds (xfabd stamps its log lines with it). */
static double pfcgen_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct pfcgen_args {
	const char *dev;
	long quanta, time_us, count, rate, timers, speed;
	double duration;
	int have_vector, have_time, xon, pause, json, have_mac;
	__u8 vector, mac[6];
};

static int parse_prios(const char *text, void *vector, char *why, size_t len)
{
	return xfab_pfc_parse_prios(text, vector, why, len);
}

/* The options into g: 0, or the exit status. */
static int parse_args(struct pfcgen_args *g, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("dev", 0, g->dev, "IF", "the port to send on", .required = 1),
	    XFAB_OPT_FUNC("prio", 0, &g->vector, parse_prios, "LIST",
			  "the priorities named (3,4 or 0-7)", .seen = &g->have_vector),
	    XFAB_OPT_INT("vector", 0, g->vector, 0, 0xff, "N", "the priority-enable vector",
			 .seen = &g->have_vector),
	    XFAB_OPT_INT("time", 0, g->quanta, 0, XFAB_PFC_MAX_QUANTA, "QUANTA",
			 "pause time in quanta (default 65535)", .seen = &g->have_time),
	    XFAB_OPT_INT("time-us", 0, g->time_us, 0, 100000000, "US",
			 "pause time in microseconds (needs --speed)", .seen = &g->have_time),
	    XFAB_OPT_FLAG("xon", 0, g->xon, "time 0: resume"),
	    XFAB_OPT_FLAG("pause", 0, g->pause, "802.3x PAUSE, not PFC"),
	    XFAB_OPT_INT("count", 0, g->count, 1, MAX_COUNT, "N",
			 "frames to send (default 1; with --duration:\nas many as it takes)"),
	    XFAB_OPT_INT("rate", 0, g->rate, 0, 10000000, "PPS",
			 "frames per second (0: back to back)"),
	    XFAB_OPT_DOUBLE("duration", 0, g->duration, 0.001, MAX_SECONDS, "S",
			    "send for S seconds"),
	    XFAB_OPT_INT("timers", 0, g->timers, 0, XFAB_NUM_PRIO, "N",
			 "pause-time fields in the frame (default 8)"),
	    XFAB_OPT_MAC("src-mac", 0, g->mac, "MAC", "source address (default the port's)",
			 .seen = &g->have_mac),
	    XFAB_OPT_INT("speed", 0, g->speed, 1, 10000000, "MBPS", "the port's speed"),
	    XFAB_OPT_FLAG("json", 'j', g->json, "what was sent, as JSON"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-pfcgen", "--dev IF --prio LIST|--vector N|--pause",
				       rows, NULL};
	return xfab_opts_parse_all(&spec, argc, argv);
}

/* What the options say together, and the defaults they leave: -1 to go
 * on, else the exit status 2. */
static int check_args(struct pfcgen_args *g)
{
	if (g->xon && g->have_time) {
		fprintf(stderr, "xfab-pfcgen: --xon is time 0: not with --time\n");
		return 2;
	}
	if (g->pause && (g->have_vector || g->timers != 8)) {
		fprintf(stderr, "xfab-pfcgen: --pause names every priority with one time: no "
				"--prio, --vector or --timers\n");
		return 2;
	}
	if (!g->pause && !g->have_vector) {
		fprintf(stderr, "xfab-pfcgen: which priorities? --prio LIST or --vector N "
				"(or --pause)\n");
		return 2;
	}
	if (g->time_us >= 0) {
		if (!g->speed) {
			fprintf(stderr, "xfab-pfcgen: --time-us needs --speed (quanta are 512 bit "
					"times at the port's speed)\n");
			return 2;
		}
		g->quanta = xfab_pfc_ns_to_quanta((__u64)g->time_us * 1000, (__u32)g->speed);
	}
	if (g->xon)
		g->quanta = 0;
	if (g->count < 0)
		g->count = g->duration > 0 ? MAX_COUNT : 1;
	if (g->duration <= 0)
		g->duration = MAX_SECONDS;
	return -1;
}

/* The packet socket bound to --dev around its qdisc, and g->mac the port's
 * unless given: the fd, or -1 (said on stderr). */
static int open_port(struct pfcgen_args *g)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	struct ifreq ifr = {0};
	int fd, one = 1;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "xfab-pfcgen: packet socket: %s\n", strerror(errno));
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", g->dev);
	sll.sll_ifindex = (int)if_nametoindex(g->dev);
	if (!sll.sll_ifindex || strlen(g->dev) >= IFNAMSIZ) {
		fprintf(stderr, "xfab-pfcgen: --dev %s: no such interface\n", g->dev);
		goto fail;
	}
	if (!g->have_mac) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
			fprintf(stderr, "xfab-pfcgen: %s: its MAC address: %s\n", g->dev,
				strerror(errno));
			goto fail;
		}
		memcpy(g->mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "xfab-pfcgen: %s: %s\n", g->dev, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

struct pfcgen_result {
	uint64_t sent, errors;
	int last_errno;
	double secs;
	/* CLOCK_REALTIME around the first and the last frame's send(): each
	 * frame left between the stamp before and the one after (a process
	 * descheduled in between, on a busy box, widens the interval, and a
	 * bound judged on the wrong side of it fails a correct receiver) */
	double first_at, first_sent_at; /* before and after the first */
	double last_start_at, last_at;	/* before and after the last */
};

/* The frame, --count times or until --duration, paced at --rate. */
static void send_frames(const struct pfcgen_args *g, int fd, const __u8 *frame, size_t len,
			struct pfcgen_result *res)
{
	uint64_t start = xfab_mono_ns(), deadline = start + (uint64_t)(g->duration * 1e9);

	while (res->sent < (uint64_t)g->count && !pfcgen_stop) {
		uint64_t t = xfab_mono_ns();

		if (t >= deadline)
			break;
		if (g->rate > 0) {
			uint64_t due = start + (res->sent * 1000000000ull) / (uint64_t)g->rate;

			if (due >= deadline)
				break;
			if (due > t)
				sleep_until(due);
			if (pfcgen_stop)
				break;
		}
		double before = pfcgen_wall();

		if (send(fd, frame, len, 0) < 0) {
			res->errors++;
			res->last_errno = errno;
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, "xfab-pfcgen: send on %s: %s\n", g->dev,
					strerror(errno));
				break;
			}
			continue;
		}
		res->last_at = pfcgen_wall();
		res->last_start_at = before;
		if (!res->sent) {
			res->first_at = before;
			res->first_sent_at = res->last_at;
		}
		res->sent++;
	}
	res->secs = (double)(xfab_mono_ns() - start) / 1e9;
}

/* What was sent: one line, or one JSON object with -j. */
static void report(const struct pfcgen_args *g, size_t len, const struct pfcgen_result *res)
{
	char prios[32] = "";

	for (int i = 0, n = 0; i < XFAB_NUM_PRIO; i++)
		if (g->pause || (g->vector & (1u << i)))
			n +=
			    snprintf(prios + n, sizeof(prios) - (size_t)n, "%s%d", n ? "," : "", i);
	if (g->json) {
		printf(
		    "{\"dev\":\"%s\",\"kind\":\"%s\",\"opcode\":%u,\"vector\":%u,"
		    "\"priorities\":[%s],\"quanta\":%ld,\"timers\":%ld,\"frame_bytes\":%zu,"
		    "\"src_mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\",\"sent\":%llu,\"errors\":%llu,"
		    "\"seconds\":%.6f,\"first_at\":%.6f,\"first_sent_at\":%.6f,"
		    "\"last_start_at\":%.6f,\"last_at\":%.6f",
		    g->dev, g->pause ? "pause" : "pfc",
		    (unsigned int)(g->pause ? XFAB_MAC_CONTROL_PAUSE : XFAB_MAC_CONTROL_PFC),
		    g->pause ? 0xffu : g->vector, prios, g->quanta, g->pause ? 1 : g->timers, len,
		    g->mac[0], g->mac[1], g->mac[2], g->mac[3], g->mac[4], g->mac[5],
		    (unsigned long long)res->sent, (unsigned long long)res->errors, res->secs,
		    res->first_at, res->first_sent_at, res->last_start_at, res->last_at);
		if (g->speed)
			printf(",\"speed_mbps\":%ld,\"pause_ns\":%llu", g->speed,
			       (unsigned long long)xfab_pfc_quanta_to_ns((__u32)g->quanta,
									 (__u32)g->speed));
		printf("}\n");
	} else {
		printf("sent %llu %s frames (priorities %s, %ld quanta%s, %zu bytes) out of %s in "
		       "%.3f s",
		       (unsigned long long)res->sent, g->pause ? "PAUSE" : "PFC",
		       prios[0] ? prios : "none", g->quanta, g->quanta ? "" : ": XON", len, g->dev,
		       res->secs);
		if (g->speed)
			printf(", %.3f ms each at %ld Mbit/s",
			       (double)xfab_pfc_quanta_to_ns((__u32)g->quanta, (__u32)g->speed) /
				   1e6,
			       g->speed);
		printf("\n");
	}
	if (res->errors)
		fprintf(stderr, "xfab-pfcgen: %llu send errors (last: %s)\n",
			(unsigned long long)res->errors, strerror(res->last_errno));
}

int main(int argc, char **argv)
{
	struct pfcgen_args g = {
	    .quanta = XFAB_PFC_MAX_QUANTA, .time_us = -1, .count = -1, .timers = 8};
	struct pfcgen_result res = {0};
	int fd, ret = parse_args(&g, argc, argv);
	__u16 q[XFAB_NUM_PRIO];
	__u8 frame[64];
	size_t len;

	if (ret >= 0)
		return ret;
	ret = check_args(&g);
	if (ret >= 0)
		return ret;
	fd = open_port(&g);
	if (fd < 0)
		return 1;
	/* no SA_RESTART: a pacing sleep returns at once */
	sigaction(SIGINT, &(struct sigaction){.sa_handler = pfcgen_on_signal}, NULL);
	sigaction(SIGTERM, &(struct sigaction){.sa_handler = pfcgen_on_signal}, NULL);
	for (int i = 0; i < XFAB_NUM_PRIO; i++)
		q[i] = (__u16)(g.pause || (g.vector & (1u << i)) ? g.quanta : 0);
	len = g.pause ? xfab_pause_build(frame, sizeof(frame), g.mac, (__u16)g.quanta)
		      : xfab_pfc_build(frame, sizeof(frame), g.mac, g.vector, q,
				       (unsigned int)g.timers);
	if (!len) {
		fprintf(stderr, "xfab-pfcgen: cannot build the frame\n");
		close(fd);
		return 1;
	}
	send_frames(&g, fd, frame, len, &res);
	report(&g, len, &res);
	close(fd);
	return res.sent ? 0 : 1;
}
