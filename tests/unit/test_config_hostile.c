// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hostile configs, refused whole. A switch runs a good config: it is parsed,
 * loaded into the RIB and compiled as xfabd does (user/lib/compile.c),
 * through a map_ops that really stores what it is given (a shadow of the
 * kernel maps, tests/unit/shadow.h). Each bad config then goes the way a
 * SIGHUP reload goes (a file, load, xfab_config_check_change, the RIB,
 * compile) and must be refused with its file:line:col, key and message,
 * with zero map writes, the shadow byte for byte what it was, and the
 * compile state unmoved (the running config again writes nothing).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "compile.h"
#include "config.h"
#include "fib.h"
#include "rib.h"
#include "shadow.h"

/* ---- a running switch ---- */

struct world {
	struct xfab_config cfg;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct shadow sh;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	char path[64];
	/* the IPv4 FIB the data plane reads, when asked for */
	__u32 *tbl16, *tbl8; /* the IPv4 FIB, when a test keeps one */
	struct xfab_fib_hw fib4;
};

static int neigh_none(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

/* A config load, as xfabd's: the RIB takes the config, compile writes. */
static void world_load(struct world *w, const struct xfab_config *cfg)
{
	assert_int_equal(xfab_rib_load_config(w->rib, cfg), 0);
	assert_int_equal(xfab_compile_config(w->c, cfg, w->live), 0);
}

/* The FIB groups a world's xfabd loaded (0: as xfabd sizes them) */
static __u32 world_fib_groups;

/* Starts a switch on text: the good config does write, and the shadow
 * then holds what was compiled. with_fib: compile keeps an IPv4 FIB too. */
static struct world *world_start(const char *text, int with_fib)
{
	struct world *w = calloc(1, sizeof(*w));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct xfab_cfg_errors errs;

	assert_non_null(w);
	ops.arg = &w->sh;
	for (int p = 0; p < 3; p++) {
		w->live[p].ifindex = (__u32)(10 + p);
		w->live[p].mac[0] = 2;
		w->live[p].mac[5] = (__u8)p;
		w->live[p].oper_up = 1;
	}
	if (with_fib) {
		w->tbl16 = calloc(XFAB_FIB4_TBL16_SIZE, 4);
		w->tbl8 = calloc((size_t)XFAB_FIB_GROUPS_DEFAULT * 256, 4);
		assert_non_null(w->tbl16);
		assert_non_null(w->tbl8);
		assert_int_equal(
		    xfab_fib_attach(&w->fib4, 4, w->tbl16, w->tbl8, XFAB_FIB_GROUPS_DEFAULT), 0);
		ops.fib4 = &w->fib4;
	}
	w->rib = xfab_rib_new();
	assert_non_null(w->rib);
	w->c = xfab_compile_new(w->rib, &ops, neigh_none, NULL);
	assert_non_null(w->c);
	if (xfab_config_parse("running.json", text, &w->cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		print_error("running config refused: %s\n", line);
		fail();
	}
	/* as xfabd loads the FIBs: their size is the limit from now on */
	for (int v6 = 0; v6 < 2; v6++)
		w->cfg.fib_groups_loaded[v6] =
		    world_fib_groups ? world_fib_groups : xfab_config_fib_groups(&w->cfg, v6);
	world_load(w, &w->cfg);
	assert_true(w->sh.writes > 10);
	sh_reset_counts(&w->sh);
	return w;
}

static struct world *world_up(const char *text)
{
	return world_start(text, 0);
}

static void world_down(struct world *w)
{
	xfab_compile_free(w->c);
	xfab_rib_free(w->rib);
	xfab_config_free(&w->cfg);
	sh_free(&w->sh);
	if (w->tbl16) {
		xfab_fib_detach(&w->fib4);
		free(w->tbl16);
		free(w->tbl8);
	}
	free(w);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* What a test made in /tmp, removed by cleanup() also when an assertion
 * stops the test halfway (a mutation run fails tests on purpose). */
static char tmp_file[64], tmp_dir[64];

static int cleanup(void **state)
{
	char fifo[80];

	(void)state;
	if (tmp_file[0])
		unlink(tmp_file);
	if (tmp_dir[0]) {
		snprintf(fifo, sizeof(fifo), "%s/fifo", tmp_dir);
		unlink(fifo);
		rmdir(tmp_dir);
	}
	tmp_file[0] = tmp_dir[0] = '\0';
	return 0;
}

/* What xfabd's SIGHUP does, minus the kernel: 0 when applied. */
static int try_reload(struct world *w, const char *text, struct xfab_cfg_errors *errs)
{
	struct xfab_config cfg;
	int fd;

	snprintf(w->path, sizeof(w->path), "/tmp/xfab-hostile-XXXXXX");
	fd = mkstemp(w->path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(tmp_file, sizeof(tmp_file), "%s", w->path);
	write_file(w->path, text);
	if (xfab_config_load(w->path, &cfg, errs))
		goto refused;
	if (xfab_config_check_change(&w->cfg, &cfg, w->path, errs)) {
		xfab_config_free(&cfg);
		goto refused;
	}
	world_load(w, &cfg);
	xfab_config_free(&w->cfg);
	w->cfg = cfg;
	unlink(w->path);
	return 0;
refused:
	unlink(w->path);
	return -1;
}

/* Line and column (1-based) of the nth occurrence of needle in text. */
static void locate(const char *text, const char *needle, int nth, int *line, int *col)
{
	const char *at = strstr(text, needle);

	for (int i = 0; i < nth && at; i++)
		at = strstr(at + 1, needle);
	assert_non_null(at);
	*line = 1;
	*col = 1;
	for (const char *p = text; p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* The reload is refused at needle with key and msg, and nothing moved. */
static void assert_refused(struct world *w, const char *text, const char *needle, int nth,
			   const char *key, const char *msg)
{
	struct shadow before;
	struct xfab_cfg_errors errs;
	char line_text[1024];
	int line, col;

	assert_int_equal(sh_copy(&before, &w->sh), 0);
	sh_reset_counts(&w->sh);
	assert_int_equal(try_reload(w, text, &errs), -1);
	assert_true(errs.total >= 1);
	assert_int_equal(errs.count,
			 errs.total < XFAB_CFG_MAX_ERRORS ? errs.total : XFAB_CFG_MAX_ERRORS);
	xfab_cfg_error_format(&errs.e[0], line_text, sizeof(line_text));
	print_message("    %s\n", line_text);
	locate(text, needle, nth, &line, &col);
	assert_string_equal(errs.e[0].file, w->path);
	assert_int_equal(errs.e[0].line, line);
	assert_int_equal(errs.e[0].col, col);
	assert_string_equal(errs.e[0].key, key);
	if (!strstr(errs.e[0].msg, msg))
		fail_msg("message \"%s\" lacks \"%s\"", errs.e[0].msg, msg);
	/* nothing written, nothing moved: the maps, and the compile state (the
	 * running config loaded again writes nothing) */
	assert_int_equal(w->sh.writes, 0);
	assert_true(sh_equal(&w->sh, &before));
	world_load(w, &w->cfg);
	assert_int_equal(w->sh.writes, 0);
	sh_free(&before);
}

/* ---- the cases ---- */

#define HDR "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
#define PORTS " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}},\n"
#define IFS                                                                                        \
	" \"INTERFACE\": {\"eth1|10.0.0.1/31\": {}, \"eth2|10.0.0.3/31\": {},\n"                   \
	"   \"eth3|10.1.1.1/24\": {}, \"eth1|fd00::1/127\": {}, \"eth2|fd00::3/127\": {},\n"       \
	"   \"eth3|fd00:1::1/64\": {}}"
#define BASE HDR PORTS IFS ",\n"
#define END "\n}\n"
/* a route table around one entry */
#define ROUTE(entry) BASE " \"ROUTE\": {" entry "}" END
#define NEIGH(entry) BASE " \"NEIGH\": {" entry "}" END
#define PORT1(fields) HDR " \"PORT\": {\"eth1\": {" fields "}, \"eth2\": {}, \"eth3\": {}}" END
#define IFACE(key) HDR PORTS " \"INTERFACE\": {\"" key "\": {}}" END
#define NH(list) ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"" list "\"}")

static const char *running_text =
    BASE " \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\"},\n"
	 "   \"10.3.0.0/24\": {\"nexthop\": \"10.0.0.0\"},\n"
	 "   \"fd10::/64\": {\"nexthop\": \"fd00::0,fd00::2\"}},\n"
	 " \"NEIGH\": {\"eth3|10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\"}},\n"
	 " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1000\", \"max_threshold\": \"9000\"}},\n"
	 " \"QUEUE\": {\"eth1|3\": {\"wred_profile\": \"P\"}},\n"
	 " \"DSCP_TO_TC_MAP\": {\"M\": {\"10\": \"2\"}}" END;

struct hostile {
	const char *name;
	const char *text;
	const char *needle; /* the error points at its first occurrence... */
	int nth;	    /* ...or at its nth (0 = first) */
	const char *key;
	const char *msg;
};

static const struct hostile cases[] = {
    /* numbers: decimal only, no sign, no leading zero, no junk, no overflow */
    {"mtu in hex", PORT1("\"mtu\": \"0x2328\""), "\"0x2328\"", 0, "PORT|eth1.mtu",
     "decimal digits only"},
    {"mtu with a leading zero (octal to strtol)", PORT1("\"mtu\": \"01500\""), "\"01500\"", 0,
     "PORT|eth1.mtu", "no leading zero"},
    {"mtu with a plus sign", PORT1("\"mtu\": \"+1500\""), "\"+1500\"", 0, "PORT|eth1.mtu",
     "no sign"},
    {"mtu negative (string)", PORT1("\"mtu\": \"-1500\""), "\"-1500\"", 0, "PORT|eth1.mtu",
     "no sign"},
    {"mtu negative (JSON number)", PORT1("\"mtu\": -1"), "-1}", 0, "PORT|eth1.mtu", "no sign"},
    {"mtu with a fraction (JSON number)", PORT1("\"mtu\": 1500.0"), "1500.0", 0, "PORT|eth1.mtu",
     "decimal digits only"},
    {"mtu with an exponent (JSON number)", PORT1("\"mtu\": 15e2"), "15e2", 0, "PORT|eth1.mtu",
     "decimal digits only"},
    {"mtu with a trailing space", PORT1("\"mtu\": \"1500 \""), "\"1500 \"", 0, "PORT|eth1.mtu",
     "decimal digits only"},
    {"mtu with a leading space", PORT1("\"mtu\": \" 1500\""), "\" 1500\"", 0, "PORT|eth1.mtu",
     "decimal digits only"},
    {"mtu empty", PORT1("\"mtu\": \"\""), "\"\"", 0, "PORT|eth1.mtu", "is empty"},
    {"mtu a boolean", PORT1("\"mtu\": true"), "true", 0, "PORT|eth1.mtu", "decimal digits only"},
    {"mtu null", PORT1("\"mtu\": null"), "null", 0, "PORT|eth1.mtu", "expected a string, got null"},
    {"rate past 2^64", PORT1("\"rate\": \"18446744073709551617\""), "\"18446744073709551617\"", 0,
     "PORT|eth1.rate", "out of range 1..800000"},
    {"hash seed past 2^32 (string)",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"hash_seed\": "
     "\"4294967296\"}},\n" PORTS IFS END,
     "\"4294967296\"", 0, "DEVICE_METADATA|localhost.hash_seed", "out of range 0..4294967295"},
    {"WRED threshold with a unit",
     BASE " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1k\", \"max_threshold\": "
	  "\"9000\"}}" END,
     "\"1k\"", 0, "WRED_PROFILE|P.min_threshold", "decimal digits only"},
    {"FLOWLET gap in hex", BASE " \"FLOWLET\": {\"global\": {\"gap_us\": \"0x10\"}}" END,
     "\"0x10\"", 0, "FLOWLET|global.gap_us", "decimal digits only"},
    {"weight with a sign",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"weight\": \"1,+2\"}"),
     "\"1,+2\"", 0, "ROUTE|10.2.0.0/24.weight", "no sign"},
    {"weight with a leading zero",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"weight\": \"1,02\"}"),
     "\"1,02\"", 0, "ROUTE|10.2.0.0/24.weight", "no leading zero"},
    {"weight list with an empty item",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"weight\": \"1,,2\"}"),
     "\"1,,2\"", 0, "ROUTE|10.2.0.0/24.weight", "an empty item"},
    {"weight too heavy",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"weight\": \"1,1001\"}"),
     "\"1,1001\"", 0, "ROUTE|10.2.0.0/24.weight", "1001 is out of range 1..1000"},
    {"prefix length with a leading zero", ROUTE("\"10.2.0.0/024\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.2.0.0/024\"", 0, "ROUTE|10.2.0.0/024", "no leading zero"},
    {"prefix length with a sign", ROUTE("\"10.2.0.0/+24\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.2.0.0/+24\"", 0, "ROUTE|10.2.0.0/+24", "must be 0..32"},
    {"prefix length with junk", ROUTE("\"10.2.0.0/24x\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.2.0.0/24x\"", 0, "ROUTE|10.2.0.0/24x", "must be 0..32"},
    {"prefix length that wraps 32 bits",
     ROUTE("\"10.2.0.0/4294967320\": {\"nexthop\": \"10.0.0.0\"}"), "\"10.2.0.0/4294967320\"", 0,
     "ROUTE|10.2.0.0/4294967320", "must be 0..32"},
    {"prefix without a length", ROUTE("\"10.2.0.0/\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.2.0.0/\"", 0, "ROUTE|10.2.0.0/", "no prefix length"},
    {"DSCP with a leading zero (\"08\" would be 8)",
     BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"8\": \"1\", \"08\": \"2\"}}" END, "\"08\"", 0,
     "DSCP_TO_TC_MAP|M.08", "no leading zero"},
    {"DSCP with a sign", BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"+8\": \"1\"}}" END, "\"+8\"", 0,
     "DSCP_TO_TC_MAP|M.+8", "no sign"},
    {"DSCP in hex", BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"0x8\": \"1\"}}" END, "\"0x8\"", 0,
     "DSCP_TO_TC_MAP|M.0x8", "decimal digits only"},
    {"DSCP empty", BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"\": \"1\"}}" END, "\"\":", 0,
     "DSCP_TO_TC_MAP|M.", "is empty"},
    {"DSCP class with a leading zero", BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"8\": \"01\"}}" END,
     "\"01\"", 0, "DSCP_TO_TC_MAP|M.8", "no leading zero"},
    /* QUEUE classes */
    {"QUEUE class with a leading zero",
     BASE " \"QUEUE\": {\"eth1|03\": {\"wred_profile\": \"P\"}}" END, "\"eth1|03\"", 0,
     "QUEUE|eth1|03", "traffic classes are 0..7"},
    {"QUEUE range without an end", BASE " \"QUEUE\": {\"eth1|3-\": {\"wred_profile\": \"P\"}}" END,
     "\"eth1|3-\"", 0, "QUEUE|eth1|3-", "traffic classes are 0..7"},
    {"QUEUE range backwards", BASE " \"QUEUE\": {\"eth1|5-3\": {\"wred_profile\": \"P\"}}" END,
     "\"eth1|5-3\"", 0, "QUEUE|eth1|5-3", "low first"},
    {"QUEUE classes bound twice (3 and 2-4)",
     BASE " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1\", \"max_threshold\": \"2\"}},\n"
	  " \"QUEUE\": {\"eth1|3\": {\"wred_profile\": \"P\"},\n"
	  "   \"eth1|2-4\": {\"wred_profile\": \"P\"}}" END,
     "\"eth1|2-4\"", 0, "QUEUE|eth1|2-4", "class 3 of eth1 is already bound (line 8)"},
    /* SONiC fields that would be silently ignored */
    {"ROUTE distances unequal (a backup path xfab would not honour)",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"distance\": \"0,1\"}"),
     "\"0,1\"", 0, "ROUTE|10.2.0.0/24.distance", "unequal distances"},
    {"ROUTE distance out of range",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\", \"distance\": \"256\"}"), "\"256\"", 0,
     "ROUTE|10.2.0.0/24.distance", "out of range 0..255"},
    {"ROUTE one distance for two nexthops",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"distance\": \"0\"}"), "\"0\"}",
     0, "ROUTE|10.2.0.0/24.distance", "1 distances for 2 nexthops"},
    {"ROUTE nexthop in another VRF",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\", \"nexthop-vrf\": \"mgmt\"}"), "\"mgmt\"",
     0, "ROUTE|10.2.0.0/24.nexthop-vrf", "one VRF"},
    /* unknown keys in every table */
    {"INTERFACE with a field",
     HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.1/31\": {\"vrf_name\": \"red\"}}" END,
     "\"vrf_name\"", 0, "INTERFACE|eth1|10.0.0.1/31.vrf_name", "unknown field"},
    {"NEIGH with \"mac\" for \"neigh\"",
     NEIGH("\"eth3|10.1.1.5\": {\"mac\": \"02:00:00:00:00:05\"}"), "\"mac\"", 0,
     "NEIGH|eth3|10.1.1.5.mac", "unknown field"},
    {"QUEUE with a scheduler",
     BASE " \"QUEUE\": {\"eth1|3\": {\"wred_profile\": \"P\", \"scheduler\": \"S\"}}" END,
     "\"scheduler\"", 0, "QUEUE|eth1|3.scheduler", "unknown field"},
    {"WRED with SONiC's per-colour thresholds",
     BASE " \"WRED_PROFILE\": {\"P\": {\"green_min_threshold\": \"1\"}}" END,
     "\"green_min_threshold\"", 0, "WRED_PROFILE|P.green_min_threshold", "unknown field"},
    {"FLOWLET entry not global", BASE " \"FLOWLET\": {\"default\": {}}" END, "\"default\"", 0,
     "FLOWLET", "only \"global\""},
    {"TE_PATH with a distance",
     BASE " \"TE_PATH\": {\"eth3|10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\", \"distance\": "
	  "\"0\"}}" END,
     "\"distance\"", 0, "TE_PATH|eth3|10.2.0.0/24.distance", "unknown field"},
    {"NEIGH family unknown",
     NEIGH("\"eth3|10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\", \"family\": \"IPv5\"}"),
     "\"IPv5\"", 0, "NEIGH|eth3|10.1.1.5.family", "IPv4 or IPv6"},
    {"NEIGH family not the address's",
     NEIGH("\"eth3|10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\", \"family\": \"IPv6\"}"),
     "\"IPv6\"", 0, "NEIGH|eth3|10.1.1.5.family", "the address is IPv4"},
    {"ECMP hash field twice",
     BASE " \"ECMP\": {\"global\": {\"hash_fields\": \"SRC_IP,SRC_IP\"}}" END, "\"SRC_IP,SRC_IP\"",
     0, "ECMP|global.hash_fields", "'SRC_IP' listed twice"},
    {"ECMP hash fields with an empty item",
     BASE " \"ECMP\": {\"global\": {\"hash_fields\": \"SRC_IP,,DST_IP\"}}" END,
     "\"SRC_IP,,DST_IP\"", 0, "ECMP|global.hash_fields", "an empty item"},
    {"PORT description too long",
     PORT1("\"description\": "
	   "\"0123456789012345678901234567890123456789012345678901234567890123\""),
     "\"0123", 0, "PORT|eth1.description", "longer than 63 bytes"},
    {"PORT description an object", PORT1("\"description\": {}"), "{}}", 0, "PORT|eth1.description",
     "expected a string, got object"},
    {"PORT alias with a control character", PORT1("\"alias\": \"a\\u0007b\""), "\"a\\u0007b\"", 0,
     "PORT|eth1.alias", "control character"},
    {"DEVICE_METADATA description a number",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"description\": "
     "7}},\n" PORTS IFS END,
     "7}}", 0, "DEVICE_METADATA|localhost.description", "expected a string, got number"},
    /* what a port's address may be */
    {"port address multicast", IFACE("eth1|224.0.0.1/24"), "\"eth1|", 0,
     "INTERFACE|eth1|224.0.0.1/24", "a multicast address"},
    {"port address loopback", IFACE("eth1|127.0.0.1/8"), "\"eth1|", 0, "INTERFACE|eth1|127.0.0.1/8",
     "a loopback address"},
    {"port address unspecified", IFACE("eth1|0.0.0.0/8"), "\"eth1|", 0, "INTERFACE|eth1|0.0.0.0/8",
     "the unspecified address"},
    {"port address in 0.0.0.0/8", IFACE("eth1|0.1.2.3/24"), "\"eth1|", 0,
     "INTERFACE|eth1|0.1.2.3/24", "this network"},
    {"port address broadcast", IFACE("eth1|255.255.255.255/31"), "\"eth1|", 0,
     "INTERFACE|eth1|255.255.255.255/31", "the broadcast address"},
    {"port address reserved", IFACE("eth1|240.0.0.1/24"), "\"eth1|", 0,
     "INTERFACE|eth1|240.0.0.1/24", "reserved"},
    {"port address IPv6 multicast", IFACE("eth1|ff02::1/64"), "\"eth1|", 0,
     "INTERFACE|eth1|ff02::1/64", "a multicast address"},
    {"port address IPv6 loopback", IFACE("eth1|::1/127"), "\"eth1|", 0, "INTERFACE|eth1|::1/127",
     "the loopback address"},
    {"port address IPv6 unspecified", IFACE("eth1|::/127"), "\"eth1|", 0, "INTERFACE|eth1|::/127",
     "the unspecified address"},
    {"port address IPv4-mapped", IFACE("eth1|::ffff:10.0.0.1/127"), "\"eth1|", 0,
     "INTERFACE|eth1|::ffff:10.0.0.1/127", "IPv4-mapped"},
    {"port address link-local", IFACE("eth1|fe80::1/64"), "\"eth1|", 0, "INTERFACE|eth1|fe80::1/64",
     "link-local"},
    {"port address the subnet's network address", IFACE("eth3|10.1.1.0/24"), "\"eth3|", 0,
     "INTERFACE|eth3|10.1.1.0/24", "the subnet's network address"},
    {"port address the subnet's broadcast", IFACE("eth3|10.1.1.255/24"), "\"eth3|", 0,
     "INTERFACE|eth3|10.1.1.255/24", "the subnet's broadcast address"},
    {"port address IPv6 subnet-router anycast", IFACE("eth3|fd00:1::/64"), "\"eth3|", 0,
     "INTERFACE|eth3|fd00:1::/64", "subnet-router anycast"},
    /* a /30 has a network and a broadcast address too (only /31 and /32 do not) */
    {"port address a /30's network address", IFACE("eth3|10.1.1.4/30"), "\"eth3|", 0,
     "INTERFACE|eth3|10.1.1.4/30", "the subnet's network address"},
    {"port address a /30's broadcast", IFACE("eth3|10.1.1.7/30"), "\"eth3|", 0,
     "INTERFACE|eth3|10.1.1.7/30", "the subnet's broadcast address"},
    {"port address /32 (no subnet, no neighbour)", IFACE("eth3|10.9.9.9/32"), "\"eth3|", 0,
     "INTERFACE|eth3|10.9.9.9/32", "needs a subnet"},
    /* a host bit in the prefix's last, partial byte (the first one past /25) */
    {"ROUTE host bit past /25", ROUTE("\"10.2.0.64/25\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.2.0.64/25\"", 0, "ROUTE|10.2.0.64/25", "host bits set past /25"},
    /* what a nexthop may be */
    {"nexthop multicast", NH("224.0.0.5"), "\"224.0.0.5\"", 0, "ROUTE|10.2.0.0/24.nexthop",
     "a multicast address"},
    {"nexthop broadcast", NH("255.255.255.255"), "\"255.255.255.255\"", 0,
     "ROUTE|10.2.0.0/24.nexthop", "the broadcast address"},
    {"nexthop loopback", NH("127.0.0.1"), "\"127.0.0.1\"", 0, "ROUTE|10.2.0.0/24.nexthop",
     "a loopback address"},
    {"nexthop unspecified", NH("0.0.0.0"), "\"0.0.0.0\"", 0, "ROUTE|10.2.0.0/24.nexthop",
     "the unspecified address"},
    {"nexthop IPv6 multicast", ROUTE("\"fd10::/64\": {\"nexthop\": \"ff02::2\"}"), "\"ff02::2\"", 0,
     "ROUTE|fd10::/64.nexthop", "a multicast address"},
    {"nexthop IPv6 unspecified", ROUTE("\"fd10::/64\": {\"nexthop\": \"::\"}"), "\"::\"", 0,
     "ROUTE|fd10::/64.nexthop", "the unspecified address"},
    {"nexthop a subnet's network address", NH("10.1.1.0"), "\"10.1.1.0\"", 0,
     "ROUTE|10.2.0.0/24.nexthop", "the subnet's network address"},
    {"nexthop a subnet's broadcast address", NH("10.1.1.255"), "\"10.1.1.255\"", 0,
     "ROUTE|10.2.0.0/24.nexthop", "the subnet's broadcast address"},
    {"nexthop link-local without a port", ROUTE("\"fd10::/64\": {\"nexthop\": \"fe80::1\"}"),
     "\"fe80::1\"", 0, "ROUTE|fd10::/64.nexthop", "name its port"},
    {"nexthop on another port's subnet",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.2\", \"ifname\": \"eth1\"}"), "\"eth1\"}", 0,
     "ROUTE|10.2.0.0/24.ifname", "on port eth2's subnet, not eth1"},
    {"nexthop list with an empty item", NH("10.0.0.0,,10.0.0.2"), "\"10.0.0.0,,", 0,
     "ROUTE|10.2.0.0/24.nexthop", "an empty item"},
    {"nexthop list with a trailing comma", NH("10.0.0.0,"), "\"10.0.0.0,\"", 0,
     "ROUTE|10.2.0.0/24.nexthop", "an empty item"},
    {"nexthop list of 65 (a group holds 64)",
     NH("10.1.1.2,10.1.1.3,10.1.1.4,10.1.1.5,10.1.1.6,10.1.1.7,10.1.1.8,10.1.1.9,10.1.1.10,"
	"10.1.1.11,10.1.1.12,10.1.1.13,10.1.1.14,10.1.1.15,10.1.1.16,10.1.1.17,10.1.1.18,"
	"10.1.1.19,10.1.1.20,10.1.1.21,10.1.1.22,10.1.1.23,10.1.1.24,10.1.1.25,10.1.1.26,"
	"10.1.1.27,10.1.1.28,10.1.1.29,10.1.1.30,10.1.1.31,10.1.1.32,10.1.1.33,10.1.1.34,"
	"10.1.1.35,10.1.1.36,10.1.1.37,10.1.1.38,10.1.1.39,10.1.1.40,10.1.1.41,10.1.1.42,"
	"10.1.1.43,10.1.1.44,10.1.1.45,10.1.1.46,10.1.1.47,10.1.1.48,10.1.1.49,10.1.1.50,"
	"10.1.1.51,10.1.1.52,10.1.1.53,10.1.1.54,10.1.1.55,10.1.1.56,10.1.1.57,10.1.1.58,"
	"10.1.1.59,10.1.1.60,10.1.1.61,10.1.1.62,10.1.1.63,10.1.1.64,10.1.1.65,10.1.1.66"),
     "\"10.1.1.2,", 0, "ROUTE|10.2.0.0/24.nexthop", "more than 64 nexthops"},
    {"nexthop the same gateway spelt twice",
     ROUTE("\"fd10::/64\": {\"nexthop\": \"fd00::0,fd00:0::0\"}"), "\"fd00::0,", 0,
     "ROUTE|fd10::/64.nexthop", "listed twice"},
    /* static neighbours */
    {"NEIGH in no connected subnet", NEIGH("\"eth3|10.9.9.9\": {\"neigh\": \"02:00:00:00:00:05\"}"),
     "\"eth3|10.9.9.9\"", 0, "NEIGH|eth3|10.9.9.9", "in no connected subnet of port eth3"},
    {"NEIGH on the wrong port", NEIGH("\"eth1|10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\"}"),
     "\"eth1|10.1.1.5\"", 0, "NEIGH|eth1|10.1.1.5", "in no connected subnet of port eth1"},
    {"NEIGH the switch's own address",
     NEIGH("\"eth3|10.1.1.1\": {\"neigh\": \"02:00:00:00:00:05\"}"), "\"eth3|10.1.1.1\"", 0,
     "NEIGH|eth3|10.1.1.1", "this switch's own address"},
    {"NEIGH the subnet's broadcast",
     NEIGH("\"eth3|10.1.1.255\": {\"neigh\": \"02:00:00:00:00:05\"}"), "\"eth3|10.1.1.255\"", 0,
     "NEIGH|eth3|10.1.1.255", "the subnet's broadcast address"},
    {"NEIGH multicast address", NEIGH("\"eth3|224.0.0.1\": {\"neigh\": \"02:00:00:00:00:05\"}"),
     "\"eth3|224.0.0.1\"", 0, "NEIGH|eth3|224.0.0.1", "a multicast address"},
    {"NEIGH IPv4-mapped address",
     NEIGH("\"eth3|::ffff:10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\"}"),
     "\"eth3|::ffff:10.1.1.5\"", 0, "NEIGH|eth3|::ffff:10.1.1.5", "IPv4-mapped"},
    {"NEIGH all-zero MAC", NEIGH("\"eth3|10.1.1.5\": {\"neigh\": \"00:00:00:00:00:00\"}"),
     "\"00:00", 0, "NEIGH|eth3|10.1.1.5.neigh", "all zeros"},
    {"NEIGH broadcast MAC", NEIGH("\"eth3|10.1.1.5\": {\"neigh\": \"ff:ff:ff:ff:ff:ff\"}"),
     "\"ff:ff", 0, "NEIGH|eth3|10.1.1.5.neigh", "cannot be multicast"},
    {"NEIGH twice, spelt two ways",
     NEIGH("\"eth3|fd00:1::5\": {\"neigh\": \"02:00:00:00:00:05\"},\n"
	   "   \"eth3|fd00:1:0:0::5\": {\"neigh\": \"02:00:00:00:00:06\"}"),
     "\"eth3|fd00:1:0:0::5\"", 0, "NEIGH|eth3|fd00:1:0:0::5", "already set (line 7)"},
    {"INTERFACE address twice, spelt two ways",
     HDR PORTS " \"INTERFACE\": {\"eth1|fd00::1/127\": {},\n"
	       "   \"eth1|fd00:0:0::1/127\": {}}" END,
     "\"eth1|fd00:0:0::1/127\"", 0, "INTERFACE|eth1|fd00:0:0::1/127",
     "address already on port eth1"},
    {"TE_PATH twice, spelt two ways",
     BASE " \"TE_PATH\": {\"eth3|fd10::/64\": {\"nexthop\": \"fd00::0\"},\n"
	  "   \"eth3|fd10:0::/64\": {\"nexthop\": \"fd00::2\"}}" END,
     "\"eth3|fd10:0::/64\"", 0, "TE_PATH|eth3|fd10:0::/64", "already pinned"},
    /* routes over the switch's own addresses and subnets */
    {"ROUTE to the switch's own address", ROUTE("\"10.1.1.1/32\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.1.1.1/32\"", 0, "ROUTE|10.1.1.1/32", "this switch's own address (port eth3)"},
    {"ROUTE to the switch's own IPv6 address", ROUTE("\"fd00::1/128\": {\"nexthop\": \"fd00::2\"}"),
     "\"fd00::1/128\"", 0, "ROUTE|fd00::1/128", "this switch's own address (port eth1)"},
    {"ROUTE over a connected subnet, sharing the list before",
     ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\"},\n"
	   "   \"10.1.1.0/24\": {\"nexthop\": \"10.0.0.0\"}"),
     "\"10.1.1.0/24\"", 0, "ROUTE|10.1.1.0/24", "connected subnet of port eth3"},
    {"TE_PATH to the switch's own address",
     BASE " \"TE_PATH\": {\"eth3|10.0.0.1/32\": {\"nexthop\": \"10.0.0.2\"}}" END,
     "\"eth3|10.0.0.1/32\"", 0, "TE_PATH|eth3|10.0.0.1/32",
     "this switch's own address (port eth1)"},
    /* what a reload cannot change */
    {"reload: hostname changed",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf2\"}},\n" PORTS IFS END,
     "\"leaf2\"", 0, "DEVICE_METADATA|localhost.hostname", "restart xfabd"},
    {"reload: datapath changed",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"datapath\": "
     "\"tc\"}},\n" PORTS IFS END,
     "\"tc\"", 0, "DEVICE_METADATA|localhost.datapath", "restart xfabd"},
    {"reload: a port renamed",
     HDR " \"PORT\": {\"eth1\": {}, \"eth5\": {}, \"eth3\": {}},\n"
	 " \"INTERFACE\": {\"eth1|10.0.0.1/31\": {}}" END,
     "\"eth5\"", 0, "PORT|eth5", "port 2 was eth2"},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void test_hostile(void **state)
{
	const struct hostile *h = *state;
	struct world *w = world_up(running_text);

	assert_refused(w, h->text, h->needle, h->nth, h->key, h->msg);
	world_down(w);
}

/* The harness can fail: a good change goes the same way and writes just
 * its difference, which the shadow then holds. */
static void test_good_reload_writes(void **state)
{
	const char *changed =
	    BASE " \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\"},\n"
		 "   \"10.3.0.0/24\": {\"nexthop\": \"10.0.0.0\"},\n"
		 "   \"10.4.0.0/16\": {\"blackhole\": \"true\"},\n"
		 "   \"fd10::/64\": {\"nexthop\": \"fd00::0,fd00::2\"}},\n"
		 " \"NEIGH\": {\"eth3|10.1.1.5\": {\"neigh\": \"02:00:00:00:00:05\"}},\n"
		 " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1000\", \"max_threshold\": "
		 "\"9000\"}},\n"
		 " \"QUEUE\": {\"eth1|3\": {\"wred_profile\": \"P\"}},\n"
		 " \"DSCP_TO_TC_MAP\": {\"M\": {\"10\": \"2\"}}" END;
	struct world *w = world_up(running_text);
	struct xfab_cfg_errors errs;

	const struct xfab_route *r;
	struct xfab_lpm_v4_key key = {.prefixlen = 32 + 16, .addr = {10, 4}};

	(void)state;
	assert_null(sh_get(&w->sh, XFAB_T_ROUTES_V4, &key));
	assert_int_equal(try_reload(w, changed, &errs), 0);
	assert_int_equal(w->sh.writes, 1); /* the one new route */
	r = sh_get(&w->sh, XFAB_T_ROUTES_V4, &key);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_BLACKHOLE);
	/* and the same text again changes nothing */
	sh_reset_counts(&w->sh);
	assert_int_equal(try_reload(w, changed, &errs), 0);
	assert_int_equal(w->sh.writes, 0);
	world_down(w);
}

/* Positive controls: what the rules must still let through, each one
 * next to a refused case above. */
static void test_edges_accepted(void **state)
{
	const char *ok[] = {
	    /* both ends of a /31 and a /127 are hosts (RFC 3021, RFC 6164) */
	    HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.0/31\": {}, \"eth2|fd00::/127\": {}}" END,
	    /* 1.0.0.1 is just past 0.0.0.0/8 (this network) */
	    HDR PORTS " \"INTERFACE\": {\"eth1|1.0.0.1/8\": {}}" END,
	    ROUTE("\"10.2.0.0/24\": {\"nexthop\": \" 10.0.0.0 , 10.0.0.2\", \"weight\": \"1, 2\", "
		  "\"distance\": \"0,0\", \"nexthop-vrf\": \"default,default\"}"),
	    ROUTE("\"10.2.0.0/24\": {\"blackhole\": \"true\", \"distance\": \"0\"}"),
	    ROUTE("\"fd10::/64\": {\"nexthop\": \"fe80::1\", \"ifname\": \"eth3\"}"),
	    ROUTE("\"10.2.0.0/24\": {\"nexthop\": \"10.9.9.9\", \"ifname\": \"eth3\"}"),
	    ROUTE("\"0.0.0.0/0\": {\"nexthop\": \"10.0.0.0\"}, \"10.0.0.0/8\": {\"nexthop\": "
		  "\"10.0.0.2\"}, \"10.1.1.0/25\": {\"nexthop\": \"10.0.0.0\"}"),
	    NEIGH("\"eth3|fe80::5\": {\"neigh\": \"02:00:00:00:00:05\", \"family\": \"IPv6\"}, "
		  "\"eth1|10.0.0.0\": {\"neigh\": \"02:00:00:00:00:06\", \"family\": \"IPv4\"}"),
	    BASE " \"DSCP_TO_TC_MAP\": {\"M\": {\"0\": \"0\", \"63\": 7}},\n"
		 " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": 0, \"max_threshold\": \"1\"}},\n"
		 " \"QUEUE\": {\"eth1|0\": {\"wred_profile\": \"P\"}, \"eth1|1-7\": "
		 "{\"wred_profile\": \"P\"}, \"eth2|3-3\": {\"wred_profile\": \"P\"}}" END,
	    PORT1("\"mtu\": 9216, \"rate\": \"800000\", \"description\": "
		  "\"012345678901234567890123456789012345678901234567890123456789012\""),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct xfab_config cfg;
		struct xfab_cfg_errors errs;

		if (xfab_config_parse("ok.json", ok[i], &cfg, &errs)) {
			char line[1024];

			xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
			fail_msg("config %zu refused: %s", i, line);
		}
		xfab_config_free(&cfg);
	}
}

/* Every error is counted, also past the ones kept. */
static void test_true_error_count(void **state)
{
	char text[8192];
	size_t n = 0;
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, HDR " \"PORT\": {\n");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "  \"eth%d\": {\"mtu\": \"0%d\"}%s\n", i, 1500 + i,
				      i == 39 ? "" : ",");
	snprintf(text + n, sizeof(text) - n, " }\n}\n");
	assert_int_equal(xfab_config_parse("many.json", text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 40);
	assert_int_equal(errs.count, XFAB_CFG_MAX_ERRORS);
	assert_string_equal(errs.e[XFAB_CFG_MAX_ERRORS - 1].key, "PORT|eth15.mtu");
}

/* -c on what is not a regular file: refused at once, nothing read. */
static void assert_not_regular(const char *path, const char *kind)
{
	char line[1024], want[512];
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	alarm(5); /* a FIFO without a writer would block an open or a read */
	assert_int_equal(xfab_config_load(path, &cfg, &errs), -1);
	alarm(0);
	assert_int_equal(errs.total, 1);
	assert_string_equal(errs.e[0].file, path);
	if (!strstr(errs.e[0].msg, kind) || !strstr(errs.e[0].msg, "not a regular file"))
		fail_msg("%s: \"%s\"", path, errs.e[0].msg);
	/* printed as "FILE: is ...": the file as a whole, no line */
	xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
	snprintf(want, sizeof(want), "%s: is %s", path, kind);
	assert_string_equal(line, strstr(line, want) == line ? line : want);
}

static void test_not_regular_files(void **state)
{
	char dir[] = "/tmp/xfab-hostile-dir-XXXXXX", fifo[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(tmp_dir, sizeof(tmp_dir), "%s", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_not_regular(dir, "a directory");
	assert_not_regular("/dev/null", "a character device");
	assert_not_regular(fifo, "a FIFO");
	unlink(fifo);
	rmdir(dir);
}

/* ---- capacity: one config, and a reload's switch-over ---- */

/* BASE plus a ROUTE table of n entries made by line(i, buf). */
/* routes_text's first two lines, when a test sets them (the FIB's size) */
static const char *hdr_override;

static char *routes_text(const char *ifs, int n, void (*line)(int i, char *buf, size_t len))
{
	size_t cap = (size_t)n * 96 + 4096, len = 0;
	char *text = malloc(cap), buf[128];

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "%s%s%s,\n \"ROUTE\": {\n",
				hdr_override ? hdr_override : HDR, PORTS, ifs);
	for (int i = 0; i < n; i++) {
		line(i, buf, sizeof(buf));
		len +=
		    (size_t)snprintf(text + len, cap - len, "  %s%s\n", buf, i == n - 1 ? "" : ",");
	}
	snprintf(text + len, cap - len, " }\n}\n");
	return text;
}

#define BIG_IFS                                                                                    \
	" \"INTERFACE\": {\"eth1|10.0.0.1/31\": {}, \"eth2|10.0.0.3/31\": {},\n"                   \
	"   \"eth3|10.128.0.1/9\": {}, \"eth1|fd00::1/127\": {}, \"eth2|fd00::3/127\": {},\n"      \
	"   \"eth3|fd00:1::1/64\": {}}"

/* Route i via its own gateway in eth3's /9 (gateways from 10.128.1.0). */
static void own_gw(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"20.%d.%d.0/24\": {\"nexthop\": \"10.128.%d.%d\"}", i / 256, i % 256,
		 1 + i / 250, 1 + i % 250);
}

/* The same /24s, each via a gateway no route above uses. */
static void other_gw(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"20.%d.%d.0/24\": {\"nexthop\": \"10.200.%d.%d\"}", i / 256, i % 256,
		 1 + i / 250, 1 + i % 250);
}

