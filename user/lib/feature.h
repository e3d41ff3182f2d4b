/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The feature registry: each feature (a config table or a group of tables
 * that stand or fall together) is described once, in user/lib/feature.c,
 * and every place that used to keep its own list iterates over it: the
 * config parser (known tables, parse order), the base-table compiler (its
 * build steps), the loader (which maps survive a restart), and, through
 * tables of their own keyed by the feature's name, xfabd's metrics writer
 * and xfabctl's show commands. docs/ARCHITECTURE.md ("The feature
 * registry") says how a feature registers.
 *
 * The library's layers stay one-directional: the descriptors name hooks of
 * the config parser (user/lib/config) and of the base-table compiler
 * (user/lib/build_*.c), never of the agent or the CLI.
 */
#ifndef XFAB_FEATURE_H
#define XFAB_FEATURE_H

#include <stddef.h>

struct ctx;
struct json_value;
struct xfab_config;
struct xfab_base_build;

enum xfab_feature_flags {
	/* the features routes resolve against (ports, the overlay's VNETs,
	 * interfaces): once the last of them is parsed, the L3 tables are
	 * parsed only if everything so far was clean */
	XFAB_FEAT_L3_BASE = 1u << 0,
	/* parsed only over a clean L3 base (see above) */
	XFAB_FEAT_NEEDS_L3 = 1u << 1,
};

struct xfab_feature {
	const char *name; /* a word: the docs', the metrics' and xfabctl's key */
	/* The config tables the feature reads, in the order they are parsed;
	 * NULL-terminated (may be empty: the feature has only defaults). */
	const char *const *tables;
	/* Sets the feature's defaults and reads its tables from the whole
	 * document (a table absent from root is the feature's to default or
	 * refuse). Called in registry order. */
	void (*parse)(struct ctx *c, const struct json_value *root);
	/* Adds the feature's entries to the base tables' image; NULL: none
	 * (its maps are written elsewhere, or by the data plane only). */
	int (*build)(struct xfab_base_build *b);
	/* The BPF maps the feature owns (XFAB_MAP_* names), NULL-terminated,
	 * or NULL: none. Every map of the object is owned by exactly one
	 * feature. */
	const char *const *maps;
	/* Those of its maps that are state, not config: counters and the data
	 * plane's own state, kept across a restart (user/agent/load.c); NULL:
	 * none. */
	const char *const *state_maps;
	unsigned int flags; /* enum xfab_feature_flags */
	/* The data plane's optional code the feature owns (enum xfab_code,
	 * include/xfab_abi.h; each bit has one owner), and the bits of it a
	 * config needs: xfabd loads the programs with those (load-time
	 * specialisation, bpf/spec.h). 0 and NULL: no code of its own. */
	unsigned int code;
	unsigned int (*code_for)(const struct xfab_config *cfg);
};

/* A NULL-terminated list of names, for .tables, .maps and .state_maps. */
#define XFAB_FEAT_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Every feature, in parse order. */
extern const struct xfab_feature *const xfab_features[];
extern const size_t xfab_n_features;

/* The feature named name; NULL if none. */
const struct xfab_feature *xfab_feature_find(const char *name);
/* The feature that owns map; NULL if none. */
const struct xfab_feature *xfab_feature_of_map(const char *map);
/* The feature that reads config table tbl; NULL: an unknown table. */
const struct xfab_feature *xfab_feature_of_table(const char *tbl);
/* 1 if map is a state map of its feature (kept across a restart). */
int xfab_feature_is_state_map(const char *map);
/* The optional code (enum xfab_code) cfg needs: every feature's code_for. */
unsigned int xfab_feature_code(const struct xfab_config *cfg);
/* Its bits as words ("flowlet,te"; "none"), in buf. */
const char *xfab_feature_code_names(unsigned int code, char *buf, size_t len);

#endif
