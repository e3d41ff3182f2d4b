// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control protocol: every malformed request refused with its field and
 * a clear message, both sides of each limit; good ones parsed; encode ->
 * decode round trips; response strings escaped as JSON wants. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctlproto.h"

static void refused(const char *line, const char *field, const char *msg_part)
{
	struct xfab_ctl_req req;
	struct xfab_ctl_err err;

	if (xfab_ctl_parse_request(line, strlen(line), &req, &err) == 0)
		fail_msg("accepted: %s", line);
	if (strcmp(err.field, field))
		fail_msg("%s: field \"%s\", expected \"%s\" (%s)", line, err.field, field, err.msg);
	if (!strstr(err.msg, msg_part))
		fail_msg("%s: message \"%s\" lacks \"%s\"", line, err.msg, msg_part);
}

static void accepted(const char *line, struct xfab_ctl_req *req)
{
	struct xfab_ctl_err err;

	if (xfab_ctl_parse_request(line, strlen(line), req, &err))
		fail_msg("refused: %s: %s: %s", line, err.field, err.msg);
}

static void test_malformed(void **state)
{
	(void)state;
	refused("", "", "bad JSON");
	refused("{\"cmd\":\"ping\"", "", "bad JSON");
	refused("{\"cmd\":\"ping\"} x", "", "bad JSON");
	refused("[\"ping\"]", "", "one JSON object");
	refused("\"ping\"", "", "one JSON object");
	refused("{}", "cmd", "missing field \"cmd\"");
	refused("{\"cmd\":7}", "cmd", "must be a string");
	refused("{\"cmd\":\"reboot\"}", "cmd", "unknown command \"reboot\"");
	refused("{\"cmd\":\"ping\",\"cmd\":\"ping\"}", "", "bad JSON"); /* duplicate key */
	refused("{\"cmd\":\"ping\",\"in\":\"eth1\"}", "in", "unknown field \"in\"");
	refused(
	    "{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}",
	    "via", "unknown field");
	refused("{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\"}", "via",
		"missing field \"via\"");
	refused("{\"cmd\":\"te-add\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}", "in",
		"missing field \"in\"");
	refused("{\"cmd\":\"te-del\",\"in\":\"eth1\"}", "prefix", "missing field \"prefix\"");
	refused("{\"cmd\":\"te-add\",\"in\":3,\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}", "in",
		"must be a string");
}

static void test_bad_values(void **state)
{
	(void)state;
	refused("{\"cmd\":\"te-add\",\"in\":\"\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}",
		"in", "1 to 15");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1234567890abcd\",\"prefix\":\"10.0.0.0/8\",\"via\":"
	    "\"1.1.1.1\"}",
	    "in", "1 to 15");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth 1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}",
	    "in", "not a port name");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"../x\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1\"}",
	    "in", "not a port name");
	refused("{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0\",\"via\":\"1.1.1.1\"}",
		"prefix", "");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/33\",\"via\":\"1.1.1.1\"}",
	    "prefix", "");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.1/8\",\"via\":\"1.1.1.1\"}",
	    "prefix", "host bits set past /8");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"300.0.0.0/8\",\"via\":\"1.1.1.1\"}",
	    "prefix", "");
	refused("{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1\"}",
		"via", "'1.1.1' is not an IPv4 address");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"fe80::1\"}",
	    "via", "not an IPv4 address");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"2001:db8::/32\",\"via\":\"1.1.1.1\"}",
	    "via", "not an IPv6 address");
	refused(
	    "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"1.1.1.1,\"}",
	    "via", "no empty item");
	refused("{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/"
		"8\",\"via\":\"1.1.1.1,,1.1.1."
		"2\"}",
		"via", "no empty item");
	refused("{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"\"}",
		"via", "no empty item");
}

