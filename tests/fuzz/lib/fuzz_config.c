// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a config text the way xfabd takes it (user/agent/
 * main.c, sync.c), without a kernel:
 *   - xfab_config_parse, the parser and validator of a start or a SIGHUP;
 *   - refused: every error kept is one that formats (file:line:col), at
 *     most XFAB_CFG_MAX_ERRORS kept and the total at least that;
 *   - accepted: xfab_config_check_change from a fixed running config to it
 *     and back (a reload each way), then the tables compiled as a start
 *     compiles them (RIB, xfab_compile_config, both FIBs attached) into a
 *     map writer that stores them (tests/unit/shadow.h); compiling the
 *     same config again must write nothing (compile.h: an unchanged config
 *     writes nothing); then the running config compiled over it, as an
 *     accepted reload would.
 * No crash, no leak, no hang, no sanitizer report, no invariant broken.
 */
#include <errno.h>
#include <string.h>

#include "compile.h"
#include "config.h"
#include "fib.h"
#include "fuzz.h"
#include "rib.h"
#include "shadow.h"

/* The FIB groups the fuzzed switch loads (a config may ask for more: the
 * compile then runs out of room, which it must say, not crash on). */
#define FUZZ_FIB_GROUPS 256

/* A running switch a reload starts from or goes back to. */
static const char running_text[] =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"datapath\": \"xdp\"}},\n"
    " \"PORT\": {\"eth1\": {\"mtu\": \"9100\", \"speed\": \"100000\"}, \"eth2\": {},\n"
    "   \"eth3\": {\"admin_status\": \"up\"}},\n"
    " \"INTERFACE\": {\"eth1|10.254.1.1/31\": {}, \"eth1|fd00:fe:1:1::3/127\": {},\n"
    "   \"eth2|10.254.2.1/31\": {}, \"eth3|10.1.1.1/24\": {}, \"eth3|fd00:1:1::1/64\": {}},\n"
    " \"ROUTE\": {\"10.4.2.0/24\": {\"nexthop\": \"10.254.1.0,10.254.2.0\"},\n"
    "   \"10.9.0.0/16\": {\"blackhole\": \"true\"},\n"
    "   \"fd00:4:2::/64\": {\"nexthop\": \"fd00:fe:1:1::2\"}},\n"
    " \"TE_PATH\": {\"eth3|10.4.2.0/24\": {\"nexthop\": \"10.254.2.0\"}},\n"
    " \"ECMP\": {\"global\": {\"resilient\": \"true\"}}}\n";

static struct xfab_config running;
static int running_ok = -1;

static int neigh_any(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg;
	(void)family;
	mac[0] = 2;
	mac[1] = 0;
	mac[2] = 0;
	mac[3] = (__u8)ifindex;
	mac[4] = addr[0];
	mac[5] = addr[3];
	return 0;
}

/* A switch compiled from nothing, as xfabd's start makes one. */
struct fuzz_switch {
	struct shadow sh;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	__u32 *tbl16[2], *tbl8[2];
	struct xfab_fib_hw fib4;
	struct xfab_fib_hw fib6;
};

static void switch_down(struct fuzz_switch *s)
{
	xfab_compile_free(s->c);
	xfab_rib_free(s->rib);
	if (s->fib4.trie)
		xfab_fib_detach(&s->fib4);
	if (s->fib6.trie)
		xfab_fib_detach(&s->fib6);
	for (int v6 = 0; v6 < 2; v6++) {
		free(s->tbl16[v6]);
		free(s->tbl8[v6]);
	}
	sh_free(&s->sh);
	free(s);
}

static struct fuzz_switch *switch_up(void)
{
	struct fuzz_switch *s = calloc(1, sizeof(*s));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};

	if (!s)
		return NULL;
	ops.arg = &s->sh;
	for (int p = 0; p < XFAB_MAX_PORTS; p++) {
		s->live[p].ifindex = (__u32)(10 + p);
		s->live[p].mac[0] = 2;
		s->live[p].mac[5] = (__u8)p;
		s->live[p].oper_up = 1;
	}
	s->tbl16[0] = calloc(XFAB_FIB4_TBL16_SIZE, 4);
	s->tbl16[1] = calloc(XFAB_FIB6_TBL16_SIZE, 4);
	s->tbl8[0] = calloc((size_t)FUZZ_FIB_GROUPS * 256, 4);
	s->tbl8[1] = calloc((size_t)FUZZ_FIB_GROUPS * 256, 4);
	if (!s->tbl16[0] || !s->tbl16[1] || !s->tbl8[0] || !s->tbl8[1] ||
	    xfab_fib_attach(&s->fib4, 4, s->tbl16[0], s->tbl8[0], FUZZ_FIB_GROUPS) ||
	    xfab_fib_attach(&s->fib6, 16, s->tbl16[1], s->tbl8[1], FUZZ_FIB_GROUPS))
		goto fail;
	ops.fib4 = &s->fib4;
	ops.fib6 = &s->fib6;
	s->rib = xfab_rib_new();
	s->c = s->rib ? xfab_compile_new(s->rib, &ops, neigh_any, NULL) : NULL;
	if (!s->c)
		goto fail;
	return s;
