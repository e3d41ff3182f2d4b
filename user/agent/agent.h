/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfabd's state and the calls between its parts:
 *
 *   main.c    options, start-up and shutdown, SIGHUP reload, the event loop
 *   load.c    bpffs, the pin directory and its lock, loading and pinning;
 *             adopting what a previous xfabd left running (restarts)
 *   ports.c   resolving configured ports, attach/detach with rollback;
 *             pinned links, taken over in place on a restart
 *   qdisc.c   the tc datapath's HTB/TBF class queues (via iproute2's tc)
 *   sync.c    compiling the tables and writing them to the maps; the
 *             netlink event handlers that update them
 *   control.c the control socket: xfabctl's requests, one line each way,
 *             served from the event loop (docs/CONTROL.md)
 *   requests.c what a request does: runtime TE pins (kept here, compiled
 *             with the config's), clearing counters and watermarks
 *   netlink.c rtnetlink dumps and events; metrics.c Prometheus exposition
 *   fibsync.c FIB_SYNC: the kernel's routes (FRR's) into the RIB
 *
 * xfabd is the only writer of the tables: xfabctl reads the maps, and every
 * change it asks for comes here over the control socket.
 */
#ifndef XFAB_AGENT_H
#define XFAB_AGENT_H

#include <linux/types.h>

#include "config.h"
#include "ctlproto.h"
#include "fib.h"
#include "log.h"
#include "netlink.h"
#include "nlroute.h"
#include "compile.h"
#include "rib.h"
#include "maps.h"
#include "metrics.h"

struct xfab;
struct mnl_socket;
struct ctl;
struct pollfd;

/* A runtime TE pin: as it was asked for, and as parsed against the running
 * config (the config's TE_PATH rules, xfab_config_parse_te_entry). */
struct te_pin {
	char in[XFAB_IFNAMSIZ];
	char prefix[64];
	char via[1024];
	__u64 gen; /* the plan's generation it came with; 0: set without one */
	struct xfab_cfg_te te;
};

/* Updates buffered for BPF_MAP_UPDATE_BATCH: one syscall per BATCH_MAX. */
#define BATCH_MAX 8192
struct batch {
	enum xfab_table t;
	unsigned int n;
	int del;	     /* buffered are deletes (keys only), not updates */
	int unsupported;     /* the kernel refused update batches for a map: one by one */
	int del_unsupported; /* likewise delete batches */
	char *keys, *vals;
};

/* A route withdrawal held back while its dead path bounces (LOCAL_REPAIR). */
struct held_del {
	__u64 deadline_ns;
	__u32 table, priority;
	__u8 family, plen, protocol;
	__u8 dst[16];
};

/* FIB_SYNC's counters and state */
struct fib_sync {
	struct xfab_nl_filter filter;
	size_t events;		       /* route and nexthop messages read */
	size_t skipped;		       /* not mirrored: other table, protocol, type */
	size_t refused;		       /* malformed */
	size_t failed;		       /* the RIB refused (memory) */
	size_t resyncs;		       /* full dumps after lost events */
	size_t batches;		       /* writes of what a batch of events changed */
	size_t pending;		       /* changes applied since the last write */
	__u64 batch_ns;		       /* when the first of them was read; 0: none */
	__u64 lag_last_ns, lag_max_ns; /* read to written, per batch */
	int resync_due;		       /* a resync failed part way: again on the next tick */
	struct held_del *held;	       /* LOCAL_REPAIR: withdrawals held back */
	size_t n_held, cap_held;
	size_t held_total;	 /* withdrawals held so far */
	size_t brief_total;	 /* of them, held briefly (withdraw_hold_ms) */
	size_t restart_total;	 /* of them, for a restarted daemon (restart_hold_ms) */
	__u64 owner_seen_ns;	 /* when owner_start_ns was looked up; 0: never */
	int owner_protocol;	 /* ... for this protocol */
	__u64 owner_start_ns;	 /* when the routing daemon started (owner.c); 0: none */
	__u64 restart_logged_ns; /* the start whose hold was logged */
};

/* Link event damping (damping.c): a damper per port index of cfg. */
struct agent_damping {
	struct xfab_damp d[XFAB_MAX_PORTS];
	int held[XFAB_MAX_PORTS];	 /* the device is held dormant (suppressed) */
	long long downs[XFAB_MAX_PORTS]; /* the carrier losses counted so far; -1: unknown */
};

/* Drained ports (drain.c): out of every group and held dormant on request,
 * by port index of cfg. */
struct agent_drain {
	int on[XFAB_MAX_PORTS];
	char reason[XFAB_MAX_PORTS][XFAB_CTL_REASON_MAX + 1];
	long long since[XFAB_MAX_PORTS]; /* when drained, Unix seconds */
	__u64 total[XFAB_MAX_PORTS];	 /* drains so far (kept across restarts) */
	char path[300];			 /* the drains file; "": none */
};

