// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drained ports (docs/OPERATIONS.md, "Draining a port"): a port taken out
 * of every group on request (port-drain, `xfabctl interface drain`), as an
 * operator shuts a faulty link, and returned by port-undrain. It is held
 * the way link event damping holds a suppressed port (damping.c): out of
 * every group (the data plane's port entry down) and its device DORMANT, so
 * that FRR keeps its BGP and BFD sessions over it down while the carrier
 * stays up. xfabd keeps the drain, its reason and time, and counts drains.
 *
 * A drain outlives a reload (by port name) and a hitless restart (`xfabctl
 * restart`, USR2, --keep): it is written to the drains file beside the
 * control socket (XFAB_CTL_RUN_ROOT/<pin dir>.drains), which the next xfabd
 * reads before it builds its tables, and the device stays dormant
 * meanwhile. A stop that takes the data plane down forgets the drains, as
 * it releases every hold: no device stays dormant without xfabd.
 *
 * The file, one line per port ever drained: PORT ON SINCE TOTAL REASON
 * (ON 0 or 1, SINCE Unix seconds, REASON the rest of the line).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

static void drain_path(struct agent *a)
{
	char sock[sizeof(a->drain.path) - 8];
	size_t n;

	a->drain.path[0] = '\0';
	if (xfab_ctl_socket_path(a->pin_dir, sock, sizeof(sock)))
		return;
	n = strlen(sock);
	if (n > 5 && !strcmp(sock + n - 5, ".sock"))
		snprintf(a->drain.path, sizeof(a->drain.path), "%.*s.drains", (int)(n - 5), sock);
}

/* The drains to the file, replaced whole (rename). 0 or -errno. */
static int drain_save(const struct agent *a)
{
	const struct agent_drain *dr = &a->drain;
	char tmp[sizeof(dr->path) + 4];
	FILE *f;
	int err = 0;

	if (!dr->path[0])
		return -ENAMETOOLONG;
	snprintf(tmp, sizeof(tmp), "%s.new", dr->path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	for (int p = 0; p < a->cfg.n_ports; p++)
		if (dr->on[p] || dr->total[p])
			fprintf(f, "%s %d %lld %llu %s\n", a->cfg.ports[p].name, dr->on[p],
				dr->since[p], (unsigned long long)dr->total[p], dr->reason[p]);
	if (fflush(f) || ferror(f))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, dr->path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* One line of the file into the drain of its port. */
static void drain_load_line(struct agent *a, char *line)
{
	struct agent_drain *dr = &a->drain;
	char name[XFAB_IFNAMSIZ];
	unsigned long long total;
	long long since;
	int on, off = 0, p;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%15s %d %lld %llu %n", name, &on, &since, &total, &off) != 4 || !off) {
		log_warn("drains file %s: a line not understood, left out: %.80s", dr->path, line);
		return;
	}
	p = xfab_config_port_index(&a->cfg, name);
	if (p < 0) {
		log_warn("drains file %s: port %s is not in the PORT table: its drain is dropped",
			 dr->path, name);
		return;
	}
	dr->on[p] = on == 1;
	dr->since[p] = since;
	dr->total[p] = total;
	snprintf(dr->reason[p], sizeof(dr->reason[p]), "%s", line + off);
}

void agent_drain_start(struct agent *a)
{
	struct agent_drain *dr = &a->drain;
	char line[256];
	FILE *f;

	memset(dr, 0, sizeof(*dr));
	drain_path(a);
	f = dr->path[0] ? fopen(dr->path, "r") : NULL;
	if (f) {
		while (fgets(line, sizeof(line), f))
			drain_load_line(a, line);
		fclose(f);
	}
	for (int p = 0; p < a->cfg.n_ports; p++) {
		if (!dr->on[p])
			continue;
		a->live[p].oper_up = 0;
		log_warn("port %s drained (kept from the xfabd before%s%s)", a->cfg.ports[p].name,
			 dr->reason[p][0] ? ": " : "", dr->reason[p]);
	}
}

void agent_drain_stop(struct agent *a)
{
	struct agent_drain *dr = &a->drain;

	memset(dr->on, 0, sizeof(dr->on));
	if (dr->path[0])
		unlink(dr->path);
}

void agent_drain_reload_mask(const struct agent *a, const struct xfab_config *next,
			     struct xfab_port_live *live)
{
	for (int p = 0; p < next->n_ports; p++) {
		int q = xfab_config_port_index(&a->cfg, next->ports[p].name);

		if (q >= 0 && a->drain.on[q])
			live[p].oper_up = 0;
	}
}

void agent_drain_reload_commit(struct agent *a, const struct xfab_config *old)
{
	struct agent_drain *dr = &a->drain, prev = *dr;
	int err;

	memset(dr->on, 0, sizeof(dr->on));
	memset(dr->since, 0, sizeof(dr->since));
	memset(dr->total, 0, sizeof(dr->total));
	memset(dr->reason, 0, sizeof(dr->reason));
	for (int q = 0; q < old->n_ports; q++) {
		int p = xfab_config_port_index(&a->cfg, old->ports[q].name);

		if (p >= 0) {
			dr->on[p] = prev.on[q];
			dr->since[p] = prev.since[q];
			dr->total[p] = prev.total[q];
			memcpy(dr->reason[p], prev.reason[q], sizeof(dr->reason[p]));
		} else if (prev.on[q]) {
			/* no longer a port: its device is not ours to hold */
			agent_nl_set_dormant(if_nametoindex(old->ports[q].name), 0);
			log_info("port %s left the config: its drain ends", old->ports[q].name);
		}
	}
	err = drain_save(a);
	if (err)
		log_warn("cannot write the drains file %s: %s", dr->path, strerror(-err));
}

static int drain_answer(char *out, size_t outlen, const char *port, int drained)
{
	char name[64];

	if (xfab_ctl_json_string(name, sizeof(name), port) < 0)
		return agent_ctl_refuse(out, outlen, "port", "port name too long");
	return snprintf(out, outlen, "{\"ok\":true,\"port\":%s,\"drained\":%s}\n", name,
			drained ? "true" : "false");
}

/* The drain of port p set to on (reason, now) or off, written to the file
 * first: 0, or -errno with nothing changed. */
static int drain_set(struct agent *a, int p, int on, const char *reason)
{
	struct agent_drain *dr = &a->drain, prev = *dr;
	int err;

	dr->on[p] = on;
	dr->since[p] = on ? (long long)time(NULL) : 0;
	dr->total[p] += on ? 1 : 0;
	snprintf(dr->reason[p], sizeof(dr->reason[p]), "%s", on ? reason : "");
	err = drain_save(a);
	if (err)
		*dr = prev;
	return err;
}

/* port-drain: out of every group and held; answered drained either way
 * (a second drain changes nothing, its reason and time included). */
static int drain_request(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	int p, n = agent_ctl_port(a, r->port, "port", out, outlen, &p), err;
	const char *name;

	if (n)
		return n;
	name = a->cfg.ports[p].name;
	if (!a->drain.on[p]) {
		err = drain_set(a, p, 1, r->reason);
		if (err)
			return agent_ctl_refuse(out, outlen, "",
						"cannot record the drain in %s: %s", a->drain.path,
						strerror(-err));
		log_warn("port %s drained%s%s: out of every group, its device held dormant", name,
			 r->reason[0] ? ": " : "", r->reason);
		agent_damping_hold(a, p);
		if (a->live[p].oper_up)
			agent_port_set_up(a, p, 0);
		agent_damping_publish(a);
	}
	return drain_answer(out, outlen, name, 1);
}

/* port-undrain: back in every group if its link is up and damping does
 * not suppress it; answered not drained either way. */
static int undrain_request(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	int p, n = agent_ctl_port(a, r->port, "port", out, outlen, &p), err, up;
	const char *name;

	if (n)
		return n;
	name = a->cfg.ports[p].name;
	if (a->drain.on[p]) {
		err = drain_set(a, p, 0, "");
		if (err)
			return agent_ctl_refuse(out, outlen, "",
						"cannot record the undrain in %s: %s",
						a->drain.path, strerror(-err));
		agent_damping_hold(a, p);
		up = agent_damping_state(a, p);
		log_info("port %s undrained; it is %s", name, up ? "up" : "down");
		if (a->live[p].oper_up != up)
			agent_port_set_up(a, p, up);
		agent_damping_publish(a);
	}
	return drain_answer(out, outlen, name, 0);
}

/* The control socket's port-drain and port-undrain come here through its
 * table (requests.c), set before main runs; xfabd links this object
 * directly, so the constructor is kept. */
__attribute__((constructor)) static void drain_register(void)
{
	agent_ctl_register_reply(XFAB_CTL_PORT_DRAIN, drain_request);
	agent_ctl_register_reply(XFAB_CTL_PORT_UNDRAIN, undrain_request);
}
