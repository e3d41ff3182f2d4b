/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Test oracles shared by the BPF suites: RFC 1071 written out from the RFC,
 * the flow hash written out from its description, not the library's or the
 * data plane's code, and big-endian field access. */
#ifndef XFAB_TEST_ORACLE_H
#define XFAB_TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xfab_abi.h"

static inline uint16_t rfc1071(const uint8_t *buf, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)buf[i] << 8 | buf[i + 1];
	if (len & 1)
		sum += (uint32_t)buf[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* An Ethernet header: destination, source, ethertype. */
static inline void put_eth(uint8_t *b, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	put16(b + 12, type);
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * The multilinear flow hash, as include/xfab_hash.h's comment describes it
 * (not its code): k0 + the sum of k_i * w_i mod 2^64, its high 32 bits. The
 * words are read from the IP header at ip, len bytes of which are there:
 * the addresses (IPv4 one word each, IPv6 four), as network-order bytes
 * read as host integers; TCP's and UDP's sport | dport << 16 (0 for another
 * protocol); proto | qp << 8, the QP being RoCEv2's (UDP to 4791: the BTH's
 * bytes 5-7) as an integer; IPv6's flow label as an integer.
 */
static inline uint32_t oracle_flow_hash(const struct xfab_hash_key *k, const uint8_t *ip,
					size_t len)
{
	int v6 = ip[0] >> 4 == 6, words = v6 ? 4 : 1;
	const uint8_t *sa = ip + (v6 ? 8 : 12), *da = ip + (v6 ? 24 : 16),
		      *l4 = ip + (v6 ? 40 : 20);
	uint32_t w, ports = 0, qp = 0, proto = v6 ? ip[6] : ip[9];
	uint64_t h = k->k0;

	for (int i = 0; i < words; i++) {
		memcpy(&w, sa + 4 * i, 4);
		h += k->src[i] * w;
		memcpy(&w, da + 4 * i, 4);
		h += k->dst[i] * w;
	}
	if (proto == 6 || proto == 17)
		memcpy(&ports, l4, 4);
	if (proto == 17 && get16(l4 + 2) == 4791 && (size_t)(l4 + 16 - ip) <= len)
		qp = (uint32_t)l4[13] << 16 | (uint32_t)l4[14] << 8 | l4[15];
	h += k->ports * (ports & k->ports_mask) + k->misc * ((proto | qp << 8) & k->misc_mask);
	if (v6)
		h += k->label * ((uint32_t)(ip[1] & 0x0f) << 16 | get16(ip + 2));
	return (uint32_t)(h >> 32);
}

#endif
