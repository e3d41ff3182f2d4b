// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "json.h"

#include "pool.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* Input read per chunk by json_parse_stream. */
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
	struct json_value root; /* first: json_free gets the document from it */
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

static struct json_pos here(const struct parser *p)
{
	struct json_pos pos = {p->line, (int)(p->base + p->i - p->line_start + 1)};

	return pos;
}

static void vfail_at(struct parser *p, struct json_pos pos, const char *fmt, va_list ap)
{
	if (p->failed)
		return;
	p->failed = 1;
	*p->errpos = pos;
	vsnprintf(p->err, p->errlen, fmt, ap);
}

static void fail_at(struct parser *p, struct json_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_at(struct parser *p, struct json_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, pos, fmt, ap);
	va_end(ap);
}

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, here(p), fmt, ap);
	va_end(ap);
}

/* ---- the arena ---- */

/* Memory of len bytes: big on huge pages, small from malloc. */
static void *mem_alloc(size_t len)
{
	return len >= BIG ? xfab_big_zalloc(len) : malloc(len);
}

static void mem_free(void *mem, size_t len)
{
	if (len >= BIG)
		xfab_big_free(mem, len);
	else
		free(mem);
}

static void *arena_alloc(struct json_doc *d, size_t size, size_t align)
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
	b = mem_alloc(len);
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

static int own(struct json_doc *d, void *mem, size_t len)
{
	struct owned *o = arena_alloc(d, sizeof(*o), sizeof(void *));

	if (!o)
		return -1;
	o->mem = mem;
	o->len = len;
	o->next = d->owned;
	d->owned = o;
	return 0;
}

static uint64_t hash_bytes(const char *s, size_t len)
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
static char *intern(struct parser *p, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	struct intern_slot *sl = &p->slots[(h ^ h >> 29) & (INTERN_SLOTS - 1)];
	char *copy;

	if (sl->s && sl->hash == h && sl->len == len && !memcmp(sl->s, s, len))
		return sl->s;
	copy = arena_alloc(p->doc, len + 1, 1);
	if (!copy) {
		fail(p, "out of memory");
		return NULL;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	sl->hash = h;
	sl->len = len;
	sl->s = copy;
	return copy;
}

/* ---- input ---- */

/* Reads the next chunk, keeping s[mark..len) (the token being read).
 * 1: more input; 0: the end (or a failure, recorded). */
static int refill(struct parser *p)
{
	size_t keep = p->len - p->mark;
	ssize_t n;

	if (p->eof)
		return 0;
	memmove(p->buf, p->buf + p->mark, keep);
	p->base += p->mark;
	p->i -= p->mark;
	p->len = keep;
	p->mark = 0;
	if (keep >= p->buf_cap / 2) { /* a token of half the buffer */
		char *bigger = realloc(p->buf, p->buf_cap * 2 + 1);

		if (!bigger) {
			fail(p, "out of memory");
			p->eof = 1;
			return 0;
		}
		p->buf = bigger;
		p->buf_cap *= 2;
	}
	n = p->read(p->read_arg, p->buf + keep, p->buf_cap - keep);
	p->s = p->buf;
	if (n <= 0) {
		p->buf[p->len] = '\0';
		p->eof = 1;
		if (n < 0)
			fail(p, "cannot read the input");
		return 0;
	}
	if (memchr(p->buf + keep, '\0', (size_t)n)) {
		p->buf[p->len] = '\0';
		p->eof = 1;
		fail(p, "the input holds a NUL byte");
		return 0;
	}
	p->len += (size_t)n;
	p->buf[p->len] = '\0';
	return 1;
}

/* At a NUL: whether more input came (the NUL was the chunk's end), keeping
 * the current token from mark. */
static int more_keep(struct parser *p)
{
	if (p->eof || p->i < p->len)
		return 0;
	return refill(p);
}

/* The same between tokens. */
static int more(struct parser *p)
{
	p->mark = p->i;
	return more_keep(p);
}

/* At least n bytes from i, unless the input ends first. */
static void need(struct parser *p, size_t n)
{
	p->mark = p->i;
	while (!p->eof && p->len - p->i < n)
		if (!refill(p))
			break;
}

static char cur(struct parser *p)
{
	if (p->s[p->i] == '\0')
		more(p);
	return p->s[p->i];
}

static void skip_ws(struct parser *p)
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

/* ---- strings ---- */

static void put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | (cp >> 6));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | (cp >> 12));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | (cp >> 18));
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int parse_hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		char c = cur(p);

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
		p->i++;
	}
	*out = v;
	return 0;
}

