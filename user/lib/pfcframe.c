// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MAC control pause frames (802.1Qbb PFC, 802.3x PAUSE): build and parse.
 * See pfcframe.h for the layout.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "pfcframe.h"

static const __u8 macc_dst[6] = XFAB_MAC_CONTROL_DST;

/* dst, src, EtherType and opcode: the first 16 bytes of every frame */
static void put_header(__u8 *buf, const __u8 src[6], __u16 opcode)
{
	memcpy(buf, macc_dst, 6);
	memcpy(buf + 6, src, 6);
	xfab_put16(buf + 12, XFAB_ETH_P_MAC_CONTROL);
	xfab_put16(buf + 14, opcode);
}

size_t xfab_pfc_build(__u8 *buf, size_t cap, const __u8 src[6], __u8 vector,
		      const __u16 quanta[XFAB_NUM_PRIO], unsigned int timers)
{
	size_t len = XFAB_PFC_HDR_LEN + 2 * (size_t)timers;

	if (timers > XFAB_NUM_PRIO)
		return 0;
	if (timers == XFAB_NUM_PRIO)
		len = XFAB_MACC_MIN_LEN;
	if (cap < len)
		return 0;
	memset(buf, 0, len);
	put_header(buf, src, XFAB_MAC_CONTROL_PFC);
	buf[16] = 0; /* reserved octet of the vector */
	buf[17] = vector;
	for (unsigned int i = 0; i < timers; i++)
		xfab_put16(buf + XFAB_PFC_HDR_LEN + (size_t)2 * i, quanta[i]);
	return len;
}

size_t xfab_pause_build(__u8 *buf, size_t cap, const __u8 src[6], __u16 quanta)
{
	if (cap < XFAB_MACC_MIN_LEN)
		return 0;
	memset(buf, 0, XFAB_MACC_MIN_LEN);
	put_header(buf, src, XFAB_MAC_CONTROL_PAUSE);
	xfab_put16(buf + XFAB_MACC_HDR_LEN, quanta);
	return XFAB_MACC_MIN_LEN;
}

__attribute__((format(printf, 4, 5))) static enum xfab_macc_status
fail(enum xfab_macc_status s, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return s;
}

enum xfab_macc_status xfab_macc_parse(const __u8 *frame, size_t len, const __u8 *own_mac,
				      struct xfab_macc *out, char *err, size_t errlen)
{
	struct xfab_macc m = {0};
	size_t need, have;

	if (len < 14 || xfab_get16(frame + 12) != XFAB_ETH_P_MAC_CONTROL)
		return fail(XFAB_MACC_NOT_MAC_CONTROL, err, errlen,
			    "byte 12: not a MAC control frame (%zu bytes, EtherType 0x8808 wanted)",
			    len);
	if (memcmp(frame, macc_dst, 6) && !(own_mac && !memcmp(frame, own_mac, 6)))
		return fail(XFAB_MACC_BAD_DST, err, errlen,
			    "byte 0: destination is not 01:80:c2:00:00:01");
	if (len < XFAB_MACC_HDR_LEN)
		return fail(XFAB_MACC_TRUNCATED, err, errlen,
			    "byte %zu: the frame ends before its opcode (%zu bytes)", len, len);
	memcpy(m.dst, frame, 6);
	memcpy(m.src, frame + 6, 6);
	m.opcode = xfab_get16(frame + 14);
	if (m.opcode == XFAB_MAC_CONTROL_PFC) {
		if (len < XFAB_PFC_HDR_LEN)
			return fail(XFAB_MACC_TRUNCATED, err, errlen,
				    "byte %zu: the PFC frame ends before its class-enable vector "
				    "(%zu bytes)",
				    len, len);
		m.vector = frame[17];
		have = (len - XFAB_PFC_HDR_LEN) / 2;
		m.timers = (__u8)(have < XFAB_NUM_PRIO ? have : XFAB_NUM_PRIO);
		for (unsigned int i = 0; i < m.timers; i++)
			m.quanta[i] = xfab_get16(frame + XFAB_PFC_HDR_LEN + (size_t)2 * i);
	} else if (m.opcode == XFAB_MAC_CONTROL_PAUSE) {
		need = XFAB_MACC_HDR_LEN + 2;
		m.vector = 0xff;
		m.timers = len >= need;
		for (unsigned int i = 0; i < XFAB_NUM_PRIO; i++)
			m.quanta[i] = m.timers ? xfab_get16(frame + XFAB_MACC_HDR_LEN) : 0;
	} else {
		return fail(XFAB_MACC_BAD_OPCODE, err, errlen,
			    "byte 14: opcode 0x%04x is neither PFC (0x0101) nor PAUSE (0x0001)",
			    m.opcode);
	}
	*out = m;
	if (err && errlen)
		err[0] = '\0';
	return XFAB_MACC_OK;
}

const char *xfab_macc_status_name(enum xfab_macc_status s)
{
	switch (s) {
	case XFAB_MACC_OK:
		return "ok";
	case XFAB_MACC_NOT_MAC_CONTROL:
		return "not_mac_control";
	case XFAB_MACC_BAD_DST:
		return "bad_dst";
	case XFAB_MACC_TRUNCATED:
		return "truncated";
	case XFAB_MACC_BAD_OPCODE:
		return "bad_opcode";
	}
	return "unknown";
}

__u64 xfab_pfc_quanta_to_ns(__u32 quanta, __u32 speed_mbps)
{
	/* 512 bits at speed Mbit/s: 512,000 / speed ns */
	return speed_mbps ? (__u64)quanta * 512000ull / speed_mbps : 0;
}

__u32 xfab_pfc_ns_to_quanta(__u64 ns, __u32 speed_mbps)
{
	__u64 q;

	if (!speed_mbps)
		return 0;
	/* a product past 64 bits is far past the maximum anyway */
	if (ns > ~0ull / speed_mbps - 512000)
		return XFAB_PFC_MAX_QUANTA;
	q = (ns * speed_mbps + 511999) / 512000;
	return q > XFAB_PFC_MAX_QUANTA ? XFAB_PFC_MAX_QUANTA : (__u32)q;
}

int xfab_pfc_parse_prios(const char *s, __u8 *vector, char *err, size_t errlen)
{
	const char *p = s;
	__u8 v = 0;

	if (!*p)
		goto bad;
	for (;;) {
		int lo, hi;

		if (*p < '0' || *p > '7')
			goto bad;
		lo = hi = *p++ - '0';
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '7' || *p - '0' < lo)
				goto bad;
			hi = *p++ - '0';
		}
		for (int i = lo; i <= hi; i++)
			v |= (__u8)(1u << i);
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*vector = v;
	return 0;
bad:
	if (err && errlen)
		snprintf(err, errlen,
			 "priorities \"%s\", at character %zu: priorities are 0..7, as a list "
			 "like 3,4 or 0-2",
			 s, (size_t)(p - s) + 1);
	return -1;
}
