// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-stackcheck: loads a BPF object with the verifier's statistics log
 * and reports, for every program, the stack depth of each of its
 * subprograms ("stack depth A+B+..." in the log, in the order of their
 * first instruction), the deepest call chain and the instructions the
 * verifier processed. Exits 1 if a program's chain is above --max.
 *
 * The chain follows the loaded program's calls (BPF-to-BPF calls and
 * callbacks handed to helpers such as bpf_loop, which run on top of their
 * caller's frame), each frame rounded up to 16 bytes as the JIT does; the
 * verifier refuses a chain above 512 bytes (it leaves callbacks out, so
 * this figure is the larger, safer one).
 *
 *   xfab-stackcheck [--max BYTES] OBJECT
 */
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define LOG_SIZE (1u << 20)
#define MAX_PROGS 32
#define MAX_SUBPROGS 64

struct prog_log {
	struct bpf_program *prog;
	char *buf;
};

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Parses "stack depth 336+144+0" from the statistics log: the sum and the
 * parts as text. -1 if absent. */
static long stack_depth(const char *log, char *parts, size_t len)
{
	const char *p = strstr(log, "stack depth ");
	long sum = 0;
	size_t n = 0;

	if (!p)
		return -1;
	p += strlen("stack depth ");
	while (*p >= '0' && *p <= '9') {
		char *end;
		long v = strtol(p, &end, 10);

		sum += v;
		n += (size_t)snprintf(parts + n, n < len ? len - n : 0, "%s%ld", n ? "+" : "", v);
		p = end;
		if (*p != '+')
			break;
		p++;
	}
	return sum;
}

