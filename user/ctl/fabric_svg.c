// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric report --svg FILE: the report drawn (docs/DEBUGGING.md
 * "Drawing the fabric"). A standalone SVG 1.1 file, no script, no font or
 * style sheet of its own: tiers as rows (super-spines on top, hosts at the
 * bottom), each link two lines (up on the left of its way, down on the
 * right) coloured by what they carried, a lossy direction dashed, a
 * suspect link (the doctor's marks) outlined, a job's QP paths overlaid.
 * Every switch, host, link and QP is a <g> or element with a stable id and
 * class and a <title>, so that a test (or a person's mouse) can read it:
 *   sw-NAME  host-NAME  link-LOWER-LPORT-UPPER-UPORT (-up, -down: its lines)
 *   qp-N (the report's N-th QP)  legend-uN (the scale's colours)
 * NAME as the fabric spells it, each character but [A-Za-z0-9.] written
 * _XX (its hex code). The same report draws the same bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "fabric_report.h"

/* Utilisation levels: u0 carried nothing, u1..u5 up to each bound of the
 * fraction (of the port's speed, or of the busiest direction). */
#define SVG_LEVELS 6
static const double svg_bounds[SVG_LEVELS - 2] = {0.10, 0.30, 0.50, 0.80};
static const char *const svg_colours[SVG_LEVELS] = {"#bdbdbd", "#1a9850", "#91cf60",
						    "#fee08b", "#fc8d59", "#d73027"};
/* A direction is lossy from this share of the frames sent lost. */
#define SVG_LOSS_MIN 0.001
#define SVG_SUSPECT "#c51b7d"
#define SVG_LOSS "#67001f"
static const char *const svg_qp_colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
					     "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};
#define SVG_QP_COLOURS (sizeof(svg_qp_colours) / sizeof(svg_qp_colours[0]))
#define SVG_QP_LEGEND 16 /* QPs named in the legend; the rest by their <title> */

/* Geometry, in px. */
#define SVG_MARGIN 30.0
#define SVG_TOP 70.0  /* the heading above the first row */
#define SVG_ROW 150.0 /* from one tier's row to the next */
#define SVG_BOX_H 40.0
#define SVG_HOST_W 60.0
#define SVG_HOST_H 28.0
#define SVG_PORT_W 34.0 /* room per port on a box's edge */
#define SVG_GAP 40.0	/* between boxes of a row */
#define SVG_LEGEND_W 350.0

struct svg_box {
	double x, y, w, h; /* top left corner, size */
};

struct svg_scale {
	int line_rate; /* fractions of the counting port's speed; else of the busiest */
	double secs;   /* the report's interval (--since), 0: cumulative counters */
	uint64_t max;  /* the busiest direction's bytes */
};

struct svg_ctx {
	const struct fab_report *r;
	FILE *o;
	struct svg_box *sw, *host;
	double width, height, legend_x;
	struct svg_scale sc;
	const struct fab_svg_mark *marks;
	unsigned int n_marks;
};

/* ---- text ---- */

static void svg_esc(FILE *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", o);
			break;
		case '<':
			fputs("&lt;", o);
			break;
		case '>':
			fputs("&gt;", o);
			break;
		case '"':
			fputs("&quot;", o);
			break;
		case '\'':
			fputs("&apos;", o);
			break;
		default:
			/* XML 1.0 has no other control character than these */
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', o);
			else
				fputc(*s, o);
		}
	}
}

/* A name as a part of an id: one to one, and an XML name's characters. */
static void svg_id(FILE *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.')
			fputc(c, o);
		else
			fprintf(o, "_%02x", c);
	}
}

static void svg_link_id(FILE *o, const struct fab_report *r, unsigned int l)
{
	const struct xfab_fab_link *ln = &r->f.links[l];
	const struct xfab_fab_port *up = &r->f.switches[ln->upper].ports[ln->upper_port];

	fputs("link-", o);
	if (ln->lower >= 0) {
		svg_id(o, ctl_fab_sw_name(r, ln->lower));
		fputc('-', o);
		svg_id(o, ctl_fab_port_of(r, ln->lower, ln->lower_port));
	} else {
		svg_id(o, r->f.hosts[ln->lower_host].name);
		fputc('-', o);
		svg_id(o, up->peer_port);
	}
	fputc('-', o);
	svg_id(o, ctl_fab_sw_name(r, ln->upper));
	fputc('-', o);
	svg_id(o, up->name);
}

