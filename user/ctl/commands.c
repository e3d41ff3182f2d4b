// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl's command table: every word of its command line, the options
 * each verb takes (declarative tables, user/lib/opts.h) and the --help
 * texts generated from them. `show`'s objects come from the show files
 * themselves (show_registry.c); scripts/man-check holds xfabctl(8) and the
 * bash completion to these tables.
 */
#include <limits.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"
#include "opts.h"

const char *ctl_switch, *ctl_pin_dir_opt, *ctl_pin_root;

const struct xfab_opt ctl_global_opts[] = {
    XFAB_OPT_FLAG("json", 'j', ctl_json, "JSON output"),
    XFAB_OPT_STR("switch", 's', ctl_switch, "SWITCH",
		 "switch hostname (pins under PIN_ROOT/SWITCH)"),
    XFAB_OPT_STR("pin-dir", 'P', ctl_pin_dir_opt, "PIN_DIR",
		 "the switch's pin directory (or $XFAB_PIN_DIR)"),
    XFAB_OPT_STR("pin-root", 0, ctl_pin_root, "DIR",
		 "default " XFAB_PIN_ROOT " (or $XFAB_PIN_ROOT)"),
    XFAB_OPT_END,
};

/* The numbers read as strtol(3) with base 0 reads them; the command
 * judges the range it needs. */
#define CTL_OPT_LONG(lname, field, mv, hlp)                                                        \
	XFAB_OPT_INT(lname, 0, ctl_given.field, LONG_MIN, LONG_MAX, mv, hlp)
#define CTL_OPT_STR(lname, field, mv, hlp) XFAB_OPT_STR(lname, 0, ctl_given.field, mv, hlp)

/* The flow both hash and trace describe: the same rows, one macro. */
#define CTL_FLOW_OPTS                                                                              \
	CTL_OPT_STR("in", in, "PORT", "the ingress port"),                                         \
	    CTL_OPT_STR("src", src, "A", "source address"),                                        \
	    CTL_OPT_STR("dst", dst, "B", "destination address"),                                   \
	    CTL_OPT_STR("proto", proto, "udp|tcp|N", "the L4 protocol (default udp)"),             \
	    CTL_OPT_LONG("sport", sport, "N", "L4 source port"),                                   \
	    CTL_OPT_LONG("dport", dport, "N", "L4 destination port"),                              \
	    CTL_OPT_LONG("qp", qp, "N", "RoCEv2 destination QP (with --dport 4791)")

static const struct xfab_opt hash_opts[] = {
    CTL_FLOW_OPTS,
    CTL_OPT_LONG("flow-label", flow_label, "N", "IPv6 flow label"),
    XFAB_OPT_END,
};

static const struct xfab_opt trace_opts[] = {
    CTL_FLOW_OPTS,
    CTL_OPT_LONG("dscp", dscp, "N", "DSCP of the frame"),
    CTL_OPT_LONG("ecn", ecn, "N", "ECN bits of the frame"),
    CTL_OPT_LONG("ttl", ttl, "N", "TTL or hop limit (default 64)"),
    CTL_OPT_LONG("len", len, "N", "payload bytes (default 64)"),
    CTL_OPT_STR("smac", smac, "MAC", "source MAC"),
    CTL_OPT_STR("dmac", dmac, "MAC", "destination MAC (default the port's)"),
    CTL_OPT_STR("pcap", pcap, "FILE", "the frame from a capture instead"),
    CTL_OPT_LONG("index", index, "N", "which frame of the capture (default 0)"),
    XFAB_OPT_END,
};

#define CTL_OPT_GEN CTL_OPT_STR("gen", gen, "N", "the plan's generation")

static const struct xfab_opt te_add_opts[] = {
    CTL_OPT_STR("in", in, "PORT", "the ingress port"),
    CTL_OPT_STR("prefix", prefix, "P", "the destination prefix"),
    CTL_OPT_STR("via", via, "GW[,GW...]", "the gateways to pin"),
    CTL_OPT_GEN,
    XFAB_OPT_END,
};

