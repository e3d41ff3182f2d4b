// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tc datapath's class queues, built with iproute2's tc. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

/* Runs `tc ARGS...` (iproute2), the portable way to build HTB trees. */
static int run_tc(const char *fmt, ...)
{
	char cmd[512], *argv[40], *save = NULL;
	int argc = 0, status;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	argv[argc++] = "tc";
	for (char *tok = strtok_r(cmd, " ", &save); tok && argc < 39;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execvp("tc", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Class 1:(tc + 1)'s HTB arguments (after "htb "). It is guaranteed its
 * weight's share of the port rate, rate x w / (the port's 8 weights
 * summed), floored so the shares fit the parent, at least 1 kbit (HTB
 * takes no 0), and may use the whole rate. What the idle classes leave,
 * HTB lends by DRR, `quantum` bytes a round (tc-htb(8); by default rate /
 * r2q, which the kernel's sch_htb.c clamps to 1,000..200,000 bytes: the
 * same for every class guaranteed over 16 Mbit/s, and then the spare went
 * 1:1, test_qdisc_weights_lab.sh): a weighted port's class gets
 * weight x one full frame (MTU + 14), so the spare follows the weights
 * too. An unweighted port's classes keep 1/8 each and HTB's quantum.
 */
void agent_qdisc_class_args(const struct xfab_cfg_port *port, int tc, char *buf, size_t len)
{
	__u64 rate_kbit = (__u64)port->rate_mbps * 1000, sum = 0, share;
	__u32 w = xfab_config_class_weight(port, tc);

	for (int k = 0; k < XFAB_NUM_TC; k++)
		sum += xfab_config_class_weight(port, k);
	share = rate_kbit * w / sum;
	if (!xfab_config_port_weighted(port)) {
		snprintf(buf, len, "rate %llukbit ceil %umbit",
			 (unsigned long long)(share ? share : 1), port->rate_mbps);
		return;
	}
	snprintf(buf, len, "rate %llukbit ceil %umbit quantum %u",
		 (unsigned long long)(share ? share : 1), port->rate_mbps, w * (port->mtu + 14));
}

/*
 * The tc datapath's real queues on a port with a rate: an HTB parent at the
 * port rate, one child class per traffic class (1:1 .. 1:8, each guaranteed
 * its weight's share, agent_qdisc_class_args, and allowed the whole rate)
 * and a bfifo of `buffer` bytes under each. The ingress program puts a
 * packet in class 1:(tc + 1) via skb->priority.
 */
int agent_shape_port(struct agent *a, int p)
{
	const struct xfab_cfg_port *port = &a->cfg.ports[p];
	const char *dev = port->name;
	__u32 rate = port->rate_mbps, buffer = port->buffer_bytes ? port->buffer_bytes : 1u << 20;
	char args[96];

	/* Taken over from a previous xfabd, the HTB is there already and
	 * cannot be replaced in place (HTB has no change): its classes are. */
	if ((run_tc("qdisc replace dev %s root handle 1: htb default 2", dev) && !a->adopt) ||
	    run_tc("class replace dev %s parent 1: classid 1:100 htb rate %umbit ceil %umbit", dev,
		   rate, rate))
		goto fail;
	for (int tc = 0; tc < XFAB_NUM_TC; tc++) {
		agent_qdisc_class_args(port, tc, args, sizeof(args));
		if (run_tc("class replace dev %s parent 1:100 classid 1:%d htb %s", dev, tc + 1,
			   args) ||
		    run_tc("qdisc replace dev %s parent 1:%d handle %d: bfifo limit %u", dev,
			   tc + 1, 10 + tc, buffer))
			goto fail;
	}
	a->shaped[p] = 1;
	log_info("%s: HTB at %u Mbit/s, 8 class queues of %u bytes%s", dev, rate, buffer,
		 xfab_config_port_weighted(port) ? ", shared by weight" : "");
	return 0;
fail:
	log_err("cannot set up the queues of %s (is iproute2's tc installed?)", dev);
	run_tc("qdisc del dev %s root", dev);
	return -EIO;
}

/* Removes the queues xfabd installed on a port (none: nothing to do). */
int agent_unshape_port(struct agent *a, int p)
{
	if (!a->shaped[p])
		return 0;
	if (run_tc("qdisc del dev %s root", a->cfg.ports[p].name))
		return -EIO;
	a->shaped[p] = 0;
	return 0;
}
