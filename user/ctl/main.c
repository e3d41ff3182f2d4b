// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl: look at a running (or stopped) xfab switch through its pinned
 * maps alone. `xfabctl [options] show <object>`, `-j` for JSON. What
 * changes the switch (te add/del/clear, clear counters/watermark) is a
 * request to its xfabd over the control socket (docs/CONTROL.md).
 *
 * This file: options, the switch's pin directory, and the command table.
 * Each command lives in its own file (show_*.c, hash.c, trace.c, te.c,
 * watch.c, clear.c); ctl.h is what they share.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "ctlproto.h"

int json;
char pin_dir[512];

/* ---- command table ---- */

/*
 * One word of the command line. A node names the words that may follow it
 * (sub); a leaf runs: a view takes no options, a verb takes them all. A
 * leaf is the last word.
 */
struct cmd {
	const char *name;
	const struct cmd *sub;
	int (*view)(void);
	int (*verb)(const struct ctl_opts *o);
	const char *help;
	int fabric; /* works across a fabric: no one switch to find */
};

static const struct cmd show_pfc_cmds[] = {
    {"counters", NULL, show_pfc_counters, NULL, "PFC frames received and sent, per priority"},
    {"status", NULL, show_pfc_status, NULL,
     "lossless priorities; which are paused now, which PGs asked for XOFF"},
    {NULL},
};

static const struct cmd show_queue_cmds[] = {
    {"counters", NULL, show_queue_counters, NULL,
     "per queue: packets, bytes, drops, ECN marks, time paused by PFC"},
    {NULL},
};

static const struct cmd show_pfcwd_cmds[] = {
    {"config", NULL, show_pfcwd_config, NULL,
     "per port: action, detection and restoration time; the poll interval"},
    {"stats", NULL, NULL, show_pfcwd_stats,
     "per watched queue: status, storms, packets passed and dropped [--empty] "
     "[--check-storm: exit 1 if one is stormed]"},
    {NULL},
};

static const struct cmd show_vnet_cmds[] = {
    {"brief", NULL, show_vnet, NULL, "VNETs: VXLAN tunnel, VNI, ports (also `show vnet`)"},
    {"routes", NULL, show_vnet_routes, NULL,
     "tenant routes: tunnel (endpoints, MAC, VNI) and local (nexthop, port)"},
    {"counters", NULL, show_vnet_counters, NULL,
     "per VNET: encap/decap packets and bytes, drops by reason, punts"},
    {NULL},
};

static const struct cmd show_vxlan_cmds[] = {
    {"tunnel", NULL, show_vxlan_tunnel, NULL, "the VTEP: source address, UDP port, MAC"},
    {NULL},
};

/* The show objects, one group per feature, keyed by the feature
 * registry's name (user/lib/feature.c); listed in this order. */
