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
	size_t n = ctl_load_ports(ports);
	char name[IF_NAMESIZE], mac[18];

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-10s %7s %4s  %-17s  %-5s %-5s %5s  %s\n", "Port", "Ifindex", "Slot",
		       "MAC", "Admin", "Oper", "MTU", "Datapath");
	for (size_t i = 0; i < n; i++) {
		const struct xfab_port *p = &ports[i];
		const char *dp = p->datapath == XFAB_DP_TC ? "tc" : "xdp";

		ctl_port_name(p->ifindex, name);
		xfab_format_mac(p->mac, mac, sizeof(mac));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("port", name);
			ctl_jw_uint("ifindex", p->ifindex);
			ctl_jw_uint("slot", p->slot);
			ctl_jw_string("mac", mac);
			ctl_jw_string("admin", p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down");
			ctl_jw_string("oper", p->flags & XFAB_PORT_OPER_UP ? "up" : "down");
			ctl_jw_uint("mtu", p->mtu);
			ctl_jw_string("datapath", dp);
			ctl_jw_close('}');
		} else {
			printf("%-10s %7u %4u  %-17s  %-5s %-5s %5u  %s\n", name, p->ifindex,
			       p->slot, mac, p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down",
			       p->flags & XFAB_PORT_OPER_UP ? "up" : "down", p->mtu, dp);
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

CTL_SHOW(show_ports_obj, "device", 10, "ports", .view = show_ports,
	 .help = "ports: MAC, state, MTU, datapath")
