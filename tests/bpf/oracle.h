/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Test oracles shared by the BPF suites: RFC 1071 written out from the RFC,
 * not the library's or the data plane's code, and big-endian field access. */
#ifndef XFAB_TEST_ORACLE_H
#define XFAB_TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

#endif
