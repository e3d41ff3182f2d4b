// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: control-socket requests (docs/CONTROL.md) the way
 * xfabd serves them, without a kernel. The input is up to FUZZ_MAX_LINES
 * request lines (split at '\n', as control.c hands them over, each at most
 * XFAB_CTL_MAX_LINE bytes); each goes
 *   - through xfab_ctl_parse_request (user/lib/ctlproto.c): an accepted
 *     request formats back into a line (xfab_ctl_format_request) that parses
 *     into the same request;
 *   - through xfabd's agent_ctl_handle (user/agent/requests.c) on a switch running
 *     a fixed config with TE_PATH, its RIB and compiler real, the map writer
 *     a recorder (tests/unit/shadow.h) and no PFC part (its requests are
 *     refused, as requests.c refuses what nobody registered): every
 *     answer is one line that fits, ends in '\n' and parses as a response
 *     (xfab_ctl_parse_response), and a refusal writes no table entry.
 * Then the same config is reloaded as SIGHUP does it (agent_pins_reload_check,
 * agent_pins_reload_commit, compile), which the pins the requests set must pass.
 * Lines keep their state across one input (pins, the generation), never
 * across inputs: every input starts a fresh switch.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "agent.h"
#include "compile.h"
#include "config.h"
#include "ctlproto.h"
#include "fuzz.h"
#include "rib.h"
#include "shadow.h"

#define FUZZ_MAX_LINES 16
#define FUZZ_PORTS 4

static const char config_text[] =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
    " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},\n"
    " \"INTERFACE\": {\"eth1|10.0.1.1/24\": {}, \"eth2|10.0.2.1/24\": {},\n"
    "   \"eth3|10.0.3.1/24\": {}, \"eth4|10.0.4.1/24\": {}, \"eth1|fd00:1::1/64\": {}},\n"
    " \"TE_PATH\": {\"eth1|30.0.0.0/24\": {\"nexthop\": \"10.0.4.9\"}},\n"
    " \"ROUTE\": {\"20.0.0.0/24\": {\"nexthop\": \"10.0.1.2,10.0.2.2\"},\n"
    "   \"20.0.1.0/24\": {\"nexthop\": \"10.0.2.2\"},\n"
    "   \"fd00:9::/48\": {\"nexthop\": \"fd00:1::2\"}}}\n";

static int neigh_any(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg;
	(void)family;
	memset(mac, 0, 6);
	mac[0] = 2;
	mac[4] = (__u8)ifindex;
	mac[5] = addr[3];
	return 0;
}

struct fuzz_agent {
	struct agent a;
	struct shadow sh;
};

static void agent_down(struct fuzz_agent *f)
{
	agent_pins_free(f->a.pins, f->a.n_pins);
	xfab_compile_free(f->a.compile);
	xfab_rib_free(f->a.rib);
	xfab_config_free(&f->a.cfg);
	sh_free(&f->sh);
	free(f);
}

static int compile_all(struct agent *a, const struct xfab_config *cfg)
{
	int err = xfab_rib_load_config(a->rib, cfg);

	return err ? err : xfab_compile_config(a->compile, cfg, a->live);
}

/* A switch as xfabd runs it once started (maps not loaded: the counters'
 * and watermarks' requests are refused as such). */
static struct fuzz_agent *agent_up(void)
{
	struct fuzz_agent *f = calloc(1, sizeof(*f));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct xfab_cfg_errors errs;

	if (!f)
		return NULL;
	ops.arg = &f->sh;
	f->a.fd_port_stats = f->a.fd_queue_wm = -1;
	for (int p = 0; p < FUZZ_PORTS; p++) {
		f->a.live[p].ifindex = (__u32)(10 + p);
		f->a.live[p].mac[0] = 2;
		f->a.live[p].mac[5] = (__u8)p;
		f->a.live[p].oper_up = 1;
	}
	if (xfab_config_parse("sw.json", config_text, &f->a.cfg, &errs)) {
		free(f);
		return NULL;
	}
	f->a.rib = xfab_rib_new();
	f->a.compile = f->a.rib ? xfab_compile_new(f->a.rib, &ops, neigh_any, NULL) : NULL;
	if (!f->a.compile || compile_all(&f->a, &f->a.cfg)) {
		agent_down(f);
		return NULL;
	}
	return f;
}

