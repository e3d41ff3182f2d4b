/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The ABI version recorded in a switch's pinned maps (XFAB_ABI_VERSION). */
#ifndef XFAB_ABI_CHECK_H
#define XFAB_ABI_CHECK_H

#include <stddef.h>

/* Records this build's ABI version in the `abi` map (fd). 0 or -errno. */
int xfab_abi_write(int abi_fd);

/*
 * Checks that the maps pinned in pin_dir carry this build's ABI version.
 * 0: they do. -ENOENT: nothing pinned there (no `abi` and no `ports` map).
 * -EPROTO: another version, or pins from before versions were recorded; msg
 * then says which, for a user, e.g. "pinned maps in DIR are ABI v1, this
 * xfabctl is v2: restart xfabd". `who` names the program in msg.
 */
int xfab_abi_check(const char *pin_dir, const char *who, char *msg, size_t msg_len);

#endif
