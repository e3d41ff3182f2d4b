// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Load-time specialisation (bpf/spec.h, user/agent/spec.c).
 *
 * What the verifier keeps: the programs loaded with each optional code bit
 * off are smaller than with every bit on, and with none on they reference
 * none of the maps that only feature code reads (the kernel's own account
 * of the loaded program: its size and its map ids, not xfab's code).
 *
 * What the packets see: for configs with each feature on or off, the
 * programs loaded with the code the config needs (xfab_feature_code, as
 * xfabd loads them) over the same maps answer every frame of a set with
 * the same verdict and the same bytes as the programs with every bit on.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "feature.h"
#include "frame.h"
#include "harness.h"

/* p1: hosts (10.0.1.1/24); p2: 4 gateways; p3: one. */
#define CFG_HEAD                                                                                   \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"spec-test\", \"hash_seed\": "      \
	"3}},\n"                                                                                   \
	" \"PORT\": {\"p1\": {}, \"p2\": {%s}, \"p3\": {}},\n"                                     \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.254/24\": {}, \"p3|10.0.3.0/31\": "  \
	"{}, \"p1|fd01::1/64\": {}, \"p2|fd02::fe/64\": {}},\n"                                    \
	" \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"}, \"p2|10.0.2.2\": "      \
	"{\"neigh\": \"02:00:00:00:02:02\"}, \"p2|10.0.2.3\": {\"neigh\": "                        \
	"\"02:00:00:00:02:03\"}, "                                                                 \
	"\"p2|10.0.2.4\": {\"neigh\": \"02:00:00:00:02:04\"}, \"p3|10.0.3.1\": {\"neigh\": "       \
	"\"02:00:00:00:03:01\"}, \"p2|fd02::1\": {\"neigh\": \"02:00:00:00:02:11\"}, "             \
	"\"p2|fd02::2\": {\"neigh\": \"02:00:00:00:02:12\"}},\n"                                   \
	" \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.2.2,10.0.2.3,10.0.2.4\"}, "   \
	"\"10.8.0.0/16\": {\"nexthop\": \"10.0.3.1\"}, \"fd09::/32\": {\"nexthop\": "              \
	"\"fd02::1,fd02::2\"}}"

/* Each config: its extra tables, and the code bits it must need. */
static const struct {
	const char *name, *tables;
	unsigned int code;
	const char *p2; /* p2's PORT fields */
} variants[] = {
    {"plain", "", 0},
    {"symmetric", ", \"ECMP\": {\"global\": {\"symmetric\": \"true\"}}", XFAB_CODE_SYMMETRIC},
    {"inner-hash", ", \"ECMP\": {\"global\": {\"hash_fields\": \"SRC_IP,DST_IP,INNER\"}}",
     XFAB_CODE_INNER_HASH},
    {"flowlet", ", \"FLOWLET\": {\"global\": {\"enabled\": \"true\", \"gap_us\": \"50000\"}}",
     XFAB_CODE_FLOWLET},
    {"te", ", \"TE_PATH\": {\"p1|10.9.5.0/24\": {\"nexthop\": \"10.0.3.1\"}}", XFAB_CODE_TE},
    {"repair", ", \"LOCAL_REPAIR\": {\"global\": {\"split_horizon\": \"true\"}}", XFAB_CODE_REPAIR},
    {"queue",
     ", \"WRED_PROFILE\": {\"ECN\": {\"min_threshold\": \"10000\", \"max_threshold\": "
     "\"50000\", \"max_probability\": \"20\", \"ecn\": \"ecn_all\"}}, \"QUEUE\": {\"p2|0-7\": "
     "{\"wred_profile\": \"ECN\"}}",
     /* 10 Mbit/s: the 200,000 B fill_queues writes stays above the 50,000 B
      * maximum for 120 ms (at 1,000 Mbit/s 1.2 ms, which a loaded box's
      * scheduler can take between the fill and the run: the two programs
      * then saw different queues) */
     XFAB_CODE_QUEUE, "\"rate\": \"10\", \"buffer\": \"1000000\""},
    {"acl",
     ", \"ACL_TABLE\": {\"T4\": {\"type\": \"L3\", \"ports\": [\"p1\"]}}, \"ACL_RULE\": "
     "{\"T4|DROP77\": {\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"SRC_IP\": "
     "\"10.0.1.77/32\"}}",
     XFAB_CODE_ACL},
    /* a lossless class needs the port's rate and speed (its headroom),
     * and a rate is a queue: the queue's code comes with it (10 Mbit/s
     * for the reason "queue" gives) */
    {"pfc", ", \"PORT_QOS_MAP\": {\"p2\": {\"pfc_enable\": \"3\"}}",
     XFAB_CODE_PFC | XFAB_CODE_QUEUE, "\"rate\": \"10\", \"speed\": \"1000\""},
};

