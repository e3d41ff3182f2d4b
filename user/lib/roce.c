// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RoCEv2 headers, the pacer and a sender's PFC listener (roce.h), shared by
 * xfab-roce and xfab-coll. */
#define _GNU_SOURCE
#include "clock.h"
#include "roce.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pfcframe.h"

void xfab_bth_put(__u8 *b, const struct xfab_bth *h)
{
	b[0] = h->opcode;
	b[1] = h->flags;
	b[2] = (__u8)(h->pkey >> 8);
	b[3] = (__u8)h->pkey;
	b[4] = 0; /* reserved */
	b[5] = (__u8)(h->dqpn >> 16);
	b[6] = (__u8)(h->dqpn >> 8);
	b[7] = (__u8)h->dqpn;
	b[8] = h->ackreq ? 0x80 : 0; /* A bit, then 7 reserved bits */
	b[9] = (__u8)(h->psn >> 16);
	b[10] = (__u8)(h->psn >> 8);
	b[11] = (__u8)h->psn;
}

__u8 xfab_rc_send_opcode(__u64 j, __u64 npk)
{
	if (npk == 1)
		return XFAB_OP_RC_SEND_ONLY;
	if (j == 0)
		return XFAB_OP_RC_SEND_FIRST;
	return j + 1 == npk ? XFAB_OP_RC_SEND_LAST : XFAB_OP_RC_SEND_MIDDLE;
}

int xfab_bth_get(const __u8 *b, size_t len, struct xfab_bth *h)
{
	if (len < XFAB_BTH_LEN)
		return -1;
	h->opcode = b[0];
	h->flags = b[1];
	h->pkey = (__u16)(b[2] << 8 | b[3]);
	h->dqpn = (__u32)b[5] << 16 | (__u32)b[6] << 8 | b[7];
	h->ackreq = b[8] >> 7;
	h->psn = (__u32)b[9] << 16 | (__u32)b[10] << 8 | b[11];
	return 0;
}

void xfab_aeth_put(__u8 *b, __u8 syndrome, __u32 msn)
{
	b[0] = syndrome;
	b[1] = (__u8)(msn >> 16);
	b[2] = (__u8)(msn >> 8);
	b[3] = (__u8)msn;
}

int xfab_aeth_get(const __u8 *b, size_t len, __u8 *syndrome, __u32 *msn)
{
	if (len < XFAB_AETH_LEN)
		return -1;
	*syndrome = b[0];
	*msn = (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
	return 0;
}

void xfab_pacer_init(struct xfab_pacer *p, __u64 rate, __u64 burst, __u64 now)
{
	p->start = now;
	p->units = 0;
	p->rate = rate;
	p->burst = burst;
}

/* n units at the pacer's rate, in ns */
static __u64 pacer_ns(const struct xfab_pacer *p, __u64 n)
{
	return (__u64)((unsigned __int128)n * 1000000000ull / p->rate);
}

__u64 xfab_pacer_due(struct xfab_pacer *p, __u64 now, __u64 extra_ns)
{
	__u64 due, slack;

	if (!p->rate)
		return 0;
	due = p->start + pacer_ns(p, p->units) + extra_ns;
	slack = pacer_ns(p, p->burst);
	if (now > due + slack) { /* held up: drop the lost time */
		p->start += now - due - slack;
		due = now - slack;
	}
	return due;
}

void xfab_pacer_add(struct xfab_pacer *p, __u64 units)
{
	p->units += units;
	/* keep units * 1e9 far from overflowing: start again from here */
	if (p->rate && p->units > (1ull << 40)) {
		p->start += pacer_ns(p, p->units);
		p->units = 0;
	}
}

void xfab_pacer_set_rate(struct xfab_pacer *p, __u64 rate, __u64 now)
{
	__u64 due = p->rate ? p->start + pacer_ns(p, p->units) : now;

	p->start = due;
	p->units = 0;
	p->rate = rate;
}

int xfab_dev_of_addr(const struct sockaddr *addr, char dev[IF_NAMESIZE])
{
	struct ifaddrs *ifa, *i;
	int found = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i && found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != addr->sa_family)
			continue;
		if (addr->sa_family == AF_INET
			? ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			      ((const struct sockaddr_in *)addr)->sin_addr.s_addr
			: !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
				  &((const struct sockaddr_in6 *)addr)->sin6_addr, 16)) {
			snprintf(dev, IF_NAMESIZE, "%s", i->ifa_name);
			found = 0;
		}
	}
	freeifaddrs(ifa);
	return found;
}

__u32 xfab_link_speed(int fd, const char *dev)
{
	struct ethtool_cmd ec = {.cmd = ETHTOOL_GSET};
	struct ifreq ifr = {0};
	__u32 speed;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (char *)&ec;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return 0;
	speed = ethtool_cmd_speed(&ec);
	return speed == (__u32)SPEED_UNKNOWN ? 0 : speed;
}

/* The listener's receive ring (TPACKET_V2): the sender looks at it before
 * every packet, a memory read, not a system call. */
#define RING_FRAME 512
#define RING_BLOCK 4096
#define RING_BLOCKS 16
#define RING_FRAMES (RING_BLOCKS * RING_BLOCK / RING_FRAME)

static void ring_open(struct xfab_pfc_rx *p)
{
	struct tpacket_req req = {.tp_block_size = RING_BLOCK,
				  .tp_block_nr = RING_BLOCKS,
				  .tp_frame_size = RING_FRAME,
				  .tp_frame_nr = RING_FRAMES};
	int v = TPACKET_V2;
	void *m;

	if (setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		return; /* recvfrom() then */
	m = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		 0);
	if (m != MAP_FAILED)
		p->ring = m;
}

