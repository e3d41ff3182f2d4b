// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The VXLAN overlay through both entry points (xfab_xdp and xfab_tc), byte
 * for byte: tenant routing, encapsulation, decapsulation, RFC 6040, the
 * MTU rule, isolation between tenants with the same addresses, and every
 * malformed case with its reason. An encapsulation is the fast path's
 * when it is loaded (bpf/fast.h; the pipeline's otherwise, run-all's
 * "pipeline only" run): each case checks which path ran.
 *
 * The underlay comes from a config (the compiler xfabd uses); the overlay's
 * tables are written here directly, entry by entry, so these tests do not
 * share the config compiler of the overlay. Expected frames are built
 * with the frame builder (user/lib/frame.c, its own checksums) from what
 * RFC 7348 and RFC 6040 say the bytes must be, never from the data plane.
 *
 * Ports: p1 and p5 belong to Vnet_1 (VNI 1000), p4 to Vnet_2 (VNI 2000000,
 * all three of its bytes set),
 * and p1 and p4 carry the same subnet, 10.100.1.0/24. p2 and p3 are the
 * uplinks to two spines (MTU 1400); remote VTEPs 10.255.0.0/24 are ECMP
 * over both. This switch's VTEP is 10.255.0.1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"
#include "names.h"
#include "oracle.h"
#include "xfab_hash.h"

#define N_PORTS 5
#define P1 0 /* Vnet_1: 10.100.1.0/24, host h1 */
#define P2 1 /* uplink to spine A (10.0.2.1) */
#define P3 2 /* uplink to spine B (10.0.3.1) */
#define P4 3 /* Vnet_2: 10.100.1.0/24 too, host h4 */
#define P5 4 /* Vnet_1: 10.100.2.0/24, host h5 */
#define VNI1 1000
#define VNI2 2000000
/* a nexthop id the config's compiler leaves free (it counts from 1) */
#define TENANT_NH 4000

static const __u8 host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
static const __u8 h1_mac[6] = {0x02, 0, 0, 0, 0x01, 0x02};
static const __u8 h4_mac[6] = {0x02, 0, 0, 0, 0x04, 0x02};
static const __u8 h5_mac[6] = {0x02, 0, 0, 0, 0x05, 0x02};
static const __u8 gw_mac[N_PORTS][6] = {
    {0}, {0x02, 0, 0, 0, 0x02, 0x01}, {0x02, 0, 0, 0, 0x03, 0x01}};
static const __u8 vtep_mac[6] = {0x02, 0, 0, 0, 0xff, 0x01};
static const __u8 route_mac[6] = {0x02, 0xcc, 0, 0, 0, 0x01};
static const __u8 spine_mac[6] = {0x02, 0xdd, 0, 0, 0, 0x02}; /* a decapsulated frame's sender */

static const char *config_text =
    "{\n"
    " \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"vxlan-test\", \"hash_seed\": "
    "\"777\"}},\n"
    " \"PORT\": {\"p1\": {}, \"p2\": {\"mtu\": \"1400\"}, \"p3\": {\"mtu\": \"1400\"},\n"
    "   \"p4\": {}, \"p5\": {}},\n"
    " \"INTERFACE\": {\"p2|10.0.2.2/24\": {}, \"p3|10.0.3.0/31\": {}},\n"
    " \"ROUTE\": {\"10.255.0.0/24\": {\"nexthop\": \"10.0.2.1,10.0.3.1\"},\n"
    "   \"10.255.1.0/24\": {\"nexthop\": \"10.0.2.9\"},\n"
    "   \"10.100.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"
    "   \"10.200.0.0/16\": {\"nexthop\": \"10.0.2.1\"}},\n"
    " \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p3|10.0.3.1\": {\"neigh\": \"02:00:00:00:03:01\"}},\n"
    /* the underlay's ECMP leaves the source address out (the outer one is
     * always this VTEP's), the tunnel's hash never does: their keys differ */
    " \"ECMP\": {\"global\": {\"hash_fields\": "
    "\"DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT\"}}\n"
    "}\n";

static struct harness H;

/* ---- the overlay's tables, written entry by entry ---- */

static void set_vnet_port(int port, __u8 vnet)
{
	int fd = h_map_fd(&H, XFAB_MAP_PORTS);
	struct xfab_port p;

	assert_int_equal(bpf_map_lookup_elem(fd, &H.ifindex[port], &p), 0);
	assert_int_equal(p.ifindex, H.ifindex[port]);
	p.vnet = vnet;
	assert_int_equal(bpf_map_update_elem(fd, &H.ifindex[port], &p, BPF_ANY), 0);
}

static void route(__u32 vnet, const char *prefix, __u8 type, __u32 id)
{
	struct xfab_route rt = {.type = type, .source = XFAB_RSRC_STATIC, .id = id};
	char addr[64];
	char *slash;
	int plen;

	snprintf(addr, sizeof(addr), "%s", prefix);
	slash = strchr(addr, '/');
	assert_non_null(slash);
	*slash = '\0';
	plen = atoi(slash + 1);
	if (strchr(addr, ':')) {
		struct xfab_lpm_v6_key k = {.prefixlen = 32 + (__u32)plen,
					    .table = htonl(XFAB_TABLE_VNET | vnet)};

		assert_int_equal(inet_pton(AF_INET6, addr, k.addr), 1);
		assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_ROUTES_V6), &k, &rt, 0),
				 0);
	} else {
		struct xfab_lpm_v4_key k = {.prefixlen = 32 + (__u32)plen,
					    .table = htonl(XFAB_TABLE_VNET | vnet)};

		assert_int_equal(inet_pton(AF_INET, addr, k.addr), 1);
		assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_ROUTES_V4), &k, &rt, 0),
				 0);
	}
}

static void tunnel(__u32 id, __u32 vni, const __u8 *mac, const char *ep1, const char *ep2)
{
	struct xfab_tunnel_route t = {.vni = vni, .num_endpoints = ep2 ? 2 : 1};

	if (mac)
		memcpy(t.mac, mac, 6);
	assert_int_equal(inet_pton(AF_INET, ep1, &t.endpoints[0]), 1);
	if (ep2)
		assert_int_equal(inet_pton(AF_INET, ep2, &t.endpoints[1]), 1);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNET_TUNNELS), &id, &t, 0), 0);
}

/* Nexthop id, resolved to mac out of tenant port `port`: its record as
 * the data plane reads it (the egress port's figures from its entry). */
