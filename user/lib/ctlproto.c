// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control protocol's requests and responses (docs/CONTROL.md). */
#include "ctlproto.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "json.h"
#include "jsonw.h"

static const struct {
	const char *name;
	const char *const fields[6]; /* besides "cmd" */
	int required;		     /* how many of fields must be there */
} cmds[XFAB_CTL_N_CMDS] = {
    [XFAB_CTL_PING] = {"ping", {NULL}, 0},
    [XFAB_CTL_TE_ADD] = {"te-add", {"in", "prefix", "via", "gen", NULL}, 3},
    [XFAB_CTL_TE_DEL] = {"te-del", {"in", "prefix", "gen", NULL}, 2},
    [XFAB_CTL_TE_CLEAR] = {"te-clear", {"gen", NULL}, 0},
    [XFAB_CTL_CLEAR_WATERMARK] = {"clear-watermark", {NULL}, 0},
    [XFAB_CTL_CLEAR_COUNTERS] = {"clear-counters", {NULL}, 0},
    [XFAB_CTL_FIB_STATUS] = {"fib-status", {NULL}, 0},
    [XFAB_CTL_RESTART] = {"restart", {NULL}, 0},
    [XFAB_CTL_PFCWD_START] = {"pfcwd-start",
			      {"ports", "detection_time", "action", "restoration_time", NULL},
			      2},
    [XFAB_CTL_PFCWD_STOP] = {"pfcwd-stop", {"ports", NULL}, 0},
    [XFAB_CTL_PFCWD_INTERVAL] = {"pfcwd-interval", {"poll_interval", NULL}, 1},
    [XFAB_CTL_TE_SWEEP] = {"te-sweep", {"gen", NULL}, 1},
    [XFAB_CTL_TE_LIST] = {"te-list", {"from", NULL}, 0},
    [XFAB_CTL_DAMPING_STATUS] = {"damping-status", {"from", NULL}, 0},
    [XFAB_CTL_PORT_DRAIN] = {"port-drain", {"port", "reason", NULL}, 1},
    [XFAB_CTL_PORT_UNDRAIN] = {"port-undrain", {"port", NULL}, 1},
    [XFAB_CTL_CONFIG_INFO] = {"config-info", {NULL}, 0},
};

/* A request's string field by name (NULL: no such field). */
static char *field_of(struct xfab_ctl_req *r, const char *name)
{
	if (!strcmp(name, "in"))
		return r->in;
	if (!strcmp(name, "prefix"))
		return r->prefix;
	if (!strcmp(name, "via"))
		return r->via;
	if (!strcmp(name, "ports"))
		return r->ports;
	if (!strcmp(name, "action"))
		return r->action;
	if (!strcmp(name, "detection_time"))
		return r->detection;
	if (!strcmp(name, "restoration_time"))
		return r->restoration;
	if (!strcmp(name, "poll_interval"))
		return r->poll;
	if (!strcmp(name, "gen"))
		return r->gen;
	if (!strcmp(name, "from"))
		return r->from;
	if (!strcmp(name, "port"))
		return r->port;
	if (!strcmp(name, "reason"))
		return r->reason;
	return NULL;
}

static size_t field_size(const char *name)
{
	struct xfab_ctl_req r;

	return !strcmp(name, "in")		   ? sizeof(r.in)
	       : !strcmp(name, "prefix")	   ? sizeof(r.prefix)
	       : !strcmp(name, "via")		   ? sizeof(r.via)
	       : !strcmp(name, "ports")		   ? sizeof(r.ports)
	       : !strcmp(name, "action")	   ? sizeof(r.action)
	       : !strcmp(name, "detection_time")   ? sizeof(r.detection)
	       : !strcmp(name, "restoration_time") ? sizeof(r.restoration)
	       : !strcmp(name, "gen")		   ? sizeof(r.gen)
	       : !strcmp(name, "from")		   ? sizeof(r.from)
	       : !strcmp(name, "port")		   ? sizeof(r.port)
	       : !strcmp(name, "reason")	   ? sizeof(r.reason)
						   : sizeof(r.poll);
}

