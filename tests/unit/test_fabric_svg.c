// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric report --svg (user/ctl/fabric_svg.c) on reports built by
 * hand: a three-tier fabric with a leaf and a host of odd names. The
 * drawing is read here by string search and a tag scanner of this file's
 * own, nothing of the writer's:
 *  - every switch, host and link drawn once, by the ids the header states
 *    (a name's characters but [A-Za-z0-9.] as _XX), a link's two lines;
 *  - the text well formed: every '<' opens a tag, every '&' an entity, an
 *    odd name only escaped;
 *  - utilisation: each direction's colour is the legend's level its
 *    fraction falls in (of the busiest direction; of the port's speed over
 *    --since), nothing is u0;
 *  - loss: a direction losing 1% of its frames dashed and classed lossy,
 *    one losing 0.05% (under the 0.1% threshold) not, a host link never;
 *  - a mark: its link classed suspect, outlined once, its why (escaped)
 *    in the title and a label; a mark that is no link's end refused with
 *    no file written; a path that cannot be written: -1, the path and the
 *    error on stderr;
 *  - a job of 70 QPs: a path each, the legend naming 16 and the rest
 *    counted; the same report draws the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fabric_report.h"

#define ODD_LEAF "le<af>&\"2'"
#define ODD_LEAF_JSON "le<af>&\\\"2'"
#define ODD_LEAF_ID "le_3caf_3e_26_222_27"
#define ODD_LEAF_ESC "le&lt;af&gt;&amp;&quot;2&apos;"

/* Every port 1 Gb/s; links in this order (link_ids). */
static const char fabric_text[] =
    "{\"name\": \"t\", \"datapath\": \"xdp\", \"switches\": {\n"
    " \"super1\": {\"role\": \"super\", \"tier\": 3, \"netns\": \"t-x\", \"pins\": \"/p/x\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth3\", \"direction\": "
    "\"down\", \"speed_mbps\": 1000},\n"
    "   \"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth3\", \"direction\": \"down\", "
    "\"speed_mbps\": 1000}}},\n"
    " \"spine1\": {\"role\": \"spine\", \"tier\": 2, \"netns\": \"t-x\", \"pins\": \"/p/x\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth1\", \"direction\": "
    "\"down\", \"speed_mbps\": 1000},\n"
    "   \"eth2\": {\"peer\": \"" ODD_LEAF_JSON
    "\", \"peer_port\": \"eth1\", \"direction\": \"down\", \"speed_mbps\": 1000},\n"
    "   \"eth3\": {\"peer\": \"super1\", \"peer_port\": \"eth1\", \"direction\": \"up\", "
    "\"speed_mbps\": 1000}}},\n"
    " \"spine2\": {\"role\": \"spine\", \"tier\": 2, \"netns\": \"t-x\", \"pins\": \"/p/x\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth2\", \"direction\": "
    "\"down\", \"speed_mbps\": 1000},\n"
    "   \"eth2\": {\"peer\": \"" ODD_LEAF_JSON
    "\", \"peer_port\": \"eth2\", \"direction\": \"down\", \"speed_mbps\": 1000},\n"
    "   \"eth3\": {\"peer\": \"super1\", \"peer_port\": \"eth2\", \"direction\": \"up\", "
    "\"speed_mbps\": 1000}}},\n"
    " \"leaf1\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": \"t-x\", \"pins\": \"/p/x\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth1\", \"direction\": "
    "\"up\", \"speed_mbps\": 1000},\n"
    "   \"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth1\", \"direction\": \"up\", "
    "\"speed_mbps\": 1000},\n"
    "   \"eth3\": {\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": \"down\", "
    "\"speed_mbps\": 1000}}},\n"
    " \"" ODD_LEAF_JSON
    "\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": \"t-x\", \"pins\": \"/p/x\",\n"
    "  \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth2\", \"direction\": "
    "\"up\", \"speed_mbps\": 1000},\n"
    "   \"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth2\", \"direction\": \"up\", "
    "\"speed_mbps\": 1000},\n"
    "   \"eth3\": {\"peer\": \"h&2\", \"peer_port\": \"eth0\", \"direction\": \"down\", "
    "\"speed_mbps\": 1000}}}},\n"
    " \"hosts\": {\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", \"port\": \"eth0\",\n"
    "   \"ipv4\": \"10.1.1.2/24\", \"netns\": \"t-h1\"},\n"
    "  \"h&2\": {\"leaf\": \"" ODD_LEAF_JSON "\", \"leaf_port\": \"eth3\", \"port\": \"eth0\",\n"
    "   \"ipv4\": \"10.2.1.2/24\", \"netns\": \"t-h2\"}},\n"
    " \"links\": [\n"
    "  {\"upper\": \"spine1\", \"upper_port\": \"eth1\", \"lower\": \"leaf1\", \"lower_port\": "
    "\"eth1\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine1\", \"upper_port\": \"eth2\", \"lower\": \"" ODD_LEAF_JSON
    "\", \"lower_port\": \"eth1\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine2\", \"upper_port\": \"eth1\", \"lower\": \"leaf1\", \"lower_port\": "
    "\"eth2\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"spine2\", \"upper_port\": \"eth2\", \"lower\": \"" ODD_LEAF_JSON
    "\", \"lower_port\": \"eth2\", \"kind\": \"spine-leaf\"},\n"
    "  {\"upper\": \"super1\", \"upper_port\": \"eth1\", \"lower\": \"spine1\", \"lower_port\": "
    "\"eth3\", \"kind\": \"super-spine\"},\n"
    "  {\"upper\": \"super1\", \"upper_port\": \"eth2\", \"lower\": \"spine2\", \"lower_port\": "
    "\"eth3\", \"kind\": \"super-spine\"},\n"
    "  {\"upper\": \"leaf1\", \"upper_port\": \"eth3\", \"lower\": \"h1\", \"lower_port\": "
    "\"eth0\", \"kind\": \"leaf-host\"},\n"
    "  {\"upper\": \"" ODD_LEAF_JSON "\", \"upper_port\": \"eth3\", \"lower\": \"h&2\", "
    "\"lower_port\": \"eth0\", \"kind\": \"leaf-host\"}]}\n";

/* The ids the drawing promises, written out by hand. */
static const char *const sw_ids[] = {"sw-super1", "sw-spine1", "sw-spine2", "sw-leaf1",
				     "sw-" ODD_LEAF_ID};
static const char *const host_ids[] = {"host-h1", "host-h_262"};
static const char *const link_ids[] = {
    "link-leaf1-eth1-spine1-eth1",  "link-" ODD_LEAF_ID "-eth1-spine1-eth2",
    "link-leaf1-eth2-spine2-eth1",  "link-" ODD_LEAF_ID "-eth2-spine2-eth2",
    "link-spine1-eth3-super1-eth1", "link-spine2-eth3-super1-eth2",
    "link-h1-eth0-leaf1-eth3",	    "link-h_262-eth0-" ODD_LEAF_ID "-eth3",
};
#define N_LINKS 8

struct fixture {
	struct fab_report r;
	char path[64];
	char *svg;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char err[256] = "";

	assert_non_null(fx);
	if (xfab_fabric_parse(fabric_text, &fx->r.f, err, sizeof(err)))
		fail_msg("the fabric: %s", err);
	assert_int_equal(fx->r.f.n_links, N_LINKS);
	for (int d = 0; d < 2; d++) {
		fx->r.pkts[d] = calloc(N_LINKS, sizeof(uint64_t));
		fx->r.bytes[d] = calloc(N_LINKS, sizeof(uint64_t));
		fx->r.rx_pkts[d] = calloc(N_LINKS, sizeof(uint64_t));
		fx->r.qps[d] = calloc(N_LINKS, sizeof(uint64_t));
	}
	snprintf(fx->path, sizeof(fx->path), "/tmp/test_fabric_svg.XXXXXX");
	close(mkstemp(fx->path));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	for (int d = 0; d < 2; d++) {
		free(fx->r.pkts[d]);
		free(fx->r.bytes[d]);
		free(fx->r.rx_pkts[d]);
		free(fx->r.qps[d]);
	}
	free(fx->r.flows);
	free(fx->r.paths);
	free(fx->r.src_host);
	free(fx->r.dst_host);
	xfab_fabric_free(&fx->r.f);
	unlink(fx->path);
	free(fx->svg);
	free(fx);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *in = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	rewind(in);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, in), (size_t)n);
	fclose(in);
	return buf;
}