struct agent {
	const char *cfg_path;
	struct xfab_cfg_source cfg_source; /* --format, --sonic-catalogue */
	const char *pin_root;
	const char *pidfile;
	const char *metrics;
	int nl_rcvbuf; /* --netlink-rcvbuf; 0: XFAB_NL_RCVBUF */
	char pin_dir[256];
	int lock_fd;
	int adopt;		/* a previous xfabd's data plane is running: take it over */
	int force;		/* --force: replace pins of another ABI */
	int keep;		/* on exit, leave the data plane running (--keep, restart) */
	int restart_due;	/* the restart request: exit keeping it, then exec again */
	int keep_signal;	/* USR2 (systemctl restart): exit keeping the data plane */
	__u32 bench_stop;	/* --bench-stop: enum xfab_bench_stop (0: a switch) */
	const char *bench_port; /* --bench-port: where the stopped pipeline sends */
	char **argv;		/* how xfabd was started (the restart request runs it again) */
	struct xfab_config cfg;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	int link_fd[XFAB_MAX_PORTS];	    /* bpf_link per port index of cfg; -1 = none */
	int egress_fd[XFAB_MAX_PORTS];	    /* tc datapath: the egress (queue) program */
	int handoff_fd[XFAB_MAX_PORTS];	    /* xdp datapath, lossless port: tc ingress */
	int old_prog_fd[XFAB_MAX_PORTS][3]; /* agent_attach_all: what adopted links ran */
	int shaped[XFAB_MAX_PORTS];	    /* tc datapath: xfabd installed the port's HTB */
	int admin_down[XFAB_MAX_PORTS];	    /* the kernel's IFF_UP is off (FIB_SYNC: handled) */
	__u64 down_ns[XFAB_MAX_PORTS];	    /* when the port last went oper down */
	struct xfab *skel;		    /* the maps, and the programs loaded with them */
	struct xfab *spec;		    /* a reload's programs over skel's maps; NULL: none */
	unsigned int code;		    /* the optional code the running programs carry */
	int code_all;			    /* --code all: every bit, whatever the config */
	int map_fd[XFAB_T_COUNT];
	struct xfab_rib *rib;	      /* what xfabd was told (config, TE pins) */
	struct xfab_compile *compile; /* RIB + live state -> the maps, incrementally */
	struct xfab_fib_hw fib4;      /* the mmapped IPv4 FIB */
	struct xfab_fib_hw fib6;      /* and the IPv6 one */
	struct batch batch;	      /* updates of one table, written together */
	struct mnl_socket *nl;
	struct xfab_nlsync *nlsync; /* FIB_SYNC: the kernel's routes, in the RIB */
	struct fib_sync fs;
	struct xfab_fib_status fib_pub;	     /* fs and the mirror's figures, for metrics */
	struct agent_damping damping;	     /* link event damping, per port */
	struct xfab_damping_pub damping_pub; /* its state, for metrics */
	struct agent_drain drain;	     /* drained ports */
	int dirty;	     /* an event could not be applied alone: recompile from the config */
	struct te_pin *pins; /* runtime TE pins, in the RIB as XFAB_RIB_SRC_TE_PIN */
	int n_pins;
	__u64 te_gen;	   /* the highest plan generation accepted (docs/CONTROL.md) */
	struct ctl *ctl;   /* the control socket; NULL: not open */
	int fd_port_stats; /* what clear-counters zeroes; -1: not loaded */
	int fd_queue_wm;   /* what clear-watermark resets; -1: not loaded */
};

/* ---- load.c ---- */
int agent_take_pin_dir(struct agent *a);
void agent_release_pin_dir(struct agent *a);
int agent_load_bpf(struct agent *a);
/* The skeleton whose programs the ports run: the last specialisation's
 * (spec.c), else the one that loaded the maps. Its XDP program is xfab_xdp,
 * or in a bench build (--bench-stop) xfab_xdp_bench, the pipeline with the
 * stage checks. */
struct xfab *agent_progs(const struct agent *a);
/* Pins the new maps and programs over the old ones (after agent_attach_all). */
int agent_publish_pins(struct agent *a);
/* Pins the running programs (agent_progs) over the old ones. */
int agent_publish_progs(struct agent *a);
/* The optional code (enum xfab_code) the data plane needs for cfg. */
unsigned int agent_code_for(const struct agent *a, const struct xfab_config *cfg);
/* Logs the code s's programs carry and their sizes. */
void agent_code_log(const struct agent *a, const struct xfab *s);
void agent_unload_bpf(struct agent *a);

/* ---- ports.c ---- */
int agent_resolve_ports(const struct xfab_config *cfg, struct xfab_port_live *live,
			const char *cfg_path);
