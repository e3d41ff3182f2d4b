// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel probe against synthetic BTF: a kernel without tcx, one without
 * the kfunc, and one with both; and the running kernel (which CI needs).
 */
#include <bpf/btf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "probe.h"

/* A BTF with enum bpf_attach_type {BPF_CGROUP_INET_INGRESS[, BPF_TCX_INGRESS]}
 * and, optionally, a function bpf_cast_to_kern_ctx. */
static struct btf *fake_kernel(int tcx, int kfunc)
{
	struct btf *btf = btf__new_empty();
	int proto;

	assert_non_null(btf);
	assert_true(btf__add_enum(btf, "bpf_attach_type", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "BPF_CGROUP_INET_INGRESS", 0), 0);
	if (tcx)
		assert_int_equal(btf__add_enum_value(btf, "BPF_TCX_INGRESS", 46), 0);
	if (kfunc) {
		proto = btf__add_func_proto(btf, 0);
		assert_true(proto > 0);
		assert_true(btf__add_func(btf, "bpf_cast_to_kern_ctx", BTF_FUNC_GLOBAL, proto) > 0);
	}
	return btf;
}

static void test_old_kernel(void **state)
{
	struct btf *btf = fake_kernel(0, 1);
	const char *m = xfab_probe_btf(btf);

	(void)state;
	assert_non_null(m);
	assert_non_null(strstr(m, "BPF_TCX_INGRESS"));
	btf__free(btf);
}

static void test_no_kfunc(void **state)
{
	struct btf *btf = fake_kernel(1, 0);
	const char *m = xfab_probe_btf(btf);

	(void)state;
	assert_non_null(m);
	assert_non_null(strstr(m, "bpf_cast_to_kern_ctx"));
	btf__free(btf);
}

static void test_new_kernel(void **state)
{
	struct btf *btf = fake_kernel(1, 1);

	(void)state;
	assert_null(xfab_probe_btf(btf));
	btf__free(btf);
}

static void test_running_kernel(void **state)
{
	char msg[512];

	(void)state;
	/* CI and the lab need a kernel with both; the message names it. */
	assert_int_equal(xfab_probe_kernel(msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "present"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_old_kernel),
	    cmocka_unit_test(test_no_kfunc),
	    cmocka_unit_test(test_new_kernel),
	    cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
