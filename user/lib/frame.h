/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one packet builder, for tests, tools and `xfabctl trace`: a frame is
 * described by a struct and written by xfab_frame_build(). Lengths and
 * checksums are computed unless the description sets them (the `set` bits),
 * so a test can write any malformed header. No global state.
 *
 *   struct xfab_frame f = {.ip4 = {.ttl = 64}, .l4 = {.proto = IPPROTO_UDP,
 *                          .sport = 1234, .dport = 4791},
 *                          .bth = {.present = 1, .opcode = 4, .dest_qp = 7}};
 *   xfab_frame_addrs(&f, "10.0.1.2", "10.0.2.2");
 *   len = xfab_frame_build(&f, buf, sizeof(buf), NULL);
 */
#ifndef XFAB_FRAME_H
#define XFAB_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define XFAB_FRAME_MAX_VLANS 4
#define XFAB_FRAME_MAX_EXT 16
#define XFAB_FRAME_MAX_DEPTH 3 /* VXLAN frames inside frames */

enum xfab_frame_l3 {
	XFAB_FRAME_RAW = 0, /* ethertype + payload, no IP */
	XFAB_FRAME_IPV4,
	XFAB_FRAME_IPV6,
};

/* Bits of a header's `set`: write that field as given, not computed. */
enum {
	XFAB_FRAME_SET_VERSION = 1 << 0, /* IPv4, IPv6 */
	XFAB_FRAME_SET_IHL = 1 << 1,	 /* IPv4 */
	XFAB_FRAME_SET_LEN = 1 << 2,	 /* IPv4 total, IPv6 payload, UDP length */
	XFAB_FRAME_SET_CHECK = 1 << 3,	 /* IPv4 header, UDP/TCP/ICMP checksum */
	XFAB_FRAME_SET_PROTO = 1 << 4,	 /* IPv4 protocol, IPv6 next header */
};

struct xfab_frame_ipv4 {
	uint8_t version; /* 4 unless XFAB_FRAME_SET_VERSION */
	uint8_t ihl;	 /* (20 + options) / 4 unless XFAB_FRAME_SET_IHL */
	uint8_t tos;	 /* DSCP << 2 | ECN */
	uint16_t tot_len;
	uint16_t id;
	uint16_t frag; /* flags and fragment offset, as on the wire */
	uint8_t ttl;
	uint8_t proto; /* l4.proto unless XFAB_FRAME_SET_PROTO */
	uint16_t check;
	uint8_t src[4], dst[4];
	const uint8_t *opts; /* options, a multiple of 4 bytes */
	size_t opts_len;
	unsigned int set;
};

/* An IPv6 extension header: hop-by-hop (0), routing (43), fragment (44),
 * destination options (60), or any type. Its body is zeros (Pad1 options)
 * but for the next-header, length and, in a fragment header, offset and id. */
struct xfab_frame_ext {
	uint8_t type;
	uint8_t len8;  /* length in 8-byte units, not counting the first (fragment: 0) */
	uint16_t frag; /* fragment header: offset << 3 | M */
	uint32_t id;   /* fragment header: identification */
};

struct xfab_frame_ipv6 {
	uint8_t version; /* 6 unless XFAB_FRAME_SET_VERSION */
	uint8_t tclass;	 /* DSCP << 2 | ECN */
	uint32_t flow_label;
	uint16_t payload_len;
	uint8_t next; /* first extension header's or l4.proto unless XFAB_FRAME_SET_PROTO */
	uint8_t hop_limit;
	uint8_t src[16], dst[16];
	struct xfab_frame_ext ext[XFAB_FRAME_MAX_EXT];
	int n_ext;
	unsigned int set;
};

/* UDP, TCP, ICMP or ICMPv6 (proto 0: the payload follows the IP header). */
struct xfab_frame_l4 {
	uint8_t proto;
	uint16_t sport, dport;	      /* UDP, TCP */
	uint32_t seq, ack;	      /* TCP */
	uint8_t tcp_flags;	      /* TCP; data offset 5 */
	uint16_t window;	      /* TCP */
	uint8_t icmp_type, icmp_code; /* ICMP, ICMPv6 */
	uint32_t icmp_rest;	      /* ICMP: identifier and sequence */
	uint16_t len;		      /* UDP, with XFAB_FRAME_SET_LEN */
	uint16_t check;		      /* with XFAB_FRAME_SET_CHECK */
	unsigned int set;
};

/* RoCEv2 base transport header (12 bytes after UDP, before the payload). */
struct xfab_frame_bth {
	int present;
	uint8_t opcode; /* 0x04: RC SEND only */
	uint8_t flags;	/* SE, M, pad count, transport version */
	uint16_t pkey;
	uint32_t dest_qp; /* 24 bits */
	int ack_req;
	uint32_t psn; /* 24 bits */
};

struct xfab_frame;

/* VXLAN (8 bytes after UDP) carrying `inner` as its payload. */
struct xfab_frame_vxlan {
	int present;
	uint8_t flags; /* 0x08 (VNI valid) unless flags_set */
	int flags_set;
	uint32_t vni; /* 24 bits */
	const struct xfab_frame *inner;
};

struct xfab_frame {
	uint8_t dmac[6], smac[6];
	uint16_t vlan[XFAB_FRAME_MAX_VLANS]; /* 802.1Q TCIs, outer first */
	int n_vlan;
	enum xfab_frame_l3 l3;
	uint16_t ethertype; /* XFAB_FRAME_RAW only */
	struct xfab_frame_ipv4 ip4;
	struct xfab_frame_ipv6 ip6;
	struct xfab_frame_l4 l4;
	struct xfab_frame_bth bth;
	struct xfab_frame_vxlan vxlan;
	const uint8_t *payload; /* NULL: payload_len zero bytes */
	size_t payload_len;
};

/* Where the layers of a built frame start (0: absent). */
struct xfab_frame_info {
	size_t l3_off, l4_off, payload_off, len;
};

/* Writes the frame into buf. Its length, or -1 if it does not fit in cap or
 * the description is impossible (too many tags or extension headers, options
 * not a multiple of 4, VXLAN nested too deep). */
long xfab_frame_build(const struct xfab_frame *f, void *buf, size_t cap,
		      struct xfab_frame_info *info);

/* Sets l3 and the addresses from their text (IPv4 or IPv6, both alike).
 * 0 or -1. */
int xfab_frame_addrs(struct xfab_frame *f, const char *src, const char *dst);

#endif
