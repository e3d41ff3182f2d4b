// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-linkfault: a faulty link that keeps its carrier. The frames that
 * arrive on a device are dropped or damaged, all of them or a random share,
 * while the device sees no link event: a dead link that only a liveness
 * protocol (BFD) finds, or a lossy optic that only counters find.
 *
 *   xfab-linkfault drop DEV              every frame dropped (= loss DEV 100)
 *   xfab-linkfault loss DEV PERCENT      PERCENT % of the frames dropped
 *   xfab-linkfault corrupt DEV PERCENT   PERCENT % of the frames damaged
 *   xfab-linkfault restore DEV
 *   xfab-linkfault status DEV [-j]
 * (in DEV's network namespace: nsenter --net=...). PERCENT is a decimal
 * 0.01..100 with at most two decimals; each frame is hit independently
 * (bpf_get_prandom_u32() below PERCENT/100 * 2^32).
 *
 * The fault is an XDP program, xfab_lf_fault (tools/xfab-linkfault.bpf.c: what a
 * damaged frame looks like and how xfab counts it). XDP runs first on a
 * veth's receive path, before tc and the stack, also for frames another
 * device's XDP redirected into the peer. What is not dropped goes on to
 * what would have had it:
 *   - DEV has an XDP program on a bpf_link (xfab's xdp datapath): the
 *     fault program tail-calls it. It goes into a PROG_ARRAY (the array's
 *     owner: its program type, frags flag and attach type, which the fault
 *     program is then loaded to match), the link is updated to the fault
 *     program, and the original is pinned while it is out of the link, at
 *     /sys/fs/bpf/xfab-linkfault/NETNS-IFINDEX (NETNS: the namespace's
 *     inode), the array beside it (NETNS-IFINDEX-next, no dot: bpffs
 *     refuses one in a name; a PROG_ARRAY that no file or pin holds is
 *     emptied). restore updates the link back and removes both pins.
 *   - DEV has no XDP program (the kernel alone, xfab's tc datapath): the
 *     fault program is attached in driver mode (netlink, no bpf_link: it
 *     stays when this tool exits) and passes what it does not drop to the
 *     kernel (XDP_PASS), so xfab's tc ingress sees it; restore detaches
 *     exactly it.
 *   - DEV has an XDP program without a link: refused, nothing changes.
 * The link is the one whose program is DEV's and whose ifindex is DEV's:
 * ifindexes repeat across namespaces, program ids do not.
 *
 * status prints the mode, the share and what the fault program counted
 * (every frame seen, dropped, corrupted by kind), or "forwarding"; -j as
 * one JSON object. restore leaves DEV as the fault found it: the same
 * program on the same link, or no XDP program. Every failure says why and
 * changes nothing, except that restore of a link whose fault program
 * someone else replaced (an xfabd restarted meanwhile takes its links
 * over) releases the saved original and says so.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "jsonw.h"
#include "linkfault.skel.h"
#include "xfab_linkfault.h"

#define PIN_DIR "/sys/fs/bpf/xfab-linkfault"

static const char *dev;

static int fail(const char *what, int err)
{
	fprintf(stderr, "xfab-linkfault: %s: %s: %s\n", dev, what, strerror(err));
	return 1;
}

/* "5", "0.25", "100": hundredths of a percent, 1..10000; -1 if it is not
 * such a decimal (no sign, no exponent, at most two decimals). */
static int lf_parse_percent(const char *s)
{
	long whole = 0, frac = 0;
	int digits = 0, decimals = 0;

	for (; isdigit((unsigned char)*s) && digits < 4; s++, digits++)
		whole = whole * 10 + (*s - '0');
	if (!digits)
		return -1;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s) && decimals < 2; s++, decimals++)
			frac = frac * 10 + (*s - '0');
		if (!decimals)
			return -1;
		if (decimals == 1)
			frac *= 10;
	}
	if (*s)
		return -1;
	whole = whole * 100 + frac;
	return whole >= 1 && whole <= 10000 ? (int)whole : -1;
}

