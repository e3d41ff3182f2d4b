// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabd: the xfab loader and agent for one switch.
 *
 *   validate config -> resolve ports -> bpffs + pin dir + lock -> load and pin
 *   -> learn neighbours -> program tables -> attach every port -> event loop
 *
 * The event loop follows links and neighbours over rtnetlink, reloads the
 * config on SIGHUP (a bad file is rejected whole and changes nothing) and
 * detaches and unpins on SIGTERM/SIGINT.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "common.h"
#include "config.h"
#include "metrics.h"
#include "netlink.h"
#include "probe.h"
#include "tables.h"
#include "xfab.skel.h"
#include "xfab_hash.h"

#define XFAB_TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */
#define XFAB_TCX_EGRESS 47

static int verbose;

static void logmsg(const char *level, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "%ld.%03ld xfabd %s: ", (long)ts.tv_sec, ts.tv_nsec / 1000000, level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define log_info(...) logmsg("info", __VA_ARGS__)
#define log_warn(...) logmsg("warn", __VA_ARGS__)
#define log_err(...) logmsg("error", __VA_ARGS__)
#define log_dbg(...)                                                                               \
	do {                                                                                       \
		if (verbose)                                                                       \
			logmsg("debug", __VA_ARGS__);                                              \
	} while (0)

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Updates buffered for BPF_MAP_UPDATE_BATCH: one syscall per BATCH_MAX. */
#define BATCH_MAX 8192
struct batch {
	enum xfab_table t;
	unsigned int n;
	int unsupported; /* the kernel refused batches for a map: one by one */
	char *keys, *vals;
};

struct agent {
	const char *cfg_path;
	const char *pin_root;
	const char *pidfile;
	const char *metrics;
	char pin_dir[256];
	int lock_fd;
	struct xfab_config cfg;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	int link_fd[XFAB_MAX_PORTS];   /* bpf_link per port index of cfg; -1 = none */
	int egress_fd[XFAB_MAX_PORTS]; /* tc datapath: the egress (queue) program */
	int shaped[XFAB_MAX_PORTS];    /* tc datapath: xfabd installed the port's HTB */
	struct xfab *skel;
	int map_fd[XFAB_T_COUNT];
	struct xfab_tables applied;
	struct xfab_fib4_hw fib4; /* the mmapped IPv4 FIB */
	struct xfab_fib6_hw fib6; /* and the IPv6 one */
	struct batch batch;	  /* updates of one table, written together */
	struct mnl_socket *nl;
	int dirty; /* live state changed: rebuild and apply */
};

/* ---- map writes ---- */

static int write_one(struct agent *a, enum xfab_table t, const void *key, const void *val)
{
	if (bpf_map_update_elem(a->map_fd[t], key, val, BPF_ANY)) {
		int err = -errno;

		log_err("update of map %s failed: %s", xfab_table_descs[t].map_name,
			strerror(errno));
		return err;
	}
	return 0;
}

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's "operation not supported" */
#endif

/* Writes the buffered updates (of whichever table they belong to). */
static int ops_flush(void *arg, enum xfab_table t)
{
	struct agent *a = arg;
	struct batch *b = &a->batch;
	const struct xfab_table_desc *d = &xfab_table_descs[b->t];
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	__u32 n = b->n, done = n;
	int err = 0;

	(void)t;
	if (!n)
		return 0;
	b->n = 0;
	if (!b->unsupported) {
		if (!bpf_map_update_batch(a->map_fd[b->t], b->keys, b->vals, &done, &opts))
			return 0;
		if (errno == EINVAL || errno == ENOTSUPP || errno == EOPNOTSUPP) {
			b->unsupported = 1;
			done = 0;
		}
	} else {
		done = 0;
	}
	/* Not batched, or stopped part way: the rest one by one (which also
	 * names the failing entry's error). */
	for (__u32 i = done; !err && i < n; i++)
		err = write_one(a, b->t, b->keys + (size_t)i * d->key_size,
				b->vals + (size_t)i * d->val_size);
	return err;
}

static int ops_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	struct agent *a = arg;
	struct batch *b = &a->batch;
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	int err;

	/* Only the big tables are worth batching. */
	if (t != XFAB_T_ROUTES_V4 && t != XFAB_T_ROUTES_V6)
		return write_one(a, t, key, val);
	if (!b->keys) {
		/* room for the bigger (IPv6) key of the two tables */
		size_t entry = sizeof(struct xfab_e_route_v6);

		b->keys = calloc(BATCH_MAX, entry);
		b->vals = calloc(BATCH_MAX, entry);
		if (!b->keys || !b->vals)
			return write_one(a, t, key, val);
	}
	if (b->n && b->t != t) {
		err = ops_flush(a, b->t);
		if (err)
			return err;
	}
	b->t = t;
	memcpy(b->keys + (size_t)b->n * d->key_size, key, d->key_size);
	memcpy(b->vals + (size_t)b->n * d->val_size, val, d->val_size);
	if (++b->n == BATCH_MAX)
		return ops_flush(a, t);
	return 0;
}