/* Room in scratch for n bytes and one more character (4 bytes of UTF-8). */
static int scratch_room(struct parser *p, size_t n)
{
	size_t cap = p->scratch_cap ? p->scratch_cap : 256;
	char *bigger;

	if (n + 8 < p->scratch_cap)
		return 0;
	while (n + 8 >= cap)
		cap *= 2;
	bigger = realloc(p->scratch, cap);
	if (!bigger) {
		fail(p, "out of memory");
		return -1;
	}
	p->scratch = bigger;
	p->scratch_cap = cap;
	return 0;
}

/* The rest of a string with escapes, from i, decoded after scratch[0..n). */
static char *parse_string_escaped(struct parser *p, size_t n)
{
	for (;;) {
		unsigned char c = (unsigned char)cur(p);

		if (scratch_room(p, n))
			return NULL;
		if (c == '\0') {
			fail(p, "unterminated string");
			return NULL;
		}
		if (c < 0x20) {
			fail(p, "control character in string");
			return NULL;
		}
		if (c == '"') {
			p->i++;
			break;
		}
		if (c != '\\') {
			p->scratch[n++] = (char)c;
			p->i++;
			continue;
		}
		p->i++;
		c = (unsigned char)cur(p);
		switch (c) {
		case '"':
		case '\\':
		case '/':
			p->scratch[n++] = (char)c;
			break;
		case 'b':
			p->scratch[n++] = '\b';
			break;
		case 'f':
			p->scratch[n++] = '\f';
			break;
		case 'n':
			p->scratch[n++] = '\n';
			break;
		case 'r':
			p->scratch[n++] = '\r';
			break;
		case 't':
			p->scratch[n++] = '\t';
			break;
		case 'u': {
			unsigned cp, lo;

			p->i++;
			if (parse_hex4(p, &cp)) {
				fail(p, "bad \\u escape");
				return NULL;
			}
			if (cp >= 0xd800 && cp < 0xdc00) {
				need(p, 2);
				if (p->s[p->i] != '\\' || p->s[p->i + 1] != 'u') {
					fail(p, "unpaired surrogate in \\u escape");
					return NULL;
				}
				p->i += 2;
				if (parse_hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					fail(p, "bad low surrogate in \\u escape");
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				fail(p, "unpaired surrogate in \\u escape");
				return NULL;
			}
			if (cp == 0) {
				fail(p, "NUL character in string");
				return NULL;
			}
			put_utf8(p->scratch, &n, cp);
			continue;
		}
		default:
			fail(p, "bad escape '\\%c'", c ? c : '0');
			return NULL;
		}
		p->i++;
	}
	return intern(p, p->scratch, n);
}

/* At the opening quote; returns the document's copy. Most strings have no
 * escape: they are taken from the input as they stand. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Whether eight bytes hold a quote, a backslash or a control character
 * (a byte below 0x20: the input's end, its NUL, is one). */
static int special8(const char *s)
{
	uint64_t w, q, b;

	memcpy(&w, s, sizeof(w));
	q = w ^ (ONES * '"');
	b = w ^ (ONES * '\\');
	return !!((((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20) & ~w)) & HIGHS);
}

static char *parse_string(struct parser *p)
{
	size_t n;

	p->i++; /* opening quote */
	p->mark = p->i;
	for (;;) {
		unsigned char c;

		/* a nexthop list is 150 bytes: eight at a time to its end */
		while (p->i + 8 <= p->len && !special8(p->s + p->i))
			p->i += 8;
		c = (unsigned char)p->s[p->i];
		if (c == '"')
			break;
		if (c == '\\' || c < 0x20) {
			if (c == '\0' && more_keep(p))
				continue;
			/* escapes (or an error): decode from here on */
			n = p->i - p->mark;
			if (scratch_room(p, n))
				return NULL;
			memcpy(p->scratch, p->s + p->mark, n);
			return parse_string_escaped(p, n);
		}
		p->i++;
	}
	p->i++; /* closing quote */
	return intern(p, p->s + p->mark, p->i - 1 - p->mark);
}

/* ---- values ---- */

static int is_digit(struct parser *p)
{
	char c = p->s[p->i];

	if (c == '\0' && more_keep(p))
		c = p->s[p->i];
	return c >= '0' && c <= '9';
}

static char peek_keep(struct parser *p)
{
	if (p->s[p->i] == '\0')
		more_keep(p);
	return p->s[p->i];
}

static int parse_number(struct parser *p, struct json_value *v)
{
	char c;

	p->mark = p->i;
	if (p->s[p->i] == '-')
		p->i++;
	c = peek_keep(p);
	if (c == '0') {
		p->i++;
	} else if (c >= '1' && c <= '9') {
		while (is_digit(p))
			p->i++;
	} else {
		fail(p, "bad number");
		return -1;
	}
	if (peek_keep(p) == '.') {
		p->i++;
		if (!is_digit(p)) {
			fail(p, "bad number: digit expected after '.'");
			return -1;
		}
		while (is_digit(p))
			p->i++;
	}
	c = peek_keep(p);
	if (c == 'e' || c == 'E') {
		p->i++;
		c = peek_keep(p);
		if (c == '+' || c == '-')
			p->i++;
		if (!is_digit(p)) {
			fail(p, "bad number: digit expected in exponent");
			return -1;
		}
		while (is_digit(p))
			p->i++;
	}
	v->type = JSON_NUMBER;
	v->str = intern(p, p->s + p->mark, p->i - p->mark);
	return v->str ? 0 : -1;
}

static int parse_literal(struct parser *p, const char *word)
{
	size_t len = strlen(word);

	need(p, len);
	if (strncmp(p->s + p->i, word, len) != 0) {
		fail(p, "unexpected character '%c'", p->s[p->i]);
		return -1;
	}
	p->i += len;
	return 0;
}

static int push(struct parser *p, const struct json_value *v)
{
	if (p->top == p->stack_cap) {
		size_t ncap = p->stack_cap ? p->stack_cap * 2 : 64;
		size_t len = p->stack_cap * sizeof(*p->stack), nlen = ncap * sizeof(*p->stack);
		struct json_value *bigger;

		if (nlen < BIG) {
			bigger = realloc(p->stack, nlen);
		} else {
			bigger = mem_alloc(nlen);
			if (bigger) {
				memcpy(bigger, p->stack, len);
				mem_free(p->stack, len);
			}
		}
		if (!bigger) {
			fail(p, "out of memory");
			return -1;
		}
		p->stack = bigger;
		p->stack_cap = ncap;
	}
	p->stack[p->top++] = *v;
	return 0;
}

/* The children stack[from..top) become v's: copied into the document, or
 * (many of them) left where they are, the stack going on in new memory. */
static int pop_children(struct parser *p, struct json_value *v, size_t from)
{
	size_t n = p->top - from;

	v->count = (unsigned int)n;
	if (!n)
		return 0;
	if (n >= STEAL_MIN) {
		size_t ncap = from * 2 > 64 ? from * 2 : 64;
		struct json_value *fresh = mem_alloc(ncap * sizeof(*fresh));

		if (!fresh || own(p->doc, p->stack, p->stack_cap * sizeof(*p->stack))) {
			mem_free(fresh, ncap * sizeof(*fresh));
			fail(p, "out of memory");
			return -1;
		}
		memcpy(fresh, p->stack, from * sizeof(*fresh));
		v->children = p->stack + from;
		p->stack = fresh;
		p->stack_cap = ncap;
	} else {
		v->children = arena_alloc(p->doc, n * sizeof(*v->children), sizeof(void *));
		if (!v->children) {
			fail(p, "out of memory");
			return -1;
		}
		memcpy(v->children, p->stack + from, n * sizeof(*v->children));
	}
	p->top = from;
	return 0;
}

static int parse_value(struct parser *p, struct json_value *v, int depth);

static int parse_array(struct parser *p, struct json_value *v, int depth)
{
	size_t from = p->top;

	v->type = JSON_ARRAY;
	p->i++;
	skip_ws(p);
	if (p->s[p->i] == ']') {
		p->i++;
		return 0;
	}
	for (;;) {
		struct json_value e = {0};

		skip_ws(p);
		if (parse_value(p, &e, depth + 1) || push(p, &e))
			return -1;
		skip_ws(p);
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] == ']') {
			p->i++;
			return pop_children(p, v, from);
		}
		fail(p, "expected ',' or ']' in array");
		return -1;
	}
}

