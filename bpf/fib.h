/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The FIB lookup (docs/ARCHITECTURE.md): table 0 in the DIR-24-8 style
 * tables xfabd compiles (fib4_tbl16/tbl8, fib6_tbl16/tbl8), the other
 * tables (VNETs, TE, repair) in the LPM tries routes_v4/v6. */
#ifndef XFAB_BPF_FIB_H
#define XFAB_BPF_FIB_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "maps.h"
#include "scratch.h"

/* One level of a FIB walk: the entry of group g for the next address byte. */
static __always_inline __u32 xfab_fib_group_entry(void *tbl8, __u32 v, __u32 byte)
{
	__u32 idx = (v & XFAB_FIB4_ID_MASK) << 8 | byte, key = idx >> 1;
	__u32 *e = bpf_map_lookup_elem(tbl8, &key);

	return e ? e[idx & 1] : 0;
}

/* Table 0, IPv4: the FIB entry; one load for a prefix up to /16, two up to
 * /24, three for longer ones (xfab_abi.h). */
static __always_inline __u32 xfab_fib4_entry(__be32 daddr)
{
	__u32 a = bpf_ntohl(daddr), idx = a >> 16, key = idx >> 1, v = 0;
	__u32 *e = bpf_map_lookup_elem(&fib4_tbl16, &key); /* entries 2k, 2k+1 */

	if (e)
		v = e[idx & 1];
	if (v & XFAB_FIB4_EXT) {
		v = xfab_fib_group_entry(&fib4_tbl8, v, (a >> 8) & 0xff);
		if (v & XFAB_FIB4_EXT)
			v = xfab_fib_group_entry(&fib4_tbl8, v, a & 0xff);
	}
	return (v & XFAB_FIB4_EXT) ? 0 : v;
}

/* Table 0, IPv6: the FIB entry, one load per level (16 bits, then a byte
 * at a time while the entry points at a group). A global function of the
 * address words (network order, as read): verified once, not once per
 * level at every call site. */
__attribute__((noinline)) __u32 xfab_fib6_walk(__u32 w0, __u32 w1, __u32 w2, __u32 w3)
{
	__u32 w[4] = {w0, w1, w2, w3};
	__u32 idx = (w0 & 0xff) << 8 | ((w0 >> 8) & 0xff), key = idx >> 1, v = 0;
	__u32 *e = bpf_map_lookup_elem(&fib6_tbl16, &key);

	if (e)
		v = e[idx & 1];
	for (int b = 2; b < 16; b++) { /* bounded: at most 14 levels */
		if (!(v & XFAB_FIB6_EXT))
			break;
		idx = (v & XFAB_FIB6_ID_MASK) << 8 | ((w[b >> 2] >> ((b & 3) * 8)) & 0xff);
		key = idx >> 1;
		e = bpf_map_lookup_elem(&fib6_tbl8, &key);
		v = e ? e[idx & 1] : 0;
	}
	return (v & XFAB_FIB6_EXT) ? 0 : v;
}

/* The route of daddr (network order: IPv4's one word, IPv6's four) in a
 * tenant's table, an LPM trie's; NULL for none. */
static __always_inline const struct xfab_route *xfab_table_route(const __u32 *daddr, int v6,
								 __u32 table)
{
	if (v6) {
		struct xfab_lpm_v6_key key = {.prefixlen = 32 + 128, .table = bpf_htonl(table)};

		__builtin_memcpy(key.addr, daddr, 16);
		return bpf_map_lookup_elem(&routes_v6, &key);
	} else {
		struct xfab_lpm_v4_key key = {.prefixlen = 32 + 32, .table = bpf_htonl(table)};

		__builtin_memcpy(key.addr, daddr, 4);
		return bpf_map_lookup_elem(&routes_v4, &key);
	}
}

/* Looks the outer destination up in routing table `table`; 1 if a route
 * matched (copied to out). */
static __always_inline int xfab_lookup_route(const struct xfab_meta *m, __u32 table,
					     struct xfab_route *out)
{
	const struct xfab_route *rt;

	if (table == XFAB_TABLE_DEFAULT) {
		__u32 v = m->is_v6
			      ? xfab_fib6_walk(m->daddr[0], m->daddr[1], m->daddr[2], m->daddr[3])
			      : xfab_fib4_entry(m->daddr[0]);

		out->type = v >> XFAB_FIB4_TYPE_SHIFT;
		out->id = v & (m->is_v6 ? XFAB_FIB6_ID_MASK : XFAB_FIB4_ID_MASK);
		return v != 0;
	}
	rt = xfab_table_route(m->daddr, m->is_v6, table);
	if (!rt)
		return 0;
	*out = *rt;
	return 1;
}

#endif
