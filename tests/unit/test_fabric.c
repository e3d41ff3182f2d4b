// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the fabric model behind `xfabctl fabric report`
 * (user/lib/fabric.c, fabsnap.c): fabric.json read back with its peers,
 * directions and links resolved, and every kind of bad file refused with
 * line:col and the place named; which end counts each direction of a link;
 * the max/mean arithmetic, worked out by hand here; ECMP imbalance per
 * tier against figures the test computes from its own pattern; the path
 * walk over a fabric with a stubbed per-switch decision (a table of what
 * each switch does for each ingress port, written out here), including a
 * bounce through the same switch, a loop, a drop, a wrong host; snapshot
 * differences with a reset, and a snapshot saved and read back.
 *
 * The fabrics are written by this file's own generator (clos()), in the
 * shape `xfab-lab config TOPO fabric` prints: a leaf's ports to spines
 * first, then its hosts; a spine's to leaves, then to super-spines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "fabric.h"
#include "fabsnap.h"
#include "names.h"

/* ---- a fabric generator ---- */

/* S spines, L leaves with H hosts each, X super-spines over every spine. */
static char *clos(int S, int L, int H, int X)
{
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	int first = 1;

	fprintf(o, "{\"name\": \"t\", \"datapath\": \"xdp\",\n \"switches\": {");
	for (int s = 1; s <= S; s++) {
		fprintf(o,
			"%s\n  \"spine%d\": {\"role\": \"spine\", \"tier\": 2, \"asn\": 65000, "
			"\"netns\": \"t-spine%d\", \"pins\": \"/sys/fs/bpf/xfab/t/spine%d\", "
			"\"ctl\": \"/run/xfab/t/spine%d.sock\", \"ports\": {",
			first ? "" : ",", s, s, s, s);
		first = 0;
		for (int l = 1; l <= L; l++)
			fprintf(
			    o,
			    "%s\n   \"eth%d\": {\"peer\": \"leaf%d\", \"peer_port\": \"eth%d\", "
			    "\"speed_mbps\": null, \"direction\": \"down\"}",
			    l > 1 ? "," : "", l, l, s);
		for (int x = 1; x <= X; x++)
			fprintf(
			    o,
			    ",\n   \"eth%d\": {\"peer\": \"super%d\", \"peer_port\": \"eth%d\", "
			    "\"direction\": \"up\"}",
			    L + x, x, s);
		fprintf(o, "}}");
	}
	for (int l = 1; l <= L; l++) {
		fprintf(o,
			",\n  \"leaf%d\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": "
			"\"t-leaf%d\", \"pins\": \"/sys/fs/bpf/xfab/t/leaf%d\", \"ports\": {",
			l, l, l);
		for (int s = 1; s <= S; s++)
			fprintf(
			    o,
			    "%s\n   \"eth%d\": {\"peer\": \"spine%d\", \"peer_port\": \"eth%d\", "
			    "\"direction\": \"up\"}",
			    s > 1 ? "," : "", s, s, l);
		for (int h = 1; h <= H; h++)
			fprintf(o,
				",\n   \"eth%d\": {\"peer\": \"h%d\", \"peer_port\": \"eth0\", "
				"\"direction\": \"down\"}",
				S + h, (l - 1) * H + h);
		fprintf(o, "}}");
	}
	for (int x = 1; x <= X; x++) {
		fprintf(o,
			",\n  \"super%d\": {\"role\": \"super\", \"tier\": 3, \"netns\": "
			"\"t-super%d\", \"pins\": \"/sys/fs/bpf/xfab/t/super%d\", \"ports\": {",
			x, x, x);
		for (int s = 1; s <= S; s++)
			fprintf(
			    o,
			    "%s\n   \"eth%d\": {\"peer\": \"spine%d\", \"peer_port\": \"eth%d\", "
			    "\"direction\": \"down\"}",
			    s > 1 ? "," : "", s, s, L + x);
		fprintf(o, "}}");
	}
	fprintf(o, "},\n \"hosts\": {");
	for (int l = 1; l <= L; l++)
		for (int h = 1; h <= H; h++)
			fprintf(o,
				"%s\n  \"h%d\": {\"leaf\": \"leaf%d\", \"leaf_port\": \"eth%d\", "
				"\"port\": \"eth0\", \"ipv4\": \"10.%d.%d.2/24\", \"netns\": "
				"\"t-h%d\"}",
				l == 1 && h == 1 ? "" : ",", (l - 1) * H + h, l, S + h, l, h,
				(l - 1) * H + h);
	fprintf(o, "},\n \"links\": [");
	first = 1;
	for (int s = 1; s <= S; s++)
		for (int l = 1; l <= L; l++) {
			fprintf(o,
				"%s\n  {\"upper\": \"spine%d\", \"upper_port\": \"eth%d\", "
				"\"lower\": \"leaf%d\", \"lower_port\": \"eth%d\", \"kind\": "
				"\"spine-leaf\"}",
				first ? "" : ",", s, l, l, s);
			first = 0;
		}
	for (int x = 1; x <= X; x++)
		for (int s = 1; s <= S; s++)
			fprintf(o,
				",\n  {\"upper\": \"super%d\", \"upper_port\": \"eth%d\", "
				"\"lower\": \"spine%d\", \"lower_port\": \"eth%d\", \"kind\": "
				"\"super-spine\"}",
				x, s, s, L + x);
	for (int l = 1; l <= L; l++)
		for (int h = 1; h <= H; h++)
			fprintf(o,
				",\n  {\"upper\": \"leaf%d\", \"upper_port\": \"eth%d\", "
				"\"lower\": \"h%d\", \"lower_port\": \"eth0\", \"kind\": "
				"\"leaf-host\"}",
				l, S + h, (l - 1) * H + h);
	fprintf(o, "\n ]\n}\n");
	fclose(o);
	return text;
}

static void load(struct xfab_fabric *f, int S, int L, int H, int X)
{
	char *text = clos(S, L, H, X), err[256] = "";

	if (xfab_fabric_parse(text, f, err, sizeof(err)))
		fail_msg("the generated fabric is refused: %s", err);
	free(text);
}

static int sw_of(const struct xfab_fabric *f, const char *name)
{
	int s = xfab_fab_switch_find(f, name);

	if (s < 0)
		fail_msg("no switch %s", name);
	return s;
}

static int port_of(const struct xfab_fabric *f, const char *sw, const char *port)
{
	int p = xfab_fab_port_find(&f->switches[sw_of(f, sw)], port);

	if (p < 0)
		fail_msg("no port %s %s", sw, port);
	return p;
}

