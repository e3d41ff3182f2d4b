// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The whole config: tables in order, then load and free. */
#include "internal.h"
#include "feature.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every table must be one a feature reads, and an object; in a SONiC file,
 * or one SONiC defines (checked against SONiC's catalogue). */
static void check_tables(struct ctx *c, const struct json_value *root)
{
	for (size_t i = 0; i < root->count; i++) {
		const struct json_value *t = &root->children[i];

		if (!xfab_feature_of_table(t->key)) {
			if (cfg_sonic_table(c, t))
				cfg_add_error(c, t->key_pos, t->key, "unknown table");
		} else if (t->type != JSON_OBJECT)
			cfg_add_error(c, t->pos, t->key, "a table must be an object, got %s",
				      xfab_json_type_name(t->type));
	}
}

/* Whether the document is SONiC's CONFIG_DB (sonic.c): asked, or, left to
 * the tables, one of them is not xfab's. Only SONiC's catalogue can tell
 * such a table from a typo, so it is loaded into c->sonic: an xfab file
 * with a mistyped table is refused all the same (the typo is no SONiC
 * table), and a file whose tables are all xfab's is held to xfab's fields. */
static void read_as(struct ctx *c, const struct json_value *root, const struct xfab_cfg_source *src)
{
	enum xfab_cfg_format fmt = src ? src->format : XFAB_CFG_AUTO;
	int foreign = 0;

	for (size_t i = 0; i < root->count; i++)
		foreign |= !xfab_feature_of_table(root->children[i].key);
	if (fmt == XFAB_CFG_XFAB || (fmt == XFAB_CFG_AUTO && !foreign))
		return;
	c->cfg->sonic = !cfg_sonic_open(c, src);
}

/* Each feature in registry order. Routes and neighbours resolve against
 * valid ports and interfaces only: a feature flagged NEEDS_L3 is skipped
 * when the L3 base (the features flagged L3_BASE) had errors. */
static void parse_features(struct ctx *c, const struct json_value *root)
{
	int l3_ok = 1;

	for (size_t f = 0; f < xfab_n_features; f++) {
		const struct xfab_feature *ft = xfab_features[f];

		if (!(ft->flags & XFAB_FEAT_NEEDS_L3) || l3_ok)
			ft->parse(c, root);
		if (ft->flags & XFAB_FEAT_L3_BASE)
			l3_ok = !c->errs->total;
	}
}

/* Validates a parsed document into out (parse errors are the caller's). */
static int config_from_json(const char *file, struct json_value *root,
			    const struct xfab_cfg_source *src, struct xfab_config *out,
			    struct xfab_cfg_errors *errs)
{
	struct xfab_config *cfg = calloc(1, sizeof(*cfg));
	struct ctx c = {.file = file, .errs = errs, .cfg = cfg, .last_route = -1, .root = root};

	if (!cfg) {
		cfg_add_error(&c, (struct json_pos){0, 0}, NULL, "out of memory");
		xfab_json_free(root);
		return -1;
	}
	if (root->type != JSON_OBJECT)
		cfg_add_error(&c, root->pos, NULL, "the config must be a JSON object of tables");
	else
		read_as(&c, root, src);
	if (root->type == JSON_OBJECT && !errs->total)
		check_tables(&c, root);
	if (!errs->total)
		parse_features(&c, root);
	if (!errs->total)
		cfg_check_capacity(&c);
	cfg_sonic_close(&c);
	xfab_json_free(root);
	if (errs->total) {
		xfab_config_free(cfg);
		free(cfg);
		return -1;
	}
	*out = *cfg;
	free(cfg);
	return 0;
}

int xfab_config_parse(const char *file, const char *text, struct xfab_config *out,
		      struct xfab_cfg_errors *errs)
{
	return xfab_config_parse_as(file, text, NULL, out, errs);
}

int xfab_config_parse_as(const char *file, const char *text, const struct xfab_cfg_source *src,
			 struct xfab_config *out, struct xfab_cfg_errors *errs)
{
	struct ctx c = {.file = file, .errs = errs};
	struct json_pos pos = {0, 0};
	struct json_value *root;
	char msg[256];

	errs->count = 0;
	errs->total = 0;
	root = xfab_json_parse(text, msg, sizeof(msg), &pos);
	if (!root) {
		cfg_add_error(&c, pos, NULL, "%s", msg);
		return -1;
	}
	if (config_from_json(file, root, src, out, errs))
		return -1;
	out->digest = xfab_config_digest(XFAB_CFG_DIGEST_INIT, text, strlen(text));
	return 0;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* The file, read in chunks as the JSON reader asks (its text is never
 * held whole: a full routing table is ~190 MB). Exactly the size fstat
 * gave is read; a NUL byte, a read error or a file that shrinks stop the
 * reading and, once the reading is over, are the file's one error. */
struct file_reader {
	int fd;
	size_t left;
	int nul, err; /* err: errno, or -1: the file shrank */
	__u64 digest; /* of what was read */
};

__u64 xfab_config_digest(__u64 h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static ssize_t file_read(void *arg, char *buf, size_t len)
{
	struct file_reader *r = arg;
	ssize_t n;

	if (r->nul || r->err)
		return -1;
	if (!r->left)
		return 0;
	if (len > r->left)
		len = r->left;
	do
		n = read(r->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		r->err = n < 0 ? errno : -1;
		return -1;
	}
	r->left -= (size_t)n;
	r->digest = xfab_config_digest(r->digest, buf, (size_t)n);
	if (memchr(buf, '\0', (size_t)n)) {
		r->nul = 1;
		return -1;
	}
	return n;
}

/* Only a regular file: a directory, a device (/dev/null, /dev/zero) or a
 * FIFO is refused before reading, so nothing blocks or reads forever. */
int xfab_config_load(const char *path, struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	return xfab_config_load_as(path, NULL, cfg, errs);
}

int xfab_config_load_as(const char *path, const struct xfab_cfg_source *src,
			struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	struct json_pos nowhere = {0, 0}, pos = {0, 0};
	struct ctx c = {.file = path, .errs = errs};
	struct file_reader r = {.fd = -1, .digest = XFAB_CFG_DIGEST_INIT};
	struct json_value *root;
	struct stat st;
	char msg[256];
	int ret;

	errs->count = 0;
	errs->total = 0;
	r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (r.fd < 0) {
		cfg_add_error(&c, nowhere, NULL, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(r.fd, &st)) {
		cfg_add_error(&c, nowhere, NULL, "cannot stat: %s", strerror(errno));
		close(r.fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cfg_add_error(&c, nowhere, NULL, "is %s, not a regular file: refused",
			      file_kind(st.st_mode));
		close(r.fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > XFAB_CONFIG_MAX_BYTES) {
		cfg_add_error(&c, nowhere, NULL, "larger than %u bytes", XFAB_CONFIG_MAX_BYTES);
		close(r.fd);
		return -1;
	}
	r.left = (size_t)st.st_size;
	root = xfab_json_parse_stream(file_read, &r, msg, sizeof(msg), &pos);
	if (!root) {
		char rest[4096];

		/* the whole file is read before its JSON error counts: a NUL
		 * byte or a short read further on is the error to report */
		while (file_read(&r, rest, sizeof(rest)) > 0)
			;
	}
	close(r.fd);
	if (r.nul || r.err) {
		xfab_json_free(root);
		if (r.nul)
			cfg_add_error(&c, nowhere, NULL, "the file holds a NUL byte");
		else
			cfg_add_error(&c, nowhere, NULL, "cannot read: %s",
				      r.err > 0 ? strerror(r.err) : "the file shrank while read");
		return -1;
	}
	if (!root) {
		cfg_add_error(&c, pos, NULL, "%s", msg);
		return -1;
	}
	ret = config_from_json(path, root, src, cfg, errs);
	if (!ret)
		cfg->digest = r.digest;
	/* Reading a full table freed a hundred MB in blocks of every size;
	 * what the heap keeps of it free goes back now, before the tables
	 * are built (xfabd's peak: ~40 MB less with a million routes). */
	malloc_trim(0);
	return ret;
}

void xfab_config_free(struct xfab_config *cfg)
{
	for (int i = 0; i < cfg->n_routes; i++) {
		if (cfg->routes[i].shared)
			continue;
		free(cfg->routes[i].nexthops);
		free(cfg->routes[i].weights);
	}
	for (int i = 0; i < cfg->n_te; i++) {
		free(cfg->te[i].path.nexthops);
		free(cfg->te[i].path.weights);
	}
	free(cfg->repair.nexthops);
	cfg->repair.nexthops = NULL;
	cfg->repair.n_nexthops = 0;
	for (int i = 0; i < cfg->n_vnet_routes; i++) {
		free(cfg->vnet_routes[i].rt.nexthops);
		free(cfg->vnet_routes[i].rt.weights);
	}
	free(cfg->vnet_routes);
	free(cfg->tunnels);
	cfg->vnet_routes = NULL;
	cfg->tunnels = NULL;
	cfg->n_vnet_routes = cfg->n_tunnels = 0;
	for (int i = 0; i < cfg->n_ignored; i++)
		free(cfg->ignored[i]);
	free(cfg->ignored);
	cfg->ignored = NULL;
	cfg->n_ignored = 0;
	free(cfg->addrs);
	free(cfg->routes);
	free(cfg->neighs);
	free(cfg->te);
	cfg->te = NULL;
	cfg->n_te = 0;
	cfg->addrs = NULL;
	cfg->routes = NULL;
	cfg->neighs = NULL;
	cfg->n_addrs = cfg->n_routes = cfg->n_neighs = 0;
}
