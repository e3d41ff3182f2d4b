/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The JSON reader's parser state, shared by its parts (json.h tells what it
 * reads), from the bottom up: json_input.c (error places, the input's
 * refill), json_arena.c (the document's memory and its strings' copies),
 * json_string.c (strings), json.c (values, documents and the tree's
 * accessors). Each calls only those before it. Internal to those files.
 */
#ifndef XFAB_JSON_INT_H
#define XFAB_JSON_INT_H

#include "json.h"

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#define JSON_MAX_DEPTH 64
/* Arena blocks grow from a page to 1 MB: a control message stays small.
 * Past that (a routing table: ~100 MB), blocks of 8 MB on huge pages where
 * the kernel gives them (xfab_big_zalloc): a fault per 2 MB, not per 4 KB,
 * was a fifth of the time of reading a million routes. The children stack
 * moves to such memory too once it is that big. */
#define ARENA_FIRST 4096
#define ARENA_MAX (1u << 20)
#define BIG (8u << 20)
/* Equal strings met close together share one copy: a direct-mapped cache
 * (bounded; a miss only costs a copy). */
#define INTERN_SLOTS 1024
/* An array or object of this many children keeps the part of the stack it
 * was built in instead of being copied out (no second copy of a routing
 * table's entries at the moment it closes). */
#define STEAL_MIN 65536
/* Input read per chunk by xfab_json_parse_stream. */
#define CHUNK (1u << 20)
/* Objects of more members are checked for duplicate keys when they close,
 * through a hash table; smaller ones as each key is read. */
#define DUP_SCAN_MAX 64

struct arena_block {
	struct arena_block *next;
	size_t len; /* >= BIG: from xfab_big_zalloc */
};

/* Memory the document owns besides its blocks: stack parts it kept. */
struct owned {
	struct owned *next;
	void *mem;
	size_t len; /* >= BIG: from xfab_big_zalloc */
};

struct json_doc {
	struct json_value root; /* first: xfab_json_free gets the document from it */
	struct arena_block *blocks;
	struct owned *owned;
	char *next, *end;
	size_t block_len;
};

struct intern_slot {
	uint64_t hash;
	size_t len;
	char *s;
};

struct parser {
	/* The input: s[0..len) then a NUL. base is the offset of s[0] in the
	 * whole input (chunks move); text input is one chunk, already at its
	 * end (eof). */
	const char *s;
	size_t i, len, base;
	size_t mark; /* the start of the token being read: kept by a refill */
	int eof;
	char *buf; /* stream input: s == buf */
	size_t buf_cap;
	json_read_fn read;
	void *read_arg;
	int line;
	size_t line_start; /* offset of the current line's first byte */
	char *err;
	size_t errlen;
	struct json_pos *errpos;
	int failed;
	struct json_doc *doc;
	struct json_value *stack; /* children of the open arrays and objects */
	size_t top, stack_cap;
	char *scratch; /* a string with escapes, decoded */
	size_t scratch_cap;
	struct intern_slot slots[INTERN_SLOTS];
};

static inline struct json_pos here(const struct parser *p)
{
	struct json_pos pos = {p->line, (int)(p->base + p->i - p->line_start + 1)};

	return pos;
}

/* ---- error places (json_input.c): the first failure is kept, at pos or here ---- */

void xfab_json_fail_at(struct parser *p, struct json_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void xfab_json_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the arena (json_arena.c) ---- */

void *xfab_json_mem_alloc(size_t len);
void xfab_json_mem_free(void *mem, size_t len);
void *xfab_json_arena_alloc(struct json_doc *d, size_t size, size_t align);
int xfab_json_own(struct json_doc *d, void *mem, size_t len);
uint64_t xfab_json_hash_bytes(const char *s, size_t len);
char *xfab_json_intern(struct parser *p, const char *s, size_t len);

/* ---- strings (json_string.c) ---- */

char *xfab_json_parse_string(struct parser *p);

/* ---- input: json_input.c's refill and the inline steps every token takes ---- */

/* Reads the next chunk, keeping s[mark..len) (the token being read).
 * 1: more input; 0: the end (or a failure, recorded). */
int xfab_json_refill(struct parser *p);

/* At a NUL: whether more input came (the NUL was the chunk's end), keeping
 * the current token from mark. */
static inline int more_keep(struct parser *p)
{
	if (p->eof || p->i < p->len)
		return 0;
	return xfab_json_refill(p);
}

/* The same between tokens. */
static inline int more(struct parser *p)
{
	p->mark = p->i;
	return more_keep(p);
}

/* At least n bytes from i, unless the input ends first. */
static inline void need(struct parser *p, size_t n)
{
	p->mark = p->i;
	while (!p->eof && p->len - p->i < n)
		if (!xfab_json_refill(p))
			break;
}

static inline char cur(struct parser *p)
{
	if (p->s[p->i] == '\0')
		more(p);
	return p->s[p->i];
}

static inline void skip_ws(struct parser *p)
{
	for (;;) {
		char c = p->s[p->i];

		if (c == ' ' || c == '\t' || c == '\r') {
			p->i++;
		} else if (c == '\n') {
			p->i++;
			p->line++;
			p->line_start = p->base + p->i;
		} else if (c != '\0' || !more(p)) {
			return;
		}
	}
}

#endif
