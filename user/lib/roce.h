/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 for the host tools (xfab-roce, xfab-coll), over the kernel's UDP
 * sockets: the Base Transport Header and the ACK extended header, the
 * pacer, and a sender's PFC listener. No global state.
 *
 *   UDP dst 4791 | BTH (12) | [AETH (4)] | payload | ICRC (4, zero here)
 *
 *   BTH  opcode (1) | SE, M, pad count, TVer (1) | P_Key (2) |
 *        reserved (1) | DestQP (3) | AckReq + reserved (1) | PSN (3)
 *   AETH syndrome (1) | MSN (3)    (ACK and NAK, opcode 0x11)
 *
 * The syndrome: 0b000ccccc an ACK (c: credits, 0x1f none advertised),
 * 0b011nnnnn a NAK (n 0: PSN sequence error). A CNP (opcode 0x81, RoCEv2
 * annex A17) is a BTH to the QP to slow down, 16 reserved bytes and the
 * ICRC.
 */
#ifndef XFAB_ROCE_H
#define XFAB_ROCE_H

#include <linux/types.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dscp.h" /* xfab_default_tc */

#define XFAB_BTH_LEN 12
#define XFAB_AETH_LEN 4
#define XFAB_ICRC_LEN 4
#define XFAB_CNP_PAD 16 /* reserved bytes of a CNP after its BTH */
#define XFAB_PSN_MASK 0xffffffu

/* BTH opcodes (IBTA 9.2: RC is 0b000xxxxx). */
#define XFAB_OP_RC_SEND_FIRST 0x00
#define XFAB_OP_RC_SEND_MIDDLE 0x01
#define XFAB_OP_RC_SEND_LAST 0x02
#define XFAB_OP_RC_SEND_ONLY 0x04
#define XFAB_OP_RC_ACK 0x11
#define XFAB_OP_CNP 0x81

#define XFAB_AETH_ACK 0x1f	   /* ACK, no credits advertised */
#define XFAB_AETH_NAK_PSN_SEQ 0x60 /* NAK: PSN sequence error */
#define XFAB_AETH_IS_NAK(s) (((s)&0xe0) == 0x60)

#define XFAB_DEFAULT_PKEY 0xffff

struct xfab_bth {
	__u8 opcode;
	__u8 flags; /* SE (0x80), M (0x40), pad count (0x30), TVer (0x0f) */
	__u16 pkey;
	__u32 dqpn;  /* 24 bits */
	__u8 ackreq; /* 0 or 1: the A bit */
	__u32 psn;   /* 24 bits */
};

/* Writes h into b (12 bytes); dqpn and psn are cut to 24 bits. */
void xfab_bth_put(__u8 *b, const struct xfab_bth *h);
/* Reads a BTH from the first len bytes of b; -1 when len < 12. The reserved
 * bits are not checked (a receiver ignores them). */
int xfab_bth_get(const __u8 *b, size_t len, struct xfab_bth *h);
void xfab_aeth_put(__u8 *b, __u8 syndrome, __u32 msn);
/* -1 when len < 4. */
int xfab_aeth_get(const __u8 *b, size_t len, __u8 *syndrome, __u32 *msn);

/* The RC SEND opcode of packet j (0-based) of a message of npk >= 1
 * packets: ONLY for a message of one packet, else FIRST, MIDDLE..., LAST. */
__u8 xfab_rc_send_opcode(__u64 j, __u64 npk);

/* b - a in 24-bit PSN space, as a signed distance in -2^23 .. 2^23 - 1:
 * > 0 when b is ahead of a. */
static inline __s32 xfab_psn_diff(__u32 b, __u32 a)
{
	__u32 d = (b - a) & XFAB_PSN_MASK;

	return d & 0x800000u ? (__s32)d - 0x1000000 : (__s32)d;
}

/*
 * The pacer: units (packets or bytes) leave at rate per second, the n-th
 * at start + n / rate, a token bucket of burst units: a sender held up
 * catches up by at most burst units back to back, then keeps the rate from
 * where it is (the lost time is dropped, not made up in one long burst).
 * rate 0: unpaced.
 */
