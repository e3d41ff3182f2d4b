// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* config export: the running switch's config (or -c FILE's) as SONiC's
 * CONFIG_DB JSON (docs/SONIC.md, "Export and coverage"), on stdout or into
 * -o FILE, written whole or not at all. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

/* Into FILE.tmp, then renamed over FILE: a reader never sees half. */
static int ctl_export_to(const struct xfab_config *cfg, const char *file)
{
	char tmp[4096];
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "xfabctl config export: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	err = xfab_config_export(cfg, f) ? errno : 0;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, file))
		err = errno;
	if (err) {
		fprintf(stderr, "xfabctl config export: %s: %s\n", file, strerror(err));
		unlink(tmp);
		return 1;
	}
	return 0;
}

int ctl_config_export(const struct ctl_opts *o)
{
	struct xfab_config cfg;
	char path[4096];
	int ret;

	if (o->format && strcmp(o->format, "sonic")) {
		fprintf(stderr, "xfabctl config export: --format %s: sonic is the one format\n",
			o->format);
		return 2;
	}
	ret = ctl_config_read(o, "config export", &cfg, path, sizeof(path));
	if (ret)
		return ret;
	if (o->output)
		ret = ctl_export_to(&cfg, o->output);
	else if (xfab_config_export(&cfg, stdout)) {
		fprintf(stderr, "xfabctl config export: %s\n", strerror(errno));
		ret = 1;
	}
	xfab_config_free(&cfg);
	return ret;
}
