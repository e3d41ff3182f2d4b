// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a control request does (docs/CONTROL.md). A request is checked like
 * config before anything happens and is refused whole, naming the field at
 * fault; nothing is written on a refusal.
 *
 * Runtime TE pins live here (struct agent's pins) and in the RIB as their
 * own source, XFAB_RIB_SRC_TE_PIN, next to the config's TE_PATH entries
 * (XFAB_RIB_SRC_CONFIG): compile.c makes both into map entries with the
 * same nexthop and group ids, so a pin can never point at an id that was
 * handed to something else. A config reload does not touch that source, so
 * pins survive it; a pin is re-checked against the new config, and the
 * config wins a key both have (te-add refuses it; a reload that brings it
 * drops the pin). Pins are memory only: they end with xfabd.
 *
 * Generations fence out a stale TE controller (docs/CONTROL.md, "Plan
 * generations"): te-add, te-del and te-clear may carry the plan's gen,
 * te-sweep must. The switch keeps the highest one it accepted (te_gen); a
 * request of a lower one is refused whole, an equal one is accepted, a
 * higher one raises te_gen once the request succeeded. A pin remembers its
 * generation (0: set without one, as an operator's by hand), and te-sweep
 * removes the pins below a generation: a controller adds a plan's pins,
 * then sweeps the previous plan's (make before break). te-list reads them
 * back, a page at a time.
 *
 * clear-counters zeroes the per-port counters (`show counters`), as SONiC's
 * `sonic-clear counters` does for interfaces; clear-watermark puts every
 * queue's peak back to zero, its current occupancy stays.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "ctlproto.h"

static int reply_ok(char *out, size_t outlen)
{
	return snprintf(out, outlen, "{\"ok\":true}\n");
}

static int refuse(char *out, size_t outlen, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(char *out, size_t outlen, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = xfab_ctl_format_error(out, outlen, field, msg);
	if (n < 0) /* a message too long for the line: its start will do */
		n = xfab_ctl_format_error(out, outlen, field, "request refused");
	return n;
}

int agent_ctl_refuse(char *out, size_t outlen, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return refuse(out, outlen, field, "%s", msg);
}

void agent_pins_free(struct te_pin *pins, int n)
{
	for (int i = 0; i < n; i++)
		xfab_cfg_te_free(&pins[i].te);
	free(pins);
}

static int same_key(const struct xfab_cfg_te *x, int in_port, const struct xfab_prefix *p)
{
	return x->in_port == in_port && x->path.pfx.family == p->family &&
	       x->path.pfx.plen == p->plen && !memcmp(x->path.pfx.addr, p->addr, 16);
}

static int find_pin(const struct te_pin *pins, int n, int in_port, const struct xfab_prefix *p)
{
	for (int i = 0; i < n; i++)
		if (same_key(&pins[i].te, in_port, p))
			return i;
	return -1;
}

static int config_has(const struct xfab_config *cfg, int in_port, const struct xfab_prefix *p)
{
	for (int i = 0; i < cfg->n_te; i++)
		if (same_key(&cfg->te[i], in_port, p))
			return 1;
	return 0;
}

/* cfg with pins' entries after its own TE_PATH entries (shallow: free
 * only m->te). */
static int merge(struct xfab_config *m, const struct xfab_config *cfg, const struct te_pin *pins,
		 int n, const struct xfab_cfg_te *extra)
{
	int total = cfg->n_te + n + (extra ? 1 : 0);

	*m = *cfg;
	m->te = calloc(total ? (size_t)total : 1, sizeof(*m->te));
	if (!m->te)
		return -ENOMEM;
	if (cfg->n_te)
		memcpy(m->te, cfg->te, (size_t)cfg->n_te * sizeof(*m->te));
	for (int i = 0; i < n; i++)
		m->te[cfg->n_te + i] = pins[i].te;
	if (extra)
		m->te[total - 1] = *extra;
	m->n_te = total;
	return 0;
}

static void rib_key(struct xfab_rib_key *key, const struct xfab_cfg_te *te)
{
	xfab_rib_key_of(key, XFAB_RIB_TABLE_TE | (__u32)te->in_port, &te->path.pfx);
}

static int rib_set(struct agent *a, const struct xfab_cfg_te *te)
{
	struct xfab_rib_member m[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_rib_key key;
	int n = xfab_rib_members_of(&te->path, m);

	if (n < 0)
		return n;
	rib_key(&key, te);
	return xfab_rib_add(a->rib, &key, XFAB_RIB_SRC_TE_PIN, XFAB_RIB_PATH, 0, m, n);
}

static void rib_unset(struct agent *a, const struct xfab_cfg_te *te)
{
	struct xfab_rib_key key;

	rib_key(&key, te);
	xfab_rib_del(a->rib, &key, XFAB_RIB_SRC_TE_PIN);
}

int agent_ctl_port(const struct agent *a, const char *name, const char *field, char *out,
		   size_t outlen, int *port)
{
	char names[256] = "";
	size_t o = 0;

	*port = xfab_config_port_index(&a->cfg, name);
	if (*port >= 0)
		return 0;
	for (int p = 0; p < a->cfg.n_ports && o < sizeof(names); p++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", p ? ", " : "",
				      a->cfg.ports[p].name);
	return refuse(out, outlen, field, "port \"%s\" is not in the PORT table (%s)", name, names);
}

/* The port a te-add or te-del names, or a refusal. */
static int in_port(const struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen,
		   int *port)
{
	return agent_ctl_port(a, r->in, "in", out, outlen, port);
}

/* The generation fence: a request of an older plan than the switch holds
 * is refused before anything else is looked at; one without gen passes. */
static int stale(const struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	if (!r->generation || r->generation >= a->te_gen)
		return 0;
	return refuse(out, outlen, "gen", "stale plan: generation %llu, the switch holds %llu",
		      (unsigned long long)r->generation, (unsigned long long)a->te_gen);
}

/* After a request succeeded: its generation, if higher, is the switch's. */
static void raise_gen(struct agent *a, const struct xfab_ctl_req *r)
{
	if (r->generation <= a->te_gen)
		return;
	log_info("TE plan generation %llu -> %llu", (unsigned long long)a->te_gen,
		 (unsigned long long)r->generation);
	a->te_gen = r->generation;
}

static int ctl_te_add(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	struct xfab_cfg_errors errs;
	struct xfab_config merged;
	struct xfab_cfg_te te;
	struct te_pin *grown;
	int port, old, err, n;

	if (!a->cfg.te_enabled)
		return refuse(out, outlen, "cmd",
			      "TE is off on this switch: add a TE_PATH table (it may be empty) "
			      "to its config");
	if ((n = stale(a, r, out, outlen)))
		return n;
	if ((n = in_port(a, r, out, outlen, &port)))
		return n;
	if (xfab_config_parse_te_entry(&a->cfg, r->in, r->prefix, r->via, &te, &errs)) {
		const struct xfab_cfg_error *e = &errs.e[0];
		size_t kl = strlen(e->key), sl = strlen(".nexthop");
		int via = kl >= sl && !strcmp(e->key + kl - sl, ".nexthop");

		return refuse(out, outlen, via ? "via" : "prefix", "%s",
			      errs.count ? e->msg : "not a TE_PATH entry");
	}
	if (config_has(&a->cfg, port, &te.path.pfx)) {
		xfab_cfg_te_free(&te);
		return refuse(out, outlen, "prefix",
			      "%s|%s is pinned by the config's TE_PATH, which wins over runtime "
			      "pins: change it there",
			      r->in, r->prefix);
	}
	/* Room for it, counted as for the config: the running entries, the
	 * pin it replaces (live until the new one is written) and this one. */
	if (merge(&merged, &a->cfg, a->pins, a->n_pins, &te)) {
		xfab_cfg_te_free(&te);
		return refuse(out, outlen, "", "out of memory");
	}
	err = xfab_config_check_capacity(&merged, "request", &errs);
	free(merged.te);
	if (err) {
		const char *msg = errs.count ? errs.e[0].msg : "no room";
		int on_path = strstr(msg, "nexthops") || strstr(msg, "groups");

		xfab_cfg_te_free(&te);
		return refuse(out, outlen, on_path ? "via" : "prefix", "%s", msg);
	}
	if (!a->rib || !a->compile) {
		xfab_cfg_te_free(&te);
		return refuse(out, outlen, "", "the tables are not programmed yet");
	}
	old = find_pin(a->pins, a->n_pins, port, &te.path.pfx);
	grown = old >= 0 ? a->pins : realloc(a->pins, (size_t)(a->n_pins + 1) * sizeof(*grown));
	if (!grown) {
		xfab_cfg_te_free(&te);
		return refuse(out, outlen, "", "out of memory");
	}
	a->pins = grown;
	err = rib_set(a, &te);
	if (!err)
		err = xfab_compile_routes(a->compile);
	if (err) {
		/* back to what was there: the old pin, or none */
		if (old >= 0)
			rib_set(a, &a->pins[old].te);
		else
			rib_unset(a, &te);
		if (xfab_compile_routes(a->compile))
			a->dirty = 1;
		xfab_cfg_te_free(&te);
		log_err("te-add %s|%s: cannot write the tables: %s", r->in, r->prefix,
			strerror(-err));
		return refuse(out, outlen, "", "cannot write the tables: %s", strerror(-err));
	}
	if (old < 0)
		old = a->n_pins++;
	else
		xfab_cfg_te_free(&a->pins[old].te);
	snprintf(a->pins[old].in, sizeof(a->pins[old].in), "%s", r->in);
	snprintf(a->pins[old].prefix, sizeof(a->pins[old].prefix), "%s", r->prefix);
	snprintf(a->pins[old].via, sizeof(a->pins[old].via), "%s", r->via);
	a->pins[old].te = te;
	a->pins[old].gen = r->generation;
	raise_gen(a, r);
	log_info("TE pin %s|%s via %s (generation %llu)", r->in, r->prefix, r->via,
		 (unsigned long long)r->generation);
	return reply_ok(out, outlen);
}

static void drop_pin(struct agent *a, int i)
{
	xfab_cfg_te_free(&a->pins[i].te);
	memmove(&a->pins[i], &a->pins[i + 1], (size_t)(a->n_pins - i - 1) * sizeof(a->pins[0]));
	a->n_pins--;
}

static int ctl_te_del(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	int port, i, err, n;

	if ((n = stale(a, r, out, outlen)))
		return n;
	if ((n = in_port(a, r, out, outlen, &port)))
		return n;
	i = find_pin(a->pins, a->n_pins, port, &r->pfx);
	if (i < 0) {
		if (config_has(&a->cfg, port, &r->pfx))
			return refuse(out, outlen, "prefix",
				      "%s|%s is the config's TE_PATH entry, not a runtime pin: "
				      "change it there",
				      r->in, r->prefix);
		return refuse(out, outlen, "prefix", "no runtime TE pin for %s|%s", r->in,
			      r->prefix);
	}
	if (!a->rib || !a->compile)
		return refuse(out, outlen, "", "the tables are not programmed yet");
	rib_unset(a, &a->pins[i].te);
	err = xfab_compile_routes(a->compile);
	if (err) {
		rib_set(a, &a->pins[i].te);
		if (xfab_compile_routes(a->compile))
			a->dirty = 1;
		log_err("te-del %s|%s: cannot write the tables: %s", r->in, r->prefix,
			strerror(-err));
		return refuse(out, outlen, "", "cannot write the tables: %s", strerror(-err));
	}
	log_info("TE pin %s|%s removed", a->pins[i].in, a->pins[i].prefix);
	drop_pin(a, i);
	raise_gen(a, r);
	return reply_ok(out, outlen);
}

static int ctl_te_clear(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	int err, n = a->n_pins;

	if ((err = stale(a, r, out, outlen)))
		return err;
	if (!n) {
		raise_gen(a, r);
		return reply_ok(out, outlen);
	}
	if (!a->rib || !a->compile)
		return refuse(out, outlen, "", "the tables are not programmed yet");
	for (int i = 0; i < n; i++)
		rib_unset(a, &a->pins[i].te);
	err = xfab_compile_routes(a->compile);
	if (err) {
		for (int i = 0; i < n; i++)
			rib_set(a, &a->pins[i].te);
		if (xfab_compile_routes(a->compile))
			a->dirty = 1;
		log_err("te-clear: cannot write the tables: %s", strerror(-err));
		return refuse(out, outlen, "", "cannot write the tables: %s", strerror(-err));
	}
	agent_pins_free(a->pins, a->n_pins);
	a->pins = NULL;
	a->n_pins = 0;
	raise_gen(a, r);
	log_info("%d TE pin(s) removed", n);
	return reply_ok(out, outlen);
}

/* Every runtime pin of a generation below r's goes, in one recompile (a
 * failed write puts them all back); then r's generation is the switch's. */
static int ctl_te_sweep(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	int err, n = 0, kept = 0;

	if ((err = stale(a, r, out, outlen)))
		return err;
	for (int i = 0; i < a->n_pins; i++)
		n += a->pins[i].gen < r->generation;
	if (n && (!a->rib || !a->compile))
		return refuse(out, outlen, "", "the tables are not programmed yet");
	if (n) {
		for (int i = 0; i < a->n_pins; i++)
			if (a->pins[i].gen < r->generation)
				rib_unset(a, &a->pins[i].te);
		err = xfab_compile_routes(a->compile);
		if (err) {
			for (int i = 0; i < a->n_pins; i++)
				if (a->pins[i].gen < r->generation)
					rib_set(a, &a->pins[i].te);
			if (xfab_compile_routes(a->compile))
				a->dirty = 1;
			log_err("te-sweep %s: cannot write the tables: %s", r->gen, strerror(-err));
			return refuse(out, outlen, "", "cannot write the tables: %s",
				      strerror(-err));
		}
		for (int i = 0; i < a->n_pins; i++) {
			if (a->pins[i].gen < r->generation) {
				xfab_cfg_te_free(&a->pins[i].te);
				continue;
			}
			if (kept != i)
				a->pins[kept] = a->pins[i];
			kept++;
		}
		a->n_pins = kept;
		log_info("TE sweep below generation %s: %d pin(s) removed, %d kept", r->gen, n,
			 kept);
	}
	raise_gen(a, r);
	return snprintf(out, outlen,
			"{\"ok\":true,\"removed\":%d,\"kept\":%d,\"generation\":%llu}\n", n,
			a->n_pins, (unsigned long long)a->te_gen);
}

/* One pin as te-list shows it, at buf; its length or -1. */
static int pin_json(const struct te_pin *p, char *buf, size_t len)
{
	size_t o = 0;
	int n;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		n = __VA_ARGS__;                                                                   \
		if (n < 0 || (size_t)n >= len - o)                                                 \
			return -1;                                                                 \
		o += (size_t)n;                                                                    \
	} while (0)
	ADD(snprintf(buf + o, len - o, "{\"in\":"));
	ADD(xfab_ctl_json_string(buf + o, len - o, p->in));
	ADD(snprintf(buf + o, len - o, ",\"prefix\":"));
	ADD(xfab_ctl_json_string(buf + o, len - o, p->prefix));
	ADD(snprintf(buf + o, len - o, ",\"via\":"));
	ADD(xfab_ctl_json_string(buf + o, len - o, p->via));
	ADD(snprintf(buf + o, len - o, ",\"gen\":%llu}", (unsigned long long)p->gen));
#undef ADD
	return (int)o;
}

/* The runtime pins from r's from_index on, as many as fit the answer line;
 * "next" is where the following page starts (absent on the last). Reads
 * only. */
static int ctl_te_list(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	char item[sizeof(a->pins[0].via) + 256];
	size_t o, tail = 48; /* ],"next":N}\n */
	int n, i = (int)(r->from_index < (uint32_t)a->n_pins ? r->from_index : (uint32_t)a->n_pins);

	n = snprintf(out, outlen,
		     "{\"ok\":true,\"te\":%s,\"generation\":%llu,\"total\":%d,\"from\":%u,"
		     "\"pins\":[",
		     a->cfg.te_enabled ? "true" : "false", (unsigned long long)a->te_gen, a->n_pins,
		     r->from_index);
	if (n < 0 || (size_t)n + tail >= outlen)
		return refuse(out, outlen, "", "response too long");
	o = (size_t)n;
	for (; i < a->n_pins; i++) {
		int len = pin_json(&a->pins[i], item, sizeof(item));

		if (len < 0 || o + (size_t)len + 1 + tail >= outlen)
			break;
		o += (size_t)snprintf(out + o, outlen - o, "%s%s", out[o - 1] == '[' ? "" : ",",
				      item);
	}
	if (i < a->n_pins)
		o += (size_t)snprintf(out + o, outlen - o, "],\"next\":%d}\n", i);
	else
		o += (size_t)snprintf(out + o, outlen - o, "]}\n");
	return (int)o;
}

/* Every port slot's per-CPU counters to zero. */
static int ctl_clear_counters(struct agent *a, const struct xfab_ctl_req *r, char *out,
			      size_t outlen)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xfab_port_stats *zero;

	(void)r;
	if (a->fd_port_stats < 0 || ncpu <= 0)
		return refuse(out, outlen, "", "the counters are not loaded");
	zero = calloc((size_t)ncpu, sizeof(*zero));
	if (!zero)
		return refuse(out, outlen, "", "out of memory");
	for (__u32 slot = 0; slot < XFAB_MAX_PORTS; slot++) {
		if (bpf_map_update_elem(a->fd_port_stats, &slot, zero, BPF_ANY)) {
			int e = errno;

			free(zero);
			return refuse(out, outlen, "", "cannot clear port slot %u: %s", slot,
				      strerror(e));
		}
	}
	free(zero);
	log_info("port counters cleared");
	return reply_ok(out, outlen);
}

/* Peaks back to zero; the current occupancy stays. */
static int ctl_clear_watermark(struct agent *a, const struct xfab_ctl_req *r, char *out,
			       size_t outlen)
{
	(void)r;
	if (a->fd_queue_wm < 0)
		return refuse(out, outlen, "", "the watermarks are not loaded");
	for (__u32 key = 0; key < XFAB_MAX_QUEUES; key++) {
		struct xfab_queue_watermark wm;

		if (bpf_map_lookup_elem(a->fd_queue_wm, &key, &wm) || !wm.peak_bytes)
			continue;
		wm.peak_bytes = 0;
		if (bpf_map_update_elem(a->fd_queue_wm, &key, &wm, BPF_ANY))
			return refuse(out, outlen, "", "cannot clear watermark %u: %s", key,
				      strerror(errno));
	}
	log_info("queue watermarks cleared");
	return reply_ok(out, outlen);
}

/* Port p's state and drain as JSON members: ,"oper":"up","drained":true,
 * "drain_reason":"...","drained_since":SECONDS,"drains":N (docs/CONTROL.md). */
static int drain_members(const struct agent *a, int p, char *buf, size_t len)
{
	char reason[6 * XFAB_CTL_REASON_MAX + 3];

	if (xfab_ctl_json_string(reason, sizeof(reason), a->drain.reason[p]) < 0)
		snprintf(reason, sizeof(reason), "\"\"");
	return snprintf(
	    buf, len,
	    ",\"oper\":\"%s\",\"drained\":%s,\"drain_reason\":%s,\"drained_since\":%lld,"
	    "\"drains\":%llu}",
	    a->live[p].oper_up ? "up" : "down", a->drain.on[p] ? "true" : "false", reason,
	    a->drain.since[p], (unsigned long long)a->drain.total[p]);
}

/* An aied damper's members, the object left open. */
static int damping_aied_json(const char *name, const struct xfab_damp *d, __u64 now, char *buf,
			     size_t len)
{
	const struct xfab_damp_cfg *c = &d->cfg;

	return snprintf(
	    buf, len,
	    "{\"port\":\"%s\",\"algorithm\":\"aied\",\"flap_penalty\":%u,"
	    "\"suppress_threshold\":%u,\"reuse_threshold\":%u,\"decay_half_life\":%u,"
	    "\"max_suppress_time\":%u,\"ceiling\":%.0f,\"penalty\":%.1f,\"link\":\"%s\","
	    "\"state\":\"%s\",\"suppressed\":%s,\"suppressed_ms\":%llu,\"reuse_in_ms\":%llu,"
	    "\"suppressions\":%llu,\"pre_up\":%llu,\"pre_down\":%llu,\"post_up\":%llu,"
	    "\"post_down\":%llu",
	    name, c->flap_penalty, c->suppress_threshold, c->reuse_threshold, c->decay_half_life_ms,
	    c->max_suppress_time_ms, d->ceiling, xfab_damp_penalty(d, now),
	    d->actual ? "up" : "down", d->advertised ? "up" : "down",
	    d->suppressed ? "true" : "false",
	    d->suppressed ? (unsigned long long)((now - d->suppressed_since_ns) / 1000000) : 0ull,
	    d->suppressed && d->reuse_ns > now
		? (unsigned long long)((d->reuse_ns - now + 999999) / 1000000)
		: 0ull,
	    (unsigned long long)d->st.suppressions, (unsigned long long)d->st.pre_up,
	    (unsigned long long)d->st.pre_down, (unsigned long long)d->st.post_up,
	    (unsigned long long)d->st.post_down);
}

/* One port's damper as JSON, its drain after it (docs/CONTROL.md,
 * damping-status). */
static int damping_json(const struct agent *a, int p, __u64 now, char *buf, size_t len)
{
	const char *name = a->cfg.ports[p].name;
	const struct xfab_damp *d = &a->damping.d[p];
	const struct xfab_damp_cfg *c = &d->cfg;
	int n;

	if (!xfab_damp_enabled(c))
		n = snprintf(buf, len, "{\"port\":\"%s\",\"algorithm\":\"%s\"", name,
			     xfab_damp_algo_name(c->algo));
	else
		n = damping_aied_json(name, d, now, buf, len);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return n + drain_members(a, p, buf + n, len - (size_t)n);
}

/* Link event damping per port, a page from port "from" (docs/CONTROL.md):
 * read, nothing changes. */
static int damping_status(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	char item[1280];
	size_t o, tail = 24; /* ],"next":NN}\n */
	int n, p = (int)(r->from_index < (uint32_t)a->cfg.n_ports ? r->from_index
								  : (uint32_t)a->cfg.n_ports);
	__u64 now = xfab_mono_ns();

	n = snprintf(out, outlen, "{\"ok\":true,\"total\":%d,\"from\":%u,\"ports\":[",
		     a->cfg.n_ports, r->from_index);
	if (n < 0 || (size_t)n + tail >= outlen)
		return refuse(out, outlen, "", "response too long");
	o = (size_t)n;
	for (; p < a->cfg.n_ports; p++) {
		int len = damping_json(a, p, now, item, sizeof(item));

		if (len < 0 || o + tail + (size_t)len + 1 >= outlen) /* item, comma, tail */
			break;
		o += (size_t)snprintf(out + o, outlen - o, "%s%s", out[o - 1] == '[' ? "" : ",",
				      item);
	}
	if (p < a->cfg.n_ports)
		o += (size_t)snprintf(out + o, outlen - o, "],\"next\":%d}\n", p);
	else
		o += (size_t)snprintf(out + o, outlen - o, "]}\n");
	return (int)o;
}

static int ping(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	(void)a;
	(void)r;
	return reply_ok(out, outlen);
}

/* Answered first; the event loop then exits keeping the data plane, and
 * main runs xfabd again (it adopts it). */
static int restart(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	(void)r;
	a->restart_due = 1;
	return reply_ok(out, outlen);
}

/* Who serves each command: the socket knows the table, never a part by
 * name. A part that lives outside this file (pfc.c's watchdog, drain.c,
 * fibsync_status.c)
 * registers its handlers with agent_ctl_register_check or _reply; a command
 * nobody registered (a test that links no PFC part) is refused. */
static struct ctl_handler {
	ctl_reply_fn reply; /* writes the whole answer */
	ctl_check_fn check; /* or: 0 is ok, -1 a refusal with its field */
} ctl_handlers[XFAB_CTL_N_CMDS] = {
    [XFAB_CTL_PING] = {.reply = ping},
    [XFAB_CTL_TE_ADD] = {.reply = ctl_te_add},
    [XFAB_CTL_TE_DEL] = {.reply = ctl_te_del},
    [XFAB_CTL_TE_CLEAR] = {.reply = ctl_te_clear},
    [XFAB_CTL_TE_SWEEP] = {.reply = ctl_te_sweep},
    [XFAB_CTL_TE_LIST] = {.reply = ctl_te_list},
    [XFAB_CTL_CLEAR_COUNTERS] = {.reply = ctl_clear_counters},
    [XFAB_CTL_CLEAR_WATERMARK] = {.reply = ctl_clear_watermark},
    [XFAB_CTL_RESTART] = {.reply = restart},
    [XFAB_CTL_DAMPING_STATUS] = {.reply = damping_status},
};

static int ctl_register(enum xfab_ctl_cmd cmd, struct ctl_handler h)
{
	if ((unsigned int)cmd >= XFAB_CTL_N_CMDS)
		return -1;
	ctl_handlers[cmd] = h;
	return 0;
}

int agent_ctl_register_reply(enum xfab_ctl_cmd cmd, ctl_reply_fn fn)
{
	return ctl_register(cmd, (struct ctl_handler){.reply = fn});
}

int agent_ctl_register_check(enum xfab_ctl_cmd cmd, ctl_check_fn fn)
{
	return ctl_register(cmd, (struct ctl_handler){.check = fn});
}

int agent_ctl_handle(struct agent *a, const char *line, size_t len, char *out, size_t outlen)
{
	const struct ctl_handler *h;
	struct xfab_ctl_req r;
	struct xfab_ctl_err err;
	char field[32], msg[256];

	if (xfab_ctl_parse_request(line, len, &r, &err))
		return refuse(out, outlen, err.field, "%s", err.msg);
	if ((unsigned int)r.cmd >= XFAB_CTL_N_CMDS)
		return refuse(out, outlen, "cmd", "unknown command");
	h = &ctl_handlers[r.cmd];
	if (h->reply)
		return h->reply(a, &r, out, outlen);
	if (!h->check)
		return refuse(out, outlen, "cmd", "%s: not served by this agent",
			      xfab_ctl_cmd_name(r.cmd));
	if (h->check(a, &r, field, sizeof(field), msg, sizeof(msg)))
		return refuse(out, outlen, field, "%s", msg);
	return reply_ok(out, outlen);
}

/* ---- reload ---- */

int agent_pins_reload_check(struct agent *a, const struct xfab_config *next, const char *file,
			    struct te_pin **kept, int *n_kept, struct xfab_cfg_errors *errs)
{
	struct xfab_config run_m, next_m;
	struct te_pin *k = NULL;
	int n = 0, err;

	*kept = NULL;
	*n_kept = 0;
	memset(errs, 0, sizeof(*errs));
	if (a->n_pins && !next->te_enabled) {
		struct xfab_cfg_error *e = &errs->e[0];

		snprintf(e->file, sizeof(e->file), "%s", file);
		snprintf(e->key, sizeof(e->key), "TE_PATH");
		snprintf(e->msg, sizeof(e->msg),
			 "the new config has no TE_PATH table but %d runtime TE pin(s) are set: "
			 "`xfabctl te clear` first",
			 a->n_pins);
		errs->count = errs->total = 1;
		return -1;
	}
	if (a->n_pins && !(k = calloc((size_t)a->n_pins, sizeof(*k))))
		return -ENOMEM;
	for (int i = 0; i < a->n_pins; i++) {
		const struct te_pin *p = &a->pins[i];
		struct xfab_cfg_errors pe;

		if (config_has(next, p->te.in_port, &p->te.path.pfx))
			continue; /* the config wins: dropped (and said) at the commit */
		k[n] = *p;
		memset(&k[n].te, 0, sizeof(k[n].te));
		if (xfab_config_parse_te_entry(next, p->in, p->prefix, p->via, &k[n].te, &pe)) {
			struct xfab_cfg_error *e = &errs->e[0];

			snprintf(e->file, sizeof(e->file), "%s", file);
			snprintf(e->key, sizeof(e->key), "runtime TE pin %.16s|%.64s", p->in,
				 p->prefix);
			snprintf(e->msg, sizeof(e->msg),
				 "%.150s under the new config: `xfabctl te del` it first",
				 pe.count ? pe.e[0].msg : "no longer valid");
			errs->count = errs->total = 1;
			agent_pins_free(k, n);
			return -1;
		}
		n++;
	}
	/* the switch-over, pins included on both sides */
	err = merge(&run_m, &a->cfg, a->pins, a->n_pins, NULL);
	if (!err && (err = merge(&next_m, next, k, n, NULL)))
		free(run_m.te);
	if (err) {
		agent_pins_free(k, n);
		return err;
	}
	err = xfab_config_check_change(&run_m, &next_m, file, errs);
	free(run_m.te);
	free(next_m.te);
	if (err) {
		agent_pins_free(k, n);
		return -1;
	}
	*kept = k;
	*n_kept = n;
	return 0;
}

void agent_pins_reload_commit(struct agent *a, struct te_pin *kept, int n_kept)
{
	if (!a->rib) { /* nothing compiled yet: nothing to move */
		agent_pins_free(a->pins, a->n_pins);
		a->pins = kept;
		a->n_pins = n_kept;
		return;
	}
	for (int i = 0; i < a->n_pins; i++)
		if (find_pin(kept, n_kept, a->pins[i].te.in_port, &a->pins[i].te.path.pfx) < 0) {
			log_warn("TE pin %s|%s: the new config pins the same port and prefix; "
				 "the config wins and the runtime pin is dropped",
				 a->pins[i].in, a->pins[i].prefix);
			rib_unset(a, &a->pins[i].te);
		}
	for (int i = 0; i < n_kept; i++)
		if (rib_set(a, &kept[i].te)) /* memory: the recompile after it retries */
			a->dirty = 1;
	agent_pins_free(a->pins, a->n_pins);
	a->pins = kept;
	a->n_pins = n_kept;
}
