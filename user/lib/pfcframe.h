/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MAC control pause frames in userspace: 802.1Qbb PFC and 802.3x PAUSE,
 * written and read (xfabd's generated pause, xfab-pfcgen, xfab-roce's
 * listener). No global state.
 *
 *   dst 01:80:C2:00:00:01 | src | 0x8808 | opcode (2) | ...
 *   PFC   0x0101 | class-enable vector (2: 0x00, bit n = priority n) |
 *         8 x 16-bit pause times, priority 0 first
 *   PAUSE 0x0001 | one 16-bit pause time (every priority)
 *
 * A time is in quanta of 512 bit times at the port's speed; 0 is XON
 * (resume). Frames are padded to 60 bytes (64 with the FCS the NIC adds);
 * a short PFC frame holds only its first N times and no padding, as some
 * generators send (SONiC's pfc_gen.py writes 7) and veth delivers unpadded.
 * A reader treats the missing times as 0.
 */
#ifndef XFAB_PFCFRAME_H
#define XFAB_PFCFRAME_H

#include <stddef.h>
#include <linux/types.h>

#include "xfab_abi.h"

#define XFAB_MACC_MIN_LEN 60 /* padded, without the FCS */
#define XFAB_MACC_HDR_LEN 16 /* Ethernet header and opcode */
#define XFAB_PFC_HDR_LEN 18  /* ... and the class-enable vector */

/* A pause frame as read or to be written. */
struct xfab_macc {
	__u8 dst[6];
	__u8 src[6];
	__u16 opcode;		     /* XFAB_MAC_CONTROL_PFC or XFAB_MAC_CONTROL_PAUSE */
	__u8 vector;		     /* priorities named: PFC its vector (low octet), PAUSE 0xff */
	__u8 timers;		     /* times held whole in the frame (PFC 0..8, PAUSE 0..1) */
	__u16 quanta[XFAB_NUM_PRIO]; /* per priority (PAUSE: its one time in each);
				      * times missing from the frame read 0 */
};

/* What xfab_macc_parse() found wrong; 0: a pause frame. */
enum xfab_macc_status {
	XFAB_MACC_OK = 0,
	XFAB_MACC_NOT_MAC_CONTROL, /* EtherType is not 0x8808 (or no Ethernet header) */
	XFAB_MACC_BAD_DST,	   /* neither 01:80:C2:00:00:01 nor the given own MAC */
	XFAB_MACC_TRUNCATED,	   /* ends before the opcode (PFC: before the vector) */
	XFAB_MACC_BAD_OPCODE,	   /* neither PFC nor PAUSE */
};

/* Writes a PFC frame from src naming the priorities of vector, priority n
 * asking quanta[n] (priorities outside the vector are written too: a
 * receiver ignores them). timers 8: the whole frame padded to 60 bytes;
 * 0..7: a short frame of only the first timers times, unpadded. Returns
 * its length, or 0 when timers > 8 or buf is smaller than that. */
size_t xfab_pfc_build(__u8 *buf, size_t cap, const __u8 src[6], __u8 vector,
		      const __u16 quanta[XFAB_NUM_PRIO], unsigned int timers);

/* Writes an 802.3x PAUSE frame (60 bytes); 0 when buf is too small. */
size_t xfab_pause_build(__u8 *buf, size_t cap, const __u8 src[6], __u16 quanta);

/* Reads a frame (from its Ethernet header; an FCS after it is ignored as
 * padding). own_mac: a unicast destination also accepted (802.3 allows a
 * PAUSE to the port's address); NULL for the multicast one alone. On
 * error, out is left unchanged and err (when not NULL) says what and at
 * which byte. */
enum xfab_macc_status xfab_macc_parse(const __u8 *frame, size_t len, const __u8 *own_mac,
				      struct xfab_macc *out, char *err, size_t errlen);

/* The status's name ("truncated", ...). */
const char *xfab_macc_status_name(enum xfab_macc_status s);

/* quanta at speed_mbps in ns (512 bit times each); 0 when speed is 0. */
__u64 xfab_pfc_quanta_to_ns(__u32 quanta, __u32 speed_mbps);

/* The fewest quanta lasting at least ns at speed_mbps, at most
 * XFAB_PFC_MAX_QUANTA (0 when speed is 0). */
__u32 xfab_pfc_ns_to_quanta(__u64 ns, __u32 speed_mbps);

/* Parses a priority list ("3,4", "0-2,5") into a vector; -1 with err set
 * (the position of what is wrong) on anything else. */
int xfab_pfc_parse_prios(const char *s, __u8 *vector, char *err, size_t errlen);

#endif
