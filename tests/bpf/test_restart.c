// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hitless restarts, as the kernel sees them: build/xfabd runs in a private
 * network namespace on two veth ports, and is killed, restarted and
 * replaced. The oracle is the kernel's own view, never xfabd's: the XDP
 * program attached to each device (bpf_xdp_query_id), which programs and
 * maps exist (by id), what the pins are, and a counter value this test
 * plants in the data plane's counters. What must hold:
 *   - a killed xfabd leaves its programs attached; the next one takes the
 *     links over in place (a new program on the same link), keeps the
 *     counter maps (the planted value survives), builds the forwarding
 *     maps anew, publishes its pins and frees the old program;
 *   - `xfabctl restart` does the same within the same process;
 *   - TERM detaches and removes everything; TERM with --keep leaves the
 *     data plane attached for the next one;
 *   - pins of another ABI are refused and left forwarding; --force
 *     replaces them;
 *   - a drained port stays drained (its device dormant) across `xfabctl
 *     restart`, and is forgotten by a TERM without --keep;
 *   - a port that left the config loses its link; a start that fails half
 *     way (a port it cannot attach) puts the adopted ports back on their
 *     old program;
 *   - the xdp datapath's egress guard (the DEVMAP program) stays on a port
 *     only until the data plane has seen its device, across restarts too;
 *   - the tc egress program runs only where it is needed: on a port with a
 *     queue (WRED), on every port while some port is lossless, on a plain
 *     port only until the data plane has seen its device; a reload attaches
 *     and detaches it as queues and lossless priorities come and go (the
 *     kernel's tcx egress list is the oracle).
 * The end of every test leaves no pins, links, sockets or processes.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi.h"
#include "common.h"
#include "xfab_abi.h"

static char root[128], dir[192], logpath[192], cfg2[192], cfg1[192], cfg3[192], build[PATH_MAX];
static pid_t agent = -1;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_config(const char *path, const char *datapath, int ports)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"rs\", \"datapath\": "
		"\"%s\"}},\n \"PORT\": {\"r1\": {}%s%s},\n"
		" \"INTERFACE\": {\"r1|10.0.1.0/31\": {}%s%s},\n"
		" \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}}\n",
		datapath, ports > 1 ? ", \"r2\": {}" : "", ports > 2 ? ", \"r3\": {}" : "",
		ports > 1 ? ", \"r2|10.0.2.0/31\": {}" : "",
		ports > 2 ? ", \"r3|10.0.3.0/31\": {}" : "");
	fclose(f);
}

static int setup(void **state)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(build, sizeof(build), "%s", dirname(exe));
	if (xfab_ensure_bpffs())
		return -1;
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		return -1;
	}
	if (sh("ip link set lo up && for i in 1 2 3; do ip link add r$i type veth peer "
	       "r${i}peer && ip link set r$i up && ip link set r${i}peer up || exit 1; done"))
		return -1;
	snprintf(root, sizeof(root), "/sys/fs/bpf/xfab-test-restart-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/rs", root);
	snprintf(logpath, sizeof(logpath), "/tmp/xfab-test-restart-%d.log", (int)getpid());
	snprintf(cfg1, sizeof(cfg1), "/tmp/xfab-test-restart-%d-1.json", (int)getpid());
	snprintf(cfg2, sizeof(cfg2), "/tmp/xfab-test-restart-%d-2.json", (int)getpid());
	snprintf(cfg3, sizeof(cfg3), "/tmp/xfab-test-restart-%d-3.json", (int)getpid());
	return 0;
}

/* After each test, passed or not: no xfabd, pins (links detach with them)
 * or socket left. */
static int cleanup(void **state)
{
	char sock[256];

	(void)state;
	if (agent > 0) {
		kill(agent, SIGKILL);
		waitpid(agent, NULL, 0);
		agent = -1;
	}
	sh("rm -rf '%s' 2>/dev/null", root); /* bpffs: rm unlinks pins */
	snprintf(sock, sizeof(sock), "/run/xfab/xfab-test-restart-%d", (int)getpid());
	sh("rm -rf '%s'; rmdir /run/xfab 2>/dev/null; true", sock);
	for (int i = 1; i <= 3; i++) {
		char dev[8];

		snprintf(dev, sizeof(dev), "r%d", i);
		bpf_xdp_detach((int)if_nametoindex(dev), 0, NULL);
	}
	return 0;
}

