// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fib4.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "common.h"
#include "tables.h"

#define TBL8_ENTRIES ((size_t)XFAB_FIB4_TBL8_GROUPS * 256)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void mark(__u64 *used, __u32 first, __u32 count)
{
	for (__u32 c = first / XFAB_FIB4_CHUNK; c <= (first + count - 1) / XFAB_FIB4_CHUNK; c++)
		used[c / 64] |= 1ull << (c % 64);
}

static int chunk_used(const __u64 *used, __u32 c)
{
	return (used[c / 64] >> (c % 64)) & 1;
}

void xfab_fib4_attach(struct xfab_fib4_hw *hw, __u32 *tbl24, __u32 *tbl8)
{
	hw->tbl24 = tbl24;
	hw->tbl8 = tbl8;
	memset(hw->used, 0, sizeof(hw->used));
	for (__u32 c = 0; c < XFAB_FIB4_CHUNKS; c++)
		for (__u32 i = 0; i < XFAB_FIB4_CHUNK; i++)
			if (tbl24[c * XFAB_FIB4_CHUNK + i]) {
				hw->used[c / 64] |= 1ull << (c % 64);
				break;
			}
}

#define LEN24 ((size_t)XFAB_FIB4_TBL24_SIZE * 4)
#define LEN8 (TBL8_ENTRIES * 4)

int xfab_fib4_map(struct xfab_fib4_hw *hw, int fd24, int fd8)
{
	int err = xfab_mmap_pair(fd24, LEN24, &hw->map24, fd8, LEN8, &hw->map8);

	if (err)
		return err;
	/* Freshly loaded maps are all zero: nothing to scan (and not scanning
	 * keeps the 64 MiB of tbl24 out of this process's resident set). */
	hw->tbl24 = hw->map24;
	hw->tbl8 = hw->map8;
	memset(hw->used, 0, sizeof(hw->used));
	return 0;
}

void xfab_fib4_unmap(struct xfab_fib4_hw *hw)
{
	if (hw->map24)
		munmap(hw->map24, LEN24);
	if (hw->map8)
		munmap(hw->map8, LEN8);
	memset(hw, 0, sizeof(*hw));
}

__u32 xfab_fib4_lookup(const __u32 *tbl24, const __u32 *tbl8, __u32 addr)
{
	__u32 v = tbl24[addr >> 8];

	if (v & XFAB_FIB4_EXT) {
		__u32 g = v & XFAB_FIB4_ID_MASK;

		if (g >= XFAB_FIB4_TBL8_GROUPS)
			return 0;
		v = tbl8[(size_t)g * 256 + (addr & 0xff)];
	}
	return v;
}

static void store(__u32 *p, __u32 v, size_t *written)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
	(*written)++;
}

struct image {
	__u32 *t24, *t8;
	__u64 used[XFAB_FIB4_CHUNKS / 64];
	unsigned char g_next[XFAB_FIB4_TBL8_GROUPS]; /* group used by the image */
	unsigned char g_hw[XFAB_FIB4_TBL8_GROUPS];   /* group a live entry points at */
	__u32 *order;				     /* route indexes by prefix length */
};

static void image_free(struct image *im)
{
	free(im->t24);
	free(im->t8);
	free(im->order);
	free(im);
}

