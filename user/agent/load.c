// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpffs, the switch's pin directory and its lock, and loading the BPF
 * object.
 *
 * Restarts are hitless. Everything xfabd sets up lives in the pin
 * directory: the maps, the programs and the port links (ports.c), so a
 * dead or restarting xfabd leaves the data plane forwarding. The next one
 * adopts it:
 *   - the state maps (counters, queue state, port load) are reused as they
 *     are: counters keep counting;
 *   - the forwarding tables are built anew in fresh maps beside the old
 *     ones, from the config and the kernel's FIB, without touching what
 *     forwards;
 *   - each port's link is switched to the new program in one step
 *     (bpf_link_update): a packet sees the old tables or the new, whole;
 *   - then the new maps and programs replace the old pins (rename, so a
 *     reader never finds a name missing) and the old ones go with their
 *     last user.
 * Pins of another ABI are refused unless --force: the old program keeps
 * forwarding from them while no xfabd runs.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "agent.h"
#include "common.h"
#include "feature.h"
#include "xfab.skel.h"

/* The maps a restart keeps as they are: what the data plane counts and
 * measures, nothing it forwards by. Every other map is built anew. */
static int is_table_map(const struct bpf_map *map)
{
	/* .rodata/.bss (named "<object>.rodata"): libbpf's own, not tables */
	return !bpf_map__is_internal(map);
}

/* A pin being published is first made under this prefix (bpffs allows
 * no dots in names). */
#define STAGED "staged_"

/* Removes the pins in dir: all of them, or only the staged ones
 * of a start that died before it published them. Unpinning a port's link
 * detaches it. */
