/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* fuzz_packets' load-balancing setup, harness side (fz_lb.c). */
#ifndef XFAB_FUZZ_FZ_LB_H
#define XFAB_FUZZ_FZ_LB_H

#include "harness.h"

struct model;

/* After a switch's config is loaded: its runtime TE pins in place of the
 * last switch's, as xfabd writes them. 0 or -1 (said why). */
int fz_lb_enter(struct harness *h, const struct model *m);

#endif