/* The program id attached to ifindex in driver (or generic) mode, 0: none. */
static int xdp_prog_id(int ifindex, __u32 *id, __u32 *mode_flags)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	*id = q.prog_id;
	*mode_flags = 0;
	if (q.attach_mode == XDP_ATTACHED_DRV)
		*mode_flags = XDP_FLAGS_DRV_MODE;
	else if (q.attach_mode == XDP_ATTACHED_SKB)
		*mode_flags = XDP_FLAGS_SKB_MODE;
	else if (q.attach_mode != XDP_ATTACHED_NONE)
		return -EOPNOTSUPP; /* offloaded or several modes at once */
	return 0;
}

/* 1 if program id is our fault program (its fd in *fd_out, if asked), 0 if
 * not, or -errno. */
static int prog_is_fault(__u32 id, int *fd_out)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (fd_out)
		*fd_out = fd;
	else
		close(fd);
	return strcmp(info.name, XFAB_LF_PROG_NAME) == 0;
}

/* The fd of the XDP link on ifindex that holds program prog_id, or -ENOENT. */
static int find_link(int ifindex, __u32 prog_id)
{
	__u32 id = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_XDP &&
		    info.prog_id == prog_id && (int)info.xdp.ifindex == ifindex)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* The fault program loaded with its settings. next_fd >= 0: a PROG_ARRAY
 * holding the original program, whose owner (the original's program type,
 * frags flag and attach type) the fault program must match to tail-call
 * it; these are not in bpf_prog_info, so each combination is tried and the
 * kernel says which one fits. */
static struct linkfault *lf_load(const struct xfab_lf_conf *conf, int next_fd)
{
	static const struct {
		enum bpf_attach_type type;
		__u32 flags;
	} tries[] = {
	    {BPF_XDP, 0}, {BPF_XDP, BPF_F_XDP_HAS_FRAGS}, {0, 0}, {0, BPF_F_XDP_HAS_FRAGS}};
	struct linkfault *skel;
	int err = EINVAL;
	__u32 key = 0;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		skel = linkfault__open();
		if (!skel)
			return NULL;
		bpf_program__set_expected_attach_type(skel->progs.xfab_lf_fault, tries[i].type);
		bpf_program__set_flags(skel->progs.xfab_lf_fault,
				       bpf_program__flags(skel->progs.xfab_lf_fault) |
					   tries[i].flags);
		err = next_fd >= 0 ? -bpf_map__reuse_fd(skel->maps.lf_next, next_fd) : 0;
		if (!err)
			err = -linkfault__load(skel);
		if (!err && bpf_map_update_elem(bpf_map__fd(skel->maps.lf_conf), &key, conf, 0))
			err = errno;
		if (!err)
			return skel;
		linkfault__destroy(skel);
	}
	errno = err;
	return NULL;
}

static int pin_path(int ifindex, const char *suffix, char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	snprintf(buf, len, PIN_DIR "/%lu-%d%s", (unsigned long)st.st_ino, ifindex, suffix);
	return 0;
}

/* The fault's settings as status prints them ("loss 5.00 %"). */
static void lf_describe(const struct xfab_lf_conf *conf, char *buf, size_t len)
{
	snprintf(buf, len, "%s %u.%02u %%", conf->mode == XFAB_LF_LOSS ? "loss" : "corrupt",
		 conf->percent_centi / 100, conf->percent_centi % 100);
}

/* The settings and (st: if asked) the summed counts of the fault program
 * prog_fd, from its maps lf_conf and lf_stats. */
static int lf_read(int prog_fd, struct xfab_lf_conf *conf, struct xfab_lf_stats *st)
{
	__u32 ids[8], len, key = 0, found = 0;
	struct bpf_prog_info info = {.nr_map_ids = 8, .map_ids = (__u64)(unsigned long)ids};

	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	for (__u32 i = 0; i < info.nr_map_ids && i < 8; i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]), err = 0;

		if (fd < 0)
			return -errno;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen))
			err = -errno;
		else if (!strcmp(mi.name, "lf_conf") && !(found & 1)) {
			err = bpf_map_lookup_elem(fd, &key, conf) ? -errno : 0;
			found |= 1;
		} else if (!strcmp(mi.name, "lf_stats") && st && !(found & 2)) {
			err = xfab_percpu_sum(fd, key, (__u64 *)st, sizeof(*st) / sizeof(__u64));
			found |= 2;
		}
		close(fd);
		if (err)
			return err;
	}
	return (found & 1) && (!st || (found & 2)) ? 0 : -ENOENT;
}