/* Route i via a group of its own: a shared gateway and its own one. */
static void own_group(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"20.%d.%d.0/24\": {\"nexthop\": \"10.0.0.0,10.128.%d.%d\"}", i / 256,
		 i % 256, 1 + i / 250, 1 + i % 250);
}

/* Route i over the same two gateways, weighted its own way (1..1000 each). */
static void own_weights(int i, char *buf, size_t len)
{
	snprintf(buf, len,
		 "\"20.%d.%d.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", \"weight\": \"%d,%d\"}",
		 i / 256, i % 256, 1 + i / 1000, 1 + i % 1000);
}

/* A /25 in a /24 of its own: each needs a FIB group, as a host route does. */
static void own_25(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"40.%d.%d.0/25\": {\"nexthop\": \"10.0.0.0\"}", i / 256, i % 256);
}

static void own_24(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"20.%d.%d.1/32\": {\"nexthop\": \"10.0.0.0\"}", i / 256, i % 256);
}

static void other_24(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"30.%d.%d.1/32\": {\"nexthop\": \"10.0.0.0\"}", i / 256, i % 256);
}

static void own_v6_path(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"2001:%02x%02x:8000::/40\": {\"nexthop\": \"fd00::\"}", i / 256,
		 i % 256);
}

static void other_v6_path(int i, char *buf, size_t len)
{
	snprintf(buf, len, "\"2002:%02x%02x:8000::/40\": {\"nexthop\": \"fd00::\"}", i / 256,
		 i % 256);
}