static int teardown(void **state)
{
	cleanup(state);
	unlink(logpath);
	unlink(cfg1);
	unlink(cfg2);
	unlink(cfg3);
	return 0;
}

static size_t log_size(void)
{
	struct stat st;

	return stat(logpath, &st) ? 0 : (size_t)st.st_size;
}

/* Whether the log holds text after offset. */
static int log_has(size_t offset, const char *text)
{
	static char buf[1 << 16];
	FILE *f = fopen(logpath, "r");
	size_t n;

	if (!f)
		return 0;
	fseek(f, (long)offset, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

/* Starts xfabd with extra options (NULL-terminated); its output goes to
 * the log (appended). Returns the log offset it started at. */
static size_t start(const char *cfg, ...)
{
	const char *argv[16] = {"xfabd", "-c", cfg, "--pin-root", root};
	char exe[PATH_MAX + 8];
	size_t off = log_size();
	int argc = 5;
	va_list ap;

	va_start(ap, cfg);
	for (const char *o; argc < 15 && (o = va_arg(ap, const char *));)
		argv[argc++] = o;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(exe, sizeof(exe), "%s/xfabd", build);
	agent = fork();
	assert_true(agent >= 0);
	if (agent == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(exe, (char **)argv);
		_exit(127);
	}
	return off;
}

/* Waits (10 s at most) for xfabd to forward; fails if it exits. */
static void wait_forwarding(size_t off)
{
	for (int i = 0; i < 1000; i++) {
		int st;

		if (log_has(off, "forwarding on"))
			return;
		if (waitpid(agent, &st, WNOHANG) == agent) {
			agent = -1;
			sh("cat '%s' >&2", logpath);
			fail_msg("xfabd exited before forwarding");
		}
		usleep(10000);
	}
	fail_msg("xfabd did not forward within 10 s");
}

/* Waits for xfabd to exit; its exit status. */
static int wait_exit(void)
{
	int st = 0;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(agent, &st, WNOHANG) == agent) {
			agent = -1;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(10000);
	}
	fail_msg("xfabd did not exit within 10 s");
	return -1;
}

static void stop(int sig)
{
	assert_true(agent > 0);
	kill(agent, sig);
	if (sig == SIGKILL) {
		waitpid(agent, NULL, 0);
		agent = -1;
	} else {
		assert_int_equal(wait_exit(), 0);
	}
}

/* The XDP program the kernel runs on a device (0: none). */
static __u32 xdp_prog(const char *dev)
{
	__u32 id = 0;

	if (bpf_xdp_query_id((int)if_nametoindex(dev), 0, &id))
		return 0;
	return id;
}

/* The id of the map or program pinned at dir/name (0: none). */
static __u32 pinned_id(const char *name)
{
	char path[256];
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	/* map and program info both start with type and id */
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

static int prog_exists(__u32 id)
{
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* A freed program goes after an RCU grace period: wait for it (2 s). */
static int prog_gone(__u32 id)
{
	for (int i = 0; i < 200 && prog_exists(id); i++)
		usleep(10000);
	return !prog_exists(id);
}

static int staged_pins(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "staged_", 7);
	closedir(d);
	return n;
}

/* Plants a value in the last port slot's rx counter (CPU 0), as the data
 * plane would count it (no port uses that slot here); reads it back. */
static void plant(__u64 v)
{
	int ncpu = libbpf_num_possible_cpus(), fd = xfab_open_pinned_map(dir, "port_stats");
	struct xfab_port_stats *st = calloc((size_t)ncpu, sizeof(*st));
	__u32 slot = XFAB_MAX_PORTS - 1;

	assert_true(fd >= 0);
	assert_non_null(st);
	st[0].rx_bytes = v;
	assert_int_equal(bpf_map_update_elem(fd, &slot, st, BPF_ANY), 0);
	free(st);
	close(fd);
}

static __u64 planted(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd = xfab_open_pinned_map(dir, "port_stats");
	struct xfab_port_stats *st = calloc((size_t)ncpu, sizeof(*st));
	__u32 slot = XFAB_MAX_PORTS - 1;
	__u64 v = 0;

	if (fd >= 0 && st && !bpf_map_lookup_elem(fd, &slot, st))
		v = st[0].rx_bytes;
	free(st);
	if (fd >= 0)
		close(fd);
	return v;
}

static int dir_gone(void)
{
	struct stat st;

	return stat(dir, &st) && errno == ENOENT;
}

static void test_kill_and_adopt(void **state)
{
	__u32 p1, p2, routes, stats;
	size_t off;

	(void)state;
	write_config(cfg2, "xdp", 2);
	wait_forwarding(start(cfg2, NULL));
	p1 = xdp_prog("r1");
	assert_int_not_equal(p1, 0);
	assert_int_equal(xdp_prog("r2"), p1);
	assert_int_equal(pinned_id("prog_xdp"), p1);
	routes = pinned_id("routes_v4");
	stats = pinned_id("port_stats");
	assert_int_not_equal(routes, 0);
	plant(123456789);

	/* killed: the program stays on both ports, the links pinned */
	stop(SIGKILL);
	assert_int_equal(xdp_prog("r1"), p1);
	assert_int_equal(xdp_prog("r2"), p1);
	assert_int_not_equal(pinned_id("link_xdp_r1"), 0);

	/* the next one takes over */
	off = start(cfg2, NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "took over xdp datapath on r1"));
	assert_true(log_has(off, "took over xdp datapath on r2"));
	p2 = xdp_prog("r1");
	assert_int_not_equal(p2, 0);
	assert_int_not_equal(p2, p1);
	assert_int_equal(xdp_prog("r2"), p2);
	assert_int_equal(pinned_id("prog_xdp"), p2);	      /* published */
	assert_int_not_equal(pinned_id("routes_v4"), routes); /* built anew */
	assert_int_not_equal(pinned_id("routes_v4"), 0);
	assert_int_equal(pinned_id("port_stats"), stats); /* kept, and its counts */
	assert_true(planted() == 123456789);
	assert_int_equal(staged_pins(), 0);
	assert_true(prog_gone(p1));

	/* TERM: detached, nothing left */
	stop(SIGTERM);
	assert_int_equal(xdp_prog("r1"), 0);
	assert_int_equal(xdp_prog("r2"), 0);
	assert_true(dir_gone());
}

static void test_restart_request_and_keep(void **state)
{
	char cmd[PATH_MAX + 256];
	__u32 p1, p2;
	pid_t pid;
	size_t off;

	(void)state;
	write_config(cfg2, "xdp", 2);
	wait_forwarding(start(cfg2, "--keep", NULL));
	p1 = xdp_prog("r1");
	plant(42);
	pid = agent;
	off = log_size();
	snprintf(cmd, sizeof(cmd), "'%s/xfabctl' -P '%s' restart >/dev/null", build, dir);
	assert_int_equal(sh("%s", cmd), 0);
	wait_forwarding(off);
	assert_int_equal(agent, pid); /* the same process runs again */
	assert_int_equal(waitpid(agent, NULL, WNOHANG), 0);
	assert_true(log_has(off, "took over xdp datapath on r1"));
	p2 = xdp_prog("r1");
	assert_int_not_equal(p2, p1);
	assert_int_not_equal(p2, 0);
	assert_true(planted() == 42);
	assert_true(prog_gone(p1));

	/* TERM with --keep: the data plane stays for the next xfabd */
	stop(SIGTERM);
	assert_int_equal(xdp_prog("r1"), p2);
	assert_int_not_equal(pinned_id("link_xdp_r1"), 0);
	off = start(cfg2, NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "took over xdp datapath on r2"));
	assert_true(planted() == 42);
	stop(SIGTERM);
	assert_int_equal(xdp_prog("r1"), 0);
	assert_true(dir_gone());
}

