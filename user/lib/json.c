// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "json_int.h"

#include "pool.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		xfab_json_fail(p, "bad number");
		return -1;
	}
	if (peek_keep(p) == '.') {
		p->i++;
		if (!is_digit(p)) {
			xfab_json_fail(p, "bad number: digit expected after '.'");
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
			xfab_json_fail(p, "bad number: digit expected in exponent");
			return -1;
		}
		while (is_digit(p))
			p->i++;
	}
	v->type = JSON_NUMBER;
	v->str = xfab_json_intern(p, p->s + p->mark, p->i - p->mark);
	return v->str ? 0 : -1;
}

static int parse_literal(struct parser *p, const char *word)
{
	size_t len = strlen(word);

	need(p, len);
	if (strncmp(p->s + p->i, word, len) != 0) {
		xfab_json_fail(p, "unexpected character '%c'", p->s[p->i]);
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
			bigger = xfab_json_mem_alloc(nlen);
			if (bigger) {
				memcpy(bigger, p->stack, len);
				xfab_json_mem_free(p->stack, len);
			}
		}
		if (!bigger) {
			xfab_json_fail(p, "out of memory");
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
		struct json_value *fresh = xfab_json_mem_alloc(ncap * sizeof(*fresh));

		if (!fresh || xfab_json_own(p->doc, p->stack, p->stack_cap * sizeof(*p->stack))) {
			xfab_json_mem_free(fresh, ncap * sizeof(*fresh));
			xfab_json_fail(p, "out of memory");
			return -1;
		}
		memcpy(fresh, p->stack, from * sizeof(*fresh));
		v->children = p->stack + from;
		p->stack = fresh;
		p->stack_cap = ncap;
	} else {
		v->children =
		    xfab_json_arena_alloc(p->doc, n * sizeof(*v->children), sizeof(void *));
		if (!v->children) {
			xfab_json_fail(p, "out of memory");
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
		xfab_json_fail(p, "expected ',' or ']' in array");
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
		xfab_json_fail(p, "out of memory");
		return -1;
	}
	/* the hashes first, so the slot of a key a little ahead can be
	 * fetched while this one is looked up (a million keys miss the cache) */
	for (k = 0; k < n; k++)
		hashes[k] = (uint32_t)xfab_json_hash_bytes(m[k].key, strlen(m[k].key));
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
		xfab_json_fail_at(p, dup->key_pos, "duplicate key \"%s\" (first at line %d)",
				  dup->key, first->key_pos.line);
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
			xfab_json_fail(p, "expected a string key in object");
			return -1;
		}
		member.key_pos = here(p);
		member.key = xfab_json_parse_string(p);
		if (!member.key || (n == 1 && push(p, &first)))
			return -1;
		for (size_t k = from; k < p->top && n <= DUP_SCAN_MAX; k++) {
			const char *o = p->stack[k].key;

			if (o == member.key || !strcmp(o, member.key)) {
				xfab_json_fail_at(p, member.key_pos,
						  "duplicate key \"%s\" (first at line %d)",
						  member.key, p->stack[k].key_pos.line);
				return -1;
			}
		}
		skip_ws(p);
		if (p->s[p->i] != ':') {
			xfab_json_fail(p, "expected ':' after key \"%s\"", member.key);
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
				v->children =
				    xfab_json_arena_alloc(p->doc, sizeof(first), sizeof(void *));
				if (!v->children) {
					xfab_json_fail(p, "out of memory");
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
		xfab_json_fail(p, "expected ',' or '}' in object");
		return -1;
	}
}

static int parse_value(struct parser *p, struct json_value *v, int depth)
{
	if (depth > JSON_MAX_DEPTH) {
		xfab_json_fail(p, "nesting deeper than %d", JSON_MAX_DEPTH);
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
		v->str = xfab_json_parse_string(p);
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
		xfab_json_fail(p, "unexpected end of input");
		return -1;
	default:
		if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
			return parse_number(p, v);
		xfab_json_fail(p, "unexpected character '%c'", p->s[p->i]);
		return -1;
	}
}

static struct json_value *parse(struct parser *p)
{
	struct json_doc *doc = calloc(1, sizeof(*doc));

	if (!doc) {
		xfab_json_fail_at(p, (struct json_pos){0, 0}, "out of memory");
		return NULL;
	}
	doc->block_len = ARENA_FIRST;
	p->doc = doc;
	p->line = 1;
	skip_ws(p);
	if (parse_value(p, &doc->root, 0) == 0) {
		skip_ws(p);
		if (cur(p) != '\0')
			xfab_json_fail(p, "trailing characters after the top-level value");
	}
	xfab_json_mem_free(p->stack, p->stack_cap * sizeof(*p->stack));
	free(p->scratch);
	if (p->failed) {
		xfab_json_free(&doc->root);
		return NULL;
	}
	return &doc->root;
}

struct json_value *xfab_json_parse(const char *text, char *err, size_t errlen, struct json_pos *pos)
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

struct json_value *xfab_json_parse_stream(json_read_fn read, void *arg, char *err, size_t errlen,
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

const struct json_value *xfab_json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t k = 0; k < obj->count; k++)
		if (strcmp(obj->children[k].key, key) == 0)
			return &obj->children[k];
	return NULL;
}

const char *xfab_json_type_name(enum json_type t)
{
	static const char *const names[] = {"null",   "boolean", "number",
					    "string", "array",	 "object"};
	return names[t];
}

int xfab_json_errf(char *err, size_t errlen, struct json_pos pos, const char *where,
		   const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%d:%d: %s: %s", pos.line, pos.col, where, what);
	return -1;
}