static void tenant_nexthop(__u32 id, int port, const __u8 *mac)
{
	struct xfab_nexthop nh = {.ifindex = H.ifindex[port],
				  .flags = XFAB_NH_VALID | XFAB_NH_RESOLVED};
	struct xfab_port pe;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_PORTS), &H.ifindex[port], &pe),
			 0);
	memcpy(nh.dmac, mac, 6);
	memcpy(nh.port.smac, pe.mac, 6);
	nh.port.slot = pe.slot;
	nh.port.mtu = pe.mtu;
	nh.port.vnet = pe.vnet;
	nh.port.flags = pe.flags;
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_NEXTHOPS], &id, &nh, BPF_ANY), 0);
}

static void neigh(int port, const char *addr, const __u8 *mac)
{
	struct xfab_neigh_key k = {.ifindex = H.ifindex[port]};
	struct xfab_neigh v = {0};

	if (strchr(addr, ':')) {
		k.family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, addr, k.addr), 1);
	} else {
		k.family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, addr, k.addr), 1);
	}
	memcpy(v.mac, mac, 6);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_NEIGHBORS), &k, &v, 0), 0);
}

static void neigh_delete(int port, const char *addr)
{
	struct xfab_neigh_key k = {.ifindex = H.ifindex[port], .family = AF_INET};

	assert_int_equal(inet_pton(AF_INET, addr, k.addr), 1);
	assert_int_equal(bpf_map_delete_elem(h_map_fd(&H, XFAB_MAP_NEIGHBORS), &k), 0);
}

static void set_vtep(__u32 flags)
{
	struct xfab_vtep v = {.flags = flags, .udp_port = XFAB_VXLAN_UDP_PORT, .name = "vtep1"};
	__u32 zero = 0;

	memcpy(v.mac, vtep_mac, 6);
	assert_int_equal(inet_pton(AF_INET, "10.255.0.1", &v.src_v4), 1);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VTEP), &zero, &v, 0), 0);
}

static int setup(void **state)
{
	struct xfab_vnet v1 = {.vni = VNI1, .flags = XFAB_VNET_VALID, .name = "Vnet_1"};
	struct xfab_vnet v2 = {.vni = VNI2, .flags = XFAB_VNET_VALID, .name = "Vnet_2"};
	__u32 id1 = 1, id2 = 2, vni1 = VNI1, vni2 = VNI2;

	(void)state;
	if (h_setup(&H, N_PORTS, config_text))
		return -1;
	set_vtep(XFAB_VTEP_ENABLED);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNETS), &id1, &v1, 0), 0);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNETS), &id2, &v2, 0), 0);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNI_TO_VNET), &vni1, &id1, 0),
			 0);
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNI_TO_VNET), &vni2, &id2, 0),
			 0);
	set_vnet_port(P1, 1);
	set_vnet_port(P5, 1);
	set_vnet_port(P4, 2);
	tunnel(1, VNI1, NULL, "10.255.0.2", "10.255.0.3");
	tunnel(2, VNI1, route_mac, "10.255.0.2", NULL);
	tunnel(3, VNI2, NULL, "10.255.0.4", NULL);
	tunnel(4, VNI1, NULL, "10.255.1.5", NULL); /* its underlay next hop is unresolved */
	route(1, "10.100.1.0/24", XFAB_RT_CONNECTED, H.ifindex[P1]);
	route(1, "10.100.1.1/32", XFAB_RT_LOCAL, 0);
	route(1, "10.100.2.0/24", XFAB_RT_CONNECTED, H.ifindex[P5]);
	route(1, "10.200.0.0/16", XFAB_RT_TUNNEL, 1);
	route(1, "10.201.0.0/16", XFAB_RT_TUNNEL, 2);
	route(1, "10.202.0.0/16", XFAB_RT_TUNNEL, 4);
	route(1, "fd64:1::/64", XFAB_RT_CONNECTED, H.ifindex[P1]);
	/* a tenant's routes by a nexthop */
	tenant_nexthop(TENANT_NH, P5, h5_mac);
	route(1, "10.100.3.0/24", XFAB_RT_NEXTHOP, TENANT_NH);
	route(1, "fd64:3::/64", XFAB_RT_NEXTHOP, TENANT_NH);
	route(1, "fd64:200::/48", XFAB_RT_TUNNEL, 1);
	route(2, "10.100.1.0/24", XFAB_RT_CONNECTED, H.ifindex[P4]);
	route(2, "10.200.0.0/16", XFAB_RT_TUNNEL, 3);
	/* a misconfiguration the data plane still refuses: Vnet_2 -> p1 */
	route(2, "10.100.2.0/24", XFAB_RT_CONNECTED, H.ifindex[P1]);
	neigh(P1, "10.100.1.2", h1_mac);
	neigh(P1, "fd64:1::2", h1_mac);
	neigh(P4, "10.100.1.2", h4_mac);
	neigh(P5, "10.100.2.2", h5_mac);
	neigh(P1, "10.100.2.2", h5_mac); /* so the cross-VNET route resolves */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_teardown(&H);
	return 0;
}

/* ---- frames ---- */

struct pkt {
	__u8 b[2048];
	size_t len;
};

/* A tenant packet as a host sends it (payload bytes numbered). */
struct inner {
	const char *src, *dst;
	__u8 proto, tos, ttl;
	__u16 sport, dport;
	int payload;
	int df;
};

static __u8 payload_bytes[1600];

static void describe(const struct inner *in, struct xfab_frame *d, const __u8 *dmac,
		     const __u8 *smac)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < sizeof(payload_bytes); i++)
		payload_bytes[i] = (__u8)(0x3c ^ i);
	memcpy(d->dmac, dmac, 6);
	memcpy(d->smac, smac, 6);
	assert_int_equal(xfab_frame_addrs(d, in->src, in->dst), 0);
	d->ip4.ttl = d->ip6.hop_limit = in->ttl;
	d->ip4.tos = d->ip6.tclass = in->tos;
	d->ip4.frag = in->df ? 0x4000 : 0;
	d->l4.proto = in->proto;
	d->l4.sport = in->sport;
	d->l4.dport = in->dport;
	d->l4.tcp_flags = 0x10;
	d->payload = payload_bytes;
	d->payload_len = (size_t)in->payload;
}

static void emit(const struct xfab_frame *d, struct pkt *p)
{
	long n = xfab_frame_build(d, p->b, sizeof(p->b), NULL);

	assert_true(n > 0);
	p->len = (size_t)n;
}

