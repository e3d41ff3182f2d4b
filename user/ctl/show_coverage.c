// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show config-coverage [-c FILE]: each table and field of the running
 * switch's config file (or FILE), used, mapped or ignored by xfab
 * (user/lib/config/coverage.c; docs/SONIC.md, "Export and coverage"), in
 * columns as SONiC's show commands print them; -j: JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "json.h"
#include "textfile.h"

struct cov_rows {
	struct xfab_cov_item *v;
	size_t n, cap;
	int failed;
};

static void cov_collect(void *arg, const struct xfab_cov_item *it)
{
	struct cov_rows *r = arg;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct xfab_cov_item *v = realloc(r->v, cap * sizeof(*v));

		if (!v) {
			r->failed = 1;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = *it;
}

static void cov_print_text(const struct cov_rows *r, const struct xfab_config *cfg)
{
	int wt = 5, wf = 5;

	for (size_t i = 0; i < r->n; i++) {
		int t = (int)strlen(r->v[i].table),
		    f = r->v[i].field ? (int)strlen(r->v[i].field) : 1;

		wt = t > wt ? t : wt;
		wf = f > wf ? f : wf;
	}
	printf("%-*s  %-*s  %7s  %-7s  %s\n", wt, "Table", wf, "Field", "Entries", "Status",
	       "Note");
	printf("%.*s  %.*s  -------  -------  ----\n", wt, "--------------------------------------",
	       wf, "--------------------------------------");
	for (size_t i = 0; i < r->n; i++) {
		const struct xfab_cov_item *it = &r->v[i];

		/* no trailing blanks: the note's column only when there is one */
		printf("%-*s  %-*s  %7u  %-*s%s\n", wt, it->table, wf, it->field ? it->field : "-",
		       it->entries, it->note ? 9 : 0, xfab_cov_status_name(it->status),
		       it->note ? it->note : "");
	}
	if (cfg->n_ignored)
		printf("\nignored:");
	for (int i = 0; i < cfg->n_ignored; i++)
		printf("%s %s", i ? "," : "", cfg->ignored[i]);
	if (cfg->n_ignored)
		printf("\n");
}

static void cov_json_item(const struct xfab_cov_item *it)
{
	ctl_jw_open(NULL, '{');
	ctl_jw_string(it->field ? "field" : "table", it->field ? it->field : it->table);
	ctl_jw_uint("entries", it->entries);
	ctl_jw_string("status", xfab_cov_status_name(it->status));
	if (it->note)
		ctl_jw_string("note", it->note);
}

/* {"file", "format", "tables": [{table, entries, status, fields: [...]}],
 * "ignored": [...]} */
static void cov_print_json(const struct cov_rows *r, const struct xfab_config *cfg,
			   const char *path)
{
	ctl_jw_open(NULL, '{');
	ctl_jw_string("file", path);
	ctl_jw_string("format", cfg->sonic ? "sonic" : "xfab");
	ctl_jw_open("tables", '[');
	for (size_t i = 0; i < r->n; i++) {
		cov_json_item(&r->v[i]);
		ctl_jw_open("fields", '[');
		for (; i + 1 < r->n && r->v[i + 1].field; i++) {
			cov_json_item(&r->v[i + 1]);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
	ctl_jw_open("ignored", '[');
	for (int i = 0; i < cfg->n_ignored; i++)
		ctl_jw_string(NULL, cfg->ignored[i]);
	ctl_jw_close(']');
	ctl_jw_close('}');
}

static int show_coverage(const struct ctl_opts *o)
{
	struct cov_rows rows = {0};
	struct xfab_config cfg;
	struct json_value *root = NULL;
	struct json_pos pos;
	char path[4096], err[256], *text;
	int ret = ctl_config_read(o, "show config-coverage", &cfg, path, sizeof(path));

	if (ret)
		return ret;
	/* the text parsed again for its spellings (cfg keeps the meaning) */
	text = xfab_read_text(path, 1024, err, sizeof(err));
	if (text)
		root = xfab_json_parse(text, err, sizeof(err), &pos);
	if (root)
		xfab_config_coverage(&cfg, root, cov_collect, &rows);
	if (!root || rows.failed) {
		fprintf(stderr, "xfabctl show config-coverage: %s: %s\n", path,
			root ? "out of memory" : err);
		ret = 1;
	} else if (ctl_json) {
		cov_print_json(&rows, &cfg, path);
	} else {
		cov_print_text(&rows, &cfg);
	}
	free(rows.v);
	xfab_json_free(root);
	free(text);
	xfab_config_free(&cfg);
	return ret;
}

static const struct xfab_opt show_coverage_opts[] = {
    XFAB_OPT_STR("config", 'c', ctl_given.config, "FILE",
		 "FILE's coverage, not the switch's running config's"),
    XFAB_OPT_STR("sonic-catalogue", 0, ctl_given.catalogue, "FILE",
		 "SONiC's catalogue, to read a SONiC FILE"),
    XFAB_OPT_END,
};

CTL_SHOW(show_coverage_obj, "device", 220, "config-coverage", .verb = show_coverage,
	 .opts = show_coverage_opts, .args = "[-c|--config FILE] [--sonic-catalogue FILE]",
	 .config_file = 1,
	 .help = "each table and field of the config file: used, mapped onto xfab's mechanism, "
		 "or ignored (SONiC's, not implemented)")
