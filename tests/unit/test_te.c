// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the TE path computation (user/lib/te.c) against oracles
 * that share none of its code:
 *   - the fabrics are generated here from a model of the lab's address plan
 *     (docs/LAB.md), and xfab-lab's own fabric.json of the shipped
 *     topologies is parsed and checked against what the files say;
 *   - a brute force over every assignment of pairs to paths (with the
 *     3-tier pins' consistency checked by its own tables) gives the
 *     optimum: the greedy plan never beats it, equals it where greedy is
 *     provably optimal (one source leaf and equal demands; one source leaf,
 *     distinct destination leaves and at most S + 1 pairs; a permutation of
 *     leaves), and stays within (3 - 2/S) x the optimum in a 2-tier fabric
 *     (docs/TE.md has the proof);
 *   - each plan's loads are recounted here from its paths, and its pins are
 *     followed hop by hop through the model (addresses to switches) to
 *     check that they send every placed pair down its planned path;
 *   - links down are never used, a pair with no live path is left to ECMP;
 *   - bad fabrics, matrices and jobs are refused naming line:col and field.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "job.h"
#include "te.h"

/* ---- a model of the lab's fabrics (docs/LAB.md, "Address plan") ---- */

#define MAXL 16 /* leaves */
#define MAXS 8	/* spines */
#define MAXX 4	/* super-spines */
#define MAXH 2	/* hosts per leaf */

struct model {
	int pods, S, L, X, P, H;	 /* S spines and L leaves per pod; X supers in P planes */
	int ls_down[MAXL + 1][MAXS + 1]; /* leaf l - spine s link down */
	int sx_down[MAXS + 1][MAXX + 1]; /* spine s - super x link down */
};

static int n_leaves(const struct model *m)
{
	return m->pods * m->L;
}

static int n_spines(const struct model *m)
{
	return m->pods * m->S;
}

static int pod_of_leaf(const struct model *m, int l)
{
	return (l - 1) / m->L;
}

static int pod_of_spine(const struct model *m, int s)
{
	return (s - 1) / m->S;
}

static int plane_of_spine(const struct model *m, int s)
{
	return ((s - 1) % m->S) / (m->S / m->P);
}

static int plane_of_super(const struct model *m, int x)
{
	return (x - 1) / (m->X / m->P);
}

/* host numbers: leaf by leaf, from 1 */
static int host_leaf(const struct model *m, int h)
{
	return (h - 1) / m->H + 1;
}

static int host_k(const struct model *m, int h)
{
	return (h - 1) % m->H + 1;
}

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < b->cap - b->n);
	b->n += (size_t)n;
}

static void port_json(struct buf *b, int first, const char *name, const char *peer,
		      const char *peer_port, const char *v4, const char *dir, int speed)
{
	put(b,
	    "%s\"%s\": {\"peer\": \"%s\", \"peer_port\": \"%s\", \"ipv4\": \"%s\", "
	    "\"ipv6\": null, \"speed_mbps\": %s%.0d, \"direction\": \"%s\"}",
	    first ? "" : ", ", name, peer, peer_port, v4, speed ? "" : "null", speed, dir);
}

/* The fabric.json xfab-lab writes for the model (generator form, planes);
 * leaf_speed[l]: leaf l's uplinks in Mb/s (0: none given). */
static char *fabric_json(const struct model *m, const int *leaf_speed)
{
	struct buf b = {.cap = 1 << 20};
	int first_sw = 1;

	b.s = malloc(b.cap);
	assert_non_null(b.s);
	put(&b, "{\"name\": \"t\", \"switches\": {");
	for (int x = 1; x <= m->X; x++) {
		int first = 1;

		put(&b,
		    "%s\"super%d\": {\"role\": \"super\", \"tier\": 3, \"netns\": \"t-super%d\", "
		    "\"pins\": \"/sys/fs/bpf/xfab/t/super%d\", \"ctl\": "
		    "\"/run/xfab/t/super%d.sock\", "
		    "\"ports\": {",
		    first_sw ? "" : ", ", x, x, x, x);
		first_sw = 0;
		for (int s = 1, port = 0; s <= n_spines(m); s++) {
			char name[16], peer[16], pp[16], v4[32];
			int spine_port = m->L;

			if (plane_of_spine(m, s) != plane_of_super(m, x))
				continue;
			for (int y = 1; y < x; y++) /* the spine's ports to its plane's supers */
				spine_port += plane_of_super(m, y) == plane_of_spine(m, s);
			snprintf(name, sizeof(name), "eth%d", ++port);
			snprintf(peer, sizeof(peer), "spine%d", s);
			snprintf(pp, sizeof(pp), "eth%d", spine_port + 1);
			snprintf(v4, sizeof(v4), "10.253.%d.%d/31", x, 2 * s - 2);
			port_json(&b, first, name, peer, pp, v4, "down", 0);
			first = 0;
		}
		put(&b, "}}");
	}
	for (int s = 1; s <= n_spines(m); s++) {
		int p = pod_of_spine(m, s), port = 0;

		put(&b,
		    "%s\"spine%d\": {\"role\": \"spine\", \"tier\": 2, \"netns\": \"t-spine%d\", "
		    "\"pins\": \"/sys/fs/bpf/xfab/t/spine%d\", \"ctl\": "
		    "\"/run/xfab/t/spine%d.sock\", "
		    "\"ports\": {",
		    first_sw ? "" : ", ", s, s, s, s);
		first_sw = 0;
		for (int l = p * m->L + 1; l <= (p + 1) * m->L; l++) {
			char name[16], peer[16], pp[16], v4[32];

			snprintf(name, sizeof(name), "eth%d", ++port);
			snprintf(peer, sizeof(peer), "leaf%d", l);
			snprintf(pp, sizeof(pp), "eth%d", (s - 1) % m->S + 1);
			snprintf(v4, sizeof(v4), "10.254.%d.%d/31", s, 2 * l - 2);
			port_json(&b, port == 1, name, peer, pp, v4, "down",
				  leaf_speed ? leaf_speed[l] : 0);
		}
		for (int x = 1; x <= m->X; x++) {
			char name[16], peer[16], pp[16], v4[32];
			int super_port = 0;

			if (plane_of_super(m, x) != plane_of_spine(m, s))
				continue;
			for (int t = 1; t <= s; t++)
				super_port += plane_of_spine(m, t) == plane_of_super(m, x);
			snprintf(name, sizeof(name), "eth%d", ++port);
			snprintf(peer, sizeof(peer), "super%d", x);
			snprintf(pp, sizeof(pp), "eth%d", super_port);
			snprintf(v4, sizeof(v4), "10.253.%d.%d/31", x, 2 * s - 1);
			port_json(&b, 0, name, peer, pp, v4, "up", 0);
		}
		put(&b, "}}");
	}
	for (int l = 1; l <= n_leaves(m); l++) {
		int p = pod_of_leaf(m, l);

		put(&b,
		    ", \"leaf%d\": {\"role\": \"leaf\", \"tier\": 1, \"netns\": \"t-leaf%d\", "
		    "\"pins\": \"/sys/fs/bpf/xfab/t/leaf%d\", \"ctl\": "
		    "\"/run/xfab/t/leaf%d.sock\", "
		    "\"ports\": {",
		    l, l, l, l);
		for (int j = 1; j <= m->S; j++) {
			char name[16], peer[16], pp[16], v4[32];
			int s = p * m->S + j;

			snprintf(name, sizeof(name), "eth%d", j);
			snprintf(peer, sizeof(peer), "spine%d", s);
			snprintf(pp, sizeof(pp), "eth%d", l - p * m->L);
			snprintf(v4, sizeof(v4), "10.254.%d.%d/31", s, 2 * l - 1);
			port_json(&b, j == 1, name, peer, pp, v4, "up",
				  leaf_speed ? leaf_speed[l] : 0);
		}
		for (int k = 1; k <= m->H; k++) {
			char name[16], peer[16], v4[32];

			snprintf(name, sizeof(name), "eth%d", m->S + k);
			snprintf(peer, sizeof(peer), "h%d", (l - 1) * m->H + k);
			snprintf(v4, sizeof(v4), "10.%d.%d.1/24", l, k);
			port_json(&b, 0, name, peer, "eth0", v4, "down", 0);
		}
		put(&b, "}}");
	}
	put(&b, "}, \"hosts\": {");
	for (int l = 1; l <= n_leaves(m); l++)
		for (int k = 1; k <= m->H; k++)
			put(&b,
			    "%s\"h%d\": {\"leaf\": \"leaf%d\", \"leaf_port\": \"eth%d\", \"port\": "
			    "\"eth0\", \"ipv4\": \"10.%d.%d.2/24\", \"ipv6\": null, \"netns\": "
			    "\"t-h\"}",
			    l == 1 && k == 1 ? "" : ", ", (l - 1) * m->H + k, l, m->S + k, l, k);
	put(&b, "}, \"links\": []}");
	return b.s;
}