static struct harness H;

static char *config(size_t v)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), CFG_HEAD "%s}\n", variants[v].p2 ? variants[v].p2 : "",
		 variants[v].tables);
	return buf;
}

H_GROUP_FIXTURES(H, 3, config(0))

/* Loads the programs with code; maps: H's (reuse) or, with own_maps, their
 * own. NULL on failure. */
static struct xfab *load_code(unsigned int code, int own_maps)
{
	struct xfab *s = xfab__open();
	struct bpf_map *map;

	if (!s)
		return NULL;
	bpf_program__set_autoload(s->progs.xfab_xdp_bench, false);
	s->rodata->xfab_code = code;
	if (!own_maps)
		bpf_object__for_each_map(map, s->obj)
		{
			if (bpf_map__is_internal(map))
				continue;
			if (bpf_map__reuse_fd(map, h_map_fd(&H, bpf_map__name(map)))) {
				xfab__destroy(s);
				return NULL;
			}
		}
	if (xfab__load(s)) {
		xfab__destroy(s);
		return NULL;
	}
	return s;
}

/* The kernel's account of a loaded program: instructions after the
 * verifier, and the names of the maps its kept instructions load (the
 * translated code's 64-bit immediates: a map's id where the program had
 * its fd; the map ids of the program's info also list dead code's). */
static unsigned int prog_account(const struct bpf_program *prog, char names[][BPF_OBJ_NAME_LEN],
				 unsigned int *n_maps)
{
	static struct bpf_insn insns[65536];
	struct bpf_prog_info info;
	__u32 len = sizeof(info), n;

	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = sizeof(insns);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	assert_int_equal(bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len), 0);
	n = info.xlated_prog_len / 8;
	assert_true(n <= sizeof(insns) / sizeof(insns[0]));
	*n_maps = 0;
	for (__u32 i = 0; i + 1 < n; i++) {
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		int fd, seen = 0;

		if (insns[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (insns[i].src_reg != BPF_PSEUDO_MAP_FD &&
		    insns[i].src_reg != BPF_PSEUDO_MAP_VALUE) {
			i++;
			continue;
		}
		fd = bpf_map_get_fd_by_id((__u32)insns[i].imm);
		assert_true(fd >= 0);
		memset(&mi, 0, sizeof(mi));
		assert_int_equal(bpf_obj_get_info_by_fd(fd, &mi, &mlen), 0);
		close(fd);
		for (unsigned int k = 0; k < *n_maps && !seen; k++)
			seen = !strcmp(names[k], mi.name);
		if (!seen && *n_maps < 64)
			snprintf(names[(*n_maps)++], BPF_OBJ_NAME_LEN, "%s", mi.name);
		i++;
	}
	return n;
}

static int references(char names[][BPF_OBJ_NAME_LEN], unsigned int n, const char *map)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strncmp(names[i], map, BPF_OBJ_NAME_LEN - 1))
			return 1;
	return 0;
}

/* The maps only optional code reads in xfab_xdp: gone when it is. Not
 * vnet_stats: every end of the pipeline counts a tenant's drop from the
 * scratch slot's overlay fields, which are 0 without the overlay's code
 * but not known to the verifier (bpf/pipeline.h, xfab_end: no bit test
 * there, for the stack's sake). */