static int ops_remove(void *arg, enum xfab_table t, const void *key)
{
	struct agent *a = arg;

	if (xfab_table_descs[t].is_array) {
		static const char zeroes[sizeof(struct xfab_group)];

		return ops_update(arg, t, key, zeroes);
	}
	if (bpf_map_delete_elem(a->map_fd[t], key) && errno != ENOENT) {
		int err = -errno;

		log_err("delete from map %s failed: %s", xfab_table_descs[t].map_name,
			strerror(errno));
		return err;
	}
	return 0;
}

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	struct agent *a = arg;
	struct xfab_neigh_key key = {.ifindex = ifindex, .family = (__u8)family};
	struct xfab_neigh val;

	memcpy(key.addr, addr, family == AF_INET ? 4 : 16);
	if (bpf_map_lookup_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &val))
		return -ENOENT;
	memcpy(mac, val.mac, 6);
	return 0;
}

static int rebuild_and_apply(struct agent *a, const struct xfab_config *cfg)
{
	struct xfab_fib4_stats fst = {0};
	struct xfab_fib6_stats fst6 = {0};
	struct xfab_map_ops ops = {.update = ops_update,
				   .remove = ops_remove,
				   .flush = ops_flush,
				   .arg = a,
				   .fib4 = a->fib4.tbl24 ? &a->fib4 : NULL,
				   .fib4_stats = &fst,
				   .fib6 = a->fib6.tbl16 ? &a->fib6 : NULL,
				   .fib6_stats = &fst6};
	struct xfab_tables next;
	double t0 = xfab_mono_ns() / 1e6, t1;
	int err;

	err = xfab_tables_build(cfg, a->live, neigh_lookup, a, &a->applied, &next);
	if (err) {
		log_err("cannot compile tables: %s", strerror(-err));
		return err;
	}
	t1 = xfab_mono_ns() / 1e6;
	err = xfab_tables_apply(&a->applied, &next, &ops);
	if (err) {
		if (err == -ENOSPC)
			log_err("FIB: out of groups (IPv4: %d /24s with longer prefixes; IPv6: %d "
				"paths)",
				XFAB_FIB4_TBL8_GROUPS, XFAB_FIB6_GROUPS);
		/* What was written stays; the next event retries the rest. */
		xfab_tables_free(&next);
		return err;
	}
	log_info("programmed %zu IPv4 and %zu IPv6 routes: compile %.0f ms, write %.0f ms "
		 "(FIB: IPv4 %zu entries stored, %zu groups; IPv6 %zu stored, %zu groups)",
		 next.t[XFAB_T_ROUTES_V4].count, next.t[XFAB_T_ROUTES_V6].count, t1 - t0,
		 xfab_mono_ns() / 1e6 - t1, fst.written, fst.groups, fst6.written, fst6.groups);
	xfab_tables_free(&a->applied);
	a->applied = next;
	return 0;
}

/* ---- ports ---- */

struct link_scan {
	const struct xfab_config *cfg;
	struct xfab_port_live *live;
	int *found;
};

