// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the declarative options (user/lib/opts.c). The oracle is
 * written out here by hand: the exact bytes --help must print, the values
 * each kind must store, and the exact refusal for each bad argument:
 *   - every kind stores what its text says, range ends included, and one
 *     past either end is refused naming the option and the range;
 *   - unknown options and missing arguments are refused (exit 2), --help
 *     prints the generated text on stdout (exit 0);
 *   - operands after the options are left to the caller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "opts.h"

static struct vals {
	int json;
	const char *dev;
	int rate;
	uint8_t prio;
	uint8_t canary; /* right after prio: a write wider than prio's byte spoils it */
	long long delta;
	unsigned int rcvbuf;
	uint64_t big;
	double frac;
	unsigned char mac[6];
	int have_mac;
	const char *ports[3];
	int n_ports;
	int stage;
	int even;
} v;

static const char *const stages[] = {"full", "parse", "fib", NULL};

static int parse_even(const char *text, void *dest, char *why, size_t len)
{
	int n = atoi(text);

	if (n % 2) {
		snprintf(why, len, "must be even");
		return -1;
	}
	*(int *)dest = n;
	return 0;
}

static const struct xfab_opt rows[] = {
    XFAB_OPT_FLAG("json", 'j', v.json, "JSON output"),
    XFAB_OPT_STR("dev", 'd', v.dev, "IFNAME", "the port"),
    XFAB_OPT_INT("rate", 0, v.rate, 0, 10000000, "PPS", "frames per second\n(0: no limit)"),
    XFAB_OPT_UINT("prio", 'p', v.prio, 0, 7, "N", "priority"),
    XFAB_OPT_INT("delta", 0, v.delta, -5, 5, "D", "a signed step"),
    XFAB_OPT_UINT("rcvbuf", 0, v.rcvbuf, 4096, 1u << 30, "BYTES", "buffer", .base = 10),
    XFAB_OPT_UINT("big", 0, v.big, 0, UINT64_MAX, "N", "a 64-bit number"),
    XFAB_OPT_DOUBLE("frac", 'f', v.frac, 0.0, 1.0, "F", "a fraction"),
    XFAB_OPT_MAC("dmac", 0, v.mac, "MAC", "destination", .seen = &v.have_mac),
    XFAB_OPT_LIST("port", 0, v.ports, v.n_ports, "P[,P]", "ports"),
    XFAB_OPT_ENUM("stage", 0, v.stage, stages, "STAGE", "where to stop"),
    XFAB_OPT_FUNC("even", 0, &v.even, parse_even, "N", "an even number"),
    XFAB_OPT_FLAG("a-very-long-option-name", 0, v.json, "help on its own line"),
    XFAB_OPT_END,
};

static const struct xfab_opts spec = {"t", "FILE...", rows, "Epilogue line.\n"};

static const char help_text[] = "usage: t [OPTIONS] FILE...\n"
				"  -j, --json          JSON output\n"
				"  -d, --dev IFNAME    the port\n"
				"      --rate PPS      frames per second\n"
				"                      (0: no limit)\n"
				"  -p, --prio N        priority\n"
				"      --delta D       a signed step\n"
				"      --rcvbuf BYTES  buffer\n"
				"      --big N         a 64-bit number\n"
				"  -f, --frac F        a fraction\n"
				"      --dmac MAC      destination\n"
				"      --port P[,P]    ports\n"
				"      --stage STAGE   where to stop\n"
				"      --even N        an even number\n"
				"      --a-very-long-option-name\n"
				"                      help on its own line\n"
				"  -h, --help          this text\n"
				"Epilogue line.\n";

static char out_buf[8192], err_buf[8192];

/* run()'s last word: a pointer, not a bare NULL that may be an int */
#define END ((const char *)NULL)

/* stdout and stderr caught in files between capture_start and capture_end,
 * which leaves them in out_buf and err_buf. */
struct capture {
	FILE *fo, *fe;
	int so, se;
};

static void capture_start(struct capture *c)
{
	c->fo = tmpfile();
	c->fe = tmpfile();
	fflush(stdout);
	fflush(stderr);
	c->so = dup(1);
	c->se = dup(2);
	dup2(fileno(c->fo), 1);
	dup2(fileno(c->fe), 2);
}

static void capture_end(struct capture *c)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	dup2(c->so, 1);
	dup2(c->se, 2);
	close(c->so);
	close(c->se);
	rewind(c->fo);
	rewind(c->fe);
	n = fread(out_buf, 1, sizeof(out_buf) - 1, c->fo);
	out_buf[n] = '\0';
	n = fread(err_buf, 1, sizeof(err_buf) - 1, c->fe);
	err_buf[n] = '\0';
	fclose(c->fo);
	fclose(c->fe);
}