/* Line of route i in routes_text: after 7 lines ("{", DEVICE_METADATA,
 * PORT, BIG_IFS's 3, "ROUTE"). */
#define ROUTE_LINE(i) (8 + (i))

static void assert_one_config_over(const char *text, int culprit, const char *key_fmt,
				   void (*line)(int, char *, size_t), const char *what)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	char want[160], buf[128];

	assert_int_equal(xfab_config_parse("over.json", text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 1);
	line(culprit, buf, sizeof(buf));
	*strchr(buf + 1, '"') = '\0';
	snprintf(want, sizeof(want), key_fmt, buf + 1);
	assert_string_equal(errs.e[0].key, want);
	assert_int_equal(errs.e[0].line, ROUTE_LINE(culprit));
	assert_int_equal(errs.e[0].col, 3);
	if (!strstr(errs.e[0].msg, what) || !strstr(errs.e[0].msg, "no room"))
		fail_msg("\"%s\" lacks \"%s\"", errs.e[0].msg, what);
}

/* 4095 nexthop ids: the route bringing the 4096th gateway is refused
 * (by xfabd --check and at start); 4095 fit. */
static void test_nexthops_one_config(void **state)
{
	char *over = routes_text(BIG_IFS, XFAB_MAX_NEXTHOPS, own_gw);
	char *fits = routes_text(BIG_IFS, XFAB_MAX_NEXTHOPS - 1, own_gw);
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("fits.json", fits, &cfg, &errs), 0);
	xfab_config_free(&cfg);
	assert_one_config_over(over, XFAB_MAX_NEXTHOPS - 1, "ROUTE|%s", own_gw, "nexthops");
	free(over);
	free(fits);
}