static void draw(struct fixture *fx, const struct fab_svg_mark *marks, unsigned int n)
{
	assert_int_equal(ctl_fab_svg_write(&fx->r, marks, n, fx->path), 0);
	free(fx->svg);
	fx->svg = slurp(fx->path);
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The start tag of the element whose id is id ("" when none). */
static void tag_of(const char *svg, const char *id, char *tag, size_t len)
{
	char want[160];
	const char *at, *start, *end;

	snprintf(want, sizeof(want), " id=\"%s\"", id);
	tag[0] = '\0';
	at = strstr(svg, want);
	if (!at)
		return;
	for (start = at; start > svg && *start != '<'; start--)
		;
	end = strchr(at, '>');
	snprintf(tag, len, "%.*s", (int)(end - start + 1), start);
}

/* attr="..." of a start tag */
static void attr_of(const char *tag, const char *attr, char *val, size_t len)
{
	char want[64];
	const char *at;

	snprintf(want, sizeof(want), " %s=\"", attr);
	val[0] = '\0';
	at = strstr(tag, want);
	if (at)
		snprintf(val, len, "%.*s", (int)strcspn(at + strlen(want), "\""),
			 at + strlen(want));
}

/* The legend's level whose colour a direction's line has; -1 for none. */
static int level_of(const char *svg, const char *line_id)
{
	char tag[512], colour[32], lg[32], want[64];

	tag_of(svg, line_id, tag, sizeof(tag));
	attr_of(tag, "stroke", colour, sizeof(colour));
	for (int u = 0; u < 6; u++) {
		const char *at;

		snprintf(lg, sizeof(lg), "legend-u%d", u);
		at = strstr(svg, lg);
		if (!at)
			continue;
		snprintf(want, sizeof(want), "stroke=\"%s\"", colour);
		if (colour[0] && strstr(at, want) && strstr(at, want) < strstr(at, "</g>"))
			return u;
	}
	return -1;
}

/* Every '<' opens a tag, comment or declaration; every '&' one of XML's
 * five entities; a "..." attribute holds no '<'. */
static void check_well_formed(const char *svg)
{
	static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};

	assert_true(!strncmp(svg, "<?xml version=\"1.0\"", 19));
	for (const char *p = svg; *p; p++) {
		if (*p == '&') {
			int ok = 0;

			for (int i = 0; i < 5; i++)
				ok |= !strncmp(p, ents[i], strlen(ents[i]));
			if (!ok)
				fail_msg("a bare & at %.30s", p);
		} else if (*p == '<') {
			const char *end = strchr(p, '>');

			if (!end || !(p[1] == '/' || p[1] == '?' || (p[1] >= 'a' && p[1] <= 'z')))
				fail_msg("a bare < at %.30s", p);
			for (const char *q = p + 1; q < end; q++)
				if (*q == '<')
					fail_msg("a < inside the tag %.40s", p);
		}
	}
	assert_int_equal(count(svg, "<svg "), 1);
	assert_int_equal(count(svg, "<g "), count(svg, "</g>"));
	assert_int_equal(count(svg, "<text"), count(svg, "</text>"));
	assert_int_equal(count(svg, "<title>"), count(svg, "</title>"));
	assert_non_null(strstr(svg, "</svg>\n"));
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "@import"));
}

