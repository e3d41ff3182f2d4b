// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct parser {
	const char *s;
	size_t i;
	int line;
	int col;
	char *err;
	size_t errlen;
	struct json_pos *errpos;
	int failed;
};

static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	p->errpos->line = p->line;
	p->errpos->col = p->col;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

static void advance(struct parser *p)
{
	if (p->s[p->i] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->i++;
}

static void skip_ws(struct parser *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')
		advance(p);
}

static struct json_pos here(const struct parser *p)
{
	struct json_pos pos = {p->line, p->col};
	return pos;
}

static int parse_value(struct parser *p, struct json_value *v, int depth);

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
		char c = p->s[p->i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
		advance(p);
	}
	*out = v;
	return 0;
}

/* At the opening quote; returns a malloc'd UTF-8 string. */
static char *parse_string(struct parser *p)
{
	size_t cap = 64, n = 0;
	char *out = malloc(cap);

	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	advance(p); /* opening quote */
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (n + 8 >= cap) {
			char *bigger = realloc(out, cap * 2);

			if (!bigger) {
				free(out);
				fail(p, "out of memory");
				return NULL;
			}
			out = bigger;
			cap *= 2;
		}
		if (c == '\0') {
			fail(p, "unterminated string");
			goto err;
		}
		if (c < 0x20) {
			fail(p, "control character in string");
			goto err;
		}
		if (c == '"') {
			advance(p);
			break;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			advance(p);
			continue;
		}
		advance(p);
		c = (unsigned char)p->s[p->i];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			out[n++] = (char)c;
			break;
		case 'b':
			out[n++] = '\b';
			break;
		case 'f':
			out[n++] = '\f';
			break;
		case 'n':
			out[n++] = '\n';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case 'u': {
			unsigned cp, lo;

			advance(p);
			if (parse_hex4(p, &cp)) {
				fail(p, "bad \\u escape");
				goto err;
			}
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p->s[p->i] != '\\' || p->s[p->i + 1] != 'u') {
					fail(p, "unpaired surrogate in \\u escape");
					goto err;
				}
				advance(p);
				advance(p);
				if (parse_hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					fail(p, "bad low surrogate in \\u escape");
					goto err;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				fail(p, "unpaired surrogate in \\u escape");
				goto err;
			}
			if (cp == 0) {
				fail(p, "NUL character in string");
				goto err;
			}
			put_utf8(out, &n, cp);
			continue;
		}
		default:
			fail(p, "bad escape '\\%c'", c ? c : '0');
			goto err;
		}
		advance(p);
	}
	out[n] = '\0';
	if (cap > 2 * (n + 1)) { /* a big table holds a million of these: give back the slack */
		char *fit = realloc(out, n + 1);

		if (fit)
			out = fit;
	}
	return out;
err:
	free(out);
	return NULL;
}

static int parse_number(struct parser *p, struct json_value *v)
{
	size_t start = p->i;
	char *end;

	if (p->s[p->i] == '-')
		advance(p);
	if (p->s[p->i] == '0') {
		advance(p);
	} else if (p->s[p->i] >= '1' && p->s[p->i] <= '9') {
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			advance(p);
	} else {
		fail(p, "bad number");
		return -1;
	}
	if (p->s[p->i] == '.') {
		advance(p);
		if (p->s[p->i] < '0' || p->s[p->i] > '9') {
			fail(p, "bad number: digit expected after '.'");
			return -1;
		}
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			advance(p);
	}
	if (p->s[p->i] == 'e' || p->s[p->i] == 'E') {
		advance(p);
		if (p->s[p->i] == '+' || p->s[p->i] == '-')
			advance(p);
		if (p->s[p->i] < '0' || p->s[p->i] > '9') {
			fail(p, "bad number: digit expected in exponent");
			return -1;
		}
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			advance(p);
	}
	v->type = JSON_NUMBER;
	v->str = strndup(p->s + start, p->i - start);
	if (!v->str) {
		fail(p, "out of memory");
		return -1;
	}
	v->num = strtod(v->str, &end);
	return 0;
}

static int parse_literal(struct parser *p, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(p->s + p->i, word, len) != 0) {
		fail(p, "unexpected character '%c'", p->s[p->i]);
		return -1;
	}
	for (size_t k = 0; k < len; k++)
		advance(p);
	return 0;
}

static int push_child(struct parser *p, struct json_value *v, size_t *cap)
{
	if (v->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1; /* most config objects hold one or two */
		struct json_value *bigger = realloc(v->children, ncap * sizeof(*bigger));

		if (!bigger) {
			fail(p, "out of memory");
			return -1;
		}
		v->children = bigger;
		*cap = ncap;
	}
	memset(&v->children[v->count], 0, sizeof(v->children[0]));
	v->count++;
	return 0;
}