static struct xfab_te_fabric *build(const struct model *m, const int *leaf_speed)
{
	char *text = fabric_json(m, leaf_speed), err[512];
	struct xfab_te_fabric *f = xfab_te_fabric_parse(text, err, sizeof(err));

	if (!f)
		fail_msg("the model's fabric refused: %s", err);
	free(text);
	/* the model's failed links, set on the lower end's port */
	for (int l = 1; l <= n_leaves(m); l++)
		for (int s = 1; s <= n_spines(m); s++) {
			char sw[16], port[16];

			if (!m->ls_down[l][s])
				continue;
			snprintf(sw, sizeof(sw), "leaf%d", l);
			snprintf(port, sizeof(port), "eth%d", (s - 1) % m->S + 1);
			xfab_te_set_port(f, xfab_te_switch_index(f, sw),
					 xfab_te_port_index(f, xfab_te_switch_index(f, sw), port),
					 0);
		}
	for (int s = 1; s <= n_spines(m); s++)
		for (int x = 1; x <= m->X; x++) {
			char sw[16];
			int si, port = m->L;

			if (!m->sx_down[s][x])
				continue;
			snprintf(sw, sizeof(sw), "spine%d", s);
			si = xfab_te_switch_index(f, sw);
			for (int y = 1; y <= x; y++)
				port += plane_of_super(m, y) == plane_of_spine(m, s);
			snprintf(sw, sizeof(sw), "eth%d", port);
			xfab_te_set_port(f, si, xfab_te_port_index(f, si, sw), 0);
		}
	return f;
}

/* ---- the oracle: every assignment, by brute force ---- */

struct opair {
	int src, dst; /* host numbers */
	uint64_t bytes;
};

/* One path in the model's terms: spines s1 (source pod), x (0: none), s2. */
struct opath {
	int s1, x, s2;
};

struct oracle {
	const struct model *m;
	const struct opair *p;
	int n;
	double ls_up[MAXL + 1][MAXS + 1], ls_dn[MAXL + 1][MAXS + 1];
	double sx_up[MAXS + 1][MAXX + 1], sx_dn[MAXS + 1][MAXX + 1];
	/* the 3-tier pins' consistency: (spine, from leaf, to host) -> super,
	 * (super, from spine, to host) -> spine; with use counts */
	int spine_pin[MAXS + 1][MAXL + 1][MAXL * MAXH + 1],
	    spine_use[MAXS + 1][MAXL + 1][MAXL * MAXH + 1];
	int super_pin[MAXX + 1][MAXS + 1][MAXL * MAXH + 1],
	    super_use[MAXX + 1][MAXS + 1][MAXL * MAXH + 1];
	double best;
	int feasible;
};

/* Every live path of pair i in the model, in any order. */
static int opaths(const struct model *m, const struct opair *pr, struct opath *out)
{
	int a = host_leaf(m, pr->src), b = host_leaf(m, pr->dst), n = 0;
	int pa = pod_of_leaf(m, a), pb = pod_of_leaf(m, b);

	if (a == b)
		return 0;
	for (int j1 = 1; j1 <= m->S; j1++) {
		int s1 = pa * m->S + j1;

		if (m->ls_down[a][s1])
			continue;
		if (pa == pb) {
			if (!m->ls_down[b][s1])
				out[n++] = (struct opath){s1, 0, 0};
			continue;
		}
		for (int x = 1; x <= m->X; x++) {
			if (plane_of_super(m, x) != plane_of_spine(m, s1) || m->sx_down[s1][x])
				continue;
			for (int j2 = 1; j2 <= m->S; j2++) {
				int s2 = pb * m->S + j2;

				if (plane_of_spine(m, s2) != plane_of_super(m, x) ||
				    m->sx_down[s2][x] || m->ls_down[b][s2])
					continue;
				out[n++] = (struct opath){s1, x, s2};
			}
		}
	}
	return n;
}

static double omax(const struct oracle *o)
{
	double mx = 0;

	for (int l = 1; l <= MAXL; l++)
		for (int s = 1; s <= MAXS; s++) {
			mx = o->ls_up[l][s] > mx ? o->ls_up[l][s] : mx;
			mx = o->ls_dn[l][s] > mx ? o->ls_dn[l][s] : mx;
		}
	for (int s = 1; s <= MAXS; s++)
		for (int x = 1; x <= MAXX; x++) {
			mx = o->sx_up[s][x] > mx ? o->sx_up[s][x] : mx;
			mx = o->sx_dn[s][x] > mx ? o->sx_dn[s][x] : mx;
		}
	return mx;
}

static void oadd(struct oracle *o, const struct opair *pr, const struct opath *q, double sign)
{
	const struct model *m = o->m;
	int a = host_leaf(m, pr->src), b = host_leaf(m, pr->dst);
	double d = sign * (double)pr->bytes;

	o->ls_up[a][q->s1] += d;
	if (!q->x) {
		o->ls_dn[b][q->s1] += d;
		return;
	}
	o->sx_up[q->s1][q->x] += d;
	o->sx_dn[q->s2][q->x] += d;
	o->ls_dn[b][q->s2] += d;
}

static void osearch(struct oracle *o, int i)
{
	const struct model *m = o->m;
	struct opath paths[MAXS * MAXX * MAXS];
	int n, a, placed = 0;

	if (o->feasible && omax(o) >= o->best)
		return; /* loads only grow: no better leaf below */
	if (i == o->n) {
		o->best = omax(o);
		o->feasible = 1;
		return;
	}
	n = opaths(m, &o->p[i], paths);
	a = host_leaf(m, o->p[i].src);
	for (int k = 0; k < n; k++) {
		const struct opath *q = &paths[k];
		int d = o->p[i].dst;
		int sp_choice = m->X / m->P > 1, su_choice = m->S / m->P > 1;

		if (q->x) {
			if (sp_choice && o->spine_use[q->s1][a][d] &&
			    o->spine_pin[q->s1][a][d] != q->x)
				continue;
			if (su_choice && o->super_use[q->x][q->s1][d] &&
			    o->super_pin[q->x][q->s1][d] != q->s2)
				continue;
			o->spine_pin[q->s1][a][d] = q->x;
			o->spine_use[q->s1][a][d]++;
			o->super_pin[q->x][q->s1][d] = q->s2;
			o->super_use[q->x][q->s1][d]++;
		}
		placed = 1;
		oadd(o, &o->p[i], q, 1);
		osearch(o, i + 1);
		oadd(o, &o->p[i], q, -1);
		if (q->x) {
			o->spine_use[q->s1][a][d]--;
			o->super_use[q->x][q->s1][d]--;
		}
	}
	if (!placed)
		osearch(o, i + 1); /* no live path (or the same leaf): not placed */
}

static double optimum(const struct model *m, const struct opair *p, int n)
{
	struct oracle *o = calloc(1, sizeof(*o));
	double best;

	assert_non_null(o);
	o->m = m;
	o->p = p;
	o->n = n;
	osearch(o, 0);
	assert_true(o->feasible);
	best = o->best;
	free(o);
	return best;
}

/* ---- reading a plan back through the model ---- */

static int num_after(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	assert_memory_equal(name, prefix, n);
	return atoi(name + n);
}

/* The plan's pair for hosts (src, dst). */
static const struct xfab_te_pair *plan_pair(const struct xfab_te_fabric *f,
					    const struct xfab_te_plan *plan, int src, int dst)
{
	char s[16], d[16];
	int si, di;

	snprintf(s, sizeof(s), "h%d", src);
	snprintf(d, sizeof(d), "h%d", dst);
	si = xfab_te_host_index(f, s);
	di = xfab_te_host_index(f, d);
	for (size_t i = 0; i < plan->n_pairs; i++)
		if (plan->pairs[i].src == si && plan->pairs[i].dst == di)
			return &plan->pairs[i];
	fail_msg("no pair h%d -> h%d in the plan", src, dst);
	return NULL;
}

