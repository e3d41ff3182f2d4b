/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A small JSON reader that remembers where every value and key came from,
 * so config errors can name file:line:col. Rejects duplicate keys.
 *
 * A parsed document lives in one arena (no allocation per value), and equal
 * strings met close together share one copy: a routing table of a million
 * entries repeats the same field name and, often, the same nexthop list in
 * every entry. Strings are therefore read-only. The input is read either
 * from a string or in chunks from a reader, so a big file need not be held
 * in memory while its tree is built. */
#ifndef XFAB_JSON_H
#define XFAB_JSON_H

#include <stddef.h>
#include <sys/types.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_pos {
	int line;
	int col; /* bytes from the start of the line, from 1 */
};

struct json_value {
	char *key;		     /* member name, for object members (shared: read-only) */
	char *str;		     /* JSON_STRING text; JSON_NUMBER source text (read-only) */
	struct json_value *children; /* array elements / object members */
	struct json_pos pos;	     /* where the value starts */
	struct json_pos key_pos;     /* where its key starts, for object members */
	unsigned int count;	     /* of children */
	enum json_type type : 8;
	unsigned char boolean;
};

/* Parses text; on error returns NULL and fills err (message) and *pos. */
struct json_value *xfab_json_parse(const char *text, char *err, size_t errlen,
				   struct json_pos *pos);

/* Writes "LINE:COL: WHERE: <fmt...>" into err (a document's error at the
 * place it names) and returns -1. */
int xfab_json_errf(char *err, size_t errlen, struct json_pos pos, const char *where,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Fills buf with up to len bytes of input: the count, 0 at its end, or -1
 * when it cannot (the reader keeps why). */
typedef ssize_t (*json_read_fn)(void *arg, char *buf, size_t len);
/* Parses what read gives, chunk by chunk. A NUL byte in the input is an
 * error; a read error fails with "cannot read the input". */
struct json_value *xfab_json_parse_stream(json_read_fn read, void *arg, char *err, size_t errlen,
					  struct json_pos *pos);
/* Frees a document (a value xfab_json_parse or xfab_json_parse_stream returned). */
void xfab_json_free(struct json_value *v);
const struct json_value *xfab_json_get(const struct json_value *obj, const char *key);
const char *xfab_json_type_name(enum json_type t);

#endif
