/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For the config suites: a good config text accepted, and a bad one refused
 * whole (the config untouched) with its first error at the place the case
 * names.
 * Included after <cmocka.h> (its asserts) and config.h.
 */
#ifndef XFAB_TEST_CFGBAD_H
#define XFAB_TEST_CFGBAD_H

#include <string.h>

struct bad_case {
	const char *name;
	const char *text;
	const char *needle; /* the error points at this */
	const char *key;
	const char *msg;
};

/* text accepted into cfg (a refusal fails the test, its first error said). */
static inline void cfgbad_parse_ok(const char *text, struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;

	if (xfab_config_parse("good.json", text, cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
}

/* The line and column (from 1) of needle's first occurrence in text. */
static inline void cfgbad_locate(const char *text, const char *needle, int *line, int *col)
{
	const char *at = strstr(text, needle);

	assert_non_null(at);
	*line = 1;
	*col = 1;
	for (const char *p = text; p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* c's text refused, read as src says (NULL: told by its tables), nothing
 * of the config written, the first error at c's needle with its key and
 * (part of) its message. */
static inline void cfgbad_check_as(const struct bad_case *c, const struct xfab_cfg_source *src)
{
	struct xfab_config cfg, sentinel;
	struct xfab_cfg_errors errs;
	char line_text[1024];
	int line, col;

	memset(&cfg, 0xa5, sizeof(cfg));
	sentinel = cfg;
	if (xfab_config_parse_as("bad.json", c->text, src, &cfg, &errs) != -1)
		fail_msg("%s: accepted", c->name);
	assert_memory_equal(&cfg, &sentinel, sizeof(cfg));
	cfgbad_locate(c->text, c->needle, &line, &col);
	xfab_cfg_error_format(&errs.e[0], line_text, sizeof(line_text));
	print_message("    %s: %s\n", c->name, line_text);
	if (errs.e[0].line != line || errs.e[0].col != col || strcmp(errs.e[0].key, c->key) ||
	    !strstr(errs.e[0].msg, c->msg))
		fail_msg("%s: got %s, expected %d:%d %s ... %s", c->name, line_text, line, col,
			 c->key, c->msg);
}

static inline void cfgbad_check(const struct bad_case *c)
{
	cfgbad_check_as(c, NULL);
}

#endif
