// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabd: the xfab loader and agent for one switch.
 *
 *   validate config -> resolve ports -> bpffs + pin dir + lock -> load and pin
 *   -> learn neighbours -> program tables -> attach every port -> event loop
 *
 * The event loop follows links and neighbours over rtnetlink, serves the
 * control socket (control.c: xfabctl's TE pins and clears; xfabd is the
 * only writer of the tables), reloads the config on SIGHUP (a bad file is
 * rejected whole and changes nothing; runtime TE pins stay) and detaches,
 * unpins and removes the socket on SIGTERM/SIGINT.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "common.h"
#include "pfc.h"
#include "ctlproto.h"
#include "metrics.h"
#include "opts.h"
#include "probe.h"
#include "sdnotify.h"
#include "xfab.skel.h"

static void print_errors(const struct xfab_cfg_errors *errs)
{
	char line[768];

	for (int i = 0; i < errs->count; i++) {
		xfab_cfg_error_format(&errs->e[i], line, sizeof(line));
		fprintf(stderr, "%s%s\n", xfab_log_err_tag(), line);
	}
	if (errs->total > errs->count)
		fprintf(stderr, "%s(%d more error(s) not shown)\n", xfab_log_err_tag(),
			errs->total - errs->count);
}

/* A SONiC file's tables and fields xfab does not implement, once each, so
 * an operator sees what of the file has no effect (docs/CONFIG.md). */
static void print_ignored(const struct xfab_config *cfg, const char *path)
{
	if (!cfg->sonic)
		return;
	printf("%s: SONiC CONFIG_DB; ignored:%s", path, cfg->n_ignored ? "" : " nothing");
	for (int i = 0; i < cfg->n_ignored; i++)
		printf("%s %s", i ? "," : "", cfg->ignored[i]);
	printf("\n");
}

/* SONiC's catalogue beside this xfabd: the build tree's (build/xfabd,
 * config/sonic/) or the installed one (PREFIX/sbin/xfabd,
 * PREFIX/share/xfab/sonic/); NULL: the library's default. */
static const char *default_catalogue(void)
{
	static const char *const rel[] = {"../config/sonic/catalogue.json",
					  "../share/xfab/sonic/catalogue.json"};
	static char path[4096];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (xfab_beside_exe(path, sizeof(path), rel[i]) == path && !access(path, R_OK))
			return path;
	return NULL;
}

/* The service manager's view (Type=notify): READY=1 once the ports
 * forward, RELOADING=1 .. READY=1 around a reload, STOPPING=1. Without
 * $NOTIFY_SOCKET nothing is sent. */
static void notify(const char *state)
{
	int err = xfab_sd_notify(state);

	if (err < 0)
		log_warn("cannot notify the service manager ($NOTIFY_SOCKET): %s", strerror(-err));
}

static void notify_ready(const struct agent *a)
{
	char msg[160];

	if (!xfab_sd_ready_msg(msg, sizeof(msg), a->cfg.n_ports,
			       a->cfg.datapath == XFAB_DP_XDP ? "xdp" : "tc"))
		notify(msg);
}

static void reload_one(struct agent *a);

/* SIGHUP (systemctl reload): the manager sees the reload start and end,
 * whether the new config was taken or refused. */
static void reload(struct agent *a)
{
	char msg[64];

	if (!xfab_sd_reloading_msg(msg, sizeof(msg)))
		notify(msg);
	reload_one(a);
	notify_ready(a);
}

/* Validate the file again and move to it in place, or keep running the old
 * config untouched. */
