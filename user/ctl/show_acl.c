// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show acl: every ACL rule's counters, as SONiC's aclshow prints them
 * (docs/ACL.md): by table name, then priority, highest first. */
#include <bpf/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

struct acl_row {
	struct xfab_acl_info info;
	struct xfab_acl_stats st;
};

static int row_cmp(const void *a, const void *b)
{
	const struct acl_row *x = a, *y = b;
	int t = strcmp(x->info.table, y->info.table);

	if (t)
		return t;
	if (x->info.priority != y->info.priority)
		return x->info.priority > y->info.priority ? -1 : 1;
	return strcmp(x->info.rule, y->info.rule);
}

static void print_row(const struct acl_row *r)
{
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_string("rule", r->info.rule);
		ctl_jw_string("table", r->info.table);
		ctl_jw_uint("priority", r->info.priority);
		ctl_jw_string("action", r->info.action == XFAB_ACL_DROP ? "DROP" : "FORWARD");
		ctl_jw_uint("packets", r->st.packets);
		ctl_jw_uint("bytes", r->st.bytes);
		ctl_jw_close('}');
		return;
	}
	printf("%-24s %-20s %8u %15llu %15llu\n", r->info.rule, r->info.table, r->info.priority,
	       (unsigned long long)r->st.packets, (unsigned long long)r->st.bytes);
}

static int show_acl(void)
{
	int fd_info = ctl_open_map(XFAB_MAP_ACL_INFO), fd_stats = ctl_open_map(XFAB_MAP_ACL_STATS);
	struct acl_row *rows = calloc(XFAB_ACL_MAX_COUNTERS, sizeof(*rows));
	int n = 0;

	if (!rows)
		return 1;
	for (__u32 i = 0; i < XFAB_ACL_MAX_COUNTERS; i++) {
		struct acl_row *r = &rows[n];

		if (bpf_map_lookup_elem(fd_info, &i, &r->info) || !r->info.used)
			continue;
		r->info.table[sizeof(r->info.table) - 1] = '\0';
		r->info.rule[sizeof(r->info.rule) - 1] = '\0';
		if (xfab_percpu_sum(fd_stats, i, (__u64 *)&r->st, sizeof(r->st) / 8))
			memset(&r->st, 0, sizeof(r->st));
		n++;
	}
	qsort(rows, (size_t)n, sizeof(rows[0]), row_cmp);
	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-24s %-20s %8s %15s %15s\n", "RULE NAME", "TABLE NAME", "PRIO",
		       "PACKETS COUNT", "BYTES COUNT");
	for (int i = 0; i < n; i++)
		print_row(&rows[i]);
	if (ctl_json)
		ctl_jw_close(']');
	free(rows);
	return 0;
}

CTL_SHOW(show_acl_obj, "acl", 110, "acl", .view = show_acl,
	 .help = "ingress ACL rules: table, priority, packets, bytes")
