// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: the plan printed (text, JSON) and run's --json status file. */
#include "te_tool.h"

void te_print_plan_text(const struct ctx *c, const struct xfab_te_plan *plan)
{
	const struct xfab_te_fabric *f = c->f;
	char name[96];
	int down = 0;

	for (int l = 0; l < f->n_links; l++)
		down += !xfab_te_link_up(f, l);
	printf("TE plan for %s: %zu pairs (%zu placed, %zu on one leaf, %zu without a live "
	       "path), %zu pins, %d of %d links down, computed in %.2f ms\n",
	       f->name[0] ? f->name : "the fabric", plan->n_pairs, plan->placed, plan->same_leaf,
	       plan->no_path, plan->n_pins, down, f->n_links, c->plan_ms);
	if (plan->max_dlink >= 0) {
		xfab_te_dlink_name(f, plan->max_dlink, name, sizeof(name));
		printf("max link load %.0f bytes on %s\n", plan->max_load, name);
	}
	printf("\npairs, largest first:\n");
	for (size_t i = 0; i < plan->n_pairs; i++) {
		const struct xfab_te_pair *pr = &plan->pairs[i];
		double worst = 0;

		printf("  %-8s -> %-8s %14llu  ", f->hosts[pr->src].name, f->hosts[pr->dst].name,
		       (unsigned long long)pr->bytes);
		if (pr->state != XFAB_TE_PLACED) {
			printf("%s\n", pr->state == XFAB_TE_SAME_LEAF
					   ? "one leaf: not pinned"
					   : "no live path: not pinned (ECMP)");
			continue;
		}
		for (int h = 0; h < pr->n_hops; h++) {
			printf("%s%s", h ? " " : "", f->sw[pr->sw[h]].name);
			if (h < pr->n_hops - 1) {
				printf(":%s>", f->sw[pr->sw[h]].ports[pr->out[h]].name);
				if (plan->load[pr->dlink[h]] > worst)
					worst = plan->load[pr->dlink[h]];
			}
		}
		printf("   max on path %.0f\n", worst);
	}
	printf("\nlinks (bytes each way, counted at the fastest link's speed):\n");
	for (int d = 0; d < plan->n_dlinks; d++) {
		if (plan->load[d] <= 0)
			continue;
		xfab_te_dlink_name(f, d, name, sizeof(name));
		printf("  %-28s %14.0f%s\n", name, plan->load[d],
		       xfab_te_link_up(f, d / 2) ? "" : "  (down)");
	}
	printf("\npins:\n");
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		const struct xfab_te_port *out = &f->sw[p->sw].ports[p->out];
		char pfx[64], via[INET_ADDRSTRLEN];

		te_pin_prefix(p, pfx, sizeof(pfx));
		inet_ntop(AF_INET, &p->via, via, sizeof(via));
		printf("  %-10s in %-8s %-18s via %-15s (%s, out %s)  %d pair(s)\n",
		       f->sw[p->sw].name, f->sw[p->sw].ports[p->in].name, pfx, via,
		       f->sw[out->peer_sw].name, out->name, p->pairs);
	}
}

