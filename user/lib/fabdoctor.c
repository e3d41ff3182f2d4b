// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fabric doctor's analysis: lost and damaged frames per link and
 * direction between two snapshots, the rule, the ranking (fabdoctor.h). */
#include "fabdoctor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

_Static_assert(XFAB_DROP_MAX <= 64, "a damage reason is a bit of damage_reasons");

/* The reasons a frame that left its sender whole cannot have: the parser
 * found its headers cut short or inconsistent, or its IPv4 checksum wrong.
 * What a real switch counts as FCS/symbol errors at its MAC; xfab's
 * nearest evidence. (Policy reasons -- no route, ACL, CoPP -- are not.) */
static const unsigned int damage_reasons[] = {
    XFAB_DROP_ETH_TRUNCATED,  XFAB_DROP_IPV4_TRUNCATED,	       XFAB_DROP_IPV4_BAD_VERSION,
    XFAB_DROP_IPV4_BAD_IHL,   XFAB_DROP_IPV4_BAD_LENGTH,       XFAB_DROP_IPV4_BAD_CHECKSUM,
    XFAB_DROP_IPV6_TRUNCATED, XFAB_DROP_IPV6_BAD_VERSION,      XFAB_DROP_IPV6_BAD_LENGTH,
    XFAB_DROP_L4_TRUNCATED,   XFAB_DROP_MAC_CONTROL_TRUNCATED,
};

int xfab_doc_damage_reason(unsigned int r)
{
	for (size_t i = 0; i < sizeof(damage_reasons) / sizeof(damage_reasons[0]); i++)
		if (damage_reasons[i] == r)
			return 1;
	return 0;
}

static uint64_t sum_tc(const uint64_t *v)
{
	uint64_t s = 0;

	for (int tc = 0; tc < XFAB_FAB_NUM_TC; tc++)
		s += v[tc];
	return s;
}

/* The damage a switch counted, and which reasons. */
static uint64_t switch_damage(const struct xfab_fab_sw_ctr *c, uint64_t *reasons)
{
	uint64_t d = 0;

	*reasons = 0;
	for (unsigned int r = 1; r < XFAB_DROP_MAX; r++) {
		if (!xfab_doc_damage_reason(r) || !c->drop_packets[r])
			continue;
		d += c->drop_packets[r];
		*reasons |= 1ull << r;
	}
	return d;
}

/* Port p's share of its switch's damage, bounded by the port counters
 * (fabdoctor.h): [damage - other ports' drops, min(damage, p's drops)]. */
static void port_damage(const struct xfab_fab_switch *sw, const struct xfab_fab_sw_ctr *c, int p,
			uint64_t damage, uint64_t *lo, uint64_t *hi)
{
	uint64_t others = 0;

	for (unsigned int q = 0; q < sw->n_ports; q++)
		if ((int)q != p)
			others += c->ports[q].drops;
	*hi = damage < c->ports[p].drops ? damage : c->ports[p].drops;
	*lo = damage > others ? damage - others : 0;
	if (*lo > *hi)
		*lo = *hi;
}

/* Frames still queued at the sender: its queued bytes over the window's
 * mean frame size, rounded up (none sent: none queued of this window). */
static uint64_t in_flight(const struct xfab_fab_port_ctr *tx, uint64_t queued_bytes)
{
	uint64_t mean;

	if (!tx->tx_packets || !queued_bytes)
		return 0;
	mean = tx->tx_bytes / tx->tx_packets;
	return mean ? (queued_bytes + mean - 1) / mean : 0;
}

static void measure(const struct xfab_fabric *f, const struct xfab_fab_snap *d,
		    const uint64_t *queued, struct xfab_doc_dir *x)
{
	const struct xfab_fab_port_ctr *tx = &d->sw[x->tx_sw].ports[x->tx_port];
	const struct xfab_fab_sw_ctr *rs = &d->sw[x->rx_sw];
	const struct xfab_fab_port_ctr *rx = &rs->ports[x->rx_port];
	uint64_t damage = switch_damage(rs, &x->damage_reasons);

	x->sent = tx->tx_packets;
	x->arrived = rx->rx_packets > rx->punts ? rx->rx_packets - rx->punts : 0;
	x->in_flight = queued ? in_flight(tx, XFAB_DOC_QUEUED(queued, x->tx_sw, x->tx_port)) : 0;
	x->lost = x->sent > x->arrived + x->in_flight ? x->sent - x->arrived - x->in_flight : 0;
	port_damage(&f->switches[x->rx_sw], rs, x->rx_port, damage, &x->damaged_lo, &x->damaged_hi);
	if (!x->damaged_hi)
		x->damage_reasons = 0;
	x->bad = x->lost + x->damaged_lo;
	x->rate = x->sent ? (double)x->bad / (double)x->sent : 0;
	x->rank =
	    x->sent && x->bad ? ((double)x->bad - 3 * sqrt((double)x->bad)) / (double)x->sent : 0;
	if (x->rank < 0)
		x->rank = 0;
	x->ecn_marked = sum_tc(tx->ecn_marked);
	x->q_dropped = sum_tc(tx->q_dropped);
	x->pfc_rx = sum_tc(tx->pfc_rx);
	x->pfc_tx = sum_tc(rx->pfc_tx);
}

/* Most evident first: the rate's low end, then the count, then link order
 * (a stable, reproducible order for equals). */
