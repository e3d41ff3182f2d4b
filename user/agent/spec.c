// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Load-time specialisation (bpf/spec.h): the programs carry the optional
 * code their config needs and no more, so a feature that is not configured
 * costs the packets nothing (the verifier deletes its code).
 *
 * agent_load_bpf loads the first programs so. A reload whose config needs
 * other code loads the programs again over the same maps (every map
 * reused: tables, counters and state stay as they are) and re-points each
 * port's link to them in one step (bpf_link_update, ports.c): a packet runs
 * the old program or the new one, never neither.
 *
 * The order keeps every packet right. A program with a bit on reads the
 * feature's tables and does what they say, nothing when they are empty;
 * one without it must never meet tables that need it. So before a reload
 * writes its tables the programs gain the code the new config adds (they
 * carry the union of both), and only once the tables are written do they
 * lose the code it dropped.
 *
 * The egress guard (xfab_xdp_egress) and PFC's tracepoint programs carry
 * no optional code: they stay the ones loaded with the maps.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "feature.h"
#include "xfab.skel.h"

/* The programs again, with code, over the running maps: a new skeleton
 * whose every map but .rodata (which holds the code) is the running one. */
static struct xfab *load_over_maps(const struct agent *a, unsigned int code)
{
	struct xfab *n = xfab__open();
	struct bpf_map *map;
	int err = 0;

	if (!n)
		return NULL;
	bpf_program__set_autoload(n->progs.xfab_xdp_bench, a->bench_stop != 0);
	*n->rodata = *a->skel->rodata; /* the bench build's settings too */
	n->rodata->xfab_code = code;
	bpf_object__for_each_map(map, n->obj)
	{
		const struct bpf_map *old;

		if (bpf_map__is_internal(map))
			continue;
		old = bpf_object__find_map_by_name(a->skel->obj, bpf_map__name(map));
		err = old ? bpf_map__reuse_fd(map, bpf_map__fd(old)) : -ENOENT;
		if (err)
			break;
	}
	if (!err)
		err = xfab__load(n);
	if (err) {
		xfab__destroy(n);
		errno = -err;
		return NULL;
	}
	return n;
}

int agent_code_switch(struct agent *a, unsigned int code)
{
	char was[160], now[160];
	struct xfab *n, *prev;
	int err;

	if (code == a->code)
		return 0;
	xfab_feature_code_names(a->code, was, sizeof(was));
	xfab_feature_code_names(code, now, sizeof(now));
	n = load_over_maps(a, code);
	if (!n) {
		err = -errno;
		log_err("cannot load the programs with code %s: %s", now, strerror(-err));
		return err;
	}
	err = agent_ports_repoint(a, n);
	if (err) {
		log_err("cannot switch the ports to the programs with code %s: %s", now,
			strerror(-err));
		xfab__destroy(n);
		return err;
	}
	prev = a->spec;
	a->spec = n;
	a->code = code;
	xfab__destroy(prev); /* its programs go with their last link */
	/* a reader (xfabctl trace) finds the running programs */
	if (agent_publish_progs(a))
		log_warn("the pinned programs are the ones before (code %s)", was);
	log_info("data plane code was %s", was);
	agent_code_log(a, n);
	return 0;
}

int agent_code_reload_begin(struct agent *a, const struct xfab_config *next)
{
	unsigned int want = agent_code_for(a, next);

	if (!(want & ~a->code))
		return 0;
	return agent_code_switch(a, a->code | want);
}

void agent_code_reload_end(struct agent *a)
{
	if (agent_code_switch(a, agent_code_for(a, &a->cfg)))
		log_warn("the programs keep code this config does not need: they are right, "
			 "only not as lean (the next reload tries again)");
}
