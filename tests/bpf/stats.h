/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tolerances for the statistical assertions of the BPF suites, derived from
 * a failure probability instead of picked by eye.
 *
 * Every statistical check here counts how many of n independent trials came
 * out one way (a packet marked CE, a flow on member m). Each trial i is a
 * 0/1 variable with success probability p_i, so the count X has mean
 * mu = sum p_i and variance V = sum p_i (1 - p_i). Bernstein's inequality
 * for bounded variables (|X_i - p_i| <= 1):
 *
 *     P(|X - mu| >= t) <= 2 exp(-t^2 / (2 (V + t / 3)))
 *
 * Setting the right side to delta and solving the quadratic for t gives the
 * tolerance that is exceeded with probability at most delta:
 *
 *     t = L / 3 + sqrt(L^2 / 9 + 2 V L),   L = ln(2 / delta)
 *
 * A check of k counts at once (the members of a group) uses delta / k for
 * each (union bound), so the whole check fails with probability < delta.
 * XFAB_TEST_DELTA is below 1e-6: a correct data plane fails a given check
 * less than once in a million runs, whatever the seed; the seeds are fixed
 * too, so a run repeats exactly.
 */
#ifndef XFAB_TEST_STATS_H
#define XFAB_TEST_STATS_H

#include <math.h>

#define XFAB_TEST_DELTA 1e-7

/* The Bernstein tolerance for a count with variance var, at failure
 * probability delta. */
static inline double bernstein_tol(double var, double delta)
{
	double l = log(2.0 / delta);

	return l / 3 + sqrt(l * l / 9 + 2 * var * l);
}

/* Binomial(n, p): the tolerance around n p, one of k counts checked. */
static inline double binom_tol(double n, double p, int k)
{
	return bernstein_tol(n * p * (1 - p), XFAB_TEST_DELTA / k);
}

/* 1 if count lies within the binomial tolerance around n p. */
static inline int binom_ok(double count, double n, double p, int k)
{
	return fabs(count - n * p) <= binom_tol(n, p, k);
}

#endif