static const struct {
	const char *map;
	unsigned int code; /* the bit whose code alone reads it */
} feature_only_maps[] = {
    {XFAB_MAP_FLOWLETS, XFAB_CODE_FLOWLET}, {XFAB_MAP_PORT_LOAD, XFAB_CODE_FLOWLET},
    {XFAB_MAP_QUEUE_CFG, XFAB_CODE_QUEUE},  {XFAB_MAP_QUEUE_STATE, XFAB_CODE_QUEUE},
    {XFAB_MAP_ACL_PORTS, XFAB_CODE_ACL},    {XFAB_MAP_ACL_RULES, XFAB_CODE_ACL},
    {XFAB_MAP_COPP_CFG, XFAB_CODE_COPP},    {XFAB_MAP_COPP_STATE, XFAB_CODE_COPP},
    {XFAB_MAP_VTEP, XFAB_CODE_OVERLAY},	    {XFAB_MAP_VNET_TUNNELS, XFAB_CODE_OVERLAY},
};
#define N_FEATURE_ONLY (sizeof(feature_only_maps) / sizeof(feature_only_maps[0]))

/* A program without bit b must not read the maps of b's feature: its
 * stage was gated on b and on nothing else (a stage gated on another
 * bit that every config sets would still pass the instruction count). */
static void assert_bit_maps_gone(unsigned int b, char maps[][BPF_OBJ_NAME_LEN], unsigned int n)
{
	for (size_t i = 0; i < N_FEATURE_ONLY; i++)
		if (feature_only_maps[i].code == 1u << b &&
		    references(maps, n, feature_only_maps[i].map))
			fail_msg("xfab_xdp without bit %u still reads %s", b,
				 feature_only_maps[i].map);
}

static void test_bits_remove_code(void **state)
{
	static char all_maps[64][BPF_OBJ_NAME_LEN], maps[64][BPF_OBJ_NAME_LEN];
	unsigned int all, n_all, n, insns;
	struct xfab *s = load_code(XFAB_CODE_ALL, 1);

	(void)state;
	assert_non_null(s);
	all = prog_account(s->progs.xfab_xdp, all_maps, &n_all);
	xfab__destroy(s);
	print_message("    every bit: xfab_xdp %u instructions, %u maps\n", all, n_all);
	for (int b = 0; b < XFAB_CODE_BITS; b++) {
		char name[64];

		s = load_code(XFAB_CODE_ALL & ~(1u << b), 1);
		assert_non_null(s);
		insns = prog_account(s->progs.xfab_xdp, maps, &n);
		xfab__destroy(s);
		print_message("    without %-10s %5u instructions (-%u), %u maps\n",
			      xfab_feature_code_names(1u << b, name, sizeof(name)), insns,
			      all - insns, n);
		assert_true(insns < all);
		assert_bit_maps_gone((unsigned int)b, maps, n);
	}
	s = load_code(0, 1);
	assert_non_null(s);
	insns = prog_account(s->progs.xfab_xdp, maps, &n);
	xfab__destroy(s);
	print_message("    no bit:    xfab_xdp %u instructions, %u maps\n", insns, n);
	for (size_t i = 0; i < N_FEATURE_ONLY; i++) {
		if (!references(all_maps, n_all, feature_only_maps[i].map))
			fail_msg("xfab_xdp with every bit does not read %s",
				 feature_only_maps[i].map);
		if (references(maps, n, feature_only_maps[i].map))
			fail_msg("xfab_xdp without optional code still reads %s",
				 feature_only_maps[i].map);
	}
}

/* The frames: forwarded (groups, single next hop, IPv6), punted (TTL,
 * to the switch), dropped (no route, bad checksum), and the ACL's. */
static const struct {
	int v6;
	const char *src, *dst;
	int ttl, bad_csum;
} frames[] = {
    {0, "10.0.1.2", "10.9.0.5"},    {0, "10.0.1.2", "10.9.1.7"},  {0, "10.0.1.3", "10.9.5.9"},
    {0, "10.0.1.2", "10.8.0.1"},    {0, "10.0.1.77", "10.9.0.5"}, {0, "10.0.1.2", "10.7.0.1"},
    {0, "10.0.1.2", "10.9.0.5", 1}, {0, "10.0.1.2", "10.0.1.1"},  {0, "10.0.1.2", "10.9.0.5", 0, 1},
    {1, "fd01::2", "fd09::5"},	    {1, "fd01::3", "fd09::1:7"},
};