static void test_every_element_once(void **state)
{
	struct fixture *fx = *state;
	char want[160], tag[512];

	draw(fx, NULL, 0);
	check_well_formed(fx->svg);
	for (size_t i = 0; i < sizeof(sw_ids) / sizeof(sw_ids[0]); i++) {
		snprintf(want, sizeof(want), "<g id=\"%s\" class=\"switch tier", sw_ids[i]);
		assert_int_equal(count(fx->svg, want), 1);
	}
	for (size_t i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "<g id=\"%s\" class=\"host\"", host_ids[i]);
		assert_int_equal(count(fx->svg, want), 1);
	}
	for (int l = 0; l < N_LINKS; l++) {
		snprintf(want, sizeof(want), "<g id=\"%s\" class=\"link ", link_ids[l]);
		assert_int_equal(count(fx->svg, want), 1);
		snprintf(want, sizeof(want), "%s-up", link_ids[l]);
		tag_of(fx->svg, want, tag, sizeof(tag));
		assert_non_null(strstr(tag, "class=\"dir up u"));
		snprintf(want, sizeof(want), "%s-down", link_ids[l]);
		tag_of(fx->svg, want, tag, sizeof(tag));
		assert_non_null(strstr(tag, "class=\"dir down u"));
	}
	/* a switch's ports named in its box, a host's too */
	{
		const char *g = strstr(fx->svg, "id=\"sw-spine1\""), *end = strstr(g, "</g>");
		const char *h = strstr(fx->svg, "id=\"host-h_262\""), *hend = strstr(h, "</g>");

		for (int p = 1; p <= 3; p++) {
			snprintf(want, sizeof(want), ">eth%d</text>", p);
			assert_true(strstr(g, want) && strstr(g, want) < end);
		}
		assert_true(strstr(h, ">eth0</text>") && strstr(h, ">eth0</text>") < hend);
	}
	assert_int_equal(count(fx->svg, "class=\"switch "), 5);
	assert_int_equal(count(fx->svg, "class=\"host\""), 2);
	assert_int_equal(count(fx->svg, "class=\"link "), N_LINKS);
	/* the odd names only escaped, the title of their link naming both ends */
	assert_null(strstr(fx->svg, ODD_LEAF));
	assert_null(strstr(fx->svg, "h&2"));
	assert_non_null(strstr(fx->svg, ">" ODD_LEAF_ESC "</text>"));
	assert_non_null(strstr(fx->svg, "<title>h&amp;2:eth0 - " ODD_LEAF_ESC ":eth3 (leaf-host)"));
	assert_non_null(strstr(fx->svg, "<title>" ODD_LEAF_ESC ":eth1 - spine1:eth2 (spine-leaf)"));
	/* tiers as rows: super above spines above leaves above hosts */
	{
		const char *order[] = {"sw-super1", "sw-spine1", "sw-leaf1", "host-h1"};
		double last = -1;

		for (int i = 0; i < 4; i++) {
			const char *g = strstr(fx->svg, order[i]), *rect = strstr(g, "<rect ");
			char y[32];

			attr_of(rect, "y", y, sizeof(y));
			assert_true(atof(y) > last);
			last = atof(y);
		}
	}
}

