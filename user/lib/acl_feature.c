// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ACL as a feature of the registry (feature.h): SONiC's ACL_TABLE and
 * ACL_RULE, L3/L3V6 ingress (docs/ACL.md). Its parse step reads both tables
 * together (a rule names its table); its build step hands the compiled
 * entries (acl_compile.c) to the base tables' image. The per-rule counters
 * are state, kept across a restart like every other counter; a reload that
 * adds or removes rules moves them (a counter is the rule's position).
 */
#include <errno.h>
#include <string.h>

#include "acl.h"
#include "compile_base.h"
#include "feature.h"
#include "json.h"
#include "maps.h"

static void cfg_read_acl(struct ctx *c, const struct json_value *root)
{
	cfg_parse_acl(c, xfab_json_get(root, "ACL_TABLE"), xfab_json_get(root, "ACL_RULE"));
}

static int acl_push(void *arg, int t, const void *entry)
{
	void *e = xfab_base_push(arg, (enum xfab_table)t);

	if (!e)
		return -ENOMEM;
	memcpy(e, entry, xfab_table_descs[t].entry_size);
	return 0;
}

static int xfab_build_acl(struct xfab_base_build *b)
{
	return xfab_acl_build(b->cfg, acl_push, b);
}

static unsigned int acl_code(const struct xfab_config *cfg)
{
	return cfg->acl.n_tables ? XFAB_CODE_ACL : 0;
}

/* Parsed over a clean L3 base: a table binds ports that must be valid. */
const struct xfab_feature xfab_feature_acl = {
    .name = "acl",
    .tables = XFAB_FEAT_LIST("ACL_TABLE", "ACL_RULE"),
    .parse = cfg_read_acl,
    .build = xfab_build_acl,
    .maps = XFAB_FEAT_LIST(XFAB_MAP_ACL_PORTS, XFAB_MAP_ACL_RULES, XFAB_MAP_ACL_STATS,
			   XFAB_MAP_ACL_INFO),
    .state_maps = XFAB_FEAT_LIST(XFAB_MAP_ACL_STATS),
    .flags = XFAB_FEAT_NEEDS_L3,
    .code = XFAB_CODE_ACL,
    .code_for = acl_code,
};
