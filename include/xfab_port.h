/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ports' part of the ABI (included by xfab_abi.h): the port table the
 * pipeline starts and ends with, its slots, and the per-port counters.
 */
#ifndef XFAB_PORT_H
#define XFAB_PORT_H

#include <linux/types.h>

#define XFAB_MAX_PORTS 64     /* port slots (counters are indexed by slot) */
#define XFAB_MAX_IFINDEX 4096 /* ports table: an array indexed by ifindex */

/* ---- ports: ARRAY, ifindex -> struct xfab_port (ifindex 0: no port); written
 * by xfabd. An array, so the two lookups a packet needs are plain loads. ---- */
#define XFAB_PORT_ADMIN_UP (1u << 0)
#define XFAB_PORT_OPER_UP (1u << 1)
#define XFAB_PORT_UP (XFAB_PORT_ADMIN_UP | XFAB_PORT_OPER_UP)
#define XFAB_PORT_QUEUED (1u << 2) /* a rate or a WRED profile: run the queue stage */
#define XFAB_PORT_LOSSLESS                                                                         \
	(1u << 3) /* PFC on some priority: xdp hands its lossless classes to tc */

enum xfab_datapath {
	XFAB_DP_XDP = 0,
	XFAB_DP_TC = 1,
};

struct xfab_port {
	__u8 mac[6]; /* router MAC of this port (source MAC on egress) */
	__u16 slot;  /* 0..XFAB_MAX_PORTS-1: index of counters */
	__u32 ifindex;
	__u32 flags;   /* XFAB_PORT_* */
	__u16 mtu;     /* L3 MTU */
	__u8 datapath; /* enum xfab_datapath */
	__u8 vnet;     /* tenant (VNET id) of a host-facing port; 0: underlay */
	char name[16]; /* interface name, so readers need no netns */
};
_Static_assert(sizeof(struct xfab_port) == 36, "xfab_port layout");

/* ---- counters: PERCPU_ARRAY; summed by xfabctl ---- */
struct xfab_port_stats {
	__u64 rx_packets;
	__u64 rx_bytes;
	__u64 tx_packets; /* forwarded out of this port by xfab */
	__u64 tx_bytes;
	__u64 drops; /* dropped on ingress at this port */
	__u64 punts; /* handed to the kernel at this port */
};
_Static_assert(sizeof(struct xfab_port_stats) == 48, "port stats");

/* The ports' maps: the port table, the xdp datapath's DEVMAP (tx_ports),
 * the devices the data plane saw (port_dev), the counters. */
#define XFAB_MAP_PORTS "ports"
#define XFAB_MAP_TX_PORTS "tx_ports"
#define XFAB_MAP_PORT_DEV "port_dev"
#define XFAB_MAP_PORT_STATS "port_stats"

#endif /* XFAB_PORT_H */