/* 1023 group ids; 10.0.0.0 plus one gateway each makes every group new. */
static void test_groups_one_config(void **state)
{
	char *over = routes_text(BIG_IFS, XFAB_MAX_GROUPS, own_group);
	char *fits = routes_text(BIG_IFS, XFAB_MAX_GROUPS - 1, own_group);
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("fits.json", fits, &cfg, &errs), 0);
	xfab_config_free(&cfg);
	assert_one_config_over(over, XFAB_MAX_GROUPS - 1, "ROUTE|%s", own_group, "ECMP groups");
	free(over);
	free(fits);
}

/* The same gateways under other weights are another group: 1023 fit, the
 * 1024th is refused. */
static void test_groups_by_weight_one_config(void **state)
{
	char *over = routes_text(BIG_IFS, XFAB_MAX_GROUPS, own_weights);
	char *fits = routes_text(BIG_IFS, XFAB_MAX_GROUPS - 1, own_weights);
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("fits.json", fits, &cfg, &errs), 0);
	xfab_config_free(&cfg);
	assert_one_config_over(over, XFAB_MAX_GROUPS - 1, "ROUTE|%s", own_weights, "ECMP groups");
	free(over);
	free(fits);
}

/* IPv4 FIB groups (fib_ipv4_groups 4096): the interfaces' own /32s take
 * four (10.0.0.0/16 and its 10.0.0.0/24, 10.128.0.0/16 and its
 * 10.128.0.0/24); /25s in distinct /24s of 40.0.0.0/8 take one each and
 * one per /16: after route k, 6 + k + k / 256 groups, 4096 first passed at
 * k = 4076. */