const char *xfab_ctl_cmd_name(enum xfab_ctl_cmd cmd)
{
	return (unsigned)cmd < XFAB_CTL_N_CMDS ? cmds[cmd].name : "?";
}

static int fail(struct xfab_ctl_err *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct xfab_ctl_err *err, const char *field, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->field, sizeof(err->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int host_bits_set(const struct xfab_prefix *p)
{
	int bytes = p->family == AF_INET ? 4 : 16;

	for (int i = 0; i < bytes; i++) {
		int keep = p->plen - i * 8;
		__u8 mask = keep >= 8 ? 0xff : keep <= 0 ? 0 : (__u8)(0xff << (8 - keep));

		if (p->addr[i] & ~mask)
			return 1;
	}
	return 0;
}

/* A port name in field (in, port): a Linux interface name. */
static int check_ifname_in(const char *s, const char *field, struct xfab_ctl_err *err)
{
	size_t n = strlen(s);

	if (n == 0 || n >= XFAB_IFNAMSIZ)
		return fail(err, field, "a port name is 1 to %d characters", XFAB_IFNAMSIZ - 1);
	for (const char *c = s; *c; c++)
		if (*c <= ' ' || *c == '/' || *c == ':' || *c == 0x7f)
			return fail(err, field, "\"%s\" is not a port name", s);
	return 0;
}

static int check_ifname(const char *s, struct xfab_ctl_err *err)
{
	return check_ifname_in(s, "in", err);
}

static int check_via(const char *s, int family, struct xfab_ctl_err *err)
{
	char copy[sizeof(((struct xfab_ctl_req *)0)->via)], *tok, *save = NULL;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", s);
	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,"))
		return fail(err, "via", "expected GW[,GW...] with no empty item");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		__u8 gw[16];

		if (++n > XFAB_GROUP_MAX_MEMBERS)
			return fail(err, "via", "more than %d gateways", XFAB_GROUP_MAX_MEMBERS);
		if (inet_pton(family, tok, gw) != 1)
			return fail(err, "via", "'%s' is not an %s address", tok,
				    family == AF_INET ? "IPv4" : "IPv6");
	}
	return 0;
}

/* A decimal number of milliseconds within [lo, hi]. */
static int check_ms(const char *s, const char *field, __u32 lo, __u32 hi, struct xfab_ctl_err *err)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '9')
		return fail(err, field, "expected milliseconds, %u..%u", lo, hi);
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return fail(err, field, "\"%.32s\" is not %u..%u (milliseconds)", s, lo, hi);
	return 0;
}

/* The watchdog requests' fields (SONiC's ranges, pfcwd/main.py). */
static int check_pfcwd(const struct json_value *root, struct xfab_ctl_req *r,
		       struct xfab_ctl_err *err)
{
	static const char *const names[] = {"ports", "action", "detection_time", "restoration_time",
					    "poll_interval"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct json_value *f = xfab_json_get(root, names[i]);

		if (!f)
			continue;
		if (strlen(f->str) >= field_size(names[i]))
			return fail(err, names[i], "too long");
		snprintf(field_of(r, names[i]), field_size(names[i]), "%s", f->str);
	}
	if (xfab_json_get(root, "ports")) {
		char copy[sizeof(r->ports)], *tok, *save = NULL;

		snprintf(copy, sizeof(copy), "%s", r->ports);
		if (!*copy || copy[strlen(copy) - 1] == ',' || *copy == ',' || strstr(copy, ",,"))
			return fail(err, "ports", "expected all or PORT[,PORT...]");
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, "all") && check_ifname(tok, err)) {
				snprintf(err->field, sizeof(err->field), "ports");
				return -1;
			}
	}
	if (*r->action && strcmp(r->action, "drop") && strcmp(r->action, "forward") &&
	    strcmp(r->action, "alert"))
		return fail(err, "action", "\"%.16s\" is not drop, forward or alert", r->action);
	if (*r->detection && check_ms(r->detection, "detection_time", 100, 5000, err))
		return -1;
	if (*r->restoration && check_ms(r->restoration, "restoration_time", 100, 60000, err))
		return -1;
	if (*r->poll && check_ms(r->poll, "poll_interval", 100, 1000, err))
		return -1;
	return 0;
}