static int before_in_rank(const struct xfab_doc_dir *dirs, unsigned int a, unsigned int b)
{
	const struct xfab_doc_dir *x = &dirs[a], *y = &dirs[b];

	if (x->rank != y->rank)
		return x->rank > y->rank;
	if (x->bad != y->bad)
		return x->bad > y->bad;
	return a < b;
}

/* Suspects are few: an insertion sort, with no state beside the call. */
static void rank_suspects(const struct xfab_doc_dir *dirs, unsigned int *idx, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++) {
		unsigned int v = idx[i], j = i;

		for (; j > 0 && before_in_rank(dirs, v, idx[j - 1]); j--)
			idx[j] = idx[j - 1];
		idx[j] = v;
	}
}

/* The low end, not the rate: a few frames counted late on a loaded box
 * (0.18 % of a busy clean link once, docs/DEBUGGING.md) are not evidence
 * of a loss above the threshold; a steady loss soon is. */
static int rule(const struct xfab_doc_dir *x, const struct xfab_doc_opts *o)
{
	return x->sent && x->bad >= o->min_bad && x->rank > o->threshold;
}

int xfab_doc_analyse(const struct xfab_fabric *f, const struct xfab_fab_snap *before,
		     const struct xfab_fab_snap *after, const uint64_t *queued,
		     const struct xfab_doc_opts *o, struct xfab_doc_result *out)
{
	struct xfab_fab_snap d;
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	if (xfab_fab_snap_init(&d, f))
		return -1;
	memcpy(d.sw, after->sw, f->n_switches * sizeof(*d.sw));
	out->window_s = after->time - before->time;
	out->resets = xfab_fab_snap_delta(&d, before, f, out->reset_note, sizeof(out->reset_note));
	out->dirs = calloc(2 * (size_t)f->n_links + 1, sizeof(*out->dirs));
	out->ranked = calloc(2 * (size_t)f->n_links + 1, sizeof(*out->ranked));
	if (!out->dirs || !out->ranked) {
		xfab_fab_snap_free(&d);
		xfab_doc_result_free(out);
		return -1;
	}
	for (unsigned int l = 0; l < f->n_links; l++) {
		const struct xfab_fab_link *ln = &f->links[l];

		if (ln->lower < 0)
			continue; /* a host's link: one counting end */
		for (int dir = 0; dir < 2; dir++) {
			struct xfab_doc_dir *x = &out->dirs[n];
			int up = dir == XFAB_FAB_UP;

			x->link = l;
			x->dir = (enum xfab_fab_dir)dir;
			x->tx_sw = up ? ln->lower : ln->upper;
			x->tx_port = up ? ln->lower_port : ln->upper_port;
			x->rx_sw = up ? ln->upper : ln->lower;
			x->rx_port = up ? ln->upper_port : ln->lower_port;
			measure(f, &d, queued, x);
			x->suspect = rule(x, o);
			if (x->suspect)
				out->ranked[out->n_suspects++] = n;
			n++;
		}
	}
	out->n_dirs = n;
	rank_suspects(out->dirs, out->ranked, out->n_suspects);
	xfab_fab_snap_free(&d);
	return 0;
}

void xfab_doc_result_free(struct xfab_doc_result *r)
{
	free(r->dirs);
	free(r->ranked);
	memset(r, 0, sizeof(*r));
}

void xfab_doc_count(uint64_t n, char *buf, size_t len)
{
	char digits[24], out[32];
	int nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n), k = 0;

	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(buf, len, "%s", out);
}

/* "ipv4_bad_checksum, l4_truncated" */
static void reason_names(uint64_t reasons, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int r = 1; r < XFAB_DROP_MAX && off < len; r++)
		if (reasons & (1ull << r))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						xfab_drop_name(r));
}

void xfab_doc_why(const struct xfab_fabric *f, const struct xfab_doc_dir *d, char *buf, size_t len)
{
	const struct xfab_fab_switch *ts = &f->switches[d->tx_sw], *rs = &f->switches[d->rx_sw];
	char sent[32], arr[32], lost[32], lo[32], hi[32], reasons[256];
	int off;

	xfab_doc_count(d->sent, sent, sizeof(sent));
	xfab_doc_count(d->arrived, arr, sizeof(arr));
	xfab_doc_count(d->lost, lost, sizeof(lost));
	xfab_doc_count(d->in_flight, lo, sizeof(lo));
	off = snprintf(buf, len, "%s %s -> %s %s: sent %s, received %s, %s%slost %s (%.2f %%)",
		       ts->name, ts->ports[d->tx_port].name, rs->name, rs->ports[d->rx_port].name,
		       sent, arr, d->in_flight ? lo : "", d->in_flight ? " in flight, " : "", lost,
		       d->sent ? 100.0 * (double)d->lost / (double)d->sent : 0.0);
	if (!d->damaged_hi || off < 0 || (size_t)off >= len)
		return;
	xfab_doc_count(d->damaged_lo, lo, sizeof(lo));
	xfab_doc_count(d->damaged_hi, hi, sizeof(hi));
	reason_names(d->damage_reasons, reasons, sizeof(reasons));
	if (d->damaged_lo == d->damaged_hi)
		snprintf(buf + off, len - (size_t)off, ", damaged %s (%.2f %%: %s)", lo,
			 d->sent ? 100.0 * (double)d->damaged_lo / (double)d->sent : 0.0, reasons);
	else
		snprintf(buf + off, len - (size_t)off,
			 ", damaged %s to %s (%s at %s; other ports dropped too)", lo, hi, reasons,
			 rs->name);
}
