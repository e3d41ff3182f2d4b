// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* DEVICE_METADATA and PORT. */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables ---- */

static int valid_hostname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= XFAB_HOSTNAME_MAX)
		return 0;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return 0;
	return s[0] != '.' && s[0] != '-';
}

void cfg_parse_device_metadata(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {
	    "hostname",	   "type", "datapath",	      "hash_seed",
	    "description", "mac",  "fib_ipv4_groups", "fib_ipv6_groups",
	    NULL};
	const struct json_value *lh = xfab_json_get(tbl, "localhost"), *f;
	char fk[160], buf[32];
	const char *t;

	for (size_t i = 0; i < tbl->count; i++)
		if (strcmp(tbl->children[i].key, "localhost"))
			cfg_add_error(c, tbl->children[i].key_pos, "DEVICE_METADATA",
				      "unknown entry \"%s\" (only \"localhost\")",
				      tbl->children[i].key);
	if (!lh) {
		cfg_add_error(c, tbl->pos, "DEVICE_METADATA", "missing entry \"localhost\"");
		return;
	}
	if (cfg_check_fields(c, lh, "DEVICE_METADATA|localhost", fields))
		return;
	f = xfab_json_get(lh, "hostname");
	if (!f) {
		cfg_add_error(c, lh->pos, "DEVICE_METADATA|localhost",
			      "missing field \"hostname\"");
	} else if (f->type != JSON_STRING || !valid_hostname(f->str)) {
		cfg_add_error(c, f->pos, "DEVICE_METADATA|localhost.hostname",
			      "hostname must be 1..%d of [A-Za-z0-9._-]", XFAB_HOSTNAME_MAX - 1);
	} else {
		snprintf(c->cfg->hostname, sizeof(c->cfg->hostname), "%s", f->str);
		c->cfg->hostname_pos = f->pos;
	}
	c->cfg->datapath = XFAB_DP_XDP;
	c->cfg->datapath_pos = lh->pos;
	f = xfab_json_get(lh, "datapath");
	if (f) {
		c->cfg->datapath_pos = f->pos;
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "datapath");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "xdp"))
			c->cfg->datapath = XFAB_DP_XDP;
		else if (t && !strcmp(t, "tc"))
			c->cfg->datapath = XFAB_DP_TC;
		else if (t)
			cfg_add_error(c, f->pos, fk, "datapath must be \"xdp\" or \"tc\", not '%s'",
				      t);
	}
	c->cfg->hash_seed = xfab_default_hash_seed(c->cfg->hostname);
	f = xfab_json_get(lh, "hash_seed");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "hash_seed");
		cfg_parse_u32(c, f, fk, 0, 0xffffffffu, &c->cfg->hash_seed);
	}
	for (int v6 = 0; v6 < 2; v6++) {
		const char *name = v6 ? "fib_ipv6_groups" : "fib_ipv4_groups";

		f = xfab_json_get(lh, name);
		if (!f)
			continue;
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", name);
		cfg_parse_u32(c, f, fk, XFAB_FIB_GROUPS_MIN, XFAB_FIB_GROUPS_MAX,
			      &c->cfg->fib_groups[v6]);
		c->cfg->fib_groups_pos[v6] = f->pos;
	}
	f = xfab_json_get(lh, "description");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "description");
		cfg_parse_text(c, f, fk, NULL, 64);
	}
	/* SONiC's router MAC: the VTEP's (inner source MAC of what it
	 * encapsulates); without it, the first port's */
	f = xfab_json_get(lh, "mac");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "mac");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t &&
		    (xfab_parse_mac(t, c->cfg->router_mac) || (c->cfg->router_mac[0] & 1) ||
		     !(c->cfg->router_mac[0] | c->cfg->router_mac[1] | c->cfg->router_mac[2] |
		       c->cfg->router_mac[3] | c->cfg->router_mac[4] | c->cfg->router_mac[5]))) {
			cfg_add_error(c, f->pos, fk, "\"%s\" is not a unicast MAC address", t);
			memset(c->cfg->router_mac, 0, 6);
		}
	}
	f = xfab_json_get(lh, "type");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "type");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && strcmp(t, "LeafRouter") && strcmp(t, "SpineRouter") &&
		    strcmp(t, "ToRRouter"))
			cfg_add_error(c, f->pos, fk,
				      "type must be LeafRouter, SpineRouter or ToRRouter, not '%s'",
				      t);
		else if (t)
			snprintf(c->cfg->device_type, sizeof(c->cfg->device_type), "%s", t);
	}
}

static int valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= XFAB_IFNAMSIZ)
		return 0;
	for (const char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || *p == '|' || isspace((unsigned char)*p))
			return 0;
	return strcmp(s, ".") && strcmp(s, "..");
}

