/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Prometheus text exposition of a switch's counters, served by a thread of
 * its own so a slow scraper never blocks the agent. */
#ifndef XFAB_METRICS_H
#define XFAB_METRICS_H

#include <pthread.h>
#include <stdio.h>

#include "xfab_abi.h"

/* FIB_SYNC's figures, published by the agent after each batch of events
 * (under lock) for the metrics thread and the fib-status request. */
struct xfab_fib_status {
	pthread_mutex_t lock;
	int enabled;
	__u32 table;
	unsigned long long routes, nexthops, foreign, unresolved; /* held now */
	unsigned long long events, skipped, refused, failed;	  /* messages read */
	unsigned long long resyncs, swept_routes, batches;
	double lag_last_s, lag_max_s; /* event read to data plane written, per batch */
};

struct xfab_metrics_src {
	char hostname[64];
	int n_ports;
	char port_names[XFAB_MAX_PORTS][16]; /* by counter slot */
	int fd_port_stats, fd_drop_stats, fd_punt_stats, fd_queue_stats, fd_queue_wm, fd_lb_stats;
	int fd_pfc_state, fd_pfc_queue;		    /* PFC series: keyed by the same slots */
	int fd_vnets, fd_vnet_stats, fd_vnet_drops; /* the overlay; < 1: no VNET series */
	struct xfab_fib_status *fib;		    /* NULL or !enabled: no FIB_SYNC series */
	int fd_copp_cfg, fd_copp_stats;		    /* CoPP, per group; < 1: the series read 0 */
	int fd_acl_info, fd_acl_stats;		    /* ACL: per rule; < 1: no ACL series */
};

/* Writes the exposition to f. */
void xfab_metrics_write(const struct xfab_metrics_src *src, FILE *f);
/* Listens on ADDR:PORT (IPv4, or [IPv6]:PORT) and serves GET /metrics. */
int xfab_metrics_start(const char *addr_port, const struct xfab_metrics_src *src);

#endif