/* "leaf1:eth1", a host by its name */
static void svg_end_name(const struct fab_report *r, unsigned int l, int upper, char *buf,
			 size_t len)
{
	const struct xfab_fab_link *ln = &r->f.links[l];

	if (upper)
		snprintf(buf, len, "%s:%s", ctl_fab_sw_name(r, ln->upper),
			 ctl_fab_port_of(r, ln->upper, ln->upper_port));
	else if (ln->lower >= 0)
		snprintf(buf, len, "%s:%s", ctl_fab_sw_name(r, ln->lower),
			 ctl_fab_port_of(r, ln->lower, ln->lower_port));
	else
		snprintf(buf, len, "%s:%s", r->f.hosts[ln->lower_host].name,
			 r->f.switches[ln->upper].ports[ln->upper_port].peer_port);
}

/* ---- layout: a row per tier, the hosts' below ---- */

static int svg_top_tier(const struct fab_report *r)
{
	int top = 1;

	for (unsigned int s = 0; s < r->f.n_switches; s++)
		if (r->f.switches[s].tier > top)
			top = r->f.switches[s].tier;
	return top;
}

/* Ports of switch s going dir, and the rank of port p among them. */
static unsigned int svg_ports_dir(const struct xfab_fab_switch *sw, enum xfab_fab_dir dir,
				  unsigned int p, unsigned int *rank)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < sw->n_ports; i++) {
		if (sw->ports[i].dir != dir)
			continue;
		if (i == p && rank)
			*rank = n;
		n++;
	}
	return n;
}

static double svg_sw_width(const struct xfab_fab_switch *sw)
{
	unsigned int up = svg_ports_dir(sw, XFAB_FAB_UP, 0, NULL);
	unsigned int down = svg_ports_dir(sw, XFAB_FAB_DOWN, 0, NULL);
	double w = SVG_PORT_W * (up > down ? up : down) + 10;

	return w > 100 ? w : 100;
}

/* The row of switch s (0 on top: tiers top..1), or of the hosts (top). */
static int svg_row_of(const struct fab_report *r, int top, int s)
{
	return s < 0 ? top : top - r->f.switches[s].tier;
}

/* The legend's height: the scale, the cues, a job's QPs. */
static double svg_legend_h(const struct fab_report *r)
{
	size_t n = r->n_flows < SVG_QP_LEGEND ? r->n_flows : SVG_QP_LEGEND;

	return 16.0 * SVG_LEVELS + 70 + (r->job_path ? 24 + 14.0 * (n + 1) : 0);
}

/* Every row spread over the widest one, in the fabric's order. */
static void svg_layout(struct svg_ctx *c)
{
	const struct fab_report *r = c->r;
	int top = svg_top_tier(r);
	unsigned int n[4] = {0}, at[4] = {0};
	double content = 0, need[4] = {0}, h;

	for (unsigned int s = 0; s < r->f.n_switches; s++) {
		int t = svg_row_of(r, top, (int)s);

		c->sw[s] = (struct svg_box){0, 0, svg_sw_width(&r->f.switches[s]), SVG_BOX_H};
		need[t] += c->sw[s].w + SVG_GAP;
		n[t]++;
	}
	for (unsigned int i = 0; i < r->f.n_hosts; i++)
		c->host[i] = (struct svg_box){0, 0, SVG_HOST_W, SVG_HOST_H};
	n[top] = r->f.n_hosts;
	need[top] = (SVG_HOST_W + SVG_GAP / 2) * r->f.n_hosts;
	for (int t = 0; t <= top; t++)
		content = need[t] > content ? need[t] : content;
	for (unsigned int i = 0; i < r->f.n_switches + r->f.n_hosts; i++) {
		int s = i < r->f.n_switches ? (int)i : -1, t = svg_row_of(r, top, s);
		struct svg_box *b = s >= 0 ? &c->sw[s] : &c->host[i - r->f.n_switches];

		b->x = SVG_MARGIN + content / n[t] * (at[t]++ + 0.5) - b->w / 2;
		b->y = SVG_TOP + SVG_ROW * t;
	}
	c->legend_x = SVG_MARGIN * 2 + content;
	c->width = c->legend_x + SVG_LEGEND_W;
	c->height = SVG_TOP + SVG_ROW * top + SVG_HOST_H + SVG_MARGIN;
	h = SVG_TOP + svg_legend_h(r) + SVG_MARGIN;
	c->height = h > c->height ? h : c->height;
}

