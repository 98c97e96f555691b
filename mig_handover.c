// SPDX-License-Identifier: GPL-2.0-or-later
/* mig_handover.c - migration on one host: the flows' sockets themselves go
 *		    to the target passt
 *
 * Theory of operation: when source and target run in the same network
 * namespace (one host: the usual test, and a VM manager restarting its
 * QEMU), the target can take the source's very sockets, with their kernel
 * state, queues and all, and nobody on the network can tell. Saving, the
 * source listens on an abstract UNIX socket of a random name (abstract
 * names belong to the network namespace: a target that reaches it is one
 * our sockets work in) and puts that name in the state (MIG_HANDOVER).
 * Loading, the target connects, and the source sends the sockets of the
 * flows it froze, by their position in the state, SCM_RIGHTS, at most
 * MIG_HANDOVER_BATCH at a time. The peer must run as our user; the source
 * serves once. A target elsewhere can't connect: the flows can't come
 * along that way.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "flow.h"
#include "flow_table.h"
#include "inany.h"
#include "log.h"
#include "mig_handover.h"
#include "mig_io.h"
#include "passt.h"
#include "repair.h"
#include "util.h"

#define MIG_HANDOVER_PREFIX	"pt-mig-"
#define MIG_HANDOVER_NAME	32	/* the prefix, 16 hex digits, NULs */
#define MIG_HANDOVER_BATCH	253	/* sockets a message: SCM_MAX_FD */

/**
 * struct mig_handover - MIG_HANDOVER: where the source hands its sockets
 *			 over, on this host
 * @name:	abstract UNIX socket name, MIG_HANDOVER_PREFIX and 16 hex
 *		digits, NUL-padded
 */
struct mig_handover {
	char name[MIG_HANDOVER_NAME];
};

/* The flows' sockets, handed over to a target on the same host. Source:
 * its listening socket, the flows whose sockets go, by position; target:
 * the sockets as they came, by position, until taken. Owner: this file.
 * The listening socket apart: an initialised table would be 1 MiB of the
 * binary.
 */
static int mig_ho_listen_fd = -1;
static struct {
	char name[MIG_HANDOVER_NAME];
	unsigned int n;
	bool repair;
	int flow[FLOW_MAX];
	int fd[FLOW_MAX];
} mig_ho;

/**
 * mig_sock_peer() - the host-side peer of a socket, as an address and port
 * @s:		socket
 * @a:		address, set
 * @port:	port, set (host order)
 *
 * Return: 0 on success, -1 if it has none
 */
int mig_sock_peer(int s, union inany_addr *a, uint16_t *port)
{
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);

	if (getpeername(s, &sa.sa, &sl))
		return -1;
	return inany_from_sockaddr(a, port, &sa) ? -1 : 0;
}

/**
 * mig_sock_check() - is a socket handed over the one a flow had?
 * @s:		socket
 * @type:	its type: SOCK_STREAM, SOCK_DGRAM
 * @proto:	its protocol
 * @peer:	the peer the source's had; unspecified, with @port 0: any
 *		(a ping socket names none)
 * @port:	its port
 *
 * Return: true if it is of that kind, connected to that peer
 */
bool mig_sock_check(int s, int type, int proto, const struct in6_addr *peer,
		    uint16_t port)
{
	int t = 0, p = 0;
	socklen_t sl = sizeof(t);
	union inany_addr a;
	uint16_t pp;

	if (getsockopt(s, SOL_SOCKET, SO_TYPE, &t, &sl) ||
	    getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &p,
		       &(socklen_t){ sizeof(p) }) || t != type || p != proto)
		return false;
	if (!port && IN6_IS_ADDR_UNSPECIFIED(peer))
		return true;
	return !mig_sock_peer(s, &a, &pp) && pp == port &&
	       IN6_ARE_ADDR_EQUAL(&a.a6, peer);
}

/**
 * mig_handover_count() - sockets the source hands over so far
 *
 * Return: count, the position of the next one
 */
