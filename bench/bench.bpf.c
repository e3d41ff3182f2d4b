// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark programs (not part of the switch):
 *   bench_gen       live-frames generator: rewrites each recycled frame (UDP
 *                   source port or RoCE QP from a per-CPU counter, over
 *                   `flows` values; IPv4 or IPv6; or VXLAN: an IPv4 frame
 *                   inside outer Ethernet/IPv4/UDP 4789/VXLAN, the inner
 *                   and the outer UDP source port varied) and sends it
 *                   with XDP_TX
 *   bench_sink      counts (packets and bytes) and drops (the sink)
 *   bench_redirect  the ceiling: redirect every frame to devmap slot 0
 *   bench_redirect_read  the same after reading the headers a router routes
 *                   on (what touching the packet costs)
 *   bench_encap     the ceiling of a VXLAN encapsulation: 50 bytes of
 *                   precomputed outer headers put in front, then the redirect
 *   bench_decap     the ceiling of a decapsulation: the outer headers
 *                   checked and dropped, the inner MACs set, the redirect
 *   bench_tc_redirect  the tc datapath's ceiling: tc ingress redirects every
 *                   packet to tc_out[0] (bpf_redirect), nothing else
 *   bench_tc_rewrite  a tc router's ceiling: the headers read, TTL and MACs
 *                   rewritten, the same redirect
 *   bench_fwd       an xdp_fwd-style router: bpf_fib_lookup, MAC rewrite,
 *                   TTL decrement, DEVMAP redirect
 *   bench_fwd_direct  the same with BPF_FIB_LOOKUP_DIRECT: the main table
 *                   looked up directly, without the FIB rules
 *   bench_fwd_big   the same, looking up routing table 100 only
 * (bench/lean_ecmp.bpf.c: the lean reference ECMP forwarder, its own object)
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef AF_INET
#define AF_INET 2
#endif

struct bench_cfg {
	__u32 flows;   /* distinct flows the generator cycles through */
	__u32 vary_qp; /* 0: vary the UDP source port, 1: the RoCE destination QP */
	__u8 dmac[6];  /* the DUT's port */
	__u8 smac[6];
	__u32 dst_base; /* host order; with vary_dst, flow n goes to dst_base + n * 256 */
	__u32 vary_dst; /* IPv6: flow n goes to the 4th 16-bit word n (a /64 each) */
	__u32 v6;	/* IPv6 frames */
	__u32 vni;	/* VXLAN frames: the inner IPv4 frame starts 50 bytes in */
};

/* Outer Ethernet 14, IPv4 20, UDP 8, VXLAN 8: where a VXLAN frame's inner
 * frame starts. */
#define VXLAN_INNER 50
#define VXLAN_SPORT_MIN 49152

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bench_cfg);
} gen_cfg SEC(".maps");

/* 0: frames (the generator's flow counter, the sink's count); 1: the
 * sink's bytes, so the bench knows what it received (114-byte VXLAN frames
 * from an encapsulation, say) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} counter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} out_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} fwd_ports SEC(".maps");

/* nsper: the frame each run starts from, and the program under test.
 * copy: bytes restored before each run (40: the Ethernet and IP headers,
 * enough for a router's rewrite; or the whole frame); len: the frame's
 * length, which an encapsulation or a decapsulation changes. */
#define NSPER_MAX 128
struct nsper_frame {
	__u8 b[NSPER_MAX];
	__u32 len;
	__u32 copy;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nsper_frame);
} nsper_frame SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nsper_target SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nsper_target_tc SEC(".maps");

static __always_inline __u64 *count(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counter, &zero);
}

/* Puts back what a router changes in an IPv4 frame at eth (MACs, TTL,
 * TOS/ECN, checksum) and sets the flow's fields. */
static __always_inline void gen_v4(struct ethhdr *eth, const struct bench_cfg *cfg, __u32 flow)
{
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh = (void *)(iph + 1);
	__u8 *bth = (void *)(uh + 1);

	__builtin_memcpy(eth->h_dest, cfg->dmac, 6);
	__builtin_memcpy(eth->h_source, cfg->smac, 6);
	if (cfg->vary_dst)
		iph->daddr = bpf_htonl(cfg->dst_base + (flow << 8)); /* one /24 per flow */
	iph->ttl = 64;
	iph->tos = 0;
	iph->check = 0;
	{
		__u16 *w = (void *)iph;
		__u32 sum = 0;

		for (int i = 0; i < 10; i++)
			sum += w[i];
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		iph->check = (__u16)~sum;
	}
	if (cfg->vary_qp) {
		bth[5] = (__u8)(flow >> 16);
		bth[6] = (__u8)(flow >> 8);
		bth[7] = (__u8)flow;
	} else {
		uh->source = bpf_htons((__u16)(10000 + flow));
	}
}