/* The outer frame around `inner` (already as the tunnel carries it). */
static void describe_outer(struct xfab_frame *o, const struct xfab_frame *inner, const __u8 *dmac,
			   const __u8 *smac, const char *src, const char *dst, __u8 tos,
			   __u16 sport, __u32 vni)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->dmac, dmac, 6);
	memcpy(o->smac, smac, 6);
	assert_int_equal(xfab_frame_addrs(o, src, dst), 0);
	o->ip4.tos = tos;
	o->ip4.ttl = XFAB_VXLAN_TTL;
	o->ip4.frag = 0x4000; /* DF */
	o->l4.proto = IPPROTO_UDP;
	o->l4.sport = sport;
	o->l4.dport = 4789;
	o->l4.set = XFAB_FRAME_SET_CHECK; /* checksum 0 (RFC 7348) */
	o->l4.check = 0;
	o->vxlan.present = 1;
	o->vxlan.vni = vni;
	o->vxlan.inner = inner;
}

static __u32 verdict(int tc, int act)
{
	if (tc)
		return act == XFAB_ACT_FORWARD ? TC_ACT_REDIRECT
		       : act == XFAB_ACT_PUNT  ? TC_ACT_OK
					       : TC_ACT_SHOT;
	return act == XFAB_ACT_FORWARD ? XDP_REDIRECT : act == XFAB_ACT_PUNT ? XDP_PASS : XDP_DROP;
}

static __u64 tx_of(int port)
{
	struct xfab_port p;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_PORTS), &H.ifindex[port], &p),
			 0);
	return h_percpu_u64(&H, XFAB_MAP_PORT_STATS, p.slot,
			    offsetof(struct xfab_port_stats, tx_packets) / 8, 6);
}

static __u64 reason_count(const char *map, __u32 reason)
{
	return h_percpu_u64(&H, map, reason, 0, 2);
}

static __u64 vnet_stat(__u32 vnet, size_t field)
{
	return h_percpu_u64(&H, XFAB_MAP_VNET_STATS, vnet, field / 8, 6);
}

/* Runs a frame; the port it left by (-1: none), checking the verdict. */
static int run(int tc, int in_port, const struct pkt *in, struct pkt *out, int act)
{
	__u64 before[N_PORTS];
	__u32 ret = 0;
	int egress = -1;

	for (int p = 0; p < N_PORTS; p++)
		before[p] = tx_of(p);
	__u64 drops[XFAB_DROP_MAX], punts[XFAB_PUNT_MAX];

	for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
		drops[r] = reason_count(XFAB_MAP_DROP_STATS, r);
	for (__u32 r = 0; r < XFAB_PUNT_MAX; r++)
		punts[r] = reason_count(XFAB_MAP_PUNT_STATS, r);
	out->len = sizeof(out->b);
	assert_int_equal(h_run(&H, tc, in_port, in->b, in->len, out->b, &out->len, &ret), 0);
	if (ret != verdict(tc, act)) { /* say why */
		for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
			if (reason_count(XFAB_MAP_DROP_STATS, r) != drops[r])
				print_message("%s: dropped: %s\n", tc ? "tc" : "xdp",
					      xfab_drop_name(r));
		for (__u32 r = 0; r < XFAB_PUNT_MAX; r++)
			if (reason_count(XFAB_MAP_PUNT_STATS, r) != punts[r])
				print_message("%s: punted: %s\n", tc ? "tc" : "xdp",
					      xfab_punt_name(r));
	}
	assert_int_equal(ret, verdict(tc, act));
	for (int p = 0; p < N_PORTS; p++)
		if (tx_of(p) != before[p]) {
			assert_int_equal(tx_of(p), before[p] + 1);
			assert_int_equal(egress, -1);
			egress = p;
		}
	assert_int_equal(egress >= 0, act == XFAB_ACT_FORWARD);
	return egress;
}

/* Runs a frame that must be dropped (or punted) for `reason`, both hooks. */
static void expect_reason(int in_port, const struct pkt *in, int act, __u32 reason)
{
	const char *map = act == XFAB_ACT_DROP ? XFAB_MAP_DROP_STATS : XFAB_MAP_PUNT_STATS;
	struct pkt out;

	for (int tc = 0; tc < 2; tc++) {
		__u64 n0 = reason_count(map, reason);

		run(tc, in_port, in, &out, act);
		if (reason_count(map, reason) != n0 + 1)
			print_message("%s: not counted as %s\n", tc ? "tc" : "xdp",
				      act == XFAB_ACT_DROP ? xfab_drop_name(reason)
							   : xfab_punt_name(reason));
		assert_int_equal(reason_count(map, reason), n0 + 1);
		if (act == XFAB_ACT_PUNT) { /* the kernel gets the frame as it came */
			assert_int_equal(out.len, in->len);
			assert_memory_equal(out.b, in->b, in->len);
		}
	}
}

static void assert_bytes(const struct pkt *got, const struct pkt *want)
{
	if (got->len != want->len || memcmp(got->b, want->b, want->len)) {
		for (size_t i = 0; i < got->len && i < want->len; i++)
			if (got->b[i] != want->b[i]) {
				print_message("first difference at byte %zu: got %02x, want %02x\n",
					      i, got->b[i], want->b[i]);
				break;
			}
	}
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->b, want->b, want->len);
}

/* ---- encapsulation ---- */

/* Encapsulates a tenant frame on both hooks and checks every byte: the
 * outer headers from RFC 7348, the inner packet routed (TTL - 1, the
 * VTEP's MACs). The endpoint and source port are read from the frame and
 * checked against their rules; the rest must equal the expectation. */
/* The uplink (P2 or P3) the underlay sends outer frame o to: the member
 * in the bucket of the outer flow's hash (the oracle's, with the loaded
 * ECMP key) of the one two-member group, the remote VTEPs' route's. */
static int uplink_of(const struct pkt *o)
{
	struct xfab_settings cfg;
	struct xfab_group grp;
	struct xfab_nexthop nh;
	__u32 zero = 0, id, nh_id;

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_SETTINGS], &zero, &cfg), 0);
	for (id = 0; id < XFAB_MAX_GROUPS; id++)
		if (!bpf_map_lookup_elem(H.fd[XFAB_T_GROUPS], &id, &grp) && grp.num_members == 2)
			break;
	assert_true(id < XFAB_MAX_GROUPS);
	nh_id = grp.buckets[oracle_flow_hash(&cfg.ecmp_key, o->b + 14, o->len - 14) &
			    (XFAB_GROUP_BUCKETS - 1)];
	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_NEXTHOPS], &nh_id, &nh), 0);
	for (int p = 0; p < N_PORTS; p++)
		if (H.ifindex[p] == nh.ifindex)
			return p;
	fail_msg("the group's member %u is on no port", nh_id);
	return -1;
}

/* What the tunnel hash of inner frame f (the oracle's, with the loaded
 * tunnel key) makes of it: the outer source port (RFC 7348 5: 49152 +
 * 14 bits of it) and which of n endpoints, as include/xfab_hash.h says. */
