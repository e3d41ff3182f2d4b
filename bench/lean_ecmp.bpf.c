// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lean_ecmp: the bench's lean reference ECMP forwarder (not part of the
 * switch). The smallest program that does the job of xfab's 16-way ECMP
 * path with the same checks, so that the bench can say what a program
 * doing this job reaches on the machine at hand. Standalone on purpose:
 * no xfab header, its own maps, which scripts/xfabbench fills (bpftool).
 *
 * What it leaves to the kernel (XDP_PASS), where xfab punts too: non-IPv4
 * frames (ARP, IPv6, VLAN tags), multicast and broadcast destinations,
 * TTL <= 1, link-local addresses, destinations without a route. IPv4
 * options (IHL > 5) go to the kernel as well: xfab forwards them, this
 * program keeps to the fast path's header.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define LEAN_MAX_MEMBERS 16
#define LEAN_MAX_GROUPS 64
#define LEAN_MAX_PORTS 64

/* The receiving port: its MAC (a frame to another unicast MAC is not ours). */
struct lean_port {
	__u8 mac[6];
	__u8 pad[2];
};

/* A next hop as egress needs it: the MACs to write and the DEVMAP slot. */
struct lean_member {
	__u8 dmac[6];
	__u8 smac[6];
	__u32 port;
};

struct lean_group {
	__u32 members; /* 1..LEAN_MAX_MEMBERS */
	__u32 pad;
	struct lean_member m[LEAN_MAX_MEMBERS];
};

struct lean_count {
	__u64 packets;
	__u64 bytes;
};

/* [0] -> the port the program is attached to (written by the bench): the
 * bench attaches it to one port; a router of many would index this array
 * by ingress ifindex, the same one load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lean_port);
} lean_port SEC(".maps");

/*
 * Routes: the destination's top 16 bits -> its group + 1 (0: no route).
 * An array, not an LPM trie: it holds prefixes of up to 16 bits only,
 * which every route of the bench's 10-route table is; xfab's FIB finds
 * 20.0.0.0/8 with one load in a 16-bit first level too, so both pay one
 * load for the route (a trie would charge the reference ~20-40 ns xfab
 * does not pay, and flatter xfab).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, __u32);
} lean_routes SEC(".maps");

/* group -> its members (written by the bench) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LEAN_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct lean_group);
} lean_groups SEC(".maps");

/* a member's port -> its device */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, LEAN_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} lean_tx SEC(".maps");

/* [0]: frames and bytes forwarded, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lean_count);
} lean_count SEC(".maps");

static __always_inline int lean_mac_eq(const __u8 *a, const __u8 *b)
{
	return *(const __u32 *)a == *(const __u32 *)b &&
	       *(const __u16 *)(a + 4) == *(const __u16 *)(b + 4);
}

/* RFC 1071: the one's-complement sum of a 20-byte header is 0xffff when
 * its checksum is right (five 32-bit words summed in 64 bits, folded). */
static __always_inline int lean_csum_ok(const struct iphdr *iph)
{
	const __u32 *w = (const void *)iph;
	__u64 sum = (__u64)w[0] + w[1] + w[2] + w[3] + w[4];

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/*
 * RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for the 16-bit word holding TTL
 * and protocol, whose TTL byte drops by one. Network-order words: the sum
 * is the same in either byte order, so no swap is needed.
 */
static __always_inline void lean_ttl_dec(struct iphdr *iph)
{
	__u16 *word = (__u16 *)&iph->ttl;
	__u32 old = *word, sum;

	iph->ttl--;
	sum = (__u16)~iph->check + (__u16)~old + *word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	iph->check = (__u16)~sum;
}

/* One multiply-xor over the 5-tuple; the member is the product's top bits
 * scaled to the group's size (no division). */
static __always_inline __u32 lean_bucket(__u32 saddr, __u32 daddr, __u32 ports, __u8 proto,
					 __u32 members)
{
	__u32 h = saddr ^ (daddr >> 7 | daddr << 25) ^ ports ^ proto;

	h ^= h >> 16;
	h *= 0x9e3779b1;
	return (__u32)(((__u64)h * members) >> 32);
}

/* Ethernet: 0 to go on, or the verdict (what xfab's L2 stage decides). */
static __always_inline int lean_eth(const struct ethhdr *eth)
{
	__u32 zero = 0;
	struct lean_port *port;

	if (eth->h_source[0] & 1) /* multicast or broadcast source: drop */
		return XDP_DROP;
	if (lean_mac_eq(eth->h_source, eth->h_dest)) /* to itself: drop */
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP)) /* ARP, IPv6, VLAN: the kernel's */
		return XDP_PASS;
	if (eth->h_dest[0] & 1) /* multicast, broadcast: the kernel's */
		return XDP_PASS;
	port = bpf_map_lookup_elem(&lean_port, &zero);
	if (!port || !lean_mac_eq(eth->h_dest, port->mac)) /* not our MAC: drop */
		return XDP_DROP;
	return 0;
}

