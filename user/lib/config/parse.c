// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The whole config: tables in order, then load and free. */
#include "internal.h"

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

/* ACL: "ACL_TABLE", "ACL_RULE" (config/acl.c) */
static const char *const known_tables[] = {
    "DEVICE_METADATA", "PORT",	       "INTERFACE",
    "ROUTE",	       "NEIGH",	       "ECMP",
    "FLOWLET",	       "TE_PATH",      "DSCP_TO_TC_MAP",
    "WRED_PROFILE",    "QUEUE",	       "FIB_SYNC",
    "LOCAL_REPAIR",    "PORT_QOS_MAP", "CABLE_LENGTH",
    "BUFFER_PROFILE",  "BUFFER_PG",    "PFC_WD",
    "VXLAN_TUNNEL",    "VNET",	       "VNET_ROUTE_TUNNEL",
    "VNET_ROUTE",      "COPP_TABLE",   "ACL_TABLE",
    "ACL_RULE",	       NULL,
};

/* Validates a parsed document into out (parse errors are the caller's). */
static int config_from_json(const char *file, struct json_value *root, struct xfab_config *out,
			    struct xfab_cfg_errors *errs)
{
	struct xfab_config *cfg = calloc(1, sizeof(*cfg));
	struct ctx c = {.file = file, .errs = errs, .cfg = cfg, .last_route = -1};
	const struct json_value *tbl;
	int l3_ok;

