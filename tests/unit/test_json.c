// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The JSON reader: read from a string or chunk by chunk from a reader
 * (xfabd's config file), it gives the same tree, or the same error at the
 * same line and column, wherever the chunks end (inside a string, an
 * escape, a number, a literal, a line break); objects too big to be copied
 * are kept where they were built; duplicate keys of a big object are
 * reported as a sort by key would; a NUL byte or a read error stops a
 * stream. A config file's NUL byte or short read is its one error, even
 * after a JSON error. No root.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "json.h"

/* ---- a reader giving step bytes at a time ---- */

struct chunks {
	const char *text;
	size_t len, at, step;
	int fail_at; /* >= 0: fail once this many bytes were given */
};

static ssize_t chunk_read(void *arg, char *buf, size_t len)
{
	struct chunks *c = arg;
	size_t n = c->len - c->at;

	if (c->fail_at >= 0 && c->at >= (size_t)c->fail_at)
		return -1;
	if (n > c->step)
		n = c->step;
	if (n > len)
		n = len;
	memcpy(buf, c->text + c->at, n);
	c->at += n;
	return (ssize_t)n;
}

static void assert_same_tree(const struct json_value *a, const struct json_value *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->pos.line, b->pos.line);
	assert_int_equal(a->pos.col, b->pos.col);
	assert_int_equal(a->key_pos.line, b->key_pos.line);
	assert_int_equal(a->key_pos.col, b->key_pos.col);
	assert_int_equal(!a->key, !b->key);
	if (a->key)
		assert_string_equal(a->key, b->key);
	assert_int_equal(!a->str, !b->str);
	if (a->str)
		assert_string_equal(a->str, b->str);
	assert_int_equal(a->boolean, b->boolean);
	assert_int_equal(a->count, b->count);
	for (unsigned int k = 0; k < a->count; k++)
		assert_same_tree(&a->children[k], &b->children[k]);
}

static const char *const corpus[] = {
    "{}",
    "[]",
    " \n\t{\"a\" : [1, -2.5e+3, 0, 1E9, true, false, null, \"x\"]}\n\n",
    "{\"nexthop\": \"10.0.2.2,10.0.2.3,10.0.2.4\",\n \"k\": {\"nexthop\": "
    "\"10.0.2.2,10.0.2.3,10.0.2.4\"}}",
    "{\"esc\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"u\": \"\\u00e9\\u20ac\\ud83d\\ude00x\"}",
    "{\n  \"a\": {\n    \"b\": [\n      {\"c\": \"d\"}\n    ]\n  }\n}\n",
    "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]",
    /* errors */
    "{\"a\": 1,\n \"a\": 2}",
    "{\"a\": tru}",
    "{\"a\": nul",
    "{\"a\": \"\\q\"}",
    "{\"a\": \"\\u12G4\"}",
    "{\"a\": \"\\ud800x\"}",
    "{\"a\": \"\\ud800\\u0041\"}",
    "{\"a\": \"\\udc00\"}",
    "{\"a\": \"\\u0000\"}",
    "{\"a\": \"line\nbreak\"}",
    "{\"a\": \"unterminated",
    "{\"a\": 1.}",
    "{\"a\": 1e}",
    "{\"a\": -}",
    "{\"a\": 01}",
    "{\"a\" 1}",
    "{\"a\": 1 \"b\": 2}",
    "[1 2]",
    "{1: 2}",
    "{\"a\": 1}\n  x",
    "{\"a\": 1}\n  ",
    "",
    "   ",
    "{\"a\": @}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]"
    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
};

/* Every chunk size gives what the whole string gives. */
static void test_stream_matches_text(void **state)
{
	static const size_t steps[] = {1, 2, 3, 5, 7, 64, 1u << 20};

	(void)state;
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		char err1[256] = "", err2[256] = "";
		struct json_pos pos1 = {0, 0}, pos2 = {0, 0};
		struct json_value *a = xfab_json_parse(corpus[i], err1, sizeof(err1), &pos1);

		for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
			struct chunks c = {.text = corpus[i],
					   .len = strlen(corpus[i]),
					   .step = steps[s],
					   .fail_at = -1};
			struct json_value *b =
			    xfab_json_parse_stream(chunk_read, &c, err2, sizeof(err2), &pos2);

			if (!a != !b)
				fail_msg("input %zu, step %zu: text says \"%s\", stream \"%s\"", i,
					 steps[s], a ? "ok" : err1, b ? "ok" : err2);
			if (a) {
				assert_same_tree(a, b);
			} else {
				assert_string_equal(err1, err2);
				assert_int_equal(pos1.line, pos2.line);
				assert_int_equal(pos1.col, pos2.col);
			}
			xfab_json_free(b);
		}
		xfab_json_free(a);
	}
}

/* Positions: lines from 1, columns in bytes from 1. */
static void test_positions(void **state)
{
	char err[256];
	struct json_pos pos;
	struct json_value *v =
	    xfab_json_parse("{\n  \"a\": [1,\n    \"b\"]}", err, sizeof(err), &pos);

	(void)state;
	assert_non_null(v);
	assert_int_equal(v->children[0].key_pos.line, 2);
	assert_int_equal(v->children[0].key_pos.col, 3);
	assert_int_equal(v->children[0].pos.col, 8);
	assert_int_equal(v->children[0].children[1].pos.line, 3);
	assert_int_equal(v->children[0].children[1].pos.col, 5);
	xfab_json_free(v);
	assert_null(xfab_json_parse("{\n  \"a\": [1,\n    \"b\" x]}", err, sizeof(err), &pos));
	assert_int_equal(pos.line, 3);
	assert_int_equal(pos.col, 9);
	assert_string_equal(err, "expected ',' or ']' in array");
}