static const struct xfab_opt te_del_opts[] = {
    CTL_OPT_STR("in", in, "PORT", "the ingress port"),
    CTL_OPT_STR("prefix", prefix, "P", "the destination prefix"),
    CTL_OPT_GEN,
    XFAB_OPT_END,
};

static const struct xfab_opt te_gen_opts[] = {
    CTL_OPT_GEN,
    XFAB_OPT_END,
};

static const struct xfab_opt watch_opts[] = {
    XFAB_OPT_DOUBLE("interval", 0, ctl_given.interval, -DBL_MAX, DBL_MAX, "S",
		    "seconds between refreshes (default 1)"),
    XFAB_OPT_INT("count", 0, ctl_given.count, LONG_MIN, LONG_MAX, "N",
		 "refreshes before exiting (default: until interrupted)", .base = 10),
    XFAB_OPT_END,
};

#define CTL_OPT_PORTS CTL_OPT_STR("ports", ports, "all|P[,P...]", "the ports")

static const struct xfab_opt pfcwd_start_opts[] = {
    CTL_OPT_PORTS,
    CTL_OPT_STR("detection-time", detection, "MS", "a storm after this long paused"),
    CTL_OPT_STR("action", action, "drop|forward|alert", "what a storm gets"),
    CTL_OPT_STR("restoration-time", restoration, "MS", "restored after this long quiet"),
    XFAB_OPT_END,
};

static const struct xfab_opt pfcwd_stop_opts[] = {
    CTL_OPT_PORTS,
    XFAB_OPT_END,
};

static const struct xfab_opt pfcwd_interval_opts[] = {
    CTL_OPT_STR("poll-interval", poll, "MS", "the watchdog's poll interval"),
    XFAB_OPT_END,
};

static const struct xfab_opt fabric_report_opts[] = {
    CTL_OPT_STR("fabric", fabric, "FILE", "the fabric's description (xfab-lab's fabric.json)"),
    CTL_OPT_STR("lab", lab, "NAME", "the fabric of a running xfab-lab lab"),
    CTL_OPT_STR("job", job, "FILE", "a job's QPs: their paths as each switch decides"),
    CTL_OPT_STR("since", since, "SNAP", "counters since this snapshot"),
    CTL_OPT_STR("save", save, "SNAP", "save a snapshot of the counters"),
    CTL_OPT_STR("svg", svg, "FILE", "draw the fabric too: utilisation, loss, the job's paths"),
    XFAB_OPT_END,
};

static const struct xfab_opt fabric_doctor_opts[] = {
    CTL_OPT_STR("fabric", fabric, "FILE", "the fabric's description (xfab-lab's fabric.json)"),
    CTL_OPT_STR("lab", lab, "NAME", "the fabric of a running xfab-lab lab"),
    XFAB_OPT_DOUBLE("window", 0, ctl_given.window, 0.1, 3600, "S",
		    "seconds between the two reads of the counters (default 2)"),
    XFAB_OPT_DOUBLE("threshold", 0, ctl_given.threshold, 0, 100, "PCT",
		    "a link losing or damaging more than this share is suspect (default 0.1)",
		    .seen = &ctl_given.threshold_set),
    XFAB_OPT_INT("min-frames", 0, ctl_given.min_frames, 1, 1000000000, "K",
		 "and at least K frames (default 10: above what in-flight frames leave)",
		 .base = 10, .seen = &ctl_given.min_frames_set),
    XFAB_OPT_INT("watch", 0, ctl_given.watch, 1, 100000, "N",
		 "read again every window, up to N times, judging all since the first read;\nstop "
		 "at the first suspect",
		 .base = 10),
    CTL_OPT_STR("job", job, "FILE", "the job's QPs whose paths cross each suspect link"),
    XFAB_OPT_FLAG("drain", 0, ctl_given.drain,
		  "drain each suspect link at both ends (port-drain to each end's xfabd)"),
    CTL_OPT_STR("svg", svg, "FILE",
		"draw the fabric too: the window's utilisation and loss, the suspects marked"),
    XFAB_OPT_FLAG("undrain", 0, ctl_given.undrain,
		  "instead: return drained links (every switch-to-switch port, or --link's)"),
    CTL_OPT_STR("link", link, "SW:PORT", "with --undrain: the link with this end only"),
    XFAB_OPT_END,
};