static const struct json_value *sort_base;

static int cmp_member(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_base[x].key, sort_base[y].key);

	return c ? c : (x < y ? -1 : x > y);
}

/* Large objects (a full routing table): duplicates found by sorting, so
 * a million keys cost n log n, not n^2. The later occurrence is reported. */
static int check_duplicates(struct parser *p, const struct json_value *v)
{
	size_t *idx = malloc(v->count * sizeof(*idx));

	if (!idx) {
		fail(p, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < v->count; k++)
		idx[k] = k;
	sort_base = v->children;
	qsort(idx, v->count, sizeof(*idx), cmp_member);
	for (size_t k = 1; k < v->count; k++) {
		const struct json_value *a = &v->children[idx[k - 1]], *b = &v->children[idx[k]];

		if (strcmp(a->key, b->key) == 0) {
			p->line = b->key_pos.line;
			p->col = b->key_pos.col;
			fail(p, "duplicate key \"%s\" (first at line %d)", b->key, a->key_pos.line);
			free(idx);
			return -1;
		}
	}
	free(idx);
	return 0;
}

static int parse_array(struct parser *p, struct json_value *v, int depth)
{
	size_t cap = 0;

	v->type = JSON_ARRAY;
	advance(p);
	skip_ws(p);
	if (p->s[p->i] == ']') {
		advance(p);
		return 0;
	}
	for (;;) {
		if (push_child(p, v, &cap))
			return -1;
		skip_ws(p);
		if (parse_value(p, &v->children[v->count - 1], depth + 1))
			return -1;
		skip_ws(p);
		if (p->s[p->i] == ',') {
			advance(p);
			continue;
		}
		if (p->s[p->i] == ']') {
			advance(p);
			return 0;
		}
		fail(p, "expected ',' or ']' in array");
		return -1;
	}
}

static int parse_object(struct parser *p, struct json_value *v, int depth)
{
	size_t cap = 0;

	v->type = JSON_OBJECT;
	advance(p);
	skip_ws(p);
	if (p->s[p->i] == '}') {
		advance(p);
		return 0;
	}
	for (;;) {
		struct json_value *member;
		struct json_pos key_pos;
		char *key;

		skip_ws(p);
		if (p->s[p->i] != '"') {
			fail(p, "expected a string key in object");
			return -1;
		}
		key_pos = here(p);
		key = parse_string(p);
		if (!key)
			return -1;
		for (size_t k = 0; k < v->count && v->count <= 64; k++) {
			if (strcmp(v->children[k].key, key) == 0) {
				p->line = key_pos.line;
				p->col = key_pos.col;
				fail(p, "duplicate key \"%s\" (first at line %d)", key,
				     v->children[k].key_pos.line);
				free(key);
				return -1;
			}
		}
		if (push_child(p, v, &cap)) {
			free(key);
			return -1;
		}
		member = &v->children[v->count - 1];
		member->key = key;
		member->key_pos = key_pos;
		skip_ws(p);
		if (p->s[p->i] != ':') {
			fail(p, "expected ':' after key \"%s\"", key);
			return -1;
		}
		advance(p);
		skip_ws(p);
		if (parse_value(p, member, depth + 1))
			return -1;
		skip_ws(p);
		if (p->s[p->i] == ',') {
			advance(p);
			continue;
		}
		if (p->s[p->i] == '}') {
			advance(p);
			return v->count > 64 ? check_duplicates(p, v) : 0;
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
	switch (p->s[p->i]) {
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

static void free_inner(struct json_value *v)
{
	for (size_t k = 0; k < v->count; k++)
		free_inner(&v->children[k]);
	free(v->children);
	free(v->key);
	free(v->str);
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	free_inner(v);
	free(v);
}

struct json_value *json_parse(const char *text, char *err, size_t errlen, struct json_pos *pos)
{
	struct parser p = {
	    .s = text, .line = 1, .col = 1, .err = err, .errlen = errlen, .errpos = pos};
	struct json_value *root = calloc(1, sizeof(*root));

	if (!root) {
		snprintf(err, errlen, "out of memory");
		pos->line = pos->col = 0;
		return NULL;
	}
	skip_ws(&p);
	if (parse_value(&p, root, 0) == 0) {
		skip_ws(&p);
		if (p.s[p.i] != '\0')
			fail(&p, "trailing characters after the top-level value");
	}
	if (p.failed) {
		json_free(root);
		return NULL;
	}
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