/* The relative scale: of the busiest direction's bytes. */
static void test_levels_relative(void **state)
{
	struct fixture *fx = *state;
	/* per direction, in % of the busiest; the level each falls in */
	static const uint64_t pct[6] = {0, 5, 20, 40, 70, 100};
	static const int want[6] = {0, 1, 2, 3, 4, 5};
	char id[160];

	for (int i = 0; i < 6; i++)
		fx->r.bytes[i % 2][i / 2] = pct[i] * 1000;
	draw(fx, NULL, 0);
	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "%s-%s", link_ids[i / 2], i % 2 ? "down" : "up");
		assert_int_equal(level_of(fx->svg, id), want[i]);
	}
	/* what carried nothing: u0 */
	snprintf(id, sizeof(id), "%s-up", link_ids[7]);
	assert_int_equal(level_of(fx->svg, id), 0);
	assert_non_null(strstr(fx->svg, "share of the busiest (100000 bytes)"));
}

/* Over --since, with every port's speed: of the speed (1 Gb/s, 10 s:
 * 1.25e9 bytes is all of it). Bounds belong to the level below. */
static void test_levels_line_rate(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t bytes[6] = {125000000,  375000000,  625000000,
					  1000000000, 1250000000, 1};
	static const int want[6] = {1, 2, 3, 4, 5, 1};
	char id[160];

	fx->r.since = "snap.json";
	fx->r.since_s = 10;
	for (int i = 0; i < 6; i++)
		fx->r.bytes[i % 2][i / 2] = bytes[i];
	fx->r.bytes[0][6] = 1250000001; /* over the line rate: the top */
	draw(fx, NULL, 0);
	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "%s-%s", link_ids[i / 2], i % 2 ? "down" : "up");
		assert_int_equal(level_of(fx->svg, id), want[i]);
	}
	snprintf(id, sizeof(id), "%s-up", link_ids[6]);
	assert_int_equal(level_of(fx->svg, id), 5);
	assert_non_null(strstr(fx->svg, "Utilisation each way: of the port's speed"));
	assert_non_null(strstr(fx->svg, "counters of the 10.0 s since snap.json"));
}

