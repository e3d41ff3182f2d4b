// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fib6.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "tables.h"

#define G_ENTRIES ((size_t)XFAB_FIB6_GROUPS * 256)
#define LEVELS 15 /* group levels: bytes 2..15 of the address, and none */

#define LEN16 ((size_t)XFAB_FIB6_TBL16_SIZE * 4)
#define LEN8 (G_ENTRIES * 4)

void xfab_fib6_attach(struct xfab_fib6_hw *hw, __u32 *tbl16, __u32 *tbl8)
{
	hw->tbl16 = tbl16;
	hw->tbl8 = tbl8;
}

int xfab_fib6_map(struct xfab_fib6_hw *hw, int fd16, int fd8)
{
	int err = xfab_mmap_pair(fd16, LEN16, &hw->map16, fd8, LEN8, &hw->map8);

	if (!err)
		xfab_fib6_attach(hw, hw->map16, hw->map8);
	return err;
}

void xfab_fib6_unmap(struct xfab_fib6_hw *hw)
{
	if (hw->map16)
		munmap(hw->map16, LEN16);
	if (hw->map8)
		munmap(hw->map8, LEN8);
	memset(hw, 0, sizeof(*hw));
}

static int is_group(__u32 v)
{
	return (v & XFAB_FIB6_EXT) && (v & XFAB_FIB6_ID_MASK) < XFAB_FIB6_GROUPS;
}

__u32 xfab_fib6_lookup(const __u32 *tbl16, const __u32 *tbl8, const __u8 addr[16])
{
	__u32 v = tbl16[(__u32)addr[0] << 8 | addr[1]];

	for (int b = 2; b < 16 && (v & XFAB_FIB6_EXT); b++) {
		if (!is_group(v))
			return 0;
		v = tbl8[(size_t)(v & XFAB_FIB6_ID_MASK) * 256 + addr[b]];
	}
	return (v & XFAB_FIB6_EXT) ? 0 : v;
}

struct image6 {
	__u32 t16[XFAB_FIB6_TBL16_SIZE];
	__u32 *t8;
	__u8 level[XFAB_FIB6_GROUPS]; /* 0: unused by the image, else the byte index */
	__u8 g_hw[XFAB_FIB6_GROUPS];  /* reached by a live entry */
	__u32 next_free;
};

/* Marks every group a live entry reaches (walked, so stale groups are not). */
static int mark_hw_groups(const struct xfab_fib6_hw *hw, __u8 *g_hw)
{
	__u32 *stack = malloc(XFAB_FIB6_GROUPS * sizeof(__u32));
	size_t top = 0;

	if (!stack)
		return -ENOMEM;
	for (__u32 i = 0; i < XFAB_FIB6_TBL16_SIZE; i++)
		if (is_group(hw->tbl16[i]) && !g_hw[hw->tbl16[i] & XFAB_FIB6_ID_MASK]) {
			g_hw[hw->tbl16[i] & XFAB_FIB6_ID_MASK] = 1;
			stack[top++] = hw->tbl16[i] & XFAB_FIB6_ID_MASK;
		}
	while (top) {
		__u32 g = stack[--top];

		for (size_t i = 0; i < 256; i++) {
			__u32 v = hw->tbl8[(size_t)g * 256 + i];

			if (is_group(v) && !g_hw[v & XFAB_FIB6_ID_MASK]) {
				g_hw[v & XFAB_FIB6_ID_MASK] = 1;
				stack[top++] = v & XFAB_FIB6_ID_MASK;
			}
		}
	}
	free(stack);
	return 0;
}

/* The group under *slot (made one if it is a route or empty); hslot is
 * the same position in the kernel's tables, NULL once the paths differ. */
static int ensure_group(struct image6 *im, __u32 *slot, const __u32 *hslot, int byte, __u32 *g)
{
	__u32 cover = *slot;

	if (cover & XFAB_FIB6_EXT) {
		*g = cover & XFAB_FIB6_ID_MASK;
		return 0;
	}
	if (hslot && is_group(*hslot) && !im->level[*hslot & XFAB_FIB6_ID_MASK]) {
		*g = *hslot & XFAB_FIB6_ID_MASK; /* the path keeps its group */
	} else {
		while (im->next_free < XFAB_FIB6_GROUPS &&
		       (im->g_hw[im->next_free] || im->level[im->next_free]))
			im->next_free++;
		if (im->next_free == XFAB_FIB6_GROUPS)
			return -ENOSPC;
		*g = im->next_free;
	}
	im->level[*g] = (__u8)byte;
	for (size_t i = 0; i < 256; i++)
		im->t8[(size_t)*g * 256 + i] = cover;
	*slot = XFAB_FIB6_EXT | *g;
	return 0;
}