/* ---- reading ---- */

static void test_parse(void **state)
{
	struct xfab_fabric f;
	const struct xfab_fab_port *p;
	int leaf3, spine2, h5;

	(void)state;
	load(&f, 2, 4, 2, 0);
	assert_string_equal(f.name, "t");
	assert_int_equal(f.n_switches, 6);
	assert_int_equal(f.n_hosts, 8);
	assert_int_equal(f.n_links, 8 + 8);
	leaf3 = sw_of(&f, "leaf3");
	spine2 = sw_of(&f, "spine2");
	assert_int_equal(f.switches[leaf3].tier, 1);
	assert_int_equal(f.switches[spine2].tier, 2);
	assert_string_equal(f.switches[leaf3].netns, "t-leaf3");
	assert_string_equal(f.switches[leaf3].pins, "/sys/fs/bpf/xfab/t/leaf3");
	assert_int_equal(f.switches[leaf3].n_ports, 4);
	/* leaf3 eth2 goes up to spine2 eth3, which comes down to it */
	p = &f.switches[leaf3].ports[port_of(&f, "leaf3", "eth2")];
	assert_int_equal(p->dir, XFAB_FAB_UP);
	assert_int_equal(p->peer_sw, spine2);
	assert_int_equal(p->peer_sw_port, port_of(&f, "spine2", "eth3"));
	assert_int_equal(p->peer_host, -1);
	assert_int_equal(f.switches[spine2].ports[p->peer_sw_port].link, p->link);
	assert_string_equal(f.links[p->link].kind, "spine-leaf");
	assert_int_equal(f.links[p->link].upper, spine2);
	assert_int_equal(f.links[p->link].lower, leaf3);
	assert_int_equal(f.links[p->link].lower_port, port_of(&f, "leaf3", "eth2"));
	/* hosts: h5 on leaf3 eth3, by name and by address */
	h5 = xfab_fab_host_find(&f, "h5");
	assert_true(h5 >= 0);
	assert_int_equal(f.hosts[h5].leaf, leaf3);
	assert_int_equal(f.hosts[h5].leaf_port, port_of(&f, "leaf3", "eth3"));
	assert_int_equal(f.hosts[h5].addr.s_addr, inet_addr("10.3.1.2"));
	assert_int_equal(xfab_fab_host_by_addr(&f, f.hosts[h5].addr), h5);
	p = &f.switches[leaf3].ports[port_of(&f, "leaf3", "eth3")];
	assert_int_equal(p->peer_host, h5);
	assert_int_equal(p->dir, XFAB_FAB_DOWN);
	assert_int_equal(f.links[p->link].lower, -1);
	assert_int_equal(f.links[p->link].lower_host, h5);
	assert_int_equal(xfab_fab_switch_find(&f, "leaf9"), -1);
	assert_int_equal(xfab_fab_host_by_addr(&f, (struct in_addr){inet_addr("10.9.9.9")}), -1);
	xfab_fabric_free(&f);
	/* with super-spines: a spine's ports up */
	load(&f, 2, 2, 1, 2);
	p = &f.switches[sw_of(&f, "spine1")].ports[port_of(&f, "spine1", "eth4")];
	assert_int_equal(p->dir, XFAB_FAB_UP);
	assert_int_equal(p->peer_sw, sw_of(&f, "super2"));
	assert_int_equal(f.switches[sw_of(&f, "super2")].tier, 3);
	assert_string_equal(f.links[p->link].kind, "super-spine");
	xfab_fabric_free(&f);
}

/* text with the first `from` replaced by `to` */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	if (!at)
		fail_msg("the fabric has no \"%s\"", from);
	out = malloc(strlen(text) + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

/* line:col of the first `what` in text (1-based, col in bytes) */
static void where(const char *text, const char *what, int *line, int *col)
{
	const char *at = strstr(text, what), *bol = text;

	if (!at)
		fail_msg("no \"%s\" in the text", what);
	*line = 1;
	for (const char *c = text; c < at; c++)
		if (*c == '\n') {
			(*line)++;
			bol = c + 1;
		}
	*col = (int)(at - bol) + 1;
}

/* bad, read with checks, is refused with want in the message, at the
 * position of the first `at` in it (unless NULL), and nothing kept. */
static void expect_refused(const char *bad, unsigned int checks, const char *at, const char *want,
			   size_t i)
{
	struct xfab_fabric f;
	char err[256] = "", pos[32];
	int line, col;

	if (xfab_fabric_parse_checked(bad, checks, &f, err, sizeof(err)) != -1)
		fail_msg("case %zu (%s) was accepted", i, want);
	if (!strstr(err, want))
		fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, want);
	if (at) {
		where(bad, at, &line, &col);
		snprintf(pos, sizeof(pos), "%d:%d: ", line, col);
		if (strncmp(err, pos, strlen(pos)))
			fail_msg("case %zu: got \"%s\", want it at %s", i, err, pos);
	}
	assert_null(f.switches);
}

/* Each bad file is refused, naming the place and what is wrong; the
 * position is where the edited text is. */