unsigned int mig_handover_count(void)
{
	return mig_ho.n;
}

/**
 * mig_handover_add() - the socket of this flow goes to the target
 * @idx:	flow index, frozen by the caller
 */
void mig_handover_add(int idx)
{
	mig_ho.flow[mig_ho.n++] = idx;
}

/**
 * mig_handover_flow() - the flow whose socket goes at this position
 * @pos:	position, below mig_handover_count()
 *
 * Return: flow index
 */
int mig_handover_flow(unsigned int pos)
{
	return mig_ho.flow[pos];
}

/**
 * mig_handover_repair() - TCP_REPAIR on or off on the sockets that go
 * @c:		execution context
 * @cmd:	REPAIR_ON, or REPAIR_OFF: only if it was set on, once
 *
 * Return: 0 if set, -1 if not (no passt-repair, it failed, or it is off)
 */
int mig_handover_repair(const struct ctx *c, int8_t cmd)
{
	static int fds[FLOW_MAX];
	unsigned int i, n = 0;

	if (cmd != REPAIR_ON && !mig_ho.repair)
		return -1;
	for (i = 0; i < mig_ho.n; i++) {
		const struct flow_common *f = flow_at(mig_ho.flow[i]);

		if (f->type == FLOW_TCP && f->frozen && !f->closing)
			fds[n++] = flowtab[mig_ho.flow[i]].tcp.sock;
	}
	mig_ho.repair = false;
	if (!n || repair_set(c, fds, n, cmd))
		return -1;
	mig_ho.repair = cmd == REPAIR_ON;
	info("migration: repair mode %s on %u sockets",
	     mig_ho.repair ? "set" : "cleared", n);
	return 0;
}

/**
 * mig_handover_take() - the socket handed over at this position
 * @pos:	position, from the state
 *
 * Return: the socket, now the caller's, or -1 if none came there
 */
int mig_handover_take(uint32_t pos)
{
	int fd;

	if (pos >= mig_ho.n)
		return -1;
	fd = mig_ho.fd[pos];
	mig_ho.fd[pos] = -1;
	return fd;
}

/**
 * mig_handover_addr() - the abstract address of a handover name
 * @sa:		address, set
 * @name:	name, NUL-padded
 *
 * Return: its length
 */
static socklen_t mig_handover_addr(struct sockaddr_un *sa, const char *name)
{
	size_t len = strnlen(name, MIG_HANDOVER_NAME);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, name, len);	/* abstract: leading NUL */
	return offsetof(struct sockaddr_un, sun_path) + 1 + len;
}

/**
 * mig_handover_open() - listen where the target fetches our sockets
 * @c:		execution context
 *
 * Abstract UNIX sockets belong to the network namespace: a target that
 * can connect runs where our sockets work. The random name is known only
 * to whoever reads our state; the peer must run as our user, too.
 *
 * Return: 0 on success, -1 if we can't (the target resets the flows)
 */
static int mig_handover_open(const struct ctx *c)
{
	struct sockaddr_un sa;
	uint8_t rnd[8];
	unsigned int i;
	int s;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -1;
	memset(mig_ho.name, 0, sizeof(mig_ho.name));
	memcpy(mig_ho.name, MIG_HANDOVER_PREFIX, strlen(MIG_HANDOVER_PREFIX));
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(mig_ho.name + strlen(MIG_HANDOVER_PREFIX) + 2 * i, 3,
			 "%02x", rnd[i]);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa,
			  mig_handover_addr(&sa, mig_ho.name)) || listen(s, 1)) {
		err("migration: socket handover: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	if (mig_ho_listen_fd >= 0) {
		epoll_ref_del(c, mig_ho_listen_fd);
		close(mig_ho_listen_fd);
	}
	mig_ho_listen_fd = s;
	epoll_ref_add(c, s, EPOLL_TYPE_MIG_HANDOVER, 0, EPOLLIN);
	return 0;
}