static void test_fib4_one_config(void **state)
{
	int n = 4076;
	char *over, *fits;
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	hdr_override = "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", "
		       "\"fib_ipv4_groups\": \"4096\"}},\n";
	over = routes_text(BIG_IFS, n + 1, own_25);
	fits = routes_text(BIG_IFS, n, own_25);
	hdr_override = NULL;
	assert_int_equal(xfab_config_parse("fits.json", fits, &cfg, &errs), 0);
	assert_int_equal(cfg.fib_groups_need[0], 4096);
	xfab_config_free(&cfg);
	assert_one_config_over(over, n, "ROUTE|%s", own_25, "IPv4 FIB groups");
	free(over);
	free(fits);
}

/* A reload whose new config fits alone but not beside the running one
 * (make before break) is refused at the first route that does not fit,
 * with nothing written. */
static void assert_switch_over_refused(const char *running, char *next, int culprit,
				       void (*line)(int, char *, size_t), const char *what)
{
	struct xfab_config alone;
	struct world *w;
	struct xfab_cfg_errors errs;
	char key[160], buf[128], needle[160];

	world_fib_groups = 16384; /* xfabd loaded 16,384 groups a family */
	w = world_up(running);
	world_fib_groups = 0;
	/* the new config alone is fine (xfabd --check would pass it) */
	assert_int_equal(xfab_config_parse("next.json", next, &alone, &errs), 0);
	xfab_config_free(&alone);
	line(culprit, buf, sizeof(buf));
	*strchr(buf + 1, '"') = '\0';
	snprintf(key, sizeof(key), "ROUTE|%s", buf + 1);
	snprintf(needle, sizeof(needle), "\"%s\"", buf + 1);
	assert_refused(w, next, needle, 0, key, what);
	world_down(w);
}

