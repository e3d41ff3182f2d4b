// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A switch's ports by the names xfabd recorded in its port table, and the
 * network namespace its ports live in: BPF_PROG_TEST_RUN looks up the
 * ingress ifindex in the caller's namespace, so `trace` from another
 * namespace (a lab's root, say) first enters the switch's.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"

#define NETNS_RUN_DIR "/run/netns"

int ctl_find_port(const char *name, struct xfab_port *port)
{
	struct xfab_port ports[XFAB_MAX_PORTS];
	size_t n = ctl_load_ports(ports);

	for (size_t i = 0; name && i < n; i++) {
		if (!strncmp(ports[i].name, name, sizeof(ports[i].name)) &&
		    strlen(name) < sizeof(ports[i].name)) {
			*port = ports[i];
			return 0;
		}
	}
	return -1;
}

void ctl_print_port_names(FILE *out)
{
	struct xfab_port ports[XFAB_MAX_PORTS];
	size_t n = ctl_load_ports(ports);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%.16s", i ? ", " : "", ports[i].name);
	if (!n)
		fprintf(out, "none");
}

/* Is the port here: this ifindex with this name and MAC in the current
 * namespace? */
static int port_is_here(const struct xfab_port *port)
{
	char name[IF_NAMESIZE];
	struct ifreq ifr = {0};
	int fd, here;

	if (!if_indextoname(port->ifindex, name) || strncmp(name, port->name, sizeof(port->name)))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	here = ioctl(fd, SIOCGIFHWADDR, &ifr) == 0 && !memcmp(ifr.ifr_hwaddr.sa_data, port->mac, 6);
	close(fd);
	return here;
}

/* Enters /run/netns/NAME; stays there if the port is in it. */
static int try_netns(const char *name, const struct xfab_port *port, int home)
{
	char path[512];
	int fd, here;

	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	here = setns(fd, CLONE_NEWNET) == 0 && port_is_here(port);
	close(fd);
	if (!here && setns(home, CLONE_NEWNET)) {
		fprintf(stderr, "xfabctl: cannot return to the first namespace: %s\n",
			strerror(errno));
		return -1;
	}
	return here;
}

int ctl_enter_port_netns(const struct xfab_port *port)
{
	char lab_ns[256] = "";
	const char *sw, *lab;
	int home, found = 0;
	DIR *d;

	if (port_is_here(port))
		return 0;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return -1;
	/* xfab-lab pins under ROOT/LAB/SWITCH and names the namespace LAB-SWITCH */
	sw = strrchr(ctl_pin_dir, '/');
	if (sw && sw > ctl_pin_dir) {
		lab = sw - 1;
		while (lab > ctl_pin_dir && *lab != '/')
			lab--;
		if (*lab == '/')
			snprintf(lab_ns, sizeof(lab_ns), "%.*s-%s", (int)(sw - lab - 1), lab + 1,
				 sw + 1);
	}
	if (lab_ns[0])
		found = try_netns(lab_ns, port, home);
	/* otherwise any named namespace holding the port (name, ifindex, MAC) */
	d = found ? NULL : opendir(NETNS_RUN_DIR);
	for (struct dirent *de; d && !found && (de = readdir(d));)
		if (de->d_name[0] != '.')
			found = try_netns(de->d_name, port, home);
	if (d)
		closedir(d);
	close(home);
	return found > 0 ? 0 : -1;
}
