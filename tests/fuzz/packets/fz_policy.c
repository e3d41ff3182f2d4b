// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_packets' side of the acl and copp-rate switches (fz_policy.h).
 *
 * CoPP's meter reads the kernel's clock (bpf_ktime_get_ns, CLOCK_MONOTONIC),
 * which no run controls. So the harness reads CLOCK_MONOTONIC just before
 * and just after each run: the data plane's now lies in [t0, t1]. The
 * model's bucket (model_copp.c, COPP.md "The meter") evaluated at t0 and
 * at t1 gives the verdict; a bucket only gains tokens with time, so when
 * both agree every time in the window agrees and the verdict is the
 * model's. When they differ (a token comes due inside the window) either
 * is right: the data plane's is taken and the run counted as ambiguous.
 * Either way the data plane's bucket (copp_state) is then read: its time
 * must lie in the window, and its tokens must be what the model's bucket
 * holds after the same punt at that time, exactly; the model's bucket
 * then stands at that time, so nothing drifts.
 */
#define _GNU_SOURCE
#include "fz_policy.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <string.h>
#include <time.h>

#include "xfab_abi.h"

static int fd_copp_state;
static struct model_copp_bucket bucket[XFAB_COPP_GROUPS];
static uint64_t t_run[2];
static struct {
	uint64_t metered, ambiguous;
	uint64_t green[XFAB_COPP_GROUPS], red[XFAB_COPP_GROUPS];
	uint64_t acl[FZ_ACL_COUNTERS]; /* runs each ACL rule decided */
} C;

int fz_policy_init(struct harness *h)
{
	fd_copp_state = h_map_fd(h, XFAB_MAP_COPP_STATE);
	return fd_copp_state < 0 ? -1 : 0;
}

/* copp_state as the ABI says tests may set it: last_ns 0, never used (the
 * first punt fills the bucket); the model's buckets alike. */
int fz_policy_enter(void)
{
	memset(bucket, 0, sizeof(bucket));
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		struct xfab_copp_state st;

		memset(&st, 0, sizeof(st));
		if (bpf_map_update_elem(fd_copp_state, &g, &st, BPF_ANY)) {
			fprintf(stderr, "fuzz_packets: copp_state[%u] not writable\n", g);
			return -1;
		}
	}
	return 0;
}

