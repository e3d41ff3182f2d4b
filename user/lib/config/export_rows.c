// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rows an export collects (export_int.h), sorted and written as SONiC
 * writes a config_db.json: every value a string, indent 4 as sonic-cfggen's
 * --print-data (json.dumps(indent=4)) writes it, tables in byte order,
 * each table's keys in natural order (Ethernet4 before Ethernet12), as
 * sonic-cfggen's sort_data (natsorted) orders them (sonic-buildimage
 * src/sonic-config-engine/sonic-cfggen), but for the rows a writer asked
 * to keep the config's order (cfg_exp_keep_order).
 */
#include "export_int.h"
#include "jsonw.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cfg_exp_addr(int family, const __u8 *a, char *buf, size_t len)
{
	if (!inet_ntop(family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *cfg_exp_prefix(const struct xfab_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%d", cfg_exp_addr(p->family, p->addr, a, sizeof(a)), p->plen);
	return buf;
}

const char *cfg_exp_mac(const __u8 m[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static char *cfg_exp_dup(struct cfg_exp *x, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		x->failed = 1;
	return d;
}

static void cfg_exp_push(struct cfg_exp *x, const char *table, const char *key, const char *field,
			 const char *value)
{
	struct cfg_exp_row *r;

	if (x->failed)
		return;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		struct cfg_exp_row *rows = realloc(x->rows, cap * sizeof(*rows));

		if (!rows) {
			x->failed = 1;
			return;
		}
		x->rows = rows;
		x->cap = cap;
	}
	r = &x->rows[x->n++];
	r->table = cfg_exp_dup(x, table);
	r->key = cfg_exp_dup(x, key);
	r->field = cfg_exp_dup(x, field);
	r->value = cfg_exp_dup(x, value);
	r->order = x->order;
	r->list = 0;
}

void cfg_exp_add(struct cfg_exp *x, const char *table, const char *key, const char *field,
		 const char *fmt, ...)
{
	char value[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	cfg_exp_push(x, table, key, field, value);
}

void cfg_exp_add_list(struct cfg_exp *x, const char *table, const char *key, const char *field,
		      const char *value)
{
	cfg_exp_push(x, table, key, field, value);
	if (!x->failed)
		x->rows[x->n - 1].list = 1;
}

void cfg_exp_add_u32(struct cfg_exp *x, const char *table, const char *key, const char *field,
		     __u32 v)
{
	cfg_exp_add(x, table, key, field, "%u", v);
}

void cfg_exp_entry(struct cfg_exp *x, const char *table, const char *key)
{
	cfg_exp_push(x, table, key, NULL, NULL);
}

void cfg_exp_table(struct cfg_exp *x, const char *table)
{
	cfg_exp_push(x, table, NULL, NULL, NULL);
}

void cfg_exp_keep_order(struct cfg_exp *x, int order)
{
	x->order = order;
}

/* natsort's order: runs of digits compare as numbers, the rest bytewise. */
static int cfg_exp_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (la = 0; isdigit((unsigned char)a[la]); la++)
				;
			for (lb = 0; isdigit((unsigned char)b[lb]); lb++)
				;
			if (la != lb)
				return la < lb ? -1 : 1;
			if (memcmp(a, b, la))
				return memcmp(a, b, la);
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cfg_exp_strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b ? (a ? 1 : -1) : 0;
	return cfg_exp_natcmp(a, b);
}

static int cfg_exp_row_cmp(const void *pa, const void *pb)
{
	const struct cfg_exp_row *a = pa, *b = pb;
	int d = strcmp(a->table, b->table);

	if (d)
		return d;
	if (a->order != b->order && a->order >= 0 && b->order >= 0)
		return a->order < b->order ? -1 : 1;
	d = cfg_exp_strcmp0(a->key, b->key);
	return d ? d : cfg_exp_strcmp0(a->field, b->field);
}

static void cfg_exp_indent(FILE *out, int depth)
{
	fprintf(out, "%*s", 4 * depth, "");
}

/* A leaf-list as json.dumps(indent=4) writes it, one item a line. */
static void cfg_exp_write_value(const struct cfg_exp_row *f, FILE *out)
{
	const char *s = f->value;

	if (!f->list) {
		xfab_jw_quote(out, s);
		return;
	}
	fputc('[', out);
	while (*s) {
		size_t n = strcspn(s, ",");
		char item[256];

		snprintf(item, sizeof(item), "%.*s", (int)n, s);
		fputs(s == f->value ? "\n" : ",\n", out);
		cfg_exp_indent(out, 4);
		xfab_jw_quote(out, item);
		s += n + (s[n] == ',');
	}
	if (s != f->value) {
		fputc('\n', out);
		cfg_exp_indent(out, 3);
	}
	fputc(']', out);
}

/* Rows [i, end) of one entry: its fields, each once (the first wins). */
static size_t cfg_exp_write_entry(const struct cfg_exp *x, size_t i, FILE *out)
{
	const struct cfg_exp_row *r = &x->rows[i];
	int fields = 0;

	cfg_exp_indent(out, 2);
	xfab_jw_quote(out, r->key);
	fputs(": {", out);
	for (; i < x->n && !strcmp(x->rows[i].table, r->table) && x->rows[i].key &&
	       !strcmp(x->rows[i].key, r->key);
	     i++) {
		const struct cfg_exp_row *f = &x->rows[i];

		if (!f->field ||
		    (i > 0 && x->rows[i - 1].field && !strcmp(x->rows[i - 1].field, f->field) &&
		     x->rows[i - 1].key && !strcmp(x->rows[i - 1].key, f->key)))
			continue;
		fputs(fields++ ? ",\n" : "\n", out);
		cfg_exp_indent(out, 3);
		xfab_jw_quote(out, f->field);
		fputs(": ", out);
		cfg_exp_write_value(f, out);
	}
	if (fields) {
		fputc('\n', out);
		cfg_exp_indent(out, 2);
	}
	fputc('}', out);
	return i;
}

static size_t cfg_exp_write_table(const struct cfg_exp *x, size_t i, FILE *out)
{
	const char *table = x->rows[i].table;
	int entries = 0;

	cfg_exp_indent(out, 1);
	xfab_jw_quote(out, table);
	fputs(": {", out);
	while (i < x->n && !strcmp(x->rows[i].table, table)) {
		if (!x->rows[i].key) {
			i++;
			continue;
		}
		fputs(entries++ ? ",\n" : "\n", out);
		i = cfg_exp_write_entry(x, i, out);
	}
	if (entries) {
		fputc('\n', out);
		cfg_exp_indent(out, 1);
	}
	fputc('}', out);
	return i;
}

void cfg_exp_write(struct cfg_exp *x, FILE *out)
{
	size_t i = 0;

	qsort(x->rows, x->n, sizeof(*x->rows), cfg_exp_row_cmp);
	fputc('{', out);
	while (i < x->n) {
		fputs(i ? ",\n" : "\n", out);
		i = cfg_exp_write_table(x, i, out);
	}
	fputs(x->n ? "\n}\n" : "}\n", out);
}

void cfg_exp_free(struct cfg_exp *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->rows[i].table);
		free(x->rows[i].key);
		free(x->rows[i].field);
		free(x->rows[i].value);
	}
	free(x->rows);
}