/* xfabctl -P dir ARGS: its exit status. */
static int ctl(const char *args)
{
	return sh("'%s/xfabctl' -P '%s' %s >/dev/null 2>&1", build, dir, args);
}

/* r2 in show interfaces status as drained, with the test's reason (1), or
 * not drained (0). */
static int r2_drained(void)
{
	return sh("'%s/xfabctl' -P '%s' -j show interfaces status | grep -q "
		  "'\"port\":\"r2\",[^}]*\"drained\":true,\"drain_reason\":\"test: restart\"'",
		  build, dir) == 0;
}

static int r2_dormant(void)
{
	return sh("ip -d link show r2 | grep -q 'mode DORMANT'") == 0;
}

/* A drain (docs/OPERATIONS.md, "Draining a port") outlives `xfabctl
 * restart`: the device stays dormant (the kernel's link mode) and the new
 * process reports it drained with its reason; undrain releases it; a drain
 * is forgotten by a TERM without --keep, which releases the hold and
 * removes the drains file. */
static void test_drain_kept_across_restart(void **state)
{
	char drains[256];
	size_t off;

	(void)state;
	snprintf(drains, sizeof(drains), "/run/xfab/xfab-test-restart-%d/rs.drains", (int)getpid());
	write_config(cfg2, "xdp", 2);
	wait_forwarding(start(cfg2, NULL));
	assert_false(r2_dormant());
	assert_int_equal(ctl("interface drain r2 --reason 'test: restart'"), 0);
	assert_true(r2_dormant());
	assert_true(r2_drained());
	off = log_size();
	assert_int_equal(ctl("restart"), 0);
	wait_forwarding(off);
	assert_true(r2_dormant());
	assert_true(r2_drained());
	assert_int_equal(ctl("interface undrain r2"), 0);
	assert_false(r2_dormant());
	assert_false(r2_drained());
	assert_int_equal(ctl("interface drain r2 --reason 'test: restart'"), 0);
	assert_int_equal(access(drains, F_OK), 0);
	stop(SIGTERM);
	assert_false(r2_dormant());
	assert_int_not_equal(access(drains, F_OK), 0);
	wait_forwarding(start(cfg2, NULL));
	assert_false(r2_drained());
	stop(SIGTERM);
}

