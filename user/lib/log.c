// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The log (log.h): one place for every program and part that writes one,
 * so that the agent's parts, and the tests that link them, need no
 * logger of their own. */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <time.h>

#include "log.h"
#include "sdnotify.h"

int xfab_log_verbose;
int xfab_log_quiet;
/* stderr goes to journald (or --syslog): each line starts with its
 * sd-daemon priority, "<3>" .. "<7>", and no time (the journal has it) */
static int log_journal;

void xfab_log_set_journal(int on)
{
	log_journal = on;
}

int xfab_log_journal(void)
{
	return log_journal;
}

const char *xfab_log_err_tag(void)
{
	return log_journal ? "<3>" : "";
}

void xfab_logmsg(const char *level, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	if (xfab_log_quiet)
		return;
	if (log_journal) {
		fprintf(stderr, "<%d>%s: ", xfab_sd_priority(level), level);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(stderr, "%ld.%03ld xfabd %s: ", (long)ts.tv_sec, ts.tv_nsec / 1000000,
			level);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int xfab_log_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !xfab_log_verbose)
		return 0;
	if (log_journal)
		fprintf(stderr, "<%d>", level == LIBBPF_WARN ? 4 : level == LIBBPF_INFO ? 6 : 7);
	return vfprintf(stderr, fmt, ap);
}