static void test_parse_errors(void **state)
{
	static const struct {
		const char *from, *to, *at, *want;
	} cases[] = {
	    {"\"tier\": 2", "\"tier\": 4", "4, \"asn\"",
	     "switches.spine1.tier: 1 (leaf), 2 (spine) or 3 (super-spine), not 4"},
	    {"\"tier\": 1", "\"tier\": \"1\"", "\"1\", \"netns\"",
	     "switches.leaf1.tier: 1 (leaf), 2 (spine) or 3 (super-spine), not string"},
	    {"\"netns\": \"t-leaf1\", ", "", NULL, "switches.leaf1.netns: missing"},
	    {"\"pins\": \"/sys/fs/bpf/xfab/t/leaf2\"", "\"pins\": 7", "7, \"ports\"",
	     "switches.leaf2.pins: a string is needed, not number"},
	    {"\"peer\": \"leaf2\"", "\"peer\": \"leaf9\"", "\"leaf9\"",
	     "switches.spine1.ports.eth2: peer \"leaf9\" is neither a switch nor a host"},
	    {"\"peer\": \"leaf2\", \"peer_port\": \"eth1\"",
	     "\"peer\": \"leaf2\", \"peer_port\": \"eth7\"", "\"eth7\"",
	     "switches.spine1.ports.eth2: leaf2 has no port eth7"},
	    {"\"peer\": \"leaf2\", \"peer_port\": \"eth1\"",
	     "\"peer\": \"leaf2\", \"peer_port\": \"eth2\"", "\"eth2\", \"speed",
	     "switches.spine1.ports.eth2: leaf2 eth2 names spine2 eth2 as its peer, not this "
	     "port"},
	    {"\"direction\": \"down\"", "\"direction\": \"sideways\"", "\"sideways\"",
	     "switches.spine1.ports.eth1.direction: \"up\" or \"down\""},
	    {"\"direction\": \"down\"", "\"direction\": \"up\"", "\"up\"}",
	     "switches.spine1.ports.eth1: \"up\" to leaf1, a tier 1 switch, from tier 2"},
	    {"\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": \"down\"",
	     "\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": \"up\"", "\"h1\"",
	     "switches.leaf1.ports.eth3: host h1: hosts hang off leaves (tier 1), by ports going "
	     "down"},
	    {"\"ipv4\": \"10.1.1.2/24\"", "\"ipv4\": \"10.1.1.256/24\"", "\"10.1.1.256/24\"",
	     "hosts.h1.ipv4: \"10.1.1.256\" is not an IPv4 address"},
	    {"\"upper\": \"spine2\", \"upper_port\": \"eth1\"",
	     "\"upper\": \"spine7\", \"upper_port\": \"eth1\"", "\"spine7\"",
	     "links[2].upper: unknown switch \"spine7\""},
	    {"\"lower\": \"leaf1\", \"lower_port\": \"eth1\"",
	     "\"lower\": \"leaf1\", \"lower_port\": \"eth9\"", "\"eth9\"",
	     "links[0].lower_port: leaf1 has no port eth9"},
	    {"\"upper\": \"spine1\", \"upper_port\": \"eth2\"",
	     "\"upper\": \"spine1\", \"upper_port\": \"eth1\"", NULL,
	     "links[1]: spine1 eth1 goes down to leaf1 eth1, not to this link's lower end"},
	    {"\"links\": [", "\"links\": {", NULL, "fabric: expected a string key in object"},
	    {"\"switches\": {", "\"switchez\": {", NULL, "1:1: switches: missing"},
	};
	char *text = clos(2, 2, 1, 0);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *bad = edit(text, cases[i].from, cases[i].to);

		expect_refused(bad, XFAB_FAB_CHECK_REPORT, cases[i].at, cases[i].want, i);
		free(bad);
	}
	free(text);
}

#define LONG_CTL                                                                                   \
	"/run/xfab/"                                                                               \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"        \
	"xxxxxxxxxxxxxxxxxxxxxxx.sock"

/* The checks every reader makes of hosts, addresses and speeds (the TE
 * controller's and the report's alike), each refused at its place. */
static void test_parse_hosts_addrs(void **state)
{
	static const struct {
		const char *from, *to, *at, *want;
	} cases[] = {
	    {"\"leaf\": \"leaf1\", ", "", NULL, "hosts.h1.leaf: missing"},
	    {"\"leaf\": \"leaf1\"", "\"leaf\": \"spine1\"", "\"spine1\", \"leaf_port",
	     "hosts.h1.leaf: \"spine1\" is no leaf (tier 1) of the fabric"},
	    {"\"leaf_port\": \"eth3\"", "\"leaf_port\": \"eth9\"", "\"eth9\"",
	     "hosts.h1.leaf_port: leaf1 has no port eth9"},
	    {"\"ipv4\": \"10.1.1.2/24\"", "\"ipv4\": \"10.1.1.2\"", "\"10.1.1.2\"",
	     "hosts.h1.ipv4: \"10.1.1.2\" is not an IPv4 address with a length 1..32"},
	    {"\"ipv4\": \"10.1.1.2/24\"", "\"ipv4\": \"10.1.1.2/0\"", "\"10.1.1.2/0\"",
	     "hosts.h1.ipv4: \"10.1.1.2/0\" is not an IPv4 address with a length 1..32"},
	    {"\"ipv4\": \"10.2.1.2/24\"", "\"ipv4\": \"10.1.1.3/24\"", "\"10.1.1.3/24\"",
	     "hosts.h2.ipv4: its subnet is also h1's, on another leaf"},
	    {"\"ipv4\": \"10.2.1.2/24\"", "\"ipv4\": \"10.1.1.2/24\"", NULL,
	     "hosts.h2.ipv4: h1 has the same address"},
	    /* leaf1 eth3 names h1, which says it is on leaf1 eth1 */
	    {"\"leaf_port\": \"eth3\"", "\"leaf_port\": \"eth1\"", "\"h1\", \"peer_port\"",
	     "switches.leaf1.ports.eth3: host h1 is on leaf1 eth1 (hosts.h1), not on this port"},
	    /* h3 on a port that leads elsewhere, and no port leads to it */
	    {"\"hosts\": {",
	     "\"hosts\": {\"h3\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth1\", \"ipv4\": "
	     "\"10.9.1.2/24\"},",
	     "\"eth1\", \"ipv4\"",
	     "hosts.h3.leaf_port: leaf1 eth1 leads to spine1, not to this host"},
	    {"\"hosts\": {", "\"hostz\": {", "{\"name\"", "hosts: missing"},
	    {"\"speed_mbps\": null", "\"ipv4\": \"10.0.0.1/33\", \"speed_mbps\": null",
	     "\"10.0.0.1/33\"",
	     "switches.spine1.ports.eth1.ipv4: \"10.0.0.1/33\" is not an IPv4 address with a "
	     "length"},
	    {"\"speed_mbps\": null", "\"speed_mbps\": 0", "0, \"direction\"",
	     "switches.spine1.ports.eth1.speed_mbps: an integer 1..100000000"},
	    {"\"speed_mbps\": null", "\"speed_mbps\": 100000001", "100000001",
	     "switches.spine1.ports.eth1.speed_mbps: an integer 1..100000000"},
	    {"\"ctl\": \"/run/xfab/t/spine1.sock\"", "\"ctl\": \"" LONG_CTL "\"", "\"/run/xfab/xx",
	     "switches.spine1.ctl: 1..107 characters"},
	};
	char *text = clos(2, 2, 1, 0);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *bad = edit(text, cases[i].from, cases[i].to);

		/* refused whichever tool reads it (the fixture has no gateways:
		 * 0 stands for TE's reader here) */
		expect_refused(bad, XFAB_FAB_CHECK_REPORT, cases[i].at, cases[i].want, i);
		expect_refused(bad, 0, cases[i].at, cases[i].want, i);
		free(bad);
	}
	free(text);
}

/* What one tool alone relies on is checked when it asks: the report needs
 * netns, pins and every port on a link; TE needs the gateways. */
