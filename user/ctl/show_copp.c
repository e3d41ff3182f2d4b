// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show copp: control-plane policing per CoPP group (docs/COPP.md) */
#include <bpf/bpf.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "names.h"

/* The packets the bucket holds now: what it held at its last punt plus
 * what cir added since, up to cbs (a bucket never used is full), as the
 * data plane will find it (bpf/copp.h; the same CLOCK_MONOTONIC). */
static unsigned long long tokens_now(const struct xfab_copp_cfg *cfg,
				     const struct xfab_copp_state *b)
{
	unsigned long long cap = (unsigned long long)cfg->cbs * XFAB_COPP_TOKEN, t = b->tokens;
	unsigned long long now = xfab_mono_ns();

	if (t > cap)
		t = cap;
	if (!cfg->cir)
		return 0;
	if (now > b->last_ns) {
		if (now - b->last_ns > (cap - t) / cfg->cir)
			t = cap;
		else
			t += (now - b->last_ns) * cfg->cir;
	}
	return t / XFAB_COPP_TOKEN;
}

static int show_copp(void)
{
	int fd_cfg = ctl_open_map(XFAB_MAP_COPP_CFG), fd_stats = ctl_open_map(XFAB_MAP_COPP_STATS);
	int fd_state = ctl_open_map(XFAB_MAP_COPP_STATE);

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s %-18s %9s %9s %14s %14s %9s\n", "GROUP", "TRAP IDS", "CIR", "CBS",
		       "GREEN PKTS", "RED PKTS", "TOKENS");
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		struct xfab_copp_cfg cfg = {0};
		struct xfab_copp_stats st;
		struct xfab_copp_state bucket = {0};
		char cir[16], cbs[16], tokens[24];

		if (bpf_map_lookup_elem(fd_cfg, &g, &cfg))
			memset(&cfg, 0, sizeof(cfg));
		if (xfab_percpu_sum(fd_stats, g, (__u64 *)&st, sizeof(st) / 8))
			memset(&st, 0, sizeof(st));
		if (bpf_map_lookup_elem(fd_state, &g, &bucket))
			memset(&bucket, 0, sizeof(bucket));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("group", xfab_copp_group_name(g));
			ctl_jw_string("trap_ids", xfab_copp_group_traps(g));
			ctl_jw_uint("cir", cfg.cir);
			ctl_jw_uint("cbs", cfg.cbs);
			ctl_jw_bool("policed", cfg.cir != 0);
			ctl_jw_uint("green_packets", st.green_packets);
			ctl_jw_uint("green_bytes", st.green_bytes);
			ctl_jw_uint("red_packets", st.red_packets);
			ctl_jw_uint("red_bytes", st.red_bytes);
			ctl_jw_uint("tokens", tokens_now(&cfg, &bucket));
			ctl_jw_close('}');
			continue;
		}
		if (cfg.cir) {
			snprintf(cir, sizeof(cir), "%u", cfg.cir);
			snprintf(cbs, sizeof(cbs), "%u", cfg.cbs);
			snprintf(tokens, sizeof(tokens), "%llu", tokens_now(&cfg, &bucket));
		} else {
			snprintf(cir, sizeof(cir), "-");
			snprintf(cbs, sizeof(cbs), "-");
			snprintf(tokens, sizeof(tokens), "-");
		}
		printf("%-10s %-18s %9s %9s %14llu %14llu %9s\n", xfab_copp_group_name(g),
		       xfab_copp_group_traps(g), cir, cbs, (unsigned long long)st.green_packets,
		       (unsigned long long)st.red_packets, tokens);
	}
	if (ctl_json)
		ctl_jw_close(']');
	else
		printf("(CIR packets/s, CBS packets; '-': not policed; TOKENS: packets the bucket "
		       "holds now)\n");
	return 0;
}

CTL_SHOW(show_copp_obj, "copp", 100, "copp", .view = show_copp,
	 .help = "control-plane policing per group: trap ids, cir, cbs, green and red (policed) "
		 "packets")