static const struct cmd device_show[] = {
    {"ports", NULL, show_ports, NULL, "ports: MAC, state, MTU, datapath"},
    {"counters", NULL, show_counters, NULL, "per-port packet and byte counters"},
    {"drops", NULL, show_drops, NULL, "drop and punt counters by reason"},
    {NULL},
};
static const struct cmd routes_show[] = {
    {"routes", NULL, show_routes, NULL, "IPv4/IPv6 routes with their nexthops or group members"},
    {"fib", NULL, show_fib, NULL,
     "the forwarding tables (16-bit first level, 8-bit groups): fill, use"},
    {"nexthops", NULL, show_nexthops, NULL, "nexthops: gateway, port, neighbour MAC"},
    {NULL},
};
static const struct cmd ecmp_show[] = {
    {"groups", NULL, show_groups, NULL, "ECMP groups: members and their share of buckets"},
    {"lb", NULL, show_lb, NULL, "load-balancing events: flowlets started, paths changed, TE"},
    {NULL},
};
static const struct cmd neighbours_show[] = {
    {"neighbors", NULL, show_neighbors, NULL, "neighbours learnt from the kernel or configured"},
    {NULL},
};
static const struct cmd copp_show[] = {
    {"copp", NULL, show_copp, NULL,
     "control-plane policing per group: trap ids, cir, cbs, green and red (policed) packets"},
    {NULL},
};
int show_acl(void); /* show_acl.c: the ACL's show command is its own */
static const struct cmd acl_show[] = {
    {"acl", NULL, show_acl, NULL, "ingress ACL rules: table, priority, packets, bytes"},
    {NULL},
};
static const struct cmd flowlet_show[] = {
    {"flowlets", NULL, show_flowlets, NULL,
     "live flowlet slots: group, flow hash, member, idle time"},
    {NULL},
};
static const struct cmd te_show[] = {
    {"te", NULL, show_te, NULL, "TE entries (configured and runtime)"},
    {NULL},
};
static const struct cmd qos_show[] = {
    {"queues", NULL, show_queues, NULL,
     "per port and class: packets, bytes, drops, ECN marks, profile"},
    {"watermark", NULL, show_watermark, NULL,
     "per port and class: current and peak queue occupancy"},
    {"queue", show_queue_cmds, NULL, NULL, "queue counters (SONiC's name)"},
    {NULL},
};
static const struct cmd fib_sync_show[] = {
    {"fib-sync", NULL, show_fib_sync, NULL,
     "the kernel-FIB mirror (FIB_SYNC): routes, events, resyncs, lag (xfabd)"},
    {NULL},
};
static const struct cmd pfc_show[] = {
    {"pfc", show_pfc_cmds, NULL, NULL, "PFC (lossless classes): counters | status"},
    {NULL},
};
static const struct cmd pfcwd_show[] = {
    {"pfcwd", show_pfcwd_cmds, NULL, NULL, "the PFC watchdog: config | stats"},
    {NULL},
};
static const struct cmd overlay_show[] = {
    {"vnet", show_vnet_cmds, show_vnet, NULL, "the overlay's VNETs (docs/OVERLAY.md)"},
    {"vxlan", show_vxlan_cmds, NULL, NULL, "the VXLAN tunnel (VTEP)"},
    {NULL},
};

static const struct {
	const char *feature;
	const struct cmd *cmds;
} show_features[] = {
    {"device", device_show},	     {"routes", routes_show}, {"ecmp", ecmp_show},
    {"neighbours", neighbours_show}, {"copp", copp_show},     {"acl", acl_show},
    {"flowlet", flowlet_show},	     {"te", te_show},	      {"qos", qos_show},
    {"fib-sync", fib_sync_show},     {"pfc", pfc_show},	      {"pfcwd", pfcwd_show},
    {"overlay", overlay_show},
};

/* Every group's objects in one table, for the command lookup (filled by
 * show_cmds_init; room for every object and the end mark). */
static struct cmd show_cmds[48];

static void show_cmds_init(void)
{
	size_t n = 0;

	for (size_t g = 0; g < sizeof(show_features) / sizeof(show_features[0]); g++)
		for (const struct cmd *c = show_features[g].cmds; c->name; c++) {
			if (n + 1 >= sizeof(show_cmds) / sizeof(show_cmds[0])) {
				fprintf(stderr, "xfabctl: show_cmds[] is too small\n");
				exit(2);
			}
			show_cmds[n++] = *c;
		}
	show_cmds[n] = (struct cmd){NULL};
}

static const struct cmd te_cmds[] = {
    {"add", NULL, NULL, te_add, "pin a path (runtime, through xfabd)"},
    {"del", NULL, NULL, te_del, "remove a runtime pin (through xfabd)"},
    {"clear", NULL, NULL, te_clear, "remove every runtime pin (through xfabd)"},
    {"sweep", NULL, NULL, te_sweep,
     "remove the runtime pins of generations below --gen N (through xfabd)"},
    {"show", NULL, show_te, NULL, "TE entries (configured and runtime)"},
    {"list", NULL, te_list, NULL,
     "the runtime pins as xfabd holds them: gateways, generations (through xfabd)"},
    {NULL},
};

static const struct cmd clear_cmds[] = {
    {"counters", NULL, clear_counters, NULL, "per-port counters back to zero (xfabd)"},
    {"watermark", NULL, clear_watermark, NULL, "queue peaks back to zero (xfabd)"},
    {NULL},
};