int agent_port_of_ifindex(const struct agent *a, __u32 ifindex);
int agent_attach_all(struct agent *a);
void agent_detach_port(struct agent *a, int p);
/* Closes the links, which stay attached and pinned (exit with --keep). */
void agent_keep_ports(struct agent *a);
/* Reload: programs and queues that follow a port's queues and lossless
 * priorities. */
int agent_ports_reload_attach(struct agent *a, const struct xfab_config *next);
void agent_ports_reload_undo(struct agent *a, int n);
void agent_ports_reload_finish(struct agent *a, const struct xfab_config *old);
/* Every port's links run to's programs instead (spec.c), or none does. */
int agent_ports_repoint(struct agent *a, const struct xfab *to);

/* ---- spec.c ---- */
/* The ports run programs with exactly `code`, loaded over the same maps. */
int agent_code_switch(struct agent *a, unsigned int code);
/* Reload: before the tables change, the programs gain what next needs;
 * after (a->cfg is the new config), they lose what it no longer does. */
int agent_code_reload_begin(struct agent *a, const struct xfab_config *next);
void agent_code_reload_end(struct agent *a);
/* tc datapath: drops the tc egress guard of plain ports whose device the
 * data plane has seen (each second). */
void agent_ports_egress_refresh(struct agent *a);
/* The data plane has seen the device of port ifindex (port_dev). */
int agent_port_dev_noted(struct agent *a, __u32 ifindex);

/* ---- qdisc.c ---- */
/* Class 1:(tc + 1)'s `tc class replace ... htb` arguments on port: its
 * weight's share of the rate, the quantum that lends by weight. */
void agent_qdisc_class_args(const struct xfab_cfg_port *port, int tc, char *buf, size_t len);
int agent_shape_port(struct agent *a, int p);
int agent_unshape_port(struct agent *a, int p);

/* ---- sync.c ---- */
int agent_rebuild_and_apply(struct agent *a, const struct xfab_config *cfg);
void agent_compile_stop(struct agent *a);
void agent_on_link(void *arg, const struct xfab_nl_link *l);
void agent_on_neigh(void *arg, const struct xfab_nl_neigh *n);
void agent_probe_unresolved(struct agent *a);
/* Drops the egress guard of ports whose device the data plane has seen
 * (each second): xdp datapath, the DEVMAP program; tc datapath, the tc
 * egress program of a port that needs nothing else of it (ports.c). */
void agent_egress_guard_refresh(struct agent *a);
/* Ports whose damping suppression ended by now: back in use if up. */
void agent_damping_expire(struct agent *a);
/* Port p is up or down now: in or out of every group. */
void agent_port_set_up(struct agent *a, int p, int up);

/* ---- damping.c: link event damping (docs/OPERATIONS.md) ---- */
/* Fresh dampers for every port (after the ports are resolved), and the
 * holds a previous xfabd left released. */
void agent_damping_start(struct agent *a);
/* A link event of port p: the state xfabd acts on (the damper's; without
 * damping, the event's). Holds or releases the device. */
int agent_damping_link(struct agent *a, int p, const struct xfab_nl_link *l);
/* Time passed for port p: the advertised state (a reuse ends a hold). */
int agent_damping_tick(struct agent *a, int p, __u64 now_ns);
/* How long poll may wait for the next reuse (ms, -1: none pending). */
int agent_damping_timeout(const struct agent *a, __u64 now_ns);
/* Reload: the ports next keeps suppressed read down in live (before the
 * tables are built); then, once a->cfg is next, the dampers moved over. */
void agent_damping_reload_mask(const struct agent *a, const struct xfab_config *next,
			       struct xfab_port_live *live);
void agent_damping_reload_commit(struct agent *a, const struct xfab_config *old);
/* Exit: every hold released (no device stays dormant without xfabd). */
void agent_damping_stop(struct agent *a);
/* Copies the dampers to a->damping_pub (the metrics thread reads them). */
void agent_damping_publish(struct agent *a);
/* Holds port p's device dormant while it is suppressed or drained, and
 * releases it when neither. */
void agent_damping_hold(struct agent *a, int p);
/* The state xfabd acts on for port p, drain aside: its damper's, or
 * (damping off) the kernel's carrier and IFF_UP now. */
int agent_damping_state(struct agent *a, int p);

/* ---- drain.c: drained ports (docs/OPERATIONS.md, "Draining a port") ---- */
/* The drains a previous xfabd kept (its drains file), before the dampers
 * start and the tables are built: those ports start out of every group. */
void agent_drain_start(struct agent *a);
/* A stop that takes the data plane down forgets the drains (the file
 * goes); a restart that keeps it keeps them. */
void agent_drain_stop(struct agent *a);
/* Reload: the drains of ports next keeps (by name) read down in live; then,
 * once a->cfg is next, moved over (a port next drops loses its drain). */