void te_plan_json(struct xfab_jw *w, const struct ctx *c, const struct xfab_te_plan *plan)
{
	const struct xfab_te_fabric *f = c->f;
	char name[96];

	xfab_jw_num3(w, "compute_ms", c->plan_ms);
	xfab_jw_uint(w, "pairs_total", plan->n_pairs);
	xfab_jw_uint(w, "placed", plan->placed);
	xfab_jw_uint(w, "same_leaf", plan->same_leaf);
	xfab_jw_uint(w, "no_path", plan->no_path);
	xfab_jw_num3(w, "max_load", plan->max_load);
	if (plan->max_dlink >= 0) {
		xfab_te_dlink_name(f, plan->max_dlink, name, sizeof(name));
		xfab_jw_string(w, "max_link", name);
	}
	xfab_jw_open(w, "links_down", '[');
	for (int l = 0; l < f->n_links; l++)
		if (!xfab_te_link_up(f, l)) {
			te_link_name(f, l, name, sizeof(name));
			xfab_jw_string(w, NULL, name);
		}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "pairs", '[');
	for (size_t i = 0; i < plan->n_pairs; i++) {
		const struct xfab_te_pair *pr = &plan->pairs[i];
		double worst = 0;
		int listed = 0;

		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "src", f->hosts[pr->src].name);
		xfab_jw_string(w, "dst", f->hosts[pr->dst].name);
		xfab_jw_uint(w, "bytes", pr->bytes);
		xfab_jw_string(w, "state",
			       pr->state == XFAB_TE_PLACED	? "placed"
			       : pr->state == XFAB_TE_SAME_LEAF ? "same-leaf"
								: "no-path");
		xfab_jw_uint(w, "candidates", (uint64_t)pr->candidates);
		if (pr->state == XFAB_TE_PLACED) {
			xfab_jw_open(w, "path", '[');
			for (int h = 0; h < pr->n_hops; h++) {
				xfab_jw_open(w, NULL, '{');
				xfab_jw_string(w, "switch", f->sw[pr->sw[h]].name);
				xfab_jw_string(w, "in", f->sw[pr->sw[h]].ports[pr->in[h]].name);
				xfab_jw_string(w, "out", f->sw[pr->sw[h]].ports[pr->out[h]].name);
				xfab_jw_close(w, '}');
			}
			xfab_jw_close(w, ']');
			xfab_jw_open(w, "links", '[');
			for (int h = 0; h < pr->n_hops - 1; h++) {
				xfab_jw_open(w, NULL, '{');
				xfab_te_dlink_name(f, pr->dlink[h], name, sizeof(name));
				xfab_jw_string(w, "link", name);
				xfab_jw_num3(w, "load", plan->load[pr->dlink[h]]);
				xfab_jw_close(w, '}');
				if (plan->load[pr->dlink[h]] > worst)
					worst = plan->load[pr->dlink[h]];
			}
			xfab_jw_close(w, ']');
			xfab_jw_num3(w, "max_on_path", worst);
		}
		xfab_jw_open(w, "flows", '[');
		for (size_t k = 0; k < c->n_flows && listed < MAX_LISTED_FLOWS; k++) {
			const struct flowrec *fr = &c->flows[k];

			if (fr->src != pr->src || fr->dst != pr->dst)
				continue;
			xfab_jw_open(w, NULL, '{');
			if (fr->job >= 0)
				xfab_jw_string(w, "job", c->job_names[fr->job]);
			xfab_jw_uint(w, "sport", fr->sport);
			xfab_jw_uint(w, "dport", XFAB_ROCE_UDP_PORT);
			xfab_jw_uint(w, "src_qp", fr->src_qpn);
			xfab_jw_uint(w, "dst_qp", fr->dst_qpn);
			xfab_jw_close(w, '}');
			listed++;
		}
		xfab_jw_close(w, ']');
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "loads", '[');
	for (int d = 0; d < plan->n_dlinks; d++) {
		if (plan->load[d] <= 0)
			continue;
		xfab_te_dlink_name(f, d, name, sizeof(name));
		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "link", name);
		xfab_jw_num3(w, "load", plan->load[d]);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
	xfab_jw_open(w, "pins", '[');
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		const struct xfab_te_port *out = &f->sw[p->sw].ports[p->out];
		char pfx[64], via[INET_ADDRSTRLEN];

		te_pin_prefix(p, pfx, sizeof(pfx));
		inet_ntop(AF_INET, &p->via, via, sizeof(via));
		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "switch", f->sw[p->sw].name);
		xfab_jw_string(w, "in", f->sw[p->sw].ports[p->in].name);
		xfab_jw_string(w, "prefix", pfx);
		xfab_jw_string(w, "via", via);
		xfab_jw_string(w, "out", out->name);
		xfab_jw_string(w, "next", f->sw[out->peer_sw].name);
		xfab_jw_uint(w, "pairs", (uint64_t)p->pairs);
		xfab_jw_uint(w, "bytes", p->bytes);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
}

void te_switches_json(struct xfab_jw *w, const struct ctx *c)
{
	xfab_jw_open(w, "switches", '[');
	for (int i = 0; i < c->f->n_switches; i++) {
		const struct sw_rt *s = &c->sw[i];

		xfab_jw_open(w, NULL, '{');
		xfab_jw_string(w, "name", c->f->sw[i].name);
		xfab_jw_string(w, "state", sw_state_names[s->state]);
		xfab_jw_uint(w, "pins_wanted", (uint64_t)s->pins_wanted);
		xfab_jw_uint(w, "pins_added", (uint64_t)s->pins_added);
		if (s->error[0])
			xfab_jw_string(w, "error", s->error);
		xfab_jw_bool(w, "data_plane", s->have_dp);
		if (s->dp_error[0])
			xfab_jw_string(w, "data_plane_error", s->dp_error);
		xfab_jw_close(w, '}');
	}
	xfab_jw_close(w, ']');
}

/* --json FILE: the last plan, generation, switches and events (written
 * whole to FILE.tmp, then renamed over FILE). */
void te_write_status(struct ctx *c)
{
	char tmp[4200], when[32];
	struct xfab_jw w;

	if (!c->o.status_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", c->o.status_path);
	xfab_jw_init(&w, fopen(tmp, "w"));
	if (!w.out) {
		te_say("--json %s: %s", tmp, strerror(errno));
		return;
	}
	te_wall_time(when, sizeof(when));
	xfab_jw_open(&w, NULL, '{');
	xfab_jw_string(&w, "fabric", c->f->name);
	xfab_jw_string(&w, "state", c->status);
	xfab_jw_string(&w, "updated", when);
	xfab_jw_uint(&w, "generation", c->gen);
	xfab_jw_bool(&w, "complete", c->complete);
	xfab_jw_num3(&w, "apply_ms", c->apply_ms);
	if (c->have_plan) {
		xfab_jw_open(&w, "plan", '{');
		te_plan_json(&w, c, &c->plan);
		xfab_jw_close(&w, '}');
	}
	te_switches_json(&w, c);
	xfab_jw_open(&w, "events", '[');
	for (int i = 0; i < c->n_ev; i++) {
		const struct event *e = &c->ev[i];

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "time", e->when);
		xfab_jw_uint(&w, "unix_ms", e->unix_ms);
		xfab_jw_string(&w, "kind", e->kind);
		xfab_jw_string(&w, "what", e->what);
		xfab_jw_uint(&w, "generation", e->gen);
		xfab_jw_num3(&w, "max_load", e->max_load);
		if (e->ms >= 0)
			xfab_jw_num3(&w, "detect_to_applied_ms", e->ms);
		xfab_jw_close(&w, '}');
	}
	xfab_jw_close(&w, ']');
	xfab_jw_close(&w, '}');
	fputc('\n', w.out);
	if (fclose(w.out) || rename(tmp, c->o.status_path))
		te_say("--json %s: %s", c->o.status_path, strerror(errno));
}