/* Where port p of switch s meets its link: on the box's top edge going
 * up, on its bottom edge going down, in port order. */
static void svg_port_at(const struct svg_ctx *c, unsigned int s, unsigned int p, double *x,
			double *y)
{
	const struct xfab_fab_switch *sw = &c->r->f.switches[s];
	const struct svg_box *b = &c->sw[s];
	unsigned int rank = 0, n = svg_ports_dir(sw, sw->ports[p].dir, p, &rank);

	*x = b->x + b->w * (rank + 1) / (n + 1);
	*y = sw->ports[p].dir == XFAB_FAB_UP ? b->y : b->y + b->h;
}

static void svg_host_at(const struct svg_ctx *c, int h, double *x, double *y)
{
	*x = c->host[h].x + c->host[h].w / 2;
	*y = c->host[h].y;
}

/* ---- the colour scale ---- */

static void svg_scale_init(struct svg_ctx *c)
{
	const struct fab_report *r = c->r;

	c->sc.secs = r->since && r->since_s > 0 ? r->since_s : 0;
	c->sc.line_rate = c->sc.secs > 0;
	for (unsigned int l = 0; l < r->f.n_links; l++)
		for (int d = 0; d < 2; d++) {
			int sw, port, rx;

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			if (!r->f.switches[sw].ports[port].speed_mbps)
				c->sc.line_rate = 0;
			if (r->bytes[d][l] > c->sc.max)
				c->sc.max = r->bytes[d][l];
		}
}

/* What direction d of link l carried, as a fraction of the scale. */
static double svg_fraction(const struct svg_ctx *c, unsigned int l, int d)
{
	const struct fab_report *r = c->r;
	int sw, port, rx;

	if (!c->sc.line_rate)
		return c->sc.max ? (double)r->bytes[d][l] / (double)c->sc.max : 0;
	xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
	return (double)r->bytes[d][l] * 8 / c->sc.secs /
	       (r->f.switches[sw].ports[port].speed_mbps * 1e6);
}

static int svg_level(const struct svg_ctx *c, unsigned int l, int d)
{
	double frac = svg_fraction(c, l, d);
	int level = 1;

	if (!c->r->bytes[d][l])
		return 0;
	for (int i = 0; i < SVG_LEVELS - 2; i++)
		level += frac > svg_bounds[i];
	return level;
}

static int svg_lossy(const struct fab_report *r, unsigned int l, int d, double *frac)
{
	uint64_t lost;

	return ctl_fab_link_loss(r, l, d, &lost, frac) && lost && *frac >= SVG_LOSS_MIN;
}

/* ---- elements ---- */

/* The port's name by its end of the link, inside the box. */
static void svg_port_label(FILE *o, double x, double y, int top, const char *name)
{
	fprintf(o,
		"<text class=\"port\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"font-size=\"9\" fill=\"#333\">",
		x, top ? y + 10 : y - 3);
	svg_esc(o, name);
	fputs("</text>\n", o);
}

static void svg_switch(const struct svg_ctx *c, unsigned int s)
{
	const struct xfab_fab_switch *sw = &c->r->f.switches[s];
	const struct svg_box *b = &c->sw[s];
	FILE *o = c->o;

	fputs("<g id=\"sw-", o);
	svg_id(o, sw->name);
	fprintf(o, "\" class=\"switch tier%d\"><title>", sw->tier);
	svg_esc(o, sw->name);
	fputs(" (", o);
	svg_esc(o, sw->role);
	fprintf(o, ", tier %d, %u ports)</title>\n", sw->tier, sw->n_ports);
	fprintf(o,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" "
		"fill=\"#f0f4f8\" stroke=\"#333\"/>\n",
		b->x, b->y, b->w, b->h);
	fprintf(o,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
		"font-weight=\"bold\">",
		b->x + b->w / 2, b->y + b->h / 2 + 4);
	svg_esc(o, sw->name);
	fputs("</text>\n", o);
	for (unsigned int p = 0; p < sw->n_ports; p++) {
		double x, y;

		svg_port_at(c, s, p, &x, &y);
		svg_port_label(o, x, y, sw->ports[p].dir == XFAB_FAB_UP, sw->ports[p].name);
	}
	fputs("</g>\n", o);
}