static const struct cmd watch_cmds[] = {
    {"counters", NULL, NULL, watch_counters, "per-port rates"},
    {"queues", NULL, NULL, watch_queues, "per-queue rates"},
    {NULL},
};

static const struct cmd pfcwd_cmds[] = {
    {"start", NULL, NULL, pfcwd_start,
     "the watchdog on ports: --ports all|P[,P...] --detection-time MS [--action "
     "drop|forward|alert] [--restoration-time MS] (through xfabd)"},
    {"stop", NULL, NULL, pfcwd_stop, "the watchdog off: [--ports all|P[,P...]] (through xfabd)"},
    {"interval", NULL, NULL, pfcwd_interval,
     "its poll interval: --poll-interval MS (through xfabd)"},
    {NULL},
};

static const struct cmd fabric_cmds[] = {
    {"report", NULL, NULL, cmd_fabric_report,
     "every switch of a fabric: per-link bytes, ECMP imbalance, ECN, PFC, drops; "
     "a job's paths",
     1},
    {NULL},
};

static const struct cmd top_cmds[] = {
    {"show", show_cmds, NULL, NULL, "show OBJECT"},
    {"hash", NULL, NULL, cmd_hash, "which member this switch picks, and why"},
    {"te", te_cmds, NULL, NULL, "runtime TE entries"},
    {"clear", clear_cmds, NULL, NULL, "clear counters"},
    {"trace", NULL, NULL, cmd_trace, "run a frame through the loaded program"},
    {"watch", watch_cmds, NULL, NULL, "per-second rates"},
    {"restart", NULL, ctl_restart, NULL, "restart xfabd; the data plane keeps forwarding"},
    {"pfcwd", pfcwd_cmds, NULL, NULL, "the PFC watchdog (SONiC's pfcwd)"},
    {"fabric", fabric_cmds, NULL, NULL, "across every switch of a fabric"},
    {NULL},
};

static const struct cmd *cmd_find(const struct cmd *table, const char *name)
{
	for (; table->name; table++)
		if (!strcmp(table->name, name))
			return table;
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: xfabctl [-j] [-s SWITCH | -P PIN_DIR] [--pin-root DIR] COMMAND\n"
	    "commands:\n"
	    "  show OBJECT\n"
	    "  hash --src A --dst B [--in PORT] [--proto udp|tcp|N] [--sport N] [--dport N]\n"
	    "       [--qp N] [--flow-label N]   which member this switch picks, and why\n"
	    "  te add --in PORT --prefix P --via GW[,GW...] [--gen N]   pin a path (runtime)\n"
	    "  te del --in PORT --prefix P [--gen N]   remove a runtime pin\n"
	    "  te clear [--gen N]             remove every runtime pin\n"
	    "  te sweep --gen N               remove the runtime pins of generations below N\n"
	    "  te show                        TE entries, each pin's generation and the switch's\n"
	    "  te list                        the runtime pins as xfabd holds them\n"
	    "     (--gen N: the plan's generation; an older one than the switch holds is\n"
	    "      refused, a newer one becomes the switch's)\n"
	    "  clear counters|watermark       per-port counters, queue peaks to zero\n"
	    "     (te add/del/clear and clear are requests to the switch's xfabd over\n"
	    "      " XFAB_CTL_RUN_ROOT "/<lab>/<switch>.sock; docs/CONTROL.md)\n"
	    "  watch counters|queues [--interval S] [--count N]   per-second rates\n"
	    "  pfcwd start --ports all|P[,P...] --detection-time MS [--action drop|forward|alert]\n"
	    "        [--restoration-time MS]     the PFC watchdog on (SONiC's ranges)\n"
	    "  pfcwd stop [--ports all|P[,P...]] | pfcwd interval --poll-interval MS\n"
	    "  restart                        xfabd runs again (an upgraded binary, say);\n"
	    "                                 the data plane keeps forwarding meanwhile\n"
	    "  trace --in PORT (--src A --dst B [--proto] [--sport] [--dport] [--qp] [--dscp]\n"
	    "        [--ecn] [--ttl] [--len] [--smac] [--dmac] | --pcap FILE [--index N])\n"
	    "        run a frame through the loaded program: every stage, no state changed\n"
	    "  fabric report (--fabric FILE | --lab NAME) [--job FILE] [--since SNAP]\n"
	    "        [--save SNAP]   every switch of a fabric (fabric.json of xfab-lab): bytes\n"
	    "        per link and direction, ECMP imbalance per tier, ECN, PFC, drops; a job's\n"
	    "        QP paths as each switch decides; --save/--since: counters of one run\n"
	    "  -j             JSON output\n"
	    "  -s SWITCH      switch hostname (pins under PIN_ROOT/SWITCH)\n"
	    "  -P PIN_DIR     the switch's pin directory (or $XFAB_PIN_DIR)\n"
	    "  --pin-root DIR default " XFAB_PIN_ROOT " (or $XFAB_PIN_ROOT)\n"
	    "  -h, --help     this text\n"
	    "objects:\n");
	for (const struct cmd *c = show_cmds; c->name; c++) {
		char words[40];

		if (!c->sub) {
			fprintf(out, "  %-14s  %s\n", c->name, c->help);
			continue;
		}
		for (const struct cmd *s = c->sub; s->name; s++) {
			snprintf(words, sizeof(words), "%s %s", c->name, s->name);
			fprintf(out, "  %-14s  %s\n", words, s->help);
		}
	}
}