/* Run the parser on a NULL-terminated list of words, stdout and stderr
 * caught in out_buf and err_buf. */
static int run(const char *first, ...)
{
	char words[32][128], *argv[33];
	struct capture cap;
	int argc = 0, r;
	va_list ap;

	argv[argc] = strcpy(words[argc], "t");
	argc++;
	va_start(ap, first);
	for (const char *w = first; w; w = va_arg(ap, const char *)) {
		argv[argc] = strcpy(words[argc], w);
		argc++;
	}
	va_end(ap);
	argv[argc] = NULL;
	memset(&v, 0, sizeof(v));
	v.canary = 0xa5;
	capture_start(&cap);
	r = xfab_opts_parse(&spec, argc, argv);
	capture_end(&cap);
	/* the list's items point into words: keep what the tests read */
	static char keep[3][128];
	for (int i = 0; i < v.n_ports && i < 3; i++)
		v.ports[i] = strcpy(keep[i], v.ports[i]);
	return r;
}

static void test_help_bytes(void **state)
{
	(void)state;
	assert_int_equal(run("--help", END), XFAB_OPTS_HELP);
	assert_string_equal(out_buf, help_text);
	assert_string_equal(err_buf, "");
	assert_int_equal(xfab_opts_exit(XFAB_OPTS_HELP), 0);
	assert_int_equal(run("-h", END), XFAB_OPTS_HELP);
	assert_string_equal(out_buf, help_text);
}

static void test_every_kind(void **state)
{
	const unsigned char mac[6] = {0x02, 0x00, 0x0a, 0xff, 0xab, 0x01};

	(void)state;
	assert_int_equal(run("-j", "-d", "eth1", "--rate", "10000000", "-p", "7", "--delta", "-5",
			     "--rcvbuf", "4096", "--frac", "1", "--dmac", "02:00:0a:ff:Ab:01",
			     "--port", "a,b", "--port", "c", "--stage", "fib", "--even", "4",
			     "--big", "18446744073709551615", "x", "y", END),
			 26);
	assert_string_equal(err_buf, "");
	assert_int_equal(v.json, 1);
	assert_string_equal(v.dev, "eth1");
	assert_int_equal(v.rate, 10000000);
	assert_int_equal(v.prio, 7);
	assert_int_equal(v.canary, 0xa5);
	assert_true(v.delta == -5);
	assert_int_equal(v.rcvbuf, 4096);
	assert_true(v.big == UINT64_MAX);
	assert_true(v.frac == 1.0);
	assert_memory_equal(v.mac, mac, 6);
	assert_int_equal(v.have_mac, 1);
	assert_int_equal(v.n_ports, 3);
	assert_string_equal(v.ports[0], "a");
	assert_string_equal(v.ports[1], "b");
	assert_string_equal(v.ports[2], "c");
	assert_int_equal(v.stage, 2);
	assert_int_equal(v.even, 4);

	/* the low ends, and the rest untouched */
	assert_int_equal(run("--rate", "0", "--prio", "0", "--delta", "5", "--frac", "0", "--stage",
			     "full", "--rcvbuf", "1073741824", END),
			 13);
	assert_int_equal(v.rate, 0);
	assert_true(v.delta == 5);
	assert_int_equal(v.rcvbuf, 1u << 30);
	assert_int_equal(v.stage, 0);
	assert_int_equal(v.json, 0);
	assert_int_equal(v.have_mac, 0);
	assert_null(v.dev);
	/* base 0 by default: 0x.. reads hex */
	assert_int_equal(run("--prio", "0x7", END), 3);
	assert_int_equal(v.prio, 7);
}

static void test_rcvbuf_base10(void **state)
{
	(void)state;
	/* .base = 10: a leading 0 is not octal */
	assert_int_equal(run("--rcvbuf", "010000", END), 3);
	assert_int_equal(v.rcvbuf, 10000);
}

struct bad {
	const char *opt, *arg, *err;
};