/* The next received frame: its bytes and length, or NULL when none waits;
 * ring_done() gives its slot back. */
static const __u8 *ring_next(struct xfab_pfc_rx *p, size_t *len, int *outgoing)
{
	struct tpacket2_hdr *h = (void *)(p->ring + (size_t)p->slot * RING_FRAME);
	const struct sockaddr_ll *sll;

	if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
		return NULL;
	sll = (const void *)((__u8 *)h + TPACKET_ALIGN(sizeof(*h)));
	*outgoing = sll->sll_pkttype == PACKET_OUTGOING;
	*len = h->tp_snaplen;
	return (__u8 *)h + h->tp_mac;
}

static void ring_done(struct xfab_pfc_rx *p)
{
	struct tpacket2_hdr *h = (void *)(p->ring + (size_t)p->slot * RING_FRAME);

	__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
	p->slot = (p->slot + 1) % RING_FRAMES;
}

int xfab_pfc_open(struct xfab_pfc_rx *p, const char *dev, int prio, __u32 speed_mbps, char *err,
		  size_t errlen)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
				  .sll_protocol = htons(XFAB_ETH_P_MAC_CONTROL)};
	struct ifreq ifr = {0};
	__u32 speed;

	p->prio = prio;
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       htons(XFAB_ETH_P_MAC_CONTROL));
	sll.sll_ifindex = (int)if_nametoindex(p->dev);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->dev);
	if (p->fd < 0 || !sll.sll_ifindex || bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) ||
	    ioctl(p->fd, SIOCGIFHWADDR, &ifr)) {
		snprintf(err, errlen, "listening for PFC on %s: %s", p->dev, strerror(errno));
		if (p->fd >= 0)
			close(p->fd);
		p->fd = -1;
		return -1;
	}
	memcpy(p->mac, ifr.ifr_hwaddr.sa_data, 6);
	ring_open(p);
	speed = xfab_link_speed(p->fd, p->dev);
	p->speed_mbps = speed_mbps ? speed_mbps : speed ? speed : 10000;
	p->speed_from = speed_mbps ? "option" : speed ? "ethtool" : "default";
	return 0;
}

void xfab_pfc_expire(struct xfab_pfc_rx *p, __u64 now)
{
	if (p->until && now >= p->until) {
		p->paused_ns += p->until - p->since;
		p->until = 0;
	}
}

void xfab_pfc_read(struct xfab_pfc_rx *p)
{
	__u8 f[256];
	struct sockaddr_ll from;
	socklen_t flen;
	struct xfab_macc m;
	const __u8 *data;
	size_t len;
	int bad, outgoing;
	ssize_t n;

	if (p->fd < 0)
		return;
	for (;;) {
		__u64 t;
		__u16 q;

		if (p->ring) {
			data = ring_next(p, &len, &outgoing);
			if (!data)
				return;
			bad = !outgoing && xfab_macc_parse(data, len, p->mac, &m, NULL, 0);
			ring_done(p);
		} else {
			memset(&from, 0, sizeof(from));
			flen = sizeof(from);
			n = recvfrom(p->fd, f, sizeof(f), MSG_TRUNC, (struct sockaddr *)&from,
				     &flen);
			if (n < 0)
				return;
			outgoing = from.sll_pkttype == PACKET_OUTGOING;
			len = (size_t)n < sizeof(f) ? (size_t)n : sizeof(f);
			bad = !outgoing && xfab_macc_parse(f, len, p->mac, &m, NULL, 0);
		}
		if (outgoing)
			continue;
		if (bad) {
			p->malformed++;
			continue;
		}
		p->frames++;
		if (!(m.vector & (1u << p->prio))) {
			p->other++;
			continue;
		}
		t = xfab_mono_ns();
		xfab_pfc_expire(p, t);
		q = m.quanta[p->prio];
		if (!q) {
			p->xon++;
			if (p->until) {
				p->paused_ns += t - p->since;
				p->until = 0;
			}
			continue;
		}
		p->xoff++;
		if (!p->until) {
			p->since = t;
			p->pauses++;
		}
		p->until = t + xfab_pfc_quanta_to_ns(q, p->speed_mbps);
	}
}

int xfab_pfc_wait_until(struct xfab_pfc_rx *p, __u64 t)
{
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	struct timespec ts;

	for (;;) {
		__u64 now = xfab_mono_ns();

		if (now >= t)
			return 0;
		ts.tv_sec = (time_t)((t - now) / 1000000000ull);
		ts.tv_nsec = (long)((t - now) % 1000000000ull);
		if (p->fd < 0) {
			nanosleep(&ts, NULL);
			continue;
		}
		if (ppoll(&pfd, 1, &ts, NULL) > 0) {
			xfab_pfc_read(p);
			return 1;
		}
	}
}

void xfab_pfc_hold(struct xfab_pfc_rx *p, __u64 deadline)
{
	xfab_pfc_read(p);
	for (;;) {
		__u64 now = xfab_mono_ns();

		xfab_pfc_expire(p, now);
		if (!p->until || now >= deadline)
			return;
		xfab_pfc_wait_until(p, p->until < deadline ? p->until : deadline);
	}
}

__u64 xfab_pfc_paused_ns(const struct xfab_pfc_rx *p, __u64 now)
{
	__u64 open = 0;

	if (p->until)
		open = (now < p->until ? now : p->until) - p->since;
	return p->paused_ns + open;
}

void xfab_pfc_close(struct xfab_pfc_rx *p, __u64 now)
{
	if (p->until) { /* still paused: up to now or its end */
		p->paused_ns += (now < p->until ? now : p->until) - p->since;
		p->until = 0;
	}
	if (p->ring)
		munmap(p->ring, (size_t)RING_BLOCK * RING_BLOCKS);
	p->ring = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