static void test_loss(void **state)
{
	struct fixture *fx = *state;
	char tag[512], id[160], dash[32];

	/* link 0 up: 1% lost; link 1 down: 0.05%; link 6 (a host's): no counter */
	fx->r.pkts[0][0] = 10000, fx->r.rx_pkts[0][0] = 9900;
	fx->r.pkts[1][1] = 10000, fx->r.rx_pkts[1][1] = 9995;
	fx->r.pkts[1][6] = 10000;
	/* link 2: the receiver took in more (its own kernel's frames) */
	fx->r.pkts[0][2] = 100, fx->r.rx_pkts[0][2] = 150;
	for (int l = 0; l < N_LINKS; l++)
		fx->r.bytes[0][l] = fx->r.bytes[1][l] = 1000;
	draw(fx, NULL, 0);
	snprintf(id, sizeof(id), "%s-up", link_ids[0]);
	tag_of(fx->svg, id, tag, sizeof(tag));
	attr_of(tag, "stroke-dasharray", dash, sizeof(dash));
	assert_non_null(strstr(tag, " lossy\""));
	assert_true(dash[0]);
	tag_of(fx->svg, link_ids[0], tag, sizeof(tag));
	assert_non_null(strstr(tag, "class=\"link spine-leaf lossy\""));
	assert_non_null(strstr(fx->svg, "up: 1000 bytes, 10000 packets, 9900 received, 100 lost "
					"(1.00%)"));
	assert_non_null(strstr(fx->svg, ">up 1.0% lost</text>"));
	/* the others: not lossy */
	assert_int_equal(count(fx->svg, "class=\"link spine-leaf lossy\""), 1);
	assert_int_equal(count(fx->svg, " lossy"), 2);		 /* the group and its line */
	assert_int_equal(count(fx->svg, "stroke-dasharray"), 2); /* and the legend's */
	assert_non_null(strstr(fx->svg, "down: 1000 bytes, 10000 packets, 9995 received, 5 lost"));
	assert_non_null(strstr(fx->svg, "up: 1000 bytes, 100 packets, 150 received, 0 lost"));
	assert_non_null(strstr(fx->svg, "lossy: 0.1% or more of the frames sent lost"));
}

static void test_marks(void **state)
{
	struct fixture *fx = *state;
	int leaf = xfab_fab_switch_find(&fx->r.f, ODD_LEAF);
	struct fab_svg_mark m[2] = {
	    {(unsigned int)leaf, 1, "CRC <rising> & \"flaps\""}, /* its eth2 to spine2 */
	};
	char tag[512];

	assert_true(leaf >= 0);
	draw(fx, m, 1);
	check_well_formed(fx->svg);
	tag_of(fx->svg, link_ids[3], tag, sizeof(tag));
	assert_non_null(strstr(tag, "class=\"link spine-leaf suspect\""));
	assert_int_equal(count(fx->svg, " suspect\""), 1);
	assert_int_equal(count(fx->svg, "class=\"suspect-outline\""), 1);
	assert_non_null(
	    strstr(fx->svg, "\nsuspect: CRC &lt;rising&gt; &amp; &quot;flaps&quot;</title>"));
	assert_non_null(
	    strstr(fx->svg, "suspect: CRC &lt;rising&gt; &amp; &quot;flaps&quot;</text>"));
	/* the outline inside the marked link's group */
	assert_true(strstr(fx->svg, "suspect-outline") > strstr(fx->svg, link_ids[3]));
	assert_true(strstr(fx->svg, "suspect-outline") < strstr(fx->svg, link_ids[4]));

	/* marks that are no link's end: refused, the file left as it was */
	assert_int_equal(unlink(fx->path), 0);
	m[1] = (struct fab_svg_mark){99, 0, "x"};
	assert_int_equal(ctl_fab_svg_write(&fx->r, m, 2, fx->path), -1);
	m[1] = (struct fab_svg_mark){0, 7, "x"};
	assert_int_equal(ctl_fab_svg_write(&fx->r, m, 2, fx->path), -1);
	assert_int_equal(access(fx->path, F_OK), -1);
}

