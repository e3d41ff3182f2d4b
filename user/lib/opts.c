// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Declarative options (opts.h): getopt_long, the value checks and --help
 * from one table. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "textparse.h"

#define OPTS_MAX 64	   /* rows in one table, --help included */
#define OPTS_HELP_COL 28   /* the help column, unless every option is narrower */
#define OPTS_LONG_BASE 256 /* getopt_long's value for row i: above any letter */

static const struct xfab_opt opts_help_row = {
    .name = "help", .short_name = 'h', .kind = XFAB_OPTK_FLAG, .help = "this text"};

static int opts_count(const struct xfab_opt *rows)
{
	int n = 0;

	while (rows[n].kind != XFAB_OPTK_END)
		n++;
	return n;
}

static int opts_takes_arg(const struct xfab_opt *o)
{
	return o->kind != XFAB_OPTK_FLAG;
}

/* "  -c, --config FILE" or "      --check": the option column of a row. */
static int opts_left(const struct xfab_opt *o, char *buf, size_t len)
{
	char shrt[8] = "    ";

	if (!o->name) /* a letter alone: "  -j" */
		return snprintf(buf, len, "  -%c%s%s", o->short_name, o->metavar ? " " : "",
				o->metavar ? o->metavar : "");
	if (o->short_name)
		snprintf(shrt, sizeof(shrt), "-%c, ", o->short_name);
	return snprintf(buf, len, "  %s--%s%s%s", shrt, o->name, o->metavar ? " " : "",
			o->metavar ? o->metavar : "");
}

/* The option as messages name it: "--rate", or "-j" for a letter alone. */
static const char *opts_spelling(const struct xfab_opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static void opts_row_help(const struct xfab_opt *o, int col, FILE *out)
{
	char left[128];
	int w = opts_left(o, left, sizeof(left));
	const char *h = o->help ? o->help : "";

	fputs(left, out);
	/* an option wider than the column gets its help on the next line */
	if (w + 2 > col)
		fprintf(out, "\n%*s", col, "");
	else
		fprintf(out, "%*s", col - w, "");
	for (; *h; h++) {
		fputc(*h, out);
		if (*h == '\n' && h[1])
			fprintf(out, "%*s", col, "");
	}
	fputc('\n', out);
}

void xfab_opts_usage(const struct xfab_opts *spec, FILE *out)
{
	int n = opts_count(spec->rows), col = 0;
	char left[128];

	fprintf(out, "usage: %s [OPTIONS]%s%s\n", spec->prog, spec->args ? " " : "",
		spec->args ? spec->args : "");
	for (int i = 0; i <= n; i++) {
		const struct xfab_opt *o = i < n ? &spec->rows[i] : &opts_help_row;
		int w = opts_left(o, left, sizeof(left)) + 2;

		if (w <= OPTS_HELP_COL && w > col)
			col = w;
	}
	for (int i = 0; i < n; i++)
		opts_row_help(&spec->rows[i], col, out);
	opts_row_help(&opts_help_row, col, out);
	if (spec->epilogue)
		fputs(spec->epilogue, out);
}

int xfab_opts_ip4(const char *text, void *dest, char *why, size_t len)
{
	struct in_addr a;

	if (inet_pton(AF_INET, text, &a) != 1) {
		snprintf(why, len, "not an IPv4 address");
		return -1;
	}
	memcpy(dest, &a, 4);
	return 0;
}

int xfab_opts_exit(int parsed)
{
	return parsed == XFAB_OPTS_HELP ? 0 : 2;
}

static void opts_store_u(void *dest, size_t size, unsigned long long v)
{
	switch (size) {
	case 1:
		*(uint8_t *)dest = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)dest = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)dest = (uint32_t)v;
		break;
	default:
		*(uint64_t *)dest = v;
	}
}

