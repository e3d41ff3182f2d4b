// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: its options, a table (user/lib/opts.h), checked and into
 * struct opts. */
#include "coll_tool.h"
#include "opts.h"

int coll_opt_err(const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xfab-coll: %s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A size (FUNC row): bytes, or with K, M or G (powers of 1024), as
 * nccl-tests takes. */
static int opt_size(const char *s, void *dest, char *why, size_t len)
{
	unsigned long long x;
	uint64_t mul = 1;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul > 1)
		end++;
	if (!*s || *end || errno || s[0] == '-' || !x || x > (1ull << 30) / mul) {
		snprintf(why, len, "must be a size in 1..1G (bytes, or K, M, G)");
		return -1;
	}
	*(uint64_t *)dest = x * mul;
	return 0;
}

static int opt_op(const char *s, void *dest, char *why, size_t len)
{
	int op = xfab_job_op_parse(s);

	if (op < 0) {
		snprintf(why, len, "must be one of allreduce, allgather, reducescatter, alltoall");
		return -1;
	}
	*(int *)dest = op;
	return 0;
}

static int opt_path(const char *s, void *dest, char *why, size_t len)
{
	if (!*s) {
		snprintf(why, len, "a file name is needed");
		return -1;
	}
	*(const char **)dest = s;
	return 0;
}

static const char coll_epilogue[] =
    "OP: allreduce, allgather, reducescatter, alltoall (default: the job's)\n"
    "Sizes: B, or with K, M, G; from --min-bytes to --max-bytes times --factor\n"
    "  (default: the job's bytes alone)\n";

/* What the options say together, once parsed: 0, or -1 said on stderr. */
static int check_opts(const struct opts *o)
{
	if (!o->job_path)
		return coll_opt_err("--job", "a job file is needed (docs/TOOLS.md, \"Job files\")");
	if (o->mtu % 4)
		return coll_opt_err("--mtu", "%llu is not whole 4-byte elements",
				    (unsigned long long)o->mtu);
	if (o->rto_min_ms && o->rto_max_ms && o->rto_max_ms < o->rto_min_ms)
		return coll_opt_err("--rto-max", "%llu ms is below --rto-min %llu ms",
				    (unsigned long long)o->rto_max_ms,
				    (unsigned long long)o->rto_min_ms);
	return 0;
}

/* "xfab-coll run OPTIONS": the options from a table (user/lib/opts.h) into
 * o; 0, or -1 when refused (said on stderr). --help exits 0 here. */
int coll_parse_opts(int argc, char **argv, struct opts *o)
{
	int json_stdout = 0, first;
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("job", 0, o->job_path, "FILE", "the job (docs/TOOLS.md, \"Job files\")"),
	    XFAB_OPT_UINT("rank", 0, o->rank, 0, XFAB_JOB_MAX_RANKS - 1, "R",
			  "this process's rank (default: the job's rank\nwhose address is here)"),
	    XFAB_OPT_FUNC("op", 0, &o->op, opt_op, "OP", "the collective"),
	    XFAB_OPT_FUNC("min-bytes", 0, &o->min_bytes, opt_size, "B", "the smallest size"),
	    XFAB_OPT_FUNC("max-bytes", 0, &o->max_bytes, opt_size, "B", "the largest size"),
	    XFAB_OPT_UINT("factor", 0, o->factor, 2, 1024, "F", "each size F times the last"),
	    XFAB_OPT_UINT("iters", 0, o->iters, 1, 4096, "N", "timed iterations per size"),
	    XFAB_OPT_UINT("warmup", 0, o->warmup, 0, 1000, "N", "untimed iterations first"),
	    XFAB_OPT_UINT("mtu", 0, o->mtu, 64, 8192, "BYTES",
			  "payload per packet (whole 4-byte elements)"),
	    XFAB_OPT_UINT("rate", 0, o->rate_mbps, 1, 10000000, "MBPS",
			  "pace to this (default: the interface's speed)"),
	    XFAB_OPT_UINT("tos", 0, o->tos, 0, 255, "N", "IPv4 TOS (default 0x0e)"),
	    XFAB_OPT_UINT("prio", 0, o->prio, 0, 7, "N",
			  "the priority PFC pauses (default: the DSCP's)"),
	    XFAB_OPT_FLAG("no-pfc", 0, o->no_pfc, "do not honour PFC"),
	    XFAB_OPT_FLAG("no-dcqcn", 0, o->no_dcqcn, "no DCQCN rate control"),
	    XFAB_OPT_UINT("ctrl-port", 0, o->ctrl_port, 1, 65535, "P",
			  "rank 0's TCP control port (default 4792)"),
	    XFAB_OPT_DOUBLE("timeout", 0, o->timeout, 1, 3600, "S", "give up after S seconds"),
	    XFAB_OPT_UINT("drop-every", 0, o->drop_every, 2, 1000000000, "N",
			  "drop every Nth data packet sent (a test)"),
	    XFAB_OPT_UINT("rto-min", 0, o->rto_min_ms, 1, 600000, "MS", "the smallest RTO"),
	    XFAB_OPT_UINT("rto-max", 0, o->rto_max_ms, 1, 600000, "MS", "the largest RTO"),
	    XFAB_OPT_FUNC("json", 0, &o->json_path, opt_path, "FILE", "the results as JSON"),
	    XFAB_OPT_FLAG(NULL, 'j', json_stdout, "the results as JSON on stdout (--json -)"),
	    XFAB_OPT_FUNC("dump", 0, &o->dump_path, opt_path, "FILE",
			  "the last iteration's result, its uint32\nelements in host order (for "
			  "an outside check)"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-coll run", NULL, rows, coll_epilogue};

	*o = (struct opts){.rank = -1,
			   .op = -1,
			   .factor = 2,
			   .iters = 20,
			   .warmup = 5,
			   .mtu = 1024,
			   .tos = DEFAULT_TOS,
			   .prio = -1,
			   .ctrl_port = DEFAULT_CTRL_PORT,
			   .timeout = 60};
	if (argc < 2 || strcmp(argv[1], "run")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			xfab_opts_usage(&spec, stdout);
			exit(0);
		}
		if (argc >= 2)
			fprintf(stderr, "xfab-coll: \"%s\": the command is run\n", argv[1]);
		xfab_opts_usage(&spec, stderr);
		return -1;
	}
	/* "run" stands where getopt expects the program's name */
	first = xfab_opts_parse(&spec, argc - 1, argv + 1);
	if (first == XFAB_OPTS_HELP)
		exit(0);
	if (first < 0)
		return -1;
	if (first < argc - 1)
		return coll_opt_err(argv[first + 1], "an argument no option takes");
	if (json_stdout)
		o->json_path = "-";
	return check_opts(o);
}