static void tunnel_choice(const struct pkt *f, int n, __u16 *sport, int *endpoint)
{
	struct xfab_settings cfg;
	__u32 zero = 0, h;

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_SETTINGS], &zero, &cfg), 0);
	h = oracle_flow_hash(&cfg.tunnel_key, f->b + 14, f->len - 14);
	*sport = (__u16)(49152 | ((h ^ h >> 16) & 0x3fff));
	*endpoint = (int)((h >> 8) % (__u32)n);
}

static void encap_case(int in_port, const struct inner *in, __u32 vni, const __u8 *inner_dmac,
		       const char *const *endpoints, int n_endpoints, __u16 *sport_out,
		       int *egress_out)
{
	struct xfab_frame d, exp_inner, outer;
	struct pkt frame, got[2], want;
	char ep[INET_ADDRSTRLEN];
	__u32 vnet = in_port == P4 ? 2 : 1;
	int egress[2], want_ep;
	__u16 sport, want_sport;

	describe(in, &d, H.mac[in_port], host_mac);
	emit(&d, &frame);
	for (int tc = 0; tc < 2; tc++) {
		__u64 p0 = vnet_stat(vnet, offsetof(struct xfab_vnet_stats, encap_packets));
		__u64 b0 = vnet_stat(vnet, offsetof(struct xfab_vnet_stats, encap_bytes));

		assert_int_equal(h_scratch_mark(&H), 0);
		egress[tc] = run(tc, in_port, &frame, &got[tc], XFAB_ACT_FORWARD);
		assert_true(egress[tc] == P2 || egress[tc] == P3);
		/* wrapped by the fast path when it is loaded (bpf/fast.h), else
		 * by the pipeline: the same bytes are judged either way */
		assert_int_equal(h_scratch_marked(&H), h_fast_path(&H));
		assert_int_equal(vnet_stat(vnet, offsetof(struct xfab_vnet_stats, encap_packets)),
				 p0 + 1);
		assert_int_equal(vnet_stat(vnet, offsetof(struct xfab_vnet_stats, encap_bytes)),
				 b0 + frame.len);
	}
	/* both hooks: the same decision, the same bytes */
	assert_int_equal(egress[0], egress[1]);
	assert_int_equal(got[0].len, got[1].len);
	assert_memory_equal(got[0].b, got[1].b, got[0].len);

	assert_true(got[0].len == frame.len + XFAB_VXLAN_ENCAP_LEN);
	/* the remote VTEP and the source port the inner flow's hash picks,
	 * and the uplink the outer flow's does */
	tunnel_choice(&frame, n_endpoints, &want_sport, &want_ep);
	inet_ntop(AF_INET, got[0].b + 14 + 16, ep, sizeof(ep));
	if (strcmp(ep, endpoints[want_ep]))
		fail_msg("endpoint %s, the hash picks %s", ep, endpoints[want_ep]);
	sport = get16(got[0].b + 34);
	assert_int_equal(sport, want_sport);
	assert_int_equal(egress[0], uplink_of(&got[0]));

	exp_inner = d;
	memcpy(exp_inner.dmac, inner_dmac, 6);
	memcpy(exp_inner.smac, vtep_mac, 6);
	exp_inner.ip4.ttl = exp_inner.ip6.hop_limit = (__u8)(in->ttl - 1);
	describe_outer(&outer, &exp_inner, gw_mac[egress[0]], H.mac[egress[0]], "10.255.0.1", ep,
		       in->tos, sport, vni);
	emit(&outer, &want);
	assert_bytes(&got[0], &want);
	/* the header checksum, by RFC 1071 over the bytes as sent */
	assert_int_equal(rfc1071(got[0].b + 14, 20), 0);
	if (sport_out)
		*sport_out = sport;
	if (egress_out)
		*egress_out = egress[0];
}

static const char *const ep_pair[] = {"10.255.0.2", "10.255.0.3"};