/* RFC 1812 5.2.2 and 5.3.7 as xfab's validate stage checks them: 0 to go
 * on, or the verdict. len: the frame's length past Ethernet. */
static __always_inline int lean_ipv4(const struct iphdr *iph, __u32 len)
{
	__u32 saddr = bpf_ntohl(iph->saddr), daddr = bpf_ntohl(iph->daddr);
	__u16 tot_len = bpf_ntohs(iph->tot_len);

	if (iph->version != 4) /* version: drop */
		return XDP_DROP;
	if (iph->ihl < 5) /* IHL below 5: drop */
		return XDP_DROP;
	if (iph->ihl > 5) /* options: the kernel's (see the top) */
		return XDP_PASS;
	if (!lean_csum_ok(iph)) /* header checksum: drop */
		return XDP_DROP;
	if (tot_len < sizeof(*iph) || tot_len > len) /* total length vs the frame: drop */
		return XDP_DROP;
	/* source multicast, class E, limited broadcast (all >= 224/4),
	 * loopback, network 0: drop */
	if ((saddr >> 28) >= 0xe || (saddr >> 24) == 127 || (saddr >> 24) == 0)
		return XDP_DROP;
	if ((daddr >> 28) == 0xe || daddr == 0xffffffff) /* multicast, broadcast */
		return XDP_PASS;
	if ((daddr >> 16) == 0xa9fe || (saddr >> 16) == 0xa9fe) /* link-local */
		return XDP_PASS;
	if (iph->ttl <= 1) /* expires here: the kernel's ICMP */
		return XDP_PASS;
	return 0;
}

SEC("xdp")
int lean_ecmp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u32 ports = 0, key, *route, bucket;
	struct lean_group *grp;
	struct lean_member *mb;
	struct lean_count *cnt;
	int verdict;

	if ((void *)(iph + 1) > end)
		return XDP_DROP;
	verdict = lean_eth(eth);
	if (verdict)
		return verdict;
	verdict = lean_ipv4(iph, (__u32)(end - (void *)iph));
	if (verdict)
		return verdict;
	/* L4 ports of a first (unfragmented) TCP or UDP header; fragments
	 * hash on L3 only, as xfab's do */
	if ((iph->protocol == IPPROTO_UDP || iph->protocol == IPPROTO_TCP) &&
	    !(iph->frag_off & bpf_htons(0x3fff))) {
		__u32 *l4 = (void *)(iph + 1);

		if ((void *)(l4 + 1) > end)
			return XDP_DROP;
		ports = *l4;
	}
	key = bpf_ntohl(iph->daddr) >> 16;
	route = bpf_map_lookup_elem(&lean_routes, &key);
	if (!route || !*route)
		return XDP_PASS;
	key = *route - 1;
	grp = bpf_map_lookup_elem(&lean_groups, &key);
	if (!grp || !grp->members || grp->members > LEAN_MAX_MEMBERS)
		return XDP_PASS;
	bucket = lean_bucket(iph->saddr, iph->daddr, ports, iph->protocol, grp->members);
	mb = &grp->m[bucket & (LEAN_MAX_MEMBERS - 1)];
	lean_ttl_dec(iph);
	__builtin_memcpy(eth->h_dest, mb->dmac, 6);
	__builtin_memcpy(eth->h_source, mb->smac, 6);
	key = 0;
	cnt = bpf_map_lookup_elem(&lean_count, &key);
	if (cnt) {
		cnt->packets++;
		cnt->bytes += (__u64)(end - data);
	}
	return bpf_redirect_map(&lean_tx, mb->port, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
