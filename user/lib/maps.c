// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "maps.h"

#include <stddef.h>

#define DESC(name, type, arr)                                                                      \
	{                                                                                          \
		name, sizeof(struct type), sizeof(((struct type *)0)->key),                        \
		    offsetof(struct type, val), sizeof(((struct type *)0)->val), arr               \
	}

#define TABLE_DESC(id, map, type, arr) [XFAB_T_##id] = DESC(map, type, arr),
const struct xfab_table_desc xfab_table_descs[XFAB_T_COUNT] = {XFAB_TABLES(TABLE_DESC)};
