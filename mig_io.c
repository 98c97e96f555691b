// SPDX-License-Identifier: GPL-2.0-or-later
/* mig_io.c - the migration state's stream: exact reads and writes through
 *	      the front-end's pipe (or memory, for tests), within a deadline
 *
 * The pipe may be non-blocking: a read or write that would block waits for
 * it, but never past the transfer's deadline (struct mig_io), so a stalled
 * front-end can't hold the daemon. Sections start with struct
 * mig_section_hdr; migrate.c describes the format.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "mig_io.h"
#include "util.h"

/**
 * mig_now_ms() - monotonic clock, for the transfer's deadline
 *
 * Return: milliseconds
 */
int64_t mig_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * mig_wait() - wait until the pipe is ready, within the deadline
 * @io:		transfer, on a pipe
 * @events:	POLLIN or POLLOUT
 *
 * Return: 0 if ready, -1 on timeout or error
 */
int mig_wait(const struct mig_io *io, short events)
{
	struct pollfd p = { .fd = io->fd, .events = events };
	int64_t left = io->deadline - mig_now_ms();
	struct timespec ts = { left / 1000, (left % 1000) * 1000000 };

	/* ppoll(), not poll(): one call on every architecture (seccomp) */
	if (left <= 0 || ppoll(&p, 1, &ts, NULL) != 1) {
		err("migration: state transfer timed out");
		return -1;
	}
	return 0;
}

/**
 * mig_read() - read exactly this many bytes of the state
 * @io:		transfer
 * @buf:	where to, NULL to skip them
 * @len:	bytes
 *
 * Return: 0 on success, -1 if the state ends first or can't be read
 */
int mig_read(struct mig_io *io, void *buf, size_t len)
{
	uint8_t skip[512], *p = buf;

	if (io->fd < 0) {
		if (len > io->len - io->off)
			return -1;
		if (buf)
			memcpy(buf, io->mem + io->off, len);
		io->off += len;
		return 0;
	}
	while (len) {
		size_t n = buf ? len : MIN(len, sizeof(skip));
		ssize_t r = read(io->fd, buf ? p : skip, n);

		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (mig_wait(io, POLLIN))
				return -1;
			continue;
		}
		if (r <= 0) {
			if (r < 0)
				err("migration: reading the state: %s",
				    strerror(errno));
			return -1;
		}
		if (buf)
			p += r;
		len -= r;
	}
	return 0;
}

/**
 * mig_write() - write all of these bytes of the state
 * @io:		transfer, on a pipe
 * @buf:	bytes
 * @len:	how many
 *
 * Return: 0 on success, -1 on failure
 */
int mig_write(struct mig_io *io, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = write(io->fd, p, len);

		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (mig_wait(io, POLLOUT))
				return -1;
			continue;
		}
		if (r < 0) {
			err("migration: writing the state: %s",
			    strerror(errno));
			return -1;
		}
		p += r;
		len -= r;
	}
	return 0;
}

/**
 * mig_section_start() - write a section's header
 * @io:		transfer
 * @type:	enum mig_section
 * @len:	bytes of the section that follow
 *
 * Return: 0 on success, -1 on failure
 */
int mig_section_start(struct mig_io *io, enum mig_section type, uint32_t len)
{
	struct mig_section_hdr h = { htons(type), 0, htonl(len) };

	return mig_write(io, &h, sizeof(h));
}

