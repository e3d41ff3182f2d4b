// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show datapath: the programs xfabd pinned, as the kernel holds them (id,
 * instructions after the verifier, JIT size) and the optional code they
 * were loaded with (load-time specialisation, bpf/spec.h), read from the
 * program's own frozen .rodata. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "feature.h"

struct prog_view {
	__u32 id, insns, jited;
	long long code; /* -1: not found */
};

/* Where xfab_code lies in a .rodata map's value: its DATASEC's variable
 * of that name, in the map's BTF (the layout is the object's, not ours).
 * -1: none. */
static long rodata_code_offset(const struct bpf_map_info *mi)
{
	struct btf *btf = btf__load_from_kernel_by_id(mi->btf_id);
	const struct btf_type *sec;
	long off = -1;

	if (!btf)
		return -1;
	sec = btf__type_by_id(btf, mi->btf_value_type_id);
	if (sec && btf_is_datasec(sec)) {
		const struct btf_var_secinfo *v = btf_var_secinfos(sec);

		for (__u16 i = 0; i < btf_vlen(sec) && off < 0; i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);

			if (var && !strcmp(btf__name_by_offset(btf, var->name_off), "xfab_code") &&
			    v->size == sizeof(__u32))
				off = v->offset;
		}
	}
	btf__free(btf);
	return off;
}

/* The code in the .rodata map among the program's maps (every program of
 * the object shares it); -1: not found. */
static long long prog_code(const __u32 *ids, __u32 n)
{
	for (__u32 i = 0; i < n; i++) {
		struct bpf_map_info mi;
		__u32 len = sizeof(mi), zero = 0, code;
		int fd = bpf_map_get_fd_by_id(ids[i]);
		long long found = -1;
		__u8 val[4096];
		long off;

		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (!bpf_obj_get_info_by_fd(fd, &mi, &len) && strstr(mi.name, ".rodata") &&
		    mi.value_size <= sizeof(val) && (off = rodata_code_offset(&mi)) >= 0 &&
		    off + sizeof(code) <= mi.value_size && !bpf_map_lookup_elem(fd, &zero, val)) {
			memcpy(&code, val + off, sizeof(code));
			found = code;
		}
		close(fd);
		if (found >= 0)
			return found;
	}
	return -1;
}

static int prog_view(const char *pin, struct prog_view *v)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), ids[64];
	char path[600];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", ctl_pin_dir, pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
	} else {
		v->id = info.id;
		v->insns = info.xlated_prog_len / 8;
		v->jited = info.jited_prog_len;
		v->code = prog_code(ids, info.nr_map_ids < 64 ? info.nr_map_ids : 64);
	}
	close(fd);
	return err;
}

static int show_datapath(void)
{
	static const char *const pins[][2] = {
	    {"prog_xdp", "xfab_xdp"},
	    {"prog_tc", "xfab_tc"},
	    {"prog_tc_egress", "xfab_tc_egress"},
	    {"prog_trace", "xfab_xdp_trace"},
	};
	char code[160];

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-16s %7s %12s %9s  %s\n", "Program", "Id", "Instructions", "JIT bytes",
		       "Code");
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		struct prog_view v = {0};

		if (prog_view(pins[i][0], &v))
			continue;
		if (v.code >= 0)
			xfab_feature_code_names((unsigned int)v.code, code, sizeof(code));
		else
			snprintf(code, sizeof(code), "?");
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("program", pins[i][1]);
			ctl_jw_uint("id", v.id);
			ctl_jw_uint("instructions", v.insns);
			ctl_jw_uint("jited_bytes", v.jited);
			ctl_jw_string("code", code);
			ctl_jw_close('}');
		} else {
			printf("%-16s %7u %12u %9u  %s\n", pins[i][1], v.id, v.insns, v.jited,
			       code);
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

CTL_SHOW(show_datapath_obj, "device", 15, "datapath", .view = show_datapath,
	 .help = "the data plane's programs: size, the code they carry")
