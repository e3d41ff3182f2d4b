/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A text file read whole (fabric.json, jobs, matrices, snapshots): one
 * reader, which takes pipes and /dev/stdin as well as files. */
#ifndef XFAB_TEXTFILE_H
#define XFAB_TEXTFILE_H

#include <stddef.h>

/* path's bytes, NUL-terminated, in a malloc'ed buffer; NULL with
 * "<path>: why" in err when it cannot be opened or read, is longer than
 * max_mib MiB, or holds a NUL byte (the parsers read C strings). */
char *xfab_read_text(const char *path, unsigned int max_mib, char *err, size_t errlen);

#endif