struct xfab_pacer {
	__u64 start; /* ns */
	__u64 units; /* sent since start */
	__u64 rate;  /* units per second; 0: unpaced */
	__u64 burst; /* units */
};

void xfab_pacer_init(struct xfab_pacer *p, __u64 rate, __u64 burst, __u64 now);
/* When the next unit may leave (ns), plus extra_ns (idle time the caller
 * adds, e.g. gaps between bursts); first drops the time lost beyond the
 * bucket's depth. 0 when unpaced. */
__u64 xfab_pacer_due(struct xfab_pacer *p, __u64 now, __u64 extra_ns);
void xfab_pacer_add(struct xfab_pacer *p, __u64 units);
/* A new rate from now on: the units already due keep their times. */
void xfab_pacer_set_rate(struct xfab_pacer *p, __u64 rate, __u64 now);

/* The interface holding local address addr (AF_INET or AF_INET6); 0, or
 * -1 when none does. */
int xfab_dev_of_addr(const struct sockaddr *addr, char dev[IF_NAMESIZE]);
/* The interface's ethtool speed in Mbit/s, 0 when it reports none; fd: any
 * socket. */
__u32 xfab_link_speed(int fd, const char *dev);

/*
 * A sender's PFC listener: an AF_PACKET socket (EtherType 0x8808) on the
 * port it sends by, read through a PACKET_RX_RING (a memory read per look,
 * no system call). A pause frame naming prio (its vector bit; PAUSE names
 * all) with a time pauses the sender until an XON or until the time runs
 * out; a new XOFF reloads the time from its arrival (802.1Qbb); frames for
 * other priorities are counted and ignored. Times are converted at
 * speed_mbps.
 */
struct xfab_pfc_rx {
	int fd; /* -1: PFC not honoured */
	char dev[IF_NAMESIZE];
	__u8 mac[6];
	int prio;
	__u32 speed_mbps;
	const char *speed_from; /* "option", "ethtool" or "default" */
	__u64 frames;		/* pause frames (PFC or PAUSE), any priority */
	__u64 xoff, xon;	/* those naming the priority, by time */
	__u64 other;		/* not naming it */
	__u64 malformed;	/* MAC control frames the parser refused */
	__u64 pauses;		/* pauses that started (an XOFF while running) */
	__u64 until;		/* paused until (monotonic ns); 0: running */
	__u64 since;		/* the current pause's start */
	__u64 paused_ns;	/* closed pauses */
	__u8 *ring;		/* PACKET_RX_RING, or NULL: recvfrom() */
	unsigned int slot;	/* the next ring frame to look at */
};

/* Listens on dev for prio; speed_mbps 0: the interface's ethtool speed, or
 * 10,000 when it reports none. On error -1 with err ("listening for PFC on
 * DEV: why") and p->fd -1; p->prio is set either way. */
int xfab_pfc_open(struct xfab_pfc_rx *p, const char *dev, int prio, __u32 speed_mbps, char *err,
		  size_t errlen);
/* Reads every pause frame waiting (taken to arrive now). */
void xfab_pfc_read(struct xfab_pfc_rx *p);
/* The pause lifts by itself once its time has run out. */
void xfab_pfc_expire(struct xfab_pfc_rx *p, __u64 now);
/* Sleeps until t (monotonic ns): 0 then, or 1 as soon as pause frames came
 * in (read: the pause may have changed). */
int xfab_pfc_wait_until(struct xfab_pfc_rx *p, __u64 t);
/* Holds the caller while its priority is paused, up to deadline. */
void xfab_pfc_hold(struct xfab_pfc_rx *p, __u64 deadline);
/* The pause time so far, a running pause counted up to now. */
__u64 xfab_pfc_paused_ns(const struct xfab_pfc_rx *p, __u64 now);
/* Ends the listener at now: a running pause is closed (counted up to now
 * or its end), the ring and socket released. */
void xfab_pfc_close(struct xfab_pfc_rx *p, __u64 now);

#endif
