// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trace mode (what `xfabctl trace` uses): a frame with the trace record in
 * its XDP metadata must change no state at all (every map byte-identical
 * before and after, counters, flowlets and queues included), and its
 * record must tell what a real packet then does. And `xfabctl trace --in
 * PORT` finds PORT by the name in the port table and traces in the
 * namespace holding it, from that namespace and from another.
 */
#define _GNU_SOURCE /* setns */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"

static const char *config_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"trace-test\"}},\n"
    " \"PORT\": {\"p1\": {}, \"p2\": {\"rate\": \"1000\"}, \"p3\": {\"rate\": \"1000\"}},\n"
    " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.0/31\": {}, \"p3|10.0.3.0/31\": {}},\n"
    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.3.1\"}},\n"
    " \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"}, \"p3|10.0.3.1\": "
    "{\"neigh\": \"02:00:00:00:03:01\"},\n"
    "   \"p1|10.0.1.2\": {\"neigh\": \"02:00:00:00:01:02\"}},\n"
    " \"WRED_PROFILE\": {\"E\": {\"min_threshold\": \"1000\", \"max_threshold\": \"2000\"}},\n"
    " \"QUEUE\": {\"p2|0-7\": {\"wred_profile\": \"E\"}, \"p3|0-7\": {\"wred_profile\": \"E\"}},\n"
    " \"FLOWLET\": {\"global\": {\"enabled\": \"true\", \"gap_us\": \"10000000\"}},\n"
    " \"TE_PATH\": {\"p1|10.9.5.0/24\": {\"nexthop\": \"10.0.3.1\"}}\n"
    "}\n";

static struct harness H;

/* ---- every map of the object, as bytes ---- */

struct snapshot {
	char *buf;
	size_t len;
};

static void snap_add(struct snapshot *s, const void *p, size_t n)
{
	s->buf = realloc(s->buf, s->len + n);
	assert_non_null(s->buf);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* An array map's values, all at once: mmapped when the map allows it
 * (the FIBs: reading 8M entries one syscall at a time takes minutes),
 * else in batches. */
static void snap_array(struct snapshot *s, struct bpf_map *map, size_t vsz)
{
	int fd = bpf_map__fd(map);
	__u32 n = bpf_map__max_entries(map), out = 0, count;
	size_t total = (size_t)n * vsz;
	void *keys, *vals, *mem;
	int err;

	if (bpf_map__map_flags(map) & BPF_F_MMAPABLE) {
		mem = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
		assert_true(mem != MAP_FAILED);
		snap_add(s, mem, total);
		munmap(mem, total);
		return;
	}
	keys = calloc(n, sizeof(__u32));
	vals = calloc(n, vsz);
	assert_non_null(keys);
	assert_non_null(vals);
	count = n;
	err = bpf_map_lookup_batch(fd, NULL, &out, keys, vals, &count, NULL);
	assert_true(err == 0 || errno == ENOENT);
	assert_int_equal(count, n);
	snap_add(s, vals, total);
	free(keys);
	free(vals);
}

static void snapshot(struct snapshot *s)
{
	struct bpf_map *map;
	int ncpu = libbpf_num_possible_cpus();

	s->buf = NULL;
	s->len = 0;
	bpf_object__for_each_map(map, H.skel->obj)
	{
		int fd = bpf_map__fd(map);
		size_t ksz = bpf_map__key_size(map), vsz = bpf_map__value_size(map);
		enum bpf_map_type type = bpf_map__type(map);
		char key[256], next[256], *val;
		void *prev = NULL;

		/* scratch: the pipeline's per-packet working memory (its
		 * trace slot is where a trace works), not state */
		if (!strcmp(bpf_map__name(map), "scratch"))
			continue;
		if (type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH)
			vsz = ((vsz + 7) / 8 * 8) * (size_t)ncpu;
		snap_add(s, bpf_map__name(map), strlen(bpf_map__name(map)));
		if (type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) {
			snap_array(s, map, vsz);
			continue;
		}
		val = calloc(1, vsz);
		assert_non_null(val);
		while (bpf_map_get_next_key(fd, prev, next) == 0) {
			memcpy(key, next, ksz);
			prev = key;
			/* a DEVMAP's empty slots have keys but no value */
			if (type == BPF_MAP_TYPE_DEVMAP_HASH ||
			    (type == BPF_MAP_TYPE_DEVMAP && bpf_map_lookup_elem(fd, key, val))) {
				snap_add(s, key, ksz);
				continue;
			}
			assert_int_equal(bpf_map_lookup_elem(fd, key, val), 0);
			snap_add(s, key, ksz);
			snap_add(s, val, vsz);
		}
		free(val);
	}
}

/* ---- frames ---- */

/* UDP over IPv4 from 10.0.1.2 to dst port 80, 64 bytes of payload. */
static size_t build(__u8 *b, const char *dst, __u8 ttl, __u16 sport, __u8 ecn)
{
	struct xfab_frame f = {.ip4 = {.ttl = ttl, .tos = ecn},
			       .l4 = {.proto = IPPROTO_UDP, .sport = sport, .dport = 80},
			       .payload_len = 64};
	long len;

	memcpy(f.dmac, H.mac[0], 6);
	memcpy(f.smac, "\x02\xaa\x00\x00\x00\x01", 6);
	assert_int_equal(xfab_frame_addrs(&f, "10.0.1.2", dst), 0);
	len = xfab_frame_build(&f, b, 14 + 20 + 8 + 64, NULL);
	assert_int_equal(len, 14 + 20 + 8 + 64);
	return (size_t)len;
}

/* Runs a frame in trace mode; returns the record and the verdict. */
static void trace(const __u8 *frame, size_t len, struct xfab_trace *rec, __u32 *retval)
{
	__u8 in[512], out[512];
	struct xfab_trace *t = (void *)in;
	struct xdp_md ctx = {.data = sizeof(*t),
			     .data_end = (__u32)(sizeof(*t) + len),
			     .ingress_ifindex = H.ifindex[0]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in,
		    .data_size_in = (__u32)(sizeof(*t) + len), .data_out = out,
		    .data_size_out = sizeof(out), .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = 1);

	memset(t, 0, sizeof(*t));
	t->magic = XFAB_TRACE_MAGIC;
	memcpy(in + sizeof(*t), frame, len);
	assert_int_equal(
	    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_xdp_trace), &opts), 0);
	memcpy(rec, out, sizeof(*rec));
	*retval = opts.retval;
}