static void test_other_abi_refused(void **state)
{
	struct xfab_abi_info info;
	__u32 zero = 0, p1;
	size_t off;
	int fd;

	(void)state;
	write_config(cfg2, "xdp", 2);
	wait_forwarding(start(cfg2, NULL));
	p1 = xdp_prog("r1");
	stop(SIGKILL);
	fd = xfab_open_pinned_map(dir, XFAB_MAP_ABI);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, &info), 0);
	info.version = 99;
	assert_int_equal(bpf_map_update_elem(fd, &zero, &info, BPF_ANY), 0);
	close(fd);

	off = start(cfg2, NULL);
	assert_int_equal(wait_exit(), 1);
	assert_true(log_has(off, "are ABI v99, this xfabd is v"));
	assert_true(log_has(off, "refusing to adopt them"));
	assert_int_equal(xdp_prog("r1"), p1); /* still forwarding, untouched */
	assert_int_equal(pinned_id("prog_xdp"), p1);

	off = start(cfg2, "--force", NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "replacing them (--force)"));
	assert_int_not_equal(xdp_prog("r1"), p1);
	assert_int_not_equal(xdp_prog("r1"), 0);
	assert_true(prog_gone(p1));
	stop(SIGTERM);
	assert_true(dir_gone());
}

static void test_stray_ports_and_rollback(void **state)
{
	__u32 p1, trace;
	size_t off;
	int fd;

	(void)state;
	write_config(cfg2, "xdp", 2);
	write_config(cfg1, "xdp", 1);
	write_config(cfg3, "xdp", 3);
	wait_forwarding(start(cfg2, NULL));
	stop(SIGKILL);

	/* r2 left the config while no xfabd ran: its link goes */
	off = start(cfg1, NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "detaching link_xdp_r2"));
	assert_int_not_equal(xdp_prog("r1"), 0);
	assert_int_equal(xdp_prog("r2"), 0);
	assert_int_equal(pinned_id("link_xdp_r2"), 0);
	p1 = xdp_prog("r1");
	stop(SIGKILL);

	/* r3 has another XDP program: the start fails at r3, and r1, taken
	 * over already, runs its old program again */
	trace = pinned_id("prog_trace");
	fd = bpf_prog_get_fd_by_id(trace);
	assert_true(fd >= 0);
	assert_int_equal(bpf_xdp_attach((int)if_nametoindex("r3"), fd, 0, NULL), 0);
	close(fd);
	off = start(cfg3, NULL);
	assert_int_equal(wait_exit(), 1);
	assert_true(log_has(off, "cannot attach xdp datapath to r3"));
	assert_int_equal(xdp_prog("r1"), p1);
	assert_int_equal(pinned_id("prog_xdp"), p1);
	assert_int_not_equal(pinned_id("link_xdp_r1"), 0);
	assert_int_equal(xdp_prog("r3"), trace);
	assert_int_equal(bpf_xdp_detach((int)if_nametoindex("r3"), 0, NULL), 0);

	/* the datapath changed while no xfabd ran: tc links, no XDP */
	write_config(cfg1, "tc", 1);
	off = start(cfg1, NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "attached tc datapath to r1"));
	assert_true(log_has(off, "detaching link_xdp_r1"));
	assert_int_equal(xdp_prog("r1"), 0);
	assert_int_not_equal(pinned_id("link_tc_r1"), 0);
	stop(SIGKILL);
	off = start(cfg1, NULL);
	wait_forwarding(off);
	assert_true(log_has(off, "took over tc datapath on r1"));
	stop(SIGTERM);
	assert_true(dir_gone());
}