SEC("xdp")
int bench_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct bench_cfg *cfg;
	__u32 zero = 0, flow;
	__u64 *c = count();

	/* Ethernet, IPv4, UDP, BTH */
	if (data + 54 > end || !c)
		return XDP_DROP;
	cfg = bpf_map_lookup_elem(&gen_cfg, &zero);
	if (!cfg) {
		(*c)++;
		return XDP_TX;
	}
	flow = cfg->flows ? (__u32)(*c % cfg->flows) : 0;
	(*c)++;
	/* Live frames are recycled after the DUT rewrote them in place: put
	 * back everything a router changes (MACs, TTL, TOS/ECN, checksum). */
	if (cfg->vni) {
		/* A decapsulation only skips the outer headers: the inner frame
		 * is what the DUT rewrote. The outer source port varies with
		 * the inner flow, as a VTEP's does (RFC 7348). */
		struct udphdr *ouh = data + 14 + 20;

		if (data + VXLAN_INNER + 54 > end)
			return XDP_DROP;
		__builtin_memcpy(eth->h_dest, cfg->dmac, 6);
		__builtin_memcpy(eth->h_source, cfg->smac, 6);
		ouh->source = bpf_htons((__u16)(VXLAN_SPORT_MIN + (flow & 0x3fff)));
		gen_v4(data + VXLAN_INNER, cfg, flow);
		return XDP_TX;
	}
	if (cfg->v6) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);
		struct udphdr *uh6 = (void *)(ip6h + 1);
		__u8 *bth6 = (void *)(uh6 + 1);

		if ((void *)(bth6 + 12) > end)
			return XDP_DROP;
		__builtin_memcpy(eth->h_dest, cfg->dmac, 6);
		__builtin_memcpy(eth->h_source, cfg->smac, 6);
		*(__be32 *)ip6h = bpf_htonl(0x60000000); /* version, class, flow label */
		ip6h->hop_limit = 64;
		if (cfg->vary_dst)
			ip6h->daddr.in6_u.u6_addr16[3] = bpf_htons((__u16)flow);
		if (cfg->vary_qp) {
			bth6[5] = (__u8)(flow >> 16);
			bth6[6] = (__u8)(flow >> 8);
			bth6[7] = (__u8)flow;
		} else {
			uh6->source = bpf_htons((__u16)(10000 + flow));
		}
		return XDP_TX;
	}
	gen_v4(eth, cfg, flow);
	return XDP_TX;
}

SEC("xdp")
int bench_sink(struct xdp_md *ctx)
{
	__u64 *c = count(), *b;
	__u32 one = 1;

	if (c)
		(*c)++;
	b = bpf_map_lookup_elem(&counter, &one);
	if (b)
		*b += ctx->data_end - ctx->data;
	return XDP_DROP;
}

SEC("xdp")
int bench_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&out_port, 0, 0);
}

/* The ceiling of a router that must read what it routes on: the Ethernet,
 * IPv4 and UDP headers and the BTH's QP, folded into a value nothing
 * uses but the redirect's flags argument (0), then the same redirect. */
SEC("xdp")
int bench_redirect_read(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh = (void *)(iph + 1);
	__u8 *bth = (void *)(uh + 1);
	__u32 x;

	if ((void *)(bth + 8) > end)
		return XDP_DROP;
	x = eth->h_proto ^ iph->daddr ^ iph->saddr ^ iph->ttl ^ uh->source ^ uh->dest ^ bth[5] ^
	    bth[6] ^ bth[7];
	return bpf_redirect_map(&out_port, 0, x == 0x12345678 ? 1 : 0);
}

/* The outer headers of the encapsulation ceiling, built once (as an
 * encapsulation precomputed per tunnel endpoint would be): Ethernet to the
 * sink's MAC-agnostic bench port, IPv4 10.0.0.1 -> 10.0.0.2 TTL 64 DF, UDP
 * to 4789, VXLAN VNI 100. tot_len, the checksum, the UDP length and source
 * port are the per-packet part. */
struct bench_outer {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
	__be32 vx_flags, vx_vni;
} __attribute__((packed));

