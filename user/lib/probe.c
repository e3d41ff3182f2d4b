// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "probe.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* Does enum bpf_attach_type of this kernel name the value? */
static int has_enum_value(const struct btf *btf, const char *enum_name, const char *value)
{
	int id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), value))
			return 1;
	return 0;
}

const char *xfab_probe_btf(const struct btf *btf)
{
	if (!has_enum_value(btf, "bpf_attach_type", "BPF_TCX_INGRESS"))
		return "tcx links (BPF_TCX_INGRESS, Linux 6.6)";
	if (btf__find_by_name_kind(btf, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) < 0)
		return "the bpf_cast_to_kern_ctx kfunc (Linux 6.3)";
	return NULL;
}

int xfab_probe_kernel(char *msg, size_t len)
{
	struct utsname un = {};
	const char *missing;
	struct btf *btf;

	uname(&un);
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(msg, len,
			 "kernel %s: no BTF at /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF); "
			 "xfab needs Linux >= %s with BTF. %s",
			 un.release, XFAB_KERNEL_MIN, XFAB_KERNEL_HINT);
		return -1;
	}
	missing = xfab_probe_btf(btf);
	btf__free(btf);
	if (missing) {
		snprintf(msg, len, "kernel %s lacks %s: xfab needs Linux >= %s. %s", un.release,
			 missing, XFAB_KERNEL_MIN, XFAB_KERNEL_HINT);
		return -1;
	}
	snprintf(msg, len, "kernel %s: tcx links and bpf_cast_to_kern_ctx present", un.release);
	return 0;
}
