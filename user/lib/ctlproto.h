/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The control protocol between xfabctl and xfabd (docs/CONTROL.md): one
 * JSON object per line each way over the switch's unix socket. xfabd is
 * the only writer of the tables; every change goes through here.
 *
 *   {"cmd":"te-add","in":"eth3","prefix":"10.4.2.0/24","via":"10.254.2.0"}
 *   -> {"ok":true}  or  {"ok":false,"error":"...","field":"via"}
 */
#ifndef XFAB_CTLPROTO_H
#define XFAB_CTLPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define XFAB_CTL_MAX_LINE 4096 /* a request or response, newline included */
#define XFAB_CTL_RUN_ROOT "/run/xfab"
#define XFAB_CTL_REASON_MAX 64 /* port-drain's reason, bytes */

enum xfab_ctl_cmd {
	XFAB_CTL_PING,
	XFAB_CTL_TE_ADD,
	XFAB_CTL_TE_DEL,
	XFAB_CTL_TE_CLEAR,
	XFAB_CTL_CLEAR_WATERMARK,
	XFAB_CTL_CLEAR_COUNTERS,
	XFAB_CTL_FIB_STATUS,	 /* answer: {"ok":true,"fib_sync":{...}} */
	XFAB_CTL_RESTART,	 /* xfabd runs itself again; the data plane keeps forwarding */
	XFAB_CTL_PFCWD_START,	 /* the PFC watchdog on ports (SONiC's `pfcwd start`) */
	XFAB_CTL_PFCWD_STOP,	 /* ... off */
	XFAB_CTL_PFCWD_INTERVAL, /* its poll interval */
	XFAB_CTL_TE_SWEEP,	 /* removes the runtime pins of generations below gen */
	XFAB_CTL_TE_LIST,	 /* answer: the runtime pins and generations, a page */
	XFAB_CTL_DAMPING_STATUS, /* answer: link event damping per port, a page */
	XFAB_CTL_PORT_DRAIN,	 /* a port out of every group, held (docs/OPERATIONS.md) */
	XFAB_CTL_PORT_UNDRAIN,	 /* ... back */
	XFAB_CTL_CONFIG_INFO,	 /* answer: the config file xfabd runs, its digest and format */
	XFAB_CTL_N_CMDS,
};

struct xfab_ctl_req {
	enum xfab_ctl_cmd cmd;
	char in[XFAB_IFNAMSIZ]; /* te-add, te-del: ingress port */
	char prefix[64];	/* te-add, te-del: destination prefix, as sent */
	char via[1024];		/* te-add: "GW[,GW...]", as sent */
	struct xfab_prefix pfx; /* prefix, parsed */
	/* pfcwd-*: as sent, checked; ports "all" or "PORT[,PORT...]" */
	char ports[512];
	char action[16];      /* drop, forward, alert; "" = drop */
	char detection[16];   /* ms, 100..5000 */
	char restoration[16]; /* ms, 100..60000; "" = twice the detection time */
	char poll[16];	      /* ms, 100..1000 */
	/* te-add, te-del, te-clear (optional), te-sweep: the plan's
	 * generation, as sent and parsed (1..2^64-1; 0: not given) */
	char gen[24];
	uint64_t generation;
	/* te-list: the first pin of the page, as sent and parsed (0 if absent) */
	char from[16];
	uint32_t from_index;
	/* port-drain, port-undrain: the port; port-drain: why (optional,
	 * printable, at most XFAB_CTL_REASON_MAX bytes) */
	char port[XFAB_IFNAMSIZ];
	char reason[XFAB_CTL_REASON_MAX + 1];
};

struct xfab_ctl_err {
	char field[32]; /* the request field at fault; "" for the request as a whole */
	char msg[256];
};

const char *xfab_ctl_cmd_name(enum xfab_ctl_cmd cmd);

/* Parses and checks one request line (len bytes, no newline needed).
 * Returns 0, or -1 with err saying which field and why. */
int xfab_ctl_parse_request(const char *line, size_t len, struct xfab_ctl_req *req,
			   struct xfab_ctl_err *err);
/* One request line, newline included; the length or -1 when it does not fit. */
int xfab_ctl_format_request(const struct xfab_ctl_req *req, char *buf, size_t len);
/* {"ok":false,"error":MSG[,"field":FIELD]}\n */
int xfab_ctl_format_error(char *buf, size_t len, const char *field, const char *msg);
/* A JSON string literal of s (quotes included) at buf; -1 when it does not fit. */
int xfab_ctl_json_string(char *buf, size_t len, const char *s);

/* A generation: decimal, 1..2^64-1, no sign or leading zero. 0 or -1. */
int xfab_ctl_parse_gen(const char *s, uint64_t *out);

/* A response line: ok, and for a refusal its error and field. */
int xfab_ctl_parse_response(const char *line, int *ok, char *error, size_t errlen, char *field,
			    size_t fieldlen);

/* The control socket of the switch whose pins are in pin_dir:
 * XFAB_CTL_RUN_ROOT/<pin_dir below XFAB_PIN_ROOT (or bpffs)>.sock */
int xfab_ctl_socket_path(const char *pin_dir, char *out, size_t len);

#endif
