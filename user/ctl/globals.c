// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the command line sets once and every command reads: the output mode
 * (-j), the switch's pin directory (-s/-P, or the only switch) and the
 * options given. They live here, below every command file, so that no file
 * calls back up into main.c or commands.c for them (scripts/layer-check).
 */
#include "ctl.h"

int ctl_json;
char ctl_pin_dir[512];
struct ctl_opts ctl_given = {.ttl = 64, .len = -1, .interval = 1};
