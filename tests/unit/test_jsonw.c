// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the JSON writer (user/lib/jsonw.c) against exact text, the
 * bytes xfabctl -j, xfab-te's status and reports, xfab-coll's reports and
 * the fabric snapshots have always written (their readers parse them):
 *   - commas between members and elements only, at every depth, none after
 *     a container opens; keys quoted, no spaces;
 *   - strings: '"' and '\' escaped, control bytes as \u00XX, other bytes
 *     (UTF-8) as they are;
 *   - numbers: unsigned 64-bit in full, double as %.10g, num3 a whole
 *     number bare and any other with three decimals;
 *   - true, false, null; end writes one newline after a top-level value
 *     and nothing when none was written, and the next value starts fresh;
 *   - nesting deeper than the writer keeps overruns nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonw.h"

static char *text;
static size_t text_len;

static struct xfab_jw *start(struct xfab_jw *w)
{
	FILE *f = open_memstream(&text, &text_len);

	assert_non_null(f);
	xfab_jw_init(w, f);
	return w;
}

/* What w wrote, compared whole with want. */
static void expect(struct xfab_jw *w, const char *want)
{
	assert_int_equal(fclose(w->out), 0);
	assert_string_equal(text, want);
	free(text);
	text = NULL;
}

static void test_nesting(void **state)
{
	struct xfab_jw w;

	(void)state;
	start(&w);
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_string(&w, "name", "leaf1");
	xfab_jw_open(&w, "ports", '[');
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_uint(&w, "ifindex", 3);
	xfab_jw_bool(&w, "up", 1);
	xfab_jw_close(&w, '}');
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_close(&w, '}');
	xfab_jw_open(&w, NULL, '[');
	xfab_jw_close(&w, ']');
	xfab_jw_close(&w, ']');
	xfab_jw_bool(&w, "lossless", 0);
	xfab_jw_null(&w, "pfc");
	xfab_jw_close(&w, '}');
	xfab_jw_end(&w);
	expect(&w, "{\"name\":\"leaf1\",\"ports\":[{\"ifindex\":3,\"up\":true},{},[]],"
		   "\"lossless\":false,\"pfc\":null}\n");
}

static void test_strings(void **state)
{
	struct xfab_jw w;

	(void)state;
	start(&w);
	xfab_jw_open(&w, NULL, '[');
	xfab_jw_string(&w, NULL, "a\"b\\c");
	xfab_jw_string(&w, NULL, "tab\there\nnl\x01\x1f");
	xfab_jw_string(&w, NULL, "caf\xc3\xa9 /");
	xfab_jw_string(&w, NULL, "");
	xfab_jw_string(&w, "k\"ey", "v");
	xfab_jw_close(&w, ']');
	expect(&w, "[\"a\\\"b\\\\c\",\"tab\\u0009here\\u000anl\\u0001\\u001f\","
		   "\"caf\xc3\xa9 /\",\"\",\"k\\\"ey\":\"v\"]");
}

static void test_quote(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	xfab_jw_quote(f, "sw\"1\x02");
	fclose(f);
	assert_string_equal(buf, "\"sw\\\"1\\u0002\"");
	free(buf);
}

static void test_numbers(void **state)
{
	struct xfab_jw w;

	(void)state;
	start(&w);
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_uint(&w, "max", 18446744073709551615ull);
	xfab_jw_uint(&w, "zero", 0);
	xfab_jw_double(&w, "half", 0.5);
	xfab_jw_double(&w, "whole", 3.0);
	xfab_jw_double(&w, "big", 1e20);
	xfab_jw_double(&w, "third", 1.0 / 3);
	xfab_jw_num3(&w, "ms", 12.0);
	xfab_jw_num3(&w, "load", 0.25);
	xfab_jw_num3(&w, "neg", -1.5);
	xfab_jw_num3(&w, "round", 2.0004);
	xfab_jw_close(&w, '}');
	expect(&w, "{\"max\":18446744073709551615,\"zero\":0,\"half\":0.5,\"whole\":3,"
		   "\"big\":1e+20,\"third\":0.3333333333,\"ms\":12,\"load\":0.250,"
		   "\"neg\":-1.500,\"round\":2.000}");
}

static void test_end(void **state)
{
	struct xfab_jw w;

	(void)state;
	start(&w);
	xfab_jw_end(&w); /* nothing written: nothing to end */
	xfab_jw_open(&w, NULL, '[');
	xfab_jw_uint(&w, NULL, 1);
	xfab_jw_close(&w, ']');
	xfab_jw_end(&w);
	xfab_jw_end(&w); /* ended already */
	xfab_jw_open(&w, NULL, '[');
	xfab_jw_uint(&w, NULL, 2);
	xfab_jw_uint(&w, NULL, 3);
	xfab_jw_close(&w, ']');
	xfab_jw_end(&w);
	expect(&w, "[1]\n[2,3]\n");
}

/* Deeper than the writer keeps: written, nothing outside the array
 * overrun (ASan), and the levels above it keep their commas. */
static void test_deep(void **state)
{
	struct xfab_jw w;
	char want[256];
	size_t n = 0;

	(void)state;
	start(&w);
	for (int i = 0; i < XFAB_JW_MAX_DEPTH + 4; i++) {
		xfab_jw_open(&w, NULL, '[');
		want[n++] = '[';
	}
	for (int i = 0; i < XFAB_JW_MAX_DEPTH + 4; i++) {
		xfab_jw_close(&w, ']');
		want[n++] = ']';
	}
	xfab_jw_uint(&w, NULL, 7);
	want[n] = '\0';
	strcat(want, ",7");
	expect(&w, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting), cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_quote),   cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_end),	    cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
