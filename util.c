// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - small helpers shared by every module */

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/random.h>
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
 * epoll_ref_add() - watch a descriptor
 * @c:		execution context
 * @fd:		descriptor
 * @type:	enum epoll_type
 * @index:	flow index or port
 * @events:	epoll events
 */
void epoll_ref_add(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events)
{
	union epoll_ref ref = { .type = type, .fd = fd, .index = index };
	struct epoll_event ev = { .events = events, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev))
		err("epoll_ctl add fd %d: %s", fd, strerror(errno));
}

/**
 * epoll_ref_mod() - change the events watched on a descriptor
 * @c:		execution context
 * @fd:		descriptor
 * @type:	enum epoll_type
 * @index:	flow index or port
 * @events:	epoll events
 */
void epoll_ref_mod(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events)
{
	union epoll_ref ref = { .type = type, .fd = fd, .index = index };
	struct epoll_event ev = { .events = events, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, fd, &ev))
		err("epoll_ctl mod fd %d: %s", fd, strerror(errno));
}

void epoll_ref_del(const struct ctx *c, int fd)
{
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, fd, NULL);
}