/* The program a port's tx_ports entry runs as frames leave (0: none). */
static __u32 egress_prog(const char *dev)
{
	int fd = xfab_open_pinned_map(dir, "tx_ports"), pfd = xfab_open_pinned_map(dir, "ports");
	__u32 ifindex = if_nametoindex(dev), slot;
	struct bpf_devmap_val v = {0};
	struct xfab_port port;

	assert_true(fd >= 0 && pfd >= 0);
	/* tx_ports is indexed by the port's slot */
	assert_int_equal(bpf_map_lookup_elem(pfd, &ifindex, &port), 0);
	close(pfd);
	assert_int_equal(port.ifindex, ifindex);
	slot = port.slot;
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, &v), 0);
	close(fd);
	assert_int_equal(v.ifindex, ifindex);
	return v.bpf_prog.id;
}

/*
 * xdp datapath: a port's frames leave through the DEVMAP egress program
 * only until the data plane has seen the port's device (its first frame
 * in); after that xfabd takes the program off the entry (each second), so
 * forwarding pays nothing for it. The peers send nothing until told to.
 */
static void test_egress_guard(void **state)
{
	size_t off;
	int i;

	(void)state;
	assert_int_equal(
	    sh("for d in r1peer r2peer; do echo 1 > /proc/sys/net/ipv6/conf/$d/disable_ipv6; "
	       "done"),
	    0);
	write_config(cfg2, "xdp", 2);
	off = start(cfg2, NULL);
	wait_forwarding(off);
	usleep(1500000); /* a tick at least: nothing was seen, nothing changes */
	assert_int_not_equal(egress_prog("r1"), 0);
	assert_int_not_equal(egress_prog("r2"), 0);
	/* one frame into r1 (an ARP request from its peer) */
	assert_int_equal(sh("ip addr add 10.0.1.1/31 dev r1peer && "
			    "ping -c1 -W1 -I r1peer 10.0.1.0 >/dev/null 2>&1; true"),
			 0);
	for (i = 0; i < 300 && egress_prog("r1"); i++)
		usleep(10000);
	assert_int_equal(egress_prog("r1"), 0);
	assert_int_not_equal(egress_prog("r2"), 0);
	/* a restart takes the entries over as they are */
	stop(SIGKILL);
	off = start(cfg2, NULL);
	wait_forwarding(off);
	assert_int_equal(egress_prog("r1"), 0);
	assert_int_not_equal(egress_prog("r2"), 0);
	stop(SIGTERM);
	assert_int_equal(sh("ip addr flush dev r1peer; for d in r1peer r2peer; do "
			    "echo 0 > /proc/sys/net/ipv6/conf/$d/disable_ipv6; done"),
			 0);
	assert_true(dir_gone());
}