static const struct ctl_cmd te_cmds[] = {
    {"add", NULL, NULL, ctl_te_add, "pin a path (runtime, through xfabd)", .opts = te_add_opts,
     .args = "--in PORT --prefix P --via GW[,GW...] [--gen N]"},
    {"del", NULL, NULL, ctl_te_del, "remove a runtime pin (through xfabd)", .opts = te_del_opts,
     .args = "--in PORT --prefix P [--gen N]"},
    {"clear", NULL, NULL, ctl_te_clear, "remove every runtime pin (through xfabd)",
     .opts = te_gen_opts, .args = "[--gen N]"},
    {"sweep", NULL, NULL, ctl_te_sweep,
     "remove the runtime pins of generations below --gen N (through xfabd)", .opts = te_gen_opts,
     .args = "--gen N"},
    {"show", NULL, ctl_show_te, NULL, "TE entries, each pin's generation and the switch's"},
    {"list", NULL, ctl_te_list, NULL,
     "the runtime pins as xfabd holds them: gateways, generations (through xfabd)"},
    {NULL},
};

static const struct ctl_cmd clear_cmds[] = {
    {"counters", NULL, ctl_clear_counters, NULL, "per-port counters back to zero (xfabd)"},
    {"watermark", NULL, ctl_clear_watermark, NULL, "queue peaks back to zero (xfabd)"},
    {NULL},
};

static const struct ctl_cmd watch_cmds[] = {
    {"counters", NULL, NULL, ctl_watch_counters, "per-port rates", .opts = watch_opts,
     .args = "[--interval S] [--count N]"},
    {"queues", NULL, NULL, ctl_watch_queues, "per-queue rates", .opts = watch_opts,
     .args = "[--interval S] [--count N]"},
    {NULL},
};

static const struct ctl_cmd pfcwd_cmds[] = {
    {"start", NULL, NULL, ctl_pfcwd_start, "the watchdog on ports (through xfabd)",
     .opts = pfcwd_start_opts,
     .args = "--ports all|P[,P...] --detection-time MS [--action drop|forward|alert] "
	     "[--restoration-time MS]"},
    {"stop", NULL, NULL, ctl_pfcwd_stop, "the watchdog off (through xfabd)",
     .opts = pfcwd_stop_opts, .args = "[--ports all|P[,P...]]"},
    {"interval", NULL, NULL, ctl_pfcwd_interval, "its poll interval (through xfabd)",
     .opts = pfcwd_interval_opts, .args = "--poll-interval MS"},
    {NULL},
};

static const struct xfab_opt drain_opts[] = {
    CTL_OPT_STR("reason", reason, "TEXT", "why (kept and shown; 64 characters at most)"),
    XFAB_OPT_END,
};

static const struct ctl_cmd interface_cmds[] = {
    {"drain", NULL, NULL, ctl_interface_drain,
     "out of every group, its BGP held down, until undrain (through xfabd)", .opts = drain_opts,
     .args = "PORT [--reason TEXT]", .operand = 1},
    {"undrain", NULL, NULL, ctl_interface_undrain,
     "back in use if its link is up and damping does not suppress it (through xfabd)",
     .args = "PORT", .operand = 1},
    {NULL},
};

static const struct xfab_opt config_export_opts[] = {
    CTL_OPT_STR("format", format, "sonic", "the format written: SONiC's CONFIG_DB (the one)"),
    XFAB_OPT_STR("output", 'o', ctl_given.output, "FILE", "write FILE (whole, or not at all)"),
    XFAB_OPT_STR("config", 'c', ctl_given.config, "FILE",
		 "export FILE, not the switch's running config"),
    CTL_OPT_STR("sonic-catalogue", catalogue, "FILE", "SONiC's catalogue, to read a SONiC FILE"),
    XFAB_OPT_END,
};

static const struct ctl_cmd config_cmds[] = {
    {"export", NULL, NULL, ctl_config_export,
     "the running config (what xfabd loaded last) or FILE's as SONiC CONFIG_DB JSON",
     .opts = config_export_opts,
     .args = "[--format sonic] [-o|--output FILE] [-c|--config FILE] [--sonic-catalogue FILE]",
     .config_file = 1},
    {NULL},
};