static void reload_one(struct agent *a)
{
	struct xfab_port_live live[XFAB_MAX_PORTS], old_live[XFAB_MAX_PORTS];
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	struct te_pin *kept = NULL;
	int n_kept = 0;

	log_info("reloading %s", a->cfg_path);
	if (xfab_config_load_as(a->cfg_path, &a->cfg_source, &cfg, &errs)) {
		print_errors(&errs);
		log_err("reload rejected: %s has %d error(s); running config unchanged",
			a->cfg_path, errs.total);
		return;
	}
	/* what needs a restart, whether the runtime TE pins still hold, and
	 * whether the switch-over (pins included) fits the tables */
	if (agent_pins_reload_check(a, &cfg, a->cfg_path, &kept, &n_kept, &errs)) {
		print_errors(&errs);
		log_err("reload rejected: %s has %d error(s); running config unchanged",
			a->cfg_path, errs.total ? errs.total : 1);
		goto reject;
	}
	if (agent_resolve_ports(&cfg, live, a->cfg_path)) {
		log_err("reload rejected; running config unchanged");
		agent_pins_free(kept, n_kept);
		goto reject;
	}
	/* the programs gain the code the new config adds before its tables */
	if (agent_code_reload_begin(a, &cfg)) {
		agent_pins_free(kept, n_kept);
		log_err("reload rejected; running config unchanged");
		goto reject;
	}
	/* a port the new config keeps suppressed or drained stays out of the groups */
	agent_damping_reload_mask(a, &cfg, live);
	agent_drain_reload_mask(a, &cfg, live);
	memcpy(old_live, a->live, sizeof(old_live));
	memcpy(a->live, live, sizeof(live));
	if (agent_ports_reload_attach(a, &cfg)) {
		memcpy(a->live, old_live, sizeof(old_live));
		agent_pins_free(kept, n_kept);
		log_err("reload rejected; running config unchanged");
		goto reject;
	}
	agent_pins_reload_commit(a, kept, n_kept);
	if (agent_rebuild_and_apply(a, &cfg)) {
		memcpy(a->live, old_live, sizeof(old_live));
		agent_ports_reload_undo(a, cfg.n_ports);
		log_err("reload failed while writing tables; will retry on the next event");
		goto reject;
	}
	{
		struct xfab_config old = a->cfg;

		memcpy(cfg.fib_groups_loaded, old.fib_groups_loaded, sizeof(cfg.fib_groups_loaded));
		a->cfg = cfg;
		agent_ports_reload_finish(a, &old);
		agent_code_reload_end(a);	    /* and lose what it dropped, after them */
		agent_drain_reload_commit(a, &old); /* before the dampers: their holds read it */
		agent_damping_reload_commit(a, &old);
		if (agent_pfc_start(a))
			log_err(
			    "lossless priorities are not honoured: the PFC thread did not start");
		xfab_config_free(&old);
	}
	log_info("reloaded: %d ports, %d routes, %d runtime TE pin(s)", cfg.n_ports, cfg.n_routes,
		 a->n_pins);
	return;
reject:
	xfab_config_free(&cfg);
}

