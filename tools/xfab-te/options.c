// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: its options, a table (user/lib/opts.h), checked and into struct
 * opts. */
#include "opts.h"
#include "te_tool.h"

/* What each command takes, after the options' list. */
static const char te_epilogue[] =
    "Commands:\n"
    "  plan   --fabric FILE (--job FILE | --matrix FILE)... [--down SW:PORT]...\n"
    "         [--live] [-j]\n"
    "  apply  --fabric FILE (--job FILE | --matrix FILE)... [--down SW:PORT]...\n"
    "         [--gen N] [-j]\n"
    "  run    --fabric FILE [--job FILE | --matrix FILE]... [--jobs DIR]\n"
    "         [--interval S] [--poll-ms MS] [--json FILE] [--clear-on-exit]\n"
    "  status --fabric FILE [-j]\n"
    "  clear  --fabric FILE [--gen N]\n";

/* A repeatable file or link option: each use adds one, up to MAX_INPUTS. */
struct te_list {
	const char **v;
	int *n;
};

static int te_opt_add(const char *text, void *dest, char *why, size_t len)
{
	struct te_list *l = dest;

	if (*l->n == MAX_INPUTS) {
		snprintf(why, len, "at most %d", MAX_INPUTS);
		return -1;
	}
	l->v[(*l->n)++] = text;
	return 0;
}

static int te_opt_gen(const char *text, void *dest, char *why, size_t len)
{
	if (xfab_ctl_parse_gen(text, dest)) {
		snprintf(why, len, "must be 1..%llu", (unsigned long long)UINT64_MAX);
		return -1;
	}
	return 0;
}

static int te_is_cmd(const char *cmd)
{
	static const char *const cmds[] = {"plan", "apply", "run", "status", "clear"};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i]))
			return 1;
	return 0;
}

/* What the options say together: -1 when they agree, else 2. */
static int check_opts(const struct ctx *c)
{
	if (!c->o.fabric) {
		fprintf(stderr, "xfab-te %s: --fabric FILE is required\n", c->o.cmd);
		return 2;
	}
	if ((!strcmp(c->o.cmd, "plan") || !strcmp(c->o.cmd, "apply")) && !c->o.n_jobs &&
	    !c->o.n_matrices) {
		fprintf(stderr, "xfab-te %s: give the demand: --job FILE or --matrix FILE\n",
			c->o.cmd);
		return 2;
	}
	if (strcmp(c->o.cmd, "run") && (c->o.jobs_dir || c->o.status_path || c->o.clear_on_exit)) {
		fprintf(stderr, "xfab-te %s: --jobs, --json and --clear-on-exit are for run\n",
			c->o.cmd);
		return 2;
	}
	if (c->o.gen && strcmp(c->o.cmd, "apply") && strcmp(c->o.cmd, "clear")) {
		fprintf(stderr, "xfab-te %s: --gen is for apply and clear\n", c->o.cmd);
		return 2;
	}
	if (c->o.n_down && strcmp(c->o.cmd, "plan") && strcmp(c->o.cmd, "apply")) {
		fprintf(stderr, "xfab-te %s: --down is for plan and apply\n", c->o.cmd);
		return 2;
	}
	if (!strcmp(c->o.cmd, "run") && !c->o.n_jobs && !c->o.n_matrices && !c->o.jobs_dir) {
		fprintf(stderr, "xfab-te run: give the demand: --job, --matrix or --jobs DIR\n");
		return 2;
	}
	return -1;
}

/* The options into c->o, from a table (user/lib/opts.h); -1 to go on,
 * else the exit code (2: a usage error). */
int te_parse_opts(int argc, char **argv, struct ctx *c)
{
	struct te_list jobs = {c->o.jobs, &c->o.n_jobs},
		       matrices = {c->o.matrices, &c->o.n_matrices},
		       down = {c->o.down, &c->o.n_down};
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("fabric", 0, c->o.fabric, "FILE",
			 "xfab-lab's fabric.json (/run/xfab-lab/LAB/fabric.json)"),
	    XFAB_OPT_FUNC("job", 0, &jobs, te_opt_add, "FILE",
			  "a collective job (docs/TOOLS.md): its connections' bytes"),
	    XFAB_OPT_FUNC("matrix", 0, &matrices, te_opt_add, "FILE",
			  "[{\"src\": HOST, \"dst\": HOST, \"bytes\": N}, ...]"),
	    XFAB_OPT_STR("jobs", 0, c->o.jobs_dir, "DIR",
			 "run: every DIR/*.json job, read again when DIR\nchanges or on SIGHUP"),
	    XFAB_OPT_FUNC("down", 0, &down, te_opt_add, "SW:PORT",
			  "take that link as down (plan, apply)"),
	    XFAB_OPT_FLAG("live", 0, c->o.live,
			  "plan: the links' states from the switches' data planes"),
	    XFAB_OPT_FUNC("gen", 0, &c->o.gen, te_opt_gen, "N",
			  "the plan's generation (default: above every switch's)"),
	    XFAB_OPT_DOUBLE("interval", 0, c->o.interval, 1, 3600, "S",
			    "run: how often the switches' pins are checked\nagainst the plan "
			    "(default 30)"),
	    XFAB_OPT_INT("poll-ms", 0, c->o.poll_ms, 20, 2000, "MS",
			 "run: how often link state is read (default 100)", .base = 10),
	    XFAB_OPT_STR("json", 0, c->o.status_path, "FILE",
			 "run: the status (plan, generation, switches,\nevents) as JSON"),
	    XFAB_OPT_FLAG("clear-on-exit", 0, c->o.clear_on_exit,
			  "run: remove every pin on SIGTERM (default: leave them)"),
	    XFAB_OPT_FLAG(NULL, 'j', c->o.json, "JSON output"),
	    XFAB_OPT_END,
	};
	char prog[32] = "xfab-te COMMAND";
	const struct xfab_opts spec = {prog, NULL, rows, te_epilogue};
	int first;

	c->o.interval = 30;
	c->o.poll_ms = 100;
	c->status = "running";
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		xfab_opts_usage(&spec, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	c->o.cmd = argv[1];
	if (!te_is_cmd(c->o.cmd)) {
		fprintf(stderr, "xfab-te: unknown command '%s' (plan, apply, run, status, clear)\n",
			c->o.cmd);
		return 2;
	}
	snprintf(prog, sizeof(prog), "xfab-te %s", c->o.cmd);
	/* the command stands where getopt expects the program's name */
	first = xfab_opts_parse(&spec, argc - 1, argv + 1);
	if (first < 0)
		return xfab_opts_exit(first);
	if (first != argc - 1) {
		fprintf(stderr, "xfab-te: unexpected argument '%s'\n", argv[first + 1]);
		return 2;
	}
	return check_opts(c);
}