fail:
	switch_down(s);
	return NULL;
}

/* A config load as xfabd's: the RIB takes it, compile writes. */
static int switch_load(struct fuzz_switch *s, const struct xfab_config *cfg)
{
	int err = xfab_rib_load_config(s->rib, cfg);

	return err ? err : xfab_compile_config(s->c, cfg, s->live);
}

static int check_errors(const struct xfab_cfg_errors *errs)
{
	char line[1024];

	FUZZ_CHECK(errs->total >= 1);
	FUZZ_CHECK(errs->count >= 1 && errs->count <= XFAB_CFG_MAX_ERRORS);
	FUZZ_CHECK(errs->total >= errs->count);
	FUZZ_CHECK(errs->count == XFAB_CFG_MAX_ERRORS || errs->count == errs->total);
	for (int i = 0; i < errs->count; i++) {
		const struct xfab_cfg_error *e = &errs->e[i];

		FUZZ_CHECK(memchr(e->file, '\0', sizeof(e->file)));
		FUZZ_CHECK(memchr(e->key, '\0', sizeof(e->key)));
		FUZZ_CHECK(memchr(e->msg, '\0', sizeof(e->msg)));
		FUZZ_CHECK(e->msg[0] != '\0');
		FUZZ_CHECK(e->line >= 0 && e->col >= 0);
		xfab_cfg_error_format(e, line, sizeof(line));
		FUZZ_CHECK(strlen(line) > 0);
	}
	return 0;
}

/* Sets the FIB size the switch "loaded", as xfabd does before compiling. */
static void loaded_groups(struct xfab_config *cfg)
{
	for (int v6 = 0; v6 < 2; v6++) {
		__u32 want = xfab_config_fib_groups(cfg, v6);

		cfg->fib_groups_loaded[v6] = want < FUZZ_FIB_GROUPS ? want : FUZZ_FIB_GROUPS;
	}
}

/* An accepted config: reloads each way, a start, the same again, and a
 * reload back to the running config. */
static int accepted(struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;
	struct fuzz_switch *s;
	int err, ret = 0;

	if (xfab_config_check_change(&running, cfg, "fuzz.json", &errs))
		ret = check_errors(&errs);
	if (!ret && xfab_config_check_change(cfg, &running, "running.json", &errs))
		ret = check_errors(&errs);
	if (ret)
		return ret;
	/* a config alone always fits what parsing checked */
	FUZZ_CHECK(xfab_config_check_capacity(cfg, "fuzz.json", &errs) == 0);

	s = switch_up();
	if (!s)
		return 0; /* out of memory: nothing to judge */
	loaded_groups(cfg);
	err = switch_load(s, cfg);
	if (!err) {
		/* an unchanged config writes nothing */
		sh_reset_counts(&s->sh);
		err = switch_load(s, cfg);
		if (!err && s->sh.writes != 0) {
			fprintf(stderr, "the same config compiled again wrote %ld entries\n",
				s->sh.writes);
			ret = -1;
		}
	}
	/* the compile may run out of room (FUZZ_FIB_GROUPS, ids): said, not a crash */
	if (!ret && err && err != -ENOSPC && err != -E2BIG && err != -ENOMEM) {
		fprintf(stderr, "compile failed: %s\n", strerror(-err));
		ret = -1;
	}
	if (!ret) /* a reload back to the running config, over whatever is there */
		(void)switch_load(s, &running);
	switch_down(s);
	return ret;
}

int xfab_fuzz_config(const uint8_t *data, size_t size)
{
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	char *text;
	int ret;

	if (running_ok < 0) {
		running_ok = xfab_config_parse("running.json", running_text, &running, &errs);
		if (!running_ok)
			loaded_groups(&running);
	}
	FUZZ_CHECK(running_ok == 0);
	text = fuzz_text(data, size);
	if (!text)
		return 0;
	memset(&errs, 0x5a, sizeof(errs));
	if (xfab_config_parse("fuzz.json", text, &cfg, &errs)) {
		ret = check_errors(&errs);
	} else {
		ret = accepted(&cfg);
		xfab_config_free(&cfg);
	}
	free(text);
	return ret;
}

XFAB_FUZZ_TARGET(xfab_fuzz_config)
