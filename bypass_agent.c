// SPDX-License-Identifier: GPL-2.0-or-later

/* PASTA - Pack A Subtle Tap Abstraction
 *
 * bypass_agent.c - --bypass-agent PATH: the container runtime's seccomp
 * agent, so that --bypass serves a container's connect() calls too
 *
 * An OCI runtime whose container has a seccomp profile with an
 * SCMP_ACT_NOTIFY action on connect() and "listenerPath": PATH (runc, crun;
 * Podman passes the profile's listenerPath on) connects to PATH once the
 * container's filter is in place, and sends one message: the container's
 * process state, JSON ({"ociVersion": ..., "fds": ["seccompFd"], "pid": ...,
 * "state": {...}}), with the descriptors "fds" names passed alongside
 * (SCM_RIGHTS), then closes the connection. We take the "seccompFd" one
 * (the only one, if the message names none: crun's receiver) and serve it
 * as we serve the command's with --bypass (bypass.c), one listener for each
 * container or exec'd process.
 *
 * The socket is made before the sandbox, so that the runtime can connect
 * as soon as the runtime's caller (Podman) sees us started. Only our own
 * user may send us a listener: SO_PEERCRED.
 */

#include <errno.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bypass.h"
#include "bypass_agent.h"
#include "log.h"
#include "passt.h"
#include "util.h"

#define AGENT_BACKLOG		16
#define AGENT_MSG_MAX		4096	/* the state's start: "fds" is first */
#define AGENT_FDS_MAX		8	/* descriptors in one message */

static int agent_listen_fd = -1;
static int agent_dir_fd = -1;
static const char *agent_name;
static uid_t agent_uid;

/**
 * bypass_agent_init() - listen on --bypass-agent PATH, if given
 * @c:		execution context
 */
void bypass_agent_init(struct ctx *c)
{
	int fd;

	if (!c->bypass_agent[0])
		return;
	fd = unix_sock_listen(c->bypass_agent, "--bypass-agent", AGENT_BACKLOG,
			      &agent_dir_fd, &agent_name);
	agent_listen_fd = fd;
	agent_uid = geteuid();
	epoll_ref_add(c, fd, EPOLL_TYPE_BYPASS_AGENT, 0, EPOLLIN);
	info("Seccomp agent for the container runtime: %s", c->bypass_agent);
}

/**
 * bypass_agent_unlink() - remove the socket's file, at exit
 */
void bypass_agent_unlink(void)
{
	if (agent_dir_fd >= 0)
		unlinkat(agent_dir_fd, agent_name, 0);
}

/**
 * bypass_agent_handler() - the runtime connects: wait for its message
 * @c:		execution context
 * @events:	epoll events
 */
void bypass_agent_handler(struct ctx *c, uint32_t events)
{
	struct ucred cred;
	socklen_t sl = sizeof(cred);
	int s;

	(void)events;
	s = accept4(agent_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0)
		return;
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &sl) ||
	    cred.uid != agent_uid) {
		warn("--bypass-agent: connection from UID %d refused",
		     sl == sizeof(cred) ? (int)cred.uid : -1);
		close(s);
		return;
	}
	epoll_ref_add(c, s, EPOLL_TYPE_BYPASS_RUNTIME, 0, EPOLLIN);
}

/**
 * agent_seccomp_index() - where "seccompFd" is in the state's "fds" list
 * @msg:	the message, NUL-terminated
 *
 * Return: its index, -1 if the list names no such descriptor, -2 if the
 *	   message has no "fds" list
 */
static int agent_seccomp_index(const char *msg)
{
	const char *p = strstr(msg, "\"fds\"");
	int i;

	if (!p)
		return -2;
	p += strlen("\"fds\"");
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return -2;
	p += strspn(p, " \t\r\n");
	if (*p++ != '[')
		return -2;
	for (i = 0; ; i++) {
		p += strspn(p, " \t\r\n,");
		if (*p != '"')
			return -1;
		if (!strncmp(p, "\"seccompFd\"", strlen("\"seccompFd\"")))
			return i;
		p = strchr(p + 1, '"');
		if (!p)
			return -1;
		p++;
	}
}

/**
 * agent_is_listener() - is this descriptor a seccomp filter's listener?
 * @fd:		descriptor
 *
 * Return: true if it is: it knows the ioctl, and no notification 0
 */
static bool agent_is_listener(int fd)
{
	uint64_t id = 0;

	return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) && errno == ENOENT;
}

/**
 * agent_recv() - the runtime's message and the descriptors with it
 * @s:		connection
 * @msg:	buffer, NUL-terminated on return
 * @len:	its size
 * @fds:	descriptors received, set
 *
 * Return: how many descriptors, -1 if nothing came yet, -2 on error
 */
static int agent_recv(int s, char *msg, size_t len, int fds[AGENT_FDS_MAX])
{
	char cbuf[CMSG_SPACE(sizeof(int) * AGENT_FDS_MAX)];
	struct iovec iov = { msg, len - 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int nfds = 0;

	n = recvmsg(s, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -1;
	if (n <= 0)
		return -2;
	msg[n] = '\0';
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = MIN(k, (size_t)(AGENT_FDS_MAX - nfds));
		memcpy(fds + nfds, CMSG_DATA(cm), k * sizeof(int));
		nfds += (int)k;
	}
	return nfds;
}

/**
 * bypass_runtime_handler() - the runtime's message: take its listener
 * @c:		execution context
 * @s:		the runtime's connection
 * @events:	epoll events
 */
void bypass_runtime_handler(struct ctx *c, int s, uint32_t events)
{
	int fds[AGENT_FDS_MAX], nfds, want, i;
	char msg[AGENT_MSG_MAX];

	(void)events;
	nfds = agent_recv(s, msg, sizeof(msg), fds);
	if (nfds == -1)
		return;
	want = nfds > 0 ? agent_seccomp_index(msg) : -1;
	if (want == -2)
		want = nfds == 1 ? 0 : -1;
	for (i = 0; i < nfds; i++) {
		if (i != want)
			close(fds[i]);
	}
	if (want < 0 || want >= nfds) {
		warn("--bypass-agent: the runtime sent no seccomp listener");
	} else if (!agent_is_listener(fds[want])) {
		warn("--bypass-agent: \"seccompFd\" isn't a seccomp listener");
		close(fds[want]);
	} else if (bypass_listener_add(c, fds[want])) {
		warn("--bypass-agent: too many filters: this one's connect() "
		     "calls fail");
	} else {
		debug("--bypass-agent: serving a container's filter");
	}
	epoll_ref_del(c, s);
	close(s);
}
