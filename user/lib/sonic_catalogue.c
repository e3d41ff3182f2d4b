// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SONiC's CONFIG_DB catalogue (config/sonic/catalogue.json): lookups and
 * value checks. The catalogue is generated from SONiC's YANG models by
 * scripts/sonic-catalogue; this file only reads what it wrote. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sonic_catalogue.h"
#include "textfile.h"

struct xfab_sonic_catalogue {
	struct json_value *doc;
	const struct json_value *tables; /* "tables": name -> entry */
	const struct json_value *source;
};

struct xfab_sonic_catalogue *xfab_sonic_load(const char *path, char *err, size_t errlen)
{
	struct xfab_sonic_catalogue *cat;
	struct json_pos pos = {0, 0};
	char jerr[200];
	char *text;

	/* the catalogue is under 1 MiB; 16 leave room for later releases */
	text = xfab_read_text(path, 16, err, errlen);
	if (!text)
		return NULL;
	cat = calloc(1, sizeof(*cat));
	if (!cat) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	cat->doc = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	free(text);
	if (!cat->doc) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, pos.line, pos.col, jerr);
		goto fail;
	}
	cat->tables = xfab_json_get(cat->doc, "tables");
	cat->source = xfab_json_get(cat->doc, "source");
	if (!cat->tables || cat->tables->type != JSON_OBJECT || !cat->source) {
		snprintf(err, errlen, "%s: not a SONiC catalogue (no \"tables\" or \"source\")",
			 path);
		goto fail;
	}
	return cat;
fail:
	xfab_sonic_free(cat);
	return NULL;
}

void xfab_sonic_free(struct xfab_sonic_catalogue *cat)
{
	if (!cat)
		return;
	if (cat->doc)
		xfab_json_free(cat->doc);
	free(cat);
}

/* The catalogue is generated, but a hand-edited one must not crash a
 * reader: strings are taken only where they are strings. */
static const char *str_member(const struct json_value *obj, const char *key)
{
	const struct json_value *v = xfab_json_get(obj, key);

	return v && v->type == JSON_STRING ? v->str : NULL;
}

static const char *str_at(const struct json_value *arr, unsigned int i)
{
	return arr->children[i].type == JSON_STRING ? arr->children[i].str : "";
}

const char *xfab_sonic_source(const struct xfab_sonic_catalogue *cat, const char *what)
{
	return str_member(cat->source, what);
}

unsigned int xfab_sonic_table_count(const struct xfab_sonic_catalogue *cat)
{
	return cat->tables->count;
}

const struct json_value *xfab_sonic_table(const struct xfab_sonic_catalogue *cat, const char *table)
{
	return xfab_json_get(cat->tables, table);
}

static unsigned int key_parts(const char *key)
{
	unsigned int n = 1;

	for (; *key; key++)
		n += *key == '|';
	return n;
}

const struct json_value *xfab_sonic_list_for_key(const struct json_value *table, const char *key)
{
	const struct json_value *lists = xfab_json_get(table, "lists");
	const struct json_value *by_arity = NULL;

	if (!lists || lists->type != JSON_ARRAY)
		return NULL;
	for (unsigned int i = 0; i < lists->count; i++) {
		const struct json_value *l = &lists->children[i];
		const char *fixed = str_member(l, "fixed_key");
		const struct json_value *keys = xfab_json_get(l, "keys");

		if (fixed) {
			if (strcmp(fixed, key) == 0)
				return l;
			continue;
		}
		/* the first list of that arity: SONiC's tables have at most one */
		if (!by_arity && keys && keys->count == key_parts(key))
			by_arity = l;
	}
	return by_arity;
}

const struct json_value *xfab_sonic_list_field(const struct json_value *list, const char *field)
{
	const struct json_value *type = xfab_json_get(xfab_json_get(list, "fields"), field);
	const struct json_value *map = xfab_json_get(list, "map");
	char err[16];

	if (type || !map)
		return type;
	/* a map's field names are values of its key (a DSCP, a port name) */
	if (xfab_sonic_check_value(xfab_json_get(map, "key_type"), field, err, sizeof(err)))
		return NULL;
	return xfab_json_get(map, "value_type");
}

