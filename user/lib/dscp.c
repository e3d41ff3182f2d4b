// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>

#include "dscp.h"

/* SONiC as shipped: the DSCPs it names, each with its class */
static const struct {
	__u8 dscp, tc;
} sonic_default[] = {{3, 3}, {4, 4}, {46, 5}, {48, 6}, {8, 0}, {5, 2}};

int xfab_default_tc(int dscp)
{
	for (size_t i = 0; i < sizeof(sonic_default) / sizeof(sonic_default[0]); i++)
		if (sonic_default[i].dscp == dscp)
			return sonic_default[i].tc;
	return 1; /* every DSCP it does not name */
}

void xfab_default_dscp_to_tc(__u8 map[XFAB_NUM_DSCP])
{
	for (int d = 0; d < XFAB_NUM_DSCP; d++)
		map[d] = (__u8)xfab_default_tc(d);
}
