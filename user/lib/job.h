/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A collective job: which hosts run its ranks, in which order, and how its
 * traffic is cut into connections, queue pairs and flows. One description
 * read by every tool that needs it: xfab-coll runs the job, xfab-te places
 * its flows on paths, `xfabctl fabric report` says which path each QP took.
 *
 * The job file (JSON, docs/TOOLS.md "Job files"):
 *
 *   {"name": "ar8", "op": "allreduce",
 *    "ranks": [{"host": "h1", "addr": "10.1.1.2"}, ...],   rank order
 *    "channels": 2, "qps": 4, "qp_mode": "rr", "qp_base": 256,
 *    "bytes": 1048576}
 *
 * Connections: the ring operations (allreduce, allgather, reducescatter)
 * connect rank r to rank r + 1 (mod n) once per channel; alltoall connects
 * every rank to every other, once per channel. Each connection carries qps
 * queue pairs. A QP's number is fixed by the job (xfab_job_qpn), and so is
 * its flow: source and destination address, UDP destination port 4791 and
 * the source port RoCE derives from the two QP numbers (ib_verbs.h:
 * rdma_calc_flow_label, rdma_flow_label_to_udp_sport), and the BTH's
 * destination QP (the receiver's QP number).
 */
#ifndef XFAB_JOB_H
#define XFAB_JOB_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define XFAB_JOB_MAX_RANKS 64
#define XFAB_JOB_MAX_CHANNELS 8
#define XFAB_JOB_MAX_QPS 64
#define XFAB_JOB_QPN_MAX 0xffffffu /* 24 bits in the BTH */
#define XFAB_ROCE_UDP_PORT 4791

enum xfab_job_op {
	XFAB_JOB_ALLREDUCE,
	XFAB_JOB_ALLGATHER,
	XFAB_JOB_REDUCESCATTER,
	XFAB_JOB_ALLTOALL,
};

/* rr: whole messages round-robin over a connection's QPs (NCCL's default,
 * NCCL_IB_SPLIT_DATA_ON_QPS=0); split: every message cut across them all. */
enum xfab_job_qp_mode { XFAB_JOB_QP_RR, XFAB_JOB_QP_SPLIT };

struct xfab_job_rank {
	char host[32]; /* lab host name, "" when the file gives none */
	struct in_addr addr;
};

struct xfab_job {
	char name[64];
	enum xfab_job_op op;
	enum xfab_job_qp_mode qp_mode;
	uint32_t n; /* ranks */
	uint32_t channels;
	uint32_t qps; /* per connection */
	uint32_t qp_base;
	uint64_t bytes; /* S: each rank's buffer (nccl-tests' size) */
	struct xfab_job_rank ranks[XFAB_JOB_MAX_RANKS];
};

/* One direction of traffic between two ranks on one channel. */
struct xfab_job_conn {
	uint32_t src, dst, channel; /* ranks */
};

/* One queue pair of a connection, and the flow the fabric sees. */
struct xfab_job_flow {
	uint32_t src, dst, channel, q; /* ranks, channel, QP index in the connection */
	uint32_t src_qpn, dst_qpn;     /* dst_qpn is the BTH's destination QP */
	struct in_addr saddr, daddr;
	uint16_t sport, dport; /* host order */
	uint64_t bytes;	       /* what the QP carries per iteration (xfab_job_qp_bytes) */
};

/* Parses a job; on error returns -1 with "line:col: field: what" in err
 * and leaves *job unspecified. Every field but name, channels (1), qps
 * (1), qp_mode (rr), qp_base (256) and a rank's host is required. */
int xfab_job_parse(const char *text, struct xfab_job *job, char *err, size_t errlen);
/* Reads and parses path; err starts with the path. */
int xfab_job_load(const char *path, struct xfab_job *job, char *err, size_t errlen);

const char *xfab_job_op_name(enum xfab_job_op op);
const char *xfab_job_qp_mode_name(enum xfab_job_qp_mode mode);
/* -1 when name is none of them. */
int xfab_job_op_parse(const char *name);
int xfab_job_qp_mode_parse(const char *name);

/* The job's connections in a fixed order (channel, then source rank, then
 * destination); returns how many there are (n * channels for the rings,
 * n * (n - 1) * channels for alltoall), writing at most max of them. */
size_t xfab_job_conns(const struct xfab_job *job, struct xfab_job_conn *out, size_t max);
/* The QP number rank owner uses towards peer for (channel, q): distinct for
 * every (owner, peer, channel, q) of the job. */
uint32_t xfab_job_qpn(const struct xfab_job *job, uint32_t owner, uint32_t peer, uint32_t channel,
		      uint32_t q);
/* Bytes one QP of a connection carries per iteration: a ring step moves
 * S / n per rank, 2(n - 1) steps for allreduce and n - 1 for allgather and
 * reducescatter; alltoall sends S / n to each peer; a channel takes its
 * 1 / channels share, a QP its 1 / qps share (rr and split alike, over an
 * iteration). Rounded up. */
uint64_t xfab_job_qp_bytes(const struct xfab_job *job);
/* The flows of every connection's QPs, connection by connection (the
 * order of xfab_job_conns), then by q; returns the count, writing at most
 * max. */
size_t xfab_job_flows(const struct xfab_job *job, struct xfab_job_flow *out, size_t max);

/* RoCEv2's UDP source port for a QP pair (ib_verbs.h): the 20-bit flow
 * label folded from lqpn * rqpn, its low 14 bits xored with its high 6,
 * in 0xc000..0xffff. Symmetric in its arguments. */
uint16_t xfab_roce_sport(uint32_t lqpn, uint32_t rqpn);

#endif