static int event_loop(struct agent *a)
{
	struct xfab_nl_handlers h = {
	    .link = agent_on_link, .neigh = agent_on_neigh, .route = agent_on_route, .arg = a};
	struct itimerspec every_second = {{1, 0}, {1, 0}};
	struct pollfd pfd[3 + 1 + CTL_MAX_CONN];
	sigset_t mask;
	int sfd, tfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0 || timerfd_settime(tfd, 0, &every_second, NULL)) {
		log_err("cannot set up the event loop: %s", strerror(errno));
		return -errno;
	}
	pfd[0] = (struct pollfd){.fd = agent_nl_fd(a->nl), .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
	pfd[2] = (struct pollfd){.fd = tfd, .events = POLLIN};
	log_info("switch %s forwarding on %d ports (%s datapath)", a->cfg.hostname, a->cfg.n_ports,
		 a->cfg.datapath == XFAB_DP_XDP ? "xdp" : "tc");
	notify_ready(a);
	for (;;) {
		int timeout, n_ctl = agent_ctl_pollfds(a, pfd + 3, 1 + CTL_MAX_CONN, &timeout);
		int held = a->fs.n_held ? agent_fib_sync_expire(a) : -1;
		int damped = agent_damping_timeout(a, xfab_mono_ns());

		if (held >= 0 && (timeout < 0 || held < timeout))
			timeout = held;
		if (damped >= 0 && (timeout < 0 || damped < timeout))
			timeout = damped;

		if (poll(pfd, 3 + (nfds_t)n_ctl, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN) {
			int err = agent_nl_read_events(a->nl, &h);

			agent_fib_sync_flush(a);
			if (err == -ENOBUFS) { /* missed events: read the whole state again */
				log_warn("netlink overrun; resynchronising");
				agent_nl_dump_links(&h);
				agent_nl_dump_neighs(&h);
				agent_fib_sync_resync(a);
			}
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload(a);
				} else if (si.ssi_signo == SIGUSR2) {
					/* systemctl restart (RestartKillSignal) */
					log_info("signal %u: stopping; the data plane keeps "
						 "forwarding for the next xfabd",
						 si.ssi_signo);
					a->keep_signal = 1;
					break;
				} else {
					log_info("signal %u: stopping", si.ssi_signo);
					break;
				}
			}
		}
		if (pfd[2].revents & POLLIN) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
			agent_probe_unresolved(a);
			agent_egress_guard_refresh(a);
			if (a->fs.resync_due)
				agent_fib_sync_resync(a);
		}
		agent_damping_expire(a); /* suppressions whose reuse time came */
		agent_ctl_serve(a, pfd + 3, n_ctl);
		if (a->restart_due) {
			log_info("restart requested: the data plane keeps forwarding");
			notify("RELOADING=1\nSTATUS=restarting in place (xfabctl restart)");
			break;
		}
		if (a->dirty) {
			a->dirty = 0;
			if (agent_rebuild_and_apply(a, &a->cfg))
				a->dirty = 1;
		}
	}
	close(sfd);
	close(tfd);
	return 0;
}

/* The restart request: the same xfabd again, from the file it was started
 * from (replaced by an upgrade, that is the new one). It adopts what this
 * one leaves. */
static void restart_self(char **argv)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *del = " (deleted)";

	if (n > 0) {
		exe[n] = '\0';
		/* the binary was replaced: run the file now at that path */
		if ((size_t)n > strlen(del) && !strcmp(exe + n - strlen(del), del))
			exe[n - strlen(del)] = '\0';
	} else {
		snprintf(exe, sizeof(exe), "%s", argv[0]);
	}
	log_info("restarting: %s", exe);
	fflush(stderr);
	execv(exe, argv);
	log_err("cannot run %s again: %s; the data plane keeps forwarding without an agent", exe,
		strerror(errno));
}

static const char *const code_modes[] = {"config", "all", NULL};
/* enum xfab_cfg_format's order */
static const char *const cfg_formats[] = {"auto", "xfab", "sonic", NULL};

static const char *const bench_stages[XFAB_BENCH_STOPS + 1] = {
    "full", "parse", "validate", "fib", "pick", "nexthop", "queue", "rewrite", "counters", NULL};

/* What xfabd's --help says after the options. */
static const char xfabd_epilogue[] =
    "Control: xfabctl's changes (TE pins, clears) arrive on a unix socket under\n"
    "  " XFAB_CTL_RUN_ROOT " (docs/CONTROL.md).\n"
    "Restarts are hitless: a new xfabd takes over the links, counters and pins a\n"
    "  previous one left (killed, --keep, or `xfabctl restart`), builds its tables\n"
    "  beside the running ones and switches the ports over in one step.\n"
    "Signals: HUP reloads CONFIG in place; TERM/INT detach, unpin and exit\n"
    "  (with --keep: exit only); USR2 exits leaving the data plane forwarding\n"
    "  (systemctl restart: the next xfabd takes it over).\n"
    "systemd: Type=notify (READY=1 once forwarding, RELOADING=1 around a reload,\n"
    "  STOPPING=1) when $NOTIFY_SOCKET is set; xfabd@.service.\n";

struct xfabd_flags {
	int check_only, keep, probe, syslog;
};

