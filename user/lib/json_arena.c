// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The document's memory: an arena of growing blocks (huge pages for a
 * routing table), the stack parts it keeps, and strings interned. */
#include "json_int.h"

#include "pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arena ---- */

/* Memory of len bytes: big on huge pages, small from malloc. */
void *xfab_json_mem_alloc(size_t len)
{
	return len >= BIG ? xfab_big_zalloc(len) : malloc(len);
}

void xfab_json_mem_free(void *mem, size_t len)
{
	if (len >= BIG)
		xfab_big_free(mem, len);
	else
		free(mem);
}

void *xfab_json_arena_alloc(struct json_doc *d, size_t size, size_t align)
{
	uintptr_t at = ((uintptr_t)d->next + (align - 1)) & ~(uintptr_t)(align - 1);
	size_t head = (sizeof(struct arena_block) + 15) & ~(size_t)15, len;
	struct arena_block *b;

	if (d->next && at + size <= (uintptr_t)d->end) {
		d->next = (char *)(at + size);
		return (void *)at;
	}
	while (d->block_len < ARENA_MAX && d->block_len < size + head + 16)
		d->block_len *= 2;
	len = d->block_len;
	if (len < size + head + 16)
		len = size + head + 16; /* one big string */
	b = xfab_json_mem_alloc(len);
	if (!b)
		return NULL;
	b->next = d->blocks;
	b->len = len;
	d->blocks = b;
	d->next = (char *)b + head;
	d->end = (char *)b + len;
	if (d->block_len < ARENA_MAX)
		d->block_len *= 2;
	else
		d->block_len = BIG; /* a big document: huge pages from now on */
	at = ((uintptr_t)d->next + (align - 1)) & ~(uintptr_t)(align - 1);
	d->next = (char *)(at + size);
	return (void *)at;
}

int xfab_json_own(struct json_doc *d, void *mem, size_t len)
{
	struct owned *o = xfab_json_arena_alloc(d, sizeof(*o), sizeof(void *));

	if (!o)
		return -1;
	o->mem = mem;
	o->len = len;
	o->next = d->owned;
	d->owned = o;
	return 0;
}

uint64_t xfab_json_hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = 0;

		memcpy(&w, s + i, len - i < 8 ? len - i : 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* The document's copy of s[0..len), shared with an equal string met
 * recently. */
char *xfab_json_intern(struct parser *p, const char *s, size_t len)
{
	uint64_t h = xfab_json_hash_bytes(s, len);
	struct intern_slot *sl = &p->slots[(h ^ h >> 29) & (INTERN_SLOTS - 1)];
	char *copy;

	if (sl->s && sl->hash == h && sl->len == len && !memcmp(sl->s, s, len))
		return sl->s;
	copy = xfab_json_arena_alloc(p->doc, len + 1, 1);
	if (!copy) {
		xfab_json_fail(p, "out of memory");
		return NULL;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	sl->hash = h;
	sl->len = len;
	sl->s = copy;
	return copy;
}

void xfab_json_free(struct json_value *v)
{
	struct json_doc *d = (struct json_doc *)v;

	if (!d)
		return;
	while (d->owned) {
		struct owned *o = d->owned;

		d->owned = o->next;
		xfab_json_mem_free(o->mem, o->len);
	}
	while (d->blocks) {
		struct arena_block *b = d->blocks;

		d->blocks = b->next;
		xfab_json_mem_free(b, b->len);
	}
	free(d);
}