static void svg_host(const struct svg_ctx *c, unsigned int h)
{
	const struct xfab_fab_host *host = &c->r->f.hosts[h];
	const struct svg_box *b = &c->host[h];
	char a[INET_ADDRSTRLEN];
	FILE *o = c->o;

	inet_ntop(AF_INET, &host->addr, a, sizeof(a));
	fputs("<g id=\"host-", o);
	svg_id(o, host->name);
	fputs("\" class=\"host\"><title>", o);
	svg_esc(o, host->name);
	fprintf(o, " %s/%d on ", a, host->plen);
	svg_esc(o, ctl_fab_sw_name(c->r, host->leaf));
	fputs(":", o);
	svg_esc(o, ctl_fab_port_of(c->r, host->leaf, host->leaf_port));
	fputs("</title>\n", o);
	fprintf(o,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
		"stroke=\"#666\"/>\n",
		b->x, b->y, b->w, b->h);
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">",
		b->x + b->w / 2, b->y + b->h - 6);
	svg_esc(o, host->name);
	fputs("</text>\n", o);
	svg_port_label(o, b->x + b->w / 2, b->y, 1,
		       c->r->f.switches[host->leaf].ports[host->leaf_port].peer_port);
	fputs("</g>\n", o);
}

/* The link's ends: the lower (x0, y0) and the upper (x1, y1). */
static void svg_link_ends(const struct svg_ctx *c, unsigned int l, double e[4])
{
	const struct xfab_fab_link *ln = &c->r->f.links[l];

	if (ln->lower >= 0)
		svg_port_at(c, (unsigned int)ln->lower, (unsigned int)ln->lower_port, &e[0], &e[1]);
	else
		svg_host_at(c, ln->lower_host, &e[0], &e[1]);
	svg_port_at(c, (unsigned int)ln->upper, (unsigned int)ln->upper_port, &e[2], &e[3]);
}

/* "up: 1200 bytes, 10 packets (0.5 Mbit/s), 2 lost (16.67%)" */
static void svg_dir_text(const struct svg_ctx *c, unsigned int l, int d)
{
	const struct fab_report *r = c->r;
	uint64_t lost;
	double frac;

	fprintf(c->o, "\n%s: %llu bytes, %llu packets", ctl_fab_dir_names[d],
		(unsigned long long)r->bytes[d][l], (unsigned long long)r->pkts[d][l]);
	if (c->sc.secs > 0)
		fprintf(c->o, " (%.3f Mbit/s)", r->bytes[d][l] * 8 / c->sc.secs / 1e6);
	if (ctl_fab_link_loss(r, l, d, &lost, &frac))
		fprintf(c->o, ", %llu received, %llu lost (%.2f%%)",
			(unsigned long long)r->rx_pkts[d][l], (unsigned long long)lost, frac * 100);
	if (r->job_path)
		fprintf(c->o, ", %llu of the job's QPs", (unsigned long long)r->qps[d][l]);
}

/* One direction's line: up on the left of the way up, down beside it. */
static void svg_dir_line(const struct svg_ctx *c, unsigned int l, int d, const double e[4])
{
	double dx = e[2] - e[0], dy = e[3] - e[1], len = dx * dx + dy * dy, nx, ny, off, frac;
	int lossy = svg_lossy(c->r, l, d, &frac), level = svg_level(c, l, d);

	len = len > 0 ? sqrt(len) : 1;
	off = d == XFAB_FAB_UP ? -2.5 : 2.5;
	nx = -dy / len * off;
	ny = dx / len * off;
	fputs("<line id=\"", c->o);
	svg_link_id(c->o, c->r, l);
	fprintf(c->o,
		"-%s\" class=\"dir %s u%d%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"4\"%s/>\n",
		ctl_fab_dir_names[d], ctl_fab_dir_names[d], level, lossy ? " lossy" : "", e[0] + nx,
		e[1] + ny, e[2] + nx, e[3] + ny, svg_colours[level],
		lossy ? " stroke-dasharray=\"7 4\"" : "");
	if (lossy) /* beside its line, on its side, the up one higher */
		fprintf(c->o,
			"<text class=\"loss-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
			"font-size=\"10\" fill=\"%s\" font-weight=\"bold\">%s %.1f%% lost</text>\n",
			(e[0] + e[2]) / 2 + nx * 3, (e[1] + e[3]) / 2 + (d ? 12 : -6),
			nx < 0 ? "end" : "start", SVG_LOSS, ctl_fab_dir_names[d], frac * 100);
}

