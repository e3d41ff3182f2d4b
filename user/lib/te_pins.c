// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's pins: the table of those fixed while placing, and the plan's pins
 * as they are handed out (te.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te_int.h"

static size_t key_slot(uint64_t k, size_t n_slots)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (n_slots - 1);
}

int xfab_te_keytab_find(const struct xfab_te_keytab *t, uint64_t k)
{
	if (!t->n_slots)
		return -1;
	for (size_t s = key_slot(k, t->n_slots);; s = (s + 1) & (t->n_slots - 1)) {
		if (t->pin[s] < 0)
			return -1;
		if (t->key[s] == k)
			return t->pin[s];
	}
}

int xfab_te_keytab_put(struct xfab_te_keytab *t, uint64_t k, int pin)
{
	size_t s;

	if ((t->n + 1) * 2 > t->n_slots) {
		size_t n_slots = t->n_slots ? t->n_slots * 2 : 256;
		uint64_t *key = malloc(n_slots * sizeof(*key));
		int *p = malloc(n_slots * sizeof(*p));

		if (!key || !p) {
			free(key);
			free(p);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n_slots; i++)
			p[i] = -1;
		for (size_t i = 0; i < t->n_slots; i++) {
			if (t->pin[i] < 0)
				continue;
			for (s = key_slot(t->key[i], n_slots); p[s] >= 0;
			     s = (s + 1) & (n_slots - 1))
				;
			key[s] = t->key[i];
			p[s] = t->pin[i];
		}
		free(t->key);
		free(t->pin);
		t->key = key;
		t->pin = p;
		t->n_slots = n_slots;
	}
	for (s = key_slot(k, t->n_slots); t->pin[s] >= 0; s = (s + 1) & (t->n_slots - 1))
		;
	t->key[s] = k;
	t->pin[s] = pin;
	t->n++;
	return 0;
}

void xfab_te_keytab_free(struct xfab_te_keytab *t)
{
	free(t->key);
	free(t->pin);
	memset(t, 0, sizeof(*t));
}

static int by_key(const void *a, const void *b)
{
	const struct xfab_te_pin *x = a, *y = b;
	uint32_t px = ntohl(x->prefix.s_addr), py = ntohl(y->prefix.s_addr);

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->in != y->in)
		return x->in < y->in ? -1 : 1;
	if (px != py)
		return px < py ? -1 : 1;
	return (x->plen > y->plen) - (x->plen < y->plen);
}

void xfab_te_pins_finish(struct xfab_te_plan *plan)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n_pins; i++)
		if (plan->pins[i].pairs)
			plan->pins[k++] = plan->pins[i];
	plan->n_pins = k;
	if (plan->n_pins)
		qsort(plan->pins, plan->n_pins, sizeof(*plan->pins), by_key);
}

int xfab_te_pins_equal(const struct xfab_te_plan *a, const struct xfab_te_plan *b)
{
	if (a->n_pins != b->n_pins)
		return 0;
	for (size_t i = 0; i < a->n_pins; i++) {
		const struct xfab_te_pin *x = &a->pins[i], *y = &b->pins[i];

		if (x->sw != y->sw || x->in != y->in || x->prefix.s_addr != y->prefix.s_addr ||
		    x->plen != y->plen || x->via.s_addr != y->via.s_addr)
			return 0;
	}
	return 1;
}
