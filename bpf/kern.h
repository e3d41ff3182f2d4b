/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's own structures the data plane reads: the device behind a
 * port (up? carrier?) and its root qdisc's backlog. Only the fields used
 * are declared; CO-RE relocates their offsets against the running kernel's
 * BTF at load (the ___xfab suffix names xfab's view of each type).
 *
 * port_dev: a port's device, as the kernel hands it to that port's own
 * ingress programs (XDP, tc) with every frame it receives. The
 * pipeline reads it before it sends a packet to a port, so a device that
 * went down is seen at the first packet, before xfabd hears of it.
 */
#ifndef XFAB_BPF_KERN_H
#define XFAB_BPF_KERN_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "xfab_abi.h"
#include "maps.h"

struct gnet_stats_queue___xfab {
	__u32 qlen;
	__u32 backlog;
} __attribute__((preserve_access_index));

struct Qdisc___xfab {
	struct gnet_stats_queue___xfab qstats;
} __attribute__((preserve_access_index));

struct net_device___xfab {
	struct Qdisc___xfab *qdisc;
	unsigned int flags;  /* IFF_* */
	unsigned long state; /* enum netdev_state_t bits */
	int ifindex;
} __attribute__((preserve_access_index));

#define XFAB_IFF_UP 0x1u
/* enum netdev_state_t's __LINK_STATE_NOCARRIER (include/linux/netdevice.h) */
#define XFAB_LINK_STATE_NOCARRIER 2

struct sk_buff___xfab {
	struct net_device___xfab *dev;
	unsigned int len;
	__u32 mark;  /* in an anonymous union: CO-RE finds it there */
	int skb_iif; /* the device it came in on */
} __attribute__((preserve_access_index));

struct xdp_rxq_info___xfab {
	struct net_device___xfab *dev;
} __attribute__((preserve_access_index));

struct xdp_txq_info___xfab {
	struct net_device___xfab *dev;
} __attribute__((preserve_access_index));

struct xdp_buff___xfab {
	struct xdp_rxq_info___xfab *rxq;
	struct xdp_txq_info___xfab *txq;
} __attribute__((preserve_access_index));

/* The redirect state of the running NAPI poll (6.11+): a DEVMAP redirect
 * queues its device on dev_map_flush_list until the poll's end flushes it.
 * The context lives on the stack of whoever set it (net_rx_action, a test
 * run) and its lists are initialised only when first used, which the
 * kernel records in ri.kern_flags (BPF_RI_F_DEV_MAP_INIT, include/linux/
 * filter.h): before that the list head is whatever the stack held. */
#define XFAB_RI_F_DEV_MAP_INIT (1u << 3)

struct list_head___xfab {
	struct list_head___xfab *next;
} __attribute__((preserve_access_index));

struct bpf_redirect_info___xfab {
	__u32 kern_flags;
} __attribute__((preserve_access_index));

struct bpf_net_context___xfab {
	struct bpf_redirect_info___xfab ri;
	struct list_head___xfab dev_map_flush_list;
} __attribute__((preserve_access_index));

struct task_struct___xfab {
	struct bpf_net_context___xfab *bpf_net_context;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
/* A read-only view of kernel memory as a BTF type: every load through it
 * is a fault-safe probe read (the verifier inlines the cast). */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/* The device can send: administratively up and with a carrier. */
static __always_inline int xfab_dev_carries(const struct net_device___xfab *dev)
{
	return (dev->flags & XFAB_IFF_UP) && !(dev->state & (1ul << XFAB_LINK_STATE_NOCARRIER));
}

/* Records the device the kernel handed a program of port ifindex, the
 * first time (a device is the same for its whole life, and an ifindex is
 * not handed to another device while the namespace lives: a pointer that
 * stopped matching is cleared where it is read, xfab_port_dev_live, and
 * noted again here). dev is read only then: a per-packet load saved. */
#define xfab_port_dev_note(ifindex, dev_expr)                                                      \
	do {                                                                                       \
		__u32 __ifx = (ifindex);                                                           \
		__u64 *__p = bpf_map_lookup_elem(&port_dev, &__ifx);                               \
                                                                                                   \
		if (__p && !*__p)                                                                  \
			*__p = (__u64)(unsigned long)(dev_expr);                                   \
	} while (0)

/*
 * Can the device of port ifindex send? 1 when its device was never seen
 * (the ports table alone decides then) or is not that port's any more (a
 * device gone, its memory reused: the address is only read, through
 * probe reads that cannot fault, and its ifindex must match).
 */
static __always_inline int xfab_port_dev_live(__u32 ifindex)
{
	const struct net_device___xfab *dev;
	__u64 *p = bpf_map_lookup_elem(&port_dev, &ifindex);

	if (!p || !*p)
		return 1;
	dev = bpf_rdonly_cast((void *)(unsigned long)*p,
			      bpf_core_type_id_kernel(struct net_device___xfab));
	if (dev->ifindex != (int)ifindex) {
		*p = 0; /* gone: the port's next frame notes its device again */
		return 1;
	}
	return xfab_dev_carries(dev);
}

/*
 * The clock of the xdp datapath's flowlets, port loads and phantom queues,
 * per NAPI batch. bpf_ktime_get_ns costs 10-30 ns on a VM (kvm-clock reads
 * the TSC with a barrier), more than the rest of an ECMP decision; real
 * switches stamp a packet once, at arrival. Here a packet that finds a
 * redirect of the same NAPI poll still waiting for the poll's flush (so an
 * earlier packet of this poll read the clock), in the same jiffy, within
 * XFAB_CLOCK_REUSE packets of the read, takes the time that packet read:
 * its error is at most the processing time of those packets (about 1-2 us
 * here), well under a flowlet gap or a queue's drain at a port rate. The
 * first packet of every poll, every packet of a poll that redirected
 * nothing yet (punts, drops, test runs), the tc datapath, and kernels
 * without bpf_net_context (before 6.11) read the clock.
 */
#define XFAB_CLOCK_REUSE 16

struct xfab_clock {
	__u64 ns;      /* bpf_ktime_get_ns() when read */
	__u64 jiffies; /* bpf_jiffies64() then */
	__u32 uses;    /* packets that took ns since */
	__u32 pad;
};

static __always_inline int xfab_napi_redirected(void)
{
	const struct task_struct___xfab *task;
	const struct bpf_net_context___xfab *nc;
	const struct list_head___xfab *head;

	if (!bpf_core_field_exists(struct task_struct___xfab, bpf_net_context) ||
	    !bpf_core_field_exists(struct bpf_redirect_info___xfab, kern_flags))
		return 0;
	task = bpf_rdonly_cast((void *)bpf_get_current_task(),
			       bpf_core_type_id_kernel(struct task_struct___xfab));
	nc = task->bpf_net_context;
	/* an uninitialised list is stack garbage: no redirect yet */
	if (!nc || !(nc->ri.kern_flags & XFAB_RI_F_DEV_MAP_INIT))
		return 0;
	head = &nc->dev_map_flush_list;
	return head->next && head->next != head;
}

static __always_inline __u64 xfab_clock_now(struct xfab_clock *clk)
{
	__u64 j = bpf_jiffies64();

	if (clk->uses < XFAB_CLOCK_REUSE && clk->jiffies == j && xfab_napi_redirected()) {
		clk->uses++;
		return clk->ns;
	}
	clk->ns = bpf_ktime_get_ns();
	clk->jiffies = j;
	clk->uses = 1;
	return clk->ns;
}

#endif /* XFAB_BPF_KERN_H */