/* The marks on link l: the first, and how many. */
static unsigned int svg_marks_of(const struct svg_ctx *c, unsigned int l, unsigned int *first)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->n_marks; i++) {
		const struct fab_svg_mark *m = &c->marks[i];

		if (c->r->f.switches[m->sw].ports[m->port].link != (int)l)
			continue;
		if (!n++)
			*first = i;
	}
	return n;
}

static void svg_link_title(const struct svg_ctx *c, unsigned int l)
{
	char lo[64], up[64];

	svg_end_name(c->r, l, 0, lo, sizeof(lo));
	svg_end_name(c->r, l, 1, up, sizeof(up));
	fputs("<title>", c->o);
	svg_esc(c->o, lo);
	fputs(" - ", c->o);
	svg_esc(c->o, up);
	fputs(" (", c->o);
	svg_esc(c->o, c->r->f.links[l].kind);
	fputc(')', c->o);
	for (int d = 0; d < 2; d++)
		svg_dir_text(c, l, d);
	for (unsigned int i = 0; i < c->n_marks; i++)
		if (c->r->f.switches[c->marks[i].sw].ports[c->marks[i].port].link == (int)l) {
			fputs("\nsuspect: ", c->o);
			svg_esc(c->o, c->marks[i].why ? c->marks[i].why : "");
		}
	fputs("</title>\n", c->o);
}

static void svg_link(const struct svg_ctx *c, unsigned int l)
{
	const struct xfab_fab_link *ln = &c->r->f.links[l];
	unsigned int first = 0, marked = svg_marks_of(c, l, &first);
	double e[4], frac;
	int lossy = svg_lossy(c->r, l, 0, &frac) || svg_lossy(c->r, l, 1, &frac);

	svg_link_ends(c, l, e);
	fputs("<g id=\"", c->o);
	svg_link_id(c->o, c->r, l);
	fputs("\" class=\"link ", c->o);
	svg_esc(c->o, ln->kind); /* "spine-leaf": a class of its own */
	fprintf(c->o, "%s%s\">", lossy ? " lossy" : "", marked ? " suspect" : "");
	svg_link_title(c, l);
	if (marked)
		fprintf(c->o,
			"<line class=\"suspect-outline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"14\" stroke-opacity=\"0.45\" "
			"stroke-linecap=\"round\"/>\n",
			e[0], e[1], e[2], e[3], SVG_SUSPECT);
	for (int d = 0; d < 2; d++)
		svg_dir_line(c, l, d, e);
	if (marked) {
		fprintf(c->o,
			"<text class=\"suspect-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			"font-weight=\"bold\" fill=\"%s\">suspect: ",
			(e[0] + e[2]) / 2 + 8, (e[1] + e[3]) / 2 + 4, SVG_SUSPECT);
		svg_esc(c->o, c->marks[first].why ? c->marks[first].why : "");
		if (marked > 1)
			fprintf(c->o, " (+%u)", marked - 1);
		fputs("</text>\n", c->o);
	}
	fputs("</g>\n", c->o);
}

/* ---- a job's QPs ---- */

static void svg_qp_points(const struct svg_ctx *c, size_t i, double shift)
{
	const struct fab_report *r = c->r;
	const struct xfab_fab_path *p = &r->paths[i];
	double x, y;

	svg_host_at(c, r->src_host[i], &x, &y);
	fprintf(c->o, "%.1f,%.1f", x + shift, y);
	for (unsigned int h = 0; h < p->n_hops; h++) {
		const struct xfab_fab_hop *hop = &p->hops[h];
		const struct xfab_fab_port *out;

		svg_port_at(c, hop->sw, hop->in_port, &x, &y);
		fprintf(c->o, " %.1f,%.1f", x + shift, y);
		if (!xfab_fab_hop_sent(p, h)) {
			fprintf(c->o, " %.1f,%.1f", c->sw[hop->sw].x + c->sw[hop->sw].w / 2 + shift,
				c->sw[hop->sw].y + c->sw[hop->sw].h / 2);
			break;
		}
		svg_port_at(c, hop->sw, hop->out_port, &x, &y);
		fprintf(c->o, " %.1f,%.1f", x + shift, y);
		out = &r->f.switches[hop->sw].ports[hop->out_port];
		if (out->peer_host >= 0) {
			svg_host_at(c, out->peer_host, &x, &y);
			fprintf(c->o, " %.1f,%.1f", x + shift, y);
		}
	}
}

