// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SONiC's rules between a CONFIG_DB entry and the rest of its document:
 * leafrefs (BUFFER_PG's profile names a BUFFER_PROFILE entry) and the YANG
 * must/when rules scripts/sonic-catalogue compiled into trees (its "XPath
 * subset": config/sonic/README.md). A tree is evaluated with XPath 1.0's
 * rules (https://www.w3.org/TR/1999/REC-xpath-19991116/, 3.4 and 4): a
 * path's value is a node-set, here the strings of the CONFIG_DB fields it
 * reaches, and a comparison with a node-set holds when it holds for one of
 * its members. Entries are found by their tables in the document, so a
 * reference into a table xfab implements (PORT) is checked the same way. */
#include "internal.h"
#include "sonic_catalogue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An XPath value: boolean, number, string, or node-set (of strings). */
enum refs_kind { REFS_BOOL, REFS_NUM, REFS_STR, REFS_SET };

struct refs_val {
	double num;   /* REFS_BOOL too: 0 or 1 */
	char *str;    /* REFS_STR, owned */
	char **items; /* REFS_SET, owned */
	enum refs_kind kind;
	unsigned int n;
};

/* One entry of the document: its table's list, key and fields. */
struct refs_entry {
	const struct json_value *list; /* in the catalogue */
	const char *key;	       /* without "TABLE|" */
	const struct json_value *obj;  /* its fields */
};

/* What a rule sees: the document, its own entry, and its leaf's value
 * (cur: NULL for a list's rule). */
struct refs_ctx {
	const struct xfab_sonic_catalogue *cat;
	const struct json_value *root;
	struct refs_entry self;
	const char *field; /* the rule's leaf (NULL: a list's rule) */
};

static void refs_free(struct refs_val *v)
{
	for (unsigned int i = 0; i < v->n; i++)
		free(v->items[i]);
	free(v->items);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static int refs_add(struct refs_val *set, const char *s, size_t len)
{
	char **grown = cfg_grow(set->items, (int)set->n, sizeof(*set->items));

	if (!grown)
		return -1;
	set->items = grown;
	set->items[set->n] = strndup(s, len);
	if (!set->items[set->n])
		return -1;
	set->n++;
	return 0;
}

/* The values of leaf name in entry e: a key part, a field's string, a
 * leaf-list's strings (one string split at its separator, as SONiC's
 * loader does), or the field's YANG default when it is absent (libyang
 * puts defaults in the tree the rules see). */
static int refs_leaf(const struct refs_entry *e, const char *name, struct refs_val *out)
{
	const struct json_value *keys = xfab_json_get(e->list, "keys");
	const struct json_value *f, *type, *sep, *dflt;
	const char *p = e->key;

	out->kind = REFS_SET;
	for (unsigned int i = 0; keys && i < keys->count; i++) {
		const char *bar = strchr(p, '|');

		if (!strcmp(keys->children[i].str, name))
			return refs_add(out, p, bar ? (size_t)(bar - p) : strlen(p));
		p = bar ? bar + 1 : p + strlen(p);
	}
	f = e->obj ? xfab_json_get(e->obj, name) : NULL;
	type = xfab_sonic_list_field(e->list, name);
	sep = type ? xfab_json_get(type, "separator") : NULL;
	dflt = type ? xfab_json_get(type, "default") : NULL;
	if (!f && dflt && dflt->type == JSON_STRING)
		return refs_add(out, dflt->str, strlen(dflt->str));
	if (f && f->type == JSON_ARRAY) {
		for (unsigned int i = 0; i < f->count; i++)
			if (f->children[i].str &&
			    refs_add(out, f->children[i].str, strlen(f->children[i].str)))
				return -1;
		return 0;
	}
	if (!f || !f->str)
		return 0;
	for (const char *s = f->str; sep && sep->str[0];) {
		const char *end = strchr(s, sep->str[0]);

		if (refs_add(out, s, end ? (size_t)(end - s) : strlen(s)))
			return -1;
		if (!end)
			return 0;
		s = end + 1;
	}
	return refs_add(out, f->str, strlen(f->str));
}

static int refs_eval(const struct refs_ctx *rc, const struct json_value *t, struct refs_val *out);

static const char *refs_op(const struct json_value *t)
{
	return t && t->type == JSON_ARRAY && t->count && t->children[0].type == JSON_STRING
		   ? t->children[0].str
		   : "";
}

/* XPath's string(): a set's first member, "" when empty. */
static const char *refs_text(const struct refs_val *v, char *buf, size_t len)
{
	if (v->kind == REFS_SET)
		return v->n ? v->items[0] : "";
	if (v->kind == REFS_STR)
		return v->str;
	if (v->kind == REFS_BOOL)
		return v->num ? "true" : "false";
	snprintf(buf, len, "%.17g", v->num);
	return buf;
}

/* XPath's number() of a string: optional "-", digits, optional fraction,
 * blanks around; anything else is NaN. */
static double refs_number_of(const char *s)
{
	const char *p = s + strspn(s, " \t\n\r");
	char *end;
	double d;

	if (!strchr("-.0123456789", *p) || !*p || strpbrk(p, "eExXnNiI+"))
		return NAN;
	d = strtod(p, &end);
	if (end == p || end[strspn(end, " \t\n\r")])
		return NAN;
	return d;
}

static double refs_number(const struct refs_val *v)
{
	char buf[32];

	if (v->kind == REFS_NUM || v->kind == REFS_BOOL)
		return v->num;
	return refs_number_of(refs_text(v, buf, sizeof(buf)));
}

static int refs_true(const struct refs_val *v)
{
	if (v->kind == REFS_SET)
		return v->n > 0;
	if (v->kind == REFS_STR)
		return v->str[0] != '\0';
	return v->num != 0 && !isnan(v->num);
}

/* Two values neither of them a node-set, by XPath's 3.4: = and != compare
 * booleans if either is one, else numbers if either is one, else strings;
 * the others compare numbers. */
static int refs_cmp_scalar(const char *op, const struct refs_val *a, const struct refs_val *b)
{
	char ba[32], bb[32];
	double x, y;
	int eq;

	if (!strcmp(op, "=") || !strcmp(op, "!=")) {
		if (a->kind == REFS_BOOL || b->kind == REFS_BOOL)
			eq = refs_true(a) == refs_true(b);
		else if (a->kind == REFS_NUM || b->kind == REFS_NUM)
			eq = refs_number(a) == refs_number(b);
		else
			eq = !strcmp(refs_text(a, ba, sizeof(ba)), refs_text(b, bb, sizeof(bb)));
		return op[0] == '=' ? eq : !eq;
	}
	x = refs_number(a);
	y = refs_number(b);
	if (!strcmp(op, "<"))
		return x < y;
	if (!strcmp(op, "<="))
		return x <= y;
	if (!strcmp(op, ">"))
		return x > y;
	return x >= y;
}

/* A member of a node-set as a string value (borrowed, not freed). */
static struct refs_val refs_member(const struct refs_val *set, unsigned int i)
{
	return (struct refs_val){.kind = REFS_STR, .str = set->items[i]};
}

/* A comparison with node-sets holds when it holds for some member (of
 * each); a node-set against a boolean is its own boolean. */
static int refs_compare(const char *op, const struct refs_val *a, const struct refs_val *b)
{
	struct refs_val m, n;

	if (a->kind == REFS_SET && b->kind == REFS_BOOL)
		return refs_cmp_scalar(op, &(struct refs_val){.kind = REFS_BOOL, .num = a->n > 0},
				       b);
	if (b->kind == REFS_SET && a->kind == REFS_BOOL)
		return refs_cmp_scalar(op, a,
				       &(struct refs_val){.kind = REFS_BOOL, .num = b->n > 0});
	if (a->kind == REFS_SET) {
		for (unsigned int i = 0; i < a->n; i++) {
			m = refs_member(a, i);
			if (refs_compare(op, &m, b))
				return 1;
		}
		return 0;
	}
	if (b->kind == REFS_SET) {
		for (unsigned int i = 0; i < b->n; i++) {
			n = refs_member(b, i);
			if (refs_compare(op, a, &n))
				return 1;
		}
		return 0;
	}
	return refs_cmp_scalar(op, a, b);
}

/* The entries of table's list (by name) in the document matching preds
 * ([[leaf, tree], ...], each tree evaluated in rc): each entry's leaf
 * values into out, or one "" per entry when leaf is NULL. */
static int refs_select(const struct refs_ctx *rc, const char *table, const char *list,
		       const struct json_value *preds, const char *leaf, struct refs_val *out)
{
	const struct json_value *def = xfab_sonic_table(rc->cat, table);
	const struct json_value *tbl = xfab_json_get(rc->root, table);

	out->kind = REFS_SET;
	for (unsigned int i = 0; def && tbl && tbl->type == JSON_OBJECT && i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		struct refs_entry cand = {xfab_sonic_list_for_key(def, e->key), e->key, e};
		const struct json_value *name = xfab_json_get(cand.list, "name");
		int match = name && name->str && !strcmp(name->str, list);

		if (e->type != JSON_OBJECT)
			cand.obj = NULL;
		for (unsigned int p = 0; match && preds && p < preds->count; p++) {
			const struct json_value *pred = &preds->children[p];
			struct refs_val have = {0}, want = {0};

			if (pred->count != 2 || refs_leaf(&cand, pred->children[0].str, &have) ||
			    refs_eval(rc, &pred->children[1], &want)) {
				refs_free(&have);
				refs_free(&want);
				return -1;
			}
			match = refs_compare("=", &have, &want);
			refs_free(&have);
			refs_free(&want);
		}
		if (!match)
			continue;
		if (leaf ? refs_leaf(&cand, leaf, out) : refs_add(out, "", 0))
			return -1;
	}
	return 0;
}

static int refs_set_str(struct refs_val *out, const char *s, size_t len)
{
	out->kind = REFS_STR;
	out->str = strndup(s, len);
	return out->str ? 0 : -1;
}

static int refs_set_num(struct refs_val *out, enum refs_kind kind, double num)
{
	out->kind = kind;
	out->num = num;
	return 0;
}

static unsigned long refs_utf8_len(const char *s)
{
	unsigned long n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* substring-before/-after (XPath 4.2): around the first b in a, "" when
 * b is not in a. */
static int refs_substring(const char *fn, const char *a, const char *b, struct refs_val *out)
{
	const char *at = strstr(a, b);

	if (!at)
		return refs_set_str(out, "", 0);
	if (!strcmp(fn, "substring-before"))
		return refs_set_str(out, a, (size_t)(at - a));
	return refs_set_str(out, at + strlen(b), strlen(at + strlen(b)));
}

/* concat(): its arguments' strings joined. */
static int refs_concat(const struct refs_val *args, unsigned int n, struct refs_val *out)
{
	char buf[32], *s = NULL;
	size_t len = 0;

	for (unsigned int i = 0; i < n; i++) {
		const char *part = refs_text(&args[i], buf, sizeof(buf));
		char *grown = realloc(s, len + strlen(part) + 1);

		if (!grown) {
			free(s);
			return -1;
		}
		s = grown;
		memcpy(s + len, part, strlen(part) + 1);
		len += strlen(part);
	}
	out->kind = REFS_STR;
	out->str = s ? s : strdup("");
	return out->str ? 0 : -1;
}

/* The functions of the subset (XPath 4.1-4.3) on evaluated arguments. */
static int refs_call(const struct refs_ctx *rc, const char *fn, struct refs_val *a, unsigned int n,
		     struct refs_val *out)
{
	char b0[32], b1[32];
	const char *s0 = n > 0 ? refs_text(&a[0], b0, sizeof(b0)) : "";
	const char *s1 = n > 1 ? refs_text(&a[1], b1, sizeof(b1)) : "";

	if (!strcmp(fn, "not") || !strcmp(fn, "boolean"))
		return refs_set_num(out, REFS_BOOL, refs_true(&a[0]) == !strcmp(fn, "boolean"));
	if (!strcmp(fn, "true") || !strcmp(fn, "false"))
		return refs_set_num(out, REFS_BOOL, fn[0] == 't');
	if (!strcmp(fn, "contains"))
		return refs_set_num(out, REFS_BOOL, strstr(s0, s1) != NULL);
	if (!strcmp(fn, "starts-with"))
		return refs_set_num(out, REFS_BOOL, !strncmp(s0, s1, strlen(s1)));
	if (!strcmp(fn, "substring-before") || !strcmp(fn, "substring-after"))
		return refs_substring(fn, s0, s1, out);
	if (!strcmp(fn, "count") && n == 1 && a[0].kind == REFS_SET)
		return refs_set_num(out, REFS_NUM, a[0].n);
	if (!strcmp(fn, "concat"))
		return refs_concat(a, n, out);
	if (!strcmp(fn, "string-length") && n == 1)
		return refs_set_num(out, REFS_NUM, (double)refs_utf8_len(s0));
	if (!strcmp(fn, "string-length") && n == 0) {
		/* of the context node: the rule's own leaf */
		struct refs_val cur = {0};
		int r = rc->field ? refs_leaf(&rc->self, rc->field, &cur) : -1;

		if (!r)
			refs_set_num(out, REFS_NUM, (double)refs_utf8_len(refs_text(&cur, b0, 32)));
		refs_free(&cur);
		return r;
	}
	return -1;
}

#define REFS_MAX_ARGS 9 /* concat's, in the generator's XP_FUNCS */

static int refs_fn(const struct refs_ctx *rc, const struct json_value *t, struct refs_val *out)
{
	struct refs_val args[REFS_MAX_ARGS] = {{0}};
	unsigned int n = t->count - 2;
	int r = 0;

	if (t->count < 2 || t->children[1].type != JSON_STRING || n > REFS_MAX_ARGS)
		return -1;
	for (unsigned int i = 0; i < n && !r; i++)
		r = refs_eval(rc, &t->children[2 + i], &args[i]);
	if (!r)
		r = refs_call(rc, t->children[1].str, args, n, out);
	for (unsigned int i = 0; i < n; i++)
		refs_free(&args[i]);
	return r;
}

/* a op b for op one of the comparisons or + - *; -1 for another op. */
static int refs_apply(const char *op, const struct refs_val *a, const struct refs_val *b,
		      struct refs_val *out)
{
	static const char *const cmp[] = {"=", "!=", "<", "<=", ">", ">="};

	if (strchr("+-*", op[0]) && !op[1])
		return refs_set_num(out, REFS_NUM,
				    op[0] == '+'   ? refs_number(a) + refs_number(b)
				    : op[0] == '-' ? refs_number(a) - refs_number(b)
						   : refs_number(a) * refs_number(b));
	for (size_t i = 0; i < sizeof(cmp) / sizeof(cmp[0]); i++)
		if (!strcmp(op, cmp[i]))
			return refs_set_num(out, REFS_BOOL, refs_compare(op, a, b));
	return -1;
}

/* and, or (short-circuit: the right side only when the left does not
 * decide), and the others of refs_apply. */
static int refs_binary(const struct refs_ctx *rc, const char *op, const struct json_value *t,
		       struct refs_val *out)
{
	int logic = !strcmp(op, "and") || !strcmp(op, "or");
	struct refs_val a = {0}, b = {0};
	int r = refs_eval(rc, &t->children[1], &a);

	if (!r && logic && refs_true(&a) == !strcmp(op, "or")) {
		refs_free(&a);
		return refs_set_num(out, REFS_BOOL, op[0] == 'o');
	}
	if (!r)
		r = refs_eval(rc, &t->children[2], &b);
	if (!r)
		r = logic ? refs_set_num(out, REFS_BOOL, refs_true(&b))
			  : refs_apply(op, &a, &b, out);
	refs_free(&a);
	refs_free(&b);
	return r;
}

/* A compiled tree's value (the generator's XPath class names the forms);
 * -1 for a tree it does not write, or out of memory. */
static int refs_eval(const struct refs_ctx *rc, const struct json_value *t, struct refs_val *out)
{
	const char *op = refs_op(t);
	const struct json_value *arg = t->count > 1 ? &t->children[1] : NULL;

	memset(out, 0, sizeof(*out));
	if (!strcmp(op, "str") && arg && arg->type == JSON_STRING)
		return refs_set_str(out, arg->str, strlen(arg->str));
	if (!strcmp(op, "num") && arg && arg->type == JSON_NUMBER)
		return refs_set_num(out, REFS_NUM, strtod(arg->str, NULL));
	if (!strcmp(op, "cur"))
		return rc->field ? refs_leaf(&rc->self, rc->field, out) : -1;
	if (!strcmp(op, "field") && arg && arg->type == JSON_STRING)
		return refs_leaf(&rc->self, arg->str, out);
	if (!strcmp(op, "select") && t->count == 5 && t->children && t->children[1].str &&
	    t->children[2].str)
		return refs_select(rc, t->children[1].str, t->children[2].str, &t->children[3],
				   t->children[4].type == JSON_STRING ? t->children[4].str : NULL,
				   out);
	if (!strcmp(op, "fn"))
		return refs_fn(rc, t, out);
	if (t->count == 3 && *op)
		return refs_binary(rc, op, t, out);
	return -1;
}

/* 1 when tree holds in rc, 0 when not, -1 when it cannot be evaluated. */
static int refs_holds(const struct refs_ctx *rc, const struct json_value *tree)
{
	struct refs_val v = {0};
	int r = refs_eval(rc, tree, &v);

	if (!r)
		r = refs_true(&v);
	refs_free(&v);
	return r;
}

/* 1 when value is in the leafref's target (ref: a "select" tree), 0 when
 * not, -1 when it cannot be evaluated. */
static int refs_target_has(const struct refs_ctx *rc, const struct json_value *ref,
			   const char *value)
{
	struct refs_val set = {0};
	int r = refs_eval(rc, ref, &set), found = 0;

	for (unsigned int i = 0; !r && set.kind == REFS_SET && i < set.n; i++)
		found |= !strcmp(set.items[i], value);
	refs_free(&set);
	return r ? -1 : found;
}

static int refs_has_ref(const struct json_value *type)
{
	const struct json_value *types = xfab_json_get(type, "types");

	if (xfab_json_get(type, "ref"))
		return 1;
	for (unsigned int i = 0; types && i < types->count; i++)
		if (refs_has_ref(&types->children[i]))
			return 1;
	return 0;
}

/* Whether value satisfies type's references: a leafref's target has it; a
 * union with leafrefs among its members holds when one member does (a
 * leafref's target has it, or another member's type admits it, as
 * BUFFER_PG.profile's "NULL"). 1, 0, or -1 (not evaluable). */
static int refs_value_ok(const struct refs_ctx *rc, const struct json_value *type,
			 const char *value)
{
	const struct json_value *ref = xfab_json_get(type, "ref");
	const struct json_value *types = xfab_json_get(type, "types");
	char why[200];

	if (ref)
		return refs_target_has(rc, ref, value);
	if (!types || !refs_has_ref(type))
		return 1;
	for (unsigned int i = 0; i < types->count; i++) {
		const struct json_value *m = &types->children[i];
		int r = refs_has_ref(m) ? refs_value_ok(rc, m, value)
					: !xfab_sonic_check_value(m, value, why, sizeof(why));

		if (r)
			return r;
	}
	return 0;
}

/* "no BUFFER_PROFILE|x" for the leafref ref: TABLE|value when the target
 * is its table's one key, else the leaf named. */
static void refs_missing_one(const struct refs_ctx *rc, const struct json_value *ref,
			     const char *value, char *buf, size_t len)
{
	const char *table = ref->children[1].str, *leaf = ref->children[4].str;
	const struct json_value *def = xfab_sonic_table(rc->cat, table);
	const struct json_value *keys = def ? xfab_json_get(def, "keys") : NULL;
	size_t used = strlen(buf);

	if (used >= len)
		return;
	if (keys && keys->count == 1 && !strcmp(keys->children[0].str, leaf))
		snprintf(buf + used, len - used, "%sno %s|%s", used ? ", " : "", table, value);
	else
		snprintf(buf + used, len - used, "%sno %s entry whose %s is \"%s\"",
			 used ? ", " : "", table, leaf, value);
}

/* Each leafref of type (a union's too) as refs_missing_one says it. */
static void refs_missing(const struct refs_ctx *rc, const struct json_value *type,
			 const char *value, char *buf, size_t len)
{
	const struct json_value *ref = xfab_json_get(type, "ref");
	const struct json_value *types = xfab_json_get(type, "types");

	for (unsigned int i = 0; types && i < types->count; i++)
		refs_missing(rc, &types->children[i], value, buf, len);
	if (ref && ref->count == 5 && ref->children[1].str && ref->children[4].str)
		refs_missing_one(rc, ref, value, buf, len);
}

/* Where a failure is refused and how it is named: the entry's key, or
 * one of its fields' value. */
struct refs_place {
	struct json_pos pos;
	char where[200];
	const char *module; /* the table's YANG module, for the message */
};

/* The leaf's values (a key part, a field, a leaf-list's items) each in
 * its leafref's target. */
static void refs_leaf_refs(struct ctx *c, const struct refs_ctx *rc, const struct json_value *type,
			   const struct refs_place *at)
{
	struct refs_val vals = {0};
	char miss[300];

	if (!refs_has_ref(type))
		return;
	if (refs_leaf(&rc->self, rc->field, &vals))
		cfg_add_error(c, at->pos, at->where, "out of memory");
	for (unsigned int i = 0; i < vals.n; i++) {
		int r = refs_value_ok(rc, type, vals.items[i]);

		miss[0] = '\0';
		refs_missing(rc, type, vals.items[i], miss, sizeof(miss));
		if (r < 0)
			cfg_add_error(c, at->pos, at->where, "cannot evaluate SONiC's leafref");
		else if (!r)
			cfg_add_error(c, at->pos, at->where, "%s (%s.yang leafref)", miss,
				      at->module);
	}
	refs_free(&vals);
}

/* holder's compiled must rules and when rule (a list's, or a leaf's). */
static void refs_rules(struct ctx *c, const struct refs_ctx *rc, const struct json_value *holder,
		       const struct refs_place *at)
{
	const struct json_value *must = xfab_json_get(holder, "must");
	const struct json_value *when = xfab_json_get(holder, "when_tree");
	int r;

	for (unsigned int i = 0; must && i < must->count; i++) {
		const struct json_value *rule = &must->children[i];
		const struct json_value *tree = xfab_json_get(rule, "tree");
		/* the rule's own text: SONiC's error-message prose is not in
		 * the catalogue (config/sonic/README.md) */
		const struct json_value *expr = xfab_json_get(rule, "expr");

		if (!tree)
			continue; /* outside the subset: counted by the generator */
		r = refs_holds(rc, tree);
		if (r < 0)
			cfg_add_error(c, at->pos, at->where, "cannot evaluate SONiC's rule");
		else if (!r)
			cfg_add_error(c, at->pos, at->where, "violates %s.yang's must rule: %s",
				      at->module, expr && expr->str ? expr->str : "?");
	}
	r = when ? refs_holds(rc, when) : 1;
	if (!r)
		cfg_add_error(c, at->pos, at->where,
			      "present, but SONiC's \"when\" is false: %s (%s.yang when)",
			      xfab_json_get(holder, "when")->str, at->module);
	else if (r < 0)
		cfg_add_error(c, at->pos, at->where, "cannot evaluate SONiC's rule");
}

/* Each key leaf's references and rules, refused at the entry's key. */
static void refs_keys(struct ctx *c, struct refs_ctx *rc, const struct json_value *e,
		      struct refs_place *at)
{
	const struct json_value *keys = xfab_json_get(rc->self.list, "keys");
	const struct json_value *types = xfab_json_get(rc->self.list, "key_types");

	at->pos = e->key_pos;
	for (unsigned int i = 0; keys && types && i < keys->count; i++) {
		const struct json_value *type = xfab_json_get(types, keys->children[i].str);

		if (!type)
			continue;
		rc->field = keys->children[i].str;
		refs_leaf_refs(c, rc, type, at);
		refs_rules(c, rc, type, at);
	}
	rc->field = NULL;
	refs_rules(c, rc, rc->self.list, at);
}

void cfg_sonic_refs(struct ctx *c, const char *table, const struct json_value *e)
{
	const struct json_value *def = c->sonic ? xfab_sonic_table(c->sonic, table) : NULL;
	const struct json_value *module = def ? xfab_json_get(def, "module") : NULL;
	struct refs_ctx rc = {.cat = c->sonic, .root = c->root};
	struct refs_place at = {.module = module && module->str ? module->str : "?"};
	char key[160];

	rc.self = (struct refs_entry){def ? xfab_sonic_list_for_key(def, e->key) : NULL, e->key,
				      e->type == JSON_OBJECT ? e : NULL};
	if (!rc.self.list || !c->root)
		return;
	snprintf(key, sizeof(key), "%s|%s", table, e->key);
	snprintf(at.where, sizeof(at.where), "%s", key);
	refs_keys(c, &rc, e, &at);
	for (unsigned int i = 0; rc.self.obj && i < e->count; i++) {
		const struct json_value *f = &e->children[i];
		const struct json_value *type = xfab_sonic_list_field(rc.self.list, f->key);

		if (!type)
			continue;
		at.pos = f->pos;
		snprintf(at.where, sizeof(at.where), "%s.%s", key, f->key);
		rc.field = f->key;
		refs_leaf_refs(c, &rc, type, &at);
		refs_rules(c, &rc, type, &at);
	}
}
