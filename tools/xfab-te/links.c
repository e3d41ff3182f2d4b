// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: link state, from each switch's pinned ports map (and --down). */
#include "te_tool.h"

void te_dp_close(struct sw_rt *s)
{
	if (s->ports_fd >= 0)
		close(s->ports_fd);
	s->ports_fd = -1;
	s->have_dp = 0;
}

/* Opens the switch's ports map and finds its fabric ports in it. */
static int dp_open(struct ctx *c, int sw)
{
	const struct xfab_te_switch *fs = &c->f->sw[sw];
	struct sw_rt *s = &c->sw[sw];
	char path[512], msg[256];
	struct stat st;

	te_dp_close(s);
	if (!fs->pins[0]) {
		snprintf(s->dp_error, sizeof(s->dp_error), "no pin directory in the fabric file");
		return -1;
	}
	if (xfab_abi_check(fs->pins, "xfab-te", msg, sizeof(msg))) {
		snprintf(s->dp_error, sizeof(s->dp_error), "%s", msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", fs->pins, XFAB_MAP_PORTS);
	s->ports_fd = bpf_obj_get(path);
	if (s->ports_fd < 0 || stat(path, &st)) {
		snprintf(s->dp_error, sizeof(s->dp_error), "%s: %s", path, strerror(errno));
		te_dp_close(s);
		return -1;
	}
	s->ports_ino = st.st_ino;
	memset(s->ifindex, 0, (size_t)fs->n_ports * sizeof(*s->ifindex));
	for (__u32 ifi = 1; ifi < XFAB_MAX_IFINDEX; ifi++) {
		struct xfab_port port;

		if (bpf_map_lookup_elem(s->ports_fd, &ifi, &port) || port.ifindex != ifi)
			continue;
		port.name[sizeof(port.name) - 1] = '\0';
		for (int p = 0; p < fs->n_ports; p++)
			if (!strcmp(fs->ports[p].name, port.name))
				s->ifindex[p] = ifi;
	}
	s->have_dp = 1;
	s->dp_error[0] = '\0';
	return 0;
}

/* Reads the switch's ports' states into the fabric; a switch whose data
 * plane is gone has every port down. Returns whether it has one. */
static int dp_read(struct ctx *c, int sw)
{
	const struct xfab_te_switch *fs = &c->f->sw[sw];
	struct sw_rt *s = &c->sw[sw];
	char path[512];
	struct stat st;
	int rescan = 0;

	snprintf(path, sizeof(path), "%s/%s", fs->pins, XFAB_MAP_PORTS);
	/* pins gone, or pinned anew (another xfabd): open again */
	if (s->ports_fd >= 0 && (stat(path, &st) || st.st_ino != s->ports_ino))
		te_dp_close(s);
	if (s->ports_fd < 0 && dp_open(c, sw)) {
		for (int p = 0; p < fs->n_ports; p++)
			xfab_te_set_port(c->f, sw, p, 0);
		return 0;
	}
	for (int p = 0; p < fs->n_ports; p++) {
		struct xfab_port port;
		__u32 ifi = s->ifindex[p];
		int up = 0;

		if (ifi && !bpf_map_lookup_elem(s->ports_fd, &ifi, &port) && port.ifindex == ifi &&
		    !strncmp(port.name, fs->ports[p].name, sizeof(port.name)))
			up = (port.flags & XFAB_PORT_UP) == XFAB_PORT_UP;
		else
			rescan = 1; /* not (or no longer) where it was: down meanwhile */
		xfab_te_set_port(c->f, sw, p, up);
	}
	/* a port recreated with another ifindex is found again by a scan, at
	 * most once a second (a scan reads every ifindex slot) */
	if (rescan && xfab_mono_ns() >= s->rescan_ns) {
		s->rescan_ns = xfab_mono_ns() + 1000000000ull;
		te_dp_close(s);
	}
	return 1;
}

/* Every switch's ports; the links' states follow. */
void te_read_links(struct ctx *c)
{
	for (int i = 0; i < c->f->n_switches; i++)
		dp_read(c, i);
}

void te_link_name(const struct xfab_te_fabric *f, int l, char *buf, size_t len)
{
	const struct xfab_te_link *k = &f->links[l];

	snprintf(buf, len, "%s:%s-%s:%s", f->sw[k->lower].name,
		 f->sw[k->lower].ports[k->lower_port].name, f->sw[k->upper].name,
		 f->sw[k->upper].ports[k->upper_port].name);
}

/* --down SW:PORT */
int te_apply_down(struct ctx *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->o.n_down; i++) {
		char sw[64];
		const char *colon = strchr(c->o.down[i], ':');
		int s, p;

		if (!colon || colon == c->o.down[i] ||
		    (size_t)(colon - c->o.down[i]) >= sizeof(sw)) {
			snprintf(err, errlen, "--down %s: expected SWITCH:PORT", c->o.down[i]);
			return -1;
		}
		snprintf(sw, sizeof(sw), "%.*s", (int)(colon - c->o.down[i]), c->o.down[i]);
		s = xfab_te_switch_index(c->f, sw);
		p = xfab_te_port_index(c->f, s, colon + 1);
		if (s < 0 || p < 0) {
			snprintf(err, errlen, "--down %s: no %s in the fabric", c->o.down[i],
				 s < 0 ? "such switch" : "such port on that switch");
			return -1;
		}
		xfab_te_set_port(c->f, s, p, 0);
	}
	return 0;
}