/* A placed pair's path in model terms, from the switch names. */
static struct opath pair_path(const struct xfab_te_fabric *f, const struct xfab_te_pair *pr)
{
	struct opath q = {0, 0, 0};

	assert_int_equal(pr->state, XFAB_TE_PLACED);
	if (pr->n_hops == 3) {
		q.s1 = num_after(f->sw[pr->sw[1]].name, "spine");
	} else {
		assert_int_equal(pr->n_hops, 5);
		q.s1 = num_after(f->sw[pr->sw[1]].name, "spine");
		q.x = num_after(f->sw[pr->sw[2]].name, "super");
		q.s2 = num_after(f->sw[pr->sw[3]].name, "spine");
	}
	return q;
}

/* The plan's pin at (switch, ingress port, prefix); NULL when none. */
static const struct xfab_te_pin *find_pin(const struct xfab_te_fabric *f,
					  const struct xfab_te_plan *plan, const char *sw,
					  const char *in, const char *prefix)
{
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		char pfx[32], a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &p->prefix, a, sizeof(a));
		snprintf(pfx, sizeof(pfx), "%s/%d", a, p->plen);
		if (!strcmp(f->sw[p->sw].name, sw) && !strcmp(f->sw[p->sw].ports[p->in].name, in) &&
		    !strcmp(pfx, prefix))
			return p;
	}
	return NULL;
}

static void via_str(const struct xfab_te_pin *p, char *buf, size_t len)
{
	inet_ntop(AF_INET, &p->via, buf, (socklen_t)len);
}

/* Follows the pins from the pair's source through the model's address
 * plan and checks they lead down the pair's planned path q; every hop
 * with a choice must have a pin, no other hop may. */
static void follow_pins(const struct model *m, const struct xfab_te_fabric *f,
			const struct xfab_te_plan *plan, const struct opair *pr,
			const struct opath *q)
{
	int a = host_leaf(m, pr->src), b = host_leaf(m, pr->dst);
	char sw[16], in[16], prefix[32], via[32], want[32];
	const struct xfab_te_pin *pin;
	int s1, x, s2;

	snprintf(prefix, sizeof(prefix), "10.%d.%d.0/24", b, host_k(m, pr->dst));
	/* the source leaf: keyed by the host's port, via spine s1's address */
	snprintf(sw, sizeof(sw), "leaf%d", a);
	snprintf(in, sizeof(in), "eth%d", m->S + host_k(m, pr->src));
	pin = find_pin(f, plan, sw, in, prefix);
	if (m->S > 1) {
		assert_non_null(pin);
		via_str(pin, via, sizeof(via));
		/* 10.254.s.(2a - 2) is spine s's end of the leaf a link */
		assert_int_equal(sscanf(via, "10.254.%d.", &s1), 1);
		snprintf(want, sizeof(want), "10.254.%d.%d", s1, 2 * a - 2);
		assert_string_equal(via, want);
	} else {
		assert_null(pin);
		s1 = pod_of_leaf(m, a) * m->S + 1;
	}
	assert_int_equal(s1, q->s1);
	/* at spine s1, entering from leaf a */
	snprintf(sw, sizeof(sw), "spine%d", s1);
	snprintf(in, sizeof(in), "eth%d", a - pod_of_leaf(m, a) * m->L);
	pin = find_pin(f, plan, sw, in, prefix);
	if (!q->x) {
		assert_null(pin); /* straight down: no choice */
		assert_int_equal(pod_of_leaf(m, a), pod_of_leaf(m, b));
		return;
	}
	if (m->X / m->P > 1) {
		assert_non_null(pin);
		via_str(pin, via, sizeof(via));
		assert_int_equal(sscanf(via, "10.253.%d.", &x), 1);
		snprintf(want, sizeof(want), "10.253.%d.%d", x, 2 * s1 - 2);
		assert_string_equal(via, want);
	} else {
		assert_null(pin);
		x = plane_of_spine(m, s1) * (m->X / m->P) + 1;
	}
	assert_int_equal(x, q->x);
	/* at super x, entering from spine s1 (its port among its plane's) */
	{
		int port = 0;

		for (int t = 1; t <= s1; t++)
			port += plane_of_spine(m, t) == plane_of_super(m, x);
		snprintf(sw, sizeof(sw), "super%d", x);
		snprintf(in, sizeof(in), "eth%d", port);
	}
	pin = find_pin(f, plan, sw, in, prefix);
	if (m->S / m->P > 1) {
		assert_non_null(pin);
		via_str(pin, via, sizeof(via));
		assert_int_equal(sscanf(via, "10.253.%d.%d", &x, &s2), 2);
		assert_int_equal(x, q->x);
		assert_int_equal(s2 % 2, 1);
		s2 = (s2 + 1) / 2;
	} else {
		assert_null(pin);
		s2 = pod_of_leaf(m, b) * m->S + plane_of_super(m, x) * (m->S / m->P) + 1;
	}
	assert_int_equal(s2, q->s2);
	assert_int_equal(pod_of_spine(m, s2), pod_of_leaf(m, b));
}

/* Recounts the plan's loads from its pairs' paths (in the model) and
 * checks the plan's figures, the pins, and that no path crosses a link
 * that is down; returns the plan's max load. */
static double check_plan(const struct model *m, const struct xfab_te_fabric *f,
			 const struct xfab_te_plan *plan, const struct opair *p, int n)
{
	struct oracle *o = calloc(1, sizeof(*o));
	struct opath paths[MAXS * MAXX * MAXS];
	int placed = 0, pins = 0;
	double mx;

	assert_non_null(o);
	o->m = m;
	for (int i = 0; i < n; i++) {
		const struct xfab_te_pair *pr = plan_pair(f, plan, p[i].src, p[i].dst);
		int live = opaths(m, &p[i], paths);
		struct opath q;
		int found = 0;

		if (host_leaf(m, p[i].src) == host_leaf(m, p[i].dst)) {
			assert_int_equal(pr->state, XFAB_TE_SAME_LEAF);
			continue;
		}
		/* placed exactly when the model has a live path for it */
		assert_int_equal(pr->state, live ? XFAB_TE_PLACED : XFAB_TE_NO_PATH);
		assert_int_equal(pr->candidates, live);
		if (!live)
			continue;
		q = pair_path(f, pr);
		for (int k = 0; k < live && !found; k++)
			found = paths[k].s1 == q.s1 && paths[k].x == q.x && paths[k].s2 == q.s2;
		if (!found)
			fail_msg("h%d -> h%d: path s%d x%d s%d is not a live path", p[i].src,
				 p[i].dst, q.s1, q.x, q.s2);
		oadd(o, &p[i], &q, 1);
		follow_pins(m, f, plan, &p[i], &q);
		placed++;
	}
	assert_int_equal(plan->placed, placed);
	mx = omax(o);
	free(o);
	if (plan->max_load < mx - 1e-6 || plan->max_load > mx + 1e-6)
		fail_msg("the plan says max load %.1f, its paths carry %.1f", plan->max_load, mx);
	/* no two pins with one key; pins only where the model has a choice */
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *x = &plan->pins[i];

		for (size_t j = i + 1; j < plan->n_pins; j++) {
			const struct xfab_te_pin *y = &plan->pins[j];

			assert_false(x->sw == y->sw && x->in == y->in &&
				     x->prefix.s_addr == y->prefix.s_addr && x->plen == y->plen);
		}
		pins += x->pairs;
	}
	assert_true(pins >= placed || m->S == 1);
	return plan->max_load;
}

/* ---- instances ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int rnd_in(int lo, int hi)
{
	return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

/* n distinct random pairs of hosts on different leaves. */
static int random_pairs(const struct model *m, struct opair *p, int n, int max_bytes)
{
	int hosts = n_leaves(m) * m->H, got = 0;

	for (int tries = 0; got < n && tries < 1000; tries++) {
		int s = rnd_in(1, hosts), d = rnd_in(1, hosts), dup = 0;

		if (host_leaf(m, s) == host_leaf(m, d))
			continue;
		for (int i = 0; i < got; i++)
			dup |= p[i].src == s && p[i].dst == d;
		if (dup)
			continue;
		p[got++] = (struct opair){s, d, (uint64_t)rnd_in(1, max_bytes)};
	}
	return got;
}

