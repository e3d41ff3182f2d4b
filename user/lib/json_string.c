// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Strings: taken from the input as they stand, or decoded (escapes,
 * UTF-16 surrogates to UTF-8) into the scratch buffer; interned. */
#include "json_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
		xfab_json_fail(p, "out of memory");
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
			xfab_json_fail(p, "unterminated string");
			return NULL;
		}
		if (c < 0x20) {
			xfab_json_fail(p, "control character in string");
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
				xfab_json_fail(p, "bad \\u escape");
				return NULL;
			}
			if (cp >= 0xd800 && cp < 0xdc00) {
				need(p, 2);
				if (p->s[p->i] != '\\' || p->s[p->i + 1] != 'u') {
					xfab_json_fail(p, "unpaired surrogate in \\u escape");
					return NULL;
				}
				p->i += 2;
				if (parse_hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					xfab_json_fail(p, "bad low surrogate in \\u escape");
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				xfab_json_fail(p, "unpaired surrogate in \\u escape");
				return NULL;
			}
			if (cp == 0) {
				xfab_json_fail(p, "NUL character in string");
				return NULL;
			}
			put_utf8(p->scratch, &n, cp);
			continue;
		}
		default:
			xfab_json_fail(p, "bad escape '\\%c'", c ? c : '0');
			return NULL;
		}
		p->i++;
	}
	return xfab_json_intern(p, p->scratch, n);
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

char *xfab_json_parse_string(struct parser *p)
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
	return xfab_json_intern(p, p->s + p->mark, p->i - 1 - p->mark);
}