/* xfabd's options into a and f: 0, or the exit status. */
static int parse_options(struct agent *a, struct xfabd_flags *f, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("config", 'c', a->cfg_path, "FILE",
			 "switch config (JSON, docs/CONFIG.md)"),
	    XFAB_OPT_FLAG("check", 0, f->check_only,
			  "validate the config (and its ports) and exit"),
	    XFAB_OPT_ENUM("format", 0, a->cfg_source.format, cfg_formats, "FORMAT",
			  "what CONFIG is written as: auto (the default:\n"
			  "SONiC's when one of its tables is SONiC's and\n"
			  "not xfab's), xfab, or sonic (a CONFIG_DB file)"),
	    XFAB_OPT_STR("sonic-catalogue", 0, a->cfg_source.catalogue, "FILE",
			 "SONiC's tables and fields (default: the\n"
			 "build's or the installed catalogue.json)"),
	    XFAB_OPT_STR("pin-root", 0, a->pin_root, "DIR",
			 "pin maps under DIR/<hostname>\n(default " XFAB_PIN_ROOT ")"),
	    XFAB_OPT_STR("pidfile", 0, a->pidfile, "FILE", "write the agent's pid to FILE"),
	    XFAB_OPT_STR("metrics", 0, a->metrics, "ADDR:PORT",
			 "serve Prometheus metrics (GET /metrics)"),
	    XFAB_OPT_FLAG("probe-kernel", 0, f->probe,
			  "check the kernel has what xfab needs\n(Linux >= 6.6) and exit"),
	    XFAB_OPT_INT("netlink-rcvbuf", 0, a->nl_rcvbuf, 4096, 1 << 30, "BYTES",
			 "the route event socket's buffer (default 64 MiB;\n"
			 "smaller overflows sooner: a resync follows)",
			 .base = 10),
	    XFAB_OPT_FLAG("keep", 0, f->keep,
			  "on TERM/INT leave the data plane forwarding\n"
			  "(the next xfabd takes it over)"),
	    XFAB_OPT_FLAG("force", 0, a->force,
			  "replace a data plane left by an xfabd of\n"
			  "another ABI (without it, xfabd refuses to start)"),
	    XFAB_OPT_FLAG("syslog", 0, f->syslog,
			  "start log lines with their sd-daemon priority\n"
			  "(<3>..<7>), no time stamp (automatic when stderr\n"
			  "is the journal)"),
	    XFAB_OPT_ENUM("code", 0, a->code_all, code_modes, "WHAT",
			  "the data plane's optional code: config (what\n"
			  "the config needs, the default) or all (every\n"
			  "feature's, as make bench's unspecialised row)"),
	    XFAB_OPT_ENUM("bench-stop", 0, a->bench_stop, bench_stages, "STAGE",
			  "make bench only: the pipeline stops after STAGE\n"
			  "(parse, validate, fib, pick, nexthop, queue,\n"
			  "rewrite; counters: runs whole, as a stage build)\n"
			  "and sends the frame out of --bench-port"),
	    XFAB_OPT_STR("bench-port", 0, a->bench_port, "PORT",
			 "make bench only: where --bench-stop sends\n"
			 "the frame, as it is"),
	    XFAB_OPT_FLAG("verbose", 'v', xfab_log_verbose, "debug logging"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfabd", "-c CONFIG", rows, xfabd_epilogue};
	int first = xfab_opts_parse(&spec, argc, argv);
	char probe_msg[512];

	if (first < 0)
		return xfab_opts_exit(first);
	if (f->syslog)
		xfab_log_set_journal(1);
	if (f->probe) {
		int bad = xfab_probe_kernel(probe_msg, sizeof(probe_msg));

		fprintf(bad ? stderr : stdout, "xfabd: %s\n", probe_msg);
		return bad ? 1 : 0;
	}
	if (!a->cfg_path || first != argc) {
		xfab_opts_usage(&spec, stderr);
		return 2;
	}
	if (!a->cfg_source.catalogue)
		a->cfg_source.catalogue = default_catalogue();
	return -1;
}

/* The config and its ports, validated before anything touches the kernel
 * (and, with --check, only that): -1 to go on, else the exit status. */
static int check_config(struct agent *a, const struct xfabd_flags *flags)
{
	struct xfab_cfg_errors errs;

	if (xfab_config_load_as(a->cfg_path, &a->cfg_source, &a->cfg, &errs)) {
		print_errors(&errs);
		fprintf(stderr, "%s%s: %d error(s); nothing was changed\n", xfab_log_err_tag(),
			a->cfg_path, errs.total);
		return 1;
	}
	if (agent_resolve_ports(&a->cfg, a->live, a->cfg_path)) {
		fprintf(stderr, "%s%s: nothing was changed\n", xfab_log_err_tag(), a->cfg_path);
		goto out_cfg;
	}
	if (a->bench_stop) {
		int p = 0;

		while (a->bench_port && p < a->cfg.n_ports &&
		       strcmp(a->cfg.ports[p].name, a->bench_port))
			p++;
		if (!a->bench_port || p == a->cfg.n_ports) {
			fprintf(stderr, "%sxfabd: --bench-stop needs --bench-port, a port of %s\n",
				xfab_log_err_tag(), a->cfg_path);
			goto out_cfg;
		}
	}
	if (flags->check_only) {
		printf("%s: OK (%s, %d ports, %d addresses, %d routes)\n", a->cfg_path,
		       a->cfg.hostname, a->cfg.n_ports, a->cfg.n_addrs, a->cfg.n_routes);
		print_ignored(&a->cfg, a->cfg_path);
		xfab_config_free(&a->cfg);
		return 0;
	}
	return -1;
out_cfg:
	xfab_config_free(&a->cfg);
	return 1;
}

/* Signals are handled in the loop; blocked from the start so a TERM during
 * start-up still unwinds cleanly. */
static void block_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
}