static void demands_of(const struct xfab_te_fabric *f, const struct opair *p, int n,
		       struct xfab_te_demands *dm)
{
	xfab_te_demands_init(dm);
	for (int i = 0; i < n; i++) {
		char s[16], d[16];

		snprintf(s, sizeof(s), "h%d", p[i].src);
		snprintf(d, sizeof(d), "h%d", p[i].dst);
		assert_int_equal(xfab_te_demand_add(dm, xfab_te_host_index(f, s),
						    xfab_te_host_index(f, d), p[i].bytes),
				 0);
	}
}

/* Plans p on the model; returns (greedy max, optimum). */
static void run(const struct model *m, const struct opair *p, int n, double *greedy, double *opt)
{
	struct xfab_te_fabric *f = build(m, NULL);
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	char err[256];

	demands_of(f, p, n, &dm);
	if (xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)))
		fail_msg("plan: %s", err);
	*greedy = check_plan(m, f, &plan, p, n);
	*opt = optimum(m, p, n);
	if (*greedy < *opt - 1e-6)
		fail_msg("greedy %.1f below the optimum %.1f: the oracle or the plan is wrong",
			 *greedy, *opt);
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

/* ---- tests ---- */

/* A plan worked out by hand on clos-2x4's shape: the paths, the loads and
 * the three pins, written out. */
static void test_hand_plan(void **state)
{
	struct model m = {.pods = 1, .S = 2, .L = 4, .H = 2, .P = 1};
	/* h1 -> h3 (3), h2 -> h4 (2), h1 -> h5 (1): h1 -> h3 takes spine1
	 * (a tie, the first); h2 -> h4 spine2 (leaf1>spine1 would carry 5);
	 * h1 -> h5 spine2 (3 against 4) */
	struct opair p[] = {{1, 5, 1}, {2, 4, 2}, {1, 3, 3}};
	static const char *const want[][4] = {
	    {"leaf1", "eth3", "10.2.1.0/24", "10.254.1.0"},
	    {"leaf1", "eth3", "10.3.1.0/24", "10.254.2.0"},
	    {"leaf1", "eth4", "10.2.2.0/24", "10.254.2.0"},
	};
	struct xfab_te_fabric *f = build(&m, NULL);
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	char err[256], name[64];

	(void)state;
	demands_of(f, p, 3, &dm);
	assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.n_pins, 3);
	for (int i = 0; i < 3; i++) {
		const struct xfab_te_pin *pin = &plan.pins[i]; /* sorted by switch, port, prefix */
		char pfx[32], a[INET_ADDRSTRLEN], via[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &pin->prefix, a, sizeof(a));
		snprintf(pfx, sizeof(pfx), "%s/%d", a, pin->plen);
		inet_ntop(AF_INET, &pin->via, via, sizeof(via));
		assert_string_equal(f->sw[pin->sw].name, want[i][0]);
		assert_string_equal(f->sw[pin->sw].ports[pin->in].name, want[i][1]);
		assert_string_equal(pfx, want[i][2]);
		assert_string_equal(via, want[i][3]);
		assert_int_equal(pin->pairs, 1);
	}
	/* placement order: largest first */
	assert_int_equal(plan.pairs[0].bytes, 3);
	assert_int_equal(plan.pairs[2].bytes, 1);
	assert_true(plan.max_load == 3.0);
	xfab_te_dlink_name(f, plan.max_dlink, name, sizeof(name));
	assert_string_equal(name, "leaf1:eth1>spine1"); /* the first of the two at 3 */
	assert_int_equal(plan.placed, 3);
	check_plan(&m, f, &plan, p, 3);
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

/* The greedy choice itself, where the moves after it cannot hide it (the
 * most loaded link is elsewhere and carries one pair that cannot move),
 * worked by hand on clos-2x4's shape (hN on leaf (N + 1) / 2):
 *   h5 -> h7 (20): spine1 (a tie, the first): 20 on leaf3>spine1>leaf4;
 *   h6 -> h3 (6): spine2 (spine1 would put 26 on leaf3>spine1);
 *   h1 -> h3 (4): spine1 (4 and 4; spine2 would put 10 into leaf2);
 *   h2 -> h4 (1): spine1 puts 5 and 5, spine2 1 and 7: spine1, whose most
 *   loaded link is lower though its links' sum (10) is higher (8). */
static void test_greedy_choice(void **state)
{
	struct model m = {.pods = 1, .S = 2, .L = 4, .H = 2, .P = 1};
	struct opair p[] = {{2, 4, 1}, {1, 3, 4}, {6, 3, 6}, {5, 7, 20}};
	static const struct {
		int src, dst;
		const char *spine;
	} want[] = {{5, 7, "spine1"}, {6, 3, "spine2"}, {1, 3, "spine1"}, {2, 4, "spine1"}};
	struct xfab_te_fabric *f = build(&m, NULL);
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	char err[256];

	(void)state;
	demands_of(f, p, 4, &dm);
	assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct xfab_te_pair *pr = plan_pair(f, &plan, want[i].src, want[i].dst);

		assert_int_equal(pr->state, XFAB_TE_PLACED);
		if (strcmp(f->sw[pr->sw[1]].name, want[i].spine))
			fail_msg("h%d -> h%d by %s, want %s", want[i].src, want[i].dst,
				 f->sw[pr->sw[1]].name, want[i].spine);
	}
	assert_true(plan.max_load == 20.0);
	check_plan(&m, f, &plan, p, 4);
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

/* Random 2-tier instances against the brute force: never below the
 * optimum, never above (3 - 2/S) x the optimum. */
static void test_two_tier_vs_bruteforce(void **state)
{
	int equal = 0, total = 0;
	double worst = 1;

	(void)state;
	rng_state = 20261124;
	for (int t = 0; t < 400; t++) {
		struct model m = {.pods = 1, .S = rnd_in(2, 4), .L = rnd_in(2, 4), .H = 2, .P = 1};
		struct opair p[8] = {{0}};
		int n = random_pairs(&m, p, rnd_in(2, m.S == 4 ? 7 : 8), rnd_in(1, 3) == 1 ? 1 : 9);
		double g, o;

		run(&m, p, n, &g, &o);
		if (g > (3.0 - 2.0 / m.S) * o + 1e-6)
			fail_msg("instance %d: greedy %.1f above the bound (3 - 2/%d) x %.1f", t, g,
				 m.S, o);
		equal += g < o + 1e-6;
		worst = g / o > worst ? g / o : worst;
		total++;
		if (getenv("TE_DEBUG") && g > o + 1e-6) {
			print_message("S %d L %d: greedy %.0f opt %.0f:", m.S, m.L, g, o);
			for (int i = 0; i < n; i++)
				print_message(" h%d(l%d)->h%d(l%d):%llu", p[i].src,
					      host_leaf(&m, p[i].src), p[i].dst,
					      host_leaf(&m, p[i].dst),
					      (unsigned long long)p[i].bytes);
			print_message("\n");
		}
	}
	print_message("2-tier: greedy optimal in %d of %d instances, worst ratio %.3f\n", equal,
		      total, worst);
}

/* Where greedy is provably optimal, it equals the brute force. */
static void test_two_tier_optimal_cases(void **state)
{
	(void)state;
	rng_state = 77;
	for (int t = 0; t < 300; t++) {
		struct model m = {.pods = 1, .S = rnd_in(2, 4), .L = rnd_in(3, 5), .H = 2, .P = 1};
		struct opair p[8] = {{0}};
		int n = 0, kind = t % 3, a = rnd_in(1, m.L);
		double g, o;

		if (kind == 0) { /* one source leaf, equal demands */
			for (int tries = 0; n < 6 && tries < 100; tries++) {
				int s = (a - 1) * m.H + rnd_in(1, m.H), d = rnd_in(1, m.L * m.H),
				    dup = 0;

				if (host_leaf(&m, d) == a)
					continue;
				for (int i = 0; i < n; i++)
					dup |= p[i].src == s && p[i].dst == d;
				if (!dup)
					p[n++] = (struct opair){s, d, 5};
			}
		} else if (kind == 1) { /* one source leaf, distinct leaves, <= S + 1 pairs */
			for (int b = 1; b <= m.L && n < m.S + 1; b++)
				if (b != a)
					p[n++] = (struct opair){(a - 1) * m.H + rnd_in(1, m.H),
								(b - 1) * m.H + rnd_in(1, m.H),
								(uint64_t)rnd_in(1, 20)};
		} else { /* each leaf sends one pair and receives one */
			for (int l = 1; l <= m.L; l++) {
				int b = l % m.L + 1;

				p[n++] = (struct opair){(l - 1) * m.H + rnd_in(1, m.H),
							(b - 1) * m.H + rnd_in(1, m.H),
							(uint64_t)rnd_in(1, 20)};
			}
		}
		run(&m, p, n, &g, &o);
		if (g > o + 1e-6)
			fail_msg("case %d (kind %d, S %d): greedy %.1f, optimum %.1f", t, kind, m.S,
				 g, o);
	}
}