/* Expands the routes into im; -ENOSPC when out of tbl8 groups. */
static int expand(struct image *im, const struct xfab_fib4_hw *hw, const struct xfab_e_route_v4 *r,
		  size_t n, size_t *n_routes)
{
	size_t start[34] = {0};
	__u32 next_free = 0;

	/* counting sort of table-0 routes by prefix length */
	for (size_t i = 0; i < n; i++)
		if (r[i].key.table == 0 && r[i].key.prefixlen >= 32 && r[i].key.prefixlen <= 64)
			start[r[i].key.prefixlen - 32 + 1]++;
	for (int l = 1; l < 34; l++)
		start[l] += start[l - 1];
	*n_routes = start[33];
	for (size_t i = 0; i < n; i++)
		if (r[i].key.table == 0 && r[i].key.prefixlen >= 32 && r[i].key.prefixlen <= 64)
			im->order[start[r[i].key.prefixlen - 32]++] = (__u32)i;
	/* (start[l] now ends bucket l) */
	for (__u32 c = 0; c < XFAB_FIB4_CHUNKS; c++)
		if (chunk_used(hw->used, c))
			for (__u32 i = 0; i < XFAB_FIB4_CHUNK; i++) {
				__u32 v = hw->tbl24[c * XFAB_FIB4_CHUNK + i];

				if ((v & XFAB_FIB4_EXT) &&
				    (v & XFAB_FIB4_ID_MASK) < XFAB_FIB4_TBL8_GROUPS)
					im->g_hw[v & XFAB_FIB4_ID_MASK] = 1;
			}
	for (size_t o = 0; o < *n_routes; o++) {
		const struct xfab_e_route_v4 *e = &r[im->order[o]];
		__u32 plen = e->key.prefixlen - 32, addr, val, idx, g;

		memcpy(&addr, e->key.addr, 4);
		addr = ntohl(addr);
		val = XFAB_FIB4_ENTRY(e->val.type, e->val.id & XFAB_FIB4_ID_MASK);
		if (e->val.type == 0 || (val & XFAB_FIB4_EXT))
			continue; /* not a route the data plane knows */
		if (plen <= 24) {
			__u32 first = plen ? (addr >> 8) & ~((1u << (24 - plen)) - 1) : 0;
			__u32 count = 1u << (24 - plen);

			for (__u32 i = 0; i < count; i++)
				im->t24[first + i] = val;
			mark(im->used, first, count);
			continue;
		}
		idx = addr >> 8;
		if (!(im->t24[idx] & XFAB_FIB4_EXT)) {
			__u32 hv = hw->tbl24[idx], cover = im->t24[idx];

			if ((hv & XFAB_FIB4_EXT) &&
			    (hv & XFAB_FIB4_ID_MASK) < XFAB_FIB4_TBL8_GROUPS &&
			    !im->g_next[hv & XFAB_FIB4_ID_MASK]) {
				g = hv & XFAB_FIB4_ID_MASK; /* this /24 keeps its group */
			} else {
				while (next_free < XFAB_FIB4_TBL8_GROUPS &&
				       (im->g_hw[next_free] || im->g_next[next_free]))
					next_free++;
				if (next_free == XFAB_FIB4_TBL8_GROUPS)
					return -ENOSPC;
				g = next_free;
			}
			im->g_next[g] = 1;
			for (__u32 i = 0; i < 256; i++)
				im->t8[(size_t)g * 256 + i] = cover;
			im->t24[idx] = XFAB_FIB4_EXT | g;
			mark(im->used, idx, 1);
		}
		g = im->t24[idx] & XFAB_FIB4_ID_MASK;
		{
			__u32 first = addr & 0xff & ~((1u << (32 - plen)) - 1);

			for (__u32 i = 0; i < (1u << (32 - plen)); i++)
				im->t8[(size_t)g * 256 + first + i] = val;
		}
	}
	return 0;
}

int xfab_fib4_sync(struct xfab_fib4_hw *hw, const void *routes, size_t n,
		   struct xfab_fib4_stats *st)
{
	struct image *im = calloc(1, sizeof(*im));
	struct xfab_fib4_stats s = {0};
	double t0 = now_ms(), t1;
	int err;

	if (!im)
		return -ENOMEM;
	/* calloc: untouched pages of the image cost no memory */
	im->t24 = calloc(XFAB_FIB4_TBL24_SIZE, sizeof(__u32));
	im->t8 = calloc(TBL8_ENTRIES, sizeof(__u32));
	im->order = malloc((n ? n : 1) * sizeof(__u32));
	if (!im->t24 || !im->t8 || !im->order) {
		image_free(im);
		return -ENOMEM;
	}
	err = expand(im, hw, routes, n, &s.routes);
	if (err) {
		image_free(im);
		return err;
	}
	t1 = now_ms();
	/* 1. groups of the new image, before anything points at them */
	for (size_t g = 0; g < XFAB_FIB4_TBL8_GROUPS; g++) {
		if (!im->g_next[g])
			continue;
		s.groups++;
		for (size_t i = g * 256; i < g * 256 + 256; i++)
			if (hw->tbl8[i] != im->t8[i])
				store(&hw->tbl8[i], im->t8[i], &s.written);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* 2. tbl24, over every chunk either side may have set */
	for (__u32 c = 0; c < XFAB_FIB4_CHUNKS; c++) {
		if (!chunk_used(hw->used, c) && !chunk_used(im->used, c))
			continue;
		for (size_t i = (size_t)c * XFAB_FIB4_CHUNK; i < (size_t)(c + 1) * XFAB_FIB4_CHUNK;
		     i++)
			if (hw->tbl24[i] != im->t24[i])
				store(&hw->tbl24[i], im->t24[i], &s.written);
	}
	/* A group nothing points at any more keeps its stale entries until a
	 * later sync hands it out again (a packet between its two loads may
	 * still be reading it now). */
	memcpy(hw->used, im->used, sizeof(hw->used));
	s.expand_ms = t1 - t0;
	s.write_ms = now_ms() - t1;
	if (st)
		*st = s;
	image_free(im);
	return 0;
}
