// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: its options (getopt_long), checked and into struct opts. */
#include "te_tool.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: xfab-te plan   --fabric FILE (--job FILE | --matrix FILE)... [--down "
	    "SW:PORT]...\n"
	    "                      [--live] [-j]\n"
	    "       xfab-te apply  --fabric FILE (--job FILE | --matrix FILE)... [--down "
	    "SW:PORT]...\n"
	    "                      [--gen N] [-j]\n"
	    "       xfab-te run    --fabric FILE [--job FILE | --matrix FILE]... [--jobs DIR]\n"
	    "                      [--interval S] [--poll-ms MS] [--json FILE] [--clear-on-exit]\n"
	    "       xfab-te status --fabric FILE [-j]\n"
	    "       xfab-te clear  --fabric FILE [--gen N]\n"
	    "  --fabric FILE   xfab-lab's fabric.json (/run/xfab-lab/LAB/fabric.json)\n"
	    "  --job FILE      a collective job (docs/TOOLS.md): its connections' bytes\n"
	    "  --matrix FILE   [{\"src\": HOST, \"dst\": HOST, \"bytes\": N}, ...]\n"
	    "  --jobs DIR      run: every DIR/*.json job, read again when DIR changes or on "
	    "SIGHUP\n"
	    "  --down SW:PORT  take that link as down (plan, apply)\n"
	    "  --live          plan: the links' states from the switches' data planes\n"
	    "  --gen N         the plan's generation (default: above every switch's)\n"
	    "  --interval S    run: how often the switches' pins are checked against the plan\n"
	    "                  (1..3600, default 30)\n"
	    "  --poll-ms MS    run: how often link state is read (20..2000, default 100)\n"
	    "  --json FILE     run: the status (plan, generation, switches, events) as JSON\n"
	    "  --clear-on-exit run: remove every pin on SIGTERM (default: leave them)\n"
	    "  -j              JSON output\n");
}

static int num_arg(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
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

/* The options into c->o; -1 to go on, else the exit code (2: a usage error). */
int te_parse_opts(int argc, char **argv, struct ctx *c)
{
	static const struct option opts[] = {
	    {"fabric", required_argument, NULL, 'f'},
	    {"job", required_argument, NULL, 'J'},
	    {"matrix", required_argument, NULL, 'm'},
	    {"jobs", required_argument, NULL, 'D'},
	    {"down", required_argument, NULL, 'd'},
	    {"live", no_argument, NULL, 'l'},
	    {"gen", required_argument, NULL, 'g'},
	    {"interval", required_argument, NULL, 'i'},
	    {"poll-ms", required_argument, NULL, 'p'},
	    {"json", required_argument, NULL, 's'},
	    {"clear-on-exit", no_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	double v;
	int opt;

	c->o.interval = 30;
	c->o.poll_ms = 100;
	c->status = "running";
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	c->o.cmd = argv[1];
	if (strcmp(c->o.cmd, "plan") && strcmp(c->o.cmd, "apply") && strcmp(c->o.cmd, "run") &&
	    strcmp(c->o.cmd, "status") && strcmp(c->o.cmd, "clear")) {
		fprintf(stderr, "xfab-te: unknown command '%s' (plan, apply, run, status, clear)\n",
			c->o.cmd);
		return 2;
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			c->o.fabric = optarg;
			break;
		case 'J':
		case 'm':
		case 'd': {
			const char **list = opt == 'J'	 ? c->o.jobs
					    : opt == 'm' ? c->o.matrices
							 : c->o.down;
			int *n = opt == 'J'   ? &c->o.n_jobs
				 : opt == 'm' ? &c->o.n_matrices
					      : &c->o.n_down;

			if (*n == MAX_INPUTS) {
				fprintf(stderr, "xfab-te: --%s: at most %d\n",
					opt == 'J'   ? "job"
					: opt == 'm' ? "matrix"
						     : "down",
					MAX_INPUTS);
				return 2;
			}
			list[(*n)++] = optarg;
			break;
		}
		case 'D':
			c->o.jobs_dir = optarg;
			break;
		case 'l':
			c->o.live = 1;
			break;
		case 'g':
			if (xfab_ctl_parse_gen(optarg, &c->o.gen)) {
				fprintf(stderr, "xfab-te: --gen: must be 1..%llu\n",
					(unsigned long long)UINT64_MAX);
				return 2;
			}
			break;
		case 'i':
			if (num_arg(optarg, 1, 3600, &c->o.interval)) {
				fprintf(stderr, "xfab-te: --interval: must be 1..3600 seconds\n");
				return 2;
			}
			break;
		case 'p':
			if (num_arg(optarg, 20, 2000, &v) || v != (int)v) {
				fprintf(stderr,
					"xfab-te: --poll-ms: must be 20..2000 milliseconds\n");
				return 2;
			}
			c->o.poll_ms = (int)v;
			break;
		case 's':
			c->o.status_path = optarg;
			break;
		case 'c':
			c->o.clear_on_exit = 1;
			break;
		case 'j':
			c->o.json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "xfab-te: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return check_opts(c);
}
