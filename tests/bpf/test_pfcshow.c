// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What an operator sees of PFC: `xfabctl show pfc counters|status`, `show
 * queue counters`, `show pfcwd config|stats` (text and -j) and xfabd's
 * Prometheus series, run against maps of the real layouts pinned in a
 * private directory under /sys/fs/bpf with values planted here. The
 * expected tables are written out by hand from the planted values (the
 * SONiC columns), the JSON is picked apart by jq and the exposition parsed
 * by Prometheus's own client library. No program is loaded: the maps are
 * what xfabctl and the metrics read.
 */
#include <bpf/bpf.h>
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi.h"
#include "common.h"
#include "harness.h"
#include "metrics.h"

static char dir[128];

enum { M_ABI, M_PORTS, M_QSTATS, M_QCFG, M_QWM, M_PFC_CFG, M_PFC_STATE, M_PFC_QUEUE, M_N };
static const struct {
	const char *name;
	enum bpf_map_type type;
	__u32 value_size, max;
} maps[M_N] = {
    [M_ABI] = {XFAB_MAP_ABI, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_abi_info), 1},
    [M_PORTS] = {XFAB_MAP_PORTS, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_port), XFAB_MAX_IFINDEX},
    [M_QSTATS] = {XFAB_MAP_QUEUE_STATS, BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(struct xfab_queue_stats),
		  XFAB_MAX_QUEUES},
    [M_QCFG] = {XFAB_MAP_QUEUE_CFG, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_queue_cfg),
		XFAB_MAX_QUEUES},
    [M_QWM] = {XFAB_MAP_QUEUE_WATERMARK, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_queue_watermark),
	       XFAB_MAX_QUEUES},
    [M_PFC_CFG] = {XFAB_MAP_PFC_CFG, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_pfc_cfg),
		   XFAB_MAX_PORTS},
    [M_PFC_STATE] = {XFAB_MAP_PFC_STATE, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_pfc_state),
		     XFAB_MAX_QUEUES},
    [M_PFC_QUEUE] = {XFAB_MAP_PFC_QUEUE, BPF_MAP_TYPE_ARRAY, sizeof(struct xfab_pfc_queue),
		     XFAB_MAX_QUEUES},
};
static int fd[M_N];

/* The metrics writer's map lookup: the maps made here, by name. */
static int fd_by_name(void *arg, const char *name)
{
	(void)arg;
	for (int m = 0; m < M_N; m++)
		if (!strcmp(maps[m].name, name))
			return fd[m];
	return -1;
}

/* eth1 (slot 0): priorities 3 and 4 lossless; 3 paused by the peer for a
 * minute, its PG above XOFF, its queue stormed (drop); 4 watched, quiet,
 * its last pause long over. eth2 (slot 1): priority 3 lossless, its gate
 * closed, a storm seen and restored (forward, restoration 0: infinite).
 * eth3 (slot 2): no PFC; pause frames for priority 0 ignored. */
static const char *const names[] = {"eth1", "eth2", "eth3"};

static void put(int map, __u32 key, const void *v)
{
	assert_int_equal(bpf_map_update_elem(fd[map], &key, v, BPF_ANY), 0);
}

static void plant_stormed(int stormed)
{
	struct xfab_pfc_queue q = {.stormed = (__u8)stormed,
				   .wd_action = XFAB_PFCWD_DROP,
				   .wd_detection_ms = 200,
				   .wd_restoration_ms = 400,
				   .wd_poll_ms = 100,
				   .paused_ns = 2500000000ull,
				   .pauses = 9,
				   .tx_frames = 11,
				   .tx_xon = 2,
				   .storms_detected = 2,
				   .storms_restored = 1,
				   .wd_tx_ok = 10,
				   .wd_tx_drop = 11,
				   .wd_rx_ok = 12,
				   .wd_rx_drop = 13,
				   .wd_tx_ok_last = 14,
				   .wd_tx_drop_last = 15,
				   .wd_rx_ok_last = 16,
				   .wd_rx_drop_last = 17};

	put(M_PFC_QUEUE, XFAB_QUEUE_KEY(0, 3), &q);
}

static void plant(void)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xfab_queue_stats *qs = calloc((size_t)ncpu, sizeof(*qs));
	struct xfab_pfc_cfg c0 = {.enabled = 0x18, .speed_mbps = 10000}, c1 = {.enabled = 0x08};
	struct xfab_pfc_state s03 = {.paused_until_ns = xfab_mono_ns() + 60000000000ull,
				     .rx_frames = 17,
				     .rx_xon = 5,
				     .occupancy_bytes = 1234,
				     .peak_occupancy_bytes = 5678,
				     .wd_rx_dropped = 7,
				     .wd_tx_dropped = 8,
				     .xoff = 1},
			      s04 = {.paused_until_ns = 1, .rx_frames = 4},
			      s13 = {.rx_frames = 900}, s20 = {.rx_frames = 3, .rx_ignored = 3};
	struct xfab_pfc_queue q04 = {.wd_action = XFAB_PFCWD_DROP,
				     .wd_detection_ms = 200,
				     .wd_restoration_ms = 400,
				     .wd_poll_ms = 100},
			      q13 = {.gated = 1,
				     .wd_action = XFAB_PFCWD_FORWARD,
				     .wd_detection_ms = 300,
				     .wd_poll_ms = 100,
				     .tx_frames = 33,
				     .storms_detected = 1,
				     .storms_restored = 1,
				     .wd_tx_ok = 5};
	__u32 zero = 0;

	assert_non_null(qs);
	for (__u32 i = 0; i < 3; i++) {
		struct xfab_port p = {.slot = (__u16)i, .ifindex = 101 + i};

		snprintf(p.name, sizeof(p.name), "%s", names[i]);
		put(M_PORTS, p.ifindex, &p);
	}
	c0.xoff_bytes[3] = 40000;
	c0.xon_bytes[3] = 20000;
	put(M_PFC_CFG, 0, &c0);
	put(M_PFC_CFG, 1, &c1);
	put(M_PFC_STATE, XFAB_QUEUE_KEY(0, 3), &s03);
	put(M_PFC_STATE, XFAB_QUEUE_KEY(0, 4), &s04);
	put(M_PFC_STATE, XFAB_QUEUE_KEY(1, 3), &s13);
	put(M_PFC_STATE, XFAB_QUEUE_KEY(2, 0), &s20);
	plant_stormed(1);
	put(M_PFC_QUEUE, XFAB_QUEUE_KEY(0, 4), &q04);
	put(M_PFC_QUEUE, XFAB_QUEUE_KEY(1, 3), &q13);
	/* eth1 UC3 over two CPUs: 100 + 1 packets */
	qs[0] = (struct xfab_queue_stats){
	    .packets = 100, .bytes = 150000, .ecn_marked = 6, .dropped = 2};
	if (ncpu > 1)
		qs[1].packets = 1;
	else
		qs[0].packets = 101;
	put(M_QSTATS, XFAB_QUEUE_KEY(0, 3), qs);
	free(qs);
	(void)zero;
}

static int setup(void **state)
{
	char path[256];

	(void)state;
	if (xfab_ensure_bpffs())
		return -1;
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/xfab-test-pfcshow-%d", (int)getpid());
	if (mkdir(dir, 0700))
		return -1;
	for (int m = 0; m < M_N; m++) {
		fd[m] = bpf_map_create(maps[m].type, maps[m].name, 4, maps[m].value_size,
				       maps[m].max, NULL);
		snprintf(path, sizeof(path), "%s/%s", dir, maps[m].name);
		if (fd[m] < 0 || bpf_obj_pin(fd[m], path))
			return -1;
	}
	if (xfab_abi_write(fd[M_ABI]))
		return -1;
	plant();
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	for (int m = 0; m < M_N; m++) {
		snprintf(path, sizeof(path), "%s/%s", dir, maps[m].name);
		unlink(path);
		if (fd[m] >= 0)
			close(fd[m]);
	}
	return rmdir(dir);
}

/* Runs `xfabctl -P dir ARGS` (| FILTER, when given); its stdout in out,
 * the exit status returned. */
static int run(char *out, size_t len, const char *args, const char *filter)
{
	char cmd[1024];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' -P '%s' %s%s%s", h_build_path("xfabctl"), dir, args,
		 filter ? " | " : "", filter ? filter : "");
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The table's words: each line's runs of blanks made one space, lines of
 * dashes (the header rule) dropped; alignment aside, what the table says. */
static void words(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in && o + 2 < len) {
		const char *eol = strchr(in, '\n'), *s;
		int rule = 1, sp = 0;
		size_t start = o;

		if (!eol)
			eol = in + strlen(in);
		for (s = in; s < eol; s++)
			if (*s != '-' && *s != ' ')
				rule = 0;
		if (!rule || eol == in) {
			for (s = in; s < eol && o + 2 < len; s++) {
				if (isspace((unsigned char)*s)) {
					sp = o > start;
					continue;
				}
				if (sp)
					out[o++] = ' ';
				sp = 0;
				out[o++] = *s;
			}
			out[o++] = '\n';
		}
		in = *eol ? eol + 1 : eol;
	}
	out[o] = '\0';
}

static void expect_table(const char *args, const char *want, int want_rc)
{
	char out[16384], got[16384];

	assert_int_equal(run(out, sizeof(out), args, NULL), want_rc);
	words(out, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("xfabctl %s printed\n%s\nwords\n%s\nwanted\n%s", args, out, got, want);
}

static void expect_json(const char *args, const char *jq, const char *want)
{
	char out[16384], filter[1024];

	snprintf(filter, sizeof(filter), "jq -c '%s'", jq);
	assert_int_equal(run(out, sizeof(out), args, filter), 0);
	if (strcmp(out, want))
		fail_msg("xfabctl %s | %s:\n%s\nwanted\n%s", args, filter, out, want);
}

static void test_pfc_counters(void **state)
{
	(void)state;
	expect_table("show pfc counters",
		     "Port Rx PFC0 PFC1 PFC2 PFC3 PFC4 PFC5 PFC6 PFC7\n"
		     "eth1 0 0 0 17 4 0 0 0\n"
		     "eth2 0 0 0 900 0 0 0 0\n"
		     "eth3 3 0 0 0 0 0 0 0\n"
		     "\n"
		     "Port Tx PFC0 PFC1 PFC2 PFC3 PFC4 PFC5 PFC6 PFC7\n"
		     "eth1 0 0 0 11 0 0 0 0\n"
		     "eth2 0 0 0 33 0 0 0 0\n"
		     "eth3 0 0 0 0 0 0 0 0\n",
		     0);
	expect_json("-j show pfc counters",
		    "[.[] | [.port, .rx, .tx, .rx_xon, .tx_xon, .rx_ignored]]",
		    "[[\"eth1\",[0,0,0,17,4,0,0,0],[0,0,0,11,0,0,0,0],[0,0,0,5,0,0,0,0],"
		    "[0,0,0,2,0,0,0,0],[0,0,0,0,0,0,0,0]],"
		    "[\"eth2\",[0,0,0,900,0,0,0,0],[0,0,0,33,0,0,0,0],[0,0,0,0,0,0,0,0],"
		    "[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0]],"
		    "[\"eth3\",[3,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],"
		    "[0,0,0,0,0,0,0,0],[3,0,0,0,0,0,0,0]]]\n");
}

/* Paused now: eth1:3 (a minute of pause left), eth2:3 (gate closed); not
 * eth1:4 (its pause ran out long ago). */
static void test_pfc_status(void **state)
{
	(void)state;
	expect_table("show pfc status",
		     "Interface Lossless priorities Paused XOFF Speed(Mbps)\n"
		     "eth1 3,4 3 3 10000\n"
		     "eth2 3 3 - 0\n"
		     "eth3 N/A - - 0\n",
		     0);
	expect_json("-j show pfc status",
		    "[.[] | [.port, .lossless_priorities, (.priorities[] | [.priority, .paused, "
		    ".gated, .xoff, .xoff_bytes, .xon_bytes, .occupancy_bytes, "
		    ".peak_occupancy_bytes, .stormed, (.pause_left_ns > 50000000000)])]]",
		    "[[\"eth1\",[3,4],[3,true,false,true,40000,20000,1234,5678,true,true],"
		    "[4,false,false,false,0,0,0,0,false,false]],"
		    "[\"eth2\",[3],[3,true,true,false,0,0,0,0,false,false]],"
		    "[\"eth3\",[]]]\n");
}

static void test_queue_counters(void **state)
{
	char want[4096];
	size_t o;

	(void)state;
	o = (size_t)snprintf(
	    want, sizeof(want),
	    "Port TxQ Counter/pkts Counter/bytes Drop/pkts ECN marked Paused(ms)\n");
	for (int p = 0; p < 3; p++)
		for (int tc = 0; tc < 8; tc++)
			o += (size_t)snprintf(
			    want + o, sizeof(want) - o, "%s UC%d %s\n", names[p], tc,
			    p == 0 && tc == 3 ? "101 150000 2 6 2500.000" : "0 0 0 0 0.000");
	expect_table("show queue counters", want, 0);
	expect_json("-j show queue counters",
		    "[.[] | select(.port == \"eth1\" and .tc == 3 or .port == \"eth2\" and .tc == "
		    "3) | [.port, .tc, .packets, .bytes, .dropped, .ecn_marked, .paused_ns, "
		    ".pauses, .paused]]",
		    "[[\"eth1\",3,101,150000,2,6,2500000000,9,false],"
		    "[\"eth2\",3,0,0,0,0,0,0,true]]\n");
	/* show queues: the same, with the WRED profile */
	expect_json("-j show queues", "[.[] | select(.port == \"eth1\" and .tc == 3) | .paused_ns]",
		    "[2500000000]\n");
}

static void test_pfcwd_config(void **state)
{
	(void)state;
	expect_table("show pfcwd config",
		     "Changed polling interval to 100ms\n"
		     "PORT ACTION DETECTION TIME RESTORATION TIME\n"
		     "eth1 drop 200 400\n"
		     "eth2 forward 300 infinite\n",
		     0);
	expect_json("-j show pfcwd config", ".",
		    "{\"poll_interval_ms\":100,\"ports\":["
		    "{\"port\":\"eth1\",\"action\":\"drop\",\"detection_time_ms\":200,"
		    "\"restoration_time_ms\":400,\"priorities\":[3,4]},"
		    "{\"port\":\"eth2\",\"action\":\"forward\",\"detection_time_ms\":300,"
		    "\"restoration_time_ms\":0,\"priorities\":[3]}]}\n");
}

#define STATS_HEAD                                                                                 \
	"QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP RX OK/DROP TX LAST OK/DROP RX LAST "      \
	"OK/DROP\n"

/* The watched queues with counters; eth1:4 (all zero) only with --empty;
 * --check-storm: 1 while a queue is stormed, 0 once none is. */
static void test_pfcwd_stats(void **state)
{
	(void)state;
	expect_table("show pfcwd stats",
		     STATS_HEAD "eth1:3 stormed 2/1 10/11 12/13 14/15 16/17\n"
				"eth2:3 operational 1/1 5/0 0/0 0/0 0/0\n",
		     0);
	expect_table("show pfcwd stats --empty",
		     STATS_HEAD "eth1:3 stormed 2/1 10/11 12/13 14/15 16/17\n"
				"eth1:4 operational 0/0 0/0 0/0 0/0 0/0\n"
				"eth2:3 operational 1/1 5/0 0/0 0/0 0/0\n",
		     0);
	expect_table("show pfcwd stats --check-storm",
		     STATS_HEAD "eth1:3 stormed 2/1 10/11 12/13 14/15 16/17\n"
				"eth2:3 operational 1/1 5/0 0/0 0/0 0/0\n",
		     1);
	expect_json("-j show pfcwd stats", ".[0]",
		    "{\"queue\":\"eth1:3\",\"port\":\"eth1\",\"priority\":3,\"status\":\"stormed\","
		    "\"action\":\"drop\",\"storm_detected\":2,\"storm_restored\":1,\"tx_ok\":10,"
		    "\"tx_drop\":11,\"rx_ok\":12,\"rx_drop\":13,\"tx_last_ok\":14,"
		    "\"tx_last_drop\":15,\"rx_last_ok\":16,\"rx_last_drop\":17}\n");
	plant_stormed(0);
	expect_table("show pfcwd stats --check-storm",
		     STATS_HEAD "eth1:3 operational 2/1 10/11 12/13 14/15 16/17\n"
				"eth2:3 operational 1/1 5/0 0/0 0/0 0/0\n",
		     0);
	plant_stormed(1);
}

/* The exposition holds each planted value once under its series, and
 * parses with Prometheus's client library. */
static void test_metrics(void **state)
{
	static const char *const want[] = {
	    "xfab_pfc_rx_frames_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 17\n",
	    "xfab_pfc_rx_frames_total{switch=\"sw\",port=\"eth2\",priority=\"3\"} 900\n",
	    "xfab_pfc_rx_xon_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 5\n",
	    "xfab_pfc_rx_ignored_total{switch=\"sw\",port=\"eth3\",priority=\"0\"} 3\n",
	    "xfab_pfc_tx_frames_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 11\n",
	    "xfab_pfc_tx_frames_total{switch=\"sw\",port=\"eth2\",priority=\"3\"} 33\n",
	    "xfab_pfc_tx_xon_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 2\n",
	    "xfab_pfc_paused_seconds_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} "
	    "2.500000000\n",
	    "xfab_pfc_pauses_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 9\n",
	    "xfab_pfc_paused{switch=\"sw\",port=\"eth2\",priority=\"3\"} 1\n",
	    "xfab_pfc_paused{switch=\"sw\",port=\"eth1\",priority=\"4\"} 0\n",
	    "xfab_pfc_occupancy_bytes{switch=\"sw\",port=\"eth1\",priority=\"3\"} 1234\n",
	    "xfab_pfc_peak_occupancy_bytes{switch=\"sw\",port=\"eth1\",priority=\"3\"} 5678\n",
	    "xfab_pfc_xoff{switch=\"sw\",port=\"eth1\",priority=\"3\"} 1\n",
	    "xfab_pfcwd_storms_detected_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 2\n",
	    "xfab_pfcwd_storms_restored_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 1\n",
	    "xfab_pfcwd_stormed{switch=\"sw\",port=\"eth1\",priority=\"3\"} 1\n",
	    "xfab_pfcwd_stormed{switch=\"sw\",port=\"eth2\",priority=\"3\"} 0\n",
	    "xfab_pfcwd_tx_dropped_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 8\n",
	    "xfab_pfcwd_rx_dropped_total{switch=\"sw\",port=\"eth1\",priority=\"3\"} 7\n",
	};
	static struct xfab_metrics_src src = {.hostname = "sw", .n_ports = 3};
	char path[] = "/tmp/xfab-pfcshow-XXXXXX", cmd[512], verdict[256] = "";
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f, *p;
	int tmp;

	(void)state;
	for (int i = 0; i < 3; i++)
		snprintf(src.port_names[i], sizeof(src.port_names[i]), "%s", names[i]);
	src.map_fd = fd_by_name;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	agent_metrics_write(&src, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *hit = strstr(buf, want[i]);

		if (!hit || (hit != buf && hit[-1] != '\n'))
			fail_msg("no line %s", want[i]);
	}
	/* 16 PFC families, 3 ports x 8 priorities each */
	{
		size_t lines = 0;

		for (const char *s = buf; (s = strstr(s, "{switch=\"sw\",port=\"")); s++)
			if (strstr(s, "priority=\"") && strchr(s, '\n') > strstr(s, "priority=\""))
				lines++;
		assert_int_equal(lines, 16 * 3 * 8);
	}
	tmp = mkstemp(path);
	assert_true(tmp >= 0);
	assert_int_equal(write(tmp, buf, len), (ssize_t)len);
	close(tmp);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import sys\n"
		 "from prometheus_client.parser import text_string_to_metric_families as t\n"
		 "fams = {f.name: f for f in t(open(sys.argv[1]).read())}\n"
		 "s = [x.value for x in fams[\"xfab_pfc_paused_seconds\"].samples"
		 " if x.labels[\"port\"] == \"eth1\" and x.labels[\"priority\"] == \"3\"]\n"
		 "print(fams[\"xfab_pfcwd_stormed\"].type, s)' %s 2>&1",
		 path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(verdict, 1, sizeof(verdict) - 1, p);
	verdict[n] = '\0';
	pclose(p);
	unlink(path);
	free(buf);
	assert_string_equal(verdict, "gauge [2.5]\n");
}

/* A word the table does not know, or a view left unfinished: the usage,
 * exit status 2, nothing printed on stdout. */
static void test_bad_words(void **state)
{
	static const char *const bad[] = {
	    "show pfc",		  "show pfc bogus",	      "show pfcwd",
	    "show queue packets", "show pfcwd stats --bogus", "show pfc counters extra"};
	char out[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char args[128];

		snprintf(args, sizeof(args), "%s 2>/dev/null", bad[i]);
		assert_int_equal(run(out, sizeof(out), args, NULL), 2);
		assert_string_equal(out, "");
	}
	snprintf(out, sizeof(out), "'%s' -P '%s' show pfc bogus 2>&1 >/dev/null | head -1",
		 h_build_path("xfabctl"), dir);
	{
		FILE *p = popen(out, "r");
		char line[256] = "";

		assert_non_null(p);
		assert_non_null(fgets(line, sizeof(line), p));
		pclose(p);
		assert_string_equal(line, "xfabctl: unknown object 'bogus'\n");
	}
}

/* xfabctl's tables: `show`'s objects in the order the show files rank
 * them (the oracle: the order xfabctl has always listed them in, and
 * datapath after ports, fastpath after drops), a verb's
 * own --help from its option table, and an option or a value the command's
 * table does not take refused with exit status 2 before anything runs. */
static void test_cli_tables(void **state)
{
	static const char want[] =
	    "ports\ndatapath\ncounters\ndrops\nfastpath\nroutes\nfib\nnexthops\ngroups\nlb\nneighbo"
	    "rs\ncopp\n"
	    "acl\n"
	    "flowlets\nte\nqueues\nwatermark\nqueue counters\nfib-sync\ninterfaces "
	    "status\ninterfaces damping\n"
	    "pfc counters\n"
	    "pfc status\npfcwd config\npfcwd stats\nvnet brief\nvnet routes\nvnet counters\n"
	    "vxlan tunnel\nconfig-coverage\n";
	static const char *const refused[] = {
	    "show routes --in eth1", "trace --in eth1 --src 10.0.0.1 --dst 10.0.0.2 --sport 7x",
	    "te del --via 10.0.0.1", "watch counters --interval soon", "hash --bogus"};
	char out[16384];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "--help",
			     "sed -n '/^objects:/,$p' | sed 1d | sed 's/^  //; s/  .*//'"),
			 0);
	assert_string_equal(out, want);
	assert_int_equal(run(out, sizeof(out), "te add --help", NULL), 0);
	assert_non_null(strstr(out, "usage: xfabctl te add [OPTIONS] --in PORT --prefix P"));
	assert_non_null(strstr(out, "      --via GW[,GW...]"));
	assert_null(strstr(out, "--sport"));
	assert_int_equal(run(out, sizeof(out), "show pfcwd stats --help", NULL), 0);
	assert_non_null(strstr(out, "      --check-storm"));
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char args[160];

		snprintf(args, sizeof(args), "%s 2>/dev/null", refused[i]);
		if (run(out, sizeof(out), args, NULL) != 2)
			fail_msg("xfabctl %s: not refused", refused[i]);
		assert_string_equal(out, "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pfc_counters),   cmocka_unit_test(test_pfc_status),
	    cmocka_unit_test(test_queue_counters), cmocka_unit_test(test_pfcwd_config),
	    cmocka_unit_test(test_pfcwd_stats),	   cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_bad_words),	   cmocka_unit_test(test_cli_tables),
	};

	return cmocka_run_group_tests_name("pfcshow", tests, setup, teardown);
}
