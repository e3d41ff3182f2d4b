/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A small JSON reader that remembers where every value and key came from,
 * so config errors can name file:line:col. Rejects duplicate keys. */
#ifndef XFAB_JSON_H
#define XFAB_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_pos {
	int line;
	int col;
};

struct json_value {
	enum json_type type;
	struct json_pos pos;	 /* where the value starts */
	struct json_pos key_pos; /* where its key starts, for object members */
	char *key;		 /* member name, for object members */
	char *str;		 /* JSON_STRING text; JSON_NUMBER source text */
	double num;
	int boolean;
	struct json_value *children; /* array elements / object members */
	size_t count;
};

/* Parses text; on error returns NULL and fills err (message) and *pos. */
struct json_value *json_parse(const char *text, char *err, size_t errlen, struct json_pos *pos);
void json_free(struct json_value *v);
const struct json_value *json_get(const struct json_value *obj, const char *key);
const char *json_type_name(enum json_type t);

#endif
