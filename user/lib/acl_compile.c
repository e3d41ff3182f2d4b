// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ACL compiler (docs/ACL.md): each port's row of match records, the
 * rules of every table bound to it sorted by priority, so the data plane's
 * first match is the highest priority one (bpf/acl.h); and each rule's
 * names for the readers. Called by the base build (compile_base.c) at start
 * and at every reload alike.
 */
#include "acl.h"
#include "config.h"
#include "maps.h"

#include <stdio.h>
#include <string.h>

/* a goes before b: highest priority first; a tie goes to the rule first
 * in the config (indexes are config order), so the order is total. */
static int rule_before(const struct xfab_cfg_acl *acl, int a, int b)
{
	__u32 pa = acl->rules[a].priority, pb = acl->rules[b].priority;

	return pa != pb ? pa > pb : a < b;
}

int xfab_acl_port_rules(const struct xfab_config *cfg, int p, int *idx, int max)
{
	const struct xfab_cfg_acl *acl = &cfg->acl;
	int all[XFAB_ACL_MAX_COUNTERS] = {0}, n = 0;

	/* insertion sort: a few hundred rules at most, no shared state */
	for (int r = 0; r < acl->n_rules; r++) {
		int i = n;

		if (!(acl->tables[acl->rules[r].table].ports & (1ull << p)))
			continue;
		while (i > 0 && rule_before(acl, r, all[i - 1])) {
			all[i] = all[i - 1];
			i--;
		}
		all[i] = r;
		n++;
	}
	memcpy(idx, all, sizeof(all[0]) * (size_t)(n < max ? n : max));
	return n;
}

static int build_port(const struct xfab_config *cfg, int p, xfab_acl_emit_fn emit, void *arg)
{
	int idx[XFAB_ACL_MAX_RULES], n, err;
	struct xfab_e_acl_port port = {.key = (__u32)p};

	n = xfab_acl_port_rules(cfg, p, idx, XFAB_ACL_MAX_RULES);
	if (n == 0)
		return 0;
	if (n > XFAB_ACL_MAX_RULES) /* the parser refuses it */
		n = XFAB_ACL_MAX_RULES;
	for (int i = 0; i < n; i++) {
		struct xfab_e_acl_rule e = {.key = XFAB_ACL_ROW(p, i)};

		e.val = cfg->acl.rules[idx[i]].match;
		err = emit(arg, XFAB_T_ACL_RULES, &e);
		if (err)
			return err;
	}
	port.val.n_rules = (__u32)n;
	return emit(arg, XFAB_T_ACL_PORTS, &port);
}

int xfab_acl_build(const struct xfab_config *cfg, xfab_acl_emit_fn emit, void *arg)
{
	const struct xfab_cfg_acl *acl = &cfg->acl;
	int err;

	for (int r = 0; r < acl->n_rules; r++) {
		const struct xfab_cfg_acl_rule *rule = &acl->rules[r];
		struct xfab_e_acl_info e = {.key = (__u32)r};

		snprintf(e.val.table, sizeof(e.val.table), "%s", acl->tables[rule->table].name);
		snprintf(e.val.rule, sizeof(e.val.rule), "%s", rule->name);
		e.val.priority = rule->priority;
		e.val.action = rule->match.action;
		e.val.used = 1;
		err = emit(arg, XFAB_T_ACL_INFO, &e);
		if (err)
			return err;
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		err = build_port(cfg, p, emit, arg);
		if (err)
			return err;
	}
	return 0;
}