void agent_drain_reload_mask(const struct agent *a, const struct xfab_config *next,
			     struct xfab_port_live *live);
void agent_drain_reload_commit(struct agent *a, const struct xfab_config *old);

/* ---- fibsync.c ---- */
/* Dumps and mirrors the kernel's routes (nothing without FIB_SYNC). */
int agent_fib_sync_start(struct agent *a);
void agent_on_route(void *arg, const struct nlmsghdr *nlh);
void agent_fib_sync_flush(struct agent *a);
int agent_fib_sync_resync(struct agent *a);
void agent_fib_sync_link_down(struct agent *a, __u32 ifindex);
/* Applies the withdrawals whose hold ran out; how long poll may wait for
 * the next (ms, -1: none held). */
int agent_fib_sync_expire(struct agent *a);
/* Copies the figures to a->fib_pub (the metrics thread reads them). */
void agent_fib_sync_publish(struct agent *a);

/* ---- owner.c: the routing daemon that owns a protocol's routes ---- */
/* Its program ("bgpd" for RTPROT_BGP), or NULL: none known. */
const char *agent_owner_name(int protocol);
/* When the youngest process running program name in network namespace
 * netns_ino (under proc, /proc's layout) started, in ns of CLOCK_BOOTTIME:
 * 0, or -1 if none runs. */
int agent_owner_start_in(const char *proc, const char *name, unsigned long long netns_ino,
			 unsigned long long *start_ns);
/* When protocol's daemon started in xfabd's namespace, in xfab_mono_ns'
 * time (now is that clock's now); 0: none runs here. */
__u64 agent_owner_start(int protocol, __u64 now);

/* ---- control.c: the socket ---- */
#define CTL_MAX_CONN 8	     /* clients served at once; more are told to retry */
#define CTL_DEADLINE_MS 5000 /* a connection's whole life */
/* Binds the switch's socket (replacing one a dead xfabd left); refuses
 * when a live xfabd answers on it. 0 or -errno. */
int agent_ctl_open(struct agent *a);
/* The same at path; agent_ctl_close removes path's empty directories up to root. */
int agent_ctl_open_at(struct agent *a, const char *path, const char *root);
/* How long a connection may live (tests). */
void agent_ctl_set_deadline(struct agent *a, int ms);
/* Closes every connection, removes the socket and its empty directories. */
void agent_ctl_close(struct agent *a);
/* The fds to poll (at most 1 + CTL_MAX_CONN), and how long poll may wait
 * (ms, -1: no deadline pending). */
int agent_ctl_pollfds(struct agent *a, struct pollfd *pfd, int max, int *timeout_ms);
/* After poll: accepts, reads, answers, and drops late connections. */
void agent_ctl_serve(struct agent *a, const struct pollfd *pfd, int n);

/* ---- requests.c ---- */
/* A request's handler writes the whole answer line into out and returns
 * its length; a checking handler only says 0 (answered ok) or -1 with the
 * field at fault and why (answered as a refusal). */
typedef int (*ctl_reply_fn)(struct agent *a, const struct xfab_ctl_req *r, char *out,
			    size_t outlen);
typedef int (*ctl_check_fn)(struct agent *a, const struct xfab_ctl_req *r, char *field, size_t flen,
			    char *msg, size_t mlen);
/* The port of cfg a request names in field, or a refusal in out (the
 * PORT table's names listed): 0 and *port, or the refusal's length. */
int agent_ctl_port(const struct agent *a, const char *name, const char *field, char *out,
		   size_t outlen, int *port);
/* A refusal in out: field at fault (or "") and why. */
int agent_ctl_refuse(char *out, size_t outlen, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Serves cmd with fn from now on (a part outside requests.c). 0, or -1 on
 * a command out of range. */
int agent_ctl_register_check(enum xfab_ctl_cmd cmd, ctl_check_fn fn);
/* The same for a handler that writes its own answer. */
int agent_ctl_register_reply(enum xfab_ctl_cmd cmd, ctl_reply_fn fn);
/* One request line (no newline) -> one response line in out (newline
 * included). Returns the response's length. Nothing changes on a refusal. */
int agent_ctl_handle(struct agent *a, const char *line, size_t len, char *out, size_t outlen);
/* Reload: the pins the next config keeps (each parsed against it; a pin
 * whose key the config now has is dropped, the config wins), and whether
 * the switch-over with them fits (xfab_config_check_change). 0, or -1 with
 * errs (file names the config) and nothing changed. */
int agent_pins_reload_check(struct agent *a, const struct xfab_config *next, const char *file,
			    struct te_pin **kept, int *n_kept, struct xfab_cfg_errors *errs);
/* Moves the RIB's pins to kept (taken over), before the recompile. */
void agent_pins_reload_commit(struct agent *a, struct te_pin *kept, int n_kept);
void agent_pins_free(struct te_pin *pins, int n);

#endif