static int opts_bad(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int opts_bad(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text,
		    const char *fmt, ...)
{
	va_list ap;
	char sp[80];

	fprintf(stderr, "%s: %s \"%s\": ", spec->prog, opts_spelling(o, sp, sizeof(sp)), text);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int opts_int(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, o->base);
	if (errno || end == text || *end || v < o->lo || v > o->hi)
		return opts_bad(spec, o, text, "must be %lld..%lld", o->lo, o->hi);
	opts_store_u(o->dest, o->size, (unsigned long long)v);
	return 0;
}

static int opts_uint(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text)
{
	unsigned long long v;
	char *end;

	errno = 0;
	/* strtoull takes "-1" as the largest number: refuse any sign */
	v = strtoull(text, &end, o->base);
	if (errno || end == text || *end || strchr(text, '-') || v < o->ulo || v > o->uhi)
		return opts_bad(spec, o, text, "must be %llu..%llu", o->ulo, o->uhi);
	opts_store_u(o->dest, o->size, v);
	return 0;
}

static int opts_double(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	/* !(in range) also refuses a NaN */
	if (errno || end == text || *end || !(v >= o->dlo && v <= o->dhi))
		return opts_bad(spec, o, text, "must be %g..%g", o->dlo, o->dhi);
	*(double *)o->dest = v;
	return 0;
}

static int opts_enum(const struct xfab_opts *spec, const struct xfab_opt *o, const char *text)
{
	char all[512];
	size_t used = 0;

	for (int i = 0; o->names[i]; i++) {
		if (!strcmp(text, o->names[i])) {
			opts_store_u(o->dest, o->size, (unsigned long long)i);
			return 0;
		}
	}
	all[0] = '\0';
	for (int i = 0; o->names[i] && used < sizeof(all); i++)
		used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s", i ? ", " : "",
					 o->names[i]);
	return opts_bad(spec, o, text, "must be one of %s", all);
}

/* Each use adds its items: "--port a,b --port c" is a, b, c. The items
 * point into argv, cut at the commas. */