static void test_nexthops_switch_over(void **state)
{
	int n = 3000; /* 3000 + 3000 > 4095 */
	char *running = routes_text(BIG_IFS, n, own_gw);
	char *next = routes_text(BIG_IFS, n, other_gw);

	(void)state;
	/* the running config's 3000 gateways (+0 shared) leave 1095 */
	assert_switch_over_refused(running, next, XFAB_MAX_NEXTHOPS - 1 - n, other_gw,
				   "the switch-over needs");
	free(running);
	free(next);
}

static void test_fib4_switch_over(void **state)
{
	int n = 9000;
	char *running = routes_text(BIG_IFS, n, own_24);
	char *next = routes_text(BIG_IFS, n, other_24);

	(void)state;
	/* Counted by hand from the FIB's layout (xfab_abi.h): the interfaces'
	 * own /32s take 4 groups (10.0.0.0/16 and /24, 10.128.0.0/16 and /24),
	 * both configs share them; the running config's host routes one per
	 * /24 (9000) and one per /16 (36): 9040. The new ones under 30.0.0.0/8
	 * add 2 for the first, 1 each after and 1 more per new /16: after
	 * route k, 9042 + k + k / 256 groups, which passes the 16,384 xfabd
	 * loaded first at k = 7315. */
	assert_switch_over_refused(running, next, 7315, other_24, "IPv4 FIB groups");
	free(running);
	free(next);
}

