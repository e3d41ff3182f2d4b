// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drained ports' Prometheus series (docs/OPERATIONS.md, "Draining a
 * port"), for every port: whether it is drained now and how often it was.
 * Read from what xfabd publishes beside the dampers (src->damping: a drain
 * holds a port as a suppression does). Written among the device's series.
 */
#include <stdio.h>
#include <string.h>

#include "metrics.h"

static void drain_series(const struct xfab_metrics_src *src, FILE *f)
{
	static struct xfab_damping_pub c;

	if (!src->damping)
		return;
	pthread_mutex_lock(&src->damping->lock);
	c.n_ports = src->damping->n_ports;
	memcpy(c.names, src->damping->names, sizeof(c.names));
	memcpy(c.drained, src->damping->drained, sizeof(c.drained));
	memcpy(c.drains_total, src->damping->drains_total, sizeof(c.drains_total));
	pthread_mutex_unlock(&src->damping->lock);
	agent_metrics_family(f, "xfab_port_drained", "gauge",
			     "1 while the port is drained (out of every group on request).");
	for (int p = 0; p < c.n_ports; p++)
		fprintf(f, "xfab_port_drained{switch=\"%s\",port=\"%s\"} %d\n", src->hostname,
			c.names[p], c.drained[p]);
	agent_metrics_family(f, "xfab_port_drains_total", "counter",
			     "Times the port was drained (port-drain).");
	for (int p = 0; p < c.n_ports; p++)
		fprintf(f, "xfab_port_drains_total{switch=\"%s\",port=\"%s\"} %llu\n",
			src->hostname, c.names[p], (unsigned long long)c.drains_total[p]);
}

XFAB_METRICS_WRITER("device", drain_series)
