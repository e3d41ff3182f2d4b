/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Prometheus text exposition of a switch's counters, served by a thread of
 * its own so a slow scraper never blocks the agent. */
#ifndef XFAB_METRICS_H
#define XFAB_METRICS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "damping.h"
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
	unsigned long long held, held_brief, held_restart; /* withdrawals held (fibsync.c) */
	double lag_last_s, lag_max_s; /* event read to data plane written, per batch */
};

/* Link event damping's dampers, published by the agent after each change
 * (under lock) for the metrics thread and the damping-status request. */
struct xfab_damping_pub {
	pthread_mutex_t lock;
	int n_ports;
	char names[XFAB_MAX_PORTS][16];
	struct xfab_damp d[XFAB_MAX_PORTS];
	int drained[XFAB_MAX_PORTS];	    /* drain.c: the port is drained */
	__u64 drains_total[XFAB_MAX_PORTS]; /* and how often it was */
};

struct xfab_metrics_src {
	char hostname[64];
	int n_ports;
	char port_names[XFAB_MAX_PORTS][16]; /* by counter slot */
	struct xfab_fib_status *fib;	     /* NULL or !enabled: no FIB_SYNC series */
	struct xfab_damping_pub *damping;    /* NULL: no damping series */
	/* The fd of the BPF map named map (XFAB_MAP_*), or < 0: none, and the
	 * series it feeds read 0 (the overlay's are left out). NULL: no maps.
	 * Asked on every scrape, from the metrics thread. */
	int (*map_fd)(void *arg, const char *map);
	void *map_arg;
};

/* One feature's series (the feature registry's name, user/lib/feature.h). */
struct xfab_metrics_writer {
	const char *feature;
	void (*write)(const struct xfab_metrics_src *src, FILE *f);
};
#define XFAB_METRICS_MAX_WRITERS 32
/* Every writer, in exposition order; ends with {NULL}. metrics.c's own come
 * first; the rest register themselves (XFAB_METRICS_WRITER). */
extern struct xfab_metrics_writer agent_metrics_writers[XFAB_METRICS_MAX_WRITERS + 1];
/* Appends a writer: 0, or -1 when the list is full. */
int agent_metrics_register(const char *feature,
			   void (*write)(const struct xfab_metrics_src *src, FILE *f));
/* In a feature's metrics_FEATURE.c: registers fn as feature's writer before
 * main runs, so metrics.c names no feature file. The constructor lives in
 * the writer's object file, which must be linked as an object (xfabd's
 * AGENT_OBJ, the tests' METRICS_OBJ in the Makefile), never pulled from a
 * static library: an archive member nothing references is left out, and its
 * constructor with it. A full list aborts at start-up rather than dropping a
 * feature's series without a word. */
#define XFAB_METRICS_WRITER(feature, fn)                                                           \
	__attribute__((constructor)) static void fn##_register(void)                               \
	{                                                                                          \
		if (agent_metrics_register(feature, fn)) {                                         \
			fprintf(stderr, "metrics: no room for the %s writer\n", feature);          \
			abort();                                                                   \
		}                                                                                  \
	}

/* For the writers in files of their own (a feature's series beside its
 * code): a metric family's HELP and TYPE lines, and the fd of map (XFAB_MAP_*)
 * or -1: none. */
void agent_metrics_family(FILE *f, const char *name, const char *type, const char *help);
int agent_metrics_map_fd(const struct xfab_metrics_src *src, const char *map);

/* A map_fd for src: the maps of the loaded struct bpf_object *obj. */
int agent_metrics_obj_map_fd(void *obj, const char *map);
/* Writes the exposition to f. */
void agent_metrics_write(const struct xfab_metrics_src *src, FILE *f);
/* Listens on ADDR:PORT (IPv4, or [IPv6]:PORT) and serves GET /metrics. */
int agent_metrics_start(const char *addr_port, const struct xfab_metrics_src *src);

#endif