void fz_copp_clock(int after)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t_run[after ? 1 : 0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int fz_copp_judge(const struct model *m, struct model_result *mr, int punted, char *why,
		  size_t why_len)
{
	int g = mr->copp_group, green, at_t0, at_t1;
	struct xfab_copp_state st;
	uint32_t cir, cbs;
	__u32 key;

	if (mr->verdict != MV_PUNT || g < 0 || g >= XFAB_COPP_GROUPS)
		return 0;
	model_copp_rate(m, g, &cir, &cbs);
	if (!cir) /* no meter: green (COPP.md) */
		return 0;
	C.metered++;
	at_t0 = model_copp_tokens(m, g, &bucket[g], t_run[0]) >= MODEL_COPP_TOKEN;
	at_t1 = model_copp_tokens(m, g, &bucket[g], t_run[1]) >= MODEL_COPP_TOKEN;
	green = at_t0 == at_t1 ? at_t0 : punted;
	C.ambiguous += at_t0 != at_t1;
	key = (__u32)g;
	if (bpf_map_lookup_elem(fd_copp_state, &key, &st)) {
		snprintf(why, why_len, "copp_state[%d] unreadable", g);
		return 1;
	}
	if (st.last_ns < t_run[0] || st.last_ns > t_run[1]) {
		snprintf(why, why_len,
			 "CoPP group %d's bucket time %llu outside the run's clock window "
			 "[%llu, %llu]",
			 g, (unsigned long long)st.last_ns, (unsigned long long)t_run[0],
			 (unsigned long long)t_run[1]);
		return 1;
	}
	if (model_copp_meter(m, g, &bucket[g], st.last_ns) != green ||
	    bucket[g].tokens != st.tokens) {
		snprintf(why, why_len,
			 "CoPP group %d's bucket at %llu: %llu tokens (x 1e-9 packets), the "
			 "model's %llu after a %s punt",
			 g, (unsigned long long)st.last_ns, (unsigned long long)st.tokens,
			 (unsigned long long)bucket[g].tokens, green ? "green" : "red");
		return 1;
	}
	if (green) {
		C.green[g]++;
		return 0;
	}
	C.red[g]++;
	mr->verdict = MV_DROP; /* COPP.md: red, dropped as copp_policed */
	mr->reason = XFAB_DROP_COPP_POLICED;
	return 0;
}

void fz_policy_count(const struct model_result *mr)
{
	if (mr->acl_rule > 0 && mr->acl_rule <= FZ_ACL_COUNTERS)
		C.acl[mr->acl_rule - 1]++;
}

void fz_policy_print(FILE *out)
{
	int n = FZ_ACL_COUNTERS;

	while (n > 0 && !C.acl[n - 1])
		n--;
	if (n) {
		fprintf(out, "  acl: runs each rule (by counter) decided:");
		for (int i = 0; i < n && i < FZ_ACL_COUNTERS; i++)
			fprintf(out, " %d:%llu", i, (unsigned long long)C.acl[i]);
		fprintf(out, "\n");
	}
	if (!C.metered)
		return;
	fprintf(out, "  copp-rate: %llu metered punts (green/red by group:",
		(unsigned long long)C.metered);
	for (int g = 0; g < XFAB_COPP_GROUPS; g++)
		if (C.green[g] || C.red[g])
			fprintf(out, " %d %llu/%llu", g, (unsigned long long)C.green[g],
				(unsigned long long)C.red[g]);
	fprintf(out, "), %llu (%.3f %%) with a refill due inside the run's clock window\n",
		(unsigned long long)C.ambiguous, 100.0 * (double)C.ambiguous / (double)C.metered);
}

/* ---- the acl switch's generator: the rules' edges (model_acl.c) ---- */

uint16_t fz_acl_port(uint64_t r)
{
	static const uint16_t p[] = {22, 19,   20,    23,    24,    999,  1000, 1999, 2000,
				     53, 4791, 4789,  4999,  5000,  6000, 6001, 1023, 1024,
				     0,	 1,    65533, 65534, 65535, 4790, 4792, 179,  3784};

	return p[r % (sizeof(p) / sizeof(p[0]))];
}

uint8_t fz_acl_dscp(uint64_t r)
{
	static const uint8_t d[] = {46, 45, 47, 10, 11, 56, 57, 63, 62, 0, 3};

	return d[r % sizeof(d)];
}

/* BTH opcodes: RC/UC/XRC acknowledge and read responses, around UD's
 * (0x60..0x7f), the CNP (0x81) */
uint8_t fz_acl_opcode(uint64_t r)
{
	static const uint8_t o[] = {0x11, 0x11, 0x11, 0x11, 0xb1, 0xb1, 0x0d, 0x0f,
				    0x10, 0x12, 0x0e, 0x13, 0xad, 0x31, 0x51, 0x60,
				    0x64, 0x7f, 0x5f, 0x80, 0x81, 0x04, 0xf1, 0x91};

	return o[r % sizeof(o)];
}

int fz_acl_addr(int v6, int dst, int port, uint64_t r, uint8_t *out)
{
	static const char *const d4[] = {"10.8.0.255",	   "10.8.1.0",	     "10.8.1.255",
					 "10.8.2.0",	   "10.7.255.255",   "10.9.255.255",
					 "10.10.0.0",	   "198.17.255.255", "198.18.0.0",
					 "198.19.255.255", "198.20.0.0",     "10.6.0.9"};
	static const char *const s4[] = {"10.0.1.2",	 "10.0.1.3",	 "10.1.0.0",
					 "10.1.255.255", "10.0.255.255", "10.2.0.0",
					 "10.9.0.1",	 "10.9.255.255", "10.10.0.1"};
	static const char *const t4[] = {"192.168.9.0",	   "192.168.9.127", "192.168.9.128",
					 "192.168.1.1",	   "192.168.1.0",   "192.168.1.2",
					 "192.168.50.255", "192.168.51.0"};
	static const char *const d6[] = {"fd08::1",	    "fd08::",	       "fd08::2",
					 "fd08:ffff::ffff", "fd09:ffff::ffff", "fd07::1",
					 "fd99::1",	    "fd99:ffff::1",    "fd9a::1"};
	static const char *const s6[] = {"2001:db8:1::1", "2001:db8:1:ffff::1",
					 "2001:db8:2::1", "2001:db8::1",
					 "fd66::2",	  "fd66::3"};
	const char *const *l;
	size_t n;

	if (v6) {
		l = dst ? d6 : s6;
		n = dst ? sizeof(d6) / sizeof(d6[0]) : sizeof(s6) / sizeof(s6[0]);
	} else if (port == 5 && dst) {
		l = t4;
		n = sizeof(t4) / sizeof(t4[0]);
	} else {
		l = dst ? d4 : s4;
		n = dst ? sizeof(d4) / sizeof(d4[0]) : sizeof(s4) / sizeof(s4[0]);
	}
	return inet_pton(v6 ? AF_INET6 : AF_INET, l[r % n], out) == 1;
}