/* A real packet: returns the member (last MAC byte pair) or -1. */
static int real(const __u8 *frame, size_t len)
{
	__u8 out[512];
	size_t out_len = sizeof(out);
	__u32 ret;

	assert_int_equal(h_run(&H, 0, 0, frame, len, out, &out_len, &ret), 0);
	if (ret != 4)
		return -1;
	return out[4] << 8 | out[5];
}

static int member_of_nexthop(__u16 nh_id)
{
	struct xfab_nexthop nh;
	__u32 key = nh_id;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_NEXTHOPS), &key, &nh), 0);
	return nh.dmac[4] << 8 | nh.dmac[5];
}

static void test_no_state_change(void **state)
{
	struct snapshot before, after;
	struct xfab_trace rec;
	__u8 frame[256];
	__u32 ret;

	(void)state;
	/* some real traffic first, so counters, flowlets and queues hold state */
	for (int i = 0; i < 50; i++)
		real(frame, build(frame, "10.9.0.1", 64, (__u16)(1000 + i), 2));
	snapshot(&before);
	for (int i = 0; i < 200; i++) {
		/* new flows, known flows, TTL expiry, no route, connected */
		trace(frame, build(frame, "10.9.0.1", 64, (__u16)(1000 + i), 2), &rec, &ret);
		trace(frame, build(frame, "10.9.0.1", 1, 7, 2), &rec, &ret);
		trace(frame, build(frame, "198.51.100.1", 64, 7, 2), &rec, &ret);
		trace(frame, build(frame, "10.0.1.2", 64, 7, 0), &rec, &ret);
		trace(frame, build(frame, "10.9.5.1", 64, (__u16)(1000 + i), 2), &rec, &ret);
	}
	snapshot(&after);
	assert_int_equal(before.len, after.len);
	assert_memory_equal(before.buf, after.buf, before.len);
	print_message("    %zu bytes of maps identical across 1000 traces\n", before.len);
	free(before.buf);
	free(after.buf);
}

