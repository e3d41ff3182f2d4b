// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include "harness.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "common.h"

static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

const char *h_build_path(const char *name)
{
	static char path[4096];

	return xfab_beside_exe(path, sizeof(path), name);
}

/* As xfabd's: the neighbour map (static and learnt neighbours). */
static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	struct harness *h = arg;
	struct xfab_neigh_key key = {.ifindex = ifindex, .family = (__u8)family};
	struct xfab_neigh val;

	memcpy(key.addr, addr, family == AF_INET ? 4 : 16);
	if (bpf_map_lookup_elem(h->fd[XFAB_T_NEIGHBORS], &key, &val))
		return -ENOENT;
	memcpy(mac, val.mac, 6);
	return 0;
}

static int w_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	struct harness *h = arg;

	return bpf_map_update_elem(h->fd[t], key, val, BPF_ANY) ? -errno : 0;
}

static int w_remove(void *arg, enum xfab_table t, const void *key)
{
	struct harness *h = arg;

	if (xfab_table_descs[t].is_array) {
		static const char zeroes[sizeof(struct xfab_group)];

		return w_update(arg, t, key, zeroes);
	}
	return bpf_map_delete_elem(h->fd[t], key) ? -errno : 0;
}

/* The live state of cfg's ports: veth pN is harness port N - 1. */
static int live_ports(struct harness *h, const struct xfab_config *cfg, struct xfab_port_live *live)
{
	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	for (int p = 0; p < cfg->n_ports; p++) {
		const char *name = cfg->ports[p].name;
		int idx = name[0] == 'p' ? atoi(name + 1) - 1 : -1;

		if (idx < 0 || idx >= h->n_ports) {
			fprintf(stderr, "config port %s is not p1..p%d\n", name, h->n_ports);
			return -1;
		}
		live[p].ifindex = h->ifindex[idx];
		memcpy(live[p].mac, h->mac[idx], 6);
		live[p].oper_up = h->oper_up[idx];
	}
	return 0;
}

int h_reapply(struct harness *h, const char *config_text)
{
	struct xfab_port_live live[XFAB_MAX_PORTS];
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	int err;

	/* link events, on the running config's ports */
	if (h->compile) {
		if (live_ports(h, &h->cfg, live))
			return -1;
		for (int p = 0; p < h->cfg.n_ports; p++) {
			if (live[p].oper_up == h->live[p].oper_up)
				continue;
			h->live[p].oper_up = live[p].oper_up;
			err = xfab_compile_link(h->compile, p, live[p].oper_up);
			if (err) {
				fprintf(stderr, "link event: %s\n", strerror(-err));
				return -1;
			}
		}
	}
	if (!config_text)
		return 0;
	/* a reload */
	if (xfab_config_parse("test.json", config_text, &cfg, &errs)) {
		char line[512];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fprintf(stderr, "config: %s\n", line);
		return -1;
	}
	if (live_ports(h, &cfg, live)) {
		xfab_config_free(&cfg);
		return -1;
	}
	xfab_config_free(&h->cfg);
	h->cfg = cfg;
	memcpy(h->live, live, sizeof(live));
	err = xfab_rib_load_config(h->rib, &h->cfg);
	if (!err)
		err = xfab_compile_config(h->compile, &h->cfg, h->live);
	if (err) {
		fprintf(stderr, "compile: %s\n", strerror(-err));
		return -1;
	}
	return 0;
}

int h_setup(struct harness *h, int n_ports, const char *config_text)
{
	memset(h, 0, sizeof(*h));
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		return -1;
	}
	h->n_ports = n_ports;
	for (int p = 0; p < n_ports; p++) {
		char name[8];
		__u8 mac[6] = {0x02, 0, 0, 0, 0, (__u8)(0x11 + p)};

		if (sh("ip link add p%d address 02:00:00:00:00:%02x type veth peer p%dpeer && "
		       "ip link set p%d up && ip link set p%dpeer up",
		       p + 1, 0x11 + p, p + 1, p + 1, p + 1))
			return -1;
		snprintf(name, sizeof(name), "p%d", p + 1);
		h->ifindex[p] = if_nametoindex(name);
		memcpy(h->mac[p], mac, 6);
		h->oper_up[p] = 1;
	}
	h->skel = xfab__open();
	if (!h->skel)
		return -1;
	/* as xfabd does: the stage builds' program only for make bench */
	bpf_program__set_autoload(h->skel->progs.xfab_xdp_bench, false);
	/* XFAB_TEST_PIPELINE=1: without the fast path (bpf/fast.h), so a
	 * suite's plain frames judge the general pipeline too (run-all runs
	 * every bpf suite both ways) */
	if (getenv("XFAB_TEST_PIPELINE") && !strcmp(getenv("XFAB_TEST_PIPELINE"), "1"))
		h->skel->rodata->xfab_fast_path = 0;
	if (xfab__load(h->skel) || xfab_abi_write(bpf_map__fd(h->skel->maps.abi)))
		return -1;
	for (int t = 0; t < XFAB_T_COUNT; t++)
		h->fd[t] = h_map_fd(h, xfab_table_descs[t].map_name);
	if (xfab_fib_map(&h->fib4, 4, h_map_fd(h, XFAB_MAP_FIB4_TBL16),
			 h_map_fd(h, XFAB_MAP_FIB4_TBL8)) ||
	    xfab_fib_map(&h->fib6, 16, h_map_fd(h, XFAB_MAP_FIB6_TBL16),
			 h_map_fd(h, XFAB_MAP_FIB6_TBL8)))
		return -1;
	/* the map writer and the mmapped FIBs, as xfabd's */
	{
		struct xfab_map_ops ops = {.update = w_update,
					   .remove = w_remove,
					   .arg = h,
					   .fib4 = &h->fib4,
					   .fib6 = &h->fib6};

		h->rib = xfab_rib_new();
		h->compile = h->rib ? xfab_compile_new(h->rib, &ops, neigh_lookup, h) : NULL;
		if (!h->compile)
			return -1;
	}
	return h_reapply(h, config_text);
}