/* ROOT/<lab>/NAME, when exactly one lab has a switch NAME. */
static int find_in_labs(const char *root, const char *name)
{
	DIR *d = opendir(root);
	struct dirent *de;
	struct stat st;
	char path[512];
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, de->d_name, name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			found++;
			snprintf(pin_dir, sizeof(pin_dir), "%s", path);
		}
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

/* With no -s/-P: the only switch under the pin root, if there is one. */
static int find_single_switch(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		found++;
		snprintf(pin_dir, sizeof(pin_dir), "%s/%s", root, de->d_name);
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"switch", required_argument, NULL, 's'},
	    {"pin-dir", required_argument, NULL, 'P'},
	    {"pin-root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {"in", required_argument, NULL, 1},
	    {"src", required_argument, NULL, 2},
	    {"dst", required_argument, NULL, 3},
	    {"proto", required_argument, NULL, 4},
	    {"sport", required_argument, NULL, 5},
	    {"dport", required_argument, NULL, 6},
	    {"qp", required_argument, NULL, 7},
	    {"flow-label", required_argument, NULL, 8},
	    {"prefix", required_argument, NULL, 9},
	    {"via", required_argument, NULL, 10},
	    {"dscp", required_argument, NULL, 11},
	    {"ecn", required_argument, NULL, 12},
	    {"ttl", required_argument, NULL, 13},
	    {"len", required_argument, NULL, 14},
	    {"pcap", required_argument, NULL, 15},
	    {"index", required_argument, NULL, 16},
	    {"smac", required_argument, NULL, 17},
	    {"dmac", required_argument, NULL, 18},
	    {"interval", required_argument, NULL, 19},
	    {"count", required_argument, NULL, 20},
	    {"ports", required_argument, NULL, 21},
	    {"action", required_argument, NULL, 22},
	    {"detection-time", required_argument, NULL, 23},
	    {"restoration-time", required_argument, NULL, 24},
	    {"poll-interval", required_argument, NULL, 25},
	    {"check-storm", no_argument, NULL, 26},
	    {"empty", no_argument, NULL, 27},
	    {"fabric", required_argument, NULL, 28},
	    {"lab", required_argument, NULL, 29},
	    {"job", required_argument, NULL, 30},
	    {"since", required_argument, NULL, 31},
	    {"save", required_argument, NULL, 32},
	    {"gen", required_argument, NULL, 33},
	    {NULL, 0, NULL, 0},
	};
	struct ctl_opts o = {.ttl = 64, .len = -1, .interval = 1};
	const struct cmd *c = top_cmds, *parent = NULL;
	const char *sw = NULL, *root = getenv("XFAB_PIN_ROOT"), *dir = getenv("XFAB_PIN_DIR");
	int opt, ret;

	show_cmds_init();

	while ((opt = getopt_long(argc, argv, "js:P:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 's':
			sw = optarg;
			break;
		case 'P':
			dir = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 1:
			o.in = optarg;
			break;
		case 2:
			o.src = optarg;
			break;
		case 3:
			o.dst = optarg;
			break;
		case 4:
			o.proto = optarg;
			break;
		case 5:
			o.sport = strtol(optarg, NULL, 0);
			break;
		case 6:
			o.dport = strtol(optarg, NULL, 0);
			break;
		case 7:
			o.qp = strtol(optarg, NULL, 0);
			break;
		case 8:
			o.flow_label = strtol(optarg, NULL, 0);
			break;
		case 9:
			o.prefix = optarg;
			break;
		case 10:
			o.via = optarg;
			break;
		case 11:
			o.dscp = strtol(optarg, NULL, 0);
			break;
		case 12:
			o.ecn = strtol(optarg, NULL, 0);
			break;
		case 13:
			o.ttl = strtol(optarg, NULL, 0);
			break;
		case 14:
			o.len = strtol(optarg, NULL, 0);
			break;
		case 15:
			o.pcap = optarg;
			break;
		case 16:
			o.index = strtol(optarg, NULL, 0);
			break;
		case 17:
			o.smac = optarg;
			break;
		case 18:
			o.dmac = optarg;
			break;
		case 19:
			o.interval = atof(optarg);
			break;
		case 20:
			o.count = atol(optarg);
			break;
		case 21:
			o.ports = optarg;
			break;
		case 22:
			o.action = optarg;
			break;
		case 23:
			o.detection = optarg;
			break;
		case 24:
			o.restoration = optarg;
			break;
		case 25:
			o.poll = optarg;
			break;
		case 26:
			o.check_storm = 1;
			break;
		case 27:
			o.empty = 1;
			break;
		case 28:
			o.fabric = optarg;
			break;
		case 29:
			o.lab = optarg;
			break;
		case 30:
			o.job = optarg;
			break;
		case 31:
			o.since = optarg;
			break;
		case 32:
			o.save = optarg;
			break;
		case 33:
			o.gen = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* walk the table: each word must be known; a leaf must be the last
	 * (or a node with words under it that is a view itself: show vnet) */
	for (int i = optind;; i++) {
		const struct cmd *next;

		if (i >= argc) {
			if (parent && parent->view) {
				c = parent;
				break;
			}
			usage(stderr);
			return 2;
		}
		next = cmd_find(c, argv[i]);
		if (!next) {
			if (c == show_cmds || c == show_pfc_cmds || c == show_queue_cmds ||
			    c == show_pfcwd_cmds || c == show_vnet_cmds || c == show_vxlan_cmds)
				fprintf(stderr, "xfabctl: unknown object '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
		if (!next->sub) {
			if (i + 1 != argc) {
				usage(stderr);
				return 2;
			}
			c = next;
			break;
		}
		parent = next;
		c = next->sub;
	}
	if (!root)
		root = XFAB_PIN_ROOT;
	if (c->fabric) {
		/* every switch's pins come from the fabric's description */
		ret = c->verb(&o);
		if (json)
			jw_end();
		return ret;
	}
	if (sw) {
		struct stat st;

		xfab_pin_dir(pin_dir, sizeof(pin_dir), root, sw);
		/* A lab pins under ROOT/LAB/SWITCH: -s leaf1 finds it when one
		 * lab has a leaf1 (-s LAB/leaf1 always does). */
		if (stat(pin_dir, &st) && find_in_labs(root, sw)) {
			fprintf(stderr,
				"xfabctl: no switch %s under %s (or in exactly one lab there)\n",
				sw, root);
			return 1;
		}
	} else if (dir) {
		snprintf(pin_dir, sizeof(pin_dir), "%s", dir);
	} else if (find_single_switch(root)) {
		fprintf(stderr, "xfabctl: name a switch with -s (none or several under %s)\n",
			root);
		return 1;
	}
	ret = c->view ? c->view() : c->verb(&o);
	if (json)
		jw_end();
	return ret;
}