const struct json_value *xfab_sonic_field(const struct xfab_sonic_catalogue *cat, const char *table,
					  const char *field)
{
	const struct json_value *t = xfab_sonic_table(cat, table);
	const struct json_value *type = xfab_json_get(xfab_json_get(t, "fields"), field);
	const struct json_value *lists = xfab_json_get(t, "lists");

	if (type || !lists)
		return type;
	for (unsigned int i = 0; i < lists->count; i++) {
		type = xfab_sonic_list_field(&lists->children[i], field);
		if (type)
			return type;
	}
	return NULL;
}

/* ---- value checks ---- */

static const char *type_name(const struct json_value *type)
{
	const char *t = str_member(type, "type");

	return t ? t : "string";
}

/* Writes "a, b, c" (the strings of an array) into buf. */
static const char *word_list(const struct json_value *arr, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; arr && i < arr->count && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? ", " : "", str_at(arr, i));
	return buf;
}

static bool in_list(const struct json_value *arr, const char *value)
{
	for (unsigned int i = 0; arr && i < arr->count; i++)
		if (arr->children[i].type == JSON_STRING &&
		    strcmp(arr->children[i].str, value) == 0)
			return true;
	return false;
}

/* A YANG integer: an optional sign and decimal digits (RFC 7950 9.2.1),
 * nothing else; SONiC's values are strings, so " 5" or "5k" are errors.
 * 1 when read, 0 when not an integer, -1 when too big for 64 bits. */
static int parse_int(const char *s, bool is_signed, long long *sv, unsigned long long *uv)
{
	const char *d = s + (*s == '-' || *s == '+');
	char *end;

	if (*d < '0' || *d > '9' || (!is_signed && *s == '-'))
		return 0;
	errno = 0;
	if (is_signed)
		*sv = strtoll(s, &end, 10);
	else
		*uv = strtoull(s, &end, 10);
	if (*end)
		return 0;
	return errno ? -1 : 1;
}

struct int_limits {
	long long smin, smax;
	unsigned long long umax;
};

/* The base type's own bounds, which a range narrows. */
static bool int_base(const char *name, bool *is_signed, struct int_limits *lim)
{
	static const struct {
		const char *name;
		int bits;
	} bases[] = {{"int8", 8},  {"int16", 16},  {"int32", 32},  {"int64", 64},
		     {"uint8", 8}, {"uint16", 16}, {"uint32", 32}, {"uint64", 64}};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		int bits = bases[i].bits;

		if (strcmp(name, bases[i].name))
			continue;
		*is_signed = name[0] == 'i';
		lim->umax = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
		lim->smax = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
		lim->smin = -lim->smax - 1;
		return true;
	}
	return false;
}

/* A range's [lo, hi] pair, as the generator writes it: two numbers. */
static bool is_pair(const struct json_value *pair)
{
	return pair->type == JSON_ARRAY && pair->count == 2 &&
	       pair->children[0].type == JSON_NUMBER && pair->children[1].type == JSON_NUMBER;
}

/* Whether v (signed or not) lies in one of range's [lo, hi] pairs. */
static bool in_ranges(const struct json_value *range, bool is_signed, long long sv,
		      unsigned long long uv)
{
	for (unsigned int i = 0; i < range->count; i++) {
		const struct json_value *pair = &range->children[i];
		long long slo, shi;
		unsigned long long ulo, uhi;

		if (!is_pair(pair) ||
		    parse_int(pair->children[0].str, is_signed, &slo, &ulo) != 1 ||
		    parse_int(pair->children[1].str, is_signed, &shi, &uhi) != 1)
			continue;
		if (is_signed ? (sv >= slo && sv <= shi) : (uv >= ulo && uv <= uhi))
			return true;
	}
	return false;
}

/* Writes "a..b, c" for a range into buf. */
static const char *range_text(const struct json_value *range, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; range && i < range->count && at < len; i++) {
		const struct json_value *p = &range->children[i];

		if (!is_pair(p))
			continue;
		if (strcmp(p->children[0].str, p->children[1].str) == 0)
			at +=
			    snprintf(buf + at, len - at, "%s%s", i ? ", " : "", p->children[0].str);
		else
			at += snprintf(buf + at, len - at, "%s%s..%s", i ? ", " : "",
				       p->children[0].str, p->children[1].str);
	}
	return buf;
}

