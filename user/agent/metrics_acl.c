// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ACL's Prometheus series (docs/ACL.md): each configured rule's packets
 * and bytes, labelled by its table and rule name. The names were checked at
 * parse to need no escaping (config/acl.c). It registers itself as the
 * "acl" feature's writer (XFAB_METRICS_WRITER, metrics.h): metrics.c has no
 * line for it.
 */
#include <bpf/bpf.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "metrics.h"

static void acl_series(const struct xfab_metrics_src *src, FILE *f)
{
	static const char *const names[2] = {"xfab_acl_rule_packets_total",
					     "xfab_acl_rule_bytes_total"};
	int fd_info = agent_metrics_map_fd(src, XFAB_MAP_ACL_INFO),
	    fd_stats = agent_metrics_map_fd(src, XFAB_MAP_ACL_STATS);

	if (fd_info < 0 || fd_stats < 0)
		return;
	for (int m = 0; m < 2; m++) {
		agent_metrics_family(f, names[m], "counter",
				     m ? "Bytes an ingress ACL rule decided."
				       : "Packets an ingress ACL rule decided.");
		for (__u32 i = 0; i < XFAB_ACL_MAX_COUNTERS; i++) {
			struct xfab_acl_info info;
			struct xfab_acl_stats st;

			if (bpf_map_lookup_elem(fd_info, &i, &info) || !info.used)
				continue;
			if (xfab_percpu_sum(fd_stats, i, (__u64 *)&st, sizeof(st) / 8))
				memset(&st, 0, sizeof(st));
			info.table[sizeof(info.table) - 1] = info.rule[sizeof(info.rule) - 1] =
			    '\0';
			fprintf(f, "%s{switch=\"%s\",table=\"%s\",rule=\"%s\"} %llu\n", names[m],
				src->hostname, info.table, info.rule,
				(unsigned long long)(m ? st.bytes : st.packets));
		}
	}
}

XFAB_METRICS_WRITER("acl", acl_series)
