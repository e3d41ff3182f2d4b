/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The systemd service protocol, by hand (no libsystemd): readiness and
 * state to the service manager over $NOTIFY_SOCKET (sd_notify(3)), and
 * the sd-daemon(3) priority prefix journald reads off stderr lines. */
#ifndef XFAB_SDNOTIFY_H
#define XFAB_SDNOTIFY_H

#include <stddef.h>

/* Sends STATE ("READY=1", "RELOADING=1\nMONOTONIC_USEC=...", ...) as one
 * datagram to $NOTIFY_SOCKET (a path, or "@name" for the abstract
 * namespace). 1: no NOTIFY_SOCKET (not under a service manager: nothing
 * to do), 0: sent, -errno: the variable is malformed or the send failed. */
int xfab_sd_notify(const char *state);

/* "READY=1\nSTATUS=forwarding on N ports (DATAPATH datapath)" into buf:
 * what xfabd sends once its ports forward. 0, or -ENOSPC. */
int xfab_sd_ready_msg(char *buf, size_t len, int n_ports, const char *datapath);

/* "RELOADING=1\nMONOTONIC_USEC=<now>" into buf (systemd >= 253 wants the
 * clock with RELOADING=1). 0, or -ENOSPC. */
int xfab_sd_reloading_msg(char *buf, size_t len);

/* Whether stderr is connected to the journal: $JOURNAL_STREAM names
 * stderr's device and inode ("DEV:INO", systemd.exec(5)). */
int xfab_sd_journal_stderr(void);

/* The sd-daemon(3) priority of a log level name: "error" 3, "warn" 4,
 * "info" 6, "debug" 7; anything else 5 (notice). */
int xfab_sd_priority(const char *level);

#endif
