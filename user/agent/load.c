// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpffs, the switch's pin directory and its lock, and loading the BPF
 * object with its maps and programs pinned there. */
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
#include "xfab.skel.h"

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

int take_pin_dir(struct agent *a)
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

void release_pin_dir(struct agent *a)
{
	if (a->lock_fd < 0)
		return;
	remove_pins(a->pin_dir);
	rmdir(a->pin_dir);
	close(a->lock_fd);
	a->lock_fd = -1;
}

int load_bpf(struct agent *a)
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

void unload_bpf(struct agent *a)
{
	xfab_fib4_unmap(&a->fib4);
	xfab_fib6_unmap(&a->fib6);
	xfab__destroy(a->skel);
	a->skel = NULL;
	free(a->batch.keys);
	free(a->batch.vals);
	a->batch.keys = a->batch.vals = NULL;
}