static void svg_qps(const struct svg_ctx *c)
{
	const struct fab_report *r = c->r;

	for (size_t i = 0; i < r->n_flows; i++) {
		const struct xfab_job_flow *fl = &r->flows[i];

		fprintf(c->o, "<polyline id=\"qp-%zu\" class=\"qp %s\" points=\"", i,
			xfab_fab_path_status_name(r->paths[i].status));
		svg_qp_points(c, i, ((double)(i % 7) - 3) * 1.5);
		fprintf(c->o,
			"\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
			"stroke-opacity=\"0.85\"><title>QP 0x%x ",
			svg_qp_colours[i % SVG_QP_COLOURS], fl->src_qpn);
		svg_esc(c->o, r->f.hosts[r->src_host[i]].name);
		fputs(" &gt; ", c->o);
		svg_esc(c->o, r->f.hosts[r->dst_host[i]].name);
		fprintf(c->o, " sport %u: %s", fl->sport,
			xfab_fab_path_status_name(r->paths[i].status));
		if (r->paths[i].why[0]) {
			fputs(": ", c->o);
			svg_esc(c->o, r->paths[i].why);
		}
		fputs("</title></polyline>\n", c->o);
	}
}

/* ---- heading and legend ---- */

static void svg_heading(const struct svg_ctx *c)
{
	const struct fab_report *r = c->r;

	fputs("<text x=\"30\" y=\"28\" font-size=\"16\" font-weight=\"bold\">Fabric ", c->o);
	svg_esc(c->o, r->f.name);
	fprintf(c->o, ": %u switches, %u hosts, %u links</text>\n", r->f.n_switches, r->f.n_hosts,
		r->f.n_links);
	fputs("<text x=\"30\" y=\"48\" font-size=\"11\">", c->o);
	if (r->since) {
		fprintf(c->o, "counters of the %.1f s since ", r->since_s);
		svg_esc(c->o, r->since);
	} else {
		fputs("counters since the switches started (cumulative)", c->o);
	}
	if (r->job_path) {
		fputs("; job ", c->o);
		svg_esc(c->o, r->job.name);
		fprintf(c->o, ": %zu QPs, %u delivered", r->n_flows, r->delivered);
	}
	fputs("</text>\n", c->o);
}

static void svg_legend_scale(const struct svg_ctx *c, double x, double *y)
{
	static const char *const what[SVG_LEVELS] = {"nothing", "up to 10%", "10-30%",
						     "30-50%",	"50-80%",    "over 80%"};
	FILE *o = c->o;

	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\">", x, *y);
	if (c->sc.line_rate)
		fputs("Utilisation each way: of the port's speed", o);
	else
		fprintf(o, "Each way: share of the busiest (%llu bytes)",
			(unsigned long long)c->sc.max);
	fputs("</text>\n", o);
	for (int i = 0; i < SVG_LEVELS; i++) {
		*y += 16;
		fprintf(o,
			"<g id=\"legend-u%d\" class=\"legend u%d\"><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"4\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">u%d: %s</text></g>\n",
			i, i, x, *y - 4, x + 30, *y - 4, svg_colours[i], x + 38, *y, i, what[i]);
	}
}

static void svg_legend_marks(const struct svg_ctx *c, double x, double *y)
{
	FILE *o = c->o;

	*y += 24;
	fprintf(o,
		"<g id=\"legend-lossy\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#666\" stroke-width=\"4\" stroke-dasharray=\"7 4\"/><text x=\"%.1f\" "
		"y=\"%.1f\" font-size=\"10\">lossy: %.1f%% or more of the frames sent "
		"lost</text></g>\n",
		x, *y - 4, x + 30, *y - 4, x + 38, *y, SVG_LOSS_MIN * 100);
	*y += 12;
	fprintf(o,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">(the sender's tx less the "
		"receiver's rx; none to a host)</text>\n",
		x + 38, *y);
	*y += 18;
	fprintf(o,
		"<g id=\"legend-suspect\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"14\" stroke-opacity=\"0.45\"/><text x=\"%.1f\" "
		"y=\"%.1f\" font-size=\"10\">suspect (and why)</text></g>\n",
		x, *y - 4, x + 30, *y - 4, SVG_SUSPECT, x + 38, *y);
	*y += 16;
	fprintf(o,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">Each link: up on the left of "
		"the way up, down on its right</text>\n",
		x, *y);
}