	if (!cfg) {
		cfg_add_error(&c, (struct json_pos){0, 0}, NULL, "out of memory");
		json_free(root);
		return -1;
	}
	if (root->type != JSON_OBJECT) {
		cfg_add_error(&c, root->pos, NULL, "the config must be a JSON object of tables");
		goto done;
	}
	for (size_t i = 0; i < root->count; i++) {
		const struct json_value *t = &root->children[i];
		int known = 0;

		for (const char *const *k = known_tables; *k; k++)
			if (!strcmp(*k, t->key))
				known = 1;
		if (!known)
			cfg_add_error(&c, t->key_pos, t->key, "unknown table");
		else if (t->type != JSON_OBJECT)
			cfg_add_error(&c, t->pos, t->key, "a table must be an object, got %s",
				      json_type_name(t->type));
	}
	if (errs->total)
		goto done;
	tbl = json_get(root, "DEVICE_METADATA");
	if (!tbl)
		cfg_add_error(&c, root->pos, "DEVICE_METADATA", "missing table");
	else
		cfg_parse_device_metadata(&c, tbl);
	tbl = json_get(root, "PORT");
	if (!tbl || tbl->count == 0)
		cfg_add_error(&c, tbl ? tbl->pos : root->pos, "PORT",
			      "at least one port is needed");
	else
		cfg_parse_ports(&c, tbl);
	/* the overlay's VTEP and VNETs, which INTERFACE binds ports to */
	tbl = json_get(root, "VXLAN_TUNNEL");
	if (tbl)
		cfg_parse_vxlan_tunnel(&c, tbl);
	tbl = json_get(root, "VNET");
	if (tbl)
		cfg_parse_vnets(&c, tbl);
	tbl = json_get(root, "INTERFACE");
	if (tbl)
		cfg_parse_interfaces(&c, tbl);
	/* routes and neighbours resolve against valid ports and interfaces only */
	l3_ok = !errs->total;
	tbl = json_get(root, "ROUTE");
	if (tbl && l3_ok) {
		if (cfg_reserve_routes(&c, tbl->count)) {
			cfg_add_error(&c, tbl->pos, "ROUTE", "out of memory");
		} else {
			for (size_t i = 0; i < tbl->count; i++)
				cfg_parse_route(&c, &tbl->children[i]);
			cfg_check_duplicate_routes(&c);
		}
	}
	tbl = json_get(root, "NEIGH");
	if (tbl && l3_ok)
		cfg_parse_neighs(&c, tbl);
	if (l3_ok)
		cfg_parse_vnet_routes(&c, json_get(root, "VNET_ROUTE_TUNNEL"),
				      json_get(root, "VNET_ROUTE"));
	cfg->hash_fields = XFAB_HASH_F_DEFAULT;
	cfg->resilient = 1;
	cfg->flowlet_mode = XFAB_FLOWLET_RANDOM;
	cfg->flowlet_gap_us = 100; /* ConWeave's figure at 100G; CONGA uses 500 */
	cfg->load_window_us = 100;
	cfg->flowlet_age_ms = 1000;
	tbl = json_get(root, "ECMP");
	if (tbl)
		cfg_parse_ecmp(&c, tbl);
	tbl = json_get(root, "FLOWLET");
	if (tbl)
		cfg_parse_flowlet(&c, tbl);
	xfab_default_dscp_to_tc(cfg->dscp_to_tc);
	tbl = json_get(root, "DSCP_TO_TC_MAP");
	if (tbl)
		cfg_parse_dscp_map(&c, tbl);
	tbl = json_get(root, "WRED_PROFILE");
	if (tbl)
		cfg_parse_wred_profiles(&c, tbl);
	tbl = json_get(root, "QUEUE");
	if (tbl)
		cfg_parse_queues(&c, tbl);
	/* lossless classes (pfc.c) */
	for (int p = 0; p < cfg->n_ports; p++)
		cfg->ports[p].pfc.cable_m = XFAB_PFC_CABLE_M;
	cfg->pfcwd_poll_ms = 200;
	tbl = json_get(root, "PORT_QOS_MAP");
	if (tbl)
		cfg_parse_port_qos_map(&c, tbl);
	tbl = json_get(root, "CABLE_LENGTH");
	if (tbl)
		cfg_parse_cable_length(&c, tbl);
	cfg_parse_buffers(&c, json_get(root, "BUFFER_PROFILE"), json_get(root, "BUFFER_PG"));
	tbl = json_get(root, "PFC_WD");
	if (tbl)
		cfg_parse_pfc_wd(&c, tbl);
	tbl = json_get(root, "FIB_SYNC");
	if (tbl)
		cfg_parse_fib_sync(&c, tbl);
	cfg_copp_defaults(cfg);
	tbl = json_get(root, "COPP_TABLE");
	if (tbl)
		cfg_parse_copp(&c, tbl);
	if (l3_ok) /* ACL: tables bind valid ports */
		cfg_parse_acl(&c, json_get(root, "ACL_TABLE"),
			      json_get(root, "ACL_RULE")); /* ACL */
	tbl = json_get(root, "LOCAL_REPAIR");
	if (tbl && l3_ok)
		cfg_parse_local_repair(&c, tbl);
	tbl = json_get(root, "TE_PATH");
	cfg->te_enabled = tbl != NULL;
	if (tbl && !errs->total)
		for (size_t i = 0; i < tbl->count; i++)
			cfg_parse_te(&c, &tbl->children[i]);
	if (!errs->total)
		cfg_check_capacity(&c);
done:
	json_free(root);
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
	struct ctx c = {.file = file, .errs = errs};
	struct json_pos pos = {0, 0};
	struct json_value *root;
	char msg[256];

	errs->count = 0;
	errs->total = 0;
	root = json_parse(text, msg, sizeof(msg), &pos);
	if (!root) {
		cfg_add_error(&c, pos, NULL, "%s", msg);
		return -1;
	}
	return config_from_json(file, root, out, errs);
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
};

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
	struct json_pos nowhere = {0, 0}, pos = {0, 0};
	struct ctx c = {.file = path, .errs = errs};
	struct file_reader r = {.fd = -1};
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
	root = json_parse_stream(file_read, &r, msg, sizeof(msg), &pos);
	if (!root) {
		char rest[4096];

		/* the whole file is read before its JSON error counts: a NUL
		 * byte or a short read further on is the error to report */
		while (file_read(&r, rest, sizeof(rest)) > 0)
			;
	}
	close(r.fd);
	if (r.nul || r.err) {
		json_free(root);
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
	ret = config_from_json(path, root, cfg, errs);
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
