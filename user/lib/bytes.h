/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Big-endian fields in a byte buffer (network order on the wire), for the
 * frame builders and parsers: written once. */
#ifndef XFAB_BYTES_H
#define XFAB_BYTES_H

#include <stdint.h>

static inline void xfab_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void xfab_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	xfab_put16(p + 1, (uint16_t)v);
}

static inline void xfab_put32(uint8_t *p, uint32_t v)
{
	xfab_put16(p, (uint16_t)(v >> 16));
	xfab_put16(p + 2, (uint16_t)v);
}

static inline uint16_t xfab_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

#endif
