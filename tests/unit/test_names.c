// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drop and punt reason lists (xfab_abi.h) and what derives from them:
 * every reason has a name and a help text, names are unique, usable as a
 * Prometheus label value (and as a word in `show drops`), the lists are as
 * long as the enums, and the metrics exposition has one series per reason
 * (two reasons once printed as "unknown" and collided there). No root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"
#include "names.h"

struct list {
	const char *what;
	unsigned int max, count;
	const char *(*name)(__u32);
	const char *(*help)(__u32);
};

static const struct list lists[] = {
    {"drop", XFAB_DROP_MAX, 0, xfab_drop_name, xfab_drop_help},
    {"punt", XFAB_PUNT_MAX, 0, xfab_punt_name, xfab_punt_help},
};

/* A conservative label value: a lower-case word (also a valid metric name
 * suffix), so no escaping is ever needed. */
static int is_word(const char *s)
{
	if (!s[0] || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static void test_counts_match_enums(void **state)
{
	(void)state;
	assert_int_equal(xfab_drop_reason_count, XFAB_DROP_MAX);
	assert_int_equal(xfab_punt_reason_count, XFAB_PUNT_MAX);
	/* the enum starts at none = 0 and the map is indexed by it */
	assert_int_equal(XFAB_DROP_NONE, 0);
	assert_int_equal(XFAB_PUNT_NONE, 0);
}

static void test_names_valid_and_unique(void **state)
{
	(void)state;
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		const struct list *L = &lists[l];

		for (__u32 r = 0; r < L->max; r++) {
			const char *n = L->name(r), *h = L->help(r);

			if (!n || !is_word(n) || !strcmp(n, "unknown"))
				fail_msg("%s reason %u: bad name '%s'", L->what, r,
					 n ? n : "(null)");
			if (!h || strlen(h) < 4)
				fail_msg("%s reason %u (%s): no help text", L->what, r, n);
			for (__u32 o = 0; o < r; o++)
				if (!strcmp(n, L->name(o)))
					fail_msg("%s reasons %u and %u share the name '%s'",
						 L->what, o, r, n);
		}
		/* beyond the list: "unknown", never a crash */
		assert_string_equal(L->name(L->max), "unknown");
		assert_string_equal(L->name(0xffffffffu), "unknown");
		assert_non_null(L->help(L->max));
	}
}

/* Spot checks written out here, not taken from the list: the reasons that
 * once had no name, and the header checks of RFC 1812. */
static void test_known_names(void **state)
{
	(void)state;
	assert_string_equal(xfab_drop_name(XFAB_DROP_BUFFER_FULL), "buffer_full");
	assert_string_equal(xfab_drop_name(XFAB_DROP_WRED), "wred");
	assert_string_equal(xfab_drop_name(XFAB_DROP_NO_ROUTE), "no_route");
	assert_string_equal(xfab_drop_name(XFAB_DROP_IPV4_BAD_CHECKSUM), "ipv4_bad_checksum");
	assert_string_equal(xfab_drop_name(XFAB_DROP_IPV4_BAD_IHL), "ipv4_bad_ihl");
	assert_string_equal(xfab_drop_name(XFAB_DROP_IPV6_BAD_LENGTH), "ipv6_bad_length");
	assert_string_equal(xfab_punt_name(XFAB_PUNT_TTL_EXPIRED), "ttl_expired");
	assert_string_equal(xfab_punt_name(XFAB_PUNT_IPV6_HOP_BY_HOP), "ipv6_hop_by_hop");
	assert_string_equal(xfab_drop_name(XFAB_DROP_WRED), "wred");
	assert_string_equal(xfab_drop_name(XFAB_DROP_MAC_CONTROL_TRUNCATED),
			    "mac_control_truncated");
	assert_string_equal(xfab_drop_name(XFAB_DROP_PFC_WATCHDOG), "pfc_watchdog");
	assert_string_equal(xfab_drop_name(XFAB_DROP_VXLAN_CE_NOT_ECT), "vxlan_ce_not_ect");
	assert_string_equal(xfab_drop_name(XFAB_DROP_VNET_UNDERLAY_PUNT), "vnet_underlay_punt");
	assert_string_equal(xfab_drop_name(XFAB_DROP_MAX - 1), "acl_drop"); /* ACL */
	/* CoPP groups: names, SONiC trap ids, lookup by name */
	assert_string_equal(xfab_copp_group_name(XFAB_COPP_BGP), "bgp");
	assert_string_equal(xfab_copp_group_traps(XFAB_COPP_BGP), "bgp,bgpv6");
	assert_string_equal(xfab_copp_group_traps(XFAB_COPP_ARP), "arp_req");
	assert_string_equal(xfab_copp_group_traps(XFAB_COPP_ARP_RESP), "arp_resp");
	assert_string_equal(xfab_copp_group_name(XFAB_COPP_GROUPS - 1), "default");
	assert_string_equal(xfab_copp_group_name(XFAB_COPP_GROUPS), "unknown");
	assert_int_equal(xfab_copp_group_by_name("ttl_error"), XFAB_COPP_TTL_ERROR);
	assert_int_equal(xfab_copp_group_by_name("queue4_group1"), -1);
	assert_string_equal(xfab_punt_name(XFAB_PUNT_IPV6_HOP_BY_HOP), "ipv6_hop_by_hop");
	assert_string_equal(xfab_punt_name(XFAB_PUNT_MAX - 1), "vnet_too_big");
}

/* The load-balancing events (`show lb`, their metric series): each a
 * distinct word, spot-checked as written here. */
static void test_lb_event_names(void **state)
{
	(void)state;
	for (__u32 e = 0; e < XFAB_LB_MAX; e++) {
		const char *n = xfab_lb_name(e);

		if (!is_word(n) || !strcmp(n, "unknown"))
			fail_msg("lb event %u: bad name '%s'", e, n);
		for (__u32 o = 0; o < e; o++)
			if (!strcmp(n, xfab_lb_name(o)))
				fail_msg("lb events %u and %u share the name '%s'", o, e, n);
	}
	assert_string_equal(xfab_lb_name(XFAB_LB_MAX), "unknown");
	assert_string_equal(xfab_lb_name(XFAB_LB_FLOWLET_MOVED), "flowlet_path_changed");
	assert_string_equal(xfab_lb_name(XFAB_LB_TE_HIT), "te_steered");
	assert_string_equal(xfab_lb_name(XFAB_LB_TE_FALLBACK), "te_fallback");
}

/* Counts lines of `family{...reason="NAME"}` in text; fails on a repeat. */
static void check_series(const char *text, const char *family, const struct list *L)
{
	char pat[256];

	for (__u32 r = 1; r < L->max; r++) {
		const char *p = text;
		int seen = 0;

		snprintf(pat, sizeof(pat), "%s{switch=\"sw\",reason=\"%s\"} ", family, L->name(r));
		while ((p = strstr(p, pat))) {
			seen++;
			p++;
		}
		if (seen != 1)
			fail_msg("%s reason %s: %d series in the exposition", L->what, L->name(r),
				 seen);
	}
	/* and nothing else in the family: one line per reason but none */
	{
		const char *p = text;
		int lines = 0;

		snprintf(pat, sizeof(pat), "\n%s{", family);
		while ((p = strstr(p, pat))) {
			lines++;
			p++;
		}
		assert_int_equal(lines, L->max - 1);
	}
	assert_null(strstr(text, "reason=\"unknown\""));
}

/* What `show routes` prints as a route's protocol. */
static void test_route_origin_names(void **state)
{
	const struct {
		__u8 type, source, protocol;
		const char *name;
	} cases[] = {
	    {XFAB_RT_CONNECTED, XFAB_RSRC_CONNECTED, 0, "connected"},
	    {XFAB_RT_LOCAL, XFAB_RSRC_CONNECTED, 0, "local"},
	    {XFAB_RT_GROUP, XFAB_RSRC_STATIC, 0, "static"},
	    {XFAB_RT_NEXTHOP, XFAB_RSRC_TE_PIN, 0, "te"},
	    {XFAB_RT_GROUP, XFAB_RSRC_KERNEL, 186, "bgp"},
	    {XFAB_RT_NEXTHOP, XFAB_RSRC_KERNEL, 4, "static"},
	    {XFAB_RT_NEXTHOP, XFAB_RSRC_KERNEL, 11, "zebra"},
	    {XFAB_RT_NEXTHOP, XFAB_RSRC_KERNEL, 250, "250"},
	    {XFAB_RT_NEXTHOP, 0, 186, "unknown"},
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xfab_route rt = {.type = cases[i].type,
					.source = cases[i].source,
					.protocol = cases[i].protocol};

		assert_string_equal(xfab_route_origin_name(&rt, buf, sizeof(buf)), cases[i].name);
	}
}

static void test_metrics_one_series_per_reason(void **state)
{
	static struct xfab_metrics_src src = {.hostname = "sw"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	/* No maps (no map_fd): every counter reads as 0, every series is there. */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	agent_metrics_write(&src, f);
	fclose(f);
	check_series(buf, "xfab_drops_total", &lists[0]);
	check_series(buf, "xfab_punts_total", &lists[1]);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts_match_enums),
	    cmocka_unit_test(test_names_valid_and_unique),
	    cmocka_unit_test(test_known_names),
	    cmocka_unit_test(test_lb_event_names),
	    cmocka_unit_test(test_metrics_one_series_per_reason),
	    cmocka_unit_test(test_route_origin_names),
	};

	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