void h_teardown(struct harness *h)
{
	xfab_compile_free(h->compile);
	xfab_rib_free(h->rib);
	xfab_config_free(&h->cfg);
	xfab_fib_unmap(&h->fib4);
	xfab_fib_unmap(&h->fib6);
	xfab__destroy(h->skel);
}

int h_map_fd(struct harness *h, const char *name)
{
	return bpf_map__fd(bpf_object__find_map_by_name(h->skel->obj, name));
}

int h_run(struct harness *h, int tc, int in_port, const void *in, size_t in_len, void *out,
	  size_t *out_len, __u32 *retval)
{
	return h_run_fd(h, bpf_program__fd(tc ? h->skel->progs.xfab_tc : h->skel->progs.xfab_xdp),
			tc, in_port, in, in_len, out, out_len, retval);
}

int h_run_fd(struct harness *h, int prog_fd, int tc, int in_port, const void *in, size_t in_len,
	     void *out, size_t *out_len, __u32 *retval)
{
	struct xdp_md xctx = {.data_end = (__u32)in_len, .ingress_ifindex = h->ifindex[in_port]};
	struct __sk_buff sctx = {.ifindex = h->ifindex[in_port]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = (__u32)in_len,
		    .data_out = out, .data_size_out = (__u32)*out_len, .repeat = 1);
	int err;

	if (tc) {
		opts.ctx_in = &sctx;
		opts.ctx_size_in = sizeof(sctx);
	} else {
		opts.ctx_in = &xctx;
		opts.ctx_size_in = sizeof(xctx);
	}
	err = bpf_prog_test_run_opts(prog_fd, &opts);
	*out_len = opts.data_size_out;
	*retval = opts.retval;
	return err;
}

__u64 h_percpu_u64(struct harness *h, const char *map, __u32 key, size_t field, size_t n_fields)
{
	__u64 vals[16] = {0};

	if (n_fields > 16 || xfab_percpu_sum(h_map_fd(h, map), key, vals, n_fields))
		return 0;
	return vals[field];
}

/* The pipeline's scratch slot 0 over every CPU: bytes, or 0 on an error. */
static size_t h_scratch_bytes(int fd)
{
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);
	int cpus = libbpf_num_possible_cpus();

	if (fd < 0 || cpus <= 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return (size_t)((info.value_size + 7) / 8 * 8) * (size_t)cpus;
}

int h_scratch_mark(struct harness *h)
{
	int fd = h_map_fd(h, XFAB_MAP_SCRATCH);
	size_t n = h_scratch_bytes(fd);
	__u32 zero = 0;
	__u8 *buf = n ? malloc(n) : NULL;
	int err;

	if (!buf)
		return -1;
	memset(buf, H_SCRATCH_MARK, n);
	err = bpf_map_update_elem(fd, &zero, buf, BPF_ANY) ? -1 : 0;
	free(buf);
	return err;
}

int h_scratch_marked(struct harness *h)
{
	int fd = h_map_fd(h, XFAB_MAP_SCRATCH);
	size_t n = h_scratch_bytes(fd);
	__u32 zero = 0;
	__u8 *buf = n ? malloc(n) : NULL;
	int marked = 1;

	if (!buf || bpf_map_lookup_elem(fd, &zero, buf)) {
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < n && marked; i++)
		marked = buf[i] == H_SCRATCH_MARK;
	free(buf);
	return marked;
}

int h_fast_path(struct harness *h)
{
	return h->skel->rodata->xfab_fast_path != 0;
}

int h_set_queue(struct harness *h, __u32 slot, __u32 tc, __u64 backlog, __u64 last_ns)
{
	__u32 key = XFAB_QUEUE_KEY(slot, tc);
	struct xfab_queue_cfg qc;
	struct xfab_queue_state qs;

	if (bpf_map_lookup_elem(h_map_fd(h, XFAB_MAP_QUEUE_CFG), &key, &qc))
		return -1;
	qs.empty_at =
	    (last_ns << XFAB_QUEUE_TIME_SHIFT) + xfab_queue_tx_time(backlog, qc.rate_kbps);
	return bpf_map_update_elem(h_map_fd(h, XFAB_MAP_QUEUE_STATE), &key, &qs, BPF_ANY) ? -1 : 0;
}