/* An accepted request formats into a line that parses into itself. */
static int round_trip(const struct xfab_ctl_req *r)
{
	struct xfab_ctl_req back;
	struct xfab_ctl_err err;
	char line[XFAB_CTL_MAX_LINE * 2];
	int n = xfab_ctl_format_request(r, line, sizeof(line));

	if (n < 0)
		return 0; /* too long for a line: nothing to compare */
	FUZZ_CHECK((size_t)n == strlen(line) && n > 0 && line[n - 1] == '\n');
	if (xfab_ctl_parse_request(line, (size_t)n, &back, &err)) {
		fprintf(stderr, "formatted request refused: %s: %s\n", err.field, err.msg);
		return -1;
	}
	FUZZ_CHECK(back.cmd == r->cmd);
	FUZZ_CHECK(!strcmp(back.in, r->in) && !strcmp(back.prefix, r->prefix));
	FUZZ_CHECK(!strcmp(back.via, r->via) && !strcmp(back.ports, r->ports));
	FUZZ_CHECK(!strcmp(back.action, r->action) && !strcmp(back.detection, r->detection));
	FUZZ_CHECK(!strcmp(back.restoration, r->restoration) && !strcmp(back.poll, r->poll));
	FUZZ_CHECK(back.generation == r->generation && back.from_index == r->from_index);
	return 0;
}

static int one_line(struct fuzz_agent *f, const char *line, size_t len)
{
	char out[XFAB_CTL_MAX_LINE], error[512], field[64];
	struct xfab_ctl_req r;
	struct xfab_ctl_err err;
	long writes = f->sh.writes;
	int n, ok;

	memset(&err, 0x5a, sizeof(err));
	if (!xfab_ctl_parse_request(line, len, &r, &err)) {
		if (round_trip(&r))
			return -1;
	} else {
		FUZZ_CHECK(memchr(err.field, '\0', sizeof(err.field)));
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) && err.msg[0]);
	}
	memset(out, 0x5a, sizeof(out));
	n = agent_ctl_handle(&f->a, line, len, out, sizeof(out));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(out));
	FUZZ_CHECK(out[n] == '\0' && out[n - 1] == '\n' &&
		   memchr(out, '\n', (size_t)n) == out + n - 1);
	FUZZ_CHECK(xfab_ctl_parse_response(out, &ok, error, sizeof(error), field, sizeof(field)) ==
		   0);
	if (!ok && f->sh.writes != writes) {
		fprintf(stderr, "a refused request wrote %ld table entries: %s",
			f->sh.writes - writes, out);
		return -1;
	}
	return 0;
}

/* SIGHUP with the same file, as main.c's reload: the pins stay valid. */
static int reload_same(struct fuzz_agent *f)
{
	struct xfab_cfg_errors errs;
	struct xfab_config next;
	struct te_pin *kept;
	int n_kept;

	if (xfab_config_parse("sw.json", config_text, &next, &errs))
		return 0;
	if (agent_pins_reload_check(&f->a, &next, "sw.json", &kept, &n_kept, &errs)) {
		char line[1024] = "";

		if (errs.count)
			xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fprintf(stderr, "reloading the same config refused with %d pin(s): %s\n",
			f->a.n_pins, line);
		xfab_config_free(&next);
		return -1;
	}
	agent_pins_reload_commit(&f->a, kept, n_kept);
	xfab_config_free(&f->a.cfg);
	f->a.cfg = next;
	/* the tables may be full (pins): said by the compile, not a crash */
	(void)compile_all(&f->a, &f->a.cfg);
	return 0;
}

int xfab_fuzz_control(const uint8_t *data, size_t size)
{
	struct fuzz_agent *f;
	size_t off = 0;
	int ret = 0;

	xfab_log_quiet = 1; /* refusals are what most inputs earn */
	f = agent_up();
	if (!f)
		return 0; /* out of memory: nothing to judge */
	for (int i = 0; i < FUZZ_MAX_LINES && off < size && !ret; i++) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
		char *line;

		if (len < XFAB_CTL_MAX_LINE) {	      /* control.c refuses a longer one unread */
			line = malloc(len ? len : 1); /* exactly the line: overreads show */
			if (!line)
				break;
			memcpy(line, data + off, len);
			ret = one_line(f, line, len);
			free(line);
		}
		off += len + 1;
	}
	if (!ret)
		ret = reload_same(f);
	agent_down(f);
	return ret;
}

XFAB_FUZZ_TARGET(xfab_fuzz_control)
