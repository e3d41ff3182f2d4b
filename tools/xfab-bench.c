// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-bench: the building blocks `scripts/bench` drives, one per call.
 *
 *   attach --obj O --prog P --dev IF --pin DIR [--skb]   load O, pin its maps and P under DIR,
 *                                                         attach P to IF (stays attached)
 *   devmap --pin DIR --map M --dev IF [--key K]           M[K or ifindex] = IF (a DEVMAP,
 *                                                         or an array of ifindexes)
 *   (attach of a tc program: a tcx ingress link, pinned in DIR as PROG_link)
 *   cfg    --pin DIR --flows N [--vary-qp]                generator settings
 *   count  --pin DIR                                      sums of the per-CPU counters:
 *                                                         frames, and the sink's bytes
 *   gen    --pin DIR --dev IF --dmac M --smac M --src A --dst B --seconds S
 *          BPF_PROG_RUN live frames through DIR/bench_gen: XDP_TX out of IF
 *   load   --obj O --pin DIR          load without attaching (maps and programs
 *                                      pinned under DIR): for nsper
 *   (cfg, gen and nsper take --v6: IPv6 frames, --src/--dst IPv6 addresses;
 *    and --vxlan VNI: the IPv4 frame inside outer Ethernet/IPv4/UDP 4789/
 *    VXLAN with that VNI, the outer from --outer-src to --outer-dst (gen
 *    and nsper), 50 bytes longer; nsper takes --tc for a tc program, through
 *    bench_nsper_tc, and --restore-all to restore the whole frame before
 *    each run instead of its first 40 bytes)
 *   nsper  --prog PINNED_PROG --pin DIR --dev IF --dmac M --src A --dst B [--repeat N]
 *          ns per packet of a program, from BPF_PROG_TEST_RUN through
 *          DIR/bench_nsper (which restores the frame before every run),
 *          less bench_nsper's own cost; prints net, total and wrapper ns
 *          and the program's verdict
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "frame.h"
#include "opts.h"
#include "textparse.h"

#define XFAB_TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */
#ifndef BPF_F_TEST_XDP_LIVE_FRAMES
#define BPF_F_TEST_XDP_LIVE_FRAMES (1U << 1)
#endif

struct opts {
	const char *obj, *prog, *dev, *pin, *map, *dmac, *smac, *src, *dst, *osrc, *odst;
	int skb, vary_qp, v6, tc, restore_all;
	long key, flows, repeat, vni;
	double seconds;
};

#define FRAME_MAX 128

/* Ethernet, IPv4 or IPv6, UDP to 4791, a RoCEv2 BTH: 60 bytes (64 on the
 * wire) over IPv4, 74 (78) over IPv6. With --vxlan, that IPv4 frame behind
 * outer Ethernet (the same MACs), IPv4 (--outer-src to --outer-dst, TTL
 * 64), UDP (source port 49152, to 4789, checksum 0) and VXLAN (the VNI):
 * 110 bytes (114). b holds FRAME_MAX bytes. Returns the length, or -1. */
static int build_frame(const struct opts *o, unsigned char *b)
{
	/* UDP checksum 0, as RoCEv2 senders leave it: gen varies the flow */
	struct xfab_frame f = {
	    .l4 = {.proto = 17, .sport = 10000, .dport = 4791, .set = XFAB_FRAME_SET_CHECK},
	    .bth = {.present = 1, .opcode = 0x04, .pkey = 0xffff},
	    .payload_len = o->v6 ? 0 : 6 /* to the 60-byte minimum */};
	struct xfab_frame outer = {
	    .l4 = {.proto = 17, .sport = 49152, .dport = 4789, .set = XFAB_FRAME_SET_CHECK},
	    .vxlan = {.present = 1, .vni = (uint32_t)o->vni, .inner = &f}};

	memset(b, 0, FRAME_MAX);
	if (xfab_parse_mac(o->dmac, f.dmac) ||
	    xfab_parse_mac(o->smac ? o->smac : "02:00:00:00:00:01", f.smac) ||
	    xfab_frame_addrs(&f, o->src, o->dst) || (f.l3 == XFAB_FRAME_IPV6) != !!o->v6)
		return -1;
	f.ip4.ttl = f.ip6.hop_limit = 64;
	if (!o->vni)
		return (int)xfab_frame_build(&f, b, FRAME_MAX, NULL);
	if (o->v6 || o->vni > 0xffffff || !o->osrc || !o->odst ||
	    xfab_frame_addrs(&outer, o->osrc, o->odst) || outer.l3 != XFAB_FRAME_IPV4) {
		fprintf(stderr, "xfab-bench: --vxlan VNI (1..16777215) needs --outer-src and "
				"--outer-dst (IPv4) and an IPv4 inner frame\n");
		return -1;
	}
	memcpy(outer.dmac, f.dmac, 6);
	memcpy(outer.smac, f.smac, 6);
	outer.ip4.ttl = 64;
	return (int)xfab_frame_build(&outer, b, FRAME_MAX, NULL);
}