/* The request line as a JSON object; NULL: refused (err says why). */
static struct json_value *request_object(const char *line, size_t len, struct xfab_ctl_err *err)
{
	struct json_value *root;
	struct json_pos pos;
	char jerr[128], *text;

	if (len >= XFAB_CTL_MAX_LINE) {
		fail(err, "", "request longer than %d bytes", XFAB_CTL_MAX_LINE - 1);
		return NULL;
	}
	if (memchr(line, '\0', len)) {
		fail(err, "", "request holds a NUL byte");
		return NULL;
	}
	text = strndup(line, len);
	if (!text) {
		fail(err, "", "out of memory");
		return NULL;
	}
	root = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	free(text);
	if (!root) {
		fail(err, "", "bad JSON at column %d: %s", pos.col, jerr);
		return NULL;
	}
	if (root->type != JSON_OBJECT) {
		fail(err, "", "a request is one JSON object");
		xfab_json_free(root);
		return NULL;
	}
	return root;
}

/* The command root names; -1: none, or one not in cmds. */
static int request_cmd(const struct json_value *root, struct xfab_ctl_err *err)
{
	const struct json_value *f = xfab_json_get(root, "cmd");
	int cmd = -1;

	if (!f || f->type != JSON_STRING) {
		fail(err, "cmd", f ? "\"cmd\" must be a string" : "missing field \"cmd\"");
		return -1;
	}
	for (int i = 0; i < XFAB_CTL_N_CMDS; i++)
		if (!strcmp(f->str, cmds[i].name))
			cmd = i;
	if (cmd < 0)
		fail(err, "cmd",
		     "unknown command \"%.64s\" (ping, te-add, te-del, te-clear, "
		     "clear-watermark, clear-counters, fib-status, restart, pfcwd-start, "
		     "pfcwd-stop, pfcwd-interval, te-sweep, te-list, damping-status, "
		     "port-drain, port-undrain, config-info)",
		     f->str);
	return cmd;
}

/* Every field one of cmd's and a string, the required ones there. */
static int check_shape(const struct json_value *root, int cmd, struct xfab_ctl_err *err)
{
	for (size_t i = 0; i < root->count; i++) {
		const struct json_value *m = &root->children[i];
		int known = !strcmp(m->key, "cmd");

		for (int k = 0; !known && cmds[cmd].fields[k]; k++)
			known = !strcmp(m->key, cmds[cmd].fields[k]);
		if (!known) {
			fail(err, "", "unknown field \"%.64s\" for %s", m->key, cmds[cmd].name);
			snprintf(err->field, sizeof(err->field), "%s", m->key);
			return -1;
		}
		if (m->type != JSON_STRING) {
			fail(err, "", "must be a string");
			snprintf(err->field, sizeof(err->field), "%s", m->key);
			return -1;
		}
	}
	for (int k = 0; k < cmds[cmd].required; k++) {
		const char *name = cmds[cmd].fields[k];

		if (!xfab_json_get(root, name))
			return fail(err, name, "missing field \"%s\"", name);
	}
	return 0;
}

/* The TE pin's fields: "in", "prefix" and "via" (checked against the
 * prefix's family). */
static int read_pin(const struct json_value *root, struct xfab_ctl_req *r, struct xfab_ctl_err *err)
{
	const struct json_value *f;
	char why[128];

	if ((f = xfab_json_get(root, "in"))) {
		if (check_ifname(f->str, err))
			return -1;
		snprintf(r->in, sizeof(r->in), "%s", f->str);
	}
	if ((f = xfab_json_get(root, "prefix"))) {
		if (strlen(f->str) >= sizeof(r->prefix) ||
		    xfab_parse_prefix(f->str, &r->pfx, why, sizeof(why)))
			return fail(err, "prefix", "%s",
				    strlen(f->str) >= sizeof(r->prefix) ? "too long" : why);
		if (host_bits_set(&r->pfx))
			return fail(err, "prefix", "host bits set past /%d", r->pfx.plen);
		snprintf(r->prefix, sizeof(r->prefix), "%s", f->str);
	}
	if ((f = xfab_json_get(root, "via"))) {
		if (strlen(f->str) >= sizeof(r->via))
			return fail(err, "via", "too long");
		if (check_via(f->str, r->pfx.family, err))
			return -1;
		snprintf(r->via, sizeof(r->via), "%s", f->str);
	}
	return 0;
}

