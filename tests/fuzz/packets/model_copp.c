// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The model's control-plane policing (COPP.md): each switch's COPP_TABLE,
 * and the copp-rate switch's meters. Which group a punt belongs to is
 * model_pipeline.c's copp_group (COPP.md "Groups"); here is what the
 * group's bucket makes of it ("The meter"). Nothing here includes bpf/ or
 * the library.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "model_int.h"
#include "xfab_abi.h" /* the group numbering only */

/*
 * The copp-rate switch's meters, picked so that over a run's share of
 * frames (a few seconds to a minute on a loaded box) every policed group
 * both admits and polices and refills in between: arp, arp_resp, ttl_error, ip2me
 * and default drain within a few hundred frames and then live on their
 * cir; ip2me's cbs is its cir (CONFIG.md: "default: cir"); bfd is not
 * policed (cir 0); bgp and nd have no entry
 * and keep SONiC's defaults (6000/6000, 600/600: CONFIG.md "COPP_TABLE"),
 * far above what they see, every packet green through a meter.
 */
static const struct {
	int group;
	const char *line; /* the COPP_TABLE entry */
	uint32_t cir, cbs;
} m_rates[] = {
    {XFAB_COPP_BGP, NULL, 6000, 6000},
    {XFAB_COPP_BFD, "\"bfd\": {\"cir\": \"0\"}", 0, 0},
    {XFAB_COPP_ARP,
     "\"arp\": {\"cir\": \"20\", \"cbs\": \"4\", \"meter_type\": \"packets\", \"trap_ids\": "
     "\"arp_req\"}",
     20, 4},
    {XFAB_COPP_ARP_RESP, "\"arp_resp\": {\"cir\": \"10\", \"cbs\": \"3\"}", 10, 3},
    {XFAB_COPP_ND, NULL, 600, 600},
    {XFAB_COPP_TTL_ERROR, "\"ttl_error\": {\"cir\": \"5\", \"cbs\": \"10\"}", 5, 10},
    {XFAB_COPP_IP2ME, "\"ip2me\": {\"cir\": \"30\"}", 30, 30},
    {XFAB_COPP_DEFAULT, "\"default\": {\"cir\": \"200\", \"cbs\": \"30\", \"mode\": \"sr_tcm\"}",
     200, 30},
};
#define M_N_RATES (sizeof(m_rates) / sizeof(m_rates[0]))

/* Every other switch: cir 0 in every group, the model decides punts, not
 * rates (COPP.md "The meter": cir 0 is no meter, every packet green). */
void m_copp_config(const struct model *m, char *c, size_t sz)
{
	int first = 1;

	if (m->variant != MODEL_V_COPP_RATE) {
		m_add(c, sz,
		      ",\n \"COPP_TABLE\": {\"bgp\": {\"cir\": \"0\"}, \"bfd\": {\"cir\": \"0\"}, "
		      "\"arp\": {\"cir\": \"0\"}, \"arp_resp\": {\"cir\": \"0\"}, \"nd\": "
		      "{\"cir\": \"0\"}, \"ttl_error\": {\"cir\": "
		      "\"0\"}, \"ip2me\": {\"cir\": \"0\"}, \"default\": {\"cir\": \"0\"}}");
		return;
	}
	m_add(c, sz, ",\n \"COPP_TABLE\": {");
	for (size_t i = 0; i < M_N_RATES; i++) {
		if (!m_rates[i].line)
			continue;
		m_add(c, sz, first ? "" : ", ");
		m_add(c, sz, m_rates[i].line);
		first = 0;
	}
	m_add(c, sz, "}");
}

void model_copp_rate(const struct model *m, int group, uint32_t *cir, uint32_t *cbs)
{
	*cir = 0;
	*cbs = 0;
	if (m->variant != MODEL_V_COPP_RATE)
		return;
	for (size_t i = 0; i < M_N_RATES; i++)
		if (m_rates[i].group == group) {
			*cir = m_rates[i].cir;
			*cbs = m_rates[i].cbs;
		}
}

/*
 * COPP.md "The meter": the bucket holds up to cbs packets and gains cir a
 * second, counted in 10^9 units a packet, so a refill is elapsed_ns x cir,
 * cut at what fills the bucket. "Reading it": a bucket never used is full.
 */
uint64_t model_copp_tokens(const struct model *m, int group, const struct model_copp_bucket *b,
			   uint64_t now)
{
	unsigned __int128 t;
	uint32_t cir, cbs;
	uint64_t cap;

	model_copp_rate(m, group, &cir, &cbs);
	cap = (uint64_t)cbs * MODEL_COPP_TOKEN;
	if (!b->last) /* never used */
		return cap;
	t = b->tokens;
	if (now > b->last)
		t += (unsigned __int128)(now - b->last) * cir;
	return t > cap ? cap : (uint64_t)t;
}

/* "A punt that finds a token takes it and goes to the kernel (green); one
 * that finds none is dropped (red)". */
int model_copp_meter(const struct model *m, int group, struct model_copp_bucket *b, uint64_t now)
{
	uint64_t t = model_copp_tokens(m, group, b, now);
	int green = t >= MODEL_COPP_TOKEN;

	b->tokens = green ? t - MODEL_COPP_TOKEN : t;
	if (now > b->last)
		b->last = now;
	return green;
}
