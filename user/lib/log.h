/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The log of xfab's programs, on stderr. A line is "<sec>.<ms> xfabd <level>:
 * <text>", or under journald (or --syslog) "<N><level>: <text>" with N its
 * sd-daemon priority and no time (the journal stamps it).
 */
#ifndef XFAB_LOG_H
#define XFAB_LOG_H

#include <bpf/libbpf.h>
#include <stdarg.h>

/* debug lines are written only when set (-v) */
extern int xfab_log_verbose;
/* no line at all when set (a fuzzer that refuses on purpose, at speed) */
extern int xfab_log_quiet;

/* Lines carry sd-daemon priorities from now on (1) or a time (0). */
void xfab_log_set_journal(int on);
int xfab_log_journal(void);

void xfab_logmsg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<3>" when log lines carry sd-daemon priorities (journald), else "": for
 * the error lines written without xfab_logmsg (config positions) */
const char *xfab_log_err_tag(void);
/* libbpf's messages through the same levels: libbpf_set_print(xfab_log_libbpf). */
int xfab_log_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap);

#define log_info(...) xfab_logmsg("info", __VA_ARGS__)
#define log_warn(...) xfab_logmsg("warn", __VA_ARGS__)
#define log_err(...) xfab_logmsg("error", __VA_ARGS__)
#define log_dbg(...)                                                                               \
	do {                                                                                       \
		if (xfab_log_verbose)                                                              \
			xfab_logmsg("debug", __VA_ARGS__);                                         \
	} while (0)

#endif
