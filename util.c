// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - small helpers shared by every module */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "passt.h"
#include "util.h"

/**
 * fd_set_nonblock() - set O_NONBLOCK on a file descriptor
 * @fd:		file descriptor
 *
 * Return: 0 on success, -errno on failure
 */
int fd_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/**
 * path_dir_open() - open the directory a path is in, to reach it later
 * @path:	path of a file
 * @name:	set to its last component, within @path
 *
 * The sandbox hides the filesystem once the loop runs: what we look up or
 * remove later, we reach through its directory, opened before.
 *
 * Return: O_PATH descriptor of the directory, -1 with errno on failure
 */
int path_dir_open(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	*name = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/**
 * unix_sock_bind() - a UNIX stream socket bound to a path, taking over a
 *		      stale one
 * @path:	path
 *
 * A socket file nobody listens on any more (left by a process that was
 * killed) is removed and bound afresh. One we can't remove, another user's
 * say, stays in use.
 *
 * Return: socket, or -errno: -ENAMETOOLONG, -EADDRINUSE, or bind()'s
 */
int unix_sock_bind(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	ret = -errno;
	if (ret == -EADDRINUSE &&
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno == ECONNREFUSED && !unlink(path)) {
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		ret = -errno;
	}
	close(fd);
	return ret;
}

/**
 * unix_sock_listen() - listen on a UNIX stream socket at a path, or die
 * @path:	path
 * @opt:	the option that named it, for the messages
 * @backlog:	listen() backlog
 * @dir_fd:	set: the socket's directory, to remove it at exit
 * @name:	set: its name there
 *
 * Before the sandbox: the path must be reachable.
 *
 * Return: the listening socket
 */
int unix_sock_listen(const char *path, const char *opt, int backlog,
		     int *dir_fd, const char **name)
{
	int fd = unix_sock_bind(path);

	if (fd < 0)
		die("Can't bind %s %s: %s", opt, path, strerror(-fd));
	if (listen(fd, backlog))
		die("listen on %s %s: %s", opt, path, strerror(errno));
	*dir_fd = path_dir_open(path, name);
	return fd;
}

/**
 * write_all() - write a whole buffer to a blocking descriptor
 * @fd:		file descriptor
 * @buf:	data
 * @len:	length of @buf
 *
 * Return: 0 on success, -errno on failure
 */
int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * fd_send() - one message, with a descriptor or none, on a blocking socket
 * @s:		socket (datagrams or sequenced packets)
 * @buf:	data
 * @len:	its length, at least one byte
 * @fd:		descriptor to pass (SCM_RIGHTS), -1 for none
 *
 * Return: 0 on success, -1 on failure
 */
int fd_send(int s, const void *buf, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/**
 * fd_recv() - one message of fd_send(), waiting for it
 * @s:		socket
 * @buf:	data, set
 * @len:	the length it must have
 * @fd:		descriptor that came with it (close-on-exec), set, -1 if none
 *
 * Return: 0 on success, -1 on failure, a message of another length, or
 *	   the end of the stream
 */
int fd_recv(int s, void *buf, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	for (cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	}
	return n == (ssize_t)len && !(mh.msg_flags & MSG_TRUNC) ? 0 : -1;
}

/**
 * random_u64() - 64 random bits from the kernel, for hash keys and ISNs
 *
 * Return: random value
 */
uint64_t random_u64(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		die("getrandom: %s", strerror(errno));
	return v;
}

/**
 * epoll_ref_ctl() - add or change a watched descriptor with its reference
 * @c:		execution context
 * @op:		EPOLL_CTL_ADD or EPOLL_CTL_MOD
 * @fd:		descriptor
 * @type:	enum epoll_type
 * @index:	flow index or port
 * @events:	epoll events
 */
static void epoll_ref_ctl(const struct ctx *c, int op, int fd,
			  enum epoll_type type, uint32_t index,
			  uint32_t events)
{
	union epoll_ref ref = { .type = type, .fd = fd, .index = index };
	struct epoll_event ev = { .events = events, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epollfd, op, fd, &ev))
		err("epoll_ctl %s fd %d: %s",
		    op == EPOLL_CTL_ADD ? "add" : "mod", fd, strerror(errno));
}

void epoll_ref_add(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events)
{
	epoll_ref_ctl(c, EPOLL_CTL_ADD, fd, type, index, events);
}

void epoll_ref_mod(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events)
{
	epoll_ref_ctl(c, EPOLL_CTL_MOD, fd, type, index, events);
}

void epoll_ref_del(const struct ctx *c, int fd)
{
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, fd, NULL);
}