/* An XDP program already there that is ours: refused, and says which. */
static int lf_refuse_faulty(int prog_fd)
{
	struct xfab_lf_conf conf = {0};
	char what[32] = "?";

	if (!lf_read(prog_fd, &conf, NULL))
		lf_describe(&conf, what, sizeof(what));
	close(prog_fd);
	fprintf(stderr, "xfab-linkfault: %s: already faulty (%s): restore it first\n", dev, what);
	return 1;
}

/* No XDP program on DEV: the fault program alone, survivors to the kernel. */
static int fault_alone(int ifindex, struct xfab_lf_conf *conf)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	struct linkfault *skel;
	int err;

	conf->chain = 0;
	skel = lf_load(conf, -1);
	if (!skel)
		return fail("cannot load the fault program", errno);
	err = bpf_xdp_attach(ifindex, bpf_program__fd(skel->progs.xfab_lf_fault),
			     XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST, &ao);
	linkfault__destroy(skel);
	if (err)
		return fail("cannot attach the fault program", -err);
	return 0;
}

/* The original program orig pinned at pin and, in a PROG_ARRAY pinned at
 * npin, made the tail call's target: the array's fd, or -errno with
 * nothing left behind (what failed in *what). */
static int lf_save_original(int orig, const char *pin, const char *npin, const char **what)
{
	__u32 key = 0;
	int next, err;

	*what = "cannot create " PIN_DIR;
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	/* the original program lives on in the pin while the link holds the fault */
	*what = "cannot pin its XDP program";
	if (bpf_obj_pin(orig, pin)) {
		err = -errno;
		if (err == -EEXIST)
			*what = "a fault of it is pending (pin exists)";
		goto out_dir;
	}
	*what = "cannot create the tail call's program array";
	next = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "lf_next", 4, 4, 1, NULL);
	if (next < 0) {
		err = -errno;
		goto out_pin;
	}
	*what = "its XDP program cannot be tail-called";
	if (bpf_map_update_elem(next, &key, &orig, 0)) {
		err = -errno;
		goto out_next;
	}
	*what = "cannot pin the tail call's program array";
	if (bpf_obj_pin(next, npin)) {
		err = -errno;
		goto out_next;
	}
	return next;
out_next:
	close(next);
out_pin:
	unlink(pin);
out_dir:
	rmdir(PIN_DIR); /* fails while other faults are pending: fine */
	return err;
}

/* DEV's XDP program (id) on its bpf_link: the link is updated to the fault
 * program, which tail-calls the original. */
static int fault_chained(int ifindex, __u32 id, struct xfab_lf_conf *conf)
{
	char pin[128], npin[136];
	struct linkfault *skel;
	int err, link, orig, next;
	const char *what;

	link = find_link(ifindex, id);
	if (link < 0) {
		fprintf(stderr,
			"xfab-linkfault: %s: its XDP program (id %u) is not on a bpf_link: "
			"not replaced\n",
			dev, id);
		return 1;
	}
	orig = bpf_prog_get_fd_by_id(id);
	err = orig < 0 ? errno : 0;
	what = "cannot open its XDP program";
	if (!err && (pin_path(ifindex, "", pin, sizeof(pin)) ||
		     pin_path(ifindex, "-next", npin, sizeof(npin)))) {
		err = errno;
		what = "cannot name the pin";
	}
	next = err ? -err : lf_save_original(orig, pin, npin, &what);
	if (next < 0) {
		close(link);
		if (orig >= 0)
			close(orig);
		return fail(what, -next);
	}
	conf->chain = 1;
	skel = lf_load(conf, next);
	err = skel ? 0 : errno;
	what = "cannot load a fault program that can tail-call its XDP program";
	if (skel) {
		LIBBPF_OPTS(bpf_link_update_opts, uo, .old_prog_fd = orig, .flags = BPF_F_REPLACE);
		if (bpf_link_update(link, bpf_program__fd(skel->progs.xfab_lf_fault), &uo))
			err = errno;
		what = "cannot swap in the fault program";
		linkfault__destroy(skel);
	}
	close(next);
	close(link);
	close(orig);
	if (err) {
		unlink(npin);
		unlink(pin);
		rmdir(PIN_DIR); /* fails while other faults are pending: fine */
		return fail(what, err);
	}
	return 0;
}

