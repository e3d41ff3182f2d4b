/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For the suites that read SONiC files: the source that names the tree's
 * catalogue (config/sonic/catalogue.json), a text accepted as a format
 * says, and the ignored list against the one expected.
 * Included after <cmocka.h>, config.h and srcdir.h.
 */
#ifndef XFAB_TEST_CFGSONIC_H
#define XFAB_TEST_CFGSONIC_H

#include <stdio.h>

static inline const struct xfab_cfg_source *cfgsonic_source(enum xfab_cfg_format format)
{
	static char catalogue[4096];
	static struct xfab_cfg_source src;

	snprintf(catalogue, sizeof(catalogue), "%s/config/sonic/catalogue.json", test_srcdir());
	src.format = format;
	src.catalogue = catalogue;
	return &src;
}

/* text accepted into cfg, read as format says (a refusal fails the test,
 * its first error said). */
static inline void cfgsonic_parse_ok(const char *text, enum xfab_cfg_format format,
				     struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;
	char line[1024];

	if (xfab_config_parse_as("good.json", text, cfgsonic_source(format), cfg, &errs)) {
		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
}

/* cfg's ignored list is names (NULL-terminated), in order. */
static inline void cfgsonic_ignored_are(const struct xfab_config *cfg, const char *const *names)
{
	int n = 0;

	for (; names[n]; n++) {
		assert_true(n < cfg->n_ignored);
		assert_string_equal(cfg->ignored[n], names[n]);
	}
	assert_int_equal(cfg->n_ignored, n);
}

#endif
