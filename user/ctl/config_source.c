// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The config `config export` and `show config-coverage` read: the file -c
 * names, or the running switch's, as xfabd's config-info request tells it
 * (docs/CONTROL.md): its path, how xfabd read it (format, catalogue) and
 * the digest of the text it parsed. The file is read again here; a file
 * whose text is no longer that one is refused, so what is shown is what
 * runs. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlproto.h"
#include "json.h"

/* SONiC's catalogue: --sonic-catalogue, else the build's or the package's
 * beside xfabctl (as xfabd finds its own), else the installed default. */
static const char *ctl_catalogue(const struct ctl_opts *o)
{
	static const char *const rel[] = {"../config/sonic/catalogue.json",
					  "../share/xfab/sonic/catalogue.json"};
	static char path[4096];

	if (o->catalogue)
		return o->catalogue;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (xfab_beside_exe(path, sizeof(path), rel[i]) == path && !access(path, R_OK))
			return path;
	return NULL;
}

static int ctl_config_load(const char *what, const char *path, const struct xfab_cfg_source *src,
			   struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;
	char line[1024];

	if (!xfab_config_load_as(path, src, cfg, &errs))
		return 0;
	for (int i = 0; i < errs.count; i++) {
		xfab_cfg_error_format(&errs.e[i], line, sizeof(line));
		fprintf(stderr, "xfabctl %s: %s\n", what, line);
	}
	fprintf(stderr, "xfabctl %s: %s: %d error(s)\n", what, path, errs.total);
	return 1;
}

/* config-info's answer: path, format, catalogue and digest. */
static int ctl_config_info(const char *what, char *path, size_t path_len, char *catalogue,
			   size_t cat_len, int *sonic, unsigned long long *digest)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_CONFIG_INFO};
	char resp[XFAB_CTL_MAX_LINE + 1], err[128];
	const struct json_value *p, *d, *f, *c;
	struct json_value *root;
	struct json_pos pos;
	int ret = ctl_query(&r, what, resp, sizeof(resp)), bad;

	if (ret)
		return ret < 0 ? 1 : ret;
	root = xfab_json_parse(resp, err, sizeof(err), &pos);
	p = root ? xfab_json_get(root, "path") : NULL;
	d = root ? xfab_json_get(root, "digest") : NULL;
	f = root ? xfab_json_get(root, "format") : NULL;
	c = root ? xfab_json_get(root, "catalogue") : NULL;
	bad = !p || p->type != JSON_STRING || !d || d->type != JSON_STRING || !f ||
	      f->type != JSON_STRING || sscanf(d->str, "%llx", digest) != 1;
	if (bad) {
		fprintf(stderr, "xfabctl %s: xfabd's answer is not config-info's: %s", what, resp);
	} else {
		snprintf(path, path_len, "%s", p->str);
		*sonic = !strcmp(f->str, "sonic");
		snprintf(catalogue, cat_len, "%s", c && c->type == JSON_STRING ? c->str : "");
	}
	xfab_json_free(root);
	return bad;
}

int ctl_config_read(const struct ctl_opts *o, const char *what, struct xfab_config *cfg, char *path,
		    size_t path_len)
{
	struct xfab_cfg_source src = {XFAB_CFG_AUTO, ctl_catalogue(o)};
	char catalogue[4096];
	unsigned long long digest;
	int sonic, ret;

	if (o->config) {
		snprintf(path, path_len, "%s", o->config);
		return ctl_config_load(what, o->config, &src, cfg);
	}
	ret = ctl_config_info(what, path, path_len, catalogue, sizeof(catalogue), &sonic, &digest);
	if (ret)
		return ret;
	/* read as xfabd read it */
	src.format = sonic ? XFAB_CFG_SONIC : XFAB_CFG_XFAB;
	if (catalogue[0] && !o->catalogue)
		src.catalogue = catalogue;
	if (ctl_config_load(what, path, &src, cfg))
		return 1;
	if (cfg->digest != digest) {
		fprintf(stderr,
			"xfabctl %s: %s changed since xfabd loaded it: reload first, or export the "
			"file with -c\n",
			what, path);
		xfab_config_free(cfg);
		return 1;
	}
	return 0;
}