static size_t frame(size_t i, __u16 sport, __u8 *buf, size_t cap)
{
	struct xfab_frame f;
	long n;

	memset(&f, 0, sizeof(f));
	memcpy(f.smac, (__u8[]){0x02, 0, 0, 0, 0x01, 0x02}, 6);
	memcpy(f.dmac, H.mac[0], 6);
	assert_int_equal(xfab_frame_addrs(&f, frames[i].src, frames[i].dst), 0);
	f.ip4.ttl = f.ip6.hop_limit = (__u8)(frames[i].ttl ? frames[i].ttl : 64);
	f.ip4.tos = f.ip6.tclass = 0x02; /* ECT(0): a full queue marks CE */
	if (frames[i].bad_csum) {
		f.ip4.check = 0x1234;
		f.ip4.set |= XFAB_FRAME_SET_CHECK;
	}
	f.l4.proto = 17;
	f.l4.sport = sport;
	f.l4.dport = 4791;
	f.bth.present = 1;
	f.bth.opcode = 0x04;
	f.bth.dest_qp = sport;
	f.payload_len = 16;
	n = xfab_frame_build(&f, buf, cap, NULL);
	assert_true(n > 0);
	return (size_t)n;
}

/* The queue variant: p2's queues (slot 1) above the profile's maximum,
 * so that the phantom queue marks every ECN-capable packet CE; each run
 * starts from the same state. */
static void fill_queues(int queued)
{
	struct timespec now;

	if (!queued)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++)
		assert_int_equal(
		    h_set_queue(&H, 1, tc, 200000,
				(__u64)now.tv_sec * 1000000000ull + (__u64)now.tv_nsec),
		    0);
}

/* Every frame through both programs of hook tc: the same verdict, bytes. */
static void same_answers(const struct xfab *spec, int tc, const char *variant, int queued)
{
	int fd_all = bpf_program__fd(tc ? H.skel->progs.xfab_tc : H.skel->progs.xfab_xdp);
	int fd_spec = bpf_program__fd(tc ? spec->progs.xfab_tc : spec->progs.xfab_xdp);

	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		for (__u16 sport = 1000; sport < 1016; sport++) {
			__u8 in[256], out_all[512], out_spec[512];
			size_t len = frame(i, sport, in, sizeof(in));
			size_t n_all = sizeof(out_all), n_spec = sizeof(out_spec);
			__u32 rc_all, rc_spec;

			fill_queues(queued);
			assert_int_equal(
			    h_run_fd(&H, fd_all, tc, 0, in, len, out_all, &n_all, &rc_all), 0);
			fill_queues(queued);
			assert_int_equal(
			    h_run_fd(&H, fd_spec, tc, 0, in, len, out_spec, &n_spec, &rc_spec), 0);
			if (rc_all != rc_spec || n_all != n_spec ||
			    memcmp(out_all, out_spec, n_all))
				fail_msg("%s, %s, frame %zu port %u: every bit %u (%zu bytes), "
					 "specialised %u (%zu bytes)",
					 variant, tc ? "tc" : "xdp", i, sport, rc_all, n_all,
					 rc_spec, n_spec);
		}
}

static void test_specialised_answers_alike(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		unsigned int code, optional = XFAB_CODE_ALL & ~XFAB_CODE_COPP;
		struct xfab *spec;
		char names[160];

		assert_int_equal(h_reapply(&H, config(v)), 0);
		code = xfab_feature_code(&H.cfg);
		print_message("    %-10s code %s\n", variants[v].name,
			      xfab_feature_code_names(code, names, sizeof(names)));
		/* the config needs its feature's code and no other (CoPP
		 * polices by default: on in every one) */
		assert_int_equal(code & optional, variants[v].code);
		assert_true(code & XFAB_CODE_COPP);
		spec = load_code(code, 0);
		assert_non_null(spec);
		same_answers(spec, 0, variants[v].name, code & XFAB_CODE_QUEUE);
		same_answers(spec, 1, variants[v].name, code & XFAB_CODE_QUEUE);
		xfab__destroy(spec);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bits_remove_code),
	    cmocka_unit_test(test_specialised_answers_alike),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