/* Large objects (a full routing table): duplicates found through a hash
 * table at the end, so a million keys cost n, not n^2. Reported as a sort
 * by key would find them: the smallest duplicated key, at its second
 * occurrence. */
static int check_duplicates(struct parser *p, const struct json_value *m, size_t n)
{
	size_t cap = 64, k;
	const struct json_value *dup = NULL, *first = NULL;
	uint64_t *tab; /* hash (high half), member index + 1 (low half; 0: empty) */
	uint32_t *hashes;

	while (cap < 2 * n)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	hashes = malloc(n * sizeof(*hashes));
	if (!tab || !hashes) {
		free(tab);
		free(hashes);
		fail(p, "out of memory");
		return -1;
	}
	/* the hashes first, so the slot of a key a little ahead can be
	 * fetched while this one is looked up (a million keys miss the cache) */
	for (k = 0; k < n; k++)
		hashes[k] = (uint32_t)hash_bytes(m[k].key, strlen(m[k].key));
	for (k = 0; k < n; k++) {
		uint32_t h = hashes[k];
		size_t j = h & (cap - 1);

		if (k + 16 < n)
			__builtin_prefetch(&tab[hashes[k + 16] & (cap - 1)]);
		for (; tab[j]; j = (j + 1) & (cap - 1)) {
			const struct json_value *o = &m[(uint32_t)tab[j] - 1];

			if ((uint32_t)(tab[j] >> 32) == h &&
			    (o->key == m[k].key || !strcmp(o->key, m[k].key)))
				break;
		}
		if (!tab[j]) {
			tab[j] = (uint64_t)h << 32 | (uint32_t)(k + 1);
		} else if (!dup || strcmp(m[k].key, dup->key) < 0) {
			dup = &m[k];
			first = &m[(uint32_t)tab[j] - 1];
		}
	}
	free(tab);
	free(hashes);
	if (dup) {
		fail_at(p, dup->key_pos, "duplicate key \"%s\" (first at line %d)", dup->key,
			first->key_pos.line);
		return -1;
	}
	return 0;
}

