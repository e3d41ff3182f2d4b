/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* SONiC's CONFIG_DB catalogue: every table and field SONiC's YANG models
 * define, with each field's type, as scripts/sonic-catalogue writes it
 * (config/sonic/catalogue.json). It answers whether a table or a field is
 * SONiC's and whether a value fits the field's type, so a SONiC
 * config_db.json can be told apart from a typo without xfab implementing
 * every table.
 *
 * A table holds one or more lists: a list's key leaves are the
 * "|"-separated parts of an entry's key (STATIC_ROUTE "default|10.0.0.0/8"
 * is STATIC_ROUTE_LIST, "10.0.0.0/8" STATIC_ROUTE_TEMPLATE_LIST), and a
 * container's name is a fixed key (DEVICE_METADATA|localhost). A list may be
 * a map whose field names are values of its inner key (DSCP_TO_TC_MAP|AZURE:
 * {"0": "1"}). Types are JSON objects of the catalogue (json.h), read-only. */
#ifndef XFAB_SONIC_CATALOGUE_H
#define XFAB_SONIC_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

struct xfab_sonic_catalogue;

/* Reads the catalogue at path; NULL with "<path>: why" (or the JSON error's
 * place) in err when it cannot be read or is not a catalogue. */
struct xfab_sonic_catalogue *xfab_sonic_load(const char *path, char *err, size_t errlen);
void xfab_sonic_free(struct xfab_sonic_catalogue *cat);

/* The source the catalogue was generated from: "repo", "commit",
 * "release", "licence"; NULL when absent. */
const char *xfab_sonic_source(const struct xfab_sonic_catalogue *cat, const char *what);
unsigned int xfab_sonic_table_count(const struct xfab_sonic_catalogue *cat);

/* The table's entry ({"keys", "fields", "lists", "module"}), NULL when
 * SONiC defines no such table. */
const struct json_value *xfab_sonic_table(const struct xfab_sonic_catalogue *cat,
					  const char *table);
static inline bool xfab_sonic_is_table(const struct xfab_sonic_catalogue *cat, const char *table)
{
	return xfab_sonic_table(cat, table) != NULL;
}

/* The list an entry's key belongs to: the container named key, else the
 * list with as many key leaves as key has "|"-separated parts. NULL when
 * none has. */
const struct json_value *xfab_sonic_list_for_key(const struct json_value *table, const char *key);

/* Checks each "|"-separated part of key against its key leaf's type in
 * list (from xfab_sonic_list_for_key). 0, or -1 with a message naming the
 * part ("prefix \"10.1.0.0/33\" is not an IP prefix") in err. */
int xfab_sonic_check_key(const struct json_value *list, const char *key, char *err, size_t errlen);

/* The type of field in a list (from xfab_sonic_list_for_key), a map's value
 * type for any name its key type admits; NULL when the list has no such
 * field. */
const struct json_value *xfab_sonic_list_field(const struct json_value *list, const char *field);

/* The type of field in any of table's lists (a field whose type differs
 * between lists is a union of them); NULL when no list has it. */
const struct json_value *xfab_sonic_field(const struct xfab_sonic_catalogue *cat, const char *table,
					  const char *field);

/* Checks a string against a type: integer ranges and base-type bounds,
 * decimal64, boolean, enumeration, string length and patterns (a pattern of
 * words said as the words; one ERE cannot express passes), IP addresses and
 * prefixes (ietf-inet-types), unions. References (leafref) are not
 * followed, must and when rules not evaluated: such values pass as strings.
 * 0, or -1 with a message ("\"fast\" is not one of rs, fc, none, auto") in
 * err. */
int xfab_sonic_check_value(const struct json_value *type, const char *value, char *err,
			   size_t errlen);

/* Checks a config_db.json value: a string, or for a leaf-list an array of
 * strings, or for the few leaf-lists SONiC keeps as one string (PORT's
 * adv_speeds "100000,50000") the string's items; each checked. 0, or -1
 * with a message in err. */
int xfab_sonic_check_json(const struct json_value *type, const struct json_value *value, char *err,
			  size_t errlen);

#endif