/**
 * mig_handover_close() - stop handing over: done, or the move failed
 * @c:		execution context
 */
void mig_handover_close(const struct ctx *c)
{
	if (mig_ho_listen_fd < 0)
		return;
	epoll_ref_del(c, mig_ho_listen_fd);
	close(mig_ho_listen_fd);
	mig_ho_listen_fd = -1;
}

/**
 * mig_peer_ours() - does the other end of a UNIX socket run as our user?
 * @s:		connected socket
 *
 * Return: true if so
 */
static bool mig_peer_ours(int s)
{
	struct ucred cred;
	socklen_t sl = sizeof(cred);

	return !getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &sl) &&
	       cred.uid == geteuid();
}

/**
 * mig_handover_send() - send the frozen flows' sockets, by position
 * @io:		the target's connection, with the deadline
 *
 * Each message: the positions (32 bits each), their sockets alongside.
 *
 * Return: 0 on success, -1 on failure
 */
static int mig_handover_send(struct mig_io *io)
{
	char cbuf[CMSG_SPACE(MIG_HANDOVER_BATCH * sizeof(int))];
	uint32_t pos[MIG_HANDOVER_BATCH];
	unsigned int i = 0;

	while (i < mig_ho.n) {
		struct iovec iov = { pos, 0 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf };
		int fds[MIG_HANDOVER_BATCH];
		unsigned int n = 0;
		struct cmsghdr *cm;

		for (; i < mig_ho.n && n < MIG_HANDOVER_BATCH; i++) {
			const struct flow_common *f = flow_at(mig_ho.flow[i]);

			if (!f->frozen || f->closing)
				continue;
			pos[n] = i;
			fds[n++] = flow_sock(mig_ho.flow[i]);
		}
		if (!n)
			break;
		iov.iov_len = n * sizeof(pos[0]);
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
		while (sendmsg(io->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			if (errno != EAGAIN || mig_wait(io, POLLOUT)) {
				err("migration: handing sockets over: %s",
				    strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

/**
 * mig_handover_forget() - close our side of what the target took
 *			   (--migrate-no-linger): no way back
 */
static void mig_handover_forget(void)
{
	unsigned int i;

	for (i = 0; i < mig_ho.n; i++) {
		const struct flow_common *f = flow_at(mig_ho.flow[i]);

		if (f->frozen && !f->closing)
			flow_close(mig_ho.flow[i]);
	}
}

/**
 * mig_handover_serve() - the target connected: give it our sockets, once
 * @c:		execution context
 */
void mig_handover_serve(struct ctx *c)
{
	struct mig_io io = { .deadline = mig_now_ms() + MIG_TIMEOUT_MS };

	io.fd = accept4(mig_ho_listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (io.fd < 0)
		return;
	if (!mig_peer_ours(io.fd)) {
		warn("migration: handover asked by another user, refused");
		close(io.fd);
		return;
	}
	/* The sockets go as they are, out of repair mode: else they'd be
	 * no use there; the target can still rebuild them from the state
	 */
	if (mig_ho.repair && mig_handover_repair(c, REPAIR_OFF)) {
		warn("migration: sockets stuck in repair mode, not handed over");
	} else if (!mig_handover_send(&io)) {
		info("migration: %u sockets handed over", mig_ho.n);
		if (c->migrate_no_linger)
			mig_handover_forget();
	}
	close(io.fd);
	mig_handover_close(c);
}

/**
 * mig_handover_recv() - take one message of sockets from the source
 * @io:		the connection to the source, with the deadline
 *
 * Return: 1 for a message, 0 at the end, -1 if it is wrong
 */
static int mig_handover_recv(struct mig_io *io)
{
	char cbuf[CMSG_SPACE(MIG_HANDOVER_BATCH * sizeof(int))];
	uint32_t pos[MIG_HANDOVER_BATCH];
	struct iovec iov = { pos, sizeof(pos) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int fds[MIG_HANDOVER_BATCH], bad = 0;
	unsigned int i, nfds = 0;
	struct cmsghdr *cm;
	ssize_t n;

	while ((n = recvmsg(io->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0) {
		if (errno != EAGAIN || mig_wait(io, POLLIN))
			return -1;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS && !nfds) {
			nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(cm), nfds * sizeof(int));
		}
	}
	if (!n && !nfds)
		return 0;
	bad = (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	      (size_t)n != nfds * sizeof(pos[0]);
	for (i = 0; i < nfds; i++) {
		if (bad || pos[i] >= FLOW_MAX || mig_ho.fd[pos[i]] >= 0) {
			close(fds[i]);
			bad = 1;
			continue;
		}
		mig_ho.fd[pos[i]] = fds[i];
		mig_ho.n = MAX(mig_ho.n, pos[i] + 1);
	}
	return bad ? -1 : 1;
}

/**
 * mig_handover_release() - close the sockets that came and weren't taken
 */
void mig_handover_release(void)
{
	unsigned int i;

	for (i = 0; i < mig_ho.n; i++) {
		if (mig_ho.fd[i] >= 0)
			close(mig_ho.fd[i]);
		mig_ho.fd[i] = -1;
	}
	mig_ho.n = 0;
}

/**
 * mig_handover_load() - MIG_HANDOVER: fetch the source's sockets, if it
 *			 runs here
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, also if the source isn't reachable (its
 *	   connections are then reset); -1 if the section or what the
 *	   source sends is wrong
 */
int mig_handover_load(struct mig_io *io, uint32_t len)
{
	struct mig_io ho = { .deadline = io->deadline };
	struct mig_handover h;
	struct sockaddr_un sa;
	unsigned int i;
	int ret;

	if (len != sizeof(h) || mig_read(io, &h, sizeof(h)) ||
	    strncmp(h.name, MIG_HANDOVER_PREFIX,
		    strlen(MIG_HANDOVER_PREFIX))) {
		err("migration: handover section is wrong");
		return -1;
	}
	for (i = strlen(MIG_HANDOVER_PREFIX); i < sizeof(h.name); i++) {
		if (h.name[i] && !strchr("0123456789abcdef", h.name[i])) {
			err("migration: handover name is wrong");
			return -1;
		}
	}
	mig_handover_release();
	memset(mig_ho.fd, 0xff, sizeof(mig_ho.fd));	/* all -1 */
	ho.fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ho.fd < 0 || connect(ho.fd, (struct sockaddr *)&sa,
				 mig_handover_addr(&sa, h.name))) {
		info("migration: source not on this host (%s): its "
		     "connections move by TCP_REPAIR, or are reset",
		     strerror(errno));
		if (ho.fd >= 0)
			close(ho.fd);
		return 0;
	}
	if (!mig_peer_ours(ho.fd)) {
		err("migration: handover from another user");
		close(ho.fd);
		return -1;
	}
	while ((ret = mig_handover_recv(&ho)) > 0)
		;
	close(ho.fd);
	if (ret < 0) {
		err("migration: sockets handed over wrong");
		return -1;
	}
	info("migration: %u sockets came from the source", mig_ho.n);
	return 0;
}


/**
 * mig_handover_save() - MIG_HANDOVER: where the target fetches our sockets
 * @c:		execution context
 * @io:		transfer
 *
 * Without a socket to listen on, no section: the target resets the flows.
 *
 * Return: 0 on success, also without a section; -1 if writing fails
 */
int mig_handover_save(const struct ctx *c, struct mig_io *io)
{
	struct mig_handover ho;

	mig_ho.n = 0;
	if (mig_handover_open(c))
		return 0;
	memcpy(ho.name, mig_ho.name, sizeof(ho.name));
	if (mig_section_start(io, MIG_HANDOVER, sizeof(ho)))
		return -1;
	return mig_write(io, &ho, sizeof(ho));
}
