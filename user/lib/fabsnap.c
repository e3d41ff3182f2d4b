// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fabric's counters at one moment: differences, and the snapshot file
 * (fabsnap.h). */
#include "fabsnap.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "textfile.h"
#include "jsonw.h"
#include "names.h"

#define SNAP_VERSION 1

/* Every counter of a port: its name in the file and where it is. */
static const struct {
	const char *name;
	size_t off;
	unsigned int n; /* 1, or one per traffic class / priority */
} port_fields[] = {
#define ONE(f)                                                                                     \
	{                                                                                          \
#f, offsetof(struct xfab_fab_port_ctr, f), 1                                       \
	}
#define PER_TC(f)                                                                                  \
	{                                                                                          \
#f, offsetof(struct xfab_fab_port_ctr, f), XFAB_FAB_NUM_TC                         \
	}
    ONE(rx_packets), ONE(rx_bytes),	ONE(tx_packets),   ONE(tx_bytes),      ONE(drops),
    ONE(punts),	     PER_TC(q_packets), PER_TC(q_bytes),   PER_TC(ecn_marked), PER_TC(q_dropped),
    PER_TC(pfc_rx),  PER_TC(pfc_tx),	PER_TC(paused_ns), PER_TC(pauses),
#undef ONE
#undef PER_TC
};
#define N_PORT_FIELDS (sizeof(port_fields) / sizeof(port_fields[0]))
_Static_assert(sizeof(struct xfab_fab_port_ctr) == (6 + 8 * XFAB_FAB_NUM_TC) * sizeof(uint64_t),
	       "every port counter is in port_fields");
_Static_assert(XFAB_DROP_MAX <= XFAB_FAB_MAX_REASONS, "drop reasons fit");

static uint64_t *port_field(struct xfab_fab_port_ctr *c, size_t i)
{
	return (uint64_t *)((char *)c + port_fields[i].off);
}

int xfab_fab_snap_init(struct xfab_fab_snap *s, const struct xfab_fabric *f)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->fabric, sizeof(s->fabric), "%s", f->name);
	s->n_switches = f->n_switches;
	s->sw = calloc(f->n_switches ? f->n_switches : 1, sizeof(*s->sw));
	return s->sw ? 0 : -1;
}

void xfab_fab_snap_free(struct xfab_fab_snap *s)
{
	free(s->sw);
	memset(s, 0, sizeof(*s));
}

static void sub(uint64_t *cur, uint64_t base, unsigned int *resets, char *note, size_t notelen,
		const char *sw, const char *port, const char *field, unsigned int idx,
		unsigned int n)
{
	if (*cur >= base) {
		*cur -= base;
		return;
	}
	/* reset since the snapshot: all of the new count is new */
	if (!(*resets)++) {
		char what[48];

		if (n > 1)
			snprintf(what, sizeof(what), "%s[%u]", field, idx);
		else
			snprintf(what, sizeof(what), "%s", field);
		snprintf(note, notelen, "%s%s%s %s %llu < %llu", sw, port ? " " : "",
			 port ? port : "", what, (unsigned long long)*cur,
			 (unsigned long long)base);
	}
}

unsigned int xfab_fab_snap_delta(struct xfab_fab_snap *cur, const struct xfab_fab_snap *base,
				 const struct xfab_fabric *f, char *note, size_t notelen)
{
	unsigned int resets = 0;

	if (notelen)
		note[0] = '\0';
	for (unsigned int s = 0; s < f->n_switches; s++) {
		const struct xfab_fab_switch *sw = &f->switches[s];
		struct xfab_fab_sw_ctr *c = &cur->sw[s];
		struct xfab_fab_sw_ctr *b = &base->sw[s];

		for (unsigned int p = 0; p < sw->n_ports; p++)
			for (size_t i = 0; i < N_PORT_FIELDS; i++)
				for (unsigned int k = 0; k < port_fields[i].n; k++)
					sub(port_field(&c->ports[p], i) + k,
					    port_field(&b->ports[p], i)[k], &resets, note, notelen,
					    sw->name, sw->ports[p].name, port_fields[i].name, k,
					    port_fields[i].n);
		for (unsigned int r = 0; r < XFAB_DROP_MAX; r++) {
			sub(&c->drop_packets[r], b->drop_packets[r], &resets, note, notelen,
			    sw->name, NULL, xfab_drop_name(r), 0, 1);
			sub(&c->drop_bytes[r], b->drop_bytes[r], &resets, note, notelen, sw->name,
			    NULL, xfab_drop_name(r), 0, 1);
		}
	}
	return resets;
}

