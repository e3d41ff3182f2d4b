// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "maps.h"

#include <stddef.h>

#define DESC(name, type, arr)                                                                      \
	{                                                                                          \
		name, sizeof(struct type), sizeof(((struct type *)0)->key),                        \
		    offsetof(struct type, val), sizeof(((struct type *)0)->val), arr               \
	}

const struct xfab_table_desc xfab_table_descs[XFAB_T_COUNT] = {
    [XFAB_T_SETTINGS] = DESC(XFAB_MAP_SETTINGS, xfab_e_settings, 1),
    [XFAB_T_PORTS] = DESC(XFAB_MAP_PORTS, xfab_e_port, 1),
    [XFAB_T_TX_PORTS] = DESC(XFAB_MAP_TX_PORTS, xfab_e_txport, 0),
    [XFAB_T_NEXTHOPS] = DESC(XFAB_MAP_NEXTHOPS, xfab_e_nexthop, 1),
    [XFAB_T_GROUPS] = DESC(XFAB_MAP_GROUPS, xfab_e_group, 1),
    [XFAB_T_ROUTES_V4] = DESC(XFAB_MAP_ROUTES_V4, xfab_e_route_v4, 0),
    [XFAB_T_ROUTES_V6] = DESC(XFAB_MAP_ROUTES_V6, xfab_e_route_v6, 0),
    [XFAB_T_NEIGHBORS] = DESC(XFAB_MAP_NEIGHBORS, xfab_e_neigh, 0),
    [XFAB_T_DSCP_TO_TC] = DESC(XFAB_MAP_DSCP_TO_TC, xfab_e_dscp, 1),
    [XFAB_T_QUEUE_CFG] = DESC(XFAB_MAP_QUEUE_CFG, xfab_e_queue, 1),
    [XFAB_T_PFC_CFG] = DESC(XFAB_MAP_PFC_CFG, xfab_e_pfc, 1),
    [XFAB_T_VTEP] = DESC(XFAB_MAP_VTEP, xfab_e_vtep, 1),
    [XFAB_T_VNETS] = DESC(XFAB_MAP_VNETS, xfab_e_vnet, 1),
    [XFAB_T_VNI_TO_VNET] = DESC(XFAB_MAP_VNI_TO_VNET, xfab_e_vni, 0),
    [XFAB_T_VNET_TUNNELS] = DESC(XFAB_MAP_VNET_TUNNELS, xfab_e_tunnel, 1),
    [XFAB_T_COPP_CFG] = DESC(XFAB_MAP_COPP_CFG, xfab_e_copp, 1),
    [XFAB_T_ACL_PORTS] = DESC(XFAB_MAP_ACL_PORTS, xfab_e_acl_port, 1), /* ACL */
    [XFAB_T_ACL_RULES] = DESC(XFAB_MAP_ACL_RULES, xfab_e_acl_rule, 1), /* ACL */
    [XFAB_T_ACL_INFO] = DESC(XFAB_MAP_ACL_INFO, xfab_e_acl_info, 1),   /* ACL */
};
