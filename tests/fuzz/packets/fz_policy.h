/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_packets' side of the acl and copp-rate switches (fz_policy.c): the
 * generator's bias toward the ACL rules' edges, the ACL counters read,
 * and CoPP's meters judged against the model's buckets with the clock
 * read around every run.
 */
#ifndef XFAB_FUZZ_FZ_POLICY_H
#define XFAB_FUZZ_FZ_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "model.h"

#define FZ_ACL_COUNTERS 64 /* acl_stats entries compared (the acl switch's rules, and more) */

/* The maps (after h_setup). 0 or -1. */
int fz_policy_init(struct harness *h);
/* A switch loaded: its buckets as never used, on both sides. 0 or -1. */
int fz_policy_enter(void);
/* CLOCK_MONOTONIC just before (after 0) and after (1) a run. */
void fz_copp_clock(int after);
/* The run's punt through its group's meter: the model's bucket at the
 * run's clock window decides green or red (mr becomes a copp_policed drop),
 * or, when a refill boundary lies in the window, the data plane's verdict
 * (punted: retval_punt) is taken and counted; the data plane's bucket must
 * then hold what the model's does at the time it recorded. 0, or 1 with why. */
int fz_copp_judge(const struct model *m, struct model_result *mr, int punted, char *why,
		  size_t why_len);
/* A run the model decided: its ACL rule counted for the summary. */
void fz_policy_count(const struct model_result *mr);
/* The summary: runs per ACL rule, CoPP's meters. */
void fz_policy_print(FILE *out);

/* The generator's picks for the acl switch, from a random word r. */
uint16_t fz_acl_port(uint64_t r);
uint8_t fz_acl_dscp(uint64_t r);
uint8_t fz_acl_opcode(uint64_t r);
/* An address at a rule's edge (v6, source or destination), 1; 0: none. */
int fz_acl_addr(int v6, int dst, int port, uint64_t r, uint8_t *out);

#endif
