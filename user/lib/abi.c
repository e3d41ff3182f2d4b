// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "abi.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

int xfab_abi_write(int abi_fd)
{
	struct xfab_abi_info info = {
	    .magic = XFAB_ABI_MAGIC,
	    .version = XFAB_ABI_VERSION,
	    .drop_max = XFAB_DROP_MAX,
	    .punt_max = XFAB_PUNT_MAX,
	};
	__u32 zero = 0;

	return bpf_map_update_elem(abi_fd, &zero, &info, BPF_ANY) ? -errno : 0;
}

/* The version in an `abi` map, or 0 if the map is not one we can read. */
static __u32 read_version(int fd, struct xfab_abi_info *info)
{
	struct bpf_map_info mi = {0};
	__u32 len = sizeof(mi), zero = 0;

	if (bpf_obj_get_info_by_fd(fd, &mi, &len) || mi.type != BPF_MAP_TYPE_ARRAY ||
	    mi.key_size != sizeof(__u32) || mi.value_size != sizeof(*info) || mi.max_entries < 1)
		return 0;
	if (bpf_map_lookup_elem(fd, &zero, info) || info->magic != XFAB_ABI_MAGIC)
		return 0;
	return info->version;
}

int xfab_abi_check(const char *pin_dir, const char *who, char *msg, size_t msg_len)
{
	/* xfabd decides itself what to do about it (load.c) */
	const char *fix = strcmp(who, "xfabd") ? ": restart xfabd" : "";
	struct xfab_abi_info info = {0};
	__u32 version;
	int fd;

	fd = xfab_open_pinned_map(pin_dir, XFAB_MAP_ABI);
	if (fd < 0) {
		int ports = xfab_open_pinned_map(pin_dir, XFAB_MAP_PORTS);

		if (ports < 0) {
			snprintf(msg, msg_len, "no pinned maps in %s", pin_dir);
			return -ENOENT;
		}
		close(ports);
		snprintf(msg, msg_len,
			 "pinned maps in %s carry no ABI version (from before v2), this %s is "
			 "v%u%s",
			 pin_dir, who, XFAB_ABI_VERSION, fix);
		return -EPROTO;
	}
	version = read_version(fd, &info);
	close(fd);
	if (!version && info.magic == 0) {
		snprintf(msg, msg_len,
			 "pinned maps in %s have no ABI record yet (xfabd starting, or it failed "
			 "to start)%s",
			 pin_dir, *fix ? ": retry, or restart xfabd" : "");
		return -EPROTO;
	}
	if (!version) {
		snprintf(msg, msg_len,
			 "pinned maps in %s have an unreadable ABI record, this %s is v%u%s",
			 pin_dir, who, XFAB_ABI_VERSION, fix);
		return -EPROTO;
	}
	if (version != XFAB_ABI_VERSION || info.drop_max != XFAB_DROP_MAX ||
	    info.punt_max != XFAB_PUNT_MAX) {
		snprintf(msg, msg_len, "pinned maps in %s are ABI v%u, this %s is v%u%s", pin_dir,
			 version, who, XFAB_ABI_VERSION, fix);
		return -EPROTO;
	}
	if (msg_len)
		msg[0] = '\0';
	return 0;
}
