// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: the entry point (the tool is described in te_tool.h). */
#include "te_tool.h"

int main(int argc, char **argv)
{
	static struct ctx ctx; /* one per process; large (the events) */
	struct ctx *c = &ctx;
	char err[600], *text;
	int ret;

	ret = te_parse_opts(argc, argv, c);
	if (ret >= 0)
		return ret;
	text = xfab_read_text(c->o.fabric, MAX_FILE_MIB, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "xfab-te: --fabric %s\n", err);
		return 1;
	}
	{
		char inner[512];

		c->f = xfab_te_fabric_parse(text, inner, sizeof(inner));
		free(text);
		if (!c->f) {
			fprintf(stderr, "xfab-te: %s:%s\n", c->o.fabric, inner);
			return 1;
		}
	}
	c->sw = calloc((size_t)c->f->n_switches, sizeof(*c->sw));
	if (!c->sw)
		return 1;
	for (int i = 0; i < c->f->n_switches; i++) {
		c->sw[i].fd = c->sw[i].ports_fd = -1;
		c->sw[i].ifindex = calloc((size_t)c->f->sw[i].n_ports + 1, sizeof(__u32));
		if (!c->sw[i].ifindex)
			return 1;
	}
	if (te_apply_down(c, err, sizeof(err))) {
		fprintf(stderr, "xfab-te: %s\n", err);
		return 2;
	}
	if (strcmp(c->o.cmd, "status") && strcmp(c->o.cmd, "clear") &&
	    te_load_demand(c, &c->dm, 0, err, sizeof(err))) {
		fprintf(stderr, "xfab-te: %s\n", err);
		return 1;
	}
	if (!strcmp(c->o.cmd, "plan"))
		ret = te_cmd_plan(c);
	else if (!strcmp(c->o.cmd, "apply"))
		ret = te_cmd_apply(c);
	else if (!strcmp(c->o.cmd, "status"))
		ret = te_cmd_status(c);
	else if (!strcmp(c->o.cmd, "clear"))
		ret = te_cmd_clear(c);
	else
		ret = te_cmd_run(c);
	for (int i = 0; i < c->f->n_switches; i++) {
		te_ctl_close(&c->sw[i]);
		te_dp_close(&c->sw[i]);
		free(c->sw[i].ifindex);
	}
	if (c->have_plan)
		xfab_te_plan_free(&c->plan);
	xfab_te_demands_free(&c->dm);
	free(c->flows);
	free(c->sw);
	xfab_te_fabric_free(c->f);
	return ret;
}
