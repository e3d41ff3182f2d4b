// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_packets' load-balancing setup, harness side: the runtime TE pins
 * of the model's switch (model_te_runtime_pin) installed as xfabd installs
 * one for `xfabctl te add` (user/agent/requests.c ctl_te_add: the entry
 * checked by the TE_PATH rules, xfab_config_parse_te_entry; a RIB entry of
 * its own source, XFAB_RIB_SRC_TE_PIN, in the port's TE table; the routes
 * compiled). A config reload keeps runtime pins, so a switch's entry first
 * removes the last switch's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fz_lb.h"
#include "model.h"

#define FZ_LB_MAX_PINS 16

static struct xfab_rib_key fz_lb_pins[FZ_LB_MAX_PINS];
static int fz_lb_n_pins;

/* One pin as `xfabctl te add IN PREFIX VIA` has xfabd write it. */
static int fz_lb_pin(struct harness *h, const char *in, const char *prefix, const char *via)
{
	struct xfab_rib_member mem[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_cfg_errors errs;
	struct xfab_cfg_te te;
	struct xfab_rib_key *key = &fz_lb_pins[fz_lb_n_pins];
	int n, err;

	if (fz_lb_n_pins >= FZ_LB_MAX_PINS)
		return -ENOSPC;
	memset(&errs, 0, sizeof(errs));
	if (xfab_config_parse_te_entry(&h->cfg, in, prefix, via, &te, &errs)) {
		fprintf(stderr, "fuzz_packets: pin %s|%s via %s refused: %s\n", in, prefix, via,
			errs.count ? errs.e[0].msg : "?");
		return -EINVAL;
	}
	n = xfab_rib_members_of(&te.path, mem);
	xfab_rib_key_of(key, XFAB_RIB_TABLE_TE | (__u32)te.in_port, &te.path.pfx);
	err = n < 0 ? n : xfab_rib_add(h->rib, key, XFAB_RIB_SRC_TE_PIN, XFAB_RIB_PATH, 0, mem, n);
	xfab_cfg_te_free(&te);
	if (!err)
		fz_lb_n_pins++;
	return err;
}

int fz_lb_enter(struct harness *h, const struct model *m)
{
	const char *in, *prefix, *via;
	int err = 0;

	for (int i = 0; i < fz_lb_n_pins; i++)
		xfab_rib_del(h->rib, &fz_lb_pins[i], XFAB_RIB_SRC_TE_PIN);
	fz_lb_n_pins = 0;
	for (int i = 0; !err && !model_te_runtime_pin(m, i, &in, &prefix, &via); i++)
		err = fz_lb_pin(h, in, prefix, via);
	if (!err)
		err = xfab_compile_routes(h->compile);
	if (err)
		fprintf(stderr, "fuzz_packets: the TE pins of switch %s: %s\n",
			model_variant_name(model_variant_of(m)), strerror(-err));
	return err ? -1 : 0;
}
