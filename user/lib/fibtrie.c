// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fibtrie.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "xfab_abi.h"

#define EXT XFAB_FIB4_EXT
#define ID_MASK XFAB_FIB4_ID_MASK

/* One prefix held: the key is the masked address and the length. */
struct pfx {
	__u8 addr[16];
	__u8 plen;
	__u8 used;
	__u16 pad;
	__u32 val;
};

struct xfab_fibtrie {
	__u32 *top, *grp; /* the kernel's arrays */
	__u8 *top_depth;  /* per entry: 1 + length of the prefix that wrote it, 0: none */
	__u8 *grp_depth;  /* likewise for group entries */
	__u32 *refs;	  /* per group: prefixes whose path runs through it */
	__u32 *free_q;	  /* free groups, oldest first (a ring) */
	size_t free_head, free_count;
	__u32 n_groups;
	int top_bits, max_plen;
	struct pfx *slots; /* open addressing, linear probing */
	size_t cap, count;
	__u32 n_len[129]; /* prefixes held of each length: a cover is looked
			   * for only among lengths that have one */
	size_t written;
};

static void mask_copy(__u8 *out, const __u8 *in, int plen, int max_plen)
{
	int bytes = max_plen / 8;

	memset(out, 0, 16);
	for (int i = 0; i < bytes; i++) {
		int bit0 = i * 8;

		if (bit0 >= plen)
			break;
		out[i] = bit0 + 8 > plen ? (__u8)(in[i] & (0xff << (8 - (plen - bit0)))) : in[i];
	}
}

/* ---- the prefix hash ---- */

static size_t pfx_hash(const __u8 *a, int plen)
{
	__u64 x, y, h;

	memcpy(&x, a, 8);
	memcpy(&y, a + 8, 8);
	h = x * 0x9e3779b97f4a7c15ull ^ (y + (__u64)plen) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h;
}

static struct pfx *find(const struct xfab_fibtrie *t, const __u8 *a, int plen)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = pfx_hash(a, plen) & (t->cap - 1); t->slots[i].used; i = (i + 1) & (t->cap - 1))
		if (t->slots[i].plen == plen && !memcmp(t->slots[i].addr, a, 16))
			return &t->slots[i];
	return NULL;
}

static int grow(struct xfab_fibtrie *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	struct pfx *old = t->slots, *n = xfab_big_zalloc(ncap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t k = 0; k < t->cap; k++) {
		size_t i;

		if (!old[k].used)
			continue;
		for (i = pfx_hash(old[k].addr, old[k].plen) & (ncap - 1); n[i].used;
		     i = (i + 1) & (ncap - 1))
			;
		n[i] = old[k];
	}
	xfab_big_free(old, t->cap * sizeof(*old));
	t->slots = n;
	t->cap = ncap;
	return 0;
}

static struct pfx *insert(struct xfab_fibtrie *t, const __u8 *a, int plen, __u32 val)
{
	size_t i;