/* Instances where the greedy pass alone ends above the optimum and the
 * single moves after it reach the optimum (the values from the brute
 * force, and worked by hand for the first: greedy puts h3 -> h6 with
 * h6 -> h4 on leaf3's uplink to spine1 (11), moving h6 -> h4 to spine2
 * leaves 6 everywhere). */
static void test_moves_after_greedy(void **state)
{
	static const struct {
		int S, L;
		struct opair p[8];
		int n;
		double opt;
	} cases[] = {
	    {2, 4, {{6, 4, 5}, {4, 2, 5}, {3, 6, 6}, {6, 2, 3}}, 4, 6},
	    {3, 3, {{3, 2, 1}, {4, 1, 1}, {6, 4, 1}, {5, 1, 1}, {6, 3, 1}, {2, 3, 1}}, 6, 1},
	    {3,
	     4,
	     {{2, 8, 9}, {7, 6, 8}, {8, 3, 2}, {1, 6, 9}, {4, 1, 9}, {4, 8, 9}, {3, 6, 3}},
	     7,
	     9},
	    /* two moves or more (one alone ends at 12 and 5) */
	    {2, 4, {{7, 3, 9}, {4, 1, 1}, {6, 8, 9}, {3, 7, 9}, {6, 4, 7}, {8, 3, 3}}, 6, 10},
	    {2,
	     4,
	     {{5, 8, 2}, {7, 6, 3}, {7, 1, 3}, {3, 6, 3}, {5, 1, 3}, {4, 2, 1}, {4, 5, 1}},
	     7,
	     4},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model m = {.pods = 1, .S = cases[i].S, .L = cases[i].L, .H = 2, .P = 1};
		double g, o;

		run(&m, cases[i].p, cases[i].n, &g, &o);
		assert_true(o == cases[i].opt);
		if (g != o)
			fail_msg("case %zu: plan %.0f, optimum %.0f", i, g, o);
	}
}

/* Links down: never used; the optimum over what is left is never beaten;
 * a pair whose every path is down is left to ECMP with no pin. */
static void test_failed_links(void **state)
{
	(void)state;
	rng_state = 4242;
	for (int t = 0; t < 200; t++) {
		struct model m = {.pods = 1, .S = rnd_in(2, 3), .L = rnd_in(2, 4), .H = 2, .P = 1};
		struct opair p[8] = {{0}};
		int n = random_pairs(&m, p, rnd_in(2, 6), 9);
		double g, o;

		for (int l = 1; l <= m.L; l++)
			for (int s = 1; s <= m.S; s++)
				m.ls_down[l][s] = rnd_in(1, 100) <= 25;
		run(&m, p, n, &g, &o); /* check_plan: no down link, placed iff live */
	}
	/* by hand: leaf1's uplink to spine1 down moves everything to spine2 */
	{
		struct model m = {.pods = 1, .S = 2, .L = 4, .H = 2, .P = 1};
		struct opair p[] = {{1, 3, 3}, {2, 4, 2}, {1, 5, 1}};
		struct xfab_te_fabric *f;
		struct xfab_te_demands dm;
		struct xfab_te_plan plan;
		char err[256];
		int leaf1;

		m.ls_down[1][1] = 1;
		f = build(&m, NULL);
		demands_of(f, p, 3, &dm);
		assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
		assert_int_equal(plan.n_pins, 3);
		for (size_t i = 0; i < plan.n_pins; i++)
			assert_int_equal(plan.pins[i].via.s_addr, inet_addr("10.254.2.0"));
		assert_true(plan.max_load == 6.0);
		xfab_te_plan_free(&plan);
		/* and its uplink to spine2 too: nothing left, no pin */
		leaf1 = xfab_te_switch_index(f, "leaf1");
		xfab_te_set_port(f, leaf1, xfab_te_port_index(f, leaf1, "eth2"), 0);
		assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
		assert_int_equal(plan.n_pins, 0);
		assert_int_equal(plan.no_path, 3);
		assert_int_equal(plan.placed, 0);
		assert_int_equal(plan.max_dlink, -1);
		xfab_te_plan_free(&plan);
		/* back up: spine1 again for the first */
		xfab_te_set_port(f, leaf1, xfab_te_port_index(f, leaf1, "eth1"), 1);
		xfab_te_set_port(f, leaf1, xfab_te_port_index(f, leaf1, "eth2"), 1);
		assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
		assert_int_equal(plan.pairs[0].sw[1], xfab_te_switch_index(f, "spine1"));
		/* a remote failure: spine1's port to leaf2 (the downlink) */
		xfab_te_plan_free(&plan);
		{
			int sp = xfab_te_switch_index(f, "spine1");

			xfab_te_set_port(f, sp, xfab_te_port_index(f, sp, "eth2"), 0);
		}
		assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
		for (size_t i = 0; i < plan.n_pairs; i++)
			if (plan.pairs[i].dst == xfab_te_host_index(f, "h3") ||
			    plan.pairs[i].dst == xfab_te_host_index(f, "h4"))
				assert_int_equal(plan.pairs[i].sw[1],
						 xfab_te_switch_index(f, "spine2"));
		xfab_te_plan_free(&plan);
		xfab_te_demands_free(&dm);
		xfab_te_fabric_free(f);
	}
}

/* 3-tier fabrics (pods under super-spines, planes): the pins at the
 * spines and super-spines send every pair down its own path, pairs that
 * share a pin agree, and the plan never beats the constrained optimum. */
static void test_three_tier(void **state)
{
	static const int shapes[][4] = {
	    /* S, L, X, P */
	    {2, 2, 2, 1},
	    {2, 2, 4, 2},
	    {2, 3, 2, 2},
	    {2, 2, 2, 2},
	};
	int equal = 0, total = 0, spine_pins = 0, super_pins = 0;
	double worst = 1;

	(void)state;
	rng_state = 31337;
	for (int t = 0; t < 160; t++) {
		const int *sh = shapes[t % 4];
		struct model m = {
		    .pods = 2, .S = sh[0], .L = sh[1], .X = sh[2], .P = sh[3], .H = 2};
		struct opair p[8] = {{0}};
		int n = random_pairs(&m, p, rnd_in(2, 5), rnd_in(1, 2) == 1 ? 1 : 9);
		double g, o;

		if (t % 5 == 4) /* and a failed link or two */
			for (int k = 0; k < 2; k++) {
				int s = rnd_in(1, n_spines(&m)), x = rnd_in(1, m.X);

				if (plane_of_super(&m, x) == plane_of_spine(&m, s))
					m.sx_down[s][x] = 1;
			}
		run(&m, p, n, &g, &o);
		equal += g < o + 1e-6;
		worst = g / o > worst ? g / o : worst;
		total++;
	}
	/* pairs that share a spine pin: every host of leaf1 to h9 (pod 2)
	 * through one spine must take one super-spine */
	{
		struct model m = {.pods = 2, .S = 2, .L = 2, .X = 2, .P = 1, .H = 2};
		struct opair p[] = {{1, 5, 4}, {2, 5, 4}, {3, 5, 4}, {4, 5, 4}, {1, 6, 4}};
		struct xfab_te_fabric *f = build(&m, NULL);
		struct xfab_te_demands dm;
		struct xfab_te_plan plan;
		char err[256];

		demands_of(f, p, 5, &dm);
		assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
		check_plan(&m, f, &plan, p, 5);
		for (size_t i = 0; i < plan.n_pins; i++) {
			spine_pins += f->sw[plan.pins[i].sw].tier == 2;
			super_pins += f->sw[plan.pins[i].sw].tier == 3;
		}
		assert_true(spine_pins > 0 && super_pins > 0);
		/* h1 and h2 to h5 both leave leaf1; if they cross one spine they
		 * take one super-spine (one pin serves both) */
		{
			const struct xfab_te_pair *x = plan_pair(f, &plan, 1, 5),
						  *y = plan_pair(f, &plan, 2, 5);

			if (x->sw[1] == y->sw[1])
				assert_int_equal(x->sw[2], y->sw[2]);
		}
		xfab_te_plan_free(&plan);
		xfab_te_demands_free(&dm);
		xfab_te_fabric_free(f);
	}
	print_message("3-tier: greedy optimal in %d of %d instances, worst ratio %.3f\n", equal,
		      total, worst);
	assert_true(worst <= 2.0); /* no proven bound with shared pins: a regression guard */
}