static void scan_link(void *arg, const struct xfab_nl_link *l)
{
	struct link_scan *s = arg;
	int p = xfab_config_port_index(s->cfg, l->name);

	if (p < 0)
		return;
	s->live[p].ifindex = l->ifindex;
	memcpy(s->live[p].mac, l->mac, 6);
	s->live[p].oper_up = l->oper_up;
	s->found[p] = l->has_mac;
}

/* Finds every configured port on the box; errors name the PORT entry. */
static int resolve_ports(const struct xfab_config *cfg, struct xfab_port_live *live,
			 const char *cfg_path)
{
	int found[XFAB_MAX_PORTS] = {0}, bad = 0, err;
	struct link_scan s = {.cfg = cfg, .live = live, .found = found};
	struct xfab_nl_handlers h = {.link = scan_link, .arg = &s};

	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	err = xfab_nl_dump_links(&h);
	if (err) {
		log_err("cannot list network devices: %s", strerror(-err));
		return err;
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		if (found[p] && live[p].ifindex >= XFAB_MAX_IFINDEX) {
			fprintf(stderr, "%s:%d:%d: PORT|%s: ifindex %u is beyond %d\n", cfg_path,
				cfg->ports[p].pos.line, cfg->ports[p].pos.col, cfg->ports[p].name,
				live[p].ifindex, XFAB_MAX_IFINDEX - 1);
			bad = 1;
			continue;
		}
		if (found[p])
			continue;
		fprintf(stderr, "%s:%d:%d: PORT|%s: no such Ethernet device in this namespace\n",
			cfg_path, cfg->ports[p].pos.line, cfg->ports[p].pos.col,
			cfg->ports[p].name);
		bad = 1;
	}
	return bad ? -ENODEV : 0;
}