void cfg_parse_ports(struct ctx *c, const struct json_value *tbl)
{
	/* the last six are SONiC's link event damping fields: the damping
	 * feature reads them (config/damping.c) */
	static const char *const fields[] = {"admin_status",
					     "mtu",
					     "description",
					     "alias",
					     "speed",
					     "rate",
					     "buffer",
					     "link_event_damping_algorithm",
					     "max_suppress_time",
					     "decay_half_life",
					     "suppress_threshold",
					     "reuse_threshold",
					     "flap_penalty",
					     NULL};
	char key[160], fk[160], buf[32];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		struct xfab_cfg_port *p;
		const char *t;

		snprintf(key, sizeof(key), "PORT|%s", e->key);
		if (!valid_ifname(e->key)) {
			cfg_add_error(
			    c, e->key_pos, key,
			    "port name must be 1..15 characters without '/', ':', '|' or spaces");
			continue;
		}
		if (c->cfg->n_ports >= XFAB_MAX_PORTS) {
			cfg_add_error(c, e->key_pos, key, "more than %d ports", XFAB_MAX_PORTS);
			return;
		}
		if (cfg_check_fields(c, e, key, fields))
			continue;
		p = &c->cfg->ports[c->cfg->n_ports++];
		snprintf(p->name, sizeof(p->name), "%s", e->key);
		p->pos = e->key_pos;
		p->admin_up = 1;
		p->mtu = 1500;
		f = xfab_json_get(e, "admin_status");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "admin_status");
			t = cfg_field_text(c, f, fk, buf, sizeof(buf));
			if (t && !strcmp(t, "up"))
				p->admin_up = 1;
			else if (t && !strcmp(t, "down"))
				p->admin_up = 0;
			else if (t)
				cfg_add_error(c, f->pos, fk,
					      "admin_status must be up or down, not '%s'", t);
		}
		f = xfab_json_get(e, "mtu");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "mtu");
			cfg_parse_u32(c, f, fk, 68, 9216, &p->mtu);
		}
		for (int tc = 0; tc < XFAB_NUM_TC; tc++)
			p->wred[tc] = -1;
		f = xfab_json_get(e, "rate");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "rate");
			cfg_parse_u32(c, f, fk, 1, 800000, &p->rate_mbps);
		}
		f = xfab_json_get(e, "buffer");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "buffer");
			cfg_parse_u32(c, f, fk, 1500, 1u << 30, &p->buffer_bytes);
		}
		f = xfab_json_get(e, "speed");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "speed");
			cfg_parse_u32(c, f, fk, 1, 800000, &p->speed_mbps);
		}
		f = xfab_json_get(e, "description");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "description");
			cfg_parse_text(c, f, fk, p->description, sizeof(p->description));
		}
		f = xfab_json_get(e, "alias");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "alias");
			cfg_parse_text(c, f, fk, p->alias, sizeof(p->alias));
		}
	}
}

/* A SONiC file's lossless port runs at its speed: SONiC's PORT has no rate
 * (sonic-port.yang: speed, "Port speed in Mbps", is what the port sends
 * at), while xfab's lossless priorities need the port's queues told their
 * rate (pfc.c). So a port that PORT_QOS_MAP gives a pfc_enable list, and
 * that has a speed but no rate of xfab's, takes its speed as its rate; a
 * lossy port stays unshaped, as in an xfab file (docs/SONIC.md, PORT). */
static void cfg_sonic_port_rates(struct ctx *c, const struct json_value *root)
{
	const struct json_value *qos = xfab_json_get(root, "PORT_QOS_MAP");

	for (int i = 0; c->sonic && qos && i < c->cfg->n_ports; i++) {
		struct xfab_cfg_port *p = &c->cfg->ports[i];
		const struct json_value *e = xfab_json_get(qos, p->name);
		const struct json_value *f = e ? xfab_json_get(e, "pfc_enable") : NULL;

		/* an empty or bad list is pfc.c's to judge */
		if (f && f->type == JSON_STRING && f->str[0] && !p->rate_mbps)
			p->rate_mbps = p->speed_mbps;
	}
}

/* The feature "device": both tables are required. */
void cfg_read_device(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "DEVICE_METADATA");

	if (!tbl)
		cfg_add_error(c, root->pos, "DEVICE_METADATA", "missing table");
	else
		cfg_parse_device_metadata(c, tbl);
	tbl = xfab_json_get(root, "PORT");
	if (!tbl || tbl->count == 0)
		cfg_add_error(c, tbl ? tbl->pos : root->pos, "PORT", "at least one port is needed");
	else
		cfg_parse_ports(c, tbl);
	cfg_sonic_port_rates(c, root);
	cfg_read_sonic_loopback(c, root);
}