static int remove_pins(const char *dir, int only_new)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (only_new && strncmp(de->d_name, STAGED, strlen(STAGED)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	return 0;
}

int agent_take_pin_dir(struct agent *a)
{
	char root[256], msg[512];
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
	remove_pins(a->pin_dir, 1);
	/* Pins left by an xfabd that died or restarted: nobody holds them. */
	err = xfab_abi_check(a->pin_dir, "xfabd", msg, sizeof(msg));
	if (!err) {
		a->adopt = 1;
		log_info("adopting the data plane in %s (left by the previous xfabd)", a->pin_dir);
		return 0;
	}
	if (err == -EPROTO && !a->force) {
		log_err("%s", msg);
		log_err("refusing to adopt them: the running data plane is left as it is (start "
			"with --force to replace it; forwarding stops until the ports attach "
			"again)");
		close(a->lock_fd);
		a->lock_fd = -1;
		return -EPROTO;
	}
	if (err == -EPROTO)
		log_warn("%s; replacing them (--force)", msg);
	a->adopt = 0;
	return remove_pins(a->pin_dir, 0);
}

void agent_release_pin_dir(struct agent *a)
{
	if (a->lock_fd < 0)
		return;
	if (!a->keep) {
		remove_pins(a->pin_dir, 0);
		rmdir(a->pin_dir);
	}
	close(a->lock_fd);
	a->lock_fd = -1;
}

struct xfab *agent_progs(const struct agent *a)
{
	return a->spec ? a->spec : a->skel;
}

unsigned int agent_code_for(const struct agent *a, const struct xfab_config *cfg)
{
	return a->code_all ? XFAB_CODE_ALL : xfab_feature_code(cfg);
}

/* A program's size after the verifier: what it kept of the code. */
static unsigned int prog_insns(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.xlated_prog_len / 8;
}

void agent_code_log(const struct agent *a, const struct xfab *s)
{
	char names[160];

	log_info("data plane code: %s%s; xfab_xdp %u instructions, xfab_tc %u",
		 xfab_feature_code_names(a->code, names, sizeof(names)),
		 a->code_all ? " (--code all)" : "", prog_insns(s->progs.xfab_xdp),
		 prog_insns(s->progs.xfab_tc));
}

int agent_load_bpf(struct agent *a)
{
	struct bpf_map *map;
	char path[512];
	int err;

	a->skel = xfab__open();
	if (!a->skel) {
		log_err("cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	/* make bench's stage builds (bpf/bench.h): a program of their own,
	 * which a switch does not load */
	bpf_program__set_autoload(a->skel->progs.xfab_xdp_bench, a->bench_stop != 0);
	if (a->bench_stop) {
		int p;

		for (p = 0; p < a->cfg.n_ports; p++)
			if (!strcmp(a->cfg.ports[p].name, a->bench_port))
				break;
		a->skel->rodata->xfab_bench_stop = a->bench_stop;
		a->skel->rodata->xfab_bench_port = p < a->cfg.n_ports ? a->live[p].ifindex : 0;
		a->skel->rodata->xfab_bench_slot = (__u32)p;
		log_warn("bench build: the pipeline stops after stage %u and sends to %s; this is "
			 "not a switch",
			 a->bench_stop, a->bench_port);
	}
	/* the optional code the config needs, and nothing else (spec.c) */
	a->code = agent_code_for(a, &a->cfg);
	a->skel->rodata->xfab_code = a->code;
	/* The state maps are pinned (and, pinned already, reused) as they
	 * load; the rest is published once the ports run on it. */
	bpf_object__for_each_map(map, a->skel->obj)
	{
		if (!is_table_map(map) || !xfab_feature_is_state_map(bpf_map__name(map)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", a->pin_dir, bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	/* The FIBs' groups: sized to the table (xfab_config_fib_groups) */
	for (int v6 = 0; v6 < 2; v6++) {
		struct bpf_map *g = v6 ? a->skel->maps.fib6_tbl8 : a->skel->maps.fib4_tbl8;

		err = bpf_map__set_max_entries(g, xfab_config_fib_groups(&a->cfg, v6) * 256 / 2);
		if (err) {
			log_err("cannot size the FIB: %s", strerror(-err));
			return err;
		}
	}
	err = xfab__load(a->skel);
	if (err) {
		log_err("cannot load the BPF programs: %s", strerror(-err));
		if (a->adopt)
			log_err("the pinned maps in %s do not fit this build (same ABI version, "
				"another layout?): start with --force to replace them",
				a->pin_dir);
		return err;
	}
	/* Readers check this before they read any other map. */
	err = xfab_abi_write(bpf_map__fd(a->skel->maps.abi));
	if (err) {
		log_err("cannot record the ABI version: %s", strerror(-err));
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
	err = xfab_fib_map(&a->fib4, 4, bpf_map__fd(a->skel->maps.fib4_tbl16),
			   bpf_map__fd(a->skel->maps.fib4_tbl8));
	if (!err)
		err = xfab_fib_map(&a->fib6, 16, bpf_map__fd(a->skel->maps.fib6_tbl16),
				   bpf_map__fd(a->skel->maps.fib6_tbl8));
	if (err) {
		log_err("cannot map the FIB: %s", strerror(-err));
		return err;
	}
	/* reloads and pins must fit what was loaded */
	a->cfg.fib_groups_loaded[0] = a->fib4.n_groups;
	a->cfg.fib_groups_loaded[1] = a->fib6.n_groups;
	log_info("FIB: IPv4 %u groups, IPv6 %u groups (%u KiB with the first levels)",
		 a->fib4.n_groups, a->fib6.n_groups, a->fib4.n_groups + a->fib6.n_groups + 512);
	agent_code_log(a, a->skel);
	return 0;
}

/* Pins fd as dir/name in one step: staged, then renamed over name. */
static int pin_replace(const char *dir, const char *name, int fd)
{
	char tmp[512], path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/" STAGED "%s", dir, name);
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp))
		return -errno;
	if (rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

int agent_publish_progs(struct agent *a)
{
	static const struct {
		const char *name;
		size_t off;
	} progs[] = {
	    {"prog_xdp", offsetof(struct xfab, progs.xfab_xdp)},
	    {"prog_tc", offsetof(struct xfab, progs.xfab_tc)},
	    {"prog_tc_egress", offsetof(struct xfab, progs.xfab_tc_egress)},
	    {"prog_trace", offsetof(struct xfab, progs.xfab_xdp_trace)},
	};
	struct xfab *s = agent_progs(a);
	int err;

	/* `xfabctl trace` runs frames through the pinned programs. */
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *prog = *(struct bpf_program **)((char *)s + progs[i].off);

		if (prog == s->progs.xfab_xdp && a->bench_stop)
			prog = s->progs.xfab_xdp_bench;
		err = pin_replace(a->pin_dir, progs[i].name, bpf_program__fd(prog));
		if (err) {
			log_err("cannot pin the programs in %s: %s", a->pin_dir, strerror(-err));
			return err;
		}
	}
	return 0;
}

int agent_publish_pins(struct agent *a)
{
	struct bpf_map *map;
	int err = agent_publish_progs(a);

	if (err)
		return err;
	/* the ABI record last: a reader that sees it sees the maps it names */
	bpf_object__for_each_map(map, a->skel->obj)
	{
		if (!is_table_map(map) || xfab_feature_is_state_map(bpf_map__name(map)) ||
		    map == a->skel->maps.abi)
			continue;
		err = pin_replace(a->pin_dir, bpf_map__name(map), bpf_map__fd(map));
		if (err)
			goto fail;
	}
	err = pin_replace(a->pin_dir, bpf_map__name(a->skel->maps.abi),
			  bpf_map__fd(a->skel->maps.abi));
	if (!err)
		return 0;
fail:
	log_err("cannot pin the maps and programs in %s: %s", a->pin_dir, strerror(-err));
	return err;
}

void agent_unload_bpf(struct agent *a)
{
	xfab__destroy(a->spec);
	a->spec = NULL;
	xfab_fib_unmap(&a->fib4);
	xfab_fib_unmap(&a->fib6);
	xfab__destroy(a->skel);
	a->skel = NULL;
	free(a->batch.keys);
	free(a->batch.vals);
	a->batch.keys = a->batch.vals = NULL;
}
