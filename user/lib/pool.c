// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define BLOCK_FIRST ((size_t)16 << 10)
#define BLOCK_MAX ((size_t)2 << 20) /* a huge page */

/* A block's header, at its start; the objects follow. */
struct xfab_pool_block {
	struct xfab_pool_block *next;
	size_t len;
	int mapped;
};

#define HEAD ((sizeof(struct xfab_pool_block) + 15) & ~(size_t)15)

void xfab_pool_init(struct xfab_pool *p, size_t size)
{
	memset(p, 0, sizeof(*p));
	if (size < sizeof(void *))
		size = sizeof(void *);
	p->size = (size + 15) & ~(size_t)15;
	p->block_len = BLOCK_FIRST;
	while (p->block_len < HEAD + p->size)
		p->block_len *= 2;
}

static int grow(struct xfab_pool *p)
{
	struct xfab_pool_block *b;
	size_t len = p->block_len;
	int mapped = len >= BLOCK_MAX;

	if (mapped) {
		/* fresh pages from the kernel, a 2 MB huge page each where
		 * transparent huge pages are on (madvise or always) */
		b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return -1;
		madvise(b, len, MADV_HUGEPAGE);
	} else {
		b = malloc(len);
		if (!b)
			return -1;
	}
	b->len = len;
	b->mapped = mapped;
	b->next = p->blocks;
	p->blocks = b;
	p->n_blocks++;
	p->next = (char *)b + HEAD;
	p->end = (char *)b + len;
	POISON(p->next, (size_t)(p->end - p->next));
	if (len < BLOCK_MAX)
		p->block_len = len * 2;
	return 0;
}

void *xfab_pool_zalloc(struct xfab_pool *p)
{
	void *o;

	if (p->free) {
		o = p->free;
		UNPOISON(o, p->size);
		p->free = *(void **)o;
	} else {
		if ((size_t)(p->end - p->next) < p->size && grow(p))
			return NULL;
		o = p->next;
		p->next += p->size;
		UNPOISON(o, p->size);
	}
	memset(o, 0, p->size);
	p->live++;
	return o;
}

void xfab_pool_free(struct xfab_pool *p, void *obj)
{
	if (!obj)
		return;
	*(void **)obj = p->free;
	p->free = obj;
	p->live--;
	POISON(obj, p->size);
}

void xfab_pool_destroy(struct xfab_pool *p)
{
	while (p->blocks) {
		struct xfab_pool_block *b = p->blocks;

		p->blocks = b->next;
		UNPOISON(b, b->len);
		if (b->mapped)
			munmap(b, b->len);
		else
			free(b);
	}
	xfab_pool_init(p, p->size);
}

#if defined(__SANITIZE_ADDRESS__)
#define BIG_MIN SIZE_MAX
#else
#define BIG_MIN BLOCK_MAX
#endif

void *xfab_big_zalloc(size_t len)
{
	void *p;

	if (len < BIG_MIN)
		return calloc(1, len ? len : 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void xfab_big_free(void *p, size_t len)
{
	if (!p)
		return;
	if (len < BIG_MIN)
		free(p);
	else
		munmap(p, len);
}