/*
 * A two-port config (r1, r2) on datapath; wred_port (or NULL) has a WRED
 * profile on every class, pfc_port (or NULL) a rate and PFC on priority 3.
 */
static void write_qos_config(const char *path, const char *datapath, const char *wred_port,
			     const char *pfc_port)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(
	    f,
	    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"rs\", \"datapath\": "
	    "\"%s\"}},\n \"PORT\": {\"r1\": {%s}, \"r2\": {%s}},\n"
	    " \"INTERFACE\": {\"r1|10.0.1.0/31\": {}, \"r2|10.0.2.0/31\": {}},\n"
	    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.1.1\"}},\n"
	    " \"WRED_PROFILE\": {\"W\": {\"min_threshold\": \"1048576\", "
	    "\"max_threshold\": \"2097152\", \"max_probability\": \"5\"}}",
	    datapath,
	    pfc_port && !strcmp(pfc_port, "r1") ? "\"rate\": \"1000\", \"speed\": \"1000\"" : "",
	    pfc_port && !strcmp(pfc_port, "r2") ? "\"rate\": \"1000\", \"speed\": \"1000\"" : "");
	if (wred_port)
		fprintf(f, ",\n \"QUEUE\": {\"%s|0-7\": {\"wred_profile\": \"W\"}}", wred_port);
	if (pfc_port)
		fprintf(f, ",\n \"PORT_QOS_MAP\": {\"%s\": {\"pfc_enable\": \"3\"}}", pfc_port);
	fprintf(f, "}\n");
	fclose(f);
}

/* How many programs the kernel runs at dev's tcx egress. */
static __u32 tcx_egress_progs(const char *dev)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);

	/* BPF_TCX_EGRESS: Debian's UAPI headers predate tcx */
	if (bpf_prog_query_opts((int)if_nametoindex(dev), 47, &q))
		return 0;
	return q.prog_cnt; /* the kernel's query.count (a union) */
}

/* Waits up to 3 s for dev's tcx egress to run n programs; what it runs. */
static __u32 wait_tcx_egress(const char *dev, __u32 n)
{
	for (int i = 0; i < 300 && tcx_egress_progs(dev) != n; i++)
		usleep(10000);
	return tcx_egress_progs(dev);
}

/* SIGHUP: xfabd reloads its config; waits for the reload to finish. */
static void reload(void)
{
	size_t off = log_size();

	kill(agent, SIGHUP);
	for (int i = 0; i < 1000 && !log_has(off, "reloaded:"); i++)
		usleep(10000);
	assert_true(log_has(off, "reloaded:"));
}

/* Reloads with write_qos_config's config; how many tc egress programs r1
 * and r2 run right after, before any tick of xfabd's timer. */
static void reload_expect(const char *datapath, const char *wred_port, const char *pfc_port,
			  __u32 r1, __u32 r2)
{
	write_qos_config(cfg2, datapath, wred_port, pfc_port);
	reload();
	assert_int_equal(tcx_egress_progs("r1"), r1);
	assert_int_equal(tcx_egress_progs("r2"), r2);
}

/*
 * tc datapath: the egress program where a queue or the guard of an unseen
 * device needs it, nowhere else (not for a lossless class elsewhere: the
 * ingress program charges it). Neither the ports nor
 * their peers send anything until told to (IPv6 off: no ND, no MLD), so a
 * port's device is unseen until then (its ingress program, or the egress
 * program at the port's first packet out, notes it).
 */