/* One member (a routing table's entry: {"nexthop": ...}) is kept aside and
 * goes straight into the document; a second one sends both to the stack. */
static int parse_object(struct parser *p, struct json_value *v, int depth)
{
	size_t from = p->top, n = 0;
	struct json_value first;

	v->type = JSON_OBJECT;
	p->i++;
	skip_ws(p);
	if (p->s[p->i] == '}') {
		p->i++;
		return 0;
	}
	for (;;) {
		struct json_value member = {0};

		skip_ws(p);
		if (p->s[p->i] != '"') {
			fail(p, "expected a string key in object");
			return -1;
		}
		member.key_pos = here(p);
		member.key = parse_string(p);
		if (!member.key || (n == 1 && push(p, &first)))
			return -1;
		for (size_t k = from; k < p->top && n <= DUP_SCAN_MAX; k++) {
			const char *o = p->stack[k].key;

			if (o == member.key || !strcmp(o, member.key)) {
				fail_at(p, member.key_pos,
					"duplicate key \"%s\" (first at line %d)", member.key,
					p->stack[k].key_pos.line);
				return -1;
			}
		}
		skip_ws(p);
		if (p->s[p->i] != ':') {
			fail(p, "expected ':' after key \"%s\"", member.key);
			return -1;
		}
		p->i++;
		skip_ws(p);
		if (parse_value(p, &member, depth + 1))
			return -1;
		if (n++ == 0)
			first = member;
		else if (push(p, &member))
			return -1;
		skip_ws(p);
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] == '}') {
			p->i++;
			if (n == 1) {
				v->children = arena_alloc(p->doc, sizeof(first), sizeof(void *));
				if (!v->children) {
					fail(p, "out of memory");
					return -1;
				}
				*v->children = first;
				v->count = 1;
				return 0;
			}
			if (n > DUP_SCAN_MAX && check_duplicates(p, p->stack + from, n))
				return -1;
			return pop_children(p, v, from);
		}
		fail(p, "expected ',' or '}' in object");
		return -1;
	}
}