static void svg_legend_qps(const struct svg_ctx *c, double x, double *y)
{
	const struct fab_report *r = c->r;
	size_t n = r->n_flows < SVG_QP_LEGEND ? r->n_flows : SVG_QP_LEGEND;

	*y += 24;
	fputs("<g id=\"legend-qps\">", c->o);
	fprintf(c->o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\">Job ", x,
		*y);
	svg_esc(c->o, r->job.name);
	fprintf(c->o, ": %zu QPs</text>\n", r->n_flows);
	for (size_t i = 0; i < n; i++) {
		*y += 14;
		fprintf(c->o,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">QP "
			"0x%x ",
			x, *y - 4, x + 30, *y - 4, svg_qp_colours[i % SVG_QP_COLOURS], x + 38, *y,
			r->flows[i].src_qpn);
		svg_esc(c->o, r->f.hosts[r->src_host[i]].name);
		fputs(" &gt; ", c->o);
		svg_esc(c->o, r->f.hosts[r->dst_host[i]].name);
		fputs("</text>\n", c->o);
	}
	if (r->n_flows > n) {
		*y += 14;
		fprintf(c->o,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">and %zu more (colours "
			"repeat; each path's title names it)</text>\n",
			x, *y, r->n_flows - n);
	}
	fputs("</g>\n", c->o);
}

/* ---- the file ---- */

static void svg_draw(struct svg_ctx *c)
{
	const struct fab_report *r = c->r;
	double y = SVG_TOP;

	fprintf(c->o,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n<title>",
		c->width, c->height, c->width, c->height);
	svg_esc(c->o, r->f.name);
	fprintf(c->o, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	svg_heading(c);
	/* the boxes last: a QP's path crosses a switch under its name */
	for (unsigned int l = 0; l < r->f.n_links; l++)
		svg_link(c, l);
	if (r->job_path)
		svg_qps(c);
	for (unsigned int s = 0; s < r->f.n_switches; s++)
		svg_switch(c, s);
	for (unsigned int h = 0; h < r->f.n_hosts; h++)
		svg_host(c, h);
	svg_legend_scale(c, c->legend_x, &y);
	svg_legend_marks(c, c->legend_x, &y);
	if (r->job_path)
		svg_legend_qps(c, c->legend_x, &y);
	fputs("</svg>\n", c->o);
}

/* A mark names a port of a switch of the fabric with a link. */
static int svg_marks_ok(const struct fab_report *r, const struct fab_svg_mark *m, unsigned int n,
			const char *path)
{
	for (unsigned int i = 0; i < n; i++) {
		if (m[i].sw < r->f.n_switches && m[i].port < r->f.switches[m[i].sw].n_ports &&
		    r->f.switches[m[i].sw].ports[m[i].port].link >= 0)
			continue;
		fprintf(stderr,
			"xfabctl %s: --svg %s: mark %u (switch %u, port %u) is no "
			"link's end in fabric %s\n",
			r->what, path, i, m[i].sw, m[i].port, r->f.name);
		return -1;
	}
	return 0;
}

int ctl_fab_svg_write(const struct fab_report *r, const struct fab_svg_mark *marks, unsigned int n,
		      const char *path)
{
	struct svg_ctx c = {.r = r, .marks = marks, .n_marks = n};
	int bad = 1; /* nothing written */

	if (svg_marks_ok(r, marks, n, path))
		return -1;
	c.sw = calloc(r->f.n_switches + 1, sizeof(*c.sw));
	c.host = calloc(r->f.n_hosts + 1, sizeof(*c.host));
	if (!c.sw || !c.host) {
		free(c.sw);
		free(c.host);
		fprintf(stderr, "xfabctl %s: --svg %s: out of memory\n", r->what, path);
		return -1;
	}
	svg_layout(&c);
	svg_scale_init(&c);
	errno = 0;
	c.o = fopen(path, "w");
	if (c.o) {
		svg_draw(&c);
		bad = ferror(c.o);
		bad |= fclose(c.o);
	}
	free(c.sw);
	free(c.host);
	if (!c.o || bad) {
		fprintf(stderr, "xfabctl %s: --svg %s: %s\n", r->what, path,
			strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