/* Parses "stack depth A+B+..." into depth[]; returns how many, or -1. */
static int stack_depths(const char *log, long *depth, int max)
{
	const char *p = strstr(log, "stack depth ");
	int n = 0;

	if (!p)
		return -1;
	p += strlen("stack depth ");
	while (n < max && *p >= '0' && *p <= '9') {
		char *end;

		depth[n++] = strtol(p, &end, 10);
		p = end;
		if (*p != '+')
			break;
		p++;
	}
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

struct graph {
	int n;			     /* subprograms */
	__u32 start[MAX_SUBPROGS];   /* first instruction of each, sorted */
	__u64 callees[MAX_SUBPROGS]; /* bit t: subprogram t is called */
	long depth[MAX_SUBPROGS];
};

static int subprog_of(const struct graph *g, __u32 insn)
{
	int s = 0;

	while (s + 1 < g->n && g->start[s + 1] <= insn)
		s++;
	return s;
}

/* Subprograms and their calls, from the loaded instructions: a call with
 * src_reg BPF_PSEUDO_CALL, or a callback's address (ld_imm64 with
 * BPF_PSEUDO_FUNC), points imm + 1 instructions past itself. */
static int build_graph(const struct bpf_insn *insn, size_t cnt, struct graph *g)
{
	g->n = 1;
	g->start[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < cnt; i++) {
			int call = insn[i].code == (BPF_JMP | BPF_CALL) &&
				   insn[i].src_reg == BPF_PSEUDO_CALL;
			int func = insn[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
				   insn[i].src_reg == BPF_PSEUDO_FUNC;
			__u32 target = (__u32)((long)i + insn[i].imm + 1);
			int t = 0;

			if (!call && !func)
				continue;
			if (pass == 0) {
				for (t = 0; t < g->n && g->start[t] != target; t++)
					;
				if (t == g->n) {
					if (g->n == MAX_SUBPROGS)
						return -1;
					g->start[g->n++] = target;
				}
				continue;
			}
			t = subprog_of(g, target);
			g->callees[subprog_of(g, (__u32)i)] |= 1ull << t;
		}
		if (pass == 0)
			qsort(g->start, (size_t)g->n, sizeof(g->start[0]), cmp_u32);
	}
	return 0;
}

/* Deepest chain from subprogram s; frames rounded up to 16 bytes. */
static long chain(const struct graph *g, int s, int level)
{
	long best = 0;

	if (level > MAX_SUBPROGS)
		return 1L << 30; /* a cycle: cannot be */
	for (int t = 0; t < g->n; t++)
		if (g->callees[s] >> t & 1) {
			long c = chain(g, t, level + 1);

			if (c > best)
				best = c;
		}
	return (g->depth[s] + 15) / 16 * 16 + best;
}

static long processed(const char *log)
{
	const char *p = strstr(log, "processed ");

	return p ? strtol(p + strlen("processed "), NULL, 10) : -1;
}

/* Opens path with every program's verifier log kept (statistics level);
 * the programs and their logs in logs, their number returned, -1 on error
 * (said on stderr). */
static int load_with_logs(const char *path, struct bpf_object **objp, struct prog_log *logs)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	int n = 0, err;

	if (!obj) {
		fprintf(stderr, "xfab-stackcheck: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(prog, obj)
	{
		if (n == MAX_PROGS)
			break;
		logs[n].prog = prog;
		logs[n].buf = calloc(1, LOG_SIZE);
		if (!logs[n].buf)
			return -1;
		bpf_program__set_log_buf(prog, logs[n].buf, LOG_SIZE);
		bpf_program__set_log_level(prog, 4); /* BPF_LOG_STATS */
		n++;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "xfab-stackcheck: cannot load %s: %s\n", path, strerror(-err));
		for (int i = 0; i < n; i++)
			if (logs[i].buf[0])
				fprintf(stderr, "--- %s ---\n%s\n", bpf_program__name(logs[i].prog),
					logs[i].buf);
		return -1;
	}
	*objp = obj;
	return n;
}

/* One line per program: its deepest call chain against max; 1 if any is
 * above it (or its depth could not be read). */
static int report(struct prog_log *logs, int n, long max)
{
	int rc = 0;

	printf("%-16s %6s  %-22s %10s\n", "PROGRAM", "CHAIN", "STACK PER SUBPROGRAM", "INSNS");
	for (int i = 0; i < n; i++) {
		struct graph g = {0};
		char parts[128] = "";
		long depth = -1;
		int over;

		stack_depth(logs[i].buf, parts, sizeof(parts));
		if (build_graph(bpf_program__insns(logs[i].prog),
				bpf_program__insn_cnt(logs[i].prog), &g) == 0 &&
		    stack_depths(logs[i].buf, g.depth, MAX_SUBPROGS) == g.n)
			depth = chain(&g, 0, 0);
		over = depth < 0 || depth > max;
		printf("%-16s %6ld  %-22s %10ld%s\n", bpf_program__name(logs[i].prog), depth, parts,
		       processed(logs[i].buf),
		       depth < 0 ? "  (stack depth not found)"
		       : over	 ? "  ABOVE THE LIMIT"
				 : "");
		if (over)
			rc = 1;
		free(logs[i].buf);
	}
	printf("limit: a chain of %ld bytes (frames rounded to 16; the verifier allows 512)\n",
	       max);
	return rc;
}

int main(int argc, char **argv)
{
	struct prog_log logs[MAX_PROGS];
	struct bpf_object *obj = NULL;
	long max = 384;
	const struct xfab_opt rows[] = {
	    XFAB_OPT_INT("max", 0, max, 1, 512, "BYTES", "the deepest call chain allowed (384)"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-stackcheck", "OBJECT", rows, NULL};
	int first = xfab_opts_parse(&spec, argc, argv), n, rc;

	if (first < 0)
		return xfab_opts_exit(first);
	if (first != argc - 1) {
		xfab_opts_usage(&spec, stderr);
		return 2;
	}
	libbpf_set_print(quiet);
	n = load_with_logs(argv[first], &obj, logs);
	if (n < 0)
		return 2;
	rc = report(logs, n, max);
	bpf_object__close(obj);
	return rc;
}
