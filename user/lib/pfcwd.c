// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The PFC watchdog's state machine (pfcwd.h). */
#include "pfcwd.h"

#define PFCWD_NS_PER_MS 1000000ull

/* Not stormed: charge the poll or clear the charge; stormed once the
 * charge reaches the detection time. */
static int pfcwd_detect(struct pfcwd_queue *q, struct xfab_pfc_queue *rec,
			const struct pfcwd_settings *set, const struct pfcwd_sample *s,
			__u64 elapsed_ns)
{
	if (s->rx_frames > q->last_rx && s->rx_xon == q->last_xon && s->gated && q->last_gated)
		q->charge_ns += elapsed_ns;
	else
		q->charge_ns = 0;
	if (q->charge_ns < (__u64)set->detection_ms * PFCWD_NS_PER_MS)
		return 0;
	rec->stormed = 1;
	rec->storms_detected++;
	q->quiet_ns = 0;
	/* the storm's counters start from here */
	q->base_tx_ok = s->tx_ok;
	q->base_tx_drop = s->tx_drop;
	q->base_rx_ok = s->rx_ok;
	q->base_rx_drop = s->rx_drop;
	rec->wd_tx_ok_last = rec->wd_tx_drop_last = 0;
	rec->wd_rx_ok_last = rec->wd_rx_drop_last = 0;
	return 1;
}

/* Adds what moved since the last poll to a storm counter: total gets the
 * growth of this storm's delta, last becomes the delta. */
static void pfcwd_count(__u64 *total, __u64 *last, __u64 now, __u64 base)
{
	__u64 delta = now - base;

	*total += delta - *last;
	*last = delta;
}

/* Stormed: count, then restored once quiet for the restoration time. */
static int pfcwd_restore(struct pfcwd_queue *q, struct xfab_pfc_queue *rec,
			 const struct pfcwd_settings *set, const struct pfcwd_sample *s,
			 __u64 elapsed_ns)
{
	pfcwd_count(&rec->wd_tx_ok, &rec->wd_tx_ok_last, s->tx_ok, q->base_tx_ok);
	pfcwd_count(&rec->wd_tx_drop, &rec->wd_tx_drop_last, s->tx_drop, q->base_tx_drop);
	pfcwd_count(&rec->wd_rx_ok, &rec->wd_rx_ok_last, s->rx_ok, q->base_rx_ok);
	pfcwd_count(&rec->wd_rx_drop, &rec->wd_rx_drop_last, s->rx_drop, q->base_rx_drop);
	if (s->rx_frames == q->last_rx)
		q->quiet_ns += elapsed_ns;
	else
		q->quiet_ns = 0;
	if (q->quiet_ns < (__u64)set->restoration_ms * PFCWD_NS_PER_MS)
		return 0;
	rec->stormed = 0;
	rec->storms_restored++;
	q->charge_ns = 0;
	return 1;
}

struct pfcwd_verdict xfab_pfcwd_step(struct pfcwd_queue *q, struct xfab_pfc_queue *rec,
				     const struct pfcwd_settings *set, const struct pfcwd_sample *s,
				     __u64 elapsed_ns)
{
	struct pfcwd_verdict v = {PFCWD_STAY, 0, 0};

	if (!rec->stormed) {
		if (pfcwd_detect(q, rec, set, s, elapsed_ns)) {
			v.transition = PFCWD_DETECTED;
			/* drop and forward stop honouring pause: the queue
			 * flows (drop: the data plane discards what comes) */
			v.open_gate = set->action != XFAB_PFCWD_ALERT;
			v.flush = set->action == XFAB_PFCWD_DROP;
		}
	} else if (pfcwd_restore(q, rec, set, s, elapsed_ns)) {
		v.transition = PFCWD_RESTORED;
	}
	q->last_rx = s->rx_frames;
	q->last_xon = s->rx_xon;
	q->last_gated = s->gated;
	return v;
}

int xfab_pfcwd_carry_out(const struct pfcwd_verdict *v, const struct pfcwd_ops *ops, void *ctx)
{
	int err = 0;

	if (v->transition == PFCWD_STAY)
		return 0;
	ops->bits(ctx);
	if (v->flush)
		err = ops->flush(ctx);
	if (v->open_gate)
		ops->open(ctx);
	return err;
}

void xfab_pfcwd_bits(__u8 stormed_mask, __u8 action, __u8 *ignore, __u8 *drop)
{
	int ignores = action == XFAB_PFCWD_DROP || action == XFAB_PFCWD_FORWARD;

	*ignore = ignores ? stormed_mask : 0;
	*drop = action == XFAB_PFCWD_DROP ? stormed_mask : 0;
}

int xfab_pfcwd_gate_closes(__u64 paused_until_ns, __u64 now_ns, __u8 ignore_mask, int prio)
{
	return paused_until_ns > now_ns && !(ignore_mask & (1u << prio));
}

const char *xfab_pfcwd_action_name(__u8 action)
{
	switch (action) {
	case XFAB_PFCWD_DROP:
		return "drop";
	case XFAB_PFCWD_FORWARD:
		return "forward";
	case XFAB_PFCWD_ALERT:
		return "alert";
	default:
		return "off";
	}
}
