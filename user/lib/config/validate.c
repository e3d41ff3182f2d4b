// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Validation helpers shared by every table: positioned errors, typed field
 * access, numbers, lists, addresses, prefixes and MACs; in a SONiC file, the
 * fields only SONiC defines. */
#include "internal.h"
#include "sonic_catalogue.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cfg_add_error(struct ctx *c, struct json_pos pos, const char *key, const char *fmt, ...)
{
	struct xfab_cfg_error *e;
	va_list ap;

	c->errs->total++; /* every error counts; the first few are kept */
	if (c->errs->count >= XFAB_CFG_MAX_ERRORS)
		return;
	e = &c->errs->e[c->errs->count++];
	snprintf(e->file, sizeof(e->file), "%s", c->file);
	e->line = pos.line;
	e->col = pos.col;
	snprintf(e->key, sizeof(e->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void xfab_cfg_error_format(const struct xfab_cfg_error *e, char *buf, size_t len)
{
	if (e->line == 0) /* the file as a whole: it cannot be opened or read */
		snprintf(buf, len, "%s: %s%s%s", e->file, e->key, e->key[0] ? ": " : "", e->msg);
	else if (e->key[0])
		snprintf(buf, len, "%s:%d:%d: %s: %s", e->file, e->line, e->col, e->key, e->msg);
	else
		snprintf(buf, len, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
}

/* ---- small parsers ---- */

/* Decimal only: digits, no sign, no leading zero, no trailing junk, no
 * overflow past max. The one number syntax of the whole config. */
enum cfg_dec cfg_decimal(const char *t, size_t len, __u64 max, __u64 *out)
{
	__u64 v = 0;

	if (len == 0)
		return CFG_DEC_EMPTY;
	if (t[0] == '+' || t[0] == '-')
		return CFG_DEC_SIGN;
	for (size_t i = 0; i < len; i++)
		if (t[i] < '0' || t[i] > '9')
			return CFG_DEC_JUNK;
	if (t[0] == '0' && len > 1)
		return CFG_DEC_LEADING_ZERO;
	for (size_t i = 0; i < len; i++) {
		__u64 d = (__u64)(t[i] - '0');

		if (d > max || v > (max - d) / 10)
			return CFG_DEC_RANGE;
		v = v * 10 + d;
	}
	*out = v;
	return CFG_DEC_OK;
}

const char *cfg_decimal_why(enum cfg_dec r)
{
	switch (r) {
	case CFG_DEC_EMPTY:
		return "is empty, not a number";
	case CFG_DEC_SIGN:
		return "is not a whole number: no sign allowed";
	case CFG_DEC_JUNK:
		return "is not a whole number (decimal digits only)";
	case CFG_DEC_LEADING_ZERO:
		return "is not a whole number: no leading zero";
	case CFG_DEC_RANGE:
		return "is out of range";
	default:
		return "is fine";
	}
}

int xfab_parse_u32_strict(const char *text, __u32 lo, __u32 hi, __u32 *out, char *why,
			  size_t whylen)
{
	enum cfg_dec r;
	__u64 v = 0;

	r = cfg_decimal(text, strlen(text), hi, &v);
	if (r == CFG_DEC_OK && v < lo)
		r = CFG_DEC_RANGE;
	if (r == CFG_DEC_RANGE) {
		snprintf(why, whylen, "%s is out of range %u..%u", text, lo, hi);
		return -1;
	}
	if (r != CFG_DEC_OK) {
		snprintf(why, whylen, "'%s' %s", text, cfg_decimal_why(r));
		return -1;
	}
	*out = (__u32)v;
	return 0;
}

int xfab_parse_prefix(const char *text, struct xfab_prefix *pfx, char *why, size_t whylen)
{
	char buf[64];
	const char *slash = strchr(text, '/');
	__u64 plen;
	size_t alen;
	int max;

	if (!slash) {
		snprintf(why, whylen, "'%s' is not a prefix (ADDRESS/LENGTH)", text);
		return -1;
	}
	alen = (size_t)(slash - text);
	if (alen == 0 || alen >= sizeof(buf)) {
		snprintf(why, whylen, "'%s' has no valid address", text);
		return -1;
	}
	memcpy(buf, text, alen);
	buf[alen] = '\0';
	memset(pfx, 0, sizeof(*pfx));
	if (inet_pton(AF_INET, buf, pfx->addr) == 1) {
		pfx->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, pfx->addr) == 1) {
		pfx->family = AF_INET6;
		max = 128;
	} else {
		snprintf(why, whylen, "'%s' is not an IPv4 or IPv6 address", buf);
		return -1;
	}
	if (slash[1] == '\0') {
		snprintf(why, whylen, "'%s' has no prefix length", text);
		return -1;
	}
	if (cfg_decimal(slash + 1, strlen(slash + 1), (__u64)max, &plen) != CFG_DEC_OK) {
		snprintf(why, whylen,
			 "prefix length in '%s' must be 0..%d (decimal, no leading zero)", text,
			 max);
		return -1;
	}
	pfx->plen = (int)plen;
	return 0;
}

int cfg_prefix_host_bits_set(const struct xfab_prefix *pfx)
{
	int bytes = pfx->family == AF_INET ? 4 : 16;

	for (int i = 0; i < bytes; i++) {
		int bit0 = i * 8;
		__u8 mask;

		if (bit0 + 8 <= pfx->plen)
			continue;
		mask = bit0 >= pfx->plen ? 0xff : (__u8)(0xff >> (pfx->plen - bit0));
		if (pfx->addr[i] & mask)
			return 1;
	}
	return 0;
}

int xfab_prefix_contains(const struct xfab_prefix *pfx, int family, const __u8 *addr)
{
	int full = pfx->plen / 8, rest = pfx->plen % 8;

	if (pfx->family != family)
		return 0;
	if (memcmp(pfx->addr, addr, (size_t)full) != 0)
		return 0;
	if (rest) {
		__u8 mask = (__u8)(0xff << (8 - rest));

		if ((pfx->addr[full] & mask) != (addr[full] & mask))
			return 0;
	}
	return 1;
}

__u32 xfab_default_hash_seed(const char *hostname)
{
	__u32 h = 2166136261u; /* FNV-1a: a stable seed per switch identity */

	for (const char *p = hostname; *p; p++) {
		h ^= (__u8)*p;
		h *= 16777619u;
	}
	return h;
}

int xfab_config_port_index(const struct xfab_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

int xfab_config_port_queued(const struct xfab_cfg_port *port)
{
	for (int tc = 0; tc < XFAB_NUM_TC; tc++)
		if (port->wred[tc] >= 0)
			return 1;
	return port->rate_mbps || port->buffer_bytes;
}

__u32 xfab_config_class_weight(const struct xfab_cfg_port *port, int tc)
{
	return port->weight[tc] ? port->weight[tc] : 1;
}

int xfab_config_port_weighted(const struct xfab_cfg_port *port)
{
	for (int tc = 1; tc < XFAB_NUM_TC; tc++)
		if (xfab_config_class_weight(port, tc) != xfab_config_class_weight(port, 0))
			return 1;
	return 0;
}

int xfab_config_has_lossless(const struct xfab_config *cfg)
{
	for (int p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].pfc.enabled)
			return 1;
	return 0;
}

/* ---- what an address may be ---- */

/* Why a is no unicast host address at all, or NULL. */
const char *cfg_addr_unusable(int family, const __u8 *a)
{
	static const __u8 zero[16], mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (family == AF_INET) {
		if (!memcmp(a, zero, 4))
			return "the unspecified address";
		if (a[0] == 0)
			return "in 0.0.0.0/8 (this network)";
		if (a[0] == 127)
			return "a loopback address";
		if ((a[0] & 0xf0) == 0xe0)
			return "a multicast address";
		if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255)
			return "the broadcast address";
		if ((a[0] & 0xf0) == 0xf0)
			return "reserved (240.0.0.0/4)";
		return NULL;
	}
	if (!memcmp(a, zero, 16))
		return "the unspecified address";
	if (!memcmp(a, zero, 15) && a[15] == 1)
		return "the loopback address";
	if (a[0] == 0xff)
		return "a multicast address";
	if (!memcmp(a, mapped, 12))
		return "an IPv4-mapped address";
	return NULL;
}

int cfg_addr_link_local6(int family, const __u8 *a)
{
	return family == AF_INET6 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* Whether host bits from..to-1 of a are all v (0 or 1). */
static int host_bits_all(const __u8 *a, int from, int to, int v)
{
	for (int b = from; b < to; b++)
		if (((a[b / 8] >> (7 - b % 8)) & 1) != v)
			return 0;
	return 1;
}

/* Why a, inside subnet pfx, is no host's address (the IPv4 network and
 * broadcast addresses of a /30 or wider; IPv6's subnet-router anycast
 * address of a /126 or wider), or NULL. /31 and /127 use both. */
const char *cfg_addr_subnet_edge(const struct xfab_prefix *pfx, const __u8 *a)
{
	int bits = pfx->family == AF_INET ? 32 : 128;

	if (pfx->plen >= bits - 1)
		return NULL;
	if (host_bits_all(a, pfx->plen, bits, 0))
		return pfx->family == AF_INET ? "the subnet's network address"
					      : "the subnet-router anycast address";
	if (pfx->family == AF_INET && host_bits_all(a, pfx->plen, bits, 1))
		return "the subnet's broadcast address";
	return NULL;
}

/* Parses a bare address; the family follows from the text. */
int cfg_parse_addr(const char *text, int *family, __u8 addr[16])
{
	memset(addr, 0, 16);
	*family = strchr(text, ':') ? AF_INET6 : AF_INET;
	return inet_pton(*family, text, addr) == 1 ? 0 : -1;
}

const char *cfg_addr_str(int family, const __u8 *a, char *buf, size_t len)
{
	if (!inet_ntop(family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- field access with type checks ---- */

/* Returns the string value of a field (SONiC keeps every value a string;
 * numbers and booleans are accepted where they make sense). */
const char *cfg_field_text(struct ctx *c, const struct json_value *f, const char *key, char *buf,
			   size_t len)
{
	switch (f->type) {
	case JSON_STRING:
	case JSON_NUMBER: /* numbers keep their source text */
		return f->str;
	case JSON_BOOL:
		snprintf(buf, len, "%s", f->boolean ? "true" : "false");
		return buf;
	default:
		cfg_add_error(c, f->pos, key, "expected a string, got %s",
			      xfab_json_type_name(f->type));
		return NULL;
	}
}

int cfg_parse_u32(struct ctx *c, const struct json_value *f, const char *key, __u32 lo, __u32 hi,
		  __u32 *out)
{
	char buf[16], why[160];
	const char *t = cfg_field_text(c, f, key, buf, sizeof(buf));

	if (!t)
		return -1;
	if (xfab_parse_u32_strict(t, lo, hi, out, why, sizeof(why))) {
		cfg_add_error(c, f->pos, key, "%s", why);
		return -1;
	}
	return 0;
}

/* Free text (descriptions, aliases): a string of printable characters that
 * fits where it is kept. */
int cfg_parse_text(struct ctx *c, const struct json_value *f, const char *key, char *out,
		   size_t len)
{
	if (f->type != JSON_STRING) {
		cfg_add_error(c, f->pos, key, "expected a string, got %s",
			      xfab_json_type_name(f->type));
		return -1;
	}
	if (strlen(f->str) >= len) {
		cfg_add_error(c, f->pos, key, "longer than %zu bytes", len - 1);
		return -1;
	}
	for (const char *p = f->str; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			cfg_add_error(c, f->pos, key, "control character in text");
			return -1;
		}
	}
	if (out)
		snprintf(out, len, "%s", f->str);
	return 0;
}

int cfg_parse_bool(struct ctx *c, const struct json_value *f, const char *key, int *out)
{
	char buf[8];
	const char *t = cfg_field_text(c, f, key, buf, sizeof(buf));

	if (!t)
		return -1;
	if (!strcmp(t, "true") || !strcmp(t, "yes") || !strcmp(t, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(t, "false") || !strcmp(t, "no") || !strcmp(t, "off")) {
		*out = 0;
		return 0;
	}
	cfg_add_error(c, f->pos, key, "'%s' is not true or false", t);
	return -1;
}

/* ---- a SONiC file's fields (sonic.c: its tables) ---- */

/* name ("SNMP", "PORT.fec") on the ignored list, once: a table's field is
 * named by every entry that carries it. */
void cfg_sonic_ignore(struct ctx *c, const char *name)
{
	struct xfab_config *cfg = c->cfg;
	char **grown, *copy;

	for (int i = 0; i < cfg->n_ignored; i++)
		if (!strcmp(cfg->ignored[i], name))
			return;
	grown = cfg_grow(cfg->ignored, cfg->n_ignored, sizeof(*cfg->ignored));
	copy = strdup(name);
	if (!grown || !copy) {
		free(copy);
		if (grown)
			cfg->ignored = grown;
		cfg_add_error(c, (struct json_pos){0, 0}, NULL, "out of memory");
		return;
	}
	cfg->ignored = grown;
	cfg->ignored[cfg->n_ignored++] = copy;
}

/* Field f of the entry key (TABLE|...) in SONiC's list: its value against
 * the field's type. 0, or -1 when SONiC's list has no such field (the
 * caller's refusal) or the value does not fit (refused here). */
int cfg_sonic_check_field(struct ctx *c, const struct json_value *list, const char *key,
			  const struct json_value *f)
{
	const struct json_value *type = list ? xfab_sonic_list_field(list, f->key) : NULL;
	char full[160], why[256];

	if (!type)
		return -1;
	if (xfab_sonic_check_json(type, f, why, sizeof(why))) {
		snprintf(full, sizeof(full), "%s.%s", key, f->key);
		cfg_add_error(c, f->pos, full, "%s (SONiC's type)", why);
	}
	return 0;
}

/* Field f of the entry key ("TABLE|entry"), not one of xfab's, checked
 * against SONiC's type and listed as ignored: 0, or -1 when the file is no
 * SONiC file or SONiC does not define the field either (the caller refuses
 * it). */
static int sonic_field(struct ctx *c, const char *key, const struct json_value *f)
{
	const char *bar = strchr(key, '|');
	const struct json_value *def, *list;
	char table[80], name[160];

	if (!c->sonic || !bar || (size_t)(bar - key) >= sizeof(table))
		return -1;
	snprintf(table, sizeof(table), "%.*s", (int)(bar - key), key);
	def = xfab_sonic_table(c->sonic, table);
	list = def ? xfab_sonic_list_for_key(def, bar + 1) : NULL;
	if (cfg_sonic_check_field(c, list, key, f))
		return -1;
	snprintf(name, sizeof(name), "%s.%s", table, f->key);
	cfg_sonic_ignore(c, name);
	return 0;
}

/* Checks that entry has only the allowed fields. */
int cfg_check_fields(struct ctx *c, const struct json_value *entry, const char *key,
		     const char *const *allowed)
{
	int bad = 0;

	if (entry->type != JSON_OBJECT) {
		cfg_add_error(c, entry->pos, key, "expected an object of fields, got %s",
			      xfab_json_type_name(entry->type));
		return -1;
	}
	for (size_t i = 0; i < entry->count; i++) {
		const char *name = entry->children[i].key;
		int ok = 0;

		for (const char *const *a = allowed; *a; a++)
			if (!strcmp(*a, name))
				ok = 1;
		/* in a SONiC file, a field SONiC defines is checked and ignored */
		if (!ok && sonic_field(c, key, &entry->children[i])) {
			char full[160];

			snprintf(full, sizeof(full), "%s.%s", key, name);
			cfg_add_error(c, entry->children[i].key_pos, full, "unknown field \"%s\"",
				      name);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

void cfg_field_key(char *out, size_t len, const char *key, const char *field)
{
	snprintf(out, len, "%s.%s", key, field);
}

void *cfg_grow(void *arr, int count, size_t elem)
{
	/* Doubles at powers of two; callers own the array. */
	if (count == 0 || (count & (count - 1)) == 0) {
		size_t cap = count ? (size_t)count * 2 : 8;

		return realloc(arr, cap * elem);
	}
	return arr;
}

/* Splits a comma list in place, each item trimmed of spaces; returns the
 * count, CFG_LIST_TOO_MANY or CFG_LIST_EMPTY_ITEM ("a,,b", "a,", ""). */
int cfg_split_list(char *s, char **items, int max)
{
	int n = 0;

	for (;;) {
		char *comma = strchr(s, ',');
		char *end;

		if (comma)
			*comma = '\0';
		while (isspace((unsigned char)*s))
			s++;
		end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*s == '\0')
			return CFG_LIST_EMPTY_ITEM;
		if (n == max)
			return CFG_LIST_TOO_MANY;
		items[n++] = s;
		if (!comma)
			return n;
		s = comma + 1;
	}
}

/* Parses a prefix key: valid, no host bits. */
int cfg_parse_key_prefix(struct ctx *c, const struct json_value *e, const char *key,
			 const char *text, struct xfab_prefix *pfx)
{
	char why[160];

	if (xfab_parse_prefix(text, pfx, why, sizeof(why))) {
		cfg_add_error(c, e->key_pos, key, "%s", why);
		return -1;
	}
	if (cfg_prefix_host_bits_set(pfx)) {
		cfg_add_error(c, e->key_pos, key, "host bits set past /%d", pfx->plen);
		return -1;
	}
	return 0;
}

void cfg_read_table(struct ctx *c, const struct json_value *root, const char *name,
		    void (*parse)(struct ctx *c, const struct json_value *tbl))
{
	const struct json_value *tbl = xfab_json_get(root, name);

	if (tbl)
		parse(c, tbl);
}
