// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-linkfault: a silent link failure. The device keeps its carrier, but
 * every frame that arrives on it is dropped: run it on both ends of a veth
 * link and neither neighbour hears the other (BFD and BGP packets included),
 * while neither sees a link event. Only a liveness protocol (BFD) finds out.
 *
 *   xfab-linkfault drop DEV      (in DEV's network namespace: nsenter --net=...)
 *   xfab-linkfault restore DEV
 *   xfab-linkfault status DEV    (prints "dropping", or "forwarding")
 *
 * The drop is an XDP program of two instructions (XDP_DROP) named
 * xfab_lf_drop. XDP runs first on a veth's receive path, before tc and the
 * stack, also for frames another device's XDP redirected into the peer.
 *   - DEV has an XDP program on a bpf_link (xfab's xdp datapath): the link is
 *     updated to the drop program, and the original program is pinned while
 *     it is out of the link (nothing else may hold it), at
 *     /sys/fs/bpf/xfab-linkfault/NETNS-IFINDEX (NETNS: the namespace's
 *     inode). restore updates the link back and removes the pin.
 *   - DEV has no XDP program (the kernel alone, xfab's tc datapath): the drop
 *     program is attached in driver mode (netlink, no bpf_link: it stays when
 *     this tool exits); restore detaches exactly it.
 *   - DEV has an XDP program without a link: refused, nothing changes.
 * The link is the one whose program is DEV's and whose ifindex is DEV's:
 * ifindexes repeat across namespaces, program ids do not.
 * restore leaves DEV as drop found it: the same program on the same link,
 * or no XDP program. Every failure says why and changes nothing, except
 * that restore of a link whose drop program someone else replaced (an
 * xfabd restarted meanwhile takes its links over) releases the saved
 * original and says so.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIN_DIR "/sys/fs/bpf/xfab-linkfault"
#define DROP_NAME "xfab_lf_drop"

static const char *dev;

static int fail(const char *what, int err)
{
	fprintf(stderr, "xfab-linkfault: %s: %s: %s\n", dev, what, strerror(err));
	return 1;
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

static int prog_name_is_drop(__u32 id, int *fd_out)
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
	return strcmp(info.name, DROP_NAME) == 0;
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

static int load_drop(enum bpf_attach_type expected)
{
	/* r0 = XDP_DROP; exit */
	const struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_DROP},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = expected);

	return bpf_prog_load(BPF_PROG_TYPE_XDP, DROP_NAME, "GPL", insns, 2, &o);
}

static int pin_path(int ifindex, char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	snprintf(buf, len, PIN_DIR "/%lu-%d", (unsigned long)st.st_ino, ifindex);
	return 0;
}

static int do_drop(int ifindex)
{
	char pin[128];
	__u32 id, mode;
	int err, link, orig, drop, is_drop;

	err = xdp_prog_id(ifindex, &id, &mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	if (!id) {
		/* nothing attached: attach the drop program (driver mode) */
		drop = load_drop(BPF_XDP);
		if (drop < 0)
			return fail("cannot load the drop program", errno);
		LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
		err = bpf_xdp_attach(ifindex, drop,
				     XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST, &ao);
		close(drop);
		if (err)
			return fail("cannot attach the drop program", errno);
		return 0;
	}
	is_drop = prog_name_is_drop(id, NULL);
	if (is_drop < 0)
		return fail("cannot read its XDP program", -is_drop);
	if (is_drop) {
		fprintf(stderr, "xfab-linkfault: %s: already dropping\n", dev);
		return 1;
	}
	link = find_link(ifindex, id);
	if (link < 0) {
		fprintf(stderr,
			"xfab-linkfault: %s: its XDP program (id %u) is not on a bpf_link: "
			"not replaced\n",
			dev, id);
		return 1;
	}
	orig = bpf_prog_get_fd_by_id(id);
	if (orig < 0) {
		close(link);
		return fail("cannot open its XDP program", errno);
	}
	err = pin_path(ifindex, pin, sizeof(pin));
	if (err) {
		close(link);
		close(orig);
		return fail("cannot name the pin", -err);
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		err = errno;
		close(link);
		close(orig);
		return fail("cannot create " PIN_DIR, err);
	}
	/* the original program lives on in the pin while the link holds the drop */
	if (bpf_obj_pin(orig, pin)) {
		err = errno;
		rmdir(PIN_DIR);
		close(link);
		close(orig);
		return fail(err == EEXIST ? "a drop of it is pending (pin exists)"
					  : "cannot pin its XDP program",
			    err);
	}
	drop = load_drop(BPF_XDP);
	if (drop < 0)
		drop = load_drop(0);
	err = drop < 0 ? errno : 0;
	if (!err) {
		LIBBPF_OPTS(bpf_link_update_opts, uo, .old_prog_fd = orig, .flags = BPF_F_REPLACE);
		if (bpf_link_update(link, drop, &uo))
			err = errno;
		close(drop);
	}
	close(link);
	close(orig);
	if (err) {
		unlink(pin);
		rmdir(PIN_DIR); /* fails while other drops are pending: fine */
		return fail("cannot swap in the drop program", err);
	}
	return 0;
}

static int do_restore(int ifindex)
{
	char pin[128];
	__u32 id, mode;
	int err, link, orig, drop, is_drop;

	err = xdp_prog_id(ifindex, &id, &mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	err = pin_path(ifindex, pin, sizeof(pin));
	if (err)
		return fail("cannot name the pin", -err);
	is_drop = id ? prog_name_is_drop(id, &drop) : 0;
	if (is_drop < 0)
		return fail("cannot read its XDP program", -is_drop);
	if (!is_drop) {
		if (id)
			close(drop);
		/* Someone replaced the drop program meanwhile (a restarted xfabd
		 * takes its links over): the saved original is of no use now. */
		if (!unlink(pin)) {
			rmdir(PIN_DIR);
			fprintf(stderr,
				"xfab-linkfault: %s: the drop program was replaced meanwhile (now "
				"XDP program id %u): its saved original released\n",
				dev, id);
			return 1;
		}
		fprintf(stderr, "xfab-linkfault: %s: not dropping (%s)\n", dev,
			id ? "its XDP program is not ours" : "no XDP program");
		return 1;
	}
	orig = bpf_obj_get(pin);
	if (orig < 0) {
		/* no original: the drop program was attached alone, detach it */
		LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = drop);
		err = bpf_xdp_detach(ifindex, mode | XDP_FLAGS_REPLACE, &ao);
		close(drop);
		if (err)
			return fail("cannot detach the drop program", errno);
		return 0;
	}
	link = find_link(ifindex, id);
	if (link < 0) {
		close(drop);
		close(orig);
		return fail("the drop program is on no bpf_link", ENOENT);
	}
	LIBBPF_OPTS(bpf_link_update_opts, uo, .old_prog_fd = drop, .flags = BPF_F_REPLACE);
	err = bpf_link_update(link, orig, &uo) ? errno : 0;
	close(link);
	close(drop);
	close(orig);
	if (err)
		return fail("cannot put the original program back", err);
	unlink(pin);
	rmdir(PIN_DIR); /* fails while other drops are pending: fine */
	return 0;
}

static int do_status(int ifindex)
{
	__u32 id, mode;
	int err, is_drop = 0;

	err = xdp_prog_id(ifindex, &id, &mode);
	if (err)
		return fail("cannot read its XDP program", -err);
	if (id) {
		is_drop = prog_name_is_drop(id, NULL);
		if (is_drop < 0)
			return fail("cannot read its XDP program", -is_drop);
	}
	printf("%s\n", is_drop ? "dropping" : "forwarding");
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex;

	if (argc != 3) {
		fprintf(stderr, "usage: xfab-linkfault drop|restore|status DEV\n"
				"  (in DEV's network namespace)\n");
		return 2;
	}
	dev = argv[2];
	libbpf_set_print(NULL);
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		return fail("no such device", errno);
	if (!strcmp(argv[1], "drop"))
		return do_drop(ifindex);
	if (!strcmp(argv[1], "restore"))
		return do_restore(ifindex);
	if (!strcmp(argv[1], "status"))
		return do_status(ifindex);
	fprintf(stderr, "xfab-linkfault: unknown command %s (drop, restore or status)\n", argv[1]);
	return 2;
}