/* Runs `tc ARGS...` (iproute2), the portable way to build HTB trees. */
static int run_tc(const char *fmt, ...)
{
	char cmd[512], *argv[40], *save = NULL;
	int argc = 0, status;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	argv[argc++] = "tc";
	for (char *tok = strtok_r(cmd, " ", &save); tok && argc < 39;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execvp("tc", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * The tc datapath's real queues on a port with a rate: an HTB parent at the
 * port rate, one child class per traffic class (1:1 .. 1:8, each guaranteed
 * 1/8 and allowed the whole rate) and a bfifo of `buffer` bytes under each.
 * The ingress program puts a packet in class 1:(tc + 1) via skb->priority.
 */
static int shape_port(struct agent *a, int p)
{
	const struct xfab_cfg_port *port = &a->cfg.ports[p];
	const char *dev = port->name;
	__u32 rate = port->rate_mbps, buffer = port->buffer_bytes ? port->buffer_bytes : 1u << 20;
	__u32 share_kbit = rate * 1000 / XFAB_NUM_TC;

	if (run_tc("qdisc replace dev %s root handle 1: htb default 2", dev) ||
	    run_tc("class replace dev %s parent 1: classid 1:100 htb rate %umbit ceil %umbit", dev,
		   rate, rate))
		goto fail;
	for (int tc = 0; tc < XFAB_NUM_TC; tc++) {
		if (run_tc("class replace dev %s parent 1:100 classid 1:%d htb rate %ukbit ceil "
			   "%umbit",
			   dev, tc + 1, share_kbit ? share_kbit : 1, rate) ||
		    run_tc("qdisc replace dev %s parent 1:%d handle %d: bfifo limit %u", dev,
			   tc + 1, 10 + tc, buffer))
			goto fail;
	}
	a->shaped[p] = 1;
	log_info("%s: HTB at %u Mbit/s, 8 class queues of %u bytes", dev, rate, buffer);
	return 0;
fail:
	log_err("cannot set up the queues of %s (is iproute2's tc installed?)", dev);
	run_tc("qdisc del dev %s root", dev);
	return -EIO;
}

static void detach_port(struct agent *a, int p)
{
	if (a->link_fd[p] < 0)
		return;
	close(a->link_fd[p]); /* the link was never pinned: closing detaches */
	a->link_fd[p] = -1;
	if (a->egress_fd[p] >= 0) {
		close(a->egress_fd[p]);
		a->egress_fd[p] = -1;
	}
	if (a->shaped[p]) {
		run_tc("qdisc del dev %s root", a->cfg.ports[p].name);
		a->shaped[p] = 0;
	}
	log_info("detached from %s", a->cfg.ports[p].name);
}

static int attach_port(struct agent *a, int p, int datapath)
{
	__u32 ifindex = a->live[p].ifindex;
	int err;

	/* XDP links default to native (driver) mode where the device has it. */
	if (datapath == XFAB_DP_XDP)
		a->link_fd[p] = bpf_link_create(bpf_program__fd(a->skel->progs.xfab_xdp),
						(int)ifindex, BPF_XDP, NULL);
	else
		a->link_fd[p] =
		    bpf_link_create(bpf_program__fd(a->skel->progs.xfab_tc), (int)ifindex,
				    (enum bpf_attach_type)XFAB_TCX_INGRESS, NULL);
	if (a->link_fd[p] < 0) {
		err = -errno;
		log_err("cannot attach %s datapath to %s (ifindex %u): %s",
			datapath == XFAB_DP_XDP ? "xdp" : "tc", a->cfg.ports[p].name, ifindex,
			strerror(-err));
		return err ? err : -EINVAL;
	}
	if (datapath == XFAB_DP_TC) {
		a->egress_fd[p] =
		    bpf_link_create(bpf_program__fd(a->skel->progs.xfab_tc_egress), (int)ifindex,
				    (enum bpf_attach_type)XFAB_TCX_EGRESS, NULL);
		if (a->egress_fd[p] < 0) {
			err = -errno;
			log_err("cannot attach the tc egress program to %s: %s",
				a->cfg.ports[p].name, strerror(-err));
			detach_port(a, p);
			return err;
		}
		if (a->cfg.ports[p].rate_mbps && shape_port(a, p)) {
			detach_port(a, p);
			return -EIO;
		}
	}
	log_info("attached %s datapath to %s (ifindex %u)", datapath == XFAB_DP_XDP ? "xdp" : "tc",
		 a->cfg.ports[p].name, ifindex);
	return 0;
}

/* Attaches every port or none: a failure rolls back what was attached. */
static int attach_all(struct agent *a)
{
	int err;

	for (int p = 0; p < a->cfg.n_ports; p++) {
		err = attach_port(a, p, a->cfg.datapath);
		if (err) {
			for (int q = p - 1; q >= 0; q--)
				detach_port(a, q);
			return err;
		}
	}
	return 0;
}

/* ---- pins and lock ---- */

static int remove_pins(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	return 0;
}

static int take_pin_dir(struct agent *a)
{
	char root[256];
	int err;

	err = xfab_ensure_bpffs();
	if (err) {
		log_err("cannot mount bpffs on /sys/fs/bpf: %s", strerror(-err));
		return err;
	}
	snprintf(root, sizeof(root), "%s", a->pin_root ? a->pin_root : XFAB_PIN_ROOT);
	for (char *s = root + 1; *s; s++) { /* mkdir -p */
		if (*s == '/') {
			*s = '\0';
			mkdir(root, 0700);
			*s = '/';
		}
	}
	mkdir(root, 0700);
	xfab_pin_dir(a->pin_dir, sizeof(a->pin_dir), root, a->cfg.hostname);
	if (mkdir(a->pin_dir, 0700) && errno != EEXIST) {
		log_err("cannot create %s: %s", a->pin_dir, strerror(errno));
		return -errno;
	}
	a->lock_fd = open(a->pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->lock_fd < 0 || flock(a->lock_fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err == -EWOULDBLOCK)
			log_err("another xfabd already runs switch %s (%s is locked)",
				a->cfg.hostname, a->pin_dir);
		else
			log_err("cannot lock %s: %s", a->pin_dir, strerror(-err));
		if (a->lock_fd >= 0)
			close(a->lock_fd);
		a->lock_fd = -1;
		return err;
	}
	/* Pins left by an xfabd that died: nobody holds them, start afresh.
	 * Say so when they were of another ABI (an upgrade in between). */
	{
		char msg[512];

		if (xfab_abi_check(a->pin_dir, "xfabd", msg, sizeof(msg)) == -EPROTO)
			log_info("%s; replacing them", msg);
	}
	return remove_pins(a->pin_dir);
}

static void release_pin_dir(struct agent *a)
{
	if (a->lock_fd < 0)
		return;
	remove_pins(a->pin_dir);
	rmdir(a->pin_dir);
	close(a->lock_fd);
	a->lock_fd = -1;
}

static int load_bpf(struct agent *a)
{
	struct bpf_map *map;
	char path[512];
	int err;

	a->skel = xfab__open();
	if (!a->skel) {
		log_err("cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_map(map, a->skel->obj)
	{
		if (bpf_map__type(map) == BPF_MAP_TYPE_ARRAY &&
		    !strncmp(bpf_map__name(map), ".", 1))
			continue; /* .rodata/.bss: not tables */
		snprintf(path, sizeof(path), "%s/%s", a->pin_dir, bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	err = xfab__load(a->skel);
	if (err) {
		log_err("cannot load the BPF programs: %s", strerror(-err));
		return err;
	}
	/* Readers check this before they read any other map. */
	err = xfab_abi_write(bpf_map__fd(a->skel->maps.abi));
	if (err) {
		log_err("cannot record the ABI version: %s", strerror(-err));
		return err;
	}
	/* The programs are pinned too: `xfabctl trace` runs frames through them. */
	snprintf(path, sizeof(path), "%s/prog_xdp", a->pin_dir);
	err = bpf_program__pin(a->skel->progs.xfab_xdp, path);
	if (!err) {
		snprintf(path, sizeof(path), "%s/prog_tc", a->pin_dir);
		err = bpf_program__pin(a->skel->progs.xfab_tc, path);
	}
	if (!err) {
		snprintf(path, sizeof(path), "%s/prog_trace", a->pin_dir);
		err = bpf_program__pin(a->skel->progs.xfab_xdp_trace, path);
	}
	if (err) {
		log_err("cannot pin the programs: %s", strerror(-err));
		return err;
	}
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		map = bpf_object__find_map_by_name(a->skel->obj, xfab_table_descs[t].map_name);
		if (!map) {
			log_err("BPF object has no map %s", xfab_table_descs[t].map_name);
			return -ENOENT;
		}
		a->map_fd[t] = bpf_map__fd(map);
	}
	err = xfab_fib4_map(&a->fib4, bpf_map__fd(a->skel->maps.fib4_tbl24),
			    bpf_map__fd(a->skel->maps.fib4_tbl8));
	if (!err)
		err = xfab_fib6_map(&a->fib6, bpf_map__fd(a->skel->maps.fib6_tbl16),
				    bpf_map__fd(a->skel->maps.fib6_tbl8));
	if (err)
		log_err("cannot map the FIB: %s", strerror(-err));
	return err;
}

/* ---- events ---- */

static int port_of_ifindex(const struct agent *a, __u32 ifindex)
{
	for (int p = 0; p < a->cfg.n_ports; p++)
		if (a->live[p].ifindex == ifindex)
			return p;
	return -1;
}

static void on_link(void *arg, const struct xfab_nl_link *l)
{
	struct agent *a = arg;
	int p = port_of_ifindex(a, l->ifindex);
	int up = l->deleted ? 0 : l->oper_up;

	if (p < 0 || a->live[p].oper_up == up)
		return;
	a->live[p].oper_up = up;
	log_info("port %s is %s", a->cfg.ports[p].name, up ? "up" : "down");
	a->dirty = 1;
}

static void on_neigh(void *arg, const struct xfab_nl_neigh *n)
{
	struct agent *a = arg;
	struct xfab_neigh_key key = {.ifindex = n->ifindex, .family = (__u8)n->family};
	struct xfab_neigh val = {0}, old;
	int have;

	if (port_of_ifindex(a, n->ifindex) < 0)
		return;
	/* Multicast "neighbours" (ff02::16 -> 33:33:...) are NOARP mappings. */
	if ((n->family == AF_INET6 && n->addr[0] == 0xff) ||
	    (n->family == AF_INET && (n->addr[0] & 0xf0) == 0xe0) || (n->mac[0] & 1))
		return;
	memcpy(key.addr, n->addr, n->family == AF_INET ? 4 : 16);
	have = bpf_map_lookup_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &old) == 0;
	if (have && (old.flags & XFAB_NEIGH_STATIC))
		return; /* configured neighbours win over learnt ones */
	if (n->deleted || !n->usable) {
		if (have) {
			bpf_map_delete_elem(a->map_fd[XFAB_T_NEIGHBORS], &key);
			a->dirty = 1;
		}
		return;
	}
	memcpy(val.mac, n->mac, 6);
	if (have && !memcmp(old.mac, val.mac, 6))
		return;
	if (bpf_map_update_elem(a->map_fd[XFAB_T_NEIGHBORS], &key, &val, BPF_ANY)) {
		log_warn("cannot store neighbour: %s", strerror(errno));
		return;
	}
	if (verbose) {
		char ip[INET6_ADDRSTRLEN], mac[18];

		inet_ntop(n->family, n->addr, ip, sizeof(ip));
		xfab_format_mac(n->mac, mac, sizeof(mac));
		log_dbg("neighbour %s is %s on ifindex %u", ip, mac, n->ifindex);
	}
	a->dirty = 1;
}

/* Nudges the kernel to resolve gateways nobody has talked to yet, so the
 * first packets of a flow need not be punted. */
static void probe_unresolved(struct agent *a)
{
	const struct xfab_table_image *img = &a->applied.t[XFAB_T_NEXTHOPS];

	for (size_t i = 0; i < img->count; i++) {
		const struct xfab_e_nexthop *e = &((struct xfab_e_nexthop *)img->entries)[i];
		int v6 = !!(e->val.flags & XFAB_NH_IPV6), p = port_of_ifindex(a, e->val.ifindex);
		struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(9)};
		struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9)};
		int fd;

		if (e->val.flags & XFAB_NH_RESOLVED || p < 0 || !a->live[p].oper_up)
			continue;
		fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, a->cfg.ports[p].name,
			   (socklen_t)strlen(a->cfg.ports[p].name));
		if (v6) {
			memcpy(&sin6.sin6_addr, e->val.gw, 16);
			sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin6, sizeof(sin6));
		} else {
			memcpy(&sin.sin_addr, e->val.gw, 4);
			sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin, sizeof(sin));
		}
		close(fd);
	}
}

