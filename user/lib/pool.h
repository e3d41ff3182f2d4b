/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Objects of one size carved from big blocks: the RIB and the kernel-FIB
 * mirror hold an object or three per route, and a million routes made one
 * malloc each (and a page fault every few dozen). A freed object is reused
 * first; blocks grow from a few KB to 2 MB (a huge page where the kernel
 * gives one) and are returned only by xfab_pool_destroy. Under ASan a freed
 * object is poisoned, so a use after free is still caught. */
#ifndef XFAB_POOL_H
#define XFAB_POOL_H

#include <stddef.h>

struct xfab_pool {
	size_t size;	  /* of an object, rounded up to 16 */
	size_t block_len; /* of the next block */
	void *free;	  /* freed objects, linked through their first word */
	char *next, *end; /* the current block's part not handed out yet */
	struct xfab_pool_block *blocks;
	size_t n_blocks;
	size_t live; /* objects handed out and not freed */
};

void xfab_pool_init(struct xfab_pool *p, size_t size);
/* A zeroed object, or NULL (out of memory). */
void *xfab_pool_zalloc(struct xfab_pool *p);
/* Gives obj (from this pool; NULL: nothing) back for reuse. */
void xfab_pool_free(struct xfab_pool *p, void *obj);
/* Frees every block (the objects still out with them). */
void xfab_pool_destroy(struct xfab_pool *p);

/* A zeroed array of len bytes for random access (hash tables): from 2 MB
 * up on huge pages where the kernel gives them (a lookup in a table of a
 * million routes then misses the cache, not also the TLB); smaller ones,
 * and all under ASan (which then sees overruns), from calloc. NULL: out of
 * memory. Freed with the same len. */
void *xfab_big_zalloc(size_t len);
void xfab_big_free(void *p, size_t len);

#endif