	if ((t->count + 1) * 2 > t->cap && grow(t))
		return NULL;
	for (i = pfx_hash(a, plen) & (t->cap - 1); t->slots[i].used; i = (i + 1) & (t->cap - 1))
		;
	memcpy(t->slots[i].addr, a, 16);
	t->slots[i].plen = (__u8)plen;
	t->slots[i].val = val;
	t->slots[i].used = 1;
	t->count++;
	t->n_len[plen]++;
	return &t->slots[i];
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void erase(struct xfab_fibtrie *t, struct pfx *s)
{
	size_t i = (size_t)(s - t->slots), j = i;

	t->slots[i].used = 0;
	t->count--;
	t->n_len[t->slots[i].plen]--;
	for (;;) {
		size_t home;

		j = (j + 1) & (t->cap - 1);
		if (!t->slots[j].used)
			return;
		home = pfx_hash(t->slots[j].addr, t->slots[j].plen) & (t->cap - 1);
		/* slot j may move to i unless its home lies in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		t->slots[i] = t->slots[j];
		t->slots[j].used = 0;
		i = j;
	}
}

/* ---- the arrays ---- */

struct xfab_fibtrie *xfab_fibtrie_new(__u32 *top, int top_bits, __u32 *groups, __u32 n_groups,
				      int max_plen)
{
	struct xfab_fibtrie *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->top = top;
	t->grp = groups;
	t->top_bits = top_bits;
	t->max_plen = max_plen;
	t->n_groups = n_groups;
	/* calloc: pages of the depth arrays cost memory only once touched */
	t->top_depth = calloc((size_t)1 << top_bits, 1);
	t->grp_depth = calloc((size_t)n_groups * 256, 1);
	t->refs = calloc(n_groups, sizeof(__u32));
	t->free_q = malloc(n_groups * sizeof(__u32));
	if (!t->top_depth || !t->grp_depth || !t->refs || !t->free_q) {
		xfab_fibtrie_free(t);
		return NULL;
	}
	for (__u32 g = 0; g < n_groups; g++)
		t->free_q[g] = g;
	t->free_count = n_groups;
	return t;
}

void xfab_fibtrie_free(struct xfab_fibtrie *t)
{
	if (!t)
		return;
	free(t->top_depth);
	free(t->grp_depth);
	free(t->refs);
	free(t->free_q);
	xfab_big_free(t->slots, t->cap * sizeof(*t->slots));
	free(t);
}

static void store(struct xfab_fibtrie *t, __u32 *p, __u32 v)
{
	if (*p == v)
		return;
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
	t->written++;
}

static __u32 top_index(const struct xfab_fibtrie *t, const __u8 *a)
{
	__u32 i = 0;

	for (int b = 0; b < t->top_bits / 8; b++)
		i = i << 8 | a[b];
	return i;
}

static __u32 group_alloc(struct xfab_fibtrie *t)
{
	__u32 g = t->free_q[t->free_head];

	t->free_head = (t->free_head + 1) % t->n_groups;
	t->free_count--;
	return g;
}

static void group_release(struct xfab_fibtrie *t, __u32 g)
{
	t->free_q[(t->free_head + t->free_count) % t->n_groups] = g;
	t->free_count++;
}

/* Writes val (owned by a prefix of depth d - 1) into every entry under
 * slot that no longer prefix owns. */
static void paint(struct xfab_fibtrie *t, __u32 *slot, __u8 *dslot, __u32 val, __u8 d)
{
	if (*slot & EXT) {
		size_t g = *slot & ID_MASK;

		for (size_t i = g * 256; i < g * 256 + 256; i++)
			paint(t, &t->grp[i], &t->grp_depth[i], val, d);
		return;
	}
	if (*dslot <= d) {
		*dslot = d;
		store(t, slot, val);
	}
}

/* Hands the entries a prefix of depth d owned under slot to its cover. */
static void unpaint(struct xfab_fibtrie *t, __u32 *slot, __u8 *dslot, __u8 d, __u32 cv, __u8 cd)
{
	if (*slot & EXT) {
		size_t g = *slot & ID_MASK;

		for (size_t i = g * 256; i < g * 256 + 256; i++)
			unpaint(t, &t->grp[i], &t->grp_depth[i], d, cv, cd);
		return;
	}
	if (*dslot == d) {
		*dslot = cd;
		store(t, slot, cv);
	}
}

/* The entries a prefix spans: at the level its length ends in (the groups
 * on its path exist). */
static void locate(const struct xfab_fibtrie *t, const __u8 *a, int plen, size_t *first,
		   size_t *span, int *in_top)
{
	__u32 slot;
	int bits = t->top_bits, byte = t->top_bits / 8;

	if (plen <= t->top_bits) {
		*span = (size_t)1 << (t->top_bits - plen);
		*first = top_index(t, a) & ~(*span - 1);
		*in_top = 1;
		return;
	}
	*in_top = 0;
	slot = t->top[top_index(t, a)];
	for (;;) {
		size_t g = slot & ID_MASK;

		if (plen <= bits + 8) {
			*span = (size_t)1 << (bits + 8 - plen);
			*first = g * 256 + (a[byte] & ~(*span - 1));
			return;
		}
		slot = t->grp[g * 256 + a[byte]];
		bits += 8;
		byte++;
	}
}

/* Groups a prefix needs beyond those in place. */
static size_t missing(const struct xfab_fibtrie *t, const __u8 *a, int plen)
{
	__u32 slot = t->top[top_index(t, a)];
	int bits = t->top_bits, byte = t->top_bits / 8;

	while (plen > bits) {
		if (!(slot & EXT))
			return (size_t)(plen - bits + 7) / 8;
		slot = t->grp[(size_t)(slot & ID_MASK) * 256 + a[byte]];
		bits += 8;
		byte++;
	}
	return 0;
}

/* Makes (filled with what they replace) the groups on a new prefix's path
 * and counts the prefix in each. */
static void link_path(struct xfab_fibtrie *t, const __u8 *a, int plen)
{
	__u32 ti = top_index(t, a);
	__u32 *slot = &t->top[ti];
	__u8 *dslot = &t->top_depth[ti];
	int bits = t->top_bits, byte = t->top_bits / 8;

	while (plen > bits) {
		size_t g;

		if (!(*slot & EXT)) {
			g = group_alloc(t);
			for (size_t i = g * 256; i < g * 256 + 256; i++) {
				store(t, &t->grp[i], *slot);
				t->grp_depth[i] = *dslot;
			}
			/* the group is complete before anything points at it */
			__atomic_thread_fence(__ATOMIC_RELEASE);
			store(t, slot, EXT | (__u32)g);
			*dslot = 0;
		}
		g = *slot & ID_MASK;
		t->refs[g]++;
		slot = &t->grp[g * 256 + a[byte]];
		dslot = &t->grp_depth[g * 256 + a[byte]];
		bits += 8;
		byte++;
	}
}

/* Uncounts a removed prefix on its path; a group nothing reaches any more
 * holds one entry repeated: it goes back into its parent's entry. */
static void unlink_path(struct xfab_fibtrie *t, const __u8 *a, int plen)
{
	__u32 *parent[16];
	__u8 *dparent[16];
	size_t path[16] = {0};
	int n = 0, bits = t->top_bits, byte = t->top_bits / 8;
	__u32 ti = top_index(t, a);
	__u32 *slot = &t->top[ti];
	__u8 *dslot = &t->top_depth[ti];

	while (plen > bits && (*slot & EXT)) {
		size_t g = *slot & ID_MASK;

		parent[n] = slot;
		dparent[n] = dslot;
		path[n++] = g;
		t->refs[g]--;
		slot = &t->grp[g * 256 + a[byte]];
		dslot = &t->grp_depth[g * 256 + a[byte]];
		bits += 8;
		byte++;
	}
	while (n--) {
		size_t g = path[n];

		if (t->refs[g])
			break;
		*dparent[n] = t->grp_depth[g * 256];
		store(t, parent[n], t->grp[g * 256]);
		group_release(t, (__u32)g);
	}
}

int xfab_fibtrie_set(struct xfab_fibtrie *t, const __u8 *addr, int plen, __u32 val)
{
	__u8 a[16], d = (__u8)(plen + 1);
	struct pfx *s;
	size_t first, span;
	int in_top;

	if (plen < 0 || plen > t->max_plen || !val || (val & EXT))
		return -EINVAL;
	mask_copy(a, addr, plen, t->max_plen);
	s = find(t, a, plen);
	if (s && s->val == val)
		return 0;
	if (s) {
		s->val = val;
	} else {
		if (missing(t, a, plen) > t->free_count)
			return -ENOSPC;
		if (!insert(t, a, plen, val))
			return -ENOMEM;
		link_path(t, a, plen);
	}
	locate(t, a, plen, &first, &span, &in_top);
	for (size_t i = first; i < first + span; i++) {
		if (in_top)
			paint(t, &t->top[i], &t->top_depth[i], val, d);
		else
			paint(t, &t->grp[i], &t->grp_depth[i], val, d);
	}
	return 0;
}

int xfab_fibtrie_unset(struct xfab_fibtrie *t, const __u8 *addr, int plen)
{
	__u8 a[16], c[16], d = (__u8)(plen + 1), cd = 0;
	struct pfx *s;
	__u32 cv = 0;
	size_t first, span;
	int in_top;

	if (plen < 0 || plen > t->max_plen)
		return -EINVAL;
	mask_copy(a, addr, plen, t->max_plen);
	s = find(t, a, plen);
	if (!s)
		return 0;
	erase(t, s);
	/* the longest shorter prefix that covers this one */
	for (int l = plen - 1; l >= 0; l--) {
		const struct pfx *cs;

		if (!t->n_len[l])
			continue;
		mask_copy(c, a, l, t->max_plen);
		cs = find(t, c, l);
		if (cs) {
			cv = cs->val;
			cd = (__u8)(l + 1);
			break;
		}
	}
	locate(t, a, plen, &first, &span, &in_top);
	for (size_t i = first; i < first + span; i++) {
		if (in_top)
			unpaint(t, &t->top[i], &t->top_depth[i], d, cv, cd);
		else
			unpaint(t, &t->grp[i], &t->grp_depth[i], d, cv, cd);
	}
	unlink_path(t, a, plen);
	return 0;
}

__u32 xfab_fibtrie_get(const struct xfab_fibtrie *t, const __u8 *addr, int plen)
{
	__u8 a[16];
	const struct pfx *s;

	if (plen < 0 || plen > t->max_plen)
		return 0;
	mask_copy(a, addr, plen, t->max_plen);
	s = find(t, a, plen);
	return s ? s->val : 0;
}

struct path_key {
	__u8 k[16]; /* byte index of the group level, then the bytes before it */
};

static int cmp_path_key(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct path_key));
}

size_t xfab_fibtrie_groups_missing(const struct xfab_fibtrie *t, const __u8 (*addr)[16],
				   const int *plen, size_t n)
{
	struct path_key *keys = NULL;
	size_t m = 0, cap = 0, distinct = 0;

	for (size_t i = 0; i < n; i++) {
		__u8 a[16];
		size_t miss;
		int byte;

		mask_copy(a, addr[i], plen[i], t->max_plen);
		if (find(t, a, plen[i]))
			continue; /* in place: its path is too */
		miss = missing(t, a, plen[i]);
		/* the missing groups are the deepest `miss` on the path */
		byte = t->top_bits / 8 + (plen[i] - t->top_bits + 7) / 8 - (int)miss;
		for (; miss; miss--, byte++) {
			if (m == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct path_key *k = realloc(keys, ncap * sizeof(*k));

				if (!k) {
					free(keys);
					return (size_t)-1;
				}
				keys = k;
				cap = ncap;
			}
			memset(&keys[m], 0, sizeof(keys[m]));
			keys[m].k[0] = (__u8)byte;
			memcpy(keys[m].k + 1, a, (size_t)byte);
			m++;
		}
	}
	if (m)
		qsort(keys, m, sizeof(*keys), cmp_path_key);
	for (size_t i = 0; i < m; i++)
		distinct += !i || memcmp(&keys[i], &keys[i - 1], sizeof(keys[i]));
	free(keys);
	return distinct;
}

struct gone {
	const struct xfab_fibtrie *want;
	__u8 (*addr)[16];
	int *plen;
	size_t n;
};

static void collect_gone(void *arg, const __u8 *addr, int plen, __u32 val)
{
	struct gone *g = arg;

	(void)val;
	if (find(g->want, addr, plen))
		return;
	memcpy(g->addr[g->n], addr, 16);
	g->plen[g->n++] = plen;
}

int xfab_fibtrie_sync(struct xfab_fibtrie *t, const __u8 (*addr)[16], const int *plen,
		      const __u32 *val, size_t n)
{
	struct xfab_fibtrie want = {.max_plen = t->max_plen};
	struct gone gone = {.want = &want};
	size_t need;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		__u8 a[16];

		mask_copy(a, addr[i], plen[i], t->max_plen);
		if (!find(&want, a, plen[i]) && !insert(&want, a, plen[i], val[i])) {
			err = -ENOMEM;
			goto out;
		}
	}
	need = xfab_fibtrie_groups_missing(t, addr, plen, n);
	if (need == (size_t)-1) {
		err = -ENOMEM;
		goto out;
	}
	if (need > t->free_count) {
		err = -ENOSPC;
		goto out;
	}
	for (size_t i = 0; i < want.cap && !err; i++)
		if (want.slots[i].used)
			err = xfab_fibtrie_set(t, want.slots[i].addr, want.slots[i].plen,
					       want.slots[i].val);
	if (err)
		goto out;
	gone.addr = malloc((t->count ? t->count : 1) * sizeof(*gone.addr));
	gone.plen = malloc((t->count ? t->count : 1) * sizeof(*gone.plen));
	if (!gone.addr || !gone.plen) {
		err = -ENOMEM;
		goto out;
	}
	xfab_fibtrie_walk(t, collect_gone, &gone);
	for (size_t i = 0; i < gone.n; i++)
		xfab_fibtrie_unset(t, gone.addr[i], gone.plen[i]);
out:
	free(gone.addr);
	free(gone.plen);
	xfab_big_free(want.slots, want.cap * sizeof(*want.slots));
	return err;
}

size_t xfab_fibtrie_groups_free(const struct xfab_fibtrie *t)
{
	return t->free_count;
}

size_t xfab_fibtrie_groups_used(const struct xfab_fibtrie *t)
{
	return t->n_groups - t->free_count;
}

size_t xfab_fibtrie_prefixes(const struct xfab_fibtrie *t)
{
	return t->count;
}

void xfab_fibtrie_walk(const struct xfab_fibtrie *t,
		       void (*fn)(void *arg, const __u8 *addr, int plen, __u32 val), void *arg)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			fn(arg, t->slots[i].addr, t->slots[i].plen, t->slots[i].val);
}

size_t xfab_fibtrie_written(const struct xfab_fibtrie *t)
{
	return t->written;
}
