// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names and help texts, generated from the lists in xfab_abi.h. */
#include "names.h"
#include "nlroute.h"

#include <string.h>

#define NAME_ENTRY(id, name, help) name,
#define HELP_ENTRY(id, name, help) help,
#define COUNT_ENTRY(id, name, help) +1

static const char *const drop_names[] = {XFAB_DROP_REASONS(NAME_ENTRY)};
static const char *const drop_helps[] = {XFAB_DROP_REASONS(HELP_ENTRY)};
static const char *const punt_names[] = {XFAB_PUNT_REASONS(NAME_ENTRY)};
static const char *const punt_helps[] = {XFAB_PUNT_REASONS(HELP_ENTRY)};
static const char *const fast_names[] = {XFAB_FAST_MISSES(NAME_ENTRY)};
static const char *const fast_helps[] = {XFAB_FAST_MISSES(HELP_ENTRY)};

const unsigned int xfab_drop_reason_count = 0 XFAB_DROP_REASONS(COUNT_ENTRY);
const unsigned int xfab_punt_reason_count = 0 XFAB_PUNT_REASONS(COUNT_ENTRY);

/* The enum is generated from the same list: it cannot disagree. */
_Static_assert(sizeof(drop_names) / sizeof(drop_names[0]) == XFAB_DROP_MAX, "drop names");
_Static_assert(sizeof(punt_names) / sizeof(punt_names[0]) == XFAB_PUNT_MAX, "punt names");
_Static_assert(sizeof(fast_names) / sizeof(fast_names[0]) == XFAB_FAST_MISS_MAX, "fast names");

#define COPP_NAME(id, name, traps, cir, cbs) name,
#define COPP_TRAPS(id, name, traps, cir, cbs) traps,
#define COPP_CIR(id, name, traps, cir, cbs) cir,
#define COPP_CBS(id, name, traps, cir, cbs) cbs,
static const char *const copp_names[] = {XFAB_COPP_GROUP_LIST(COPP_NAME)};
static const char *const copp_traps[] = {XFAB_COPP_GROUP_LIST(COPP_TRAPS)};
static const __u32 copp_cir[] = {XFAB_COPP_GROUP_LIST(COPP_CIR)};
static const __u32 copp_cbs[] = {XFAB_COPP_GROUP_LIST(COPP_CBS)};
_Static_assert(sizeof(copp_names) / sizeof(copp_names[0]) == XFAB_COPP_GROUPS, "copp names");

const char *xfab_copp_group_name(__u32 group)
{
	return group < XFAB_COPP_GROUPS ? copp_names[group] : "unknown";
}

const char *xfab_copp_group_traps(__u32 group)
{
	return group < XFAB_COPP_GROUPS ? copp_traps[group] : "unknown";
}

__u32 xfab_copp_default_cir(__u32 group)
{
	return group < XFAB_COPP_GROUPS ? copp_cir[group] : 0;
}

__u32 xfab_copp_default_cbs(__u32 group)
{
	return group < XFAB_COPP_GROUPS ? copp_cbs[group] : 0;
}

int xfab_copp_group_by_name(const char *name)
{
	for (int g = 0; g < XFAB_COPP_GROUPS; g++)
		if (!strcmp(copp_names[g], name))
			return g;
	return -1;
}

const char *xfab_drop_name(__u32 reason)
{
	return reason < XFAB_DROP_MAX ? drop_names[reason] : "unknown";
}

const char *xfab_drop_help(__u32 reason)
{
	return reason < XFAB_DROP_MAX ? drop_helps[reason] : "unknown drop reason";
}

const char *xfab_punt_name(__u32 reason)
{
	return reason < XFAB_PUNT_MAX ? punt_names[reason] : "unknown";
}

const char *xfab_punt_help(__u32 reason)
{
	return reason < XFAB_PUNT_MAX ? punt_helps[reason] : "unknown punt reason";
}

const char *xfab_fast_miss_name(__u32 why)
{
	return why < XFAB_FAST_MISS_MAX ? fast_names[why] : "unknown";
}

const char *xfab_fast_miss_help(__u32 why)
{
	return why < XFAB_FAST_MISS_MAX ? fast_helps[why] : "unknown reason";
}

static const char *const lb_names[XFAB_LB_MAX] = {
    [XFAB_LB_FLOWLET_HIT] = "flowlet_continued",
    [XFAB_LB_FLOWLET_NEW] = "flowlet_started",
    [XFAB_LB_FLOWLET_MOVED] = "flowlet_path_changed",
    [XFAB_LB_FLOWLET_DEAD] = "flowlet_member_down",
    [XFAB_LB_TE_HIT] = "te_steered",
    [XFAB_LB_TE_FALLBACK] = "te_fallback",
    [XFAB_LB_REPAIRED] = "repaired",
    [XFAB_LB_SPLIT_HORIZON] = "split_horizon",
    [XFAB_LB_REROUTED] = "rerouted",
};

const char *xfab_lb_name(__u32 event)
{
	return event < XFAB_LB_MAX && lb_names[event] ? lb_names[event] : "unknown";
}

const char *xfab_route_origin_name(const struct xfab_route *rt, char *buf, size_t len)
{
	switch (rt->source) {
	case XFAB_RSRC_CONNECTED:
		return rt->type == XFAB_RT_LOCAL ? "local" : "connected";
	case XFAB_RSRC_STATIC:
		return "static";
	case XFAB_RSRC_TE_PIN:
		return "te";
	case XFAB_RSRC_KERNEL:
		return xfab_nl_protocol_name(rt->protocol, buf, len);
	default:
		return "unknown";
	}
}

const char *xfab_route_type_name(__u32 type)
{
	switch (type) {
	case XFAB_RT_NEXTHOP:
		return "nexthop";
	case XFAB_RT_GROUP:
		return "group";
	case XFAB_RT_CONNECTED:
		return "connected";
	case XFAB_RT_LOCAL:
		return "local";
	case XFAB_RT_BLACKHOLE:
		return "blackhole";
	case XFAB_RT_TUNNEL:
		return "tunnel";
	default:
		return "unknown";
	}
}