static void test_encap_v4(void **state)
{
	struct inner in = {"10.100.1.2", "10.200.5.5", IPPROTO_UDP, 0x6a, 64, 1234, 5678, 100, 1};

	(void)state;
	encap_case(P1, &in, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
	/* TCP, Not-ECT, another DSCP */
	in.proto = IPPROTO_TCP;
	in.tos = 0x88;
	in.dport = 80;
	encap_case(P1, &in, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
	/* CE is copied to the outer header too (RFC 6040 normal mode) */
	in.tos = 0x03;
	encap_case(P1, &in, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
}

static void test_encap_v6(void **state)
{
	struct inner in = {"fd64:1::2", "fd64:200::5", IPPROTO_TCP, 0xb9, 64, 40000, 443, 200, 0};

	(void)state;
	encap_case(P1, &in, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
}

/* VNET_ROUTE_TUNNEL's mac_address is the inner destination MAC. */
static void test_encap_route_mac(void **state)
{
	static const char *const ep[] = {"10.255.0.2"};
	struct inner in = {"10.100.1.2", "10.201.0.9", IPPROTO_UDP, 0, 64, 1, 2, 30, 0};

	(void)state;
	encap_case(P1, &in, VNI1, route_mac, ep, 1, NULL, NULL);
}

/* A tagged tenant frame leaves untagged: the same bytes as the untagged. */
static void test_encap_tagged(void **state)
{
	struct inner in = {"10.100.1.2", "10.200.5.5", IPPROTO_UDP, 0x6a, 64, 1234, 5678, 100, 1};
	struct xfab_frame d;
	struct pkt plain, tagged, out_plain, out_tagged;

	(void)state;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &plain);
	d.n_vlan = 1;
	d.vlan[0] = 100;
	emit(&d, &tagged);
	for (int tc = 0; tc < 2; tc++) {
		int e1 = run(tc, P1, &plain, &out_plain, XFAB_ACT_FORWARD);
		int e2 = run(tc, P1, &tagged, &out_tagged, XFAB_ACT_FORWARD);

		assert_int_equal(e1, e2);
		assert_bytes(&out_tagged, &out_plain);
	}
}

/* Flows spread: distinct source ports, both remote VTEPs, both uplinks
 * (each the one its outer flow's hash picks); a flow keeps its port. */
static void test_encap_entropy(void **state)
{
	__u16 sports[64];
	int used_ep[2] = {0}, used_port[N_PORTS] = {0}, distinct = 0;

	(void)state;
	for (int i = 0; i < 64; i++) {
		struct inner in = {"10.100.1.2",      "10.200.5.5", IPPROTO_UDP, 0, 64,
				   (__u16)(1000 + i), 4791,	    40,		 0};
		struct xfab_frame d;
		struct pkt f, out;
		int e, again;

		describe(&in, &d, H.mac[P1], host_mac);
		emit(&d, &f);
		e = run(0, P1, &f, &out, XFAB_ACT_FORWARD);
		assert_int_equal(e, uplink_of(&out)); /* the outer flow's member */
		used_port[e]++;
		sports[i] = get16(out.b + 34);
		assert_true(sports[i] >= 49152);
		used_ep[out.b[14 + 19] == 3]++;
		again = run(0, P1, &f, &out, XFAB_ACT_FORWARD);
		assert_int_equal(again, e);
		assert_int_equal(get16(out.b + 34), sports[i]);
	}
	for (int i = 0; i < 64; i++) {
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup |= sports[j] == sports[i];
		distinct += !dup;
	}
	print_message("    64 flows: %d source ports, VTEPs %d/%d, uplinks %d/%d\n", distinct,
		      used_ep[0], used_ep[1], used_port[P2], used_port[P3]);
	assert_true(distinct >= 60);
	assert_true(used_ep[0] >= 16 && used_ep[1] >= 16);
	assert_true(used_port[P2] >= 16 && used_port[P3] >= 16);
}

/* ---- tenant routing without a tunnel, and isolation ---- */

static void test_tenant_local(void **state)
{
	struct inner in = {"10.100.1.2", "10.100.2.2", IPPROTO_UDP, 0x10, 64, 7, 9, 60, 0};
	struct xfab_frame d, e;
	struct pkt f, got, want;

	(void)state;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	e = d;
	memcpy(e.dmac, h5_mac, 6);
	memcpy(e.smac, H.mac[P5], 6);
	e.ip4.ttl = 63;
	emit(&e, &want);
	for (int tc = 0; tc < 2; tc++) {
		assert_int_equal(h_scratch_mark(&H), 0);
		assert_int_equal(run(tc, P1, &f, &got, XFAB_ACT_FORWARD), P5);
		assert_bytes(&got, &want);
		/* a tenant's route to another of its ports: the fast path's too */
		assert_int_equal(h_scratch_marked(&H), h_fast_path(&H));
	}
}

static void test_isolation(void **state)
{
	struct inner in = {"10.100.1.2", "10.100.3.2", IPPROTO_UDP, 0, 64, 7, 9, 60, 0};
	static const char *const ep4[] = {"10.255.0.4"};
	struct xfab_frame d;
	struct pkt f;

	(void)state;
	/* Vnet_2 has no 10.100.3.0/24: dropped, though table 0 routes
	 * 10.100.0.0/16 (the tenant never falls into the underlay) */
	describe(&in, &d, H.mac[P4], host_mac);
	emit(&d, &f);
	expect_reason(P4, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_NO_ROUTE);
	/* nor can a tenant reach the underlay's own addresses */
	in.dst = "10.0.2.1";
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	expect_reason(P1, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_NO_ROUTE);
	/* a Vnet_2 route to a Vnet_1 port: refused at the egress */
	in.dst = "10.100.2.2";
	describe(&in, &d, H.mac[P4], host_mac);
	emit(&d, &f);
	expect_reason(P4, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_CROSS);
	/* the same remote prefix in Vnet_2: its own VNI and VTEP */
	in.dst = "10.200.1.1";
	encap_case(P4, &in, VNI2, vtep_mac, ep4, 1, NULL, NULL);
	/* an underlay packet to a tenant address takes the underlay's route */
	{
		struct pkt got;

		describe(&in, &d, H.mac[P2], host_mac);
		emit(&d, &f);
		for (int tc = 0; tc < 2; tc++) {
			assert_int_equal(run(tc, P2, &f, &got, XFAB_ACT_FORWARD), P2);
			assert_int_equal(got.len, f.len); /* routed, not encapsulated */
		}
	}
}

/* ---- decapsulation ---- */

/* A tunnel frame from spine A: outer from 10.255.0.2 with the given ECN. */
static void tunnel_frame(struct pkt *p, const struct xfab_frame *inner, __u32 vni, __u8 outer_tos)
{
	struct xfab_frame o;

	describe_outer(&o, inner, H.mac[P2], spine_mac, "10.255.0.2", "10.255.0.1", outer_tos,
		       50001, vni);
	o.ip4.ttl = 63;
	emit(&o, p);
}

static void decap_case(const struct inner *in, __u32 vni, __u8 outer_tos, int out_port,
		       const __u8 *dmac, __u8 want_tos, int fast)
{
	struct xfab_frame d, e;
	struct pkt f, got, want;
	__u32 vnet = vni == VNI2 ? 2 : 1;

	describe(in, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, vni, outer_tos);
	e = d;
	memcpy(e.dmac, dmac, 6);
	memcpy(e.smac, H.mac[out_port], 6);
	e.ip4.ttl = e.ip6.hop_limit = (__u8)(in->ttl - 1);
	e.ip4.tos = e.ip6.tclass = want_tos;
	emit(&e, &want);
	for (int tc = 0; tc < 2; tc++) {
		__u64 p0 = vnet_stat(vnet, offsetof(struct xfab_vnet_stats, decap_packets));
		__u64 b0 = vnet_stat(vnet, offsetof(struct xfab_vnet_stats, decap_bytes));

		assert_int_equal(h_scratch_mark(&H), 0);
		assert_int_equal(run(tc, P2, &f, &got, XFAB_ACT_FORWARD), out_port);
		assert_bytes(&got, &want);
		/* fast: the fast path's when it is loaded; else the pipeline's */
		assert_int_equal(h_scratch_marked(&H), fast && h_fast_path(&H));
		if (!strchr(in->src, ':'))
			assert_int_equal(rfc1071(got.b + 14, 20), 0);
		assert_int_equal(vnet_stat(vnet, offsetof(struct xfab_vnet_stats, decap_packets)),
				 p0 + 1);
		assert_int_equal(vnet_stat(vnet, offsetof(struct xfab_vnet_stats, decap_bytes)),
				 b0 + f.len - XFAB_VXLAN_ENCAP_LEN);
	}
}

static void test_decap(void **state)
{
	struct inner in = {"10.200.5.5", "10.100.1.2", IPPROTO_UDP, 0x68, 63, 5678, 1234, 100, 1};
	struct inner in6 = {"fd64:200::5", "fd64:1::2", IPPROTO_TCP, 0xb8, 63, 443, 40000, 120, 0};

	(void)state;
	/* to connected routes' neighbours */
	decap_case(&in, VNI1, 0x68, P1, h1_mac, 0x68, 1);
	/* the same inner packet in the other VNI reaches the other tenant */
	decap_case(&in, VNI2, 0x68, P4, h4_mac, 0x68, 1);
	decap_case(&in6, VNI1, 0xb8, P1, h1_mac, 0xb8, 1);
	/* to a route by a nexthop */
	in.dst = "10.100.3.9";
	decap_case(&in, VNI1, 0x68, P5, h5_mac, 0x68, 1);
	in6.dst = "fd64:3::9";
	decap_case(&in6, VNI1, 0xb8, P5, h5_mac, 0xb8, 1);
}

/* RFC 6040 4.2, Figure 4: the inner ECN field after decapsulation, by
 * arriving inner (rows) and outer (columns) field; -1: drop. */
static const int rfc6040[4][4] = {
    /* outer:  Not-ECT ECT(1) ECT(0) CE      (ECN codepoints 0, 1, 2, 3) */
    /* Not-ECT */ {0, 0, 0, -1},
    /* ECT(1)  */ {1, 1, 1, 3},
    /* ECT(0)  */ {2, 1, 2, 3},
    /* CE      */ {3, 3, 3, 3},
};

/* One cell of Figure 4, IPv4 or IPv6 inside, to p1's host (connected)
 * or, by_nh, to p5's by a nexthop. */
static void rfc6040_case(int v6, int inner, int outer, int by_nh)
{
	struct inner in = {v6 ? "fd64:200::5" : "10.200.5.5",
			   by_nh ? (v6 ? "fd64:3::2" : "10.100.3.2")
				 : (v6 ? "fd64:1::2" : "10.100.1.2"),
			   IPPROTO_UDP,
			   (__u8)(0x28 | inner),
			   63,
			   5678,
			   1234,
			   64,
			   0};
	int want = rfc6040[inner][outer];

	if (want < 0) {
		struct xfab_frame d;
		struct pkt f;

		describe(&in, &d, vtep_mac, vtep_mac);
		tunnel_frame(&f, &d, VNI1, (__u8)(0x28 | outer));
		expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_CE_NOT_ECT);
		return;
	}
	decap_case(&in, VNI1, (__u8)(0x28 | outer), by_nh ? P5 : P1, by_nh ? h5_mac : h1_mac,
		   (__u8)(0x28 | want), want == inner);
}

static void test_decap_rfc6040(void **state)
{
	(void)state;
	/* to a connected route and to one by a nexthop: the fast path's when
	 * the merge leaves the inner field as it was, else the pipeline's */
	for (int by_nh = 0; by_nh < 2; by_nh++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int inner = 0; inner < 4; inner++)
				for (int outer = 0; outer < 4; outer++)
					rfc6040_case(v6, inner, outer, by_nh);
}

/* Every malformed tunnel packet: dropped with its reason, on both hooks. */
static void test_decap_malformed(void **state)
{
	struct inner in = {"10.200.5.5", "10.100.1.2", IPPROTO_UDP, 0, 63, 5678, 1234, 64, 0};
	struct xfab_frame d, o;
	struct pkt f;
	__u64 n0;

	(void)state;
	describe(&in, &d, vtep_mac, vtep_mac);
	/* flags: I missing; another flag; a reserved byte */
	tunnel_frame(&f, &d, VNI1, 0);
	f.b[42] = 0x0c;
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_BAD_FLAGS);
	f.b[42] = 0x00;
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_BAD_FLAGS);
	f.b[42] = 0x08;
	f.b[44] = 0x01;
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_BAD_FLAGS);
	f.b[44] = 0;
	f.b[49] = 0x80;
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_BAD_FLAGS);
	/* a VNI of no VNET: counted under vnet 0 */
	n0 = h_percpu_u64(&H, XFAB_MAP_VNET_DROPS,
			  XFAB_VNET_DROP_KEY(0, XFAB_DROP_VXLAN_UNKNOWN_VNI), 0, 2);
	tunnel_frame(&f, &d, 3000, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_UNKNOWN_VNI);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_VNET_DROPS,
				      XFAB_VNET_DROP_KEY(0, XFAB_DROP_VXLAN_UNKNOWN_VNI), 0, 2),
			 n0 + 2);
	/* a VNI the table maps to no tenant (0, the underlay; past the last
	 * VNET): unknown too, though that tenant's table would route it */
	neigh(P2, "10.100.1.2", spine_mac);
	for (__u32 vni = 3001, bad[2] = {0, XFAB_MAX_VNETS}, i = 0; i < 2; i++, vni++) {
		assert_int_equal(
		    bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_VNI_TO_VNET), &vni, &bad[i], 0), 0);
		route(bad[i], "10.100.1.0/24", XFAB_RT_CONNECTED, H.ifindex[P2]);
		tunnel_frame(&f, &d, vni, 0);
		expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_UNKNOWN_VNI);
		assert_int_equal(bpf_map_delete_elem(h_map_fd(&H, XFAB_MAP_VNI_TO_VNET), &vni), 0);
	}
	neigh_delete(P2, "10.100.1.2");
	/* cut short: inside the VXLAN header, inside the inner Ethernet
	 * header (the outer lengths say so: the IP layer is sane) */
	for (int keep = 4; keep <= 20; keep += 16) {
		describe_outer(&o, NULL, H.mac[P2], spine_mac, "10.255.0.2", "10.255.0.1", 0, 50001,
			       VNI1);
		o.vxlan.present = 0;
		o.payload =
		    (const __u8 *)"\x08\0\0\0\0\x03\xe8\0\x02\0\0\0\xff\x01\x02\0\0\0\0\x01";
		o.payload_len = (size_t)keep;
		emit(&o, &f);
		expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_TRUNCATED);
	}
	/* the inner frame: ARP; an IPv4 header with a bad checksum; an
	 * inner total length beyond the frame */
	describe(&in, &d, vtep_mac, vtep_mac);
	d.l3 = XFAB_FRAME_RAW;
	d.ethertype = 0x0806;
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	describe(&in, &d, vtep_mac, vtep_mac);
	d.ip4.set = XFAB_FRAME_SET_CHECK;
	d.ip4.check = 0x1234;
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	describe(&in, &d, vtep_mac, vtep_mac);
	d.ip4.set = XFAB_FRAME_SET_LEN;
	d.ip4.tot_len = 1000;
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* decapsulated into a tunnel route: VTEPs never re-encapsulate */
	in.dst = "10.201.3.3";
	describe(&in, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_TUNNEL_AGAIN);
	/* an inner destination the tenant has no route for */
	in.dst = "10.99.0.1";
	describe(&in, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_NO_ROUTE);
	/* to another address on UDP 4789: not ours to decapsulate, routed */
	{
		struct pkt got;

		describe(&in, &d, vtep_mac, vtep_mac);
		describe_outer(&o, &d, H.mac[P2], spine_mac, "10.255.0.2", "10.255.0.3", 0, 50001,
			       VNI1);
		emit(&o, &f);
		for (int tc = 0; tc < 2; tc++) {
			int e = run(tc, P2, &f, &got, XFAB_ACT_FORWARD);

			assert_true(e == P2 || e == P3);
			assert_int_equal(got.len, f.len);
		}
	}
}