/* stderr of f(fx) */
static void capture_stderr(struct fixture *fx, int (*f)(struct fixture *), int *rc, char *out,
			   size_t len)
{
	char tmp[] = "/tmp/test_fabric_svg_err.XXXXXX";
	int fd = mkstemp(tmp), saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	*rc = f(fx);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp);
}

static int write_nowhere(struct fixture *fx)
{
	return ctl_fab_svg_write(&fx->r, NULL, 0, "/nonexistent-dir/f.svg");
}

static void test_write_error(void **state)
{
	struct fixture *fx = *state;
	char err[512];
	int rc;

	capture_stderr(fx, write_nowhere, &rc, err, sizeof(err));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "--svg /nonexistent-dir/f.svg: No such file or directory"));
}

static void job(struct fixture *fx, size_t n)
{
	const struct xfab_fabric *f = &fx->r.f;
	int l1 = xfab_fab_switch_find(f, "leaf1"), l2 = xfab_fab_switch_find(f, ODD_LEAF);
	int s1 = xfab_fab_switch_find(f, "spine1");

	fx->r.job_path = "job.json";
	snprintf(fx->r.job.name, sizeof(fx->r.job.name), "ring<4>");
	fx->r.n_flows = n;
	fx->r.flows = calloc(n, sizeof(*fx->r.flows));
	fx->r.paths = calloc(n, sizeof(*fx->r.paths));
	fx->r.src_host = calloc(n, sizeof(int));
	fx->r.dst_host = calloc(n, sizeof(int));
	for (size_t i = 0; i < n; i++) {
		struct xfab_fab_path *p = &fx->r.paths[i];

		fx->r.flows[i].src_qpn = 0x200 + (unsigned int)i;
		fx->r.dst_host[i] = 1;
		/* h1 > leaf1 eth3 in, eth1 out > spine1 eth1, eth2 > odd leaf eth1, eth3 > h&2 */
		p->hops[0] = (struct xfab_fab_hop){(unsigned int)l1, 2, 0, 0};
		p->hops[1] = (struct xfab_fab_hop){(unsigned int)s1, 0, 1, 0};
		p->hops[2] = (struct xfab_fab_hop){(unsigned int)l2, 0, 2, 0};
		p->n_hops = 3;
		p->last_host = 1;
		p->status = XFAB_PATH_DELIVERED;
	}
}

static void test_job_and_determinism(void **state)
{
	struct fixture *fx = *state;
	char *first, want[64];

	job(fx, 70);
	draw(fx, NULL, 0);
	check_well_formed(fx->svg);
	assert_int_equal(count(fx->svg, "<polyline id=\"qp-"), 70);
	for (int i = 0; i < 70; i++) {
		snprintf(want, sizeof(want), "<polyline id=\"qp-%d\" class=\"qp delivered\"", i);
		assert_int_equal(count(fx->svg, want), 1);
		snprintf(want, sizeof(want), "<title>QP 0x%x h1 &gt; h&amp;2 ", 0x200 + i);
		assert_int_equal(count(fx->svg, want), 1);
	}
	/* the legend: 16 QPs named, the rest counted */
	assert_int_equal(count(strstr(fx->svg, "id=\"legend-qps\""), ">QP 0x"), 16);
	assert_non_null(strstr(fx->svg, ">and 54 more"));
	assert_non_null(strstr(fx->svg, "Job ring&lt;4&gt;: 70 QPs"));
	/* 8 points: h1, 2 per switch, h&2 */
	{
		const char *pts = strstr(strstr(fx->svg, "id=\"qp-0\""), "points=\"");
		unsigned int n = 1;

		for (const char *p = pts + 8; *p != '"'; p++)
			n += *p == ' ';
		assert_int_equal(n, 8);
	}
	first = fx->svg;
	fx->svg = NULL;
	draw(fx, NULL, 0);
	assert_string_equal(first, fx->svg);
	free(first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_every_element_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_levels_relative, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_levels_line_rate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_marks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_job_and_determinism, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