/* The same demand in any order gives the same plan. */
static void test_deterministic(void **state)
{
	struct model m = {.pods = 1, .S = 3, .L = 4, .H = 2, .P = 1};
	struct opair p[8] = {{0}}, q[8] = {{0}};
	struct xfab_te_fabric *f = build(&m, NULL);
	struct xfab_te_demands d1, d2;
	struct xfab_te_plan a, b;
	char err[256];
	int n;

	(void)state;
	rng_state = 5;
	n = random_pairs(&m, p, 8, 2); /* many ties */
	for (int i = 0; i < n; i++)
		q[i] = p[n - 1 - i];
	demands_of(f, p, n, &d1);
	demands_of(f, q, n, &d2);
	assert_int_equal(xfab_te_plan_compute(f, &d1, &a, err, sizeof(err)), 0);
	assert_int_equal(xfab_te_plan_compute(f, &d2, &b, err, sizeof(err)), 0);
	assert_true(xfab_te_pins_equal(&a, &b));
	assert_true(a.max_load == b.max_load);
	for (size_t i = 0; i < a.n_pairs; i++)
		assert_memory_equal(a.pairs[i].sw, b.pairs[i].sw, sizeof(a.pairs[i].sw));
	/* one pin moved is another plan */
	a.pins[0].via.s_addr ^= htonl(1);
	assert_false(xfab_te_pins_equal(&a, &b));
	xfab_te_plan_free(&a);
	xfab_te_plan_free(&b);
	xfab_te_demands_free(&d1);
	xfab_te_demands_free(&d2);
	xfab_te_fabric_free(f);
}

/* Link speeds: bytes on a link count at the fastest link's speed. */
static void test_speeds(void **state)
{
	struct model m = {.pods = 1, .S = 2, .L = 2, .H = 2, .P = 1};
	int speed[MAXL + 1] = {0, 100000, 400000}; /* leaf1's links 100G, leaf2's 400G */
	struct opair p[] = {{3, 1, 8}, {4, 2, 8}}; /* leaf2 -> leaf1 */
	struct xfab_te_fabric *f = build(&m, speed);
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	char err[256], name[64];

	(void)state;
	demands_of(f, p, 2, &dm);
	assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
	/* one pair per spine; the 100G downlinks to leaf1 carry 8 x 4 */
	assert_int_not_equal(plan.pairs[0].sw[1], plan.pairs[1].sw[1]);
	assert_true(plan.max_load == 32.0);
	xfab_te_dlink_name(f, plan.max_dlink, name, sizeof(name));
	assert_string_equal(name, "spine1:eth1>leaf1");
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

/* ---- input ---- */

static char *slurp_cmd(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 20, n;
	char *s = malloc(cap);

	assert_non_null(p);
	assert_non_null(s);
	n = fread(s, 1, cap - 1, p);
	s[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return s;
}

/* The repository: two levels above this binary (build/test_te). */
static void repo_root(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = '\0';
	for (int i = 0; i < 2 && (slash = strrchr(exe, '/')); i++)
		*slash = '\0';
	snprintf(buf, len, "%s", exe);
}

/* xfab-lab's own fabric.json of the shipped topologies. */
static void test_lab_fabrics(void **state)
{
	char root[PATH_MAX], cmd[PATH_MAX + 128], err[256], *text;
	struct xfab_te_fabric *f;
	int leaf1, h8, gpu;

	(void)state;
	repo_root(root, sizeof(root));
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/scripts/xfab-lab config %s/testbeds/clos-2x4.json fabric",
		 root, root);
	text = slurp_cmd(cmd);
	f = xfab_te_fabric_parse(text, err, sizeof(err));
	free(text);
	if (!f)
		fail_msg("clos-2x4: %s", err);
	assert_int_equal(f->n_switches, 6);
	assert_int_equal(f->n_hosts, 8);
	assert_int_equal(f->n_links, 8);
	leaf1 = xfab_te_switch_index(f, "leaf1");
	assert_int_equal(f->sw[leaf1].tier, 1);
	assert_string_equal(f->sw[leaf1].ctl, "/run/xfab/clos/leaf1.sock");
	assert_string_equal(f->sw[leaf1].netns, "clos-leaf1");
	assert_true(f->sw[leaf1].ports[0].up);
	assert_string_equal(f->sw[f->sw[leaf1].ports[0].peer_sw].name, "spine1");
	h8 = xfab_te_host_index(f, "h8");
	assert_int_equal(xfab_te_host_index(f, "10.4.2.2"), h8);
	assert_string_equal(f->sw[f->hosts[h8].leaf].name, "leaf4");
	assert_string_equal(f->sw[f->hosts[h8].leaf].ports[f->hosts[h8].leaf_port].name, "eth4");
	assert_int_equal(f->hosts[h8].net.s_addr, inet_addr("10.4.2.0"));
	assert_int_equal(f->hosts[h8].plen, 24);
	xfab_te_fabric_free(f);

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/scripts/xfab-lab config %s/testbeds/clos-3tier.json fabric",
		 root, root);
	text = slurp_cmd(cmd);
	f = xfab_te_fabric_parse(text, err, sizeof(err));
	free(text);
	if (!f)
		fail_msg("clos-3tier: %s", err);
	assert_int_equal(f->n_switches, 14);
	assert_int_equal(f->n_hosts, 16);
	assert_int_equal(f->n_links, 2 * 2 * 4 + 4 * 2);
	for (int l = 0; l < f->n_links; l++)
		assert_true(f->links[l].scale == 1.0); /* 100G everywhere */
	xfab_te_fabric_free(f);

	snprintf(
	    cmd, sizeof(cmd),
	    "/usr/bin/python3 %s/scripts/xfab-lab config %s/testbeds/explicit-small.json fabric",
	    root, root);
	text = slurp_cmd(cmd);
	f = xfab_te_fabric_parse(text, err, sizeof(err));
	free(text);
	if (!f)
		fail_msg("explicit-small: %s", err);
	gpu = xfab_te_switch_index(f, "gpu-leaf");
	assert_true(gpu >= 0);
	for (int l = 0; l < f->n_links; l++)
		assert_true(f->links[l].scale == (f->links[l].lower == gpu ? 1.0 : 4.0));
	xfab_te_fabric_free(f);
}

static void refused_fabric(const char *text, const char *want)
{
	char err[512];
	struct xfab_te_fabric *f = xfab_te_fabric_parse(text, err, sizeof(err));

	if (f)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
}

#define SW_LEAF                                                                                    \
	"\"leaf1\": {\"tier\": 1, \"ports\": {\"eth1\": {\"peer\": \"spine1\", \"peer_port\": "    \
	"\"eth1\", \"ipv4\": \"10.254.1.1/31\", \"direction\": \"up\"}, \"eth3\": {\"peer\": "     \
	"\"h1\", \"peer_port\": \"eth0\", \"ipv4\": \"10.1.1.1/24\", \"direction\": \"down\"}}}"
#define SW_SPINE                                                                                   \
	"\"spine1\": {\"tier\": 2, \"ports\": {\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": "    \
	"\"eth1\", \"ipv4\": \"10.254.1.0/31\", \"direction\": \"down\"}}}"
#define HOSTS                                                                                      \
	"\"hosts\": {\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", \"ipv4\": "            \
	"\"10.1.1.2/24\"}}"

/* Hosts of one subnet share their pins: h1 and h2 are both in 10.1.1.0/24
 * on leaf1, so h3's two pairs to them need one pin at leaf2 (its port to h3,
 * that prefix), held by both. */
