/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfabctl fabric doctor: what its files share. fabric_doctor.c reads the
 * counters a window apart (fabric_collect.c), has the library judge them
 * (fabdoctor.h), traces a job (fabric_report.c's) and drains; its outputs
 * are fabric_doctor_out.c's.
 */
#ifndef XFAB_CTL_FABRIC_DOCTOR_H
#define XFAB_CTL_FABRIC_DOCTOR_H

#include "fabdoctor.h"
#include "fabric_report.h"

#define DOC_MAX_DRAINS (2 * XFAB_FAB_MAX_PORTS)

/* One port a drain (or undrain) request went to, and what came back. */
struct doc_drain {
	int sw, port;
	int ok;	     /* xfabd answered ok */
	int drained; /* its answer's "drained" */
};

struct fab_doctor {
	struct fab_report r; /* the fabric, its port tables, a job's paths */
	struct xfab_fab_snap before, after;
	uint64_t *queued; /* at the last window's close (XFAB_DOC_QUEUED) */
	struct xfab_doc_opts o;
	struct xfab_doc_result res;
	double window_s;
	unsigned int rounds, max_rounds;
	double elapsed_s; /* from the first read to the last */
	int drain;
	unsigned int n_drains;
	struct doc_drain drains[DOC_MAX_DRAINS];
};

void ctl_doc_text(const struct fab_doctor *d);
void ctl_doc_json(const struct fab_doctor *d);
/* --undrain's answers. */
void ctl_doc_undrain_out(const struct fab_doctor *d);

#endif
