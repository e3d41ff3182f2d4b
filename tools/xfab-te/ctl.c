// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: the switches' control sockets: requests and the pins they hold. */
#include "te_tool.h"

void te_ctl_close(struct sw_rt *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* One request line to the switch's xfabd, its answer line into resp; a
 * connection xfabd closed (its 5 s per connection) is opened again once.
 * 0, or -1 with why in err. */
static int exchange(struct ctx *c, int sw, const char *line, char *resp, size_t rlen, char *err,
		    size_t errlen)
{
	struct sw_rt *s = &c->sw[sw];
	const char *path = c->f->sw[sw].ctl;

	if (!path[0]) {
		snprintf(err, errlen, "no control socket in the fabric file");
		return -1;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		enum xfab_ctl_xfer x;

		if (s->fd < 0) {
			s->fd = xfab_ctl_connect(path);
			if (s->fd < 0) {
				snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
					 errno == ENOENT || errno == ECONNREFUSED
					     ? " (xfabd is not running)"
					     : "");
				return -1;
			}
		}
		x = xfab_ctl_exchange(s->fd, line, strlen(line), resp, rlen, REPLY_MS);
		if (x == XFAB_CTL_XFER_OK)
			return 0;
		te_ctl_close(s);
		if (x == XFAB_CTL_XFER_TIMEOUT) {
			snprintf(err, errlen, "%s: no answer within %d ms", path, REPLY_MS);
			return -1;
		}
		if (x == XFAB_CTL_XFER_LONG) {
			snprintf(err, errlen, "%s: an answer longer than a line", path);
			return -1;
		}
		/* closed: opened again, once */
	}
	snprintf(err, errlen, "%s: xfabd closed the connection without an answer", path);
	return -1;
}

/* A request and xfabd's verdict: 1 accepted, 0 refused (field, error
 * filled), -1 no answer (error filled). */
int te_request(struct ctx *c, int sw, const struct xfab_ctl_req *req, char *resp, size_t rlen,
	       char *field, size_t flen, char *error, size_t elen)
{
	char line[XFAB_CTL_MAX_LINE + 1];
	int n = xfab_ctl_format_request(req, line, sizeof(line)), ok;

	field[0] = '\0';
	if (n < 0) {
		snprintf(error, elen, "a request longer than %d bytes", XFAB_CTL_MAX_LINE);
		return 0;
	}
	if (exchange(c, sw, line, resp, rlen, error, elen))
		return -1;
	if (xfab_ctl_parse_response(resp, &ok, error, elen, field, flen)) {
		snprintf(error, elen, "xfabd's answer is not a response: %.100s", resp);
		te_ctl_close(&c->sw[sw]);
		return -1;
	}
	return ok ? 1 : 0;
}

/* The switch's generation, TE state and runtime pins (te-list, every
 * page); pins may be NULL (the first page only). 0, or -1 with err. */
int te_fetch(struct ctx *c, int sw, uint64_t *gen, int *te_on, struct listed **pins, size_t *n_pins,
	     char *err, size_t errlen)
{
	char resp[XFAB_CTL_MAX_LINE + 1], field[32];
	unsigned from = 0;

	if (pins) {
		*pins = NULL;
		*n_pins = 0;
	}
	for (int page = 0; page < 1 << 20; page++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_LIST};
		struct json_pos pos;
		char jerr[128];
		struct json_value *root;
		const struct json_value *g, *t, *list, *next;
		int rc;

		r.from_index = from;
		snprintf(r.from, sizeof(r.from), "%u", from);
		rc = te_request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), err, errlen);
		if (rc <= 0) {
			if (rc == 0 && !strcmp(field, "cmd"))
				snprintf(err, errlen, "this xfabd knows no te-list: upgrade it");
			goto fail;
		}
		root = xfab_json_parse(resp, jerr, sizeof(jerr), &pos);
		g = root ? xfab_json_get(root, "generation") : NULL;
		t = root ? xfab_json_get(root, "te") : NULL;
		list = root ? xfab_json_get(root, "pins") : NULL;
		next = root ? xfab_json_get(root, "next") : NULL;
		if (!g || g->type != JSON_NUMBER || !t || t->type != JSON_BOOL || !list ||
		    list->type != JSON_ARRAY) {
			snprintf(err, errlen, "te-list: an answer without its fields");
			xfab_json_free(root);
			goto fail;
		}
		*gen = strtoull(g->str, NULL, 10);
		*te_on = t->boolean;
		for (unsigned i = 0; pins && i < list->count; i++) {
			const struct json_value *e = &list->children[i],
						*in = xfab_json_get(e, "in"),
						*pfx = xfab_json_get(e, "prefix"),
						*via = xfab_json_get(e, "via"),
						*pg = xfab_json_get(e, "gen");
			struct listed *grown = realloc(*pins, (*n_pins + 1) * sizeof(**pins));

			if (!grown || !in || !pfx || !via || !pg) {
				if (grown)
					*pins = grown;
				snprintf(err, errlen, "te-list: a pin without its fields");
				xfab_json_free(root);
				goto fail;
			}
			*pins = grown;
			snprintf(grown[*n_pins].in, sizeof(grown->in), "%s", in->str);
			snprintf(grown[*n_pins].prefix, sizeof(grown->prefix), "%s", pfx->str);
			snprintf(grown[*n_pins].via, sizeof(grown->via), "%s", via->str);
			grown[*n_pins].gen = strtoull(pg->str, NULL, 10);
			(*n_pins)++;
		}
		if (!pins || !next || next->type != JSON_NUMBER) {
			xfab_json_free(root);
			return 0;
		}
		from = (unsigned)strtoul(next->str, NULL, 10);
		xfab_json_free(root);
	}
	snprintf(err, errlen, "te-list: no last page");
fail:
	if (pins) {
		free(*pins);
		*pins = NULL;
		*n_pins = 0;
	}
	return -1;
}
