/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Declarative command-line options: each option is one row of a table,
 * and the parser (getopt_long built from the rows), the value checks and
 * the --help text all come from that one table, so they cannot drift.
 *
 *	static const struct xfab_opt rows[] = {
 *		XFAB_OPT_STR("dev", 'd', dev, "IFNAME", "the port to send on"),
 *		XFAB_OPT_UINT("rate", 0, rate, 0, 10000000, "PPS", "frames per second"),
 *		XFAB_OPT_END,
 *	};
 *	static const struct xfab_opts spec = {"xfab-x", "--dev IFNAME", rows, NULL};
 *	int first = xfab_opts_parse(&spec, argc, argv);
 *
 *	if (first < 0)
 *		return xfab_opts_exit(first);
 *
 * "-h, --help" is always there and need not be a row. */
#ifndef XFAB_OPTS_H
#define XFAB_OPTS_H

#include <stddef.h>
#include <stdio.h>

enum xfab_opt_kind {
	XFAB_OPTK_END = 0, /* the table's last row */
	XFAB_OPTK_FLAG,	   /* int = 1 */
	XFAB_OPTK_STR,	   /* const char * = the argument */
	XFAB_OPTK_INT,	   /* signed integer of .size bytes, .lo..hi */
	XFAB_OPTK_UINT,	   /* unsigned integer of .size bytes, .ulo..uhi */
	XFAB_OPTK_DOUBLE,  /* double, .dlo..dhi */
	XFAB_OPTK_MAC,	   /* __u8[6], xfab_parse_mac */
	XFAB_OPTK_LIST,	   /* const char *[.max]: each use adds its comma-separated items */
	XFAB_OPTK_ENUM,	   /* int = the index of the argument in .names */
	XFAB_OPTK_FUNC,	   /* .parse(text, dest, why, len) decides */
};

struct xfab_opt {
	const char *name; /* the long name, without "--"; NULL: the letter alone */
	int short_name;	  /* a letter, or 0 */
	enum xfab_opt_kind kind;
	void *dest;
	size_t size; /* of *dest, for the integer kinds */
	const char *metavar;
	const char *help; /* may hold '\n': continued in the help column */
	long long lo, hi;
	unsigned long long ulo, uhi;
	double dlo, dhi;
	int base;		  /* integers: 0 reads 0x.. and 0.. too */
	const char *const *names; /* ENUM: NULL-terminated */
	int max;		  /* LIST: room in dest */
	int *count;		  /* LIST: items stored so far */
	int *seen;		  /* optional: set to 1 when the option is given */
	int required;		  /* refused when not given */
	/* FUNC: 0, or nonzero with the reason in why */
	int (*parse)(const char *text, void *dest, char *why, size_t len);
};

struct xfab_opts {
	const char *prog;
	const char *args; /* after "[OPTIONS]" on the usage line; may be NULL */
	const struct xfab_opt *rows;
	const char *epilogue; /* printed after the option list; may be NULL */
};

/* The rows; a trailing ".field = value, ..." sets anything else (.seen,
 * .base). */
#define XFAB_OPT_END                                                                               \
	{                                                                                          \
		.kind = XFAB_OPTK_END                                                              \
	}
#define XFAB_OPT_FLAG(lname, sname, var, hlp, ...)                                                 \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_FLAG, .dest = &(var),        \
		.size = sizeof(var), .help = hlp, ##__VA_ARGS__                                    \
	}
#define XFAB_OPT_STR(lname, sname, var, mv, hlp, ...)                                              \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_STR, .dest = &(var),         \
		.size = sizeof(var), .metavar = mv, .help = hlp, ##__VA_ARGS__                     \
	}
#define XFAB_OPT_INT(lname, sname, var, min, max_, mv, hlp, ...)                                   \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_INT, .dest = &(var),         \
		.size = sizeof(var), .lo = (min), .hi = (max_), .metavar = mv, .help = hlp,        \
		##__VA_ARGS__                                                                      \
	}
#define XFAB_OPT_UINT(lname, sname, var, min, max_, mv, hlp, ...)                                  \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_UINT, .dest = &(var),        \
		.size = sizeof(var), .ulo = (min), .uhi = (max_), .metavar = mv, .help = hlp,      \
		##__VA_ARGS__                                                                      \
	}
#define XFAB_OPT_DOUBLE(lname, sname, var, min, max_, mv, hlp, ...)                                \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_DOUBLE, .dest = &(var),      \
		.size = sizeof(var), .dlo = (min), .dhi = (max_), .metavar = mv, .help = hlp,      \
		##__VA_ARGS__                                                                      \
	}
#define XFAB_OPT_MAC(lname, sname, var, mv, hlp, ...)                                              \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_MAC, .dest = (var),          \
		.size = 6, .metavar = mv, .help = hlp, ##__VA_ARGS__                               \
	}
#define XFAB_OPT_LIST(lname, sname, arr, n, mv, hlp, ...)                                          \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_LIST, .dest = (arr),         \
		.max = (int)(sizeof(arr) / sizeof((arr)[0])), .count = &(n), .metavar = mv,        \
		.help = hlp, ##__VA_ARGS__                                                         \
	}
#define XFAB_OPT_ENUM(lname, sname, var, nms, mv, hlp, ...)                                        \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_ENUM, .dest = &(var),        \
		.size = sizeof(var), .names = nms, .metavar = mv, .help = hlp, ##__VA_ARGS__       \
	}
#define XFAB_OPT_FUNC(lname, sname, ptr, fn, mv, hlp, ...)                                         \
	{                                                                                          \
		.name = lname, .short_name = sname, .kind = XFAB_OPTK_FUNC, .dest = (ptr),         \
		.parse = fn, .metavar = mv, .help = hlp, ##__VA_ARGS__                             \
	}

/* What xfab_opts_parse returns besides the index of the first operand. */
#define XFAB_OPTS_HELP (-1)  /* --help was printed on stdout: exit 0 */
#define XFAB_OPTS_USAGE (-2) /* a bad option, said on stderr: exit 2 */

/* Parse argv by the table: the index of the first operand (>= 1), or
 * XFAB_OPTS_HELP / XFAB_OPTS_USAGE. A bad value is refused naming the
 * option and what it must be ("prog: --rate "x": must be 0..100"); an
 * unknown option, a missing argument or a missing .required option also
 * prints the help on stderr. */
int xfab_opts_parse(const struct xfab_opts *spec, int argc, char **argv);
/* The options and no operand: -1 to go on, or the exit status (0 after
 * --help, 2 after a refusal; an operand is refused with the help). */
int xfab_opts_parse_all(const struct xfab_opts *spec, int argc, char **argv);
/* The help text (usage line, aligned option list, epilogue). */
void xfab_opts_usage(const struct xfab_opts *spec, FILE *out);
/* The exit status for a negative xfab_opts_parse result: 0 or 2. */
int xfab_opts_exit(int parsed);
/* A FUNC row's parser for an IPv4 address into __u8[4] (network order). */
int xfab_opts_ip4(const char *text, void *dest, char *why, size_t len);

#endif
