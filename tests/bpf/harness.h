/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the BPF_PROG_TEST_RUN suites: a private netns with veth ports,
 * the loaded skeleton, tables compiled from a config text the way xfabd
 * compiles them (the RIB and user/lib/compile.c, the live ports, neighbours
 * from the neighbour map), and a runner. */
#ifndef XFAB_TEST_HARNESS_H
#define XFAB_TEST_HARNESS_H

#include <linux/types.h>
#include <stddef.h>

#include "config.h"
#include "compile.h"
#include "maps.h"
#include "rib.h"
#include "xfab.skel.h"

#define H_MAX_PORTS 8

struct harness {
	struct xfab *skel;
	int n_ports;
	__u32 ifindex[H_MAX_PORTS];
	__u8 mac[H_MAX_PORTS][6];
	int oper_up[H_MAX_PORTS];
	struct xfab_config cfg;
	struct xfab_rib *rib;
	struct xfab_compile *compile;
	struct xfab_port_live live[XFAB_MAX_PORTS]; /* what compile was told, per config port */
	int fd[XFAB_T_COUNT];
	struct xfab_fib_hw fib4; /* the mmapped FIBs, synced as xfabd does */
	struct xfab_fib_hw fib6;
};

/* unshare(CLONE_NEWNET), veth ports p1..pN with MACs 02:00:00:00:00:1N,
 * load the skeleton, compile and apply config_text. 0 or -1. */
int h_setup(struct harness *h, int n_ports, const char *config_text);
void h_teardown(struct harness *h);
/* As xfabd on events: a port whose oper_up changed is a link event
 * (xfab_compile_link); then, with a config text, a reload (the RIB loads the
 * new config, compile writes the difference). */
int h_reapply(struct harness *h, const char *config_text);
/* Runs one frame through xfab_xdp (tc = 0) or xfab_tc (tc = 1). */
int h_run(struct harness *h, int tc, int in_port, const void *in, size_t in_len, void *out,
	  size_t *out_len, __u32 *retval);
/* The same through another program: prog_fd (of xdp or tc type as tc says). */
int h_run_fd(struct harness *h, int prog_fd, int tc, int in_port, const void *in, size_t in_len,
	     void *out, size_t *out_len, __u32 *retval);
int h_map_fd(struct harness *h, const char *name);
/* The xdp phantom queue of (slot, tc) holds backlog bytes at time last_ns
 * (CLOCK_MONOTONIC ns). 0 or -1. */
int h_set_queue(struct harness *h, __u32 slot, __u32 tc, __u64 backlog, __u64 last_ns);
/* Path of a program built beside the test binary (build/NAME), whatever the
 * caller's working directory. */
const char *h_build_path(const char *name);
__u64 h_percpu_u64(struct harness *h, const char *map, __u32 key, size_t field, size_t n_fields);
/* Which path decided a run: the general pipeline works in its per-CPU
 * scratch slot (bpf/scratch.h, slot 0), which the fast path (bpf/fast.h)
 * never touches. h_scratch_mark fills the slot with H_SCRATCH_MARK before a
 * run; h_scratch_marked is 1 when the run left it so on every CPU (it did
 * not reach the pipeline), 0 when not, -1 on an error. */
#define H_SCRATCH_MARK 0xa5
int h_scratch_mark(struct harness *h);
int h_scratch_marked(struct harness *h);
/* 1 when the fast path is loaded, 0 under XFAB_TEST_PIPELINE=1. */
int h_fast_path(struct harness *h);

/* cmocka group fixtures for a suite with one harness H, N_PORTS ports and
 * tables from CONFIG (an expression evaluated at setup). */
#define H_GROUP_FIXTURES(H, N_PORTS, CONFIG)                                                       \
	static int setup(void **state)                                                             \
	{                                                                                          \
		(void)state;                                                                       \
		return h_setup(&(H), (N_PORTS), (CONFIG));                                         \
	}                                                                                          \
	static int teardown(void **state)                                                          \
	{                                                                                          \
		(void)state;                                                                       \
		h_teardown(&(H));                                                                  \
		return 0;                                                                          \
	}

#endif