static int paint(struct image6 *im, const struct xfab_fib6_hw *hw, const struct xfab_e_route_v6 *e)
{
	int plen = (int)e->key.prefixlen - 32, bits = 16, byte = 2;
	const __u8 *a = e->key.addr;
	__u32 val = XFAB_FIB6_ENTRY(e->val.type, e->val.id & XFAB_FIB6_ID_MASK),
	      i0 = a[0] << 8 | a[1];
	__u32 *slot = &im->t16[i0];
	const __u32 *hslot = &hw->tbl16[i0];

	if (e->val.type == 0 || (val & XFAB_FIB6_EXT))
		return 0; /* not a route the data plane knows */
	if (plen <= 16) {
		__u32 first = plen ? i0 & ~((1u << (16 - plen)) - 1) : 0;

		for (__u32 i = 0; i < (1u << (16 - plen)); i++)
			im->t16[first + i] = val;
		return 0;
	}
	for (;;) {
		__u32 g;
		int err = ensure_group(im, slot, hslot, byte, &g);

		if (err)
			return err;
		if (plen <= bits + 8) {
			__u32 span = 1u << (bits + 8 - plen), first = a[byte] & ~(span - 1);

			for (__u32 i = 0; i < span; i++)
				im->t8[(size_t)g * 256 + first + i] = val;
			return 0;
		}
		hslot = hslot && is_group(*hslot) && (*hslot & XFAB_FIB6_ID_MASK) == g
			    ? &hw->tbl8[(size_t)g * 256 + a[byte]]
			    : NULL;
		slot = &im->t8[(size_t)g * 256 + a[byte]];
		bits += 8;
		byte++;
	}
}

int xfab_fib6_sync(struct xfab_fib6_hw *hw, const void *routes, size_t n,
		   struct xfab_fib6_stats *st)
{
	const struct xfab_e_route_v6 *r = routes;
	struct image6 *im = calloc(1, sizeof(*im));
	struct xfab_fib6_stats s = {0};
	size_t start[131] = {0};
	__u32 *order = malloc((n ? n : 1) * sizeof(__u32));
	int err = 0;

	if (!im || !order || !(im->t8 = calloc(G_ENTRIES, sizeof(__u32)))) {
		err = -ENOMEM;
		goto out;
	}
	err = mark_hw_groups(hw, im->g_hw);
	if (err)
		goto out;
	/* counting sort of table-0 routes by prefix length, then paint */
	for (size_t i = 0; i < n; i++)
		if (r[i].key.table == 0 && r[i].key.prefixlen >= 32 && r[i].key.prefixlen <= 160)
			start[r[i].key.prefixlen - 32 + 1]++;
	for (int l = 1; l < 131; l++)
		start[l] += start[l - 1];
	s.routes = start[129];
	for (size_t i = 0; i < n; i++)
		if (r[i].key.table == 0 && r[i].key.prefixlen >= 32 && r[i].key.prefixlen <= 160)
			order[start[r[i].key.prefixlen - 32]++] = (__u32)i;
	for (size_t o = 0; o < s.routes && !err; o++)
		err = paint(im, hw, &r[order[o]]);
	if (err)
		goto out;
	/* store: groups deepest first, then the first level */
	for (int byte = 15; byte >= 2; byte--)
		for (size_t g = 0; g < XFAB_FIB6_GROUPS; g++) {
			if (im->level[g] != byte)
				continue;
			s.groups++;
			for (size_t i = g * 256; i < g * 256 + 256; i++)
				if (hw->tbl8[i] != im->t8[i]) {
					__atomic_store_n(&hw->tbl8[i], im->t8[i], __ATOMIC_RELAXED);
					s.written++;
				}
			__atomic_thread_fence(__ATOMIC_RELEASE);
		}
	for (size_t i = 0; i < XFAB_FIB6_TBL16_SIZE; i++)
		if (hw->tbl16[i] != im->t16[i]) {
			__atomic_store_n(&hw->tbl16[i], im->t16[i], __ATOMIC_RELAXED);
			s.written++;
		}
	if (st)
		*st = s;
out:
	if (im)
		free(im->t8);
	free(im);
	free(order);
	return err;
}

/* ---- how many groups a set of prefixes needs ---- */

struct path_rec {
	__u8 key[16]; /* level (byte index of the group), then the leading bytes */
	__u32 idx;
};

static int cmp_path(const void *a, const void *b)
{
	const struct path_rec *x = a, *y = b;
	int c = memcmp(x->key, y->key, 16);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

size_t xfab_fib6_groups_needed(const __u8 (*addr)[16], const int *plen, size_t n, long *first_over)
{
	struct path_rec *rec;
	__u32 *firsts;
	size_t m = 0, k = 0;

	if (first_over)
		*first_over = -1;
	for (size_t i = 0; i < n; i++)
		if (plen[i] > 16)
			m += (size_t)(plen[i] - 16 + 7) / 8;
	rec = malloc((m ? m : 1) * sizeof(*rec));
	firsts = malloc((m ? m : 1) * sizeof(*firsts));
	if (!rec || !firsts) {
		free(rec);
		free(firsts);
		return (size_t)-1;
	}
	for (size_t i = 0; i < n; i++)
		for (int byte = 2; plen[i] > 16 + 8 * (byte - 2); byte++) {
			/* the group at byte `byte` hangs off the first `byte` bytes */
			memset(rec[k].key, 0, 16);
			rec[k].key[0] = (__u8)byte;
			memcpy(rec[k].key + 1, addr[i], (size_t)byte);
			rec[k].idx = (__u32)i;
			k++;
		}
	qsort(rec, m, sizeof(*rec), cmp_path);
	k = 0;
	for (size_t i = 0; i < m; i++)
		if (!i || memcmp(rec[i].key, rec[i - 1].key, 16))
			firsts[k++] = rec[i].idx; /* smallest index on this path */
	if (first_over && k > XFAB_FIB6_GROUPS) {
		qsort(firsts, k, sizeof(*firsts), cmp_u32);
		*first_over = (long)firsts[XFAB_FIB6_GROUPS];
	}
	free(rec);
	free(firsts);
	return k;
}