/* The TE plan's fields: "gen" (a generation) and "from" (a pin index). */
static int read_plan(const struct json_value *root, struct xfab_ctl_req *r,
		     struct xfab_ctl_err *err)
{
	const struct json_value *f;

	if ((f = xfab_json_get(root, "gen"))) {
		if (strlen(f->str) >= sizeof(r->gen) || xfab_ctl_parse_gen(f->str, &r->generation))
			return fail(err, "gen", "\"%.32s\" is not a generation (1..%llu)", f->str,
				    (unsigned long long)UINT64_MAX);
		snprintf(r->gen, sizeof(r->gen), "%s", f->str);
	}
	if ((f = xfab_json_get(root, "from"))) {
		char *end;
		unsigned long long v;

		v = strtoull(f->str, &end, 10);
		if (*f->str < '0' || *f->str > '9' || *end || v > UINT32_MAX ||
		    strlen(f->str) >= sizeof(r->from))
			return fail(err, "from", "\"%.32s\" is not a pin index (0..%u)", f->str,
				    UINT32_MAX);
		r->from_index = (uint32_t)v;
		snprintf(r->from, sizeof(r->from), "%s", f->str);
	}
	return 0;
}

/* port-drain's fields: "port" (a port name) and "reason" (printable ASCII,
 * at most XFAB_CTL_REASON_MAX bytes: a column of show interfaces status and
 * a line of xfabd's drains file). */
static int read_drain(const struct json_value *root, struct xfab_ctl_req *r,
		      struct xfab_ctl_err *err)
{
	const struct json_value *f;

	if ((f = xfab_json_get(root, "port"))) {
		if (check_ifname_in(f->str, "port", err))
			return -1;
		snprintf(r->port, sizeof(r->port), "%s", f->str);
	}
	if ((f = xfab_json_get(root, "reason"))) {
		if (strlen(f->str) > XFAB_CTL_REASON_MAX)
			return fail(err, "reason", "at most %d characters (%zu given)",
				    XFAB_CTL_REASON_MAX, strlen(f->str));
		for (const char *c = f->str; *c; c++)
			if ((unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f)
				return fail(err, "reason",
					    "printable ASCII only (a control or non-ASCII byte "
					    "at %zu)",
					    (size_t)(c - f->str));
		snprintf(r->reason, sizeof(r->reason), "%s", f->str);
	}
	return 0;
}

int xfab_ctl_parse_request(const char *line, size_t len, struct xfab_ctl_req *req,
			   struct xfab_ctl_err *err)
{
	struct xfab_ctl_req r;
	struct json_value *root;
	int ret = -1, cmd;