static int out_of_range(const struct json_value *range, const char *value, char *err, size_t errlen)
{
	char text[160];

	snprintf(err, errlen, "\"%s\" is out of range %s", value,
		 range_text(range, text, sizeof(text)));
	return -1;
}

static int check_int(const struct json_value *type, const char *base, const char *value, char *err,
		     size_t errlen)
{
	const struct json_value *range = xfab_json_get(type, "range");
	struct int_limits lim;
	unsigned long long uv = 0;
	long long sv = 0;
	bool is_signed;
	int read;

	int_base(base, &is_signed, &lim);
	read = parse_int(value, is_signed, &sv, &uv);
	if (read == 0) {
		snprintf(err, errlen, "\"%s\" is not %s integer (%s)", value,
			 is_signed ? "an" : "an unsigned", base);
		return -1;
	}
	if (read < 0 || (is_signed ? (sv < lim.smin || sv > lim.smax) : uv > lim.umax)) {
		snprintf(err, errlen, "\"%s\" is out of %s's range", value, base);
		return -1;
	}
	if (range && range->type == JSON_ARRAY && !in_ranges(range, is_signed, sv, uv))
		return out_of_range(range, value, err, errlen);
	return 0;
}

/* decimal64: digits with at most fraction_digits after the point, in range. */
static int check_decimal(const struct json_value *type, const char *value, char *err, size_t errlen)
{
	const struct json_value *fd = xfab_json_get(type, "fraction_digits");
	const struct json_value *range = xfab_json_get(type, "range");
	const char *dot = strchr(value, '.');
	const char *d = value + (*value == '-' || *value == '+');
	long digits = dot ? (long)strlen(dot + 1) : 0;
	char *end;
	double v;

	if (fd && fd->type != JSON_NUMBER)
		fd = NULL;
	errno = 0;
	v = strtod(value, &end);
	if (*d < '0' || *d > '9' || *end || errno || strpbrk(value, "eEnNxX") ||
	    (fd && digits > strtol(fd->str, NULL, 10))) {
		snprintf(err, errlen, "\"%s\" is not a decimal with at most %s fraction digits",
			 value, fd ? fd->str : "18");
		return -1;
	}
	for (unsigned int i = 0; range && i < range->count; i++) {
		const struct json_value *p = &range->children[i];

		if (is_pair(p) && v >= strtod(p->children[0].str, NULL) &&
		    v <= strtod(p->children[1].str, NULL))
			return 0;
	}
	return range && range->count ? out_of_range(range, value, err, errlen) : 0;
}

/* The number of characters (UTF-8 code points) YANG's length counts. */
static unsigned long long utf8_chars(const char *s)
{
	unsigned long long n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* A pattern (its ERE from the generator: XSD's, anchored) matched; 1 when
 * it does, 0 when not, -1 when the regex does not compile here. Compiled
 * per call: a cache is for when whole configs are checked. */
static int ere_match(const char *ere, const char *value)
{
	regex_t re;
	int rc;

	if (regcomp(&re, ere, REG_EXTENDED | REG_NOSUB))
		return -1;
	rc = regexec(&re, value, 0, NULL, 0) == 0;
	regfree(&re);
	return rc;
}

static int check_patterns(const struct json_value *type, const char *value, char *err,
			  size_t errlen)
{
	const struct json_value *eres = xfab_json_get(type, "ere");
	const struct json_value *pats = xfab_json_get(type, "pattern");

	/* YANG: a value matches each of its type's patterns */
	for (unsigned int i = 0; eres && pats && i < eres->count && i < pats->count; i++) {
		if (ere_match(str_at(eres, i), value) == 0) {
			snprintf(err, errlen, "\"%s\" does not match the pattern \"%s\"", value,
				 str_at(pats, i));
			return -1;
		}
	}
	return 0;
}

/* The ietf-inet-types (RFC 6991) SONiC names most, which its models do not
 * ship: addresses and prefixes, read by inet_pton; a v6 zone (%eth0) is
 * allowed where the type allows it. Other formats pass. */
static bool inet_address(const char *s, bool v4, bool v6)
{
	unsigned char buf[16];
	char addr[64];

	snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(s, "%"), s);
	return (v4 && inet_pton(AF_INET, addr, buf) == 1) ||
	       (v6 && inet_pton(AF_INET6, addr, buf) == 1);
}

static bool inet_prefix(const char *s, bool v4, bool v6)
{
	const char *slash = strchr(s, '/');
	char addr[64], *end;
	long len;

	if (!slash || slash - s >= (long)sizeof(addr) || strchr(s, '%'))
		return false;
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - s), s);
	errno = 0;
	len = strtol(slash + 1, &end, 10);
	if (slash[1] < '0' || slash[1] > '9' || *end || errno || len < 0)
		return false;
	if (inet_address(addr, v4, false))
		return len <= 32;
	return inet_address(addr, false, v6) && len <= 128;
}