static void test_shared_subnet(void **state)
{
	static const char text[] =
	    "{\"switches\": {"
	    "\"spine1\": {\"tier\": 2, \"ports\": {"
	    "\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth1\", \"ipv4\": \"10.254.1.0/31\", "
	    "\"direction\": \"down\"}, "
	    "\"eth2\": {\"peer\": \"leaf2\", \"peer_port\": \"eth1\", \"ipv4\": \"10.254.1.2/31\", "
	    "\"direction\": \"down\"}}}, "
	    "\"spine2\": {\"tier\": 2, \"ports\": {"
	    "\"eth1\": {\"peer\": \"leaf1\", \"peer_port\": \"eth2\", \"ipv4\": \"10.254.2.0/31\", "
	    "\"direction\": \"down\"}, "
	    "\"eth2\": {\"peer\": \"leaf2\", \"peer_port\": \"eth2\", \"ipv4\": \"10.254.2.2/31\", "
	    "\"direction\": \"down\"}}}, "
	    "\"leaf1\": {\"tier\": 1, \"ports\": {"
	    "\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth1\", \"ipv4\": "
	    "\"10.254.1.1/31\", "
	    "\"direction\": \"up\"}, "
	    "\"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth1\", \"ipv4\": "
	    "\"10.254.2.1/31\", "
	    "\"direction\": \"up\"}, "
	    "\"eth3\": {\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": \"down\"}, "
	    "\"eth4\": {\"peer\": \"h2\", \"peer_port\": \"eth0\", \"direction\": \"down\"}}}, "
	    "\"leaf2\": {\"tier\": 1, \"ports\": {"
	    "\"eth1\": {\"peer\": \"spine1\", \"peer_port\": \"eth2\", \"ipv4\": "
	    "\"10.254.1.3/31\", "
	    "\"direction\": \"up\"}, "
	    "\"eth2\": {\"peer\": \"spine2\", \"peer_port\": \"eth2\", \"ipv4\": "
	    "\"10.254.2.3/31\", "
	    "\"direction\": \"up\"}, "
	    "\"eth3\": {\"peer\": \"h3\", \"peer_port\": \"eth0\", \"direction\": \"down\"}}}}, "
	    "\"hosts\": {"
	    "\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", \"ipv4\": \"10.1.1.2/24\"}, "
	    "\"h2\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth4\", \"ipv4\": \"10.1.1.3/24\"}, "
	    "\"h3\": {\"leaf\": \"leaf2\", \"leaf_port\": \"eth3\", \"ipv4\": \"10.2.1.2/24\"}}}";
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	struct xfab_te_fabric *f;
	char err[256];
	int h1, h2, h3;

	(void)state;
	f = xfab_te_fabric_parse(text, err, sizeof(err));
	if (!f)
		fail_msg("%s", err);
	h1 = xfab_te_host_index(f, "h1");
	h2 = xfab_te_host_index(f, "h2");
	h3 = xfab_te_host_index(f, "h3");
	xfab_te_demands_init(&dm);
	assert_int_equal(xfab_te_demand_add(&dm, h3, h1, 10), 0);
	assert_int_equal(xfab_te_demand_add(&dm, h3, h2, 5), 0);
	assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.placed, 2);
	assert_int_equal(plan.n_pins, 1);
	assert_int_equal(plan.pins[0].sw, xfab_te_switch_index(f, "leaf2"));
	assert_int_equal(plan.pins[0].in, xfab_te_port_index(f, plan.pins[0].sw, "eth3"));
	assert_int_equal(plan.pins[0].prefix.s_addr, inet_addr("10.1.1.0"));
	assert_int_equal(plan.pins[0].plen, 24);
	assert_int_equal(plan.pins[0].pairs, 2);
	/* one pin: both pairs take its uplink */
	assert_int_equal(plan.pairs[0].sw[1], plan.pairs[1].sw[1]);
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

static void test_bad_fabrics(void **state)
{
	char err[256];
	struct xfab_te_fabric *f;

	(void)state;
	/* the smallest good one first */
	f = xfab_te_fabric_parse("{\"switches\": {" SW_LEAF ", " SW_SPINE "}, " HOSTS "}", err,
				 sizeof(err));
	if (!f)
		fail_msg("%s", err);
	assert_int_equal(f->n_links, 1);
	xfab_te_fabric_free(f);
	refused_fabric("[]", "1:1: fabric: an object is needed, not array");
	refused_fabric("{\"switches\": {" SW_LEAF ", " SW_SPINE "}, " HOSTS, "expected ',' or '}'");
	refused_fabric("{\"hosts\": {}}", "1:1: switches: missing");
	refused_fabric("{\"switches\": {\"leaf1\": {\"ports\": {}}}, \"hosts\": {}}",
		       "1:24: switches.leaf1.tier: missing");
	refused_fabric("{\"switches\": {\"leaf1\": {\"tier\": 7, \"ports\": {}}}, \"hosts\": {}}",
		       "switches.leaf1.tier: 1 (leaf), 2 (spine) or 3 (super-spine), not 7");
	refused_fabric("{\"switches\": {\"leaf1\": {\"tier\": 1, \"ports\": {\"eth1\": {\"peer\": "
		       "\"spine9\", \"peer_port\": \"eth1\", \"ipv4\": \"10.254.1.1/31\", "
		       "\"direction\": \"up\"}}}}, \"hosts\": {}}",
		       "switches.leaf1.ports.eth1: peer \"spine9\" is neither a switch nor a host");
	refused_fabric("{\"switches\": {\"leaf1\": {\"tier\": 1, \"ports\": {\"eth1\": {\"peer\": "
		       "\"x\", \"peer_port\": \"eth1\", \"ipv4\": \"10.254.1.1/33\", "
		       "\"direction\": \"up\"}}}}, \"hosts\": {}}",
		       "switches.leaf1.ports.eth1.ipv4: \"10.254.1.1/33\" is not an IPv4 address");
	refused_fabric(
	    "{\"switches\": {\"leaf1\": {\"tier\": 1, \"ports\": {\"eth1\": {\"peer\": "
	    "\"x\", \"peer_port\": \"eth1\", \"direction\": \"sideways\"}}}}, \"hosts\": {}}",
	    "switches.leaf1.ports.eth1.direction: \"up\" or \"down\"");
	/* the spine's port says down to leaf1, but tier 3 */
	refused_fabric("{\"switches\": {" SW_LEAF
		       ", \"spine1\": {\"tier\": 3, \"ports\": {\"eth1\": {\"peer\": \"leaf1\", "
		       "\"peer_port\": \"eth1\", \"ipv4\": \"10.254.1.0/31\", \"direction\": "
		       "\"down\"}}}}, " HOSTS "}",
		       "switches.leaf1.ports.eth1: \"up\" to spine1, a tier 3 switch, from tier 1");
	refused_fabric("{\"switches\": {" SW_LEAF
		       ", \"spine1\": {\"tier\": 2, \"ports\": {\"eth1\": {\"peer\": \"leaf1\", "
		       "\"peer_port\": \"eth3\", \"ipv4\": \"10.254.1.0/31\", \"direction\": "
		       "\"down\"}}}}, " HOSTS "}",
		       "names leaf1 eth3 as its peer, not this port");
	refused_fabric("{\"switches\": {" SW_LEAF ", " SW_SPINE
		       "}, \"hosts\": {\"h1\": {\"leaf\": \"spine1\", \"leaf_port\": \"eth1\", "
		       "\"ipv4\": \"10.1.1.2/24\"}}}",
		       "hosts.h1.leaf: \"spine1\" is no leaf (tier 1) of the fabric");
	refused_fabric("{\"switches\": {" SW_LEAF ", " SW_SPINE
		       "}, \"hosts\": {\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth9\", "
		       "\"ipv4\": \"10.1.1.2/24\"}}}",
		       "hosts.h1.leaf_port: leaf1 has no port eth9");
	/* a fabric port without the address the pins name as next hop */
	refused_fabric(
	    "{\"switches\": {\"leaf1\": {\"tier\": 1, \"ports\": {\"eth1\": {\"peer\": "
	    "\"spine1\", \"peer_port\": \"eth1\", \"direction\": \"up\"}, \"eth3\": "
	    "{\"peer\": \"h1\", \"peer_port\": \"eth0\", \"direction\": \"down\"}}}, " SW_SPINE
	    "}, " HOSTS "}",
	    "1:54: switches.leaf1.ports.eth1: a fabric link needs an ipv4 address");
	/* two hosts, one address */
	refused_fabric("{\"switches\": {" SW_LEAF ", " SW_SPINE
		       "}, \"hosts\": {\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", "
		       "\"ipv4\": \"10.1.1.2/24\"}, \"h2\": {\"leaf\": \"leaf1\", \"leaf_port\": "
		       "\"eth1\", \"ipv4\": \"10.1.1.2/24\"}}}",
		       "hosts.h2.ipv4: h1 has the same address");
	refused_fabric("{\"switches\": {" SW_LEAF ", " SW_SPINE
		       "}, \"hosts\": {\"h1\": {\"leaf\": \"leaf1\", \"leaf_port\": \"eth3\", "
		       "\"ipv4\": \"10.1.1.2\"}}}",
		       "hosts.h1.ipv4: \"10.1.1.2\" is not an IPv4 address with a length");
}

