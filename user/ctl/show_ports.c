// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show ports */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static int show_ports(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports);
	char name[IF_NAMESIZE], mac[18];

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %7s %4s  %-17s  %-5s %-5s %5s  %s\n", "Port", "Ifindex", "Slot",
		       "MAC", "Admin", "Oper", "MTU", "Datapath");
	for (size_t i = 0; i < n; i++) {
		const struct xfab_port *p = &ports[i];
		const char *dp = p->datapath == XFAB_DP_TC ? "tc" : "xdp";

		port_name(p->ifindex, name);
		xfab_format_mac(p->mac, mac, sizeof(mac));
		if (json) {
			jw_open(NULL, '{');
			jw_string("port", name);
			jw_uint("ifindex", p->ifindex);
			jw_uint("slot", p->slot);
			jw_string("mac", mac);
			jw_string("admin", p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down");
			jw_string("oper", p->flags & XFAB_PORT_OPER_UP ? "up" : "down");
			jw_uint("mtu", p->mtu);
			jw_string("datapath", dp);
			jw_close('}');
		} else {
			printf("%-10s %7u %4u  %-17s  %-5s %-5s %5u  %s\n", name, p->ifindex,
			       p->slot, mac, p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down",
			       p->flags & XFAB_PORT_OPER_UP ? "up" : "down", p->mtu, dp);
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

CTL_SHOW(show_ports_obj, "device", 10, "ports", .view = show_ports,
	 .help = "ports: MAC, state, MTU, datapath")