static int check_format(const char *format, const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *format, *what;
		bool prefix, v4, v6;
	} formats[] = {
	    {"inet:ip-address", "an IP address", false, true, true},
	    {"inet:ipv4-address", "an IPv4 address", false, true, false},
	    {"inet:ipv6-address", "an IPv6 address", false, false, true},
	    {"inet:ip-prefix", "an IP prefix", true, true, true},
	    {"inet:ipv4-prefix", "an IPv4 prefix", true, true, false},
	    {"inet:ipv6-prefix", "an IPv6 prefix", true, false, true},
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		bool ok;

		if (strcmp(format, formats[i].format))
			continue;
		ok = formats[i].prefix ? inet_prefix(value, formats[i].v4, formats[i].v6)
				       : inet_address(value, formats[i].v4, formats[i].v6);
		if (ok)
			return 0;
		snprintf(err, errlen, "\"%s\" is not %s", value, formats[i].what);
		return -1;
	}
	return 0;
}

static int check_string(const struct json_value *type, const char *value, char *err, size_t errlen)
{
	const char *format = str_member(type, "format");
	const struct json_value *length = xfab_json_get(type, "length");
	const struct json_value *values = xfab_json_get(type, "values");
	char text[400];

	if (length && !in_ranges(length, false, 0, utf8_chars(value))) {
		snprintf(err, errlen, "\"%s\" has %llu characters, not %s", value,
			 utf8_chars(value), range_text(length, text, sizeof(text)));
		return -1;
	}
	/* a pattern that is words joined by "|" (PORT.fec "rs|fc|none|auto"),
	 * said as the words */
	if (values && !in_list(values, value)) {
		snprintf(err, errlen, "\"%s\" is not one of %s", value,
			 word_list(values, text, sizeof(text)));
		return -1;
	}
	if (check_patterns(type, value, err, errlen))
		return -1;
	return format ? check_format(format, value, err, errlen) : 0;
}

/* A union admits what one of its members admits; a refusal gives each
 * member's reason, without the value it repeats ("\"x\" is not one of
 * default; ...does not match ..."). */
static int check_union(const struct json_value *type, const char *value, char *err, size_t errlen)
{
	const struct json_value *types = xfab_json_get(type, "types");
	size_t at, skip = strlen(value) + 3; /* the reason's "\"VALUE\" " */

	at = (size_t)snprintf(err, errlen, "\"%s\" fits none of the union's types:", value);
	for (unsigned int i = 0; types && i < types->count; i++) {
		char why[400];

		if (xfab_sonic_check_value(&types->children[i], value, why, sizeof(why)) == 0)
			return 0;
		if (at < errlen)
			at += snprintf(err + at, errlen - at, "%s %s", i ? ";" : "",
				       strlen(why) > skip ? why + skip : why);
	}
	return -1;
}