static void test_oversize(void **state)
{
	size_t n = XFAB_CTL_MAX_LINE + 10;
	char *line = malloc(n + 1);
	struct xfab_ctl_req req;
	struct xfab_ctl_err err;
	char via[2048];
	char req_text[4096];
	size_t o = 0;

	(void)state;
	assert_non_null(line);
	memset(line, ' ', n);
	memcpy(line, "{\"cmd\":\"ping\"}", 14);
	line[n] = '\0';
	assert_int_equal(xfab_ctl_parse_request(line, n, &req, &err), -1);
	assert_string_equal(err.field, "");
	assert_non_null(strstr(err.msg, "longer than"));
	/* just under the limit: fine */
	assert_int_equal(xfab_ctl_parse_request(line, XFAB_CTL_MAX_LINE - 1, &req, &err), 0);
	assert_int_equal(req.cmd, XFAB_CTL_PING);
	free(line);
	/* too many gateways */
	for (int i = 0; i <= XFAB_GROUP_MAX_MEMBERS; i++)
		o += (size_t)snprintf(via + o, sizeof(via) - o, "%s10.0.%d.1", i ? "," : "", i);
	snprintf(req_text, sizeof(req_text),
		 "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"%s\"}",
		 via);
	refused(req_text, "via", "more than");
	/* a NUL inside the line */
	assert_int_equal(xfab_ctl_parse_request("{\"cmd\":\"ping\"}\0x", 16, &req, &err), -1);
	assert_non_null(strstr(err.msg, "NUL"));
}