/* The inner packet's own checks and the gate in front of decapsulation:
 * each case is refused by the fast path (it must not decapsulate it) and
 * the pipeline drops it with its reason, on both hooks. */
static void test_decap_inner_checks(void **state)
{
	struct inner in = {"10.200.5.5", "10.100.1.2", IPPROTO_UDP, 0, 63, 5678, 1234, 64, 0};
	struct inner in6 = {"fd64:200::5", "fd64:1::2", IPPROTO_UDP, 0, 63, 5678, 1234, 64, 0};
	/* VXLAN (I flag, VNI 1000), inner MACs, IPv6, then 30 of its 40 bytes */
	static const __u8 short6[8 + 14 + 30] = {0x08, 0, 0, 0,	   0,	 0x03, 0xe8, 0,
						 0x02, 0, 0, 0,	   0xff, 0x01, 0x02, 0,
						 0,    0, 0, 0x01, 0x86, 0xdd, 0x60};
	/* the same with IPv4, then 10 of its 20 bytes */
	static const __u8 short4[8 + 14 + 10] = {0x08, 0, 0, 0,	   0,	 0x03, 0xe8, 0,
						 0x02, 0, 0, 0,	   0xff, 0x01, 0x02, 0,
						 0,    0, 0, 0x01, 0x08, 0x00, 0x45};
	struct xfab_frame d, o;
	struct pkt f;

	(void)state;
	/* an IPv6 packet under another EtherType (MPLS): not IP, whatever it holds */
	describe(&in6, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, VNI1, 0);
	f.b[XFAB_VXLAN_ENCAP_LEN + 12] = 0x88;
	f.b[XFAB_VXLAN_ENCAP_LEN + 13] = 0x47;
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* an inner IPv6 header cut short: judged before the outer headers go
	 * (tc could not leave it behind), so both hooks give one reason */
	describe_outer(&o, NULL, H.mac[P2], spine_mac, "10.255.0.2", "10.255.0.1", 0, 50001, VNI1);
	o.vxlan.present = 0;
	o.payload = short6;
	o.payload_len = sizeof(short6);
	emit(&o, &f);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* an inner IPv4 header cut short likewise (tc's adjust_room would
	 * refuse to leave it behind, and count the frame truncated) */
	o.payload = short4;
	o.payload_len = sizeof(short4);
	emit(&o, &f);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* the UDP length: past the outer datagram (which ends 30 bytes before
	 * the frame, or the UDP length 30 past it), short of the inner
	 * Ethernet header; the inner packet past it (the kernel's UDP trims
	 * what follows, and the inner packet is then cut short) */
	for (int i = 0; i < 4; i++) {
		const int udp_len = 8 + 8 + 14 + 20 + 8 + 64;

		describe(&in, &d, vtep_mac, vtep_mac);
		describe_outer(&o, &d, H.mac[P2], spine_mac, "10.255.0.2", "10.255.0.1", 0, 50001,
			       VNI1);
		if (i == 0) {
			o.ip4.set = XFAB_FRAME_SET_LEN;
			o.ip4.tot_len = 20 + udp_len - 30;
		} else {
			static const int ulen[] = {0, udp_len + 30, 8 + 8 + 13, udp_len - 30};

			o.l4.set |= XFAB_FRAME_SET_LEN;
			o.l4.len = (__u16)ulen[i];
		}
		emit(&o, &f);
		expect_reason(P2, &f, XFAB_ACT_DROP,
			      i < 3 ? XFAB_DROP_VXLAN_TRUNCATED : XFAB_DROP_VXLAN_INNER_MALFORMED);
	}
	/* inner lengths 8 bytes past the inner frame (within the outer one) */
	describe(&in, &d, vtep_mac, vtep_mac);
	d.ip4.set = XFAB_FRAME_SET_LEN;
	d.ip4.tot_len = 20 + 8 + 64 + 8;
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	describe(&in6, &d, vtep_mac, vtep_mac);
	d.ip6.set = XFAB_FRAME_SET_LEN;
	d.ip6.payload_len = 8 + 64 + 8;
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* the inner packet meets the address rules: a loopback source */
	in.src = "127.0.0.9";
	describe(&in, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, VNI1, 0);
	expect_reason(P2, &f, XFAB_ACT_DROP, XFAB_DROP_BAD_SRC_ADDR);
	in.src = "10.200.5.5";
	/* TCP to the VTEP's port 4789: not VXLAN, routed as it is */
	{
		struct pkt got;

		in.proto = IPPROTO_TCP;
		in.dst = "10.255.0.1";
		in.dport = 4789;
		describe(&in, &d, H.mac[P2], spine_mac);
		emit(&d, &f);
		for (int tc = 0; tc < 2; tc++) {
			int e = run(tc, P2, &f, &got, XFAB_ACT_FORWARD);

			assert_true(e == P2 || e == P3);
			assert_int_equal(got.len, f.len);
		}
	}
	/* a tenant's host sending a tunnel packet to the VTEP: the tenant's
	 * table routes it (none here), it never enters another VNI (Vnet_2
	 * would send this inner packet to h4) */
	in.proto = IPPROTO_UDP;
	in.dst = "10.100.1.2";
	describe(&in, &d, vtep_mac, vtep_mac);
	describe_outer(&o, &d, H.mac[P1], h1_mac, "10.100.1.2", "10.255.0.1", 0, 50001, VNI2);
	emit(&o, &f);
	expect_reason(P1, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_NO_ROUTE);
}