static void test_record_matches_reality(void **state)
{
	struct xfab_trace rec;
	__u8 frame[256];
	__u32 ret;

	(void)state;
	for (int i = 0; i < 100; i++) {
		size_t len = build(frame, "10.9.1.1", 64, (__u16)(20000 + i), 2);
		int predicted, actual;

		/* a flow not seen yet: the record says so and predicts its member */
		trace(frame, len, &rec, &ret);
		assert_int_equal(ret, 4);
		assert_int_equal(rec.action, XFAB_ACT_FORWARD);
		assert_int_equal(rec.stage, XFAB_STAGE_REWRITE);
		assert_true(rec.flags & XFAB_TRACE_GROUP);
		assert_true(rec.flags & XFAB_TRACE_FLOWLET_NEW);
		/* the real packet starts the flowlet (random member); now the
		 * trace must report the member it took */
		actual = real(frame, len);
		trace(frame, len, &rec, &ret);
		assert_true(rec.flags & XFAB_TRACE_FLOWLET_CONT);
		predicted = member_of_nexthop(rec.nexthop);
		assert_int_equal(predicted, actual);
		assert_int_equal(rec.egress_ifindex, H.ifindex[(actual >> 8) - 1]);
	}
	trace(frame, build(frame, "10.9.1.1", 1, 5, 2), &rec, &ret);
	assert_int_equal(rec.action, XFAB_ACT_PUNT);
	assert_int_equal(rec.reason, XFAB_PUNT_TTL_EXPIRED);
	trace(frame, build(frame, "198.51.100.1", 64, 5, 2), &rec, &ret);
	assert_int_equal(rec.action, XFAB_ACT_DROP);
	assert_int_equal(rec.reason, XFAB_DROP_NO_ROUTE);
	assert_int_equal(rec.stage, XFAB_STAGE_L3);
}

static __u64 lb(__u32 event)
{
	return h_percpu_u64(&H, XFAB_MAP_LB_STATS, event, 0, 1);
}

/* Traces 100 flows to the TE prefix 10.9.5.0/24 (pinned from p1 to p3's
 * gateway): each record reports `flag` and not `other`, and the egress of
 * gateway `member`; the TE counters stay where they were. */
static void te_traces(__u8 flag, __u8 other, int member)
{
	__u64 hit0 = lb(XFAB_LB_TE_HIT), fb0 = lb(XFAB_LB_TE_FALLBACK);
	struct xfab_trace rec;
	__u8 frame[256];
	__u32 ret;

	for (int i = 0; i < 100; i++) {
		char dst[32];

		snprintf(dst, sizeof(dst), "10.9.5.%d", i + 1);
		trace(frame, build(frame, dst, 64, (__u16)(3000 + i), 2), &rec, &ret);
		assert_int_equal(ret, 4); /* XDP_REDIRECT */
		assert_int_equal(rec.action, XFAB_ACT_FORWARD);
		assert_int_equal(rec.flags & flag, flag); /* every flag asked for */
		assert_false(rec.flags & other);
		assert_int_equal(member_of_nexthop(rec.nexthop), member);
		assert_int_equal(rec.egress_ifindex, H.ifindex[(member >> 8) - 1]);
	}
	/* expiring TTL on a TE prefix: punted, nothing counted either */
	trace(frame, build(frame, "10.9.5.1", 1, 5, 2), &rec, &ret);
	assert_int_equal(rec.action, XFAB_ACT_PUNT);
	assert_int_equal(rec.reason, XFAB_PUNT_TTL_EXPIRED);
	assert_int_equal(lb(XFAB_LB_TE_HIT), hit0);
	assert_int_equal(lb(XFAB_LB_TE_FALLBACK), fb0);
}

/*
 * TE in trace mode: the record reports the TE decision (a hit while the
 * pinned path is up, a fallback to the route's group while it is down)
 * and no TE counter moves; a real packet then moves exactly its counter.
 * Outside the TE prefix, no TE flag.
 */
static void test_te_trace(void **state)
{
	struct xfab_trace rec;
	__u8 frame[256];
	__u32 ret;
	__u64 hit0, fb0;

	(void)state;
	te_traces(XFAB_TRACE_TE_HIT, XFAB_TRACE_TE_FALLBACK | XFAB_TRACE_GROUP, 0x0301);
	hit0 = lb(XFAB_LB_TE_HIT);
	fb0 = lb(XFAB_LB_TE_FALLBACK);
	assert_int_equal(real(frame, build(frame, "10.9.5.9", 64, 77, 2)), 0x0301);
	assert_int_equal(lb(XFAB_LB_TE_HIT), hit0 + 1);
	assert_int_equal(lb(XFAB_LB_TE_FALLBACK), fb0);

	trace(frame, build(frame, "10.9.6.1", 64, 77, 2), &rec, &ret);
	assert_false(rec.flags & (XFAB_TRACE_TE_HIT | XFAB_TRACE_TE_FALLBACK));
	assert_true(rec.flags & XFAB_TRACE_GROUP);

	H.oper_up[2] = 0; /* p3, the pinned path, goes down */
	assert_int_equal(h_reapply(&H, NULL), 0);
	te_traces(XFAB_TRACE_TE_FALLBACK | XFAB_TRACE_GROUP, XFAB_TRACE_TE_HIT, 0x0201);
	assert_int_equal(real(frame, build(frame, "10.9.5.9", 64, 77, 2)), 0x0201);
	assert_int_equal(lb(XFAB_LB_TE_HIT), hit0 + 1);
	assert_int_equal(lb(XFAB_LB_TE_FALLBACK), fb0 + 1);
	H.oper_up[2] = 1;
	assert_int_equal(h_reapply(&H, NULL), 0);
}

