/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ingress ACLs (SONiC's ACL_TABLE / ACL_RULE, types L3 and L3V6; docs/ACL.md):
 * the part of the ABI the ACL stage (bpf/acl.h), its compiler
 * (user/lib/acl_compile.c) and its readers (xfabctl show acl, the metrics)
 * share. Included by xfab_abi.h; kept in a file of its own so the feature
 * is in one place.
 *
 * xfabd merges the rules of every table bound to a port, sorts them by
 * priority (highest first; a tie goes to the rule written first in the
 * config) and writes them as compact match records to the port's row of
 * acl_rules; the stage walks the row and the first record that matches
 * decides. A port without rules costs one array lookup (acl_ports).
 */
#ifndef XFAB_ACL_H
#define XFAB_ACL_H

#include <linux/types.h>

#define XFAB_ACL_MAX_RULES 64	  /* records a port's row holds (its tables' rules merged) */
#define XFAB_ACL_MAX_COUNTERS 256 /* rules in the config, each with its counter */
#define XFAB_ACL_MAX_TABLES 16	  /* ACL_TABLE entries */
#define XFAB_ACL_NAME_MAX 64	  /* a table's or a rule's name, NUL included */
#define XFAB_ACL_ROW(slot, i) ((__u32)(slot)*XFAB_ACL_MAX_RULES + (__u32)(i))

/* What a record matches on: a field is compared only when its bit is set. */
#define XFAB_ACL_F_SRC (1u << 0)       /* src & src_mask == src */
#define XFAB_ACL_F_DST (1u << 1)       /* dst & dst_mask == dst */
#define XFAB_ACL_F_PROTO (1u << 2)     /* IP protocol / final IPv6 next header */
#define XFAB_ACL_F_SPORT (1u << 3)     /* sport_lo <= TCP/UDP source port <= sport_hi */
#define XFAB_ACL_F_DPORT (1u << 4)     /* ... destination port */
#define XFAB_ACL_F_DSCP (1u << 5)      /* (tos >> 2) & dscp_mask == dscp */
#define XFAB_ACL_F_TCP_FLAGS (1u << 6) /* TCP only: flags & tcp_mask == tcp_flags */
#define XFAB_ACL_F_BTH (1u << 7)       /* RoCEv2 only: opcode & bth_mask == bth_opcode */
#define XFAB_ACL_F_AETH (1u << 8)      /* RoCEv2 with an AETH: syndrome & aeth_mask == aeth */

#define XFAB_ACL_FORWARD 0
#define XFAB_ACL_DROP 1

/* acl_ports: ARRAY, port slot -> how many records its row holds (0: no
 * ACL on the port, the stage ends at this lookup). Written by xfabd. */
struct xfab_acl_port {
	__u32 n_rules;
};
_Static_assert(sizeof(struct xfab_acl_port) == 4, "acl port");

/* acl_rules: ARRAY, XFAB_ACL_ROW(slot, i) -> the port's i-th record by
 * priority. Addresses and masks in network order (IPv4: word 0 only);
 * ports in host order. Written by xfabd. */
struct xfab_acl_rule {
	__u32 counter; /* index of the rule's acl_stats / acl_info entry */
	__u16 fields;  /* XFAB_ACL_F_* */
	__u8 action;   /* XFAB_ACL_FORWARD / XFAB_ACL_DROP */
	__u8 is_v6;    /* the table's family: an L3 table's records match IPv4 only */
	__be32 src[4];
	__be32 src_mask[4];
	__be32 dst[4];
	__be32 dst_mask[4];
	__u16 sport_lo, sport_hi;
	__u16 dport_lo, dport_hi;
	__u8 proto;
	__u8 dscp, dscp_mask;
	__u8 tcp_flags, tcp_mask;
	__u8 bth_opcode, bth_mask;
	__u8 aeth, aeth_mask;
	__u8 pad[3];
};
_Static_assert(sizeof(struct xfab_acl_rule) == 92, "acl rule");

/* acl_stats: PERCPU_ARRAY, counter -> packets and bytes the rule decided
 * (the frame's length as received). Written by the data plane. */
struct xfab_acl_stats {
	__u64 packets;
	__u64 bytes;
};
_Static_assert(sizeof(struct xfab_acl_stats) == 16, "acl stats");

/* acl_info: ARRAY, counter -> the rule's names, for xfabctl and the
 * metrics (they read maps only). used 0: no rule has the counter. */
struct xfab_acl_info {
	char table[XFAB_ACL_NAME_MAX];
	char rule[XFAB_ACL_NAME_MAX];
	__u32 priority;
	__u8 action;
	__u8 used;
	__u8 pad[2];
};
_Static_assert(sizeof(struct xfab_acl_info) == 136, "acl info");

#define XFAB_MAP_ACL_PORTS "acl_ports"
#define XFAB_MAP_ACL_RULES "acl_rules"
#define XFAB_MAP_ACL_STATS "acl_stats"
#define XFAB_MAP_ACL_INFO "acl_info"

#endif