/* ---- the MTU rule: uplinks have MTU 1400, so 1350 bytes of inner IP fit ---- */
static void test_mtu(void **state)
{
	struct inner in = {"10.100.1.2", "10.200.5.5", IPPROTO_UDP, 0, 64,
			   1234,	 5678,	       1350 - 28,   1};
	struct inner in6 = {"fd64:1::2", "fd64:200::5", IPPROTO_UDP, 0, 64,
			    1234,	 5678,		1351 - 48,   0};
	struct xfab_frame d;
	struct pkt f;

	(void)state;
	encap_case(P1, &in, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
	/* one byte more: DF set -> the kernel says too big; no DF -> dropped */
	in.payload++;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	expect_reason(P1, &f, XFAB_ACT_PUNT, XFAB_PUNT_VNET_TOO_BIG);
	in.df = 0;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	expect_reason(P1, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_MTU);
	describe(&in6, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	expect_reason(P1, &f, XFAB_ACT_PUNT, XFAB_PUNT_VNET_TOO_BIG);
	in6.payload--;
	encap_case(P1, &in6, VNI1, vtep_mac, ep_pair, 2, NULL, NULL);
}

/* Tunnel routes that cannot be carried: no VTEP address; an underlay next
 * hop the kernel must resolve (the tenant packet is not handed over). */
static void test_encap_refused(void **state)
{
	struct inner in = {"10.100.1.2", "10.200.5.5", IPPROTO_UDP, 0, 64, 1234, 5678, 40, 0};
	struct xfab_frame d;
	struct pkt f;

	(void)state;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	set_vtep(0);
	expect_reason(P1, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_NO_VTEP);
	set_vtep(XFAB_VTEP_ENABLED);
	in.dst = "10.202.0.1";
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	expect_reason(P1, &f, XFAB_ACT_DROP, XFAB_DROP_VNET_UNDERLAY_PUNT);
	/* and its VNET's counters say why */
	assert_true(h_percpu_u64(&H, XFAB_MAP_VNET_DROPS,
				 XFAB_VNET_DROP_KEY(1, XFAB_DROP_VNET_UNDERLAY_PUNT), 0, 2) >= 2);
	assert_true(vnet_stat(1, offsetof(struct xfab_vnet_stats, drops)) >= 2);
	assert_true(vnet_stat(1, offsetof(struct xfab_vnet_stats, punts)) >= 2);
}

/* Trace mode (`xfabctl trace`): the record tells the overlay stage, the
 * VNET, the VNI and the remote VTEP, and nothing is counted. */
static void trace_run(int in_port, const struct pkt *f, struct xfab_trace *rec, __u32 *retval)
{
	static __u8 in[2048 + sizeof(struct xfab_trace)], out[sizeof(in) + 128];
	struct xfab_trace *t = (void *)in;
	struct xdp_md ctx = {.data = sizeof(*t),
			     .data_end = (__u32)(sizeof(*t) + f->len),
			     .ingress_ifindex = H.ifindex[in_port]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in,
		    .data_size_in = (__u32)(sizeof(*t) + f->len), .data_out = out,
		    .data_size_out = sizeof(out), .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = 1);

	memset(t, 0, sizeof(*t));
	t->magic = XFAB_TRACE_MAGIC;
	memcpy(in + sizeof(*t), f->b, f->len);
	assert_int_equal(
	    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_xdp_trace), &opts), 0);
	memcpy(rec, out, sizeof(*rec));
	*retval = opts.retval;
}