/*
 * `xfabctl trace --in PORT` resolves PORT by the name in the switch's port
 * table and runs the frame in the namespace that holds it: from the
 * switch's own namespace, and from the namespace the test started in (a
 * lab's root), where it finds the switch's under /run/netns. The TE entry
 * of p1 tells which port the frame came in by: from p1 it is steered to p3,
 * from p2 it is not.
 */
static int home_ns = -1; /* the namespace the test started in */
static char ctl_pin_dir[64], ns_path[64];
static int made_run_netns;

/* xfabctl's JSON answer to a trace, as [ingress, action, egress, te]. */
static void ctl_trace(int ns, const char *in, const char *dst, char *out, size_t len)
{
	char cmd[512];
	int here = -1;
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "%s -P %s -j trace --in %s --src 10.0.1.2 --dst %s --proto udp --sport 4000 "
		 "--dport 5000 | jq -c '[.ingress, .action, .egress, .te]'",
		 h_build_path("xfabctl"), ctl_pin_dir, in, dst);
	if (ns >= 0) {
		here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		assert_true(here >= 0);
		assert_int_equal(setns(ns, CLONE_NEWNET), 0);
	}
	p = popen(cmd, "r");
	if (here >= 0) {
		assert_int_equal(setns(here, CLONE_NEWNET), 0);
		close(here);
	}
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	pclose(p);
}

static void test_xfabctl_trace_ports(void **state)
{
	char out[512];
	int fd;

	(void)state;
	assert_int_equal(xfab_ensure_bpffs(), 0);
	snprintf(ctl_pin_dir, sizeof(ctl_pin_dir), "/sys/fs/bpf/xfab-test-%d", (int)getpid());
	assert_int_equal(bpf_object__pin_maps(H.skel->obj, ctl_pin_dir), 0);
	snprintf(out, sizeof(out), "%s/prog_trace", ctl_pin_dir);
	assert_int_equal(bpf_program__pin(H.skel->progs.xfab_xdp_trace, out), 0);

	ctl_trace(-1, "p1", "10.9.5.7", out, sizeof(out));
	assert_string_equal(out, "[\"p1\",\"forward\",\"p3\",true]\n");
	ctl_trace(-1, "p2", "10.9.5.7", out, sizeof(out));
	assert_non_null(strstr(out, "[\"p2\",\"forward\","));
	assert_non_null(strstr(out, ",false]"));
	ctl_trace(-1, "p3", "10.0.1.2", out, sizeof(out));
	assert_string_equal(out, "[\"p3\",\"forward\",\"p1\",false]\n");

	/* from the first namespace, the switch's named under /run/netns */
	if (mkdir("/run/netns", 0755) == 0)
		made_run_netns = 1;
	snprintf(ns_path, sizeof(ns_path), "/run/netns/xfab-t%d", (int)getpid());
	fd = open(ns_path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mount("/proc/self/ns/net", ns_path, "none", MS_BIND, NULL), 0);
	ctl_trace(home_ns, "p1", "10.9.5.7", out, sizeof(out));
	assert_string_equal(out, "[\"p1\",\"forward\",\"p3\",true]\n");
	ctl_trace(home_ns, "p3", "10.0.1.2", out, sizeof(out));
	assert_string_equal(out, "[\"p3\",\"forward\",\"p1\",false]\n");
}

/* What the trace test leaves: its namespace name, the pins. */
static int trace_ports_cleanup(void **state)
{
	char prog[96];

	(void)state;
	if (ns_path[0]) {
		umount2(ns_path, MNT_DETACH);
		unlink(ns_path);
		ns_path[0] = '\0';
	}
	if (made_run_netns)
		rmdir("/run/netns"); /* only if empty, and only if this test made it */
	if (ctl_pin_dir[0]) {
		snprintf(prog, sizeof(prog), "%s/prog_trace", ctl_pin_dir);
		unlink(prog);
		bpf_object__unpin_maps(H.skel->obj, ctl_pin_dir);
		rmdir(ctl_pin_dir);
		ctl_pin_dir[0] = '\0';
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_ns < 0)
		return -1;
	return h_setup(&H, 3, config_text);
}

static int teardown(void **state)
{
	(void)state;
	h_teardown(&H);
	close(home_ns);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_state_change),
	    cmocka_unit_test(test_record_matches_reality),
	    cmocka_unit_test(test_te_trace),
	    cmocka_unit_test_teardown(test_xfabctl_trace_ports, trace_ports_cleanup),
	};
	return cmocka_run_group_tests_name("bpf_trace", tests, setup, teardown);
}