static const volatile struct bench_outer bench_outer = {
    .eth = {.h_dest = {0x02, 0, 0, 0, 0, 2},
	    .h_source = {0x02, 0, 0, 0, 0, 1},
	    .h_proto = bpf_htons(ETH_P_IP)},
    .ip = {.version = 4,
	   .ihl = 5,
	   .ttl = 64,
	   .protocol = IPPROTO_UDP,
	   .frag_off = bpf_htons(0x4000),
	   .saddr = bpf_htonl(0x0a000001),
	   .daddr = bpf_htonl(0x0a000002)},
    .udp = {.dest = bpf_htons(4789)},
    .vx_flags = bpf_htonl(0x08000000),
    .vx_vni = bpf_htonl(100 << 8),
};

/* The outer IPv4 header's one's-complement sum without tot_len (RFC 1071,
 * in host order): 0x4500 + 0x4000 (DF) + 0x4011 (TTL, UDP) + 0x0a00 + 0x0001
 * + 0x0a00 + 0x0002. */
#define BENCH_OUTER_SUM 0xd914

/* The ceiling of a VXLAN encapsulation: the inner frame's flow read for
 * the outer source port, 50 bytes made at the front, the precomputed
 * outer headers copied in, the lengths and the checksum (the constant
 * part's sum plus tot_len, folded) set, the redirect. */
SEC("xdp")
int bench_encap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bench_outer *o;
	struct iphdr *in = data + sizeof(struct ethhdr);
	__u32 len = (__u32)(end - data), sum, h;

	if ((void *)(in + 1) + 4 > end)
		return XDP_DROP;
	h = in->saddr ^ in->daddr ^ *(__u32 *)(in + 1);
	if (bpf_xdp_adjust_head(ctx, -(int)VXLAN_INNER))
		return XDP_DROP;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	o = data;
	if ((void *)(o + 1) > end)
		return XDP_DROP;
	__builtin_memcpy(o, (const void *)&bench_outer, sizeof(*o));
	sum = BENCH_OUTER_SUM + len + VXLAN_INNER - sizeof(struct ethhdr);
	o->ip.tot_len = bpf_htons((__u16)(len + VXLAN_INNER - sizeof(struct ethhdr)));
	sum = (sum & 0xffff) + (sum >> 16);
	o->ip.check = bpf_htons((__u16) ~((sum & 0xffff) + (sum >> 16)));
	o->udp.len =
	    bpf_htons((__u16)(len + VXLAN_INNER - sizeof(struct ethhdr) - sizeof(struct iphdr)));
	o->udp.source = bpf_htons((__u16)(VXLAN_SPORT_MIN | ((h ^ h >> 16) & 0x3fff)));
	return bpf_redirect_map(&out_port, 0, 0);
}

/* The ceiling of a VXLAN decapsulation: the outer headers checked as a
 * VTEP must (IPv4 without options, UDP to 4789, the VXLAN I flag), the
 * 50 bytes dropped from the front, the inner frame's MACs rewritten, the
 * redirect. */
SEC("xdp")
int bench_decap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bench_outer *o = data;
	struct ethhdr *eth;

	if ((void *)(o + 1) + sizeof(struct ethhdr) > end ||
	    o->eth.h_proto != bpf_htons(ETH_P_IP) || *(__u8 *)&o->ip != 0x45 ||
	    o->ip.protocol != IPPROTO_UDP || o->udp.dest != bpf_htons(4789) ||
	    !(o->vx_flags & bpf_htonl(0x08000000)))
		return XDP_DROP;
	if (bpf_xdp_adjust_head(ctx, VXLAN_INNER))
		return XDP_DROP;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	eth = data;
	if ((void *)(eth + 1) > end)
		return XDP_DROP;
	__builtin_memcpy(eth->h_dest, (const void *)bench_outer.eth.h_dest, 6);
	__builtin_memcpy(eth->h_source, (const void *)bench_outer.eth.h_source, 6);
	return bpf_redirect_map(&out_port, 0, 0);
}

/* flags: 0 (the FIB rules, then the table they pick) or
 * BPF_FIB_LOOKUP_DIRECT (the main table, or with table, that one, alone) */
static __always_inline int fwd(struct xdp_md *ctx, __u32 table, __u32 flags)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u32 check;

	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) || iph->ttl <= 1)
		return XDP_PASS;
	fib.family = AF_INET;
	fib.tos = iph->tos;
	fib.l4_protocol = iph->protocol;
	fib.tot_len = bpf_ntohs(iph->tot_len);
	fib.ipv4_src = iph->saddr;
	fib.ipv4_dst = iph->daddr;
	fib.ifindex = ctx->ingress_ifindex;
	if (table) /* that table only */
		fib.tbid = table;
	if (bpf_fib_lookup(ctx, &fib, sizeof(fib), flags) != BPF_FIB_LKUP_RET_SUCCESS)
		return XDP_PASS;
	check = iph->check;
	check += bpf_htons(0x0100);
	iph->check = (__u16)(check + (check >= 0xffff));
	iph->ttl--;
	__builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
	return bpf_redirect_map(&fwd_ports, fib.ifindex, 0);
}