/* An object of n members "kI": [I, {"v": "same"}], inside another. */
static char *big_object(int n, int dup_a, int dup_b)
{
	size_t cap = (size_t)n * 48 + 64, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	len += (size_t)snprintf(t + len, cap - len, "{\"x\": [0], \"big\": {\n");
	for (int i = 0; i < n; i++) {
		int k = i == dup_a ? 7 : i == dup_b ? 3 : i;

		len += (size_t)snprintf(t + len, cap - len, "\"k%d\": [%d, {\"v\": \"same\"}]%s\n",
					k, i, i + 1 < n ? "," : "");
	}
	snprintf(t + len, cap - len, "}, \"y\": {\"z\": true}}");
	return t;
}

static void test_big_object(void **state)
{
	int n = 200000; /* past what is copied out of the stack, and 8 MB of it */
	char *t = big_object(n, -1, -1), err[256];
	struct json_pos pos;
	struct json_value *v = xfab_json_parse(t, err, sizeof(err), &pos);
	const struct json_value *big;

	(void)state;
	assert_non_null(v);
	assert_int_equal(v->count, 3);
	big = xfab_json_get(v, "big");
	assert_non_null(big);
	assert_int_equal(big->count, n);
	for (int i = 0; i < n; i += 997) {
		char key[16];

		snprintf(key, sizeof(key), "k%d", i);
		assert_string_equal(big->children[i].key, key);
		assert_int_equal(big->children[i].pos.line, i + 2);
		assert_int_equal(big->children[i].count, 2);
		assert_string_equal(big->children[i].children[1].children[0].str, "same");
	}
	/* what came before and after it is whole */
	assert_string_equal(xfab_json_get(v, "x")->children[0].str, "0");
	assert_int_equal(xfab_json_get(xfab_json_get(v, "y"), "z")->boolean, 1);
	xfab_json_free(v);
	free(t);
}

/* Two keys twice in a big object, past the members checked as they are
 * read: "k3" (later in the file) sorts before "k7", so it is the one named,
 * at its second occurrence. */
static void test_big_object_duplicates(void **state)
{
	int sizes[] = {100, 70000};

	(void)state;
	for (size_t s = 0; s < 2; s++) {
		char *t = big_object(sizes[s], 70, 90), err[256];
		struct json_pos pos;

		assert_null(xfab_json_parse(t, err, sizeof(err), &pos));
		assert_string_equal(err, "duplicate key \"k3\" (first at line 5)");
		assert_int_equal(pos.line, 92);
		assert_int_equal(pos.col, 1);
		free(t);
	}
}

static void test_stream_nul_and_read_error(void **state)
{
	static const char text[] = "{\"a\": \"b\"}";
	char with_nul[] = "{\"a\": \"b\"}  ";
	char err[256];
	struct json_pos pos;
	struct chunks c = {.text = text, .len = strlen(text), .step = 3, .fail_at = 6};

	(void)state;
	assert_null(xfab_json_parse_stream(chunk_read, &c, err, sizeof(err), &pos));
	assert_string_equal(err, "cannot read the input");
	with_nul[11] = '\0';
	c = (struct chunks){
	    .text = with_nul, .len = sizeof(with_nul) - 1, .step = 4, .fail_at = -1};
	assert_null(xfab_json_parse_stream(chunk_read, &c, err, sizeof(err), &pos));
	assert_string_equal(err, "the input holds a NUL byte");
}

/* A config file is read in chunks; its NUL byte (or a short read) is the
 * one error, even after a JSON error earlier in the file. */
static void test_config_file_nul_after_syntax_error(void **state)
{
	char path[] = "/tmp/xfab-json-XXXXXX";
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	size_t len = 3u << 20; /* three chunks */
	char *text = malloc(len);
	int fd = mkstemp(path);

	(void)state;
	assert_non_null(text);
	assert_true(fd >= 0);
	memset(text, ' ', len);
	memcpy(text, "{,", 2);
	text[len - 10] = '\0';
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	assert_int_equal(xfab_config_load(path, &cfg, &errs), -1);
	assert_int_equal(errs.total, 1);
	assert_string_equal(errs.e[0].msg, "the file holds a NUL byte");
	assert_int_equal(errs.e[0].line, 0);
	/* without the NUL: the JSON error, where it is */
	text[len - 10] = ' ';
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	assert_int_equal(xfab_config_load(path, &cfg, &errs), -1);
	assert_int_equal(errs.total, 1);
	assert_int_equal(errs.e[0].line, 1);
	assert_int_equal(errs.e[0].col, 2);
	assert_string_equal(errs.e[0].msg, "expected a string key in object");
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stream_matches_text),
	    cmocka_unit_test(test_positions),
	    cmocka_unit_test(test_big_object),
	    cmocka_unit_test(test_big_object_duplicates),
	    cmocka_unit_test(test_stream_nul_and_read_error),
	    cmocka_unit_test(test_config_file_nul_after_syntax_error),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