static void test_bad_values(void **state)
{
	static const struct bad bad[] = {
	    {"--rate", "-1", "t: --rate \"-1\": must be 0..10000000\n"},
	    {"--rate", "10000001", "t: --rate \"10000001\": must be 0..10000000\n"},
	    {"--rate", "12x", "t: --rate \"12x\": must be 0..10000000\n"},
	    {"--rate", "", "t: --rate \"\": must be 0..10000000\n"},
	    {"--prio", "8", "t: --prio \"8\": must be 0..7\n"},
	    {"-p", "-0", "t: --prio \"-0\": must be 0..7\n"},
	    {"--delta", "-6", "t: --delta \"-6\": must be -5..5\n"},
	    {"--delta", "6", "t: --delta \"6\": must be -5..5\n"},
	    {"--rcvbuf", "4095", "t: --rcvbuf \"4095\": must be 4096..1073741824\n"},
	    {"--rcvbuf", "0x1000", "t: --rcvbuf \"0x1000\": must be 4096..1073741824\n"},
	    {"--big", "18446744073709551616",
	     "t: --big \"18446744073709551616\": must be 0..18446744073709551615\n"},
	    {"--frac", "1.01", "t: --frac \"1.01\": must be 0..1\n"},
	    {"--frac", "-0.1", "t: --frac \"-0.1\": must be 0..1\n"},
	    {"--frac", "nan", "t: --frac \"nan\": must be 0..1\n"},
	    {"--dmac", "02:00:0a:ff:ab",
	     "t: --dmac \"02:00:0a:ff:ab\": must be a MAC, "
	     "aa:bb:cc:dd:ee:ff\n"},
	    {"--port", "a,b,c,d", "t: --port \"a,b,c,d\": at most 3 items\n"},
	    {"--stage", "pick", "t: --stage \"pick\": must be one of full, parse, fib\n"},
	    {"--even", "3", "t: --even \"3\": must be even\n"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run(bad[i].opt, bad[i].arg, END), XFAB_OPTS_USAGE);
		assert_string_equal(err_buf, bad[i].err);
		assert_string_equal(out_buf, "");
	}
	assert_int_equal(xfab_opts_exit(XFAB_OPTS_USAGE), 2);
	/* a refused MAC is not seen */
	run("--dmac", "zz", END);
	assert_int_equal(v.have_mac, 0);
}

static void test_unknown_and_missing(void **state)
{
	char want[8192];

	(void)state;
	assert_int_equal(run("--nope", END), XFAB_OPTS_USAGE);
	snprintf(want, sizeof(want), "t: unknown option --nope\n%s", help_text);
	assert_string_equal(err_buf, want);
	assert_string_equal(out_buf, "");

	assert_int_equal(run("-z", END), XFAB_OPTS_USAGE);
	snprintf(want, sizeof(want), "t: unknown option -z\n%s", help_text);
	assert_string_equal(err_buf, want);

	assert_int_equal(run("--rate", END), XFAB_OPTS_USAGE);
	snprintf(want, sizeof(want), "t: --rate needs an argument (PPS)\n%s", help_text);
	assert_string_equal(err_buf, want);

	assert_int_equal(run("-d", END), XFAB_OPTS_USAGE);
	snprintf(want, sizeof(want), "t: --dev needs an argument (IFNAME)\n%s", help_text);
	assert_string_equal(err_buf, want);

	/* a flag given a value */
	assert_int_equal(run("--json=1", END), XFAB_OPTS_USAGE);
	assert_non_null(strstr(err_buf, "t: unknown option --json=1\n"));
}

static void test_operands(void **state)
{
	(void)state;
	assert_int_equal(run(END), 1);
	assert_int_equal(run("a", "-j", END), 2);
	assert_int_equal(v.json, 1); /* GNU order: options after operands too */
	assert_int_equal(run("--", "-j", END), 2);
	assert_int_equal(v.json, 0);
}

/* A .required row, and xfab_opts_parse_all's operand refusal. */
static void test_required_and_operands(void **state)
{
	const char *name = NULL;
	const struct xfab_opt req_rows[] = {
	    XFAB_OPT_STR("name", 'n', name, "NAME", "who", .required = 1),
	    XFAB_OPT_END,
	};
	const struct xfab_opts req = {"r", NULL, req_rows, NULL};
	const char *usage = "usage: r [OPTIONS]\n"
			    "  -n, --name NAME  who\n"
			    "  -h, --help       this text\n";
	char a0[] = "r", a1[] = "-n", a2[] = "x", a3[] = "extra", want[512];
	char *argv[] = {a0, a1, a2, a3, NULL};
	FILE *fe = tmpfile();
	int se = dup(2), r1, r2, r3, r4;
	size_t n;

	(void)state;
	fflush(stderr);
	dup2(fileno(fe), 2);
	r1 = xfab_opts_parse(&req, 1, argv);	 /* no --name */
	r2 = xfab_opts_parse_all(&req, 3, argv); /* -n x */
	r3 = xfab_opts_parse_all(&req, 4, argv); /* -n x extra */
	r4 = xfab_opts_parse(&req, 4, argv);	 /* the operand is the caller's */
	fflush(stderr);
	dup2(se, 2);
	close(se);
	rewind(fe);
	n = fread(err_buf, 1, sizeof(err_buf) - 1, fe);
	err_buf[n] = '\0';
	fclose(fe);
	assert_int_equal(r1, XFAB_OPTS_USAGE);
	assert_int_equal(r2, -1);
	assert_string_equal(name, "x");
	assert_int_equal(r3, 2);
	assert_int_equal(r4, 3);
	snprintf(want, sizeof(want), "r: --name is required\n%sr: unexpected argument extra\n%s",
		 usage, usage);
	assert_string_equal(err_buf, want);
}