static void test_fib6_switch_over(void **state)
{
	int n = 9000;
	char *running = routes_text(BIG_IFS, n, own_v6_path);
	char *next = routes_text(BIG_IFS, n, other_v6_path);

	(void)state;
	/* Counted by hand from the FIB's layout (a 16-bit first level, then a
	 * group per (level, leading bytes) path): each /40 under 2001::/16
	 * needs its own byte-4 group, one per 2001:HH00::/24 at byte 3 (36
	 * for 9000) and 2001::/16's one at byte 2: 9037. The own /128s:
	 * fd00::1 and fd00::3 share 14 (bytes 2..15), fd00:1::1 shares
	 * fd00::'s first two and adds 12: 26. Running: 9063. The new /40s
	 * under 2002::/16 add 3 for the first, 1 each after and 1 more per
	 * new HH: after route k, 9066 + k + k / 256 groups, which passes
	 * 16384 first at k = 7291. */
	assert_switch_over_refused(running, next, 7291, other_v6_path, "IPv6 FIB groups");
	free(running);
	free(next);
}

/* ---- a route over a connected subnet or the switch's own address ---- */

/* Longest prefix wins, as on any router: a ROUTE shorter than a connected
 * subnet carries the rest of its range, the subnet and the switch's own
 * address stay more specific; a ROUTE inside a subnet takes that part of it
 * (the own address, a /32, still wins). Checked in the FIB the data plane
 * reads, against the LPM entries' meaning. */
