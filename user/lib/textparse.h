/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Text to numbers and addresses, for the config and the tools' options
 * alike: one parser per kind. (The config's own number syntax, stricter,
 * is xfab_parse_u32_strict in config.h.) */
#ifndef XFAB_TEXTPARSE_H
#define XFAB_TEXTPARSE_H

#include <linux/types.h>

/* "02:00:0a:00:01:01": six pairs of hex digits and nothing else. 0 or -1. */
int xfab_parse_mac(const char *text, __u8 mac[6]);
/* A whole number in lo..hi, read in base (0: 0x.. and 0.. accepted), the
 * whole text. 0, or -1 with "<prog>: <opt> "<text>": must be lo..hi" on
 * stderr. */
int xfab_parse_opt_long(const char *prog, const char *opt, const char *text, int base, long lo,
			long hi, long *out);

#endif