static int opts_list(const struct xfab_opts *spec, const struct xfab_opt *o, char *text)
{
	const char **arr = o->dest;
	char *save = NULL, *item;
	char copy[256];

	snprintf(copy, sizeof(copy), "%s", text);
	for (item = strtok_r(text, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (*o->count >= o->max)
			return opts_bad(spec, o, copy, "at most %d items", o->max);
		arr[(*o->count)++] = item;
	}
	return 0;
}

static int opts_value(const struct xfab_opts *spec, const struct xfab_opt *o, char *text)
{
	char why[256] = "";

	switch (o->kind) {
	case XFAB_OPTK_FLAG:
		opts_store_u(o->dest, o->size, 1);
		return 0;
	case XFAB_OPTK_STR:
		*(const char **)o->dest = text;
		return 0;
	case XFAB_OPTK_INT:
		return opts_int(spec, o, text);
	case XFAB_OPTK_UINT:
		return opts_uint(spec, o, text);
	case XFAB_OPTK_DOUBLE:
		return opts_double(spec, o, text);
	case XFAB_OPTK_MAC:
		if (xfab_parse_mac(text, o->dest))
			return opts_bad(spec, o, text, "must be a MAC, aa:bb:cc:dd:ee:ff");
		return 0;
	case XFAB_OPTK_LIST:
		return opts_list(spec, o, text);
	case XFAB_OPTK_ENUM:
		return opts_enum(spec, o, text);
	case XFAB_OPTK_FUNC:
		if (o->parse(text, o->dest, why, sizeof(why)))
			return opts_bad(spec, o, text, "%s", why);
		return 0;
	default:
		return -1;
	}
}

/* getopt_long's tables from the rows: row i answers OPTS_LONG_BASE + i,
 * and its letter, if any, is in the short string. */
static int opts_build(const struct xfab_opt *rows, int n, struct option *lo, char *shrt)
{
	int s = 0, l = 0;

	shrt[s++] = ':'; /* a missing argument is ':', not '?' */
	for (int i = 0; i < n; i++) {
		/* a row without a long name is its letter alone */
		if (rows[i].name)
			lo[l++] = (struct option){rows[i].name,
						  opts_takes_arg(&rows[i]) ? required_argument
									   : no_argument,
						  NULL, OPTS_LONG_BASE + i};
		if (rows[i].short_name) {
			shrt[s++] = (char)rows[i].short_name;
			if (opts_takes_arg(&rows[i]))
				shrt[s++] = ':';
		}
	}
	shrt[s] = '\0';
	return s;
}

static int opts_row_of(const struct xfab_opt *rows, int n, int c)
{
	if (c >= OPTS_LONG_BASE && c < OPTS_LONG_BASE + n)
		return c - OPTS_LONG_BASE;
	for (int i = 0; i < n; i++)
		if (c && rows[i].short_name == c)
			return i;
	return -1;
}

/* getopt said '?' or ':': which option, in the user's spelling. */
static int opts_refuse(const struct xfab_opts *spec, const struct xfab_opt *rows, int n, int c,
		       char **argv)
{
	int row = opts_row_of(rows, n, optopt);
	const char *arg = argv[optind - 1];
	char sp[80];

	if (c == ':' && row >= 0)
		fprintf(stderr, "%s: %s needs an argument (%s)\n", spec->prog,
			opts_spelling(&rows[row], sp, sizeof(sp)),
			rows[row].metavar ? rows[row].metavar : "a value");
	else if (c == ':')
		fprintf(stderr, "%s: %s needs an argument\n", spec->prog, arg);
	else if (optopt && optopt < OPTS_LONG_BASE)
		fprintf(stderr, "%s: unknown option -%c\n", spec->prog, optopt);
	else
		fprintf(stderr, "%s: unknown option %s\n", spec->prog, arg);
	xfab_opts_usage(spec, stderr);
	return XFAB_OPTS_USAGE;
}

/* A .required row the command line did not give. */
static int opts_missing(const struct xfab_opts *spec, const struct xfab_opt *rows, int n,
			const char *given)
{
	char sp[80];

	for (int i = 0; i < n; i++) {
		if (rows[i].required && !given[i]) {
			fprintf(stderr, "%s: %s is required\n", spec->prog,
				opts_spelling(&rows[i], sp, sizeof(sp)));
			xfab_opts_usage(spec, stderr);
			return XFAB_OPTS_USAGE;
		}
	}
	return 0;
}

int xfab_opts_parse(const struct xfab_opts *spec, int argc, char **argv)
{
	char given[OPTS_MAX] = {0};
	struct xfab_opt rows[OPTS_MAX];
	struct option lo[OPTS_MAX + 1] = {{0}};
	char shrt[3 * OPTS_MAX + 2];
	int n = opts_count(spec->rows), c;

	if (n >= OPTS_MAX) { /* a table too long to build: the program's own bug */
		fprintf(stderr, "%s: %d options, more than %d\n", spec->prog, n, OPTS_MAX - 1);
		return XFAB_OPTS_USAGE;
	}
	memcpy(rows, spec->rows, (size_t)n * sizeof(rows[0]));
	rows[n] = opts_help_row;
	opts_build(rows, n + 1, lo, shrt);
	optind = 0; /* 0: glibc starts afresh, not inside a word of an earlier argv */
	opterr = 0; /* our messages name the option the way the table does */
	while ((c = getopt_long(argc, argv, shrt, lo, NULL)) != -1) {
		int row = opts_row_of(rows, n + 1, c);

		if (c == '?' || c == ':' || row < 0)
			return opts_refuse(spec, rows, n + 1, c, argv);
		if (row == n) {
			xfab_opts_usage(spec, stdout);
			return XFAB_OPTS_HELP;
		}
		if (opts_value(spec, &rows[row], optarg))
			return XFAB_OPTS_USAGE;
		if (rows[row].seen)
			*rows[row].seen = 1;
		given[row] = 1;
	}
	return opts_missing(spec, rows, n, given) ?: optind;
}

int xfab_opts_parse_all(const struct xfab_opts *spec, int argc, char **argv)
{
	int first = xfab_opts_parse(spec, argc, argv);

	if (first < 0)
		return xfab_opts_exit(first);
	if (first < argc) {
		fprintf(stderr, "%s: unexpected argument %s\n", spec->prog, argv[first]);
		xfab_opts_usage(spec, stderr);
		return 2;
	}
	return -1;
}