static const struct ctl_cmd fabric_cmds[] = {
    {"report", NULL, NULL, ctl_cmd_fabric_report,
     "every switch of a fabric (fabric.json of xfab-lab): bytes per link and direction, ECMP "
     "imbalance per tier, ECN, PFC, drops; a job's QP paths as each switch decides; "
     "--save/--since: counters of one run; --svg: a drawing",
     1, .opts = fabric_report_opts,
     .args = "(--fabric FILE | --lab NAME) [--job FILE] [--since SNAP] [--save SNAP] "
	     "[--svg FILE]"},
    {"doctor", NULL, NULL, ctl_cmd_fabric_doctor,
     "the links that lose or damage frames: every switch's counters read twice a window apart, "
     "each link's sent vs received and damaged, ranked with the evidence; a job's QPs over "
     "them; --drain takes them out. Exit 0: none suspect, 1: suspects found, 2: usage, "
     "3: the fabric could not be read; --svg: a drawing",
     1, .opts = fabric_doctor_opts,
     .args = "(--fabric FILE | --lab NAME) [--window S] [--threshold PCT] [--min-frames K] "
	     "[--watch N] [--job FILE] [--drain] [--svg FILE] | --undrain [--link SW:PORT]"},
    {NULL},
};

const struct ctl_cmd ctl_top_cmds[] = {
    {"show", ctl_show_cmds, NULL, NULL, "a table of the switch (objects: below)", .args = "OBJECT"},
    {"hash", NULL, NULL, ctl_cmd_hash, "which member this switch picks, and why", .opts = hash_opts,
     .args = "--src A --dst B [--in PORT] [--proto udp|tcp|N] [--sport N] [--dport N] [--qp N] "
	     "[--flow-label N]"},
    {"te", te_cmds, NULL, NULL, "runtime TE entries"},
    {"clear", clear_cmds, NULL, NULL, "clear counters"},
    {"trace", NULL, NULL, ctl_cmd_trace,
     "run a frame through the loaded program: every stage, no state changed", .opts = trace_opts,
     .args = "--in PORT (--src A --dst B [--proto] [--sport] [--dport] [--qp] [--dscp] [--ecn] "
	     "[--ttl] [--len] [--smac] [--dmac] | --pcap FILE [--index N])"},
    {"watch", watch_cmds, NULL, NULL, "per-second rates"},
    {"restart", NULL, ctl_restart, NULL,
     "xfabd runs again (an upgraded binary, say); the data plane keeps forwarding meanwhile"},
    {"pfcwd", pfcwd_cmds, NULL, NULL, "the PFC watchdog (SONiC's pfcwd)"},
    {"interface", interface_cmds, NULL, NULL, "a port drained and returned"},
    {"fabric", fabric_cmds, NULL, NULL, "across every switch of a fabric"},
    {"config", config_cmds, NULL, NULL, "the switch's config file"},
    {NULL},
};

/* The help column of the command lists; a wider left side puts the help
 * on a line of its own. Help wraps at CTL_HELP_WIDTH, back at the column. */
#define CTL_HELP_COL 34
#define CTL_HELP_WIDTH 100

/* text's words from column w on, a line broken before CTL_HELP_WIDTH goes
 * on at column indent; the column it ends at. */
static int ctl_wrap(FILE *out, const char *text, int w, int indent)
{
	int start = w;

	while (*text) {
		int n = (int)strcspn(text, " ");

		if (w > start && w + 1 + n > CTL_HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			w = start = indent;
		} else if (w > start) {
			fputc(' ', out);
			w++;
		}
		w += fprintf(out, "%.*s", n, text);
		text += n;
		text += strspn(text, " ");
	}
	return w;
}

/* "  words synopsis   help": a long synopsis goes on, indented, on the
 * next lines; the help starts at CTL_HELP_COL (on a line of its own if
 * the synopsis reaches it). */