static const struct model M24 = {.pods = 1, .S = 2, .L = 4, .H = 2, .P = 1};

static void matrix_refused(const struct xfab_te_fabric *f, const char *text, const char *want)
{
	struct xfab_te_demands dm;
	char err[256];

	xfab_te_demands_init(&dm);
	assert_int_equal(xfab_te_demand_add(&dm, 0, 1, 5), 0);
	if (!xfab_te_demand_matrix(&dm, f, text, err, sizeof(err)))
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	/* nothing added */
	assert_int_equal(dm.n, 1);
	assert_int_equal(dm.d[0].bytes, 5);
	xfab_te_demands_free(&dm);
}

static void test_matrix(void **state)
{
	struct xfab_te_fabric *f = build(&M24, NULL);
	struct xfab_te_demands dm;
	char err[256];

	(void)state;
	xfab_te_demands_init(&dm);
	assert_int_equal(xfab_te_demand_matrix(
			     &dm, f,
			     "[{\"src\": \"h1\", \"dst\": \"h5\", \"bytes\": 100},\n"
			     " {\"src\": \"10.1.1.2\", \"dst\": \"10.3.1.2\", \"bytes\": 50},\n"
			     " {\"src\": \"h8\", \"dst\": \"h2\", \"bytes\": 9223372036854775807}]",
			     err, sizeof(err)),
			 0);
	assert_int_equal(dm.n, 2); /* h1 -> h5 given twice, by name and address */
	assert_int_equal(dm.d[0].src, xfab_te_host_index(f, "h1"));
	assert_int_equal(dm.d[0].dst, xfab_te_host_index(f, "h5"));
	assert_int_equal(dm.d[0].bytes, 150);
	assert_true(dm.d[1].bytes == 9223372036854775807ull);
	xfab_te_demands_free(&dm);
	matrix_refused(f, "{}", "1:1: a traffic matrix is an array");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h9\", \"bytes\": 1}]",
		       "1:23: [0].dst: no host \"h9\" in the fabric");
	matrix_refused(f,
		       "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": 1},\n {\"src\": \"h1\", "
		       "\"dst\": \"h1\", \"bytes\": 1}]",
		       "2:23: [1].dst: the same host as src");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": 0}]",
		       "[0].bytes: must be an integer 1..");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": -4}]", "[0].bytes");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": 1.5}]", "[0].bytes");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": 9223372036854775808}]",
		       "[0].bytes");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\"}]", "[0]: missing \"bytes\"");
	matrix_refused(f, "[{\"src\": \"h1\", \"dst\": \"h2\", \"bytes\": 1, \"qp\": 3}]",
		       "[0]: unknown field \"qp\"");
	matrix_refused(f,
		       "[{\"src\": \"h1\", \"dst\": \"h3\", \"bytes\": 9223372036854775807}, "
		       "{\"src\": \"h1\", \"dst\": \"h3\", \"bytes\": 9223372036854775807}, "
		       "{\"src\": \"h1\", \"dst\": \"h3\", \"bytes\": 9223372036854775807}]",
		       "[2].bytes: the pair's bytes overflow");
	matrix_refused(f, "[{\"src\": 1, \"dst\": \"h2\", \"bytes\": 1}]",
		       "[0].src: must be a string");
	xfab_te_fabric_free(f);
}

/* A job's demand: per pair, the sum of the bytes of its flows (summed here
 * from xfab_job_flows, flow by flow). */
static void test_job_demand(void **state)
{
	static const char ring[] = "{\"name\": \"ar8\", \"op\": \"allreduce\", \"ranks\": ["
				   "{\"host\": \"h1\", \"addr\": \"10.1.1.2\"}, {\"host\": \"h3\", "
				   "\"addr\": \"10.2.1.2\"},"
				   "{\"host\": \"h5\", \"addr\": \"10.3.1.2\"}, {\"host\": \"h7\", "
				   "\"addr\": \"10.4.1.2\"},"
				   "{\"host\": \"h2\", \"addr\": \"10.1.2.2\"}, {\"host\": \"h4\", "
				   "\"addr\": \"10.2.2.2\"},"
				   "{\"host\": \"h6\", \"addr\": \"10.3.2.2\"}, {\"host\": \"h8\", "
				   "\"addr\": \"10.4.2.2\"}],"
				   " \"channels\": 2, \"qps\": 4, \"bytes\": 1000000}";
	struct xfab_te_fabric *f = build(&M24, NULL);
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	struct xfab_job job;
	struct xfab_job_flow *flows;
	size_t nf;
	char err[256];

	(void)state;
	assert_int_equal(xfab_job_parse(ring, &job, err, sizeof(err)), 0);
	xfab_te_demands_init(&dm);
	assert_int_equal(xfab_te_demand_job(&dm, f, &job, err, sizeof(err)), 0);
	assert_int_equal(dm.n, 8); /* the ring's 8 pairs; both channels on each */
	nf = xfab_job_flows(&job, NULL, 0);
	flows = calloc(nf, sizeof(*flows));
	assert_non_null(flows);
	xfab_job_flows(&job, flows, nf);
	for (size_t i = 0; i < dm.n; i++) {
		uint64_t sum = 0;

		for (size_t k = 0; k < nf; k++)
			if (f->hosts[dm.d[i].src].addr.s_addr == flows[k].saddr.s_addr &&
			    f->hosts[dm.d[i].dst].addr.s_addr == flows[k].daddr.s_addr)
				sum += flows[k].bytes;
		assert_true(sum > 0);
		assert_true(dm.d[i].bytes == sum);
	}
	free(flows);
	/* this ring crosses leaves at every step: each leaf sends two pairs
	 * and receives two, one per uplink and downlink at the optimum */
	assert_int_equal(xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.placed, 8);
	assert_int_equal(plan.n_pins, 8);
	assert_true(plan.max_load == (double)dm.d[0].bytes);
	xfab_te_plan_free(&plan);
	xfab_te_demands_free(&dm);
	/* refusals: a rank on no host, a host named otherwise */
	job.ranks[3].addr.s_addr = inet_addr("10.9.9.2");
	xfab_te_demands_init(&dm);
	assert_int_equal(xfab_te_demand_job(&dm, f, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "ar8: rank 3 (10.9.9.2) is no host of the fabric");
	job.ranks[3].addr.s_addr = inet_addr("10.4.1.2");
	snprintf(job.ranks[3].host, sizeof(job.ranks[3].host), "h6");
	assert_int_equal(xfab_te_demand_job(&dm, f, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "ar8: rank 3 is h6 in the job, but 10.4.1.2 is h7 in the fabric");
	xfab_te_demands_free(&dm);
	xfab_te_fabric_free(f);
}

/* Demand aggregation by pair through growth of the table. */
static void test_demand_table(void **state)
{
	struct xfab_te_demands dm;

	(void)state;
	xfab_te_demands_init(&dm);
	for (int round = 0; round < 3; round++)
		for (int s = 0; s < 40; s++)
			for (int d = 0; d < 40; d++)
				if (s != d)
					assert_int_equal(
					    xfab_te_demand_add(&dm, s, d, (uint64_t)(s * 100 + d)),
					    0);
	assert_int_equal(dm.n, 40 * 39);
	for (size_t i = 0; i < dm.n; i++)
		assert_true(dm.d[i].bytes == 3 * (uint64_t)(dm.d[i].src * 100 + dm.d[i].dst));
	assert_int_equal(xfab_te_demand_add(&dm, 3, 3, 1), -EINVAL);
	assert_int_equal(xfab_te_demand_add(&dm, 0, 1, UINT64_MAX), -ERANGE);
	xfab_te_demands_free(&dm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hand_plan),
	    cmocka_unit_test(test_greedy_choice),
	    cmocka_unit_test(test_two_tier_vs_bruteforce),
	    cmocka_unit_test(test_two_tier_optimal_cases),
	    cmocka_unit_test(test_moves_after_greedy),
	    cmocka_unit_test(test_failed_links),
	    cmocka_unit_test(test_three_tier),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_speeds),
	    cmocka_unit_test(test_lab_fabrics),
	    cmocka_unit_test(test_bad_fabrics),
	    cmocka_unit_test(test_shared_subnet),
	    cmocka_unit_test(test_matrix),
	    cmocka_unit_test(test_job_demand),
	    cmocka_unit_test(test_demand_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