int xfab_fab_snap_save(const struct xfab_fab_snap *s, const struct xfab_fabric *f, FILE *out)
{
	fprintf(out, "{\"xfab_fabric_snapshot\": %d, \"fabric\": ", SNAP_VERSION);
	xfab_jw_quote(out, f->name);
	fprintf(out, ", \"time\": %.6f,\n \"switches\": {", s->time);
	for (unsigned int sw = 0; sw < f->n_switches; sw++) {
		const struct xfab_fab_sw_ctr *c = &s->sw[sw];
		int first = 1;

		fprintf(out, "%s\n  ", sw ? "," : "");
		xfab_jw_quote(out, f->switches[sw].name);
		fprintf(out, ": {\"ports\": {");
		for (unsigned int p = 0; p < f->switches[sw].n_ports; p++) {
			struct xfab_fab_port_ctr pc = c->ports[p];

			fprintf(out, "%s\n   ", p ? "," : "");
			xfab_jw_quote(out, f->switches[sw].ports[p].name);
			fprintf(out, ": {");
			for (size_t i = 0; i < N_PORT_FIELDS; i++) {
				const uint64_t *v = port_field(&pc, i);

				fprintf(out, "%s\"%s\": ", i ? ", " : "", port_fields[i].name);
				if (port_fields[i].n == 1) {
					fprintf(out, "%llu", (unsigned long long)v[0]);
					continue;
				}
				for (unsigned int k = 0; k < port_fields[i].n; k++)
					fprintf(out, "%s%llu", k ? ", " : "[",
						(unsigned long long)v[k]);
				fputc(']', out);
			}
			fputc('}', out);
		}
		fprintf(out, "},\n   \"drops\": {");
		for (unsigned int r = 1; r < XFAB_DROP_MAX; r++) {
			fprintf(out, "%s", first ? "" : ", ");
			first = 0;
			xfab_jw_quote(out, xfab_drop_name(r));
			fprintf(out, ": [%llu, %llu]", (unsigned long long)c->drop_packets[r],
				(unsigned long long)c->drop_bytes[r]);
		}
		fprintf(out, "}}");
	}
	fprintf(out, "\n }\n}\n");
	return ferror(out) ? -1 : 0;
}

/* ---- reading one back ---- */

static int snap_u64(const struct json_value *v, const char *where, uint64_t *out, char *err,
		    size_t errlen)
{
	unsigned long long x;
	char *end;

	if (v->type != JSON_NUMBER)
		return xfab_json_errf(err, errlen, v->pos, where, "a number is needed, not %s",
				      xfab_json_type_name(v->type));
	errno = 0;
	x = strtoull(v->str, &end, 10);
	if (errno || *end || v->str[0] == '-')
		return xfab_json_errf(err, errlen, v->pos, where, "%s is not a counter", v->str);
	*out = x;
	return 0;
}

static int load_port(const struct json_value *pv, const char *where, struct xfab_fab_port_ctr *c,
		     char *err, size_t errlen)
{
	char field[160];

	if (pv->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, pv->pos, where, "an object is needed");
	for (unsigned int m = 0; m < pv->count; m++) {
		const struct json_value *v = &pv->children[m];
		size_t i = 0;

		while (i < N_PORT_FIELDS && strcmp(port_fields[i].name, v->key))
			i++;
		snprintf(field, sizeof(field), "%s.%s", where, v->key);
		if (i == N_PORT_FIELDS)
			return xfab_json_errf(err, errlen, v->key_pos, field, "not a port counter");
		if (port_fields[i].n == 1) {
			if (snap_u64(v, field, port_field(c, i), err, errlen))
				return -1;
			continue;
		}
		if (v->type != JSON_ARRAY || v->count != port_fields[i].n)
			return xfab_json_errf(err, errlen, v->pos, field, "an array of %u counters",
					      port_fields[i].n);
		for (unsigned int k = 0; k < v->count; k++)
			if (snap_u64(&v->children[k], field, port_field(c, i) + k, err, errlen))
				return -1;
	}
	return 0;
}

static int load_switch(const struct json_value *sv, const struct xfab_fab_switch *sw,
		       struct xfab_fab_sw_ctr *c, char *err, size_t errlen)
{
	const struct json_value *ports = xfab_json_get(sv, "ports"),
				*drops = xfab_json_get(sv, "drops");
	char where[160];