int xfab_sonic_check_value(const struct json_value *type, const char *value, char *err,
			   size_t errlen)
{
	const char *base = type_name(type);
	struct int_limits lim;
	bool is_signed;
	char text[400];

	if (int_base(base, &is_signed, &lim))
		return check_int(type, base, value, err, errlen);
	if (strcmp(base, "decimal64") == 0)
		return check_decimal(type, value, err, errlen);
	if (strcmp(base, "boolean") == 0) {
		if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
			return 0;
		snprintf(err, errlen, "\"%s\" is not a boolean (true or false)", value);
		return -1;
	}
	if (strcmp(base, "enumeration") == 0) {
		const struct json_value *names = xfab_json_get(type, "enum");

		if (in_list(names, value))
			return 0;
		snprintf(err, errlen, "\"%s\" is not one of %s", value,
			 word_list(names, text, sizeof(text)));
		return -1;
	}
	if (strcmp(base, "union") == 0)
		return check_union(type, value, err, errlen);
	if (strcmp(base, "string") == 0)
		return check_string(type, value, err, errlen);
	/* leafref, identityref, bits, binary, empty, instance-identifier:
	 * names and references, checked (later) against what they name */
	return 0;
}

/* "a number", "an array" */
static const char *a_type(enum json_type t, char *buf, size_t len)
{
	const char *name = xfab_json_type_name(t);

	snprintf(buf, len, "%s %s", strchr("aeiou", name[0]) ? "an" : "a", name);
	return buf;
}

/* A leaf-list CONFIG_DB holds as one string ("100000,50000"): each item,
 * spaces around it dropped, as SONiC's YANG loader splits it. */
static int check_separated(const struct json_value *type, const char *value, char sep, char *err,
			   size_t errlen)
{
	char item[256], why[400];
	unsigned int n = 1;

	for (const char *at = value;; n++) {
		const char *end = strchr(at, sep);
		size_t len = end ? (size_t)(end - at) : strlen(at);

		while (len && (*at == ' ' || *at == '\t'))
			at++, len--;
		while (len && (at[len - 1] == ' ' || at[len - 1] == '\t'))
			len--;
		snprintf(item, sizeof(item), "%.*s", (int)len, at);
		if (xfab_sonic_check_value(type, item, why, sizeof(why))) {
			snprintf(err, errlen, "item %u of \"%s\": %s", n, value, why);
			return -1;
		}
		if (!end)
			return 0;
		at = end + 1;
	}
}

int xfab_sonic_check_key(const struct json_value *list, const char *key, char *err, size_t errlen)
{
	const struct json_value *keys = xfab_json_get(list, "keys");
	const struct json_value *types = xfab_json_get(list, "key_types");
	const char *at = key;
	char part[256], why[400];

	for (unsigned int i = 0; keys && i < keys->count; i++) {
		size_t len = strcspn(at, "|");

		snprintf(part, sizeof(part), "%.*s", (int)len, at);
		if (xfab_sonic_check_value(xfab_json_get(types, str_at(keys, i)), part, why,
					   sizeof(why))) {
			snprintf(err, errlen, "%s %s", str_at(keys, i), why);
			return -1;
		}
		at += len + (at[len] == '|');
	}
	return 0;
}

int xfab_sonic_check_json(const struct json_value *type, const struct json_value *value, char *err,
			  size_t errlen)
{
	const struct json_value *leaf_list = xfab_json_get(type, "leaf_list");
	const char *sep = str_member(type, "separator");
	char why[400];

	if (value->type == JSON_STRING && sep && sep[0])
		return check_separated(type, value->str, sep[0], err, errlen);
	if (value->type == JSON_STRING)
		return xfab_sonic_check_value(type, value->str, err, errlen);
	if (value->type != JSON_ARRAY || !leaf_list) {
		snprintf(err, errlen, "%s, where SONiC's values are strings%s",
			 a_type(value->type, why, sizeof(why)),
			 leaf_list ? " or lists of strings" : "");
		return -1;
	}
	for (unsigned int i = 0; i < value->count; i++) {
		const struct json_value *el = &value->children[i];

		if (el->type != JSON_STRING) {
			snprintf(err, errlen, "element %u is %s, not a string", i + 1,
				 a_type(el->type, why, sizeof(why)));
			return -1;
		}
		if (xfab_sonic_check_value(type, el->str, why, sizeof(why))) {
			snprintf(err, errlen, "element %u: %s", i + 1, why);
			return -1;
		}
	}
	return 0;
}