static void test_route_covering_connected(void **state)
{
	const char *text = ROUTE("\"10.0.0.0/8\": {\"nexthop\": \"10.0.0.0\"},\n"
				 "   \"10.1.1.0/25\": {\"nexthop\": \"10.0.0.2\"},\n"
				 "   \"0.0.0.0/0\": {\"blackhole\": \"true\"}");
	struct world *w = world_start(text, 1);
	const struct {
		const char *addr;
		__u32 type;
	} want[] = {
	    {"10.1.1.1", XFAB_RT_LOCAL},       /* own address, inside the /25 */
	    {"10.1.1.7", XFAB_RT_NEXTHOP},     /* the /25 takes the subnet's lower half */
	    {"10.1.1.200", XFAB_RT_CONNECTED}, /* the rest of the subnet stays connected */
	    {"10.0.0.1", XFAB_RT_LOCAL},       /* own address on eth1 */
	    {"10.0.0.0", XFAB_RT_CONNECTED},   /* eth1's /31 */
	    {"10.9.9.9", XFAB_RT_NEXTHOP},     /* the /8 carries the rest */
	    {"11.0.0.1", XFAB_RT_BLACKHOLE},   /* the default route */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct in_addr a;
		__u32 e;

		inet_pton(AF_INET, want[i].addr, &a);
		e = xfab_fib4_lookup(w->tbl16, w->tbl8, XFAB_FIB_GROUPS_DEFAULT, ntohl(a.s_addr));
		if ((e & ~XFAB_FIB4_EXT) >> XFAB_FIB4_TYPE_SHIFT != want[i].type)
			fail_msg("%s: entry %#x, want type %u", want[i].addr, e, want[i].type);
	}
	world_down(w);
}

int main(void)
{
	struct CMUnitTest tests[N_CASES + 16];
	size_t n = 0;

	for (size_t i = 0; i < N_CASES; i++)
		tests[n++] = (struct CMUnitTest){.name = cases[i].name,
						 .test_func = test_hostile,
						 .initial_state = (void *)&cases[i]};
	tests[n++] = (struct CMUnitTest){.name = "a good reload writes through the same path",
					 .test_func = test_good_reload_writes};
	tests[n++] = (struct CMUnitTest){.name = "edges the rules let through",
					 .test_func = test_edges_accepted};
	tests[n++] = (struct CMUnitTest){.name = "the error count is the true count",
					 .test_func = test_true_error_count};
	tests[n++] = (struct CMUnitTest){.name = "-c: a directory, /dev/null, a FIFO",
					 .test_func = test_not_regular_files};
	tests[n++] = (struct CMUnitTest){.name = "capacity: nexthops, one config",
					 .test_func = test_nexthops_one_config};
	tests[n++] = (struct CMUnitTest){.name = "capacity: groups, one config",
					 .test_func = test_groups_one_config};
	tests[n++] = (struct CMUnitTest){.name = "capacity: groups by weight, one config",
					 .test_func = test_groups_by_weight_one_config};
	tests[n++] = (struct CMUnitTest){.name = "capacity: IPv4 FIB groups, one config",
					 .test_func = test_fib4_one_config};
	tests[n++] = (struct CMUnitTest){.name = "capacity: nexthops, reload switch-over",
					 .test_func = test_nexthops_switch_over};
	tests[n++] = (struct CMUnitTest){.name = "capacity: IPv4 FIB groups, reload switch-over",
					 .test_func = test_fib4_switch_over};
	tests[n++] = (struct CMUnitTest){.name = "capacity: IPv6 FIB groups, reload switch-over",
					 .test_func = test_fib6_switch_over};
	tests[n++] = (struct CMUnitTest){.name = "a route covering a connected subnet: longest "
						 "prefix, in the FIB",
					 .test_func = test_route_covering_connected};
	for (size_t i = 0; i < n; i++)
		tests[i].teardown_func = cleanup;
	return _cmocka_run_group_tests("config_hostile", tests, n, NULL, NULL);
}
