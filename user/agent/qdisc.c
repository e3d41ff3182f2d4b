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
 * The tc datapath's real queues on a port with a rate: an HTB parent at the
 * port rate, one child class per traffic class (1:1 .. 1:8, each guaranteed
 * 1/8 and allowed the whole rate) and a bfifo of `buffer` bytes under each.
 * The ingress program puts a packet in class 1:(tc + 1) via skb->priority.
 */
int agent_shape_port(struct agent *a, int p)
{
	const struct xfab_cfg_port *port = &a->cfg.ports[p];
	const char *dev = port->name;
	__u32 rate = port->rate_mbps, buffer = port->buffer_bytes ? port->buffer_bytes : 1u << 20;
	__u32 share_kbit = rate * 1000 / XFAB_NUM_TC;

	/* Taken over from a previous xfabd, the HTB is there already and
	 * cannot be replaced in place (HTB has no change): its classes are. */
	if ((run_tc("qdisc replace dev %s root handle 1: htb default 2", dev) && !a->adopt) ||
	    run_tc("class replace dev %s parent 1: classid 1:100 htb rate %umbit ceil %umbit", dev,
		   rate, rate))
		goto fail;
	for (int tc = 0; tc < XFAB_NUM_TC; tc++) {
		if (run_tc("class replace dev %s parent 1:100 classid 1:%d htb rate %ukbit ceil "
			   "%umbit",
			   dev, tc + 1, share_kbit ? share_kbit : 1, rate) ||
		    run_tc("qdisc replace dev %s parent 1:%d handle %d: bfifo limit %u", dev,
			   tc + 1, 10 + tc, buffer))
			goto fail;
	}
	a->shaped[p] = 1;
	log_info("%s: HTB at %u Mbit/s, 8 class queues of %u bytes", dev, rate, buffer);
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