static void test_good_and_round_trip(void **state)
{
	static const char *const good[] = {
	    "{\"cmd\":\"ping\"}",
	    " { \"cmd\" : \"te-clear\" } ",
	    "{\"cmd\":\"clear-watermark\"}",
	    "{\"cmd\":\"clear-counters\"}",
	    "{\"cmd\":\"te-add\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/"
	    "24\",\"via\":\"10.254.2.0\"}",
	    "{\"via\":\"10.254.2.0,10.254.3.0\",\"prefix\":\"10.4.2.0/24\",\"in\":\"eth3\",\"cmd\":"
	    "\"te-add\"}",
	    "{\"cmd\":\"te-add\",\"in\":\"eth3\",\"prefix\":\"2001:db8:4::/"
	    "48\",\"via\":\"fe80::1\"}",
	    "{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"0.0.0.0/0\"}",
	    "{\"cmd\":\"fib-status\"}",
	    "{\"cmd\":\"damping-status\"}",
	    "{\"cmd\":\"damping-status\",\"from\":\"3\"}",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct xfab_ctl_req req, again;
		struct xfab_ctl_err err;
		char buf[XFAB_CTL_MAX_LINE];
		int n;

		if (xfab_ctl_parse_request(good[i], strlen(good[i]), &req, &err))
			fail_msg("%s refused: %s: %s", good[i], err.field, err.msg);
		n = xfab_ctl_format_request(&req, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(buf[n - 1], '\n');
		assert_int_equal(xfab_ctl_parse_request(buf, (size_t)n - 1, &again, &err), 0);
		assert_int_equal(again.cmd, req.cmd);
		assert_string_equal(again.in, req.in);
		assert_string_equal(again.prefix, req.prefix);
		assert_string_equal(again.via, req.via);
	}
	{
		struct xfab_ctl_req req;
		struct xfab_ctl_err err;
		const char *l = good[4];

		assert_int_equal(xfab_ctl_parse_request(l, strlen(l), &req, &err), 0);
		assert_int_equal(req.cmd, XFAB_CTL_TE_ADD);
		assert_string_equal(req.in, "eth3");
		assert_int_equal(req.pfx.family, AF_INET);
		assert_int_equal(req.pfx.plen, 24);
		assert_memory_equal(req.pfx.addr, "\x0a\x04\x02\x00", 4);
	}
}

/* Plan generations (docs/CONTROL.md): an optional gen on te-add, te-del
 * and te-clear, a required one on te-sweep; decimal 1..2^64-1 with both
 * sides of each edge; te-list's optional page start. */
static void test_generations(void **state)
{
	struct xfab_ctl_req req, again;
	struct xfab_ctl_err err;
	char buf[XFAB_CTL_MAX_LINE];
	uint64_t v = 0;
	int n;

	(void)state;
	/* the parser alone, against values written out here */
	assert_int_equal(xfab_ctl_parse_gen("1", &v), 0);
	assert_true(v == 1);
	assert_int_equal(xfab_ctl_parse_gen("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(xfab_ctl_parse_gen("18446744073709551614", &v), 0);
	assert_true(v == UINT64_MAX - 1);
	assert_int_equal(xfab_ctl_parse_gen("1844674407370955161", &v), 0);
	assert_true(v == 1844674407370955161ull);
	v = 7;
	assert_int_equal(xfab_ctl_parse_gen("18446744073709551616", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("99999999999999999999", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("184467440737095516150", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("0", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("07", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("-1", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("+1", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen("1a", &v), -1);
	assert_int_equal(xfab_ctl_parse_gen(" 1", &v), -1);
	assert_true(v == 7); /* untouched on a refusal */

	/* in requests */
	accepted("{\"cmd\":\"te-add\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\","
		 "\"via\":\"10.254.1.0\",\"gen\":\"42\"}",
		 &req);
	assert_int_equal(req.cmd, XFAB_CTL_TE_ADD);
	assert_true(req.generation == 42);
	assert_string_equal(req.gen, "42");
	accepted("{\"cmd\":\"te-add\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\","
		 "\"via\":\"10.254.1.0\"}",
		 &req);
	assert_true(req.generation == 0); /* without one */
	accepted("{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\","
		 "\"gen\":\"18446744073709551615\"}",
		 &req);
	assert_true(req.generation == UINT64_MAX);
	accepted("{\"cmd\":\"te-clear\",\"gen\":\"3\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_TE_CLEAR);
	assert_true(req.generation == 3);
	accepted("{\"cmd\":\"te-sweep\",\"gen\":\"5\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_TE_SWEEP);
	assert_true(req.generation == 5);
	refused("{\"cmd\":\"te-sweep\"}", "gen", "missing field \"gen\"");
	refused("{\"cmd\":\"te-sweep\",\"gen\":\"0\"}", "gen", "not a generation");
	refused("{\"cmd\":\"te-sweep\",\"gen\":\"18446744073709551616\"}", "gen",
		"not a generation (1..18446744073709551615)");
	refused("{\"cmd\":\"te-sweep\",\"gen\":\"123456789012345678901234\"}", "gen",
		"not a generation");
	refused("{\"cmd\":\"te-sweep\",\"gen\":5}", "gen", "must be a string");
	refused("{\"cmd\":\"te-clear\",\"gen\":\"x\"}", "gen", "not a generation");
	refused("{\"cmd\":\"ping\",\"gen\":\"1\"}", "gen", "unknown field");
	refused("{\"cmd\":\"te-sweep\",\"gen\":\"2\",\"in\":\"eth1\"}", "in", "unknown field");
	/* te-list: an optional page start */
	accepted("{\"cmd\":\"te-list\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_TE_LIST);
	assert_int_equal(req.from_index, 0);
	accepted("{\"cmd\":\"te-list\",\"from\":\"4294967295\"}", &req);
	assert_int_equal(req.from_index, UINT32_MAX);
	refused("{\"cmd\":\"te-list\",\"from\":\"4294967296\"}", "from", "not a pin index");
	refused("{\"cmd\":\"te-list\",\"from\":\"-1\"}", "from", "not a pin index");
	refused("{\"cmd\":\"te-list\",\"from\":\"\"}", "from", "not a pin index");
	refused("{\"cmd\":\"te-list\",\"from\":\"12x\"}", "from", "not a pin index");
	refused("{\"cmd\":\"te-list\",\"from\":\"7 \"}", "from", "not a pin index");
	refused("{\"cmd\":\"te-list\",\"gen\":\"1\"}", "gen", "unknown field");

	/* round trips keep gen (and leave it out when not given) */
	accepted("{\"cmd\":\"te-sweep\",\"gen\":\"9\"}", &req);
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_true(n > 0);
	assert_string_equal(buf, "{\"cmd\":\"te-sweep\",\"gen\":\"9\"}\n");
	accepted("{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\"}", &req);
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_string_equal(buf,
			    "{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\"}\n");
	accepted("{\"cmd\":\"te-add\",\"in\":\"eth3\",\"prefix\":\"10.4.2.0/24\","
		 "\"via\":\"10.254.1.0\",\"gen\":\"77\"}",
		 &req);
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_int_equal(xfab_ctl_parse_request(buf, (size_t)n - 1, &again, &err), 0);
	assert_true(again.generation == 77);
	assert_string_equal(again.via, "10.254.1.0");
}

static void test_responses(void **state)
{
	char buf[512], error[256], field[16];
	int ok = -1;

	(void)state;
	assert_true(xfab_ctl_format_error(buf, sizeof(buf), "via", "say \"no\"\n") > 0);
	assert_string_equal(
	    buf, "{\"ok\":false,\"error\":\"say \\\"no\\\"\\u000a\",\"field\":\"via\"}\n");
	assert_int_equal(
	    xfab_ctl_parse_response(buf, &ok, error, sizeof(error), field, sizeof(field)), 0);
	assert_int_equal(ok, 0);
	assert_string_equal(error, "say \"no\"\n");
	assert_string_equal(field, "via");
	assert_int_equal(xfab_ctl_parse_response("{\"ok\":true,\"switch\":\"leaf1\"}", &ok, error,
						 sizeof(error), field, sizeof(field)),
			 0);
	assert_int_equal(ok, 1);
	assert_string_equal(field, "");
	assert_int_equal(
	    xfab_ctl_parse_response("{\"ok\":1}", &ok, error, sizeof(error), field, sizeof(field)),
	    -1);
	assert_int_equal(
	    xfab_ctl_parse_response("nonsense", &ok, error, sizeof(error), field, sizeof(field)),
	    -1);
	assert_int_equal(xfab_ctl_format_error(buf, 10, "via", "too long for ten bytes"), -1);
}

static void test_socket_path(void **state)
{
	char p[200];

	(void)state;
	assert_int_equal(xfab_ctl_socket_path("/sys/fs/bpf/xfab/leaf1", p, sizeof(p)), 0);
	assert_string_equal(p, "/run/xfab/leaf1.sock");
	assert_int_equal(xfab_ctl_socket_path("/sys/fs/bpf/xfab/clos/leaf1", p, sizeof(p)), 0);
	assert_string_equal(p, "/run/xfab/clos/leaf1.sock");
	assert_int_equal(xfab_ctl_socket_path("/sys/fs/bpf/other/s1", p, sizeof(p)), 0);
	assert_string_equal(p, "/run/xfab/other/s1.sock");
	assert_int_equal(xfab_ctl_socket_path("/sys/fs/bpf/xfab-test-1/s1", p, sizeof(p)), 0);
	assert_string_equal(p, "/run/xfab/xfab-test-1/s1.sock");
	/* beyond what a unix socket address holds */
	assert_int_equal(
	    xfab_ctl_socket_path("/sys/fs/bpf/xfab/"
				 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				 p, sizeof(p)),
	    -1);
}

/* Both sides of every limit: a 15-character port name and 64 gateways are
 * fine, 16 and 65 are not; a request of XFAB_CTL_MAX_LINE - 1 bytes is
 * fine, XFAB_CTL_MAX_LINE is not; a host bit in a prefix's partial byte is
 * refused; a socket path of 107 bytes fits sun_path (108, NUL included),
 * 108 do not. */
static void test_limits(void **state)
{
	struct xfab_ctl_req req;
	struct xfab_ctl_err err;
	char via[2048], text[4096], name[128], p[200];
	char *line = malloc(XFAB_CTL_MAX_LINE + 1);
	size_t o = 0;

	(void)state;
	assert_non_null(line);
	accepted("{\"cmd\":\"te-del\",\"in\":\"eth123456789abc\",\"prefix\":\"10.0.0.0/8\"}", &req);
	assert_string_equal(req.in, "eth123456789abc");
	refused("{\"cmd\":\"te-del\",\"in\":\"eth123456789abcd\",\"prefix\":\"10.0.0.0/8\"}", "in",
		"1 to 15");

	for (int i = 0; i < XFAB_GROUP_MAX_MEMBERS; i++)
		o += (size_t)snprintf(via + o, sizeof(via) - o, "%s10.0.%d.1", i ? "," : "", i);
	snprintf(text, sizeof(text),
		 "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.0.0/8\",\"via\":\"%s\"}",
		 via);
	if (xfab_ctl_parse_request(text, strlen(text), &req, &err))
		fail_msg("64 gateways refused: %s", err.msg);

	memset(line, ' ', XFAB_CTL_MAX_LINE);
	memcpy(line, "{\"cmd\":\"ping\"}", 14);
	assert_int_equal(xfab_ctl_parse_request(line, XFAB_CTL_MAX_LINE, &req, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	free(line);

	refused("{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"10.0.0.64/25\"}", "prefix",
		"host bits set past /25");
	refused("{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"2001:db8:4000::/33\"}", "prefix",
		"host bits set past /33");
	accepted("{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"10.0.0.128/25\"}", &req);

	/* "/run/xfab/" NAME ".sock": 15 bytes besides the name */
	memset(name, 'a', sizeof(name));
	snprintf(text, sizeof(text), "/sys/fs/bpf/xfab/%.*s", 107 - 15, name);
	assert_int_equal(xfab_ctl_socket_path(text, p, sizeof(p)), 0);
	assert_int_equal(strlen(p), 107);
	snprintf(text, sizeof(text), "/sys/fs/bpf/xfab/%.*s", 108 - 15, name);
	assert_int_equal(xfab_ctl_socket_path(text, p, sizeof(p)), -1);
}

/* Strings in responses: quote, backslash and every control character
 * escaped as JSON wants, and read back as they were. */
static void test_escapes(void **state)
{
	char buf[512], error[256], field[16], msg[40];
	int ok = -1;

	(void)state;
	assert_true(xfab_ctl_format_error(buf, sizeof(buf), "in", "a\\b\x1f\x01 \x7e") > 0);
	assert_string_equal(
	    buf, "{\"ok\":false,\"error\":\"a\\\\b\\u001f\\u0001 ~\",\"field\":\"in\"}\n");
	assert_int_equal(
	    xfab_ctl_parse_response(buf, &ok, error, sizeof(error), field, sizeof(field)), 0);
	assert_string_equal(error, "a\\b\x1f\x01 \x7e");
	for (int c = 1; c < 0x20; c++) {
		snprintf(msg, sizeof(msg), "x%cy", c);
		assert_true(xfab_ctl_format_error(buf, sizeof(buf), "", msg) > 0);
		assert_int_equal(
		    xfab_ctl_parse_response(buf, &ok, error, sizeof(error), field, sizeof(field)),
		    0);
		assert_string_equal(error, msg);
		assert_null(memchr(buf, c, strlen(buf) - 1)); /* the line ends in its newline */
	}
	/* into a buffer of exactly its size (quotes and NUL counted here),
	 * and one byte short: refused, nothing written past the end */
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(xfab_ctl_json_string(buf, 5, "ab"), 4);
	assert_string_equal(buf, "\"ab\"");
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(xfab_ctl_json_string(buf, 4, "ab"), -1);
	assert_int_equal(buf[4], 'Z');
	assert_int_equal(xfab_ctl_json_string(buf, 9, "\x01"), 8);
	assert_string_equal(buf, "\"\\u0001\"");
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(xfab_ctl_json_string(buf, 8, "\x01"), -1);
	assert_int_equal(buf[8], 'Z');
	assert_int_equal(xfab_ctl_json_string(buf, 2, ""), -1);
	assert_int_equal(xfab_ctl_json_string(buf, 3, ""), 2);
	assert_string_equal(buf, "\"\"");
}

/* The PFC watchdog's requests: SONiC's ranges, both sides of each. */
static void test_pfcwd(void **state)
{
	struct xfab_ctl_req req, again;
	struct xfab_ctl_err err;
	char buf[XFAB_CTL_MAX_LINE];
	int n;

	(void)state;
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\"}", "detection_time", "missing field");
	refused("{\"cmd\":\"pfcwd-start\",\"detection_time\":\"200\"}", "ports", "missing field");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"99\"}",
		"detection_time", "not 100..5000");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"5001\"}",
		"detection_time", "not 100..5000");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"2e2\"}",
		"detection_time", "not 100..5000");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"-200\"}",
		"detection_time", "milliseconds");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"200\","
		"\"restoration_time\":\"60001\"}",
		"restoration_time", "not 100..60000");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":\"200\","
		"\"action\":\"shutdown\"}",
		"action", "not drop, forward or alert");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1,,eth2\",\"detection_time\":\"200\"}",
		"ports", "PORT[,PORT...]");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth 1\",\"detection_time\":\"200\"}", "ports",
		"not a port name");
	refused("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1\",\"detection_time\":200}",
		"detection_time", "must be a string");
	refused("{\"cmd\":\"pfcwd-interval\",\"poll_interval\":\"1001\"}", "poll_interval",
		"not 100..1000");
	refused("{\"cmd\":\"pfcwd-interval\",\"poll_interval\":\"99\"}", "poll_interval",
		"not 100..1000");
	refused("{\"cmd\":\"pfcwd-interval\"}", "poll_interval", "missing field");
	refused("{\"cmd\":\"pfcwd-stop\",\"poll_interval\":\"100\"}", "poll_interval",
		"unknown field");

	accepted("{\"cmd\":\"pfcwd-start\",\"ports\":\"eth1,eth2\",\"detection_time\":\"100\","
		 "\"action\":\"forward\",\"restoration_time\":\"60000\"}",
		 &req);
	assert_int_equal(req.cmd, XFAB_CTL_PFCWD_START);
	assert_string_equal(req.ports, "eth1,eth2");
	assert_string_equal(req.detection, "100");
	assert_string_equal(req.action, "forward");
	assert_string_equal(req.restoration, "60000");
	accepted("{\"cmd\":\"pfcwd-start\",\"ports\":\"all\",\"detection_time\":\"5000\"}", &req);
	assert_string_equal(req.action, "");
	assert_string_equal(req.restoration, "");
	/* optional fields left out on the wire, and back the same */
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_true(n > 0);
	assert_null(strstr(buf, "action"));
	assert_null(strstr(buf, "restoration_time"));
	assert_int_equal(xfab_ctl_parse_request(buf, (size_t)n - 1, &again, &err), 0);
	assert_string_equal(again.ports, "all");
	assert_string_equal(again.detection, "5000");
	accepted("{\"cmd\":\"pfcwd-interval\",\"poll_interval\":\"100\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_PFCWD_INTERVAL);
	assert_string_equal(req.poll, "100");
	accepted("{\"cmd\":\"pfcwd-stop\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_PFCWD_STOP);
	assert_string_equal(req.ports, "");
}

/* port-drain and port-undrain (docs/CONTROL.md): the port required and a
 * port name, the reason optional, printable and at most 64 characters
 * (both sides of the limit); a round trip keeps both. */
static void test_drain(void **state)
{
	char line[256], reason[XFAB_CTL_REASON_MAX + 2];
	struct xfab_ctl_req req, again;
	struct xfab_ctl_err err;
	char buf[XFAB_CTL_MAX_LINE];
	int n;

	(void)state;
	refused("{\"cmd\":\"port-drain\"}", "port", "missing field \"port\"");
	refused("{\"cmd\":\"port-undrain\"}", "port", "missing field \"port\"");
	refused("{\"cmd\":\"port-drain\",\"port\":\"\"}", "port", "1 to 15");
	refused("{\"cmd\":\"port-drain\",\"port\":\"eth1234567890abcd\"}", "port", "1 to 15");
	refused("{\"cmd\":\"port-drain\",\"port\":\"eth 2\"}", "port", "not a port name");
	refused("{\"cmd\":\"port-drain\",\"port\":2}", "port", "must be a string");
	refused("{\"cmd\":\"port-undrain\",\"port\":\"eth2\",\"reason\":\"x\"}", "reason",
		"unknown field");
	refused("{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"a\\nb\"}", "reason",
		"printable ASCII only");
	refused("{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"\\u00e9\"}", "reason",
		"printable ASCII only");
	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0'; /* 65 characters */
	snprintf(line, sizeof(line), "{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"%s\"}",
		 reason);
	refused(line, "reason", "at most 64 characters (65 given)");
	reason[XFAB_CTL_REASON_MAX] = '\0'; /* 64 */
	snprintf(line, sizeof(line), "{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"%s\"}",
		 reason);
	accepted(line, &req);
	assert_string_equal(req.reason, reason);

	accepted("{\"cmd\":\"port-drain\",\"port\":\"eth2\",\"reason\":\"doctor: 1.0 % loss\"}",
		 &req);
	assert_int_equal(req.cmd, XFAB_CTL_PORT_DRAIN);
	assert_string_equal(req.port, "eth2");
	assert_string_equal(req.reason, "doctor: 1.0 % loss");
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(xfab_ctl_parse_request(buf, (size_t)n - 1, &again, &err), 0);
	assert_string_equal(again.port, "eth2");
	assert_string_equal(again.reason, "doctor: 1.0 % loss");
	accepted("{\"cmd\":\"port-undrain\",\"port\":\"eth2\"}", &req);
	assert_int_equal(req.cmd, XFAB_CTL_PORT_UNDRAIN);
	assert_string_equal(req.port, "eth2");
	n = xfab_ctl_format_request(&req, buf, sizeof(buf));
	assert_true(n > 0);
	assert_null(strstr(buf, "reason"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malformed), cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_oversize),  cmocka_unit_test(test_good_and_round_trip),
	    cmocka_unit_test(test_responses), cmocka_unit_test(test_socket_path),
	    cmocka_unit_test(test_limits),    cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_pfcwd),     cmocka_unit_test(test_generations),
	    cmocka_unit_test(test_drain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