static int map_fd(const struct opts *o, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", o->pin, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "xfab-bench: %s: %s\n", path, strerror(errno));
	return fd;
}

/* Every map of obj pinned under dir, where the bench's other commands find
 * it (and a second load of the object reuses it); not .rodata, which is
 * frozen at load and shared with nothing. */
static void bench_pin_maps(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *map;
	char path[512];

	bpf_object__for_each_map(map, obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
}

static int do_attach(const struct opts *o)
{
	struct bpf_object *obj = bpf_object__open_file(o->obj, NULL);
	struct bpf_program *prog;
	char path[512];
	int ifindex = (int)if_nametoindex(o->dev), err;

	if (!obj || !ifindex) {
		fprintf(stderr, "xfab-bench attach: cannot open %s or find %s\n", o->obj, o->dev);
		return 1;
	}
	bench_pin_maps(obj, o->pin);
	err = bpf_object__load(obj);
	prog = bpf_object__find_program_by_name(obj, o->prog);
	if (err || !prog) {
		fprintf(stderr, "xfab-bench attach: load: %s\n", strerror(-err));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", o->pin, o->prog);
	if (bpf_program__pin(prog, path))
		goto fail;
	/* a tc program: a tcx ingress link, pinned (removing the pin detaches) */
	if (bpf_program__type(prog) == BPF_PROG_TYPE_SCHED_CLS) {
		int link = bpf_link_create(bpf_program__fd(prog), ifindex,
					   (enum bpf_attach_type)XFAB_TCX_INGRESS, NULL);

		snprintf(path, sizeof(path), "%s/%s_link", o->pin, o->prog);
		if (link < 0 || bpf_obj_pin(link, path))
			goto fail;
		return 0;
	}
	if (bpf_xdp_attach(ifindex, bpf_program__fd(prog),
			   o->skb ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE, NULL))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "xfab-bench attach: %s on %s: %s\n", o->prog, o->dev, strerror(errno));
	return 1;
}

static int do_devmap(const struct opts *o)
{
	int fd = map_fd(o, o->map), err = -1;
	__u32 ifindex = if_nametoindex(o->dev), key = o->key >= 0 ? (__u32)o->key : ifindex;
	struct bpf_devmap_val val = {.ifindex = ifindex};
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);

	if (fd >= 0 && ifindex && !bpf_obj_get_info_by_fd(fd, &info, &len))
		/* a plain array of ifindexes (tc_out) takes the ifindex alone */
		err = info.value_size == sizeof(ifindex)
			  ? bpf_map_update_elem(fd, &key, &ifindex, BPF_ANY)
			  : bpf_map_update_elem(fd, &key, &val, BPF_ANY);
	if (err) {
		fprintf(stderr, "xfab-bench devmap: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static int do_cfg(const struct opts *o)
{
	int fd = map_fd(o, "gen_cfg");
	struct {
		__u32 flows, vary_qp;
		unsigned char dmac[6], smac[6];
		__u32 dst_base, vary_dst, v6, vni;
	} val = {(__u32)o->flows, (__u32)o->vary_qp, {0}, {0}, 0, 0, (__u32)o->v6, (__u32)o->vni};
	__u32 zero = 0;

	if (!o->dmac || !o->smac || xfab_parse_mac(o->dmac, val.dmac) ||
	    xfab_parse_mac(o->smac, val.smac)) {
		fprintf(stderr, "xfab-bench cfg: --dmac and --smac\n");
		return 2;
	}
	if (o->vni < 0 || o->vni > 0xffffff || (o->vni && o->v6)) {
		fprintf(stderr, "xfab-bench cfg: --vxlan VNI (1..16777215) carries IPv4 frames\n");
		return 2;
	}
	if (o->dst) { /* --dst: vary the destination too, one /24 (/64) per flow */
		struct in_addr a;

		if (!o->v6 && inet_pton(AF_INET, o->dst, &a) != 1)
			return 2;
		val.dst_base = o->v6 ? 0 : ntohl(a.s_addr);
		val.vary_dst = 1;
	}
	return fd < 0 || bpf_map_update_elem(fd, &zero, &val, BPF_ANY) ? 1 : 0;
}

static int do_count(const struct opts *o)
{
	int fd = map_fd(o, "counter"), ncpu = libbpf_num_possible_cpus();
	__u64 vals[512], sum[2] = {0, 0};

	if (fd < 0 || ncpu > 512)
		return 1;
	for (__u32 k = 0; k < 2; k++) {
		memset(vals, 0, sizeof(vals));
		if (bpf_map_lookup_elem(fd, &k, vals))
			return 1;
		for (int c = 0; c < ncpu; c++)
			sum[k] += vals[c];
	}
	printf("%llu %llu\n", (unsigned long long)sum[0], (unsigned long long)sum[1]);
	return 0;
}

static int do_gen(const struct opts *o)
{
	unsigned char frame[FRAME_MAX];
	char path[512];
	int len = build_frame(o, frame);
	struct xdp_md ctx = {.data_end = (__u32)len, .ingress_ifindex = if_nametoindex(o->dev)};
	double start, end;
	unsigned long long sent = 0;
	int prog;

	snprintf(path, sizeof(path), "%s/bench_gen", o->pin);
	prog = bpf_obj_get(path);
	if (prog < 0 || !ctx.ingress_ifindex || len < 0) {
		fprintf(stderr, "xfab-bench gen: %s, %s or the frame\n", path, o->dev);
		return 1;
	}
	start = xfab_mono_s();
	end = start + (o->seconds > 0 && o->seconds <= 30 ? o->seconds : 2);
	while (xfab_mono_s() < end) {
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame, .data_size_in = (__u32)len,
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1 << 16,
			    .batch_size = 64, .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		if (bpf_prog_test_run_opts(prog, &t)) {
			fprintf(stderr, "xfab-bench gen: test run: %s\n", strerror(errno));
			return 1;
		}
		sent += 1 << 16;
	}
	printf("%llu %.6f\n", sent, xfab_mono_s() - start);
	return 0;
}

static int do_load(const struct opts *o)
{
	static const char *const progs[] = {"bench_nsper", "bench_nop", "bench_nsper_tc",
					    "bench_nop_tc"};
	struct bpf_object *obj = bpf_object__open_file(o->obj, NULL);
	char path[512];

	if (!obj) {
		fprintf(stderr, "xfab-bench load: cannot open %s\n", o->obj);
		return 1;
	}
	bench_pin_maps(obj, o->pin);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "xfab-bench load: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, progs[i]);

		snprintf(path, sizeof(path), "%s/%s", o->pin, progs[i]);
		if (!p || bpf_program__pin(p, path)) {
			fprintf(stderr, "xfab-bench load: pin %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Best of three runs of `repeat` through the wrapper into target. */
static int nsper_run(const struct opts *o, int wrapper, int targets, int target,
		     const unsigned char *frame, int len, __u32 ifindex, __u32 *ns, __u32 *retval)
{
	unsigned char in[FRAME_MAX], out[256];
	struct xdp_md xctx = {.data_end = (__u32)len, .ingress_ifindex = ifindex};
	struct __sk_buff sctx = {.ifindex = ifindex};
	__u32 zero = 0;

	if (bpf_map_update_elem(targets, &zero, &target, BPF_ANY))
		return -1;
	*ns = ~0u;
	for (int i = 0; i < 3; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = in, .data_size_in = (__u32)len,
			    .data_out = out, .data_size_out = sizeof(out),
			    .repeat = (int)(o->repeat > 0 ? o->repeat : 1000000));

		if (o->tc) {
			t.ctx_in = &sctx;
			t.ctx_size_in = sizeof(sctx);
		} else {
			t.ctx_in = &xctx;
			t.ctx_size_in = sizeof(xctx);
		}
		memcpy(in, frame, sizeof(in));
		if (bpf_prog_test_run_opts(wrapper, &t))
			return -1;
		if (t.duration < *ns)
			*ns = t.duration;
		*retval = t.retval;
	}
	return 0;
}

/* The frame bench_nsper restores (its struct nsper_frame). */
struct nsper_frame {
	unsigned char b[FRAME_MAX];
	__u32 len, copy;
};

static int do_nsper(const struct opts *o)
{
	struct nsper_frame nf = {{0}};
	char path[512];
	int prog = bpf_obj_get(o->prog), wrapper, nop, targets, frames, len;
	__u32 ifindex = if_nametoindex(o->dev), zero = 0, total, base, ret, nop_ret;
	const char *sfx = o->tc ? "_tc" : "";

	snprintf(path, sizeof(path), "%s/bench_nsper%s", o->pin, sfx);
	wrapper = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/bench_nop%s", o->pin, sfx);
	nop = bpf_obj_get(path);
	targets = map_fd(o, o->tc ? "nsper_target_tc" : "nsper_target");
	frames = map_fd(o, "nsper_frame");
	len = build_frame(o, nf.b);
	nf.len = (__u32)len;
	nf.copy = o->restore_all || o->vni ? (__u32)len : 40;
	if (prog < 0 || wrapper < 0 || nop < 0 || targets < 0 || frames < 0 || !ifindex ||
	    len < 0 || bpf_map_update_elem(frames, &zero, &nf, BPF_ANY)) {
		fprintf(stderr, "xfab-bench nsper: %s, %s or %s/bench_nsper%s: %s\n", o->prog,
			o->dev, o->pin, sfx, strerror(errno));
		return 1;
	}
	if (nsper_run(o, wrapper, targets, prog, nf.b, len, ifindex, &total, &ret) ||
	    nsper_run(o, wrapper, targets, nop, nf.b, len, ifindex, &base, &nop_ret)) {
		fprintf(stderr, "xfab-bench nsper: test run: %s\n", strerror(errno));
		return 1;
	}
	printf("%u %u %u %u\n", total > base ? total - base : 0, total, base, ret);
	return 0;
}

/* Every command's options in one table: the commands share most of them,
 * and which ones each needs is checked in main. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("obj", 0, o->obj, "FILE", "the BPF object (attach, load)"),
	    XFAB_OPT_STR("prog", 0, o->prog, "NAME", "the program (attach, nsper)"),
	    XFAB_OPT_STR("dev", 0, o->dev, "IF", "the port"),
	    XFAB_OPT_STR("pin", 0, o->pin, "DIR", "where the maps are pinned"),
	    XFAB_OPT_STR("map", 0, o->map, "NAME", "the devmap (devmap)"),
	    XFAB_OPT_INT("key", 0, o->key, 0, 0xffffffffL, "N",
			 "its slot (default: the port's ifindex)"),
	    XFAB_OPT_FLAG("skb", 0, o->skb, "generic XDP (attach)"),
	    XFAB_OPT_INT("flows", 0, o->flows, 1, 0xffffffffL, "N", "flows to vary (cfg)"),
	    XFAB_OPT_FLAG("vary-qp", 0, o->vary_qp, "vary the QP, not the port (cfg)"),
	    XFAB_OPT_FLAG("v6", 0, o->v6, "IPv6 frames"),
	    XFAB_OPT_FLAG("tc", 0, o->tc, "a tc program, through bench_nsper_tc (nsper)"),
	    XFAB_OPT_STR("dmac", 0, o->dmac, "MAC", "the frames' destination MAC"),
	    XFAB_OPT_STR("smac", 0, o->smac, "MAC", "the frames' source MAC"),
	    XFAB_OPT_STR("src", 0, o->src, "ADDR", "the frames' source address"),
	    XFAB_OPT_STR("dst", 0, o->dst, "ADDR", "the frames' destination address"),
	    XFAB_OPT_DOUBLE("seconds", 0, o->seconds, 0, 3600, "S",
			    "how long to send (up to 30; other: 2)"),
	    XFAB_OPT_INT("repeat", 0, o->repeat, 0, 0x7fffffffL, "N",
			 "runs per measure (nsper; default 1000000)"),
	    XFAB_OPT_INT("vxlan", 0, o->vni, 1, 0xffffff, "VNI", "VXLAN-encapsulated frames",
			 .base = 10),
	    XFAB_OPT_STR("outer-src", 0, o->osrc, "ADDR", "the VXLAN outer source"),
	    XFAB_OPT_STR("outer-dst", 0, o->odst, "ADDR", "the VXLAN outer destination"),
	    XFAB_OPT_FLAG("restore-all", 0, o->restore_all,
			  "restore the whole frame before each run (nsper)"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-bench", "attach|load|devmap|cfg|count|gen|nsper", rows,
				       NULL};
	return xfab_opts_parse_all(&spec, argc, argv);
}

int main(int argc, char **argv)
{
	struct opts o = {.key = -1, .flows = 1};
	const char *cmd;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: xfab-bench attach|load|devmap|cfg|count|gen|nsper ...\n");
		return 2;
	}
	cmd = argv[1];
	ret = parse_args(&o, argc - 1, argv + 1);
	if (ret >= 0)
		return ret;
	libbpf_set_print(NULL);
	if (!strcmp(cmd, "attach") && o.obj && o.prog && o.dev && o.pin)
		return do_attach(&o);
	if (!strcmp(cmd, "devmap") && o.pin && o.map && o.dev)
		return do_devmap(&o);
	if (!strcmp(cmd, "cfg") && o.pin)
		return do_cfg(&o);
	if (!strcmp(cmd, "count") && o.pin)
		return do_count(&o);
	if (!strcmp(cmd, "gen") && o.pin && o.dev && o.dmac && o.src && o.dst)
		return do_gen(&o);
	if (!strcmp(cmd, "load") && o.obj && o.pin)
		return do_load(&o);
	if (!strcmp(cmd, "nsper") && o.prog && o.pin && o.dev && o.dmac && o.src && o.dst)
		return do_nsper(&o);
	fprintf(stderr, "xfab-bench: bad or incomplete command (see the comment at the top)\n");
	return 2;
}