static int do_fault(int ifindex, enum xfab_lf_mode mode, int centi)
{
	struct xfab_lf_conf conf = {
	    .mode = mode,
	    .percent_centi = (__u32)centi,
	    .threshold = ((__u64)centi << 32) / 10000,
	};
	__u32 id = 0, xdp_mode = 0;
	int err, is_fault, fd = -1;

	err = xdp_prog_id(ifindex, &id, &xdp_mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	if (!id)
		return fault_alone(ifindex, &conf);
	is_fault = prog_is_fault(id, &fd);
	if (is_fault < 0)
		return fail("cannot read its XDP program", -is_fault);
	if (is_fault)
		return lf_refuse_faulty(fd);
	close(fd);
	return fault_chained(ifindex, id, &conf);
}

/* DEV's XDP program is not ours. If a fault saved an original, someone
 * replaced the fault program meanwhile (a restarted xfabd takes its links
 * over): the saved original is of no use now. */
static int restore_not_faulty(__u32 id, const char *pin, const char *npin)
{
	unlink(npin);
	if (!unlink(pin)) {
		rmdir(PIN_DIR);
		fprintf(stderr,
			"xfab-linkfault: %s: the fault program was replaced meanwhile (now "
			"XDP program id %u): its saved original released\n",
			dev, id);
		return 1;
	}
	fprintf(stderr, "xfab-linkfault: %s: not faulty (%s)\n", dev,
		id ? "its XDP program is not ours" : "no XDP program");
	return 1;
}

static int do_restore(int ifindex)
{
	char pin[128], npin[136];
	__u32 id = 0, mode = 0;
	int err, link, orig, fault = -1, is_fault;

	err = xdp_prog_id(ifindex, &id, &mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	if (pin_path(ifindex, "", pin, sizeof(pin)) ||
	    pin_path(ifindex, "-next", npin, sizeof(npin)))
		return fail("cannot name the pin", errno);
	is_fault = id ? prog_is_fault(id, &fault) : 0;
	if (is_fault < 0)
		return fail("cannot read its XDP program", -is_fault);
	if (!is_fault) {
		if (fault >= 0)
			close(fault);
		return restore_not_faulty(id, pin, npin);
	}
	orig = bpf_obj_get(pin);
	if (orig < 0) {
		/* no original: the fault program was attached alone, detach it */
		LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = fault);
		err = bpf_xdp_detach(ifindex, mode | XDP_FLAGS_REPLACE, &ao);
		close(fault);
		return err ? fail("cannot detach the fault program", -err) : 0;
	}
	link = find_link(ifindex, id);
	if (link < 0) {
		close(fault);
		close(orig);
		return fail("the fault program is on no bpf_link", ENOENT);
	}
	LIBBPF_OPTS(bpf_link_update_opts, uo, .old_prog_fd = fault, .flags = BPF_F_REPLACE);
	err = bpf_link_update(link, orig, &uo) ? errno : 0;
	close(link);
	close(fault);
	close(orig);
	if (err)
		return fail("cannot put the original program back", err);
	unlink(npin);
	unlink(pin);
	rmdir(PIN_DIR); /* fails while other faults are pending: fine */
	return 0;
}

static void status_print(const struct xfab_lf_conf *conf, const struct xfab_lf_stats *st, int json)
{
	__u64 corrupted = st->corrupted_ipv4 + st->corrupted_ipv6 + st->corrupted_other;
	const char *mode = !conf->mode			? "forwarding"
			   : conf->mode == XFAB_LF_LOSS ? "loss"
							: "corrupt";
	struct xfab_jw w;
	char what[32];

	if (!json) {
		if (!conf->mode) {
			printf("%s: forwarding\n", dev);
			return;
		}
		lf_describe(conf, what, sizeof(what));
		printf("%s: %s: seen %llu, dropped %llu, corrupted %llu (ipv4 %llu, ipv6 %llu, "
		       "other %llu), unchained %llu\n",
		       dev, what, (unsigned long long)st->seen, (unsigned long long)st->dropped,
		       (unsigned long long)corrupted, (unsigned long long)st->corrupted_ipv4,
		       (unsigned long long)st->corrupted_ipv6,
		       (unsigned long long)st->corrupted_other, (unsigned long long)st->unchained);
		return;
	}
	xfab_jw_init(&w, stdout);
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_string(&w, "dev", dev);
	xfab_jw_string(&w, "mode", mode);
	xfab_jw_double(&w, "percent", conf->percent_centi / 100.0);
	xfab_jw_uint(&w, "seen", st->seen);
	xfab_jw_uint(&w, "dropped", st->dropped);
	xfab_jw_uint(&w, "corrupted", corrupted);
	xfab_jw_uint(&w, "corrupted_ipv4", st->corrupted_ipv4);
	xfab_jw_uint(&w, "corrupted_ipv6", st->corrupted_ipv6);
	xfab_jw_uint(&w, "corrupted_other", st->corrupted_other);
	xfab_jw_uint(&w, "unchained", st->unchained);
	xfab_jw_bool(&w, "chained", conf->chain);
	xfab_jw_close(&w, '}');
	xfab_jw_end(&w);
}

static int do_status(int ifindex, int json)
{
	struct xfab_lf_conf conf = {};
	struct xfab_lf_stats st = {};
	__u32 id = 0, mode = 0;
	int err, is_fault = 0, fd = -1;

	err = xdp_prog_id(ifindex, &id, &mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	if (id) {
		is_fault = prog_is_fault(id, &fd);
		if (is_fault < 0)
			return fail("cannot read its XDP program", -is_fault);
	}
	if (is_fault) {
		err = lf_read(fd, &conf, &st);
		if (err) {
			close(fd);
			return fail("cannot read the fault program's maps", -err);
		}
	}
	if (fd >= 0)
		close(fd);
	status_print(&conf, &st, json);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: xfab-linkfault drop DEV | loss DEV PERCENT | corrupt DEV PERCENT |\n"
		"                      restore DEV | status DEV [-j]\n"
		"  (in DEV's network namespace; PERCENT: 0.01..100, two decimals at most)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int ifindex, centi = 10000, json = 0;
	enum xfab_lf_mode mode = XFAB_LF_LOSS;

	if (argc < 3)
		return usage();
	dev = argv[2];
	if (!strcmp(cmd, "loss") || !strcmp(cmd, "corrupt")) {
		if (argc != 4)
			return usage();
		centi = lf_parse_percent(argv[3]);
		if (centi < 0) {
			fprintf(stderr,
				"xfab-linkfault: %s: percent '%s': a decimal 0.01..100 with at "
				"most two decimals\n",
				dev, argv[3]);
			return 2;
		}
		mode = cmd[0] == 'l' ? XFAB_LF_LOSS : XFAB_LF_CORRUPT;
	} else if (!strcmp(cmd, "status") && argc == 4 && !strcmp(argv[3], "-j")) {
		json = 1;
	} else if (argc != 3) {
		return usage();
	}
	libbpf_set_print(NULL);
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		return fail("no such device", errno);
	if (!strcmp(cmd, "drop") || !strcmp(cmd, "loss") || !strcmp(cmd, "corrupt"))
		return do_fault(ifindex, mode, centi);
	if (!strcmp(cmd, "restore"))
		return do_restore(ifindex);
	if (!strcmp(cmd, "status"))
		return do_status(ifindex, json);
	fprintf(stderr,
		"xfab-linkfault: unknown command %s (drop, loss, corrupt, restore or status)\n",
		cmd);
	return 2;
}
