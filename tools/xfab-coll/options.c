// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: its options (getopt_long), checked and into struct opts. */
#include "coll_tool.h"

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

/* An integer in lo..hi (0x for hex); -1 naming the option otherwise. */
static int opt_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || x < lo || x > hi)
		return coll_opt_err(opt, "\"%s\" is not an integer in %llu..%llu", s,
				    (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

/* A size: bytes, or with K, M or G (powers of 1024), as nccl-tests takes. */
static int opt_size(const char *opt, const char *s, uint64_t *out)
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
	if (!*s || *end || errno || s[0] == '-' || !x || x > (1ull << 30) / mul)
		return coll_opt_err(opt, "\"%s\" is not a size in 1..1G (bytes, or K, M, G)", s);
	*out = x * mul;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: xfab-coll run --job FILE [--rank R] [--op OP]\n"
	       "                     [--min-bytes B --max-bytes B --factor F] [--iters N] "
	       "[--warmup N]\n"
	       "                     [--mtu BYTES] [--rate MBPS] [--tos N] [--prio N] [--no-pfc] "
	       "[--no-dcqcn]\n"
	       "                     [--ctrl-port P] [--timeout S] [--drop-every N] [--rto-min MS] "
	       "[--rto-max MS]\n"
	       "                     [--json FILE | -j]\n"
	       "  OP: allreduce, allgather, reducescatter, alltoall (default: the job's)\n"
	       "  sizes: B, or with K, M, G; from --min-bytes to --max-bytes times --factor\n"
	       "         (default: the job's bytes alone)\n");
}

int coll_parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
	    {"job", required_argument, NULL, 'J'},
	    {"rank", required_argument, NULL, 'r'},
	    {"op", required_argument, NULL, 'o'},
	    {"min-bytes", required_argument, NULL, 'b'},
	    {"max-bytes", required_argument, NULL, 'e'},
	    {"factor", required_argument, NULL, 'f'},
	    {"iters", required_argument, NULL, 'n'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"mtu", required_argument, NULL, 'm'},
	    {"rate", required_argument, NULL, 'R'},
	    {"tos", required_argument, NULL, 'T'},
	    {"prio", required_argument, NULL, 'P'},
	    {"no-pfc", no_argument, NULL, 'N'},
	    {"no-dcqcn", no_argument, NULL, 'D'},
	    {"ctrl-port", required_argument, NULL, 'c'},
	    {"timeout", required_argument, NULL, 't'},
	    {"drop-every", required_argument, NULL, 'd'},
	    {"rto-min", required_argument, NULL, 'x'},
	    {"rto-max", required_argument, NULL, 'X'},
	    {"json", required_argument, NULL, 'O'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t x = 0;
	char *end;
	int c;

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
			usage(stdout);
			exit(0);
		}
		if (argc >= 2)
			fprintf(stderr, "xfab-coll: \"%s\": the command is run\n", argv[1]);
		usage(stderr);
		return -1;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "jh", lopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o->job_path = optarg;
			break;
		case 'r':
			if (opt_uint("--rank", optarg, 0, XFAB_JOB_MAX_RANKS - 1, &x))
				return -1;
			o->rank = (int)x;
			break;
		case 'o':
			o->op = xfab_job_op_parse(optarg);
			if (o->op < 0)
				return coll_opt_err("--op",
						    "\"%s\" is none of allreduce, allgather, "
						    "reducescatter, alltoall",
						    optarg);
			break;
		case 'b':
			if (opt_size("--min-bytes", optarg, &o->min_bytes))
				return -1;
			break;
		case 'e':
			if (opt_size("--max-bytes", optarg, &o->max_bytes))
				return -1;
			break;
		case 'f':
			if (opt_uint("--factor", optarg, 2, 1024, &o->factor))
				return -1;
			break;
		case 'n':
			if (opt_uint("--iters", optarg, 1, 4096, &x))
				return -1;
			o->iters = (uint32_t)x;
			break;
		case 'w':
			if (opt_uint("--warmup", optarg, 0, 1000, &x))
				return -1;
			o->warmup = (uint32_t)x;
			break;
		case 'm':
			if (opt_uint("--mtu", optarg, 64, 8192, &x))
				return -1;
			if (x % 4)
				return coll_opt_err("--mtu", "%llu is not whole 4-byte elements",
						    (unsigned long long)x);
			o->mtu = (uint32_t)x;
			break;
		case 'R':
			if (opt_uint("--rate", optarg, 1, 10000000, &o->rate_mbps))
				return -1;
			break;
		case 'T':
			if (opt_uint("--tos", optarg, 0, 255, &x))
				return -1;
			o->tos = (int)x;
			break;
		case 'P':
			if (opt_uint("--prio", optarg, 0, 7, &x))
				return -1;
			o->prio = (int)x;
			break;
		case 'N':
			o->no_pfc = 1;
			break;
		case 'D':
			o->no_dcqcn = 1;
			break;
		case 'c':
			if (opt_uint("--ctrl-port", optarg, 1, 65535, &x))
				return -1;
			o->ctrl_port = (uint16_t)x;
			break;
		case 't':
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o->timeout >= 1 && o->timeout <= 3600))
				return coll_opt_err("--timeout", "\"%s\" is not seconds in 1..3600",
						    optarg);
			break;
		case 'd':
			if (opt_uint("--drop-every", optarg, 2, 1000000000, &o->drop_every))
				return -1;
			break;
		case 'x':
			if (opt_uint("--rto-min", optarg, 1, 600000, &o->rto_min_ms))
				return -1;
			break;
		case 'X':
			if (opt_uint("--rto-max", optarg, 1, 600000, &o->rto_max_ms))
				return -1;
			break;
		case 'O':
			if (!*optarg)
				return coll_opt_err("--json", "a file name is needed");
			o->json_path = optarg;
			break;
		case 'j':
			o->json_path = "-";
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return coll_opt_err(argv[optind], "an argument no option takes");
	if (!o->job_path)
		return coll_opt_err("--job", "a job file is needed (docs/TOOLS.md, \"Job files\")");
	if (o->rto_min_ms && o->rto_max_ms && o->rto_max_ms < o->rto_min_ms)
		return coll_opt_err("--rto-max", "%llu ms is below --rto-min %llu ms",
				    (unsigned long long)o->rto_max_ms,
				    (unsigned long long)o->rto_min_ms);
	return 0;
}
