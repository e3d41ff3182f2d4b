// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the log (user/lib/log.c), read back from stderr:
 *   - a plain line is "<seconds>.<3 digits> xfabd <level>: <text>", its
 *     time the wall clock's (between two readings taken here);
 *   - under journald every line starts with its sd-daemon priority
 *     (<3> error, <4> warn, <6> info, <7> debug: sd-daemon.h's numbers,
 *     written out here) and carries no time; the error tag is "<3>", and ""
 *     without the journal;
 *   - debug lines only with verbose; nothing at all when quiet;
 *   - libbpf's messages: its debug only with verbose, its warnings <4>.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

static FILE *capture;
static int saved_stderr = -1;

/* stderr into a file of the test's own until collect. */
static void grab(void)
{
	fflush(stderr);
	capture = tmpfile();
	assert_non_null(capture);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(fileno(capture), 2), 2);
}

static char *collect(void)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(capture);
	n = fread(buf, 1, sizeof(buf) - 1, capture);
	buf[n] = '\0';
	fclose(capture);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	xfab_log_verbose = 0;
	xfab_log_quiet = 0;
	xfab_log_set_journal(0);
	return 0;
}

static long realtime_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long)ts.tv_sec;
}

static void test_plain(void **state)
{
	long sec, ms, before, after;
	char level[16], text[64];
	char *out;

	(void)state;
	/* the logger's clock, not time(): that one reads the coarse clock,
	 * which may still show the second before the logger's stamp */
	before = realtime_sec();
	grab();
	log_info("forwarding on %d ports", 4);
	out = collect();
	after = realtime_sec();
	assert_int_equal(sscanf(out, "%ld.%3ld xfabd %15[a-z]: %63[^\n]", &sec, &ms, level, text),
			 4);
	assert_true(sec >= before && sec <= after);
	assert_true(ms >= 0 && ms < 1000);
	assert_int_equal(strchr(out, ' ') - strchr(out, '.'), 4); /* three digits */
	assert_string_equal(level, "info");
	assert_string_equal(text, "forwarding on 4 ports");
	assert_string_equal(out + strlen(out) - 1, "\n");
	assert_string_equal(xfab_log_err_tag(), "");
}

static void test_journal(void **state)
{
	(void)state;
	xfab_log_set_journal(1);
	assert_int_equal(xfab_log_journal(), 1);
	grab();
	log_err("reload rejected");
	log_warn("netlink overrun");
	log_info("stopped");
	log_dbg("not shown");
	xfab_log_verbose = 1;
	log_dbg("shown %s", "now");
	assert_string_equal(collect(), "<3>error: reload rejected\n"
				       "<4>warn: netlink overrun\n"
				       "<6>info: stopped\n"
				       "<7>debug: shown now\n");
	assert_string_equal(xfab_log_err_tag(), "<3>");
}

static void test_quiet(void **state)
{
	(void)state;
	xfab_log_quiet = 1;
	grab();
	log_err("refused");
	log_info("ok");
	assert_string_equal(collect(), "");
}

static int libbpf_says(enum libbpf_print_level level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = xfab_log_libbpf(level, fmt, ap);
	va_end(ap);
	return n;
}

static void test_libbpf(void **state)
{
	(void)state;
	xfab_log_set_journal(1);
	grab();
	libbpf_says(LIBBPF_DEBUG, "hidden %d\n", 1);
	libbpf_says(LIBBPF_WARN, "map %s: failed\n", "fib4");
	libbpf_says(LIBBPF_INFO, "loaded\n");
	xfab_log_verbose = 1;
	libbpf_says(LIBBPF_DEBUG, "verbose %d\n", 2);
	assert_string_equal(collect(), "<4>map fib4: failed\n<6>loaded\n<7>verbose 2\n");
	xfab_log_set_journal(0);
	grab();
	libbpf_says(LIBBPF_WARN, "plain\n");
	assert_string_equal(collect(), "plain\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_plain, setup),
	    cmocka_unit_test_setup(test_journal, setup),
	    cmocka_unit_test_setup(test_quiet, setup),
	    cmocka_unit_test_setup(test_libbpf, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
