// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: time, the log lines on stderr and the events --json keeps. */
#include "te_tool.h"

double te_ms_since(uint64_t t0)
{
	return (double)(xfab_mono_ns() - t0) / 1e6;
}

void te_wall_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ld", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* A log line on stderr, with the time. */
void te_say(const char *fmt, ...)
{
	char when[32];
	va_list ap;

	te_wall_time(when, sizeof(when));
	fprintf(stderr, "%s xfab-te: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A logged event, also kept (the last MAX_EVENTS) for the status file. */
void te_event(struct ctx *c, const char *kind, double ms, const char *fmt, ...)
{
	struct event *e;
	va_list ap;

	if (c->n_ev == MAX_EVENTS) {
		memmove(&c->ev[0], &c->ev[1], (MAX_EVENTS - 1) * sizeof(c->ev[0]));
		c->n_ev--;
	}
	e = &c->ev[c->n_ev++];
	memset(e, 0, sizeof(*e));
	te_wall_time(e->when, sizeof(e->when));
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		e->unix_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	}
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	e->gen = c->gen;
	e->max_load = c->have_plan ? c->plan.max_load : 0;
	e->ms = ms;
	te_say("%s: %s", kind, e->what);
}
