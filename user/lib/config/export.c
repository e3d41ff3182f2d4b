// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A parsed config written back as a SONiC CONFIG_DB document (docs/SONIC.md,
 * "Export and coverage"): every value a string, as SONiC's config_db.json
 * holds it; tables in byte order and each table's keys in natural order
 * (Ethernet4 before Ethernet12), as sonic-cfggen's sort_data (natsorted)
 * orders them (sonic-buildimage src/sonic-config-engine/sonic-cfggen),
 * indented by 4 as its --print-data (json.dumps(indent=4)) writes them.
 * PORT, VNET, VNET_ROUTE_TUNNEL and ACL_RULE keep the config's order
 * instead: a port's, a VNET's and a tunnel route's place is its index in
 * the compiled tables, and rules of equal PRIORITY are tried in the order
 * written (docs/ACL.md).
 *
 * The writers collect rows (export_int.h); this file sorts and writes them.
 */
#include "export_int.h"
#include "jsonw.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *exp_dup(struct exp *x, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		x->failed = 1;
	return d;
}

static void exp_push(struct exp *x, const char *table, const char *key, const char *field,
		     const char *value)
{
	struct exp_row *r;

	if (x->failed)
		return;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		struct exp_row *rows = realloc(x->rows, cap * sizeof(*rows));

		if (!rows) {
			x->failed = 1;
			return;
		}
		x->rows = rows;
		x->cap = cap;
	}
	r = &x->rows[x->n++];
	r->table = exp_dup(x, table);
	r->key = exp_dup(x, key);
	r->field = exp_dup(x, field);
	r->value = exp_dup(x, value);
	r->order = x->order;
	r->list = 0;
}

void exp_add(struct exp *x, const char *table, const char *key, const char *field, const char *fmt,
	     ...)
{
	char value[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	exp_push(x, table, key, field, value);
}

void exp_add_list(struct exp *x, const char *table, const char *key, const char *field,
		  const char *value)
{
	exp_push(x, table, key, field, value);
	if (!x->failed)
		x->rows[x->n - 1].list = 1;
}

void exp_add_u32(struct exp *x, const char *table, const char *key, const char *field, __u32 v)
{
	exp_add(x, table, key, field, "%u", v);
}

void exp_entry(struct exp *x, const char *table, const char *key)
{
	exp_push(x, table, key, NULL, NULL);
}

void exp_table(struct exp *x, const char *table)
{
	exp_push(x, table, NULL, NULL, NULL);
}

void exp_keep_order(struct exp *x, int order)
{
	x->order = order;
}

/* natsort's order: runs of digits compare as numbers, the rest bytewise. */
static int exp_natcmp(const char *a, const char *b)
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

static int exp_strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b ? (a ? 1 : -1) : 0;
	return exp_natcmp(a, b);
}

static int exp_row_cmp(const void *pa, const void *pb)
{
	const struct exp_row *a = pa, *b = pb;
	int d = strcmp(a->table, b->table);

	if (d)
		return d;
	if (a->order != b->order && a->order >= 0 && b->order >= 0)
		return a->order < b->order ? -1 : 1;
	d = exp_strcmp0(a->key, b->key);
	return d ? d : exp_strcmp0(a->field, b->field);
}

static void exp_indent(FILE *out, int depth)
{
	fprintf(out, "%*s", 4 * depth, "");
}

/* A leaf-list as json.dumps(indent=4) writes it, one item a line. */
static void exp_write_value(const struct exp_row *f, FILE *out)
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
		exp_indent(out, 4);
		xfab_jw_quote(out, item);
		s += n + (s[n] == ',');
	}
	if (s != f->value) {
		fputc('\n', out);
		exp_indent(out, 3);
	}
	fputc(']', out);
}

/* Rows [i, end) of one entry: its fields, each once (the first wins). */
static size_t exp_write_entry(const struct exp *x, size_t i, FILE *out)
{
	const struct exp_row *r = &x->rows[i];
	int fields = 0;

	exp_indent(out, 2);
	xfab_jw_quote(out, r->key);
	fputs(": {", out);
	for (; i < x->n && !strcmp(x->rows[i].table, r->table) && x->rows[i].key &&
	       !strcmp(x->rows[i].key, r->key);
	     i++) {
		const struct exp_row *f = &x->rows[i];

		if (!f->field ||
		    (i > 0 && x->rows[i - 1].field && !strcmp(x->rows[i - 1].field, f->field) &&
		     !strcmp(x->rows[i - 1].key, f->key)))
			continue;
		fputs(fields++ ? ",\n" : "\n", out);
		exp_indent(out, 3);
		xfab_jw_quote(out, f->field);
		fputs(": ", out);
		exp_write_value(f, out);
	}
	if (fields) {
		fputc('\n', out);
		exp_indent(out, 2);
	}
	fputc('}', out);
	return i;
}

static size_t exp_write_table(const struct exp *x, size_t i, FILE *out)
{
	const char *table = x->rows[i].table;
	int entries = 0;

	exp_indent(out, 1);
	xfab_jw_quote(out, table);
	fputs(": {", out);
	while (i < x->n && !strcmp(x->rows[i].table, table)) {
		if (!x->rows[i].key) {
			i++;
			continue;
		}
		fputs(entries++ ? ",\n" : "\n", out);
		i = exp_write_entry(x, i, out);
	}
	if (entries) {
		fputc('\n', out);
		exp_indent(out, 1);
	}
	fputc('}', out);
	return i;
}

static void exp_write(struct exp *x, FILE *out)
{
	size_t i = 0;

	qsort(x->rows, x->n, sizeof(*x->rows), exp_row_cmp);
	fputc('{', out);
	while (i < x->n) {
		fputs(i ? ",\n" : "\n", out);
		i = exp_write_table(x, i, out);
	}
	fputs(x->n ? "\n}\n" : "}\n", out);
}

static void exp_free(struct exp *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->rows[i].table);
		free(x->rows[i].key);
		free(x->rows[i].field);
		free(x->rows[i].value);
	}
	free(x->rows);
}

/* Every table group's writer, in one list. The tables whose SONiC spelling
 * differs from xfab's (WRED_PROFILE, BUFFER_*, COPP_TABLE, ROUTE) are
 * written in xfab's, which a SONiC-format file accepts today; each is its
 * own writer, to be switched to SONiC's spelling once the parser reads it. */
static void (*const exp_writers[])(struct exp *x, const struct xfab_config *cfg) = {
    exp_device, exp_ports,  exp_l3,  exp_routes,  exp_overlay, exp_lb,	 exp_dscp,
    exp_wred,	exp_queues, exp_pfc, exp_buffers, exp_pfc_wd,  exp_copp, exp_acl,
};

int xfab_config_export(const struct xfab_config *cfg, FILE *out)
{
	struct exp x = {.order = -1};
	int ret = 0;

	for (size_t w = 0; w < sizeof(exp_writers) / sizeof(exp_writers[0]); w++)
		exp_writers[w](&x, cfg);
	if (x.failed) {
		errno = ENOMEM;
		ret = -1;
	} else {
		exp_write(&x, out);
		if (fflush(out) || ferror(out))
			ret = -1;
	}
	exp_free(&x);
	return ret;
}
