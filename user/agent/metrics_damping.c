// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Link event damping's Prometheus series (docs/OPERATIONS.md, "Flapping
 * links"), for each port with damping on: its penalty now (decayed to the
 * scrape), whether it is suppressed and for how long still, the times it
 * was suppressed, and its link events before and after damping (SONiC's
 * pre/post-damping transition counters). Read from the dampers xfabd
 * publishes (src->damping). It registers itself as the "damping" feature's
 * writer (XFAB_METRICS_WRITER, metrics.h).
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "metrics.h"

#define DAMP_SERIES 7

static const struct {
	const char *name, *type, *help;
} damp_fam[DAMP_SERIES] = {
    {"xfab_port_damping_penalty", "gauge",
     "Link event damping: the port's accumulated penalty now."},
    {"xfab_port_damping_suppressed", "gauge",
     "Link event damping: 1 while the port is suppressed (held down)."},
    {"xfab_port_damping_reuse_seconds", "gauge",
     "Link event damping: seconds until a suppressed port is reused (0: not suppressed)."},
    {"xfab_port_damping_suppressions_total", "counter",
     "Link event damping: times the port was suppressed."},
    {"xfab_port_damping_ceiling", "gauge",
     "Link event damping: the penalty's ceiling (max_suppress_time's)."},
    {"xfab_port_link_events_total", "counter",
     "Link events (up or down) the port's carrier had, before damping."},
    {"xfab_port_link_events_advertised_total", "counter",
     "Link events (up or down) xfabd acted on, after damping."},
};

static void damp_value(FILE *f, int m, const char *sw, const char *port, const struct xfab_damp *d,
		       __u64 now)
{
	double v = 0;

	if (m >= 5) {
		for (int up = 0; up < 2; up++)
			fprintf(f, "%s{switch=\"%s\",port=\"%s\",event=\"%s\"} %llu\n",
				damp_fam[m].name, sw, port, up ? "up" : "down",
				(unsigned long long)(m == 5
							 ? (up ? d->st.pre_up : d->st.pre_down)
							 : (up ? d->st.post_up : d->st.post_down)));
		return;
	}
	if (m == 0)
		v = xfab_damp_penalty(d, now);
	else if (m == 1)
		v = d->suppressed;
	else if (m == 2)
		v = d->suppressed && d->reuse_ns > now ? (double)(d->reuse_ns - now) / 1e9 : 0;
	else if (m == 3)
		v = (double)d->st.suppressions;
	else
		v = d->ceiling;
	fprintf(f, "%s{switch=\"%s\",port=\"%s\"} %.3f\n", damp_fam[m].name, sw, port, v);
}

static void damping_series(const struct xfab_metrics_src *src, FILE *f)
{
	static struct xfab_damping_pub c;
	__u64 now = xfab_mono_ns();
	int any = 0;

	if (!src->damping)
		return;
	pthread_mutex_lock(&src->damping->lock);
	c.n_ports = src->damping->n_ports;
	memcpy(c.names, src->damping->names, sizeof(c.names));
	memcpy(c.d, src->damping->d, sizeof(c.d));
	pthread_mutex_unlock(&src->damping->lock);
	for (int p = 0; p < c.n_ports; p++)
		any |= xfab_damp_enabled(&c.d[p].cfg);
	if (!any)
		return;
	for (int m = 0; m < DAMP_SERIES; m++) {
		agent_metrics_family(f, damp_fam[m].name, damp_fam[m].type, damp_fam[m].help);
		for (int p = 0; p < c.n_ports; p++)
			if (xfab_damp_enabled(&c.d[p].cfg))
				damp_value(f, m, src->hostname, c.names[p], &c.d[p], now);
	}
}

XFAB_METRICS_WRITER("damping", damping_series)
