// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The routing daemon that owns a protocol's kernel routes, and when it
 * started: FIB_SYNC restart_hold_ms holds what a just-restarted daemon's
 * routes lose in the kernel until it has sent them again (fibsync.c).
 *
 * The daemon is found by its program name among the processes in xfabd's
 * own network namespace (a switch runs one routing suite; the lab runs one
 * per switch namespace, all in one pid namespace). Its start is
 * /proc/PID/stat's starttime, in clock ticks since boot: CLOCK_BOOTTIME.
 * Of two such processes (a restart's old one not yet reaped) the younger.
 */
#include <ctype.h>
#include <dirent.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

const char *agent_owner_name(int protocol)
{
	/* FRR's daemons; zebra installs their routes with these protocols */
	switch (protocol) {
	case RTPROT_BGP:
		return "bgpd";
	case RTPROT_OSPF:
		return "ospfd";
	case RTPROT_ISIS:
		return "isisd";
	default:
		return NULL;
	}
}

/* The file dir/pid/name's first line into buf: 0, or -1. */
static int read_line(const char *dir, const char *pid, const char *name, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, pid, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* starttime (field 22) of a /proc/PID/stat line; the name (field 2) may
 * hold spaces and parentheses, so fields are counted from its last ')'. */
static int stat_start(const char *line, unsigned long long *ticks)
{
	const char *s = strrchr(line, ')');
	char *end;

	if (!s)
		return -1;
	for (int field = 3; field <= 22; field++) { /* s: the space before it */
		s = strchr(s + 1, ' ');
		if (!s)
			return -1;
	}
	*ticks = strtoull(s + 1, &end, 10);
	return end == s + 1 ? -1 : 0;
}

/* pid's start in ticks if it runs program name in netns ino: 0, or -1. */
static int owner_of(const char *proc, const char *pid, const char *name, unsigned long long ino,
		    unsigned long long *ticks)
{
	char buf[1024];
	struct stat st;

	if (read_line(proc, pid, "comm", buf, sizeof(buf)) || strcmp(buf, name))
		return -1;
	snprintf(buf, sizeof(buf), "%s/%s/ns/net", proc, pid);
	if (stat(buf, &st) || (unsigned long long)st.st_ino != ino)
		return -1;
	if (read_line(proc, pid, "stat", buf, sizeof(buf)))
		return -1;
	return stat_start(buf, ticks);
}

int agent_owner_start_in(const char *proc, const char *name, unsigned long long netns_ino,
			 unsigned long long *start_ns)
{
	long tck = sysconf(_SC_CLK_TCK);
	unsigned long long best = 0, t;
	struct dirent *d;
	DIR *dir = opendir(proc);
	int found = 0;

	if (!dir || tck <= 0) {
		if (dir)
			closedir(dir);
		return -1;
	}
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (!owner_of(proc, d->d_name, name, netns_ino, &t) && (!found || t > best)) {
			best = t;
			found = 1;
		}
	}
	closedir(dir);
	if (!found)
		return -1;
	*start_ns = best * (1000000000ull / (unsigned long long)tck);
	return 0;
}

__u64 agent_owner_start(int protocol, __u64 now)
{
	const char *name = agent_owner_name(protocol);
	unsigned long long start;
	struct timespec ts;
	struct stat st;
	__u64 boot;

	if (!name || stat("/proc/self/ns/net", &st) ||
	    agent_owner_start_in("/proc", name, (unsigned long long)st.st_ino, &start) ||
	    clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	boot = (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
	/* its age, from now back in the monotonic clock (they differ by the
	 * time the box slept) */
	if (start >= boot) /* this tick: starttime is rounded */
		return now;
	return boot - start >= now ? 1 : now - (boot - start);
}