/* A row with a letter alone (no long name): -j and -n N parse, --help
 * shows them without "--", a refusal names "-n", and no long option of
 * that name exists. */
static void test_letter_alone(void **state)
{
	int json = 0, num = 0;
	const struct xfab_opt lrows[] = {
	    XFAB_OPT_FLAG(NULL, 'j', json, "JSON"),
	    XFAB_OPT_INT(NULL, 'n', num, 1, 9, "N", "a digit"),
	    XFAB_OPT_FLAG("long", 0, json, "a long one"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts ls = {"l", NULL, lrows, NULL};
	const char *usage = "usage: l [OPTIONS]\n"
			    "  -j          JSON\n"
			    "  -n N        a digit\n"
			    "      --long  a long one\n"
			    "  -h, --help  this text\n";
	char a0[] = "l", a1[] = "-j", a2[] = "-n", a3[] = "7", a4[] = "0", a5[] = "--j", want[512];
	char *ok[] = {a0, a1, a2, a3, NULL}, *bad[] = {a0, a2, a4, NULL},
	     *nolong[] = {a0, a5, NULL};
	char a6[] = "--long", *lng[] = {a0, a6, NULL};
	struct capture cap;
	int r1, r2, r3, r4;

	(void)state;
	capture_start(&cap);
	r1 = xfab_opts_parse(&ls, 4, ok);
	r2 = xfab_opts_parse(&ls, 3, bad);
	r3 = xfab_opts_parse(&ls, 2, nolong);
	json = 0;
	r4 = xfab_opts_parse(&ls, 2, lng); /* the long rows after a letter alone */
	xfab_opts_usage(&ls, stdout);
	capture_end(&cap);
	assert_int_equal(r1, 4);
	assert_int_equal(json, 1);
	assert_int_equal(num, 7);
	assert_int_equal(r2, XFAB_OPTS_USAGE);
	assert_int_equal(r3, XFAB_OPTS_USAGE);
	assert_int_equal(r4, 2);
	assert_int_equal(json, 1);
	assert_string_equal(out_buf, usage);
	snprintf(want, sizeof(want), "l: -n \"0\": must be 1..9\nl: unknown option --j\n%s", usage);
	assert_string_equal(err_buf, want);
}

/* A table's own "help" row comes before the one the parser adds: --help
 * (or -h in a cluster) sets the row's flag and parsing goes on, nothing
 * printed, so a caller (xfabctl) answers it once it knows the command. The
 * operands are moved after the options, as getopt does. */
static void test_own_help_row(void **state)
{
	int help = 0, json = 0;
	const struct xfab_opt own_rows[] = {
	    XFAB_OPT_FLAG("help", 'h', help, "a command's help"),
	    XFAB_OPT_FLAG("json", 'j', json, "JSON"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts own = {"o", NULL, own_rows, NULL};
	char a0[] = "o", a1[] = "te", a2[] = "--help", a3[] = "add", a4[] = "-jh";
	char *argv[] = {a0, a1, a2, a3, NULL}, *argv2[] = {a0, a4, a1, NULL};
	int first;

	(void)state;
	fflush(stdout);
	first = xfab_opts_parse(&own, 4, argv);
	assert_int_equal(first, 2);
	assert_int_equal(help, 1);
	assert_string_equal(argv[2], "te");
	assert_string_equal(argv[3], "add");
	help = 0;
	assert_int_equal(xfab_opts_parse(&own, 3, argv2), 2);
	assert_int_equal(help, 1);
	assert_int_equal(json, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help_bytes),
	    cmocka_unit_test(test_every_kind),
	    cmocka_unit_test(test_rcvbuf_base10),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_unknown_and_missing),
	    cmocka_unit_test(test_operands),
	    cmocka_unit_test(test_required_and_operands),
	    cmocka_unit_test(test_letter_alone),
	    cmocka_unit_test(test_own_help_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
