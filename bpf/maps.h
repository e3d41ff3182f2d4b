/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* xfab tables. Layouts live in include/xfab_abi.h; xfabd writes every table
 * except the counters, which only the data plane writes. */
#ifndef XFAB_BPF_MAPS_H
#define XFAB_BPF_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"

/* abi: [0] -> the ABI version of these maps (struct xfab_abi_info); written
 * by xfabd at load, checked by xfabctl. The data plane never reads it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xfab_abi_info);
} abi SEC(".maps");

/* ports: ifindex -> port (MAC, counter slot, state, MTU); an entry whose
 * ifindex field is 0 is no port. Indexed directly: lookups are array loads. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_IFINDEX);
	__type(key, __u32);
	__type(value, struct xfab_port);
} ports SEC(".maps");

/* tx_ports: port slot -> egress device for bpf_redirect_map (xdp datapath).
 * An array, so the redirect indexes it instead of hashing an ifindex. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, XFAB_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_ports SEC(".maps");

/* port_dev: ifindex -> the address of the port's struct net_device, or 0
 * (not seen yet). Written by the data plane only, from what the kernel
 * hands the port's own programs; read back through probe reads (kern.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_IFINDEX);
	__type(key, __u32);
	__type(value, __u64);
} port_dev SEC(".maps");

/* routes_v4/v6: {table, prefix} -> route. Sized for full-table tests. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, XFAB_MAX_ROUTES_V4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xfab_lpm_v4_key);
	__type(value, struct xfab_route);
} routes_v4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, XFAB_MAX_ROUTES_V6);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xfab_lpm_v6_key);
	__type(value, struct xfab_route);
} routes_v6 SEC(".maps");

/* fib4_tbl16/fib4_tbl8, fib6_tbl16/fib6_tbl8: the FIBs of table 0 (see
 * xfab_abi.h). Mmapable: xfabd writes entries with plain stores, no syscall
 * per entry. Array elements are 8-byte aligned, so each holds two 32-bit
 * entries (2k and 2k+1): the mmapped memory is a dense array of entries.
 * The group arrays' size is xfabd's to set at load (the table's size). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_FIB4_TBL16_SIZE / 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} fib4_tbl16 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_FIB_GROUPS_DEFAULT * 256 / 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} fib4_tbl8 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_FIB6_TBL16_SIZE / 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} fib6_tbl16 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_FIB_GROUPS_DEFAULT * 256 / 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} fib6_tbl8 SEC(".maps");

/* nexthops: id -> egress port + resolved neighbour MAC. Id 0 is never valid. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_NEXTHOPS);
	__type(key, __u32);
	__type(value, struct xfab_nexthop);
} nexthops SEC(".maps");

/* nh_groups: id -> members and fixed bucket table (see xfab_abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct xfab_group);
} nh_groups SEC(".maps");

/* neighbors: {ifindex, family, addr} -> MAC, learnt from the kernel over
 * netlink or set statically; used for directly connected destinations. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XFAB_MAX_NEIGHBORS);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* memory for the neighbours there are */
	__type(key, struct xfab_neigh_key);
	__type(value, struct xfab_neigh);
} neighbors SEC(".maps");

/* settings: [0] -> switch-wide knobs (hash seed). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xfab_settings);
} settings SEC(".maps");

/* Counters, per CPU; readers sum across CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xfab_port_stats);
} port_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_DROP_MAX);
	__type(key, __u32);
	__type(value, struct xfab_reason_stats);
} drop_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_PUNT_MAX);
	__type(key, __u32);
	__type(value, struct xfab_reason_stats);
} punt_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_FAST_MISS_MAX);
	__type(key, __u32);
	__type(value, struct xfab_reason_stats);
} fast_stats SEC(".maps");

/* CoPP (copp.h): each group's meter (xfabd's), its bucket (the data
 * plane's, one for every CPU, under its lock) and its counters. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_COPP_GROUPS);
	__type(key, __u32);
	__type(value, struct xfab_copp_cfg);
} copp_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_COPP_GROUPS);
	__type(key, __u32);
	__type(value, struct xfab_copp_state);
} copp_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_COPP_GROUPS);
	__type(key, __u32);
	__type(value, struct xfab_copp_stats);
} copp_stats SEC(".maps");

/* flowlets: slot (XFAB_FLOWLET_SLOT of hash and group) -> current member,
 * last packet time; see xfab_abi.h. Mmapable for xfabctl. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_FLOWLETS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xfab_flowlet);
} flowlets SEC(".maps");

/* port_load: slot -> bytes sent in the current and the previous window;
 * shared by all CPUs (atomic adds) so least-loaded sees the whole port. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xfab_port_load);
} port_load SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_LB_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lb_stats SEC(".maps");

/* dscp_to_tc: DSCP -> traffic class (SONiC's map unless configured). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_NUM_DSCP);
	__type(key, __u32);
	__type(value, __u32);
} dscp_to_tc SEC(".maps");

/* queue_cfg / queue_state / queue_stats / queue_watermark: per (port slot,
 * traffic class); see xfab_abi.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_queue_cfg);
} queue_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_queue_state);
} queue_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_queue_stats);
} queue_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_queue_watermark);
} queue_watermark SEC(".maps");

/* pfc_cfg: slot -> the port's PFC settings (xfabd). pfc_state: (slot,
 * prio) -> pause received, ingress occupancy (data plane). pfc_queue:
 * (slot, prio) -> gate, pause frames sent, watchdog (xfabd). pfc_events:
 * pause changes and XOFF/XON crossings, to xfabd. Layouts: xfab_abi.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xfab_pfc_cfg);
} pfc_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_pfc_state);
} pfc_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct xfab_pfc_queue);
} pfc_queue SEC(".maps");

/* pfc_egress: (out slot, in slot, prio) -> bytes of the PG queued at
 * that egress (xfab_abi.h); mmapable: xfabd's safety net reads and resets
 * entries with atomics, no syscall per entry. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_PFC_EG_ENTRIES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} pfc_egress SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} pfc_events SEC(".maps");

/* VXLAN overlay (see xfab_abi.h): the VTEP, the VNETs and their VNIs, the
 * tunnel routes' encapsulations (xfabd); per-VNET counters (data plane). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xfab_vtep);
} vtep SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_VNETS);
	__type(key, __u32);
	__type(value, struct xfab_vnet);
} vnets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XFAB_MAX_VNETS);
	__type(key, __u32);
	__type(value, __u32);
} vni_to_vnet SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_TUNNEL_ROUTES);
	__type(key, __u32);
	__type(value, struct xfab_tunnel_route);
} vnet_tunnels SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_MAX_VNETS);
	__type(key, __u32);
	__type(value, struct xfab_vnet_stats);
} vnet_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_MAX_VNETS *XFAB_VNET_DROP_REASONS);
	__type(key, __u32);
	__type(value, struct xfab_reason_stats);
} vnet_drops SEC(".maps");

#endif