static void ctl_help_line(FILE *out, const char *left, const char *help)
{
	int w;

	fputs("  ", out);
	w = ctl_wrap(out, left, 2, 7);
	if (help && *help) {
		if (w + 2 > CTL_HELP_COL)
			fprintf(out, "\n%*s", CTL_HELP_COL, "");
		else
			fprintf(out, "%*s", CTL_HELP_COL - w, "");
		ctl_wrap(out, help, CTL_HELP_COL, CTL_HELP_COL);
	}
	fputc('\n', out);
}

/* Every command under table, one line each: its words after prefix, its
 * synopsis, its help. A node with a synopsis of its own (show OBJECT) is
 * one line. */
static void ctl_list_cmds(FILE *out, const struct ctl_cmd *table, const char *prefix)
{
	char left[512];

	for (const struct ctl_cmd *c = table; c->name; c++) {
		char words[128];

		snprintf(words, sizeof(words), "%s%s%s", prefix, *prefix ? " " : "", c->name);
		if (c->sub && !c->args) {
			ctl_list_cmds(out, c->sub, words);
			continue;
		}
		snprintf(left, sizeof(left), "%s%s%s", words, c->args ? " " : "",
			 c->args ? c->args : "");
		ctl_help_line(out, left, c->help);
	}
}

/* show's objects as SONiC lists them: "pfc counters", one word deep. */
static void ctl_list_objects(FILE *out, const struct ctl_cmd *objs)
{
	for (const struct ctl_cmd *c = objs; c->name; c++) {
		char words[40];

		if (!c->sub) {
			fprintf(out, "  %-14s  %s\n", c->name, c->help);
			continue;
		}
		for (const struct ctl_cmd *s = c->sub; s->name; s++) {
			snprintf(words, sizeof(words), "%s %s", c->name, s->name);
			fprintf(out, "  %-14s  %s\n", words, s->help);
		}
	}
}

void ctl_usage(FILE *out)
{
	const struct xfab_opts spec = {"xfabctl", "COMMAND", ctl_global_opts, NULL};

	xfab_opts_usage(&spec, out);
	fputs("commands:\n", out);
	ctl_list_cmds(out, ctl_top_cmds, "");
	fputs("     (--gen N: the plan's generation; an older one than the switch holds is\n"
	      "      refused, a newer one becomes the switch's)\n"
	      "     (te add/del/clear/sweep/list, clear, pfcwd, interface and restart are requests "
	      "to the\n"
	      "      switch's xfabd over " XFAB_CTL_RUN_ROOT "/<lab>/<switch>.sock; "
	      "docs/CONTROL.md)\n"
	      "objects:\n",
	      out);
	ctl_list_objects(out, ctl_show_cmds);
}

/* The global rows and a verb's own, one table: what the verb accepts. */
size_t ctl_cmd_rows(const struct ctl_cmd *c, struct xfab_opt *rows, size_t cap)
{
	size_t n = 0;

	for (const struct xfab_opt *o = ctl_global_opts; o->kind && n + 1 < cap; o++)
		rows[n++] = *o;
	for (const struct xfab_opt *o = c->opts; o && o->kind && n + 1 < cap; o++)
		rows[n++] = *o;
	rows[n] = (struct xfab_opt){.kind = XFAB_OPTK_END};
	return n;
}

void ctl_cmd_usage(const struct ctl_cmd *c, const char *words, FILE *out)
{
	struct xfab_opt rows[64];
	char prog[160];
	int objects = !strncmp(words, "show", 4);

	snprintf(prog, sizeof(prog), "xfabctl %s", words);
	if (c->sub) {
		fprintf(out, "usage: xfabctl [OPTIONS] %s %s\n%s:\n", words,
			objects ? "OBJECT" : "COMMAND", objects ? "objects" : "commands");
		if (c->sub == ctl_show_cmds)
			ctl_list_objects(out, c->sub);
		else
			ctl_list_cmds(out, c->sub, objects ? "" : words);
		return;
	}
	ctl_cmd_rows(c, rows, sizeof(rows) / sizeof(rows[0]));
	xfab_opts_usage(&(const struct xfab_opts){prog, c->args, rows, NULL}, out);
	if (c->help)
		fprintf(out, "%s\n", c->help);
}
