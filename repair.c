// SPDX-License-Identifier: GPL-2.0-or-later
/* repair.c - passt's side of passt-repair: TCP_REPAIR on our sockets
 *
 * Theory of operation: moving a TCP connection to another host means
 * reading its kernel state out of the socket (sequence numbers, queues,
 * window) and writing it into a new one there: TCP_REPAIR mode, which
 * needs CAP_NET_ADMIN. We don't have it; passt-repair(1), run by whoever
 * does, connects to a UNIX socket of ours (--repair-path, by default the
 * vhost-user socket's path with ".repair" appended) and does it for us:
 * we send one signed byte, 1 (repair on), 0 (off) or -1 (off, no window
 * probe), with up to REPAIR_BATCH sockets passed along (SCM_RIGHTS); it
 * sets that mode on each and echoes the byte. Anything else, or silence
 * for REPAIR_TIMEOUT_MS, and the helper is dropped: the connections then
 * move as they can without it (same host), or are reset.
 *
 * One helper at a time; it may connect whenever it likes, and must run as
 * our user or as root. Upstream's passt-repair and ours speak the same
 * protocol.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "passt.h"
#include "repair.h"
#include "util.h"

#define REPAIR_SUFFIX		".repair"
#define REPAIR_BATCH		253	/* sockets a message: SCM_MAX_FD */
#define REPAIR_TIMEOUT_MS	5000	/* the helper's answer, at most */

/* The listening socket, the helper's connection, the socket's directory to
 * remove it at exit. Owner: this file.
 */
static struct {
	int listen_fd;
	int fd;
	int dir_fd;
	const char *name;
	uid_t uid;
} rep = { .listen_fd = -1, .fd = -1, .dir_fd = -1 };

/**
 * repair_init() - passt --vhost-user: listen for passt-repair
 * @c:		execution context, the vhost-user socket bound
 *
 * Before the sandbox: the path must be reachable, and its directory is
 * kept to remove the socket at exit.
 */
void repair_init(struct ctx *c)
{
	int fd;

	if (!c->repair_path[0] &&
	    snprintf(c->repair_path, sizeof(c->repair_path), "%s%s",
		     c->sock_path, REPAIR_SUFFIX) >= (int)sizeof(c->repair_path))
		die("Socket path too long for its repair socket: %s",
		    c->sock_path);
	fd = unix_sock_listen(c->repair_path, "--repair-path", 1, &rep.dir_fd,
			      &rep.name);
	rep.listen_fd = fd;
	rep.uid = geteuid();
	epoll_ref_add(c, fd, EPOLL_TYPE_REPAIR_LISTEN, 0, EPOLLIN);
	info("UNIX domain socket bound at %s, for passt-repair",
	     c->repair_path);
}

/**
 * repair_unlink() - remove the socket's file, at exit
 */
void repair_unlink(void)
{
	if (rep.dir_fd >= 0)
		unlinkat(rep.dir_fd, rep.name, 0);
}

/**
 * repair_drop() - the helper is gone, or no use: close its connection
 * @c:		execution context
 * @why:	what happened, for the log
 */
static void repair_drop(const struct ctx *c, const char *why)
{
	if (rep.fd < 0)
		return;
	warn("passt-repair: %s, helper dropped", why);
	epoll_ref_del(c, rep.fd);
	close(rep.fd);
	rep.fd = -1;
}

/**
 * repair_listen_handler() - a helper connects: take it, if it may
 * @c:		execution context
 */
void repair_listen_handler(struct ctx *c)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);
	int fd;

	fd = accept4(rep.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl) ||
	    (uc.uid && uc.uid != rep.uid)) {
		warn("passt-repair: a helper of another user, refused");
		close(fd);
		return;
	}
	if (rep.fd >= 0) {
		warn("passt-repair: PID %d refused, one helper is here", uc.pid);
		close(fd);
		return;
	}
	rep.fd = fd;
	epoll_ref_add(c, fd, EPOLL_TYPE_REPAIR, 0, EPOLLRDHUP);
	info("passt-repair: helper connected, PID %d", uc.pid);
}

/**
 * repair_handler() - the helper's connection, outside a request: it went
 * @c:		execution context
 * @events:	epoll events
 */
void repair_handler(struct ctx *c, uint32_t events)
{
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		repair_drop(c, "connection closed");
}

/**
 * repair_helper() - is a helper connected?
 *
 * Return: true if so
 */
bool repair_helper(void)
{
	return rep.fd >= 0;
}

/**
 * repair_wait() - wait for the helper's socket, within the timeout
 * @events:	POLLIN or POLLOUT
 * @deadline:	CLOCK_MONOTONIC, when to give up
 *
 * Return: 0 when ready, -1 on timeout or error
 */
static int repair_wait(short events, const struct timespec *deadline)
{
	struct pollfd p = { .fd = rep.fd, .events = events };
	struct timespec now, left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left.tv_sec = deadline->tv_sec - now.tv_sec;
	left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += 1000000000L;
	}
	if (left.tv_sec < 0)
		return -1;
	return ppoll(&p, 1, &left, NULL) == 1 && (p.revents & events) ? 0 : -1;
}

/**
 * repair_batch() - one request: a mode for up to REPAIR_BATCH sockets
 * @fds:	sockets
 * @n:		how many, 1 to REPAIR_BATCH
 * @cmd:	REPAIR_ON, REPAIR_OFF or REPAIR_OFF_NO_WP
 * @deadline:	when to give up waiting for the helper
 *
 * Return: NULL on success, else what went wrong
 */
static const char *repair_batch(const int *fds, unsigned int n, int8_t cmd,
				const struct timespec *deadline)
{
	char cbuf[CMSG_SPACE(REPAIR_BATCH * sizeof(int))] = { 0 };
	struct iovec iov = { &cmd, sizeof(cmd) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int8_t reply;
	ssize_t r;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	while (sendmsg(rep.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		if (errno != EAGAIN || repair_wait(POLLOUT, deadline))
			return "request not sent";
	}
	while ((r = recv(rep.fd, &reply, 1, MSG_DONTWAIT)) < 0) {
		if (errno != EAGAIN || repair_wait(POLLIN, deadline))
			return "no answer";
	}
	if (r != 1 || reply != cmd)
		return "it failed (not the right answer)";
	return NULL;
}

/**
 * repair_set() - set TCP_REPAIR on sockets, through the helper
 * @c:		execution context
 * @fds:	sockets
 * @n:		how many
 * @cmd:	REPAIR_ON, REPAIR_OFF or REPAIR_OFF_NO_WP
 *
 * Return: 0 on success, -1 if there's no helper or it failed (then it is
 *	   dropped)
 */
int repair_set(const struct ctx *c, const int *fds, unsigned int n, int8_t cmd)
{
	struct timespec deadline;
	unsigned int i;

	if (rep.fd < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += REPAIR_TIMEOUT_MS / 1000;
	for (i = 0; i < n; i += REPAIR_BATCH) {
		const char *why = repair_batch(fds + i, MIN(n - i, REPAIR_BATCH),
					       cmd, &deadline);

		if (why) {
			char msg[80];

			snprintf(msg, sizeof(msg), "TCP_REPAIR %d on %u sockets: %s",
				 cmd, MIN(n - i, REPAIR_BATCH), why);
			repair_drop(c, msg);
			return -1;
		}
	}
	return 0;
}
