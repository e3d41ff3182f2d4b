// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "clock.h"
#include "sdnotify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int xfab_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t plen, slen = strlen(state);
	socklen_t salen;
	ssize_t n;
	int fd, err = 0;

	if (!path || !path[0])
		return 1;
	plen = strlen(path);
	/* a path (absolute) or an abstract name; "vsock:" and the like are
	 * for VMs, not a switch */
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, slen, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != slen)
		err = -EMSGSIZE;
	close(fd);
	return err;
}

int xfab_sd_ready_msg(char *buf, size_t len, int n_ports, const char *datapath)
{
	int n = snprintf(buf, len, "READY=1\nSTATUS=forwarding on %d ports (%s datapath)", n_ports,
			 datapath);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int xfab_sd_reloading_msg(char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "RELOADING=1\nMONOTONIC_USEC=%llu",
		     (unsigned long long)(xfab_mono_ns() / 1000ULL));
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int xfab_sd_journal_stderr(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

int xfab_sd_priority(const char *level)
{
	static const struct {
		const char *name;
		int prio;
	} levels[] = {{"error", 3}, {"warn", 4}, {"info", 6}, {"debug", 7}};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(level, levels[i].name))
			return levels[i].prio;
	return 5;
}
