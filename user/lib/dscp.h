/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* SONiC's default DSCP -> traffic class map, written once: the config
 * starts from it, and the RoCE tools pick their lossless priority by it. */
#ifndef XFAB_DSCP_H
#define XFAB_DSCP_H

#include <linux/types.h>

#include "xfab_abi.h"

/* The class of dscp (0..63): 3->3, 4->4, 46->5, 48->6, 8->0, 5->2, any
 * other 1. */
int xfab_default_tc(int dscp);
/* The whole map, as the config's DSCP_TO_TC_MAP starts. */
void xfab_default_dscp_to_tc(__u8 map[XFAB_NUM_DSCP]);

#endif
