// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `show`'s objects, as the show files register them (CTL_SHOW in ctl.h):
 * kept in rank order as they arrive, so the list and --help read the same
 * in every build. Two objects of one name or one rank, or an object of
 * no feature the registry (user/lib/feature.c) knows, are the program's
 * own bug: said and refused before any command runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "feature.h"

/* Room for every object and the end mark. */
#define CTL_SHOW_MAX 48

static const struct ctl_show *ctl_shows[CTL_SHOW_MAX];
static size_t ctl_n_shows;
struct ctl_cmd ctl_show_cmds[CTL_SHOW_MAX + 1];

static void ctl_show_bug(const char *what, const char *name)
{
	fprintf(stderr, "xfabctl: show %s: %s\n", name, what);
	exit(2);
}

void ctl_show_register(const struct ctl_show *show)
{
	size_t i;

	if (ctl_n_shows >= CTL_SHOW_MAX)
		ctl_show_bug("too many show objects (CTL_SHOW_MAX)", show->cmd.name);
	if (!xfab_feature_find(show->feature))
		ctl_show_bug("its feature is not in the registry", show->cmd.name);
	for (i = 0; i < ctl_n_shows; i++) {
		if (!strcmp(ctl_shows[i]->cmd.name, show->cmd.name))
			ctl_show_bug("registered twice", show->cmd.name);
		if (ctl_shows[i]->rank == show->rank)
			ctl_show_bug("its rank is another object's", show->cmd.name);
	}
	/* insertion: the ones ranked after it move up one */
	for (i = ctl_n_shows; i > 0 && ctl_shows[i - 1]->rank > show->rank; i--)
		ctl_shows[i] = ctl_shows[i - 1];
	ctl_shows[i] = show;
	ctl_n_shows++;
	/* the command table `show` walks: copies, in rank order, then the end */
	for (i = 0; i < ctl_n_shows; i++)
		ctl_show_cmds[i] = ctl_shows[i]->cmd;
	ctl_show_cmds[ctl_n_shows] = (struct ctl_cmd){NULL};
}