static void test_tc_egress_where_needed(void **state)
{
	size_t off;

	(void)state;
	assert_int_equal(sh("for d in r1 r2 r1peer r2peer; do echo 1 > "
			    "/proc/sys/net/ipv6/conf/$d/disable_ipv6; done"),
			 0);
	/* r2 has a queue to judge, r1 none */
	write_qos_config(cfg2, "tc", "r2", NULL);
	off = start(cfg2, NULL);
	wait_forwarding(off);
	usleep(1500000); /* a tick at least: nothing was seen, nothing changes */
	assert_int_equal(tcx_egress_progs("r1"), 1); /* the guard: device unseen */
	assert_int_equal(tcx_egress_progs("r2"), 1);
	/* a frame into each (an ARP request from its peer): r1's guard goes,
	 * r2 keeps its program for the queue */
	assert_int_equal(sh("ip addr add 10.0.1.1/31 dev r1peer && ip addr add 10.0.2.1/31 dev "
			    "r2peer && ping -c1 -W1 -I r1peer 10.0.1.0 >/dev/null 2>&1; "
			    "ping -c1 -W1 -I r2peer 10.0.2.0 >/dev/null 2>&1; true"),
			 0);
	assert_int_equal(wait_tcx_egress("r1", 0), 0);
	assert_int_equal(pinned_id("link_tc_egress_r1"), 0);
	usleep(1500000);
	assert_int_equal(tcx_egress_progs("r2"), 1);
	assert_int_not_equal(pinned_id("link_tc_egress_r2"), 0);
	/* a reload moves the queue to r1: r1's program comes back, r2's goes */
	reload_expect("tc", "r1", NULL, 1, 0);
	/* a lossless port: its rate makes it a queue to judge; the other
	 * port needs nothing (lossless packets are charged at ingress) */
	reload_expect("tc", NULL, "r2", 0, 1);
	usleep(1500000);
	assert_int_equal(tcx_egress_progs("r1"), 0);
	/* no queue, nothing lossless: no egress program at all */
	reload_expect("tc", NULL, NULL, 0, 0);
	/* a restart adopts none, and leaves no stray egress pin */
	stop(SIGKILL);
	off = start(cfg2, NULL);
	wait_forwarding(off);
	assert_int_equal(wait_tcx_egress("r1", 0), 0);
	assert_int_equal(wait_tcx_egress("r2", 0), 0);
	stop(SIGTERM);
	assert_true(dir_gone());

	/* xdp datapath: the tc programs on the lossless port only, and a
	 * reload takes them off with PFC (and puts them back) at once */
	write_qos_config(cfg2, "xdp", NULL, "r2");
	off = start(cfg2, NULL);
	wait_forwarding(off);
	assert_int_equal(tcx_egress_progs("r1"), 0);
	assert_int_equal(tcx_egress_progs("r2"), 1);
	reload_expect("xdp", NULL, NULL, 0, 0);
	assert_int_equal(pinned_id("link_tc_handoff_r2"), 0);
	reload_expect("xdp", NULL, "r2", 0, 1);
	assert_int_not_equal(pinned_id("link_tc_handoff_r2"), 0);
	stop(SIGTERM);
	assert_int_equal(
	    sh("ip addr flush dev r1peer; ip addr flush dev r2peer; for d in r1 r2 "
	       "r1peer r2peer; do echo 0 > /proc/sys/net/ipv6/conf/$d/disable_ipv6; done"),
	    0);
	assert_true(dir_gone());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_kill_and_adopt, cleanup),
	    cmocka_unit_test_teardown(test_restart_request_and_keep, cleanup),
	    cmocka_unit_test_teardown(test_drain_kept_across_restart, cleanup),
	    cmocka_unit_test_teardown(test_other_abi_refused, cleanup),
	    cmocka_unit_test_teardown(test_stray_ports_and_rollback, cleanup),
	    cmocka_unit_test_teardown(test_egress_guard, cleanup),
	    cmocka_unit_test_teardown(test_tc_egress_where_needed, cleanup),
	};

	if (geteuid() != 0) {
		printf("# skipped: test_restart needs root (BPF, a network namespace)\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