static void write_pidfile(const struct agent *a)
{
	FILE *f;

	if (!a->pidfile)
		return;
	f = fopen(a->pidfile, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* --metrics: the exposition's thread, reading the loaded maps by name. */
static void start_metrics(struct agent *a)
{
	static struct xfab_metrics_src src;

	if (!a->metrics)
		return;
	snprintf(src.hostname, sizeof(src.hostname), "%s", a->cfg.hostname);
	src.n_ports = a->cfg.n_ports;
	for (int p = 0; p < a->cfg.n_ports; p++)
		snprintf(src.port_names[p], sizeof(src.port_names[p]), "%s", a->cfg.ports[p].name);
	src.map_fd = agent_metrics_obj_map_fd;
	src.map_arg = a->skel->obj;
	src.fib = &a->fib_pub;
	src.damping = &a->damping_pub;
	if (agent_metrics_start(a->metrics, &src))
		log_warn("cannot serve metrics on %s: %s", a->metrics, strerror(errno));
	else
		log_info("serving metrics on http://%s/metrics", a->metrics);
}

/* Once the ports forward on this xfabd's maps: the PFC thread, the pidfile
 * and the metrics (none of them stops xfabd when it fails). */
static void start_services(struct agent *a)
{
	if (agent_pfc_start(a))
		log_err("lossless priorities are not honoured: the PFC thread did not start");
	write_pidfile(a);
	start_metrics(a);
}

/* Everything before the kernel is touched: the options, the log, the config
 * validated and the kernel probed. -1 to go on, else the exit status. */
static int prepare(struct agent *a, struct xfabd_flags *flags, int argc, char **argv)
{
	char probe_msg[512];
	int ret;

	a->argv = argv;
	ret = parse_options(a, flags, argc, argv);
	if (ret >= 0)
		return ret;
	if (xfab_sd_journal_stderr())
		xfab_log_set_journal(1);
	libbpf_set_print(xfab_log_libbpf);
	pthread_mutex_init(&a->fib_pub.lock, NULL);
	pthread_mutex_init(&a->damping_pub.lock, NULL);

	/* Everything is validated before anything touches the kernel. */
	ret = check_config(a, flags);
	if (ret >= 0)
		return ret;

	/* Say which kernel feature is missing now, not deep inside a load. */
	if (xfab_probe_kernel(probe_msg, sizeof(probe_msg))) {
		log_err("%s", probe_msg);
		xfab_config_free(&a->cfg);
		return 1;
	}
	return -1;
}

/* Bring-up in order and teardown in reverse: every step a goto unwinds. */
int main(int argc, char **argv)
{
	struct agent a = {.lock_fd = -1, .fd_port_stats = -1, .fd_queue_wm = -1};
	struct xfab_nl_handlers nh = {.neigh = agent_on_neigh, .arg = &a};
	struct xfabd_flags flags = {0};
	int ret = prepare(&a, &flags, argc, argv);

	if (ret >= 0)
		return ret;
	ret = 1;
	block_signals();
	for (int p = 0; p < XFAB_MAX_PORTS; p++)
		a.link_fd[p] = a.egress_fd[p] = a.handoff_fd[p] = -1;
	if (agent_take_pin_dir(&a))
		goto out_cfg;
	/* Until the ports run on what this xfabd loaded, a data plane it
	 * adopted stays as it was, whatever happens. */
	a.keep = a.adopt;
	/* One xfabd per socket: a live one there stops us before we load. */
	if (agent_ctl_open(&a))
		goto out_unpin;
	if (agent_load_bpf(&a))
		goto out_unpin;
	a.fd_port_stats = bpf_map__fd(a.skel->maps.port_stats);
	a.fd_queue_wm = bpf_map__fd(a.skel->maps.queue_watermark);
	a.nl = agent_nl_open_events(a.cfg.fib_sync, a.nl_rcvbuf);
	if (!a.nl) {
		log_err("cannot subscribe to rtnetlink: %s", strerror(errno));
		goto out_unload;
	}
	if (agent_nl_dump_neighs(&nh))
		log_warn("cannot read the kernel's neighbour table; learning as it changes");
	/* after the event socket: a link that moves from here on is an event;
	 * the drains first, which the dampers' holds include */
	agent_drain_start(&a);
	agent_damping_start(&a);
	if (agent_rebuild_and_apply(&a, &a.cfg))
		goto out_nl;
	if (agent_fib_sync_start(&a))
		goto out_nl;
	if (agent_attach_all(&a))
		goto out_nl;
	if (agent_publish_pins(&a)) {
		a.keep = a.adopt; /* the ports run on our maps: leave them be */
		goto out_ports;
	}
	a.keep = flags.keep;
	start_services(&a);
	agent_probe_unresolved(&a); /* now, not a second from now */
	ret = event_loop(&a) ? 1 : 0;
	if (a.restart_due || a.keep_signal)
		a.keep = 1;
	/* drains outlive a restart that keeps the data plane, not a stop */
	if (!a.keep)
		agent_drain_stop(&a);
	agent_damping_stop(&a);
	if (!a.restart_due)
		notify(a.keep ? "STOPPING=1\nSTATUS=stopping; the data plane keeps forwarding"
			      : "STOPPING=1\nSTATUS=stopping: detaching the ports");
	agent_pfc_stop(&a);
out_ports:
	if (a.keep)
		agent_keep_ports(&a);
	else
		for (int p = a.cfg.n_ports - 1; p >= 0; p--)
			agent_detach_port(&a, p);
	if (a.pidfile && !a.restart_due)
		unlink(a.pidfile);
out_nl:
	agent_nl_close(a.nl);
out_unload:
	agent_unload_bpf(&a);
out_unpin:
	agent_ctl_close(&a);
	agent_release_pin_dir(&a);
	agent_compile_stop(&a);
	agent_pins_free(a.pins, a.n_pins);
	if (a.restart_due) {
		xfab_config_free(&a.cfg);
		restart_self(a.argv);
		return 1;
	}
	log_info(a.keep ? "stopped; the data plane keeps forwarding" : "stopped");
out_cfg:
	xfab_config_free(&a.cfg);
	return ret;
}
