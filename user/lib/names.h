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
const char *xfab_route_type_name(__u32 type);
/* Where a route came from, as `show routes` prints it: connected, local,
 * static (the config), te (a runtime pin), or a mirrored kernel route's
 * protocol (bgp, static, kernel, ospf, or its number); buf holds the last. */
const char *xfab_route_origin_name(const struct xfab_route *rt, char *buf, size_t len);
const char *xfab_lb_name(__u32 event);

/* How many entries the X-macro lists hold (tests compare with *_MAX). */
extern const unsigned int xfab_drop_reason_count;
extern const unsigned int xfab_punt_reason_count;

#endif
