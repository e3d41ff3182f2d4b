/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Names of ABI enums, for `xfabctl`, traces and metrics. Drop and punt
 * reasons come from the one list in xfab_abi.h (XFAB_DROP_REASONS,
 * XFAB_PUNT_REASONS); a value outside a list is "unknown". */
#ifndef XFAB_NAMES_H
#define XFAB_NAMES_H

#include <linux/types.h>
#include <stddef.h>

#include "xfab_abi.h"

const char *xfab_drop_name(__u32 reason);
const char *xfab_drop_help(__u32 reason);
const char *xfab_punt_name(__u32 reason);
const char *xfab_punt_help(__u32 reason);
/* Why the fast path left a packet to the pipeline (XFAB_FAST_MISSES). */
const char *xfab_fast_miss_name(__u32 why);
const char *xfab_fast_miss_help(__u32 why);
const char *xfab_route_type_name(__u32 type);
/* Where a route came from, as `show routes` prints it: connected, local,
 * static (the config), te (a runtime pin), or a mirrored kernel route's
 * protocol (bgp, static, kernel, ospf, or its number); buf holds the last. */
const char *xfab_route_origin_name(const struct xfab_route *rt, char *buf, size_t len);
const char *xfab_lb_name(__u32 event);
/* CoPP groups (XFAB_COPP_GROUP_LIST): name, SONiC trap ids ("bgp,bgpv6"),
 * default meter; a group outside the list is "unknown" (0 for figures). */
const char *xfab_copp_group_name(__u32 group);
const char *xfab_copp_group_traps(__u32 group);
__u32 xfab_copp_default_cir(__u32 group);
__u32 xfab_copp_default_cbs(__u32 group);
/* The group named name, or -1. */
int xfab_copp_group_by_name(const char *name);

/* How many entries the X-macro lists hold (tests compare with *_MAX). */
extern const unsigned int xfab_drop_reason_count;
extern const unsigned int xfab_punt_reason_count;

#endif