static void print_errors(const struct xfab_cfg_errors *errs)
{
	char line[768];

	for (int i = 0; i < errs->count; i++) {
		xfab_cfg_error_format(&errs->e[i], line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
	if (errs->total > errs->count)
		fprintf(stderr, "(%d more error(s) not shown)\n", errs->total - errs->count);
}

/* SIGHUP: validate the file again and move to it in place, or keep running
 * the old config untouched. */
static void reload(struct agent *a)
{
	struct xfab_port_live live[XFAB_MAX_PORTS], old_live[XFAB_MAX_PORTS];
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;

	log_info("reloading %s", a->cfg_path);
	if (xfab_config_load(a->cfg_path, &cfg, &errs)) {
		print_errors(&errs);
		log_err("reload rejected: %s has %d error(s); running config unchanged",
			a->cfg_path, errs.total);
		return;
	}
	/* what needs a restart, and whether the switch-over fits the tables */
	if (xfab_config_check_change(&a->cfg, &cfg, a->cfg_path, &errs)) {
		print_errors(&errs);
		log_err("reload rejected: %s has %d error(s); running config unchanged",
			a->cfg_path, errs.total);
		goto reject;
	}
	if (resolve_ports(&cfg, live, a->cfg_path)) {
		log_err("reload rejected; running config unchanged");
		goto reject;
	}
	memcpy(old_live, a->live, sizeof(old_live));
	memcpy(a->live, live, sizeof(live));
	if (rebuild_and_apply(a, &cfg)) {
		memcpy(a->live, old_live, sizeof(old_live));
		log_err("reload failed while writing tables; will retry on the next event");
		goto reject;
	}
	{
		struct xfab_config old = a->cfg;

		a->cfg = cfg;
		/* tc datapath: a port whose rate or buffer changed gets its queues
		 * rebuilt (or removed when it lost its rate). */
		for (int p = 0; a->cfg.datapath == XFAB_DP_TC && p < cfg.n_ports; p++) {
			if (cfg.ports[p].rate_mbps == old.ports[p].rate_mbps &&
			    cfg.ports[p].buffer_bytes == old.ports[p].buffer_bytes)
				continue;
			if (cfg.ports[p].rate_mbps)
				shape_port(a, p);
			else if (a->shaped[p] &&
				 run_tc("qdisc del dev %s root", cfg.ports[p].name) == 0)
				a->shaped[p] = 0;
		}
		xfab_config_free(&old);
	}
	log_info("reloaded: %d ports, %d routes", cfg.n_ports, cfg.n_routes);
	return;
reject:
	xfab_config_free(&cfg);
}

static int event_loop(struct agent *a)
{
	struct xfab_nl_handlers h = {.link = on_link, .neigh = on_neigh, .arg = a};
	struct itimerspec every_second = {{1, 0}, {1, 0}};
	struct pollfd pfd[3];
	sigset_t mask;
	int sfd, tfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0 || timerfd_settime(tfd, 0, &every_second, NULL)) {
		log_err("cannot set up the event loop: %s", strerror(errno));
		return -errno;
	}
	pfd[0] = (struct pollfd){.fd = xfab_nl_fd(a->nl), .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
	pfd[2] = (struct pollfd){.fd = tfd, .events = POLLIN};
	log_info("switch %s forwarding on %d ports (%s datapath)", a->cfg.hostname, a->cfg.n_ports,
		 a->cfg.datapath == XFAB_DP_XDP ? "xdp" : "tc");
	for (;;) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN) {
			int err = xfab_nl_read_events(a->nl, &h);

			if (err == -ENOBUFS) { /* missed events: read the whole state again */
				log_warn("netlink overrun; resynchronising");
				xfab_nl_dump_links(&h);
				xfab_nl_dump_neighs(&h);
			}
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload(a);
				} else {
					log_info("signal %u: stopping", si.ssi_signo);
					break;
				}
			}
		}
		if (pfd[2].revents & POLLIN) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
			probe_unresolved(a);
		}
		if (a->dirty) {
			a->dirty = 0;
			if (rebuild_and_apply(a, &a->cfg))
				a->dirty = 1;
		}
	}
	close(sfd);
	close(tfd);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: xfabd -c CONFIG [--check] [--pin-root DIR] [--pidfile FILE] [-v]\n"
	    "  -c, --config FILE   switch config (JSON, docs/CONFIG.md)\n"
	    "      --check         validate the config (and its ports) and exit\n"
	    "      --pin-root DIR  pin maps under DIR/<hostname> (default " XFAB_PIN_ROOT ")\n"
	    "      --pidfile FILE  write the agent's pid to FILE\n"
	    "      --metrics ADDR:PORT  serve Prometheus metrics (GET /metrics)\n"
	    "      --probe-kernel  check the kernel has what xfab needs (Linux >= 6.6) and exit\n"
	    "  -v, --verbose       debug logging\n"
	    "Signals: HUP reloads CONFIG in place; TERM/INT detach, unpin and exit.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"check", no_argument, NULL, 'k'},
	    {"pin-root", required_argument, NULL, 'r'},
	    {"pidfile", required_argument, NULL, 'p'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"metrics", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {"probe-kernel", no_argument, NULL, 'K'},
	    {NULL, 0, NULL, 0},
	};
	struct agent a = {.lock_fd = -1};
	struct xfab_nl_handlers nh = {.neigh = on_neigh, .arg = &a};
	struct xfab_cfg_errors errs;
	char probe_msg[512];
	int check_only = 0, opt, ret = 1;
	sigset_t mask;

	while ((opt = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			a.cfg_path = optarg;
			break;
		case 'k':
			check_only = 1;
			break;
		case 'r':
			a.pin_root = optarg;
			break;
		case 'p':
			a.pidfile = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'm':
			a.metrics = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'K': {
			int bad = xfab_probe_kernel(probe_msg, sizeof(probe_msg));

			fprintf(bad ? stderr : stdout, "xfabd: %s\n", probe_msg);
			return bad ? 1 : 0;
		}
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!a.cfg_path || optind != argc) {
		usage(stderr);
		return 2;
	}
	libbpf_set_print(libbpf_log);

	/* Everything is validated before anything touches the kernel. */
	if (xfab_config_load(a.cfg_path, &a.cfg, &errs)) {
		print_errors(&errs);
		fprintf(stderr, "%s: %d error(s); nothing was changed\n", a.cfg_path, errs.total);
		return 1;
	}
	if (resolve_ports(&a.cfg, a.live, a.cfg_path)) {
		fprintf(stderr, "%s: nothing was changed\n", a.cfg_path);
		goto out_cfg;
	}
	if (check_only) {
		printf("%s: OK (%s, %d ports, %d addresses, %d routes)\n", a.cfg_path,
		       a.cfg.hostname, a.cfg.n_ports, a.cfg.n_addrs, a.cfg.n_routes);
		ret = 0;
		goto out_cfg;
	}

	/* Say which kernel feature is missing now, not deep inside a load. */
	if (xfab_probe_kernel(probe_msg, sizeof(probe_msg))) {
		log_err("%s", probe_msg);
		goto out_cfg;
	}

	/* Signals are handled in the loop; block them from the start so a
	 * TERM during start-up still unwinds cleanly. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	if (take_pin_dir(&a))
		goto out_cfg;
	for (int p = 0; p < XFAB_MAX_PORTS; p++)
		a.link_fd[p] = a.egress_fd[p] = -1;
	if (load_bpf(&a))
		goto out_unpin;
	a.nl = xfab_nl_open_events();
	if (!a.nl) {
		log_err("cannot subscribe to rtnetlink: %s", strerror(errno));
		goto out_unload;
	}
	if (xfab_nl_dump_neighs(&nh))
		log_warn("cannot read the kernel's neighbour table; learning as it changes");
	if (rebuild_and_apply(&a, &a.cfg))
		goto out_nl;
	if (attach_all(&a))
		goto out_nl;
	if (a.pidfile) {
		FILE *f = fopen(a.pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	if (a.metrics) {
		static struct xfab_metrics_src src;

		snprintf(src.hostname, sizeof(src.hostname), "%s", a.cfg.hostname);
		src.n_ports = a.cfg.n_ports;
		for (int p = 0; p < a.cfg.n_ports; p++)
			snprintf(src.port_names[p], sizeof(src.port_names[p]), "%s",
				 a.cfg.ports[p].name);
		src.fd_port_stats = bpf_map__fd(a.skel->maps.port_stats);
		src.fd_drop_stats = bpf_map__fd(a.skel->maps.drop_stats);
		src.fd_punt_stats = bpf_map__fd(a.skel->maps.punt_stats);
		src.fd_queue_stats = bpf_map__fd(a.skel->maps.queue_stats);
		src.fd_queue_wm = bpf_map__fd(a.skel->maps.queue_watermark);
		src.fd_lb_stats = bpf_map__fd(a.skel->maps.lb_stats);
		if (xfab_metrics_start(a.metrics, &src))
			log_warn("cannot serve metrics on %s: %s", a.metrics, strerror(errno));
		else
			log_info("serving metrics on http://%s/metrics", a.metrics);
	}
	probe_unresolved(&a); /* now, not a second from now */
	ret = event_loop(&a) ? 1 : 0;
	for (int p = a.cfg.n_ports - 1; p >= 0; p--)
		detach_port(&a, p);
	if (a.pidfile)
		unlink(a.pidfile);
out_nl:
	xfab_nl_close(a.nl);
out_unload:
	xfab_fib4_unmap(&a.fib4);
	xfab_fib6_unmap(&a.fib6);
	xfab__destroy(a.skel);
	free(a.batch.keys);
	free(a.batch.vals);
out_unpin:
	release_pin_dir(&a);
	xfab_tables_free(&a.applied);
	log_info("stopped");
out_cfg:
	xfab_config_free(&a.cfg);
	return ret;
}