SEC("xdp")
int bench_fwd(struct xdp_md *ctx)
{
	return fwd(ctx, 0, 0);
}

SEC("xdp")
int bench_fwd_direct(struct xdp_md *ctx)
{
	return fwd(ctx, 0, BPF_FIB_LOOKUP_DIRECT);
}

/* The same against routing table 100, where the bench puts 1M routes. */
SEC("xdp")
int bench_fwd_big(struct xdp_md *ctx)
{
	return fwd(ctx, 100, BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_TBID);
}

/* BPF_PROG_TEST_RUN repeats reuse one buffer: without this the first run's
 * rewrite (MACs, TTL) would be what every later run sees. Puts the frame's
 * start back where it was (an encapsulation moved it 50 bytes earlier, a
 * decapsulation 50 later), restores the Ethernet and IPv4 headers (or the
 * whole frame), then tail-calls the program under test. */
SEC("xdp")
int bench_nsper(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct nsper_frame *f;
	__u32 zero = 0, copy;
	int len = (int)(end - data);

	f = bpf_map_lookup_elem(&nsper_frame, &zero);
	if (!f)
		return XDP_ABORTED;
	if (len != (int)f->len) {
		if (bpf_xdp_adjust_head(ctx, len - (int)f->len))
			return XDP_ABORTED;
		data = (void *)(long)ctx->data;
		end = (void *)(long)ctx->data_end;
	}
	copy = f->copy;
	if (copy == 40) {
		if (data + 40 > end)
			return XDP_ABORTED;
		__builtin_memcpy(data, f->b, 40);
	} else if (copy < 1 || copy > NSPER_MAX || bpf_xdp_store_bytes(ctx, 0, f->b, copy)) {
		return XDP_ABORTED;
	}
	bpf_tail_call(ctx, &nsper_target, 0);
	return XDP_ABORTED;
}

/* The empty target: what bench_nsper itself costs. */
SEC("xdp")
int bench_nop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

/* The same for tc programs (the skb is reused across repeats too): room
 * added or taken after the MAC header gives the frame its length back. */
SEC("tc")
int bench_nsper_tc(struct __sk_buff *skb)
{
	struct nsper_frame *f;
	__u32 zero = 0, copy;

	f = bpf_map_lookup_elem(&nsper_frame, &zero);
	if (!f)
		return TC_ACT_SHOT;
	if (skb->len != f->len &&
	    bpf_skb_adjust_room(skb, (__s32)f->len - (__s32)skb->len, BPF_ADJ_ROOM_MAC, 0))
		return TC_ACT_SHOT;
	copy = f->copy;
	if (copy < 1 || copy > NSPER_MAX || bpf_skb_store_bytes(skb, 0, f->b, copy, 0))
		return TC_ACT_SHOT;
	bpf_tail_call(skb, &nsper_target_tc, 0);
	return TC_ACT_SHOT;
}

SEC("tc")
int bench_nop_tc(struct __sk_buff *skb)
{
	return TC_ACT_SHOT;
}

/* tc_out: [0] -> the ifindex bench_tc_redirect sends to */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tc_out SEC(".maps");

SEC("tc")
int bench_tc_redirect(struct __sk_buff *skb)
{
	__u32 zero = 0, *out = bpf_map_lookup_elem(&tc_out, &zero);

	return out ? bpf_redirect(*out, 0) : TC_ACT_SHOT;
}

/* The tc datapath's router ceiling: the Ethernet and IPv4 headers read in
 * the linear data the kernel hands over, the TTL taken down by one with
 * RFC 1624's checksum update, the MACs swapped, the same redirect. */
SEC("tc")
int bench_tc_rewrite(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 zero = 0, *out = bpf_map_lookup_elem(&tc_out, &zero), sum;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u8 mac[ETH_ALEN];

	if (!out || (void *)(iph + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) || iph->ttl <= 1)
		return TC_ACT_SHOT;
	iph->ttl--;
	sum = (__u32)iph->check + bpf_htons(0x0100);
	iph->check = (__u16)(sum + (sum >> 16));
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	return bpf_redirect(*out, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