	snprintf(where, sizeof(where), "switches.%s", sw->name);
	if (sv->type != JSON_OBJECT || !ports || ports->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, sv->pos, where,
				      "an object with \"ports\" is needed");
	for (unsigned int i = 0; i < ports->count; i++) {
		const struct json_value *pv = &ports->children[i];
		int p = xfab_fab_port_find(sw, pv->key);

		snprintf(where, sizeof(where), "switches.%s.ports.%s", sw->name, pv->key);
		if (p < 0)
			return xfab_json_errf(err, errlen, pv->key_pos, where,
					      "%s has no such port", sw->name);
		if (load_port(pv, where, &c->ports[p], err, errlen))
			return -1;
	}
	if (!drops)
		return 0;
	snprintf(where, sizeof(where), "switches.%s.drops", sw->name);
	if (drops->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, drops->pos, where, "an object is needed");
	for (unsigned int i = 0; i < drops->count; i++) {
		const struct json_value *d = &drops->children[i];
		unsigned int r = 1;

		while (r < XFAB_DROP_MAX && strcmp(xfab_drop_name(r), d->key))
			r++;
		snprintf(where, sizeof(where), "switches.%s.drops.%s", sw->name, d->key);
		if (r == XFAB_DROP_MAX)
			return xfab_json_errf(err, errlen, d->key_pos, where, "not a drop reason");
		if (d->type != JSON_ARRAY || d->count != 2)
			return xfab_json_errf(err, errlen, d->pos, where,
					      "[packets, bytes] is needed");
		if (snap_u64(&d->children[0], where, &c->drop_packets[r], err, errlen) ||
		    snap_u64(&d->children[1], where, &c->drop_bytes[r], err, errlen))
			return -1;
	}
	return 0;
}

static int load_doc(const struct json_value *doc, const struct xfab_fabric *f,
		    struct xfab_fab_snap *s, char *err, size_t errlen)
{
	const struct json_value *v, *switches;

	if (doc->type != JSON_OBJECT || !(v = xfab_json_get(doc, "xfab_fabric_snapshot")))
		return xfab_json_errf(err, errlen, doc->pos, "snapshot",
				      "not a fabric snapshot (xfabctl fabric report --save)");
	if (v->type != JSON_NUMBER || strcmp(v->str, "1"))
		return xfab_json_errf(err, errlen, v->pos, "xfab_fabric_snapshot",
				      "version %s; this xfabctl reads version %d",
				      v->type == JSON_NUMBER ? v->str : "?", SNAP_VERSION);
	v = xfab_json_get(doc, "fabric");
	if (!v || v->type != JSON_STRING || strcmp(v->str, f->name))
		return xfab_json_errf(err, errlen, v ? v->pos : doc->pos, "fabric",
				      "the snapshot is of fabric %s, this is %s",
				      v && v->type == JSON_STRING ? v->str : "?", f->name);
	v = xfab_json_get(doc, "time");
	if (!v || v->type != JSON_NUMBER)
		return xfab_json_errf(err, errlen, v ? v->pos : doc->pos, "time",
				      "a number is needed");
	s->time = strtod(v->str, NULL);
	switches = xfab_json_get(doc, "switches");
	if (!switches || switches->type != JSON_OBJECT)
		return xfab_json_errf(err, errlen, doc->pos, "switches", "an object is needed");
	for (unsigned int i = 0; i < switches->count; i++) {
		const struct json_value *sv = &switches->children[i];
		int sw = xfab_fab_switch_find(f, sv->key);
		char where[96];

		snprintf(where, sizeof(where), "switches.%s", sv->key);
		if (sw < 0)
			return xfab_json_errf(err, errlen, sv->key_pos, where,
					      "fabric %s has no such switch", f->name);
		if (load_switch(sv, &f->switches[sw], &s->sw[sw], err, errlen))
			return -1;
	}
	return 0;
}

int xfab_fab_snap_load(const char *path, const struct xfab_fabric *f, struct xfab_fab_snap *s,
		       char *err, size_t errlen)
{
	struct json_pos pos = {0, 0};
	struct json_value *doc;
	char inner[256], jerr[128], *text;
	int rc;

	if (xfab_fab_snap_init(s, f)) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	text = xfab_read_text(path, 64, err, errlen);
	if (!text) {
		xfab_fab_snap_free(s);
		return -1;
	}
	doc = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	free(text);
	if (!doc) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, pos.line, pos.col, jerr);
		xfab_fab_snap_free(s);
		return -1;
	}
	rc = load_doc(doc, f, s, inner, sizeof(inner));
	xfab_json_free(doc);
	if (rc) {
		snprintf(err, errlen, "%s:%s", path, inner);
		xfab_fab_snap_free(s);
	}
	return rc;
}