static int parse_value(struct parser *p, struct json_value *v, int depth)
{
	if (depth > JSON_MAX_DEPTH) {
		fail(p, "nesting deeper than %d", JSON_MAX_DEPTH);
		return -1;
	}
	v->pos = here(p);
	switch (cur(p)) {
	case '{':
		return parse_object(p, v, depth);
	case '[':
		return parse_array(p, v, depth);
	case '"':
		v->type = JSON_STRING;
		v->str = parse_string(p);
		return v->str ? 0 : -1;
	case 't':
		v->type = JSON_BOOL;
		v->boolean = 1;
		return parse_literal(p, "true");
	case 'f':
		v->type = JSON_BOOL;
		return parse_literal(p, "false");
	case 'n':
		v->type = JSON_NULL;
		return parse_literal(p, "null");
	case '\0':
		fail(p, "unexpected end of input");
		return -1;
	default:
		if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
			return parse_number(p, v);
		fail(p, "unexpected character '%c'", p->s[p->i]);
		return -1;
	}
}

void json_free(struct json_value *v)
{
	struct json_doc *d = (struct json_doc *)v;

	if (!d)
		return;
	while (d->owned) {
		struct owned *o = d->owned;

		d->owned = o->next;
		mem_free(o->mem, o->len);
	}
	while (d->blocks) {
		struct arena_block *b = d->blocks;

		d->blocks = b->next;
		mem_free(b, b->len);
	}
	free(d);
}

static struct json_value *parse(struct parser *p)
{
	struct json_doc *doc = calloc(1, sizeof(*doc));

	if (!doc) {
		fail_at(p, (struct json_pos){0, 0}, "out of memory");
		return NULL;
	}
	doc->block_len = ARENA_FIRST;
	p->doc = doc;
	p->line = 1;
	skip_ws(p);
	if (parse_value(p, &doc->root, 0) == 0) {
		skip_ws(p);
		if (cur(p) != '\0')
			fail(p, "trailing characters after the top-level value");
	}
	mem_free(p->stack, p->stack_cap * sizeof(*p->stack));
	free(p->scratch);
	if (p->failed) {
		json_free(&doc->root);
		return NULL;
	}
	return &doc->root;
}

struct json_value *json_parse(const char *text, char *err, size_t errlen, struct json_pos *pos)
{
	struct parser *p = calloc(1, sizeof(*p));
	struct json_value *root;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		pos->line = pos->col = 0;
		return NULL;
	}
	*p = (struct parser){
	    .s = text, .len = strlen(text), .eof = 1, .err = err, .errlen = errlen, .errpos = pos};
	root = parse(p);
	free(p);
	return root;
}

struct json_value *json_parse_stream(json_read_fn read, void *arg, char *err, size_t errlen,
				     struct json_pos *pos)
{
	struct parser *p = calloc(1, sizeof(*p));
	struct json_value *root = NULL;

	if (!p || !(p->buf = malloc(CHUNK + 1))) {
		free(p);
		snprintf(err, errlen, "out of memory");
		pos->line = pos->col = 0;
		return NULL;
	}
	p->buf[0] = '\0';
	p->s = p->buf;
	p->buf_cap = CHUNK;
	p->read = read;
	p->read_arg = arg;
	p->err = err;
	p->errlen = errlen;
	p->errpos = pos;
	root = parse(p);
	free(p->buf);
	free(p);
	return root;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t k = 0; k < obj->count; k++)
		if (strcmp(obj->children[k].key, key) == 0)
			return &obj->children[k];
	return NULL;
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = {"null",   "boolean", "number",
					    "string", "array",	 "object"};
	return names[t];
}

int json_errf(char *err, size_t errlen, struct json_pos pos, const char *where, const char *fmt,
	      ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%d:%d: %s: %s", pos.line, pos.col, where, what);
	return -1;
}