	memset(&r, 0, sizeof(r));
	memset(err, 0, sizeof(*err));
	root = request_object(line, len, err);
	if (!root)
		return -1;
	cmd = request_cmd(root, err);
	if (cmd < 0)
		goto out;
	r.cmd = (enum xfab_ctl_cmd)cmd;
	/* the fields in the order a client's mistakes are reported */
	if (check_shape(root, cmd, err) || read_pin(root, &r, err) || check_pfcwd(root, &r, err) ||
	    read_plan(root, &r, err) || read_drain(root, &r, err))
		goto out;
	*req = r;
	ret = 0;
out:
	xfab_json_free(root);
	return ret;
}

int xfab_ctl_parse_gen(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!s[0] || s[0] == '0')
		return -1;
	for (i = 0; s[i]; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || i >= 20 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int xfab_ctl_json_string(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3)
		return -1;
	buf[o++] = '"';
	for (; *s; s++) {
		char esc[8];
		size_t n = xfab_jw_escape((unsigned char)*s, esc);

		if (o + n + 1 >= len) /* room for the closing quote and the NUL */
			return -1;
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return (int)o;
}

/* Appends ,"key":"value" (or the first member when first). */
static int put_member(char *buf, size_t len, size_t *o, const char *key, const char *val)
{
	int n = snprintf(buf + *o, len - *o, "%s\"%s\":", *o > 1 ? "," : "", key);

	if (n < 0 || (size_t)n >= len - *o)
		return -1;
	*o += (size_t)n;
	n = xfab_ctl_json_string(buf + *o, len - *o, val);
	if (n < 0)
		return -1;
	*o += (size_t)n;
	return 0;
}

int xfab_ctl_format_request(const struct xfab_ctl_req *req, char *buf, size_t len)
{
	size_t o = 1;

	if ((unsigned)req->cmd >= XFAB_CTL_N_CMDS || len < 4)
		return -1;
	buf[0] = '{';
	if (put_member(buf, len, &o, "cmd", cmds[req->cmd].name))
		return -1;
	for (int k = 0; cmds[req->cmd].fields[k]; k++) {
		const char *name = cmds[req->cmd].fields[k];
		const char *val = field_of((struct xfab_ctl_req *)req, name);

		if (k >= cmds[req->cmd].required && !*val)
			continue; /* an optional field left out */
		if (put_member(buf, len, &o, name, val))
			return -1;
	}
	if (o + 3 > len)
		return -1;
	buf[o++] = '}';
	buf[o++] = '\n';
	buf[o] = '\0';
	return (int)o;
}

int xfab_ctl_format_error(char *buf, size_t len, const char *field, const char *msg)
{
	size_t o;
	int n = snprintf(buf, len, "{\"ok\":false");

	if (n < 0 || (size_t)n >= len)
		return -1;
	o = (size_t)n;
	if (put_member(buf, len, &o, "error", msg))
		return -1;
	if (field && *field && put_member(buf, len, &o, "field", field))
		return -1;
	if (o + 3 > len)
		return -1;
	buf[o++] = '}';
	buf[o++] = '\n';
	buf[o] = '\0';
	return (int)o;
}

int xfab_ctl_parse_response(const char *line, int *ok, char *error, size_t errlen, char *field,
			    size_t fieldlen)
{
	struct json_pos pos;
	char jerr[128];
	struct json_value *root = xfab_json_parse(line, jerr, sizeof(jerr), &pos);
	const struct json_value *f;
	int ret = -1;

	if (errlen)
		error[0] = '\0';
	if (fieldlen)
		field[0] = '\0';
	if (!root)
		return -1;
	f = xfab_json_get(root, "ok");
	if (root->type == JSON_OBJECT && f && f->type == JSON_BOOL) {
		*ok = f->boolean;
		if ((f = xfab_json_get(root, "error")) && f->type == JSON_STRING)
			snprintf(error, errlen, "%s", f->str);
		if ((f = xfab_json_get(root, "field")) && f->type == JSON_STRING)
			snprintf(field, fieldlen, "%s", f->str);
		ret = 0;
	}
	xfab_json_free(root);
	return ret;
}

int xfab_ctl_socket_path(const char *pin_dir, char *out, size_t len)
{
	static const char *const roots[] = {XFAB_PIN_ROOT, "/sys/fs/bpf", NULL};
	const char *rest = pin_dir;
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);
	int n;

	for (int i = 0; roots[i]; i++) {
		size_t rl = strlen(roots[i]);

		if (!strncmp(pin_dir, roots[i], rl) && pin_dir[rl] == '/') {
			rest = pin_dir + rl;
			break;
		}
	}
	while (rest[0] == '/' && rest[1] == '/')
		rest++;
	n = snprintf(out, len, "%s%s%s.sock", XFAB_CTL_RUN_ROOT, rest[0] == '/' ? "" : "/", rest);
	if (n < 0 || (size_t)n >= len || (size_t)n >= max)
		return -1;
	return 0;
}