static void test_parse_checks(void **state)
{
	char *text = clos(2, 2, 1, 0), *bad, err[256];
	struct xfab_fabric f;
	int s;

	(void)state;
	/* no addresses on the fabric's ports: the report's, not TE's */
	assert_int_equal(xfab_fabric_parse_checked(text, 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.n_links, 2 * 2 + 2);
	xfab_fabric_free(&f);
	expect_refused(text, XFAB_FAB_CHECK_GATEWAYS, "{\"peer\": \"leaf1\"",
		       "switches.spine1.ports.eth1: a fabric link needs an ipv4 address (the pins' "
		       "gateways)",
		       0);
	/* addresses given: the port's own, kept */
	bad = edit(text, "\"speed_mbps\": null",
		   "\"ipv4\": \"10.254.1.0/31\", \"speed_mbps\": 400000");
	assert_int_equal(xfab_fabric_parse_checked(bad, 0, &f, err, sizeof(err)), 0);
	s = sw_of(&f, "spine1");
	assert_int_equal(f.switches[s].ports[0].addr.s_addr, inet_addr("10.254.1.0"));
	assert_int_equal(f.switches[s].ports[0].plen, 31);
	assert_int_equal(f.switches[s].ports[0].speed_mbps, 400000);
	assert_int_equal(f.switches[s].ports[1].speed_mbps, 0);
	assert_int_equal(f.hosts[xfab_fab_host_find(&f, "h2")].plen, 24);
	xfab_fabric_free(&f);
	free(bad);
	/* no netns: TE's reader takes it, the report's does not */
	bad = edit(text, "\"netns\": \"t-leaf1\", ", "");
	assert_int_equal(xfab_fabric_parse_checked(bad, 0, &f, err, sizeof(err)), 0);
	xfab_fabric_free(&f);
	expect_refused(bad, XFAB_FAB_CHECK_REPORT, NULL, "switches.leaf1.netns: missing", 1);
	free(bad);
	/* no links list, or an empty one: the report's alone */
	bad = edit(text, "\"links\": [", "\"linkz\": [");
	assert_int_equal(xfab_fabric_parse_checked(bad, 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.n_links, 0);
	assert_int_equal(f.switches[0].ports[0].link, -1);
	xfab_fabric_free(&f);
	expect_refused(bad, XFAB_FAB_CHECK_REPORT, "{\"name\"", "links: missing", 2);
	free(bad);
	/* but a links list given is checked link by link for either */
	bad = edit(text, "\"upper\": \"spine2\"", "\"upper\": \"spine7\"");
	expect_refused(bad, 0, "\"spine7\"", "links[2].upper: unknown switch \"spine7\"", 3);
	free(bad);
	free(text);
}

/* A port on no link, and a link twice. */
static void test_parse_links(void **state)
{
	char *text = clos(2, 2, 1, 0), *bad, err[256];
	const char *second = ",\n  {\"upper\": \"spine1\", \"upper_port\": \"eth2\"";
	struct xfab_fabric f;
	char *cut;

	(void)state;
	/* the second link gone: spine1 eth2 and leaf2 eth1 are on none */
	bad = strdup(text);
	cut = strstr(bad, second);
	assert_non_null(cut);
	memmove(cut, strchr(cut + 2, '}') + 1, strlen(strchr(cut + 2, '}') + 1) + 1);
	assert_int_equal(xfab_fabric_parse(bad, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "links: none holds spine1 eth2 (to leaf2)"));
	free(bad);
	/* the first link twice */
	bad = edit(text, "\"links\": [",
		   "\"links\": [{\"upper\": \"spine1\", \"upper_port\": \"eth1\", \"lower\": "
		   "\"leaf1\", \"lower_port\": \"eth1\"},");
	assert_int_equal(xfab_fabric_parse(bad, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "links[1]: spine1 eth1 is on links[0] already"));
	free(bad);
	free(text);
}

static void test_load(void **state)
{
	char path[] = "/tmp/xfab-test-fabric-XXXXXX", err[512], *text = clos(2, 2, 1, 0);
	struct xfab_fabric f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(xfab_fabric_load(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.n_switches, 4);
	xfab_fabric_free(&f);
	/* an error names the file */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "{\"switches\": 1}", 15), 15);
	close(fd);
	assert_int_equal(xfab_fabric_load(path, &f, err, sizeof(err)), -1);
	assert_true(!strncmp(err, path, strlen(path)));
	assert_non_null(strstr(err, ":1:14: switches: an object is needed, not number"));
	unlink(path);
	assert_int_equal(xfab_fabric_load(path, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
	free(text);
}

/* ---- which end counts ---- */

static void test_link_counter(void **state)
{
	struct xfab_fabric f;
	int checked = 0;

	(void)state;
	load(&f, 2, 3, 1, 2);
	for (unsigned int l = 0; l < f.n_links; l++) {
		const struct xfab_fab_link *ln = &f.links[l];
		int sw, port, rx;

		/* down: the upper end sends */
		xfab_fab_link_counter(&f, l, XFAB_FAB_DOWN, &sw, &port, &rx);
		assert_int_equal(sw, ln->upper);
		assert_int_equal(port, ln->upper_port);
		assert_int_equal(rx, 0);
		xfab_fab_link_counter(&f, l, XFAB_FAB_UP, &sw, &port, &rx);
		if (!strcmp(ln->kind, "leaf-host")) {
			/* a host sends up: its leaf's port receives */
			assert_int_equal(sw, ln->upper);
			assert_int_equal(port, ln->upper_port);
			assert_int_equal(rx, 1);
		} else {
			assert_int_equal(sw, ln->lower);
			assert_int_equal(port, ln->lower_port);
			assert_int_equal(rx, 0);
			/* the sender's port goes up, to the upper end */
			assert_int_equal(f.switches[sw].ports[port].dir, XFAB_FAB_UP);
			assert_int_equal(f.switches[sw].ports[port].peer_sw, ln->upper);
		}
		checked++;
	}
	assert_int_equal(checked, 2 * 3 + 2 * 2 + 3);
	/* one by name: leaf2 -> spine1 is leaf2's eth1 */
	for (unsigned int l = 0; l < f.n_links; l++) {
		int sw, port, rx;

		if (f.links[l].upper != sw_of(&f, "spine1") ||
		    f.links[l].lower != sw_of(&f, "leaf2"))
			continue;
		xfab_fab_link_counter(&f, l, XFAB_FAB_UP, &sw, &port, &rx);
		assert_string_equal(f.switches[sw].name, "leaf2");
		assert_string_equal(f.switches[sw].ports[port].name, "eth1");
		xfab_fab_link_counter(&f, l, XFAB_FAB_DOWN, &sw, &port, &rx);
		assert_string_equal(f.switches[sw].name, "spine1");
		assert_string_equal(f.switches[sw].ports[port].name, "eth2");
	}
	xfab_fabric_free(&f);
}

/* ---- max/mean ---- */

static void test_imbalance(void **state)
{
	static const struct {
		uint64_t v[4];
		unsigned int n, argmax;
		uint64_t max, sum;
		double mean, ratio;
	} cases[] = {
	    {{100, 300}, 2, 1, 300, 400, 200.0, 1.5},
	    {{300, 100}, 2, 0, 300, 400, 200.0, 1.5},
	    {{7, 7, 7, 7}, 4, 0, 7, 28, 7.0, 1.0},
	    {{0, 0, 9}, 3, 2, 9, 9, 3.0, 3.0},
	    {{0, 0}, 2, 0, 0, 0, 0.0, 0.0}, /* no traffic: no imbalance */
	    {{5}, 1, 0, 5, 5, 5.0, 1.0},
	    {{2, 9, 9, 1}, 4, 1, 9, 21, 5.25, 9 / 5.25}, /* the first of equals */
	    {{1000000000000ull, 3000000000000ull, 2000000000000ull, 2000000000000ull},
	     4,
	     1,
	     3000000000000ull,
	     8000000000000ull,
	     2e12,
	     1.5},
	};
	struct xfab_imbalance imb;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		xfab_imbalance(cases[i].v, cases[i].n, &imb);
		assert_int_equal(imb.n, cases[i].n);
		assert_int_equal(imb.max, cases[i].max);
		assert_int_equal(imb.sum, cases[i].sum);
		assert_int_equal(imb.argmax, cases[i].argmax);
		assert_float_equal(imb.mean, cases[i].mean, 1e-9 * (cases[i].mean + 1));
		assert_float_equal(imb.ratio, cases[i].ratio, 1e-12);
	}
}

/* The per-link figures of a pattern: leaf l sends (l * 1000 + s) bytes up
 * to spine s, and receives 7 * s from it; spine s sends 100 * x up to
 * super x and receives 0. */
static uint64_t pattern(const struct xfab_fabric *f, unsigned int l, enum xfab_fab_dir d)
{
	const struct xfab_fab_link *ln = &f->links[l];
	const char *lname = f->switches[ln->lower >= 0 ? ln->lower : ln->upper].name;
	const char *uname = f->switches[ln->upper].name;
	int lo = atoi(lname + strcspn(lname, "0123456789"));
	int up = atoi(uname + strcspn(uname, "0123456789"));

	if (ln->lower < 0)
		return 123456; /* host links are no tier's business */
	if (!strcmp(ln->kind, "spine-leaf"))
		return d == XFAB_FAB_UP ? (uint64_t)(lo * 1000 + up) : (uint64_t)(7 * up);
	return d == XFAB_FAB_UP ? (uint64_t)(100 * up) : 0;
}

static void test_tier_imbalance(void **state)
{
	struct xfab_fab_tier_imb ti;
	struct xfab_fabric f;
	uint64_t val[2][64];

	(void)state;
	load(&f, 3, 4, 2, 2);
	assert_true(f.n_links <= 64);
	for (unsigned int l = 0; l < f.n_links; l++)
		for (int d = 0; d < 2; d++)
			val[d][l] = pattern(&f, l, (enum xfab_fab_dir)d);
	/* leaves up: leaf l sends l*1000+1, +2, +3: max l*1000+3, mean l*1000+2 */
	assert_int_equal(xfab_fab_tier_imbalance(&f, 1, XFAB_FAB_UP, val[0], &ti), 0);
	assert_int_equal(ti.n_groups, 4);
	for (unsigned int g = 0; g < 4; g++) {
		int l = atoi(f.switches[ti.groups[g].sw].name + 4);

		assert_string_equal(f.switches[ti.groups[g].sw].role, "leaf");
		assert_int_equal(ti.groups[g].n_links, 3);
		assert_int_equal(ti.groups[g].imb.max, l * 1000 + 3);
		assert_int_equal(ti.groups[g].imb.argmax, 2);
		assert_float_equal(ti.groups[g].imb.mean, l * 1000 + 2, 1e-9);
		assert_float_equal(ti.groups[g].imb.ratio, (l * 1000 + 3) / (l * 1000 + 2.0),
				   1e-12);
		/* the group's links are its ports to spines, in port order */
		for (unsigned int i = 0; i < 3; i++)
			assert_int_equal(
			    f.links[ti.groups[g].links[i]].upper,
			    sw_of(&f, (char[]){'s', 'p', 'i', 'n', 'e', (char)('1' + i), 0}));
	}
	/* over the tier: 12 links, max 4003, mean (1+2+3+4)*1000 * 3 / 12 + 2 */
	assert_int_equal(ti.all.n, 12);
	assert_int_equal(ti.all.max, 4003);
	assert_float_equal(ti.all.mean, 2502.0, 1e-9);
	assert_float_equal(ti.all.ratio, 4003 / 2502.0, 1e-12);
	/* leaf1 is the least even: 1003/1002 */
	assert_true(ti.worst >= 0);
	assert_string_equal(f.switches[ti.groups[ti.worst].sw].name, "leaf1");
	free(ti.groups);
	/* leaves down: each receives 7, 14, 21 from its spines: 21/14 alike;
	 * the first of equals is the worst */
	assert_int_equal(xfab_fab_tier_imbalance(&f, 1, XFAB_FAB_DOWN, val[1], &ti), 0);
	assert_int_equal(ti.n_groups, 4);
	for (unsigned int g = 0; g < 4; g++)
		assert_float_equal(ti.groups[g].imb.ratio, 1.5, 1e-12);
	assert_string_equal(f.switches[ti.groups[ti.worst].sw].name, "leaf1");
	assert_float_equal(ti.all.ratio, 1.5, 1e-12);
	free(ti.groups);
	/* spines up to the supers: 100, 200 from each spine; only ports up */
	assert_int_equal(xfab_fab_tier_imbalance(&f, 2, XFAB_FAB_UP, val[0], &ti), 0);
	assert_int_equal(ti.n_groups, 3);
	for (unsigned int g = 0; g < 3; g++) {
		assert_string_equal(f.switches[ti.groups[g].sw].role, "spine");
		assert_int_equal(ti.groups[g].n_links, 2);
		assert_int_equal(ti.groups[g].imb.sum, 300);
		assert_float_equal(ti.groups[g].imb.ratio, 200 / 150.0, 1e-12);
	}
	free(ti.groups);
	/* nothing down from the supers: no ratio, no worst */
	assert_int_equal(xfab_fab_tier_imbalance(&f, 2, XFAB_FAB_DOWN, val[1], &ti), 0);
	assert_int_equal(ti.n_groups, 3);
	assert_int_equal(ti.worst, -1);
	assert_int_equal(ti.all.sum, 0);
	assert_float_equal(ti.all.ratio, 0, 0);
	free(ti.groups);
	/* the supers have nothing above them */
	assert_int_equal(xfab_fab_tier_imbalance(&f, 3, XFAB_FAB_UP, val[0], &ti), 0);
	assert_int_equal(ti.n_groups, 0);
	assert_int_equal(ti.all.n, 0);
	free(ti.groups);
	xfab_fabric_free(&f);
}

/* The worst leaf is the one with the highest ratio, not the most bytes. */
static void test_tier_worst(void **state)
{
	struct xfab_fab_tier_imb ti;
	struct xfab_fabric f;
	uint64_t val[32] = {0};

	(void)state;
	load(&f, 2, 3, 1, 0);
	for (unsigned int l = 0; l < f.n_links; l++) {
		const struct xfab_fab_link *ln = &f.links[l];

		if (ln->lower < 0)
			continue;
		/* leaf1: 1000/1000 (even, most bytes); leaf2: 10/30; leaf3: 5/10 */
		if (!strcmp(f.switches[ln->lower].name, "leaf1"))
			val[l] = 1000;
		else if (!strcmp(f.switches[ln->lower].name, "leaf2"))
			val[l] = ln->upper == sw_of(&f, "spine1") ? 10 : 30;
		else
			val[l] = ln->upper == sw_of(&f, "spine1") ? 5 : 10;
	}
	assert_int_equal(xfab_fab_tier_imbalance(&f, 1, XFAB_FAB_UP, val, &ti), 0);
	assert_string_equal(f.switches[ti.groups[ti.worst].sw].name, "leaf2");
	assert_float_equal(ti.groups[ti.worst].imb.ratio, 30 / 20.0, 1e-12);
	assert_int_equal(ti.all.max, 1000);
	assert_float_equal(ti.all.mean, (2000 + 40 + 15) / 6.0, 1e-9);
	free(ti.groups);
	xfab_fabric_free(&f);
}

/* ---- the path walk ---- */

/* A stub decision: for (switch, ingress port) the egress port, or a drop;
 * every call is recorded. */
struct rule {
	const char *sw, *in, *out; /* out NULL: drop; "?": cannot be asked */
};

struct stub {
	const struct xfab_fabric *f;
	const struct rule *rules;
	size_t n_rules;
	char calls[32][40];
	unsigned int n_calls;
};

static int stub_decide(void *ctx, struct xfab_fab_hop *hop, char *why, size_t whylen)
{
	struct stub *st = ctx;
	const struct xfab_fab_switch *s = &st->f->switches[hop->sw];
	unsigned int in_port = hop->in_port;

	if (st->n_calls < 32)
		snprintf(st->calls[st->n_calls++], sizeof(st->calls[0]), "%s %s", s->name,
			 s->ports[in_port].name);
	for (size_t i = 0; i < st->n_rules; i++) {
		const struct rule *r = &st->rules[i];

		if (strcmp(r->sw, s->name) || strcmp(r->in, s->ports[in_port].name))
			continue;
		if (!r->out) {
			snprintf(why, whylen, "%s drops it: blackhole", s->name);
			return 1;
		}
		if (!strcmp(r->out, "?")) {
			snprintf(why, whylen, "%s: no trace program", s->name);
			return -1;
		}
		hop->out_port = (unsigned int)xfab_fab_port_find(s, r->out);
		return 0;
	}
	fail_msg("no rule for %s %s", s->name, s->ports[in_port].name);
	return -1;
}

static void walk(const struct xfab_fabric *f, const char *src, const char *dst,
		 const struct rule *rules, size_t n, struct stub *st, struct xfab_fab_path *p)
{
	memset(st, 0, sizeof(*st));
	st->f = f;
	st->rules = rules;
	st->n_rules = n;
	xfab_fab_walk(f, (unsigned int)xfab_fab_host_find(f, src),
		      (unsigned int)xfab_fab_host_find(f, dst), stub_decide, st, p);
}

/* "leaf1 eth3>eth2 spine2 eth1>eth4 ..." from the path's hops */
static void hops_text(const struct xfab_fabric *f, const struct xfab_fab_path *p, char *buf,
		      size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int h = 0; h < p->n_hops; h++) {
		const struct xfab_fab_switch *s = &f->switches[p->hops[h].sw];

		off += (size_t)snprintf(buf + off, len - off, "%s%s %s>%s", h ? " " : "", s->name,
					s->ports[p->hops[h].in_port].name,
					xfab_fab_hop_sent(p, h) ? s->ports[p->hops[h].out_port].name
								: "-");
	}
}

static void test_walk_2tier(void **state)
{
	/* h1 (leaf1 eth3) to h8 (leaf4 eth4) by spine2 */
	static const struct rule rules[] = {
	    {"leaf1", "eth3", "eth2"},
	    {"spine2", "eth1", "eth4"},
	    {"leaf4", "eth2", "eth4"},
	};
	struct xfab_fabric f;
	struct xfab_fab_path p;
	struct stub st;
	char text[256];

	(void)state;
	load(&f, 2, 4, 2, 0);
	walk(&f, "h1", "h8", rules, 3, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_DELIVERED);
	assert_string_equal(xfab_fab_path_status_name(p.status), "delivered");
	assert_int_equal(p.n_hops, 3);
	assert_int_equal(p.last_host, xfab_fab_host_find(&f, "h8"));
	hops_text(&f, &p, text, sizeof(text));
	assert_string_equal(text, "leaf1 eth3>eth2 spine2 eth1>eth4 leaf4 eth2>eth4");
	/* each switch was asked once, about the port the flow came in by */
	assert_int_equal(st.n_calls, 3);
	assert_string_equal(st.calls[0], "leaf1 eth3");
	assert_string_equal(st.calls[1], "spine2 eth1");
	assert_string_equal(st.calls[2], "leaf4 eth2");
	for (unsigned int h = 0; h < 3; h++)
		assert_true(xfab_fab_hop_sent(&p, h));
	xfab_fabric_free(&f);
}

/* leaf -> spine -> super -> spine -> leaf */
static void test_walk_3tier(void **state)
{
	static const struct rule rules[] = {
	    {"leaf2", "eth3", "eth1"},	/* to spine1 */
	    {"spine1", "eth2", "eth5"}, /* up to super2 (ports: 3 leaves, then supers) */
	    {"super2", "eth1", "eth2"}, /* down to spine2 */
	    {"spine2", "eth5", "eth3"}, /* down to leaf3 */
	    {"leaf3", "eth2", "eth3"},	/* to h3 */
	};
	struct xfab_fabric f;
	struct xfab_fab_path p;
	struct stub st;
	char text[256];

	(void)state;
	load(&f, 2, 3, 1, 2);
	walk(&f, "h2", "h3", rules, 5, &st, &p);
	hops_text(&f, &p, text, sizeof(text));
	assert_string_equal(text, "leaf2 eth3>eth1 spine1 eth2>eth5 super2 eth1>eth2 "
				  "spine2 eth5>eth3 leaf3 eth2>eth3");
	assert_int_equal(p.status, XFAB_PATH_DELIVERED);
	assert_int_equal(st.n_calls, 5);
	xfab_fabric_free(&f);
}

/* A bounce (local repair: spine1 sends it back to leaf1, which takes
 * spine2) enters leaf1 twice, by two ports: no loop. */
static void test_walk_bounce(void **state)
{
	static const struct rule rules[] = {
	    {"leaf1", "eth3", "eth1"},	{"spine1", "eth1", "eth1"}, {"leaf1", "eth1", "eth2"},
	    {"spine2", "eth1", "eth2"}, {"leaf2", "eth2", "eth3"},
	};
	struct xfab_fabric f;
	struct xfab_fab_path p;
	struct stub st;
	char text[256];

	(void)state;
	load(&f, 2, 2, 1, 0);
	walk(&f, "h1", "h2", rules, 5, &st, &p);
	hops_text(&f, &p, text, sizeof(text));
	assert_string_equal(text, "leaf1 eth3>eth1 spine1 eth1>eth1 leaf1 eth1>eth2 "
				  "spine2 eth1>eth2 leaf2 eth2>eth3");
	assert_int_equal(p.status, XFAB_PATH_DELIVERED);
	xfab_fabric_free(&f);
}

static void test_walk_failures(void **state)
{
	static const struct rule loop[] = {
	    {"leaf1", "eth3", "eth1"},	{"spine1", "eth1", "eth2"}, {"leaf2", "eth1", "eth2"},
	    {"spine2", "eth2", "eth1"}, {"leaf1", "eth2", "eth1"}, /* back to spine1 by eth1: the
								      same again */
	};
	static const struct rule drop[] = {
	    {"leaf1", "eth3", "eth2"},
	    {"spine2", "eth1", NULL},
	};
	static const struct rule wrong[] = {
	    {"leaf1", "eth3", "eth1"},
	    {"spine1", "eth1", "eth2"},
	    {"leaf2", "eth1", "eth4"}, /* h4, not h3 */
	};
	static const struct rule unasked[] = {
	    {"leaf1", "eth3", "eth1"},
	    {"spine1", "eth1", "?"},
	};
	static const struct rule local[] = {
	    {"leaf1", "eth3", "eth4"}, /* to h2, its neighbour: not the destination */
	};
	struct xfab_fabric f;
	struct xfab_fab_path p;
	struct stub st;
	char text[256];

	(void)state;
	load(&f, 2, 2, 2, 0);
	walk(&f, "h1", "h3", loop, 5, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_LOOP);
	assert_int_equal(p.n_hops, 5);
	assert_string_equal(p.why, "into spine1 by eth1 again");
	assert_int_equal(p.last_host, -1);
	assert_true(xfab_fab_hop_sent(&p, 4));
	assert_int_equal(st.n_calls, 5); /* the repeat is not asked */

	walk(&f, "h1", "h3", drop, 2, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_STOPPED);
	assert_int_equal(p.n_hops, 2);
	assert_string_equal(p.why, "spine2 drops it: blackhole");
	assert_true(xfab_fab_hop_sent(&p, 0));
	assert_false(xfab_fab_hop_sent(&p, 1));
	hops_text(&f, &p, text, sizeof(text));
	assert_string_equal(text, "leaf1 eth3>eth2 spine2 eth1>-");

	walk(&f, "h1", "h3", wrong, 3, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_WRONG_HOST);
	assert_int_equal(p.last_host, xfab_fab_host_find(&f, "h4"));
	assert_string_equal(p.why, "handed to h4, not h3");
	assert_true(xfab_fab_hop_sent(&p, 2));

	walk(&f, "h1", "h3", unasked, 2, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_ERROR);
	assert_string_equal(p.why, "spine1: no trace program");
	assert_false(xfab_fab_hop_sent(&p, 1));

	walk(&f, "h1", "h3", local, 1, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_WRONG_HOST);
	assert_int_equal(p.n_hops, 1);
	/* and the neighbour itself is a one-hop path */
	walk(&f, "h1", "h2", local, 1, &st, &p);
	assert_int_equal(p.status, XFAB_PATH_DELIVERED);
	assert_int_equal(p.n_hops, 1);
	xfab_fabric_free(&f);
}

/* ---- snapshots ---- */

static void test_snap_delta(void **state)
{
	struct xfab_fab_snap a, b;
	struct xfab_fabric f;
	char note[160];
	int leaf2, eth1;

	(void)state;
	load(&f, 2, 2, 1, 0);
	leaf2 = sw_of(&f, "leaf2");
	eth1 = port_of(&f, "leaf2", "eth1");
	assert_int_equal(xfab_fab_snap_init(&a, &f), 0);
	assert_int_equal(xfab_fab_snap_init(&b, &f), 0);
	b.sw[leaf2].ports[eth1].tx_bytes = 1000;
	a.sw[leaf2].ports[eth1].tx_bytes = 1500;
	b.sw[leaf2].ports[eth1].rx_packets = 40; /* unchanged: 0 */
	a.sw[leaf2].ports[eth1].rx_packets = 40;
	b.sw[leaf2].ports[eth1].ecn_marked[3] = 2;
	a.sw[leaf2].ports[eth1].ecn_marked[3] = 9;
	b.sw[leaf2].ports[eth1].paused_ns[7] = 900; /* reset since: 500 is all new */
	a.sw[leaf2].ports[eth1].paused_ns[7] = 500;
	b.sw[0].drop_packets[XFAB_DROP_BLACKHOLE] = 3;
	a.sw[0].drop_packets[XFAB_DROP_BLACKHOLE] = 5;
	assert_int_equal(xfab_fab_snap_delta(&a, &b, &f, note, sizeof(note)), 1);
	assert_string_equal(note, "leaf2 eth1 paused_ns[7] 500 < 900");
	assert_int_equal(a.sw[leaf2].ports[eth1].tx_bytes, 500);
	assert_int_equal(a.sw[leaf2].ports[eth1].rx_packets, 0);
	assert_int_equal(a.sw[leaf2].ports[eth1].ecn_marked[3], 7);
	assert_int_equal(a.sw[leaf2].ports[eth1].paused_ns[7], 500);
	assert_int_equal(a.sw[0].drop_packets[XFAB_DROP_BLACKHOLE], 2);
	xfab_fab_snap_free(&a);
	xfab_fab_snap_free(&b);
	xfab_fabric_free(&f);
}

static void test_snap_file(void **state)
{
	char path[] = "/tmp/xfab-test-snap-XXXXXX", err[512];
	struct xfab_fab_snap a, b;
	struct xfab_fabric f, other;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	FILE *out;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	load(&f, 2, 2, 1, 0);
	assert_int_equal(xfab_fab_snap_init(&a, &f), 0);
	a.time = 1700000000.25;
	/* every counter a different value, some past 2^53 */
	for (unsigned int s = 0; s < f.n_switches; s++) {
		uint64_t *v = (uint64_t *)a.sw[s].ports;

		for (size_t i = 0; i < f.switches[s].n_ports * sizeof(a.sw[s].ports[0]) / 8; i++)
			v[i] = (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >>
			       (i % 3 ? 20 : 0);
		for (unsigned int r = 1; r < XFAB_DROP_MAX; r++) {
			a.sw[s].drop_packets[r] = s * 100 + r;
			a.sw[s].drop_bytes[r] = (s * 100 + r) * 1500ull;
		}
	}
	out = fdopen(fd, "w");
	assert_int_equal(xfab_fab_snap_save(&a, &f, out), 0);
	fclose(out);
	assert_int_equal(xfab_fab_snap_load(path, &f, &b, err, sizeof(err)), 0);
	assert_float_equal(b.time, a.time, 1e-6);
	for (unsigned int s = 0; s < f.n_switches; s++) {
		assert_memory_equal(b.sw[s].ports, a.sw[s].ports,
				    f.switches[s].n_ports * sizeof(a.sw[s].ports[0]));
		assert_memory_equal(b.sw[s].drop_packets, a.sw[s].drop_packets,
				    sizeof(a.sw[s].drop_packets));
		assert_memory_equal(b.sw[s].drop_bytes, a.sw[s].drop_bytes,
				    sizeof(a.sw[s].drop_bytes));
	}
	xfab_fab_snap_free(&b);
	/* another fabric's snapshot is refused */
	load(&other, 2, 2, 1, 0);
	snprintf(other.name, sizeof(other.name), "other");
	assert_int_equal(xfab_fab_snap_load(path, &other, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fabric: the snapshot is of fabric t, this is other"));
	xfab_fabric_free(&other);
	/* one with fewer switches does not have this one's spine2 */
	load(&other, 1, 2, 1, 0);
	assert_int_equal(xfab_fab_snap_load(path, &other, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "switches.spine2: fabric t has no such switch"));
	xfab_fabric_free(&other);
	assert_null(b.sw);
	xfab_fab_snap_free(&a);
	xfab_fabric_free(&f);
	unlink(path);
}

static void test_snap_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{\"fabric\": \"t\"}", "1:1: snapshot: not a fabric snapshot"},
	    {"{\"xfab_fabric_snapshot\": 2, \"fabric\": \"t\", \"time\": 1, \"switches\": {}}",
	     "1:26: xfab_fabric_snapshot: version 2; this xfabctl reads version 1"},
	    {"{\"xfab_fabric_snapshot\": 1, \"fabric\": \"t\", \"time\": 1, \"switches\": "
	     "{\"leaf1\": {\"ports\": {\"eth9\": {}}}}}",
	     "switches.leaf1.ports.eth9: leaf1 has no such port"},
	    {"{\"xfab_fabric_snapshot\": 1, \"fabric\": \"t\", \"time\": 1, \"switches\": "
	     "{\"leaf1\": {\"ports\": {\"eth1\": {\"tx_bytes\": -4}}}}}",
	     "switches.leaf1.ports.eth1.tx_bytes: -4 is not a counter"},
	    {"{\"xfab_fabric_snapshot\": 1, \"fabric\": \"t\", \"time\": 1, \"switches\": "
	     "{\"leaf1\": {\"ports\": {\"eth1\": {\"ecn_marked\": [1, 2]}}}}}",
	     "switches.leaf1.ports.eth1.ecn_marked: an array of 8 counters"},
	    {"{\"xfab_fabric_snapshot\": 1, \"fabric\": \"t\", \"time\": 1, \"switches\": "
	     "{\"leaf1\": {\"ports\": {\"eth1\": {\"tx_octets\": 1}}}}}",
	     "switches.leaf1.ports.eth1.tx_octets: not a port counter"},
	    {"{\"xfab_fabric_snapshot\": 1, \"fabric\": \"t\", \"time\": 1, \"switches\": "
	     "{\"leaf1\": {\"ports\": {}, \"drops\": {\"gremlins\": [1, 2]}}}}",
	     "switches.leaf1.drops.gremlins: not a drop reason"},
	    {"{\"xfab_fabric_snapshot\": 1,", "1:28: "},
	};
	char path[] = "/tmp/xfab-test-snap-XXXXXX", err[512];
	struct xfab_fab_snap s;
	struct xfab_fabric f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	load(&f, 2, 2, 1, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *out = fopen(path, "w");

		fputs(cases[i].text, out);
		fclose(out);
		err[0] = '\0';
		assert_int_equal(xfab_fab_snap_load(path, &f, &s, err, sizeof(err)), -1);
		if (strncmp(err, path, strlen(path)) || !strstr(err, cases[i].want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, cases[i].want);
	}
	unlink(path);
	xfab_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),	   cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_links),	   cmocka_unit_test(test_parse_hosts_addrs),
	    cmocka_unit_test(test_parse_checks),   cmocka_unit_test(test_load),
	    cmocka_unit_test(test_link_counter),   cmocka_unit_test(test_imbalance),
	    cmocka_unit_test(test_tier_imbalance), cmocka_unit_test(test_tier_worst),
	    cmocka_unit_test(test_walk_2tier),	   cmocka_unit_test(test_walk_3tier),
	    cmocka_unit_test(test_walk_bounce),	   cmocka_unit_test(test_walk_failures),
	    cmocka_unit_test(test_snap_delta),	   cmocka_unit_test(test_snap_file),
	    cmocka_unit_test(test_snap_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