static void test_trace(void **state)
{
	struct inner in = {"10.100.1.2", "10.201.0.9", IPPROTO_UDP, 0, 64, 1, 2, 30, 0};
	struct inner back = {"10.200.5.5", "10.100.1.2", IPPROTO_UDP, 0, 63, 5678, 1234, 64, 0};
	__u64 e0 = vnet_stat(1, offsetof(struct xfab_vnet_stats, encap_packets));
	__u64 d0 = vnet_stat(1, offsetof(struct xfab_vnet_stats, decap_packets));
	struct xfab_trace rec;
	struct xfab_frame d;
	struct pkt f;
	__u32 ret, ep;

	(void)state;
	describe(&in, &d, H.mac[P1], host_mac);
	emit(&d, &f);
	trace_run(P1, &f, &rec, &ret);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(rec.action, XFAB_ACT_FORWARD);
	assert_int_equal(rec.overlay, XFAB_OVERLAY_ENCAP);
	assert_int_equal(rec.vnet, 1);
	assert_int_equal(rec.vni, VNI1);
	assert_int_equal(inet_pton(AF_INET, "10.255.0.2", &ep), 1);
	assert_int_equal(rec.endpoint, ep);
	assert_true(rec.egress_ifindex == H.ifindex[P2] || rec.egress_ifindex == H.ifindex[P3]);
	/* decapsulated: VNI 2000000's packet delivered to Vnet_2's port */
	describe(&back, &d, vtep_mac, vtep_mac);
	tunnel_frame(&f, &d, VNI2, 0);
	trace_run(P2, &f, &rec, &ret);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(rec.overlay, XFAB_OVERLAY_DECAP);
	assert_int_equal(rec.vnet, 2);
	assert_int_equal(rec.vni, VNI2);
	assert_int_equal(rec.egress_ifindex, H.ifindex[P4]);
	/* an unknown VNI: the stage and the reason */
	tunnel_frame(&f, &d, 4242, 0);
	trace_run(P2, &f, &rec, &ret);
	assert_int_equal(ret, XDP_DROP);
	assert_int_equal(rec.reason, XFAB_DROP_VXLAN_UNKNOWN_VNI);
	assert_int_equal(rec.vni, 4242);
	assert_int_equal(rec.stage, XFAB_STAGE_PARSE);
	/* nothing counted */
	assert_int_equal(vnet_stat(1, offsetof(struct xfab_vnet_stats, encap_packets)), e0);
	assert_int_equal(vnet_stat(1, offsetof(struct xfab_vnet_stats, decap_packets)), d0);
}

/* Every overlay reason was counted by the cases above (test_packets checks
 * the others). vxlan_encap_failed needs a frame without headroom, which
 * neither hook hands a program here. */
static void test_every_reason(void **state)
{
	(void)state;
	for (__u32 r = XFAB_DROP_VXLAN_TRUNCATED; r < XFAB_DROP_MAX; r++) {
		/* copp_policed (after the overlay's) is test_copp's, acl_drop
		 * test_acl's (ACL) */
		if (r == XFAB_DROP_VXLAN_ENCAP_FAILED || r == XFAB_DROP_COPP_POLICED ||
		    r == XFAB_DROP_ACL_DROP)
			continue;
		if (!reason_count(XFAB_MAP_DROP_STATS, r))
			print_message("drop reason %u never counted\n", r);
		assert_true(reason_count(XFAB_MAP_DROP_STATS, r) > 0);
	}
	assert_true(reason_count(XFAB_MAP_PUNT_STATS, XFAB_PUNT_VNET_TOO_BIG) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encap_v4),	       cmocka_unit_test(test_encap_v6),
	    cmocka_unit_test(test_encap_route_mac),    cmocka_unit_test(test_encap_tagged),
	    cmocka_unit_test(test_encap_entropy),      cmocka_unit_test(test_tenant_local),
	    cmocka_unit_test(test_isolation),	       cmocka_unit_test(test_decap),
	    cmocka_unit_test(test_decap_rfc6040),      cmocka_unit_test(test_decap_malformed),
	    cmocka_unit_test(test_decap_inner_checks), cmocka_unit_test(test_mtu),
	    cmocka_unit_test(test_encap_refused),      cmocka_unit_test(test_trace),
	    cmocka_unit_test(test_every_reason),
	};

	return cmocka_run_group_tests_name("bpf_vxlan", tests, setup, teardown);
}
