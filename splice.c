// SPDX-License-Identifier: GPL-2.0-or-later
/* splice.c - pasta's socket-to-socket TCP relay, loopback to loopback
 *
 * Theory of operation: a connection accepted on a -T port inside the
 * namespace goes to the host's loopback, on the port the rule names. One
 * from the host's loopback to a -t port goes, as upstream (2026), to the
 * namespace's own address, so that what listens on the namespace's
 * loopback alone stays private; with --host-lo-to-ns-lo, a
 * client of a loopback address reaches that address in the namespace
 * instead (splice_inbound()). Either way from a socket opened inside the
 * namespace, unless --no-splice. Neither sees frames or the tap: the two
 * sockets are joined by two pipes, one per direction, and the kernel moves
 * the data with splice(2), socket to pipe, pipe to socket, without it ever
 * reaching our memory.
 *
 * Each direction reads its source only while its pipe can be emptied into
 * the other socket: when that socket is full, we stop reading the source
 * and wait for EPOLLOUT on the sink, so that memory is bounded by the pipes
 * (SPLICE_PIPE_SIZE each) and the sockets' own buffers. The source's end
 * of stream becomes shutdown(SHUT_WR) on the sink once its pipe is empty;
 * the flow closes once both directions have ended, or at once on an error
 * on either side, which resets the other (SO_LINGER 0).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "flow.h"
#include "flow_table.h"
#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "pasta.h"
#include "splice.h"

#define SPLICE_PIPE_SIZE	(1 << 20)
#define SPLICE_ACCEPT_BATCH	64
#define SPLICE_PIPES_SPARE	16	/* empty pipes kept from closed flows */

/* A new pipe costs pipe2(), fcntl() and, at the end, two close() calls
 * that free its buffers: at thousands of connections a second, 7% of our
 * time. An emptied one serves the next flow as well.
 */
static int splice_spare[SPLICE_PIPES_SPARE][2];
static int splice_spare_n;

/**
 * splice_pipe_get() - an empty pipe for a new flow, a spare one if any
 * @p:		read and write end, set on success
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int splice_pipe_get(int p[2])
{
	if (splice_spare_n) {
		splice_spare_n--;
		p[0] = splice_spare[splice_spare_n][0];
		p[1] = splice_spare[splice_spare_n][1];
		return 0;
	}
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return -1;
	fcntl(p[1], F_SETPIPE_SZ, SPLICE_PIPE_SIZE);
	return 0;
}

/**
 * splice_pipe_put() - keep a closed flow's pipe for the next one, or close it
 * @p:		read and write end
 * @empty:	nothing left in it
 */
static void splice_pipe_put(const int p[2], bool empty)
{
	if (empty && splice_spare_n < SPLICE_PIPES_SPARE) {
		splice_spare[splice_spare_n][0] = p[0];
		splice_spare[splice_spare_n][1] = p[1];
		splice_spare_n++;
		return;
	}
	close(p[0]);
	close(p[1]);
}

/**
 * splice_events_set() - the epoll events of both sockets, from the state
 * @c:		execution context
 * @sf:		flow
 *
 * A socket is read while its direction's pipe is empty and open, and
 * watched for writing while the other direction's pipe holds data for it
 * (or while it connects).
 */
static void splice_events_set(const struct ctx *c, struct splice_flow *sf)
{
	unsigned int side;

	for (side = 0; side < 2; side++) {
		uint32_t ev = sf->eof[side] ? 0 : EPOLLRDHUP;

		if (!sf->pending[side] && !sf->eof[side] && sf->connected)
			ev |= EPOLLIN;
		if (sf->pending[!side] || !sf->connected)
			ev |= EPOLLOUT;
		if (ev != sf->events[side]) {
			epoll_ref_mod(c, sf->s[side], EPOLL_TYPE_SPLICE,
				      (union flow *)sf - flowtab, ev);
			sf->events[side] = ev;
		}
	}
}

/**
 * splice_abort() - reset both sides and close the flow
 * @sf:		flow
 */
static void splice_abort(struct splice_flow *sf)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	unsigned int side;

	for (side = 0; side < 2; side++)
		setsockopt(sf->s[side], SOL_SOCKET, SO_LINGER, &lin,
			   sizeof(lin));
	flow_close((union flow *)sf - flowtab);
}

/**
 * splice_move() - move what one direction can, source to pipe to sink
 * @sf:		flow
 * @side:	direction: from s[side] to s[!side]
 *
 * Return: 0, or -1 if the flow must be reset
 */
static int splice_move(struct splice_flow *sf, unsigned int side)
{
	bool drained = false;
	int *p = sf->pipe[side];
	ssize_t n;

	while (!drained) {
		if (!sf->pending[side] && !sf->eof[side]) {
			n = splice(sf->s[side], NULL, p[1], NULL,
				   SPLICE_PIPE_SIZE,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0 && errno != EAGAIN)
				return -1;
			if (!n)
				sf->eof[side] = true;
			if (n > 0)
				sf->pending[side] = n;
			/* Less than asked: the socket is empty for now, and
			 * level-triggered epoll tells us when it is not (a
			 * request and its answer cost no extra EAGAIN)
			 */
			drained = n < SPLICE_PIPE_SIZE;
		}
		if (!sf->pending[side])
			break;
		n = splice(p[0], NULL, sf->s[!side], NULL, sf->pending[side],
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		sf->pending[side] -= n;
		if (sf->pending[side])
			return 0;	/* the sink is full: EPOLLOUT */
	}
	if (sf->eof[side] && !sf->shut[side]) {
		shutdown(sf->s[!side], SHUT_WR);
		sf->shut[side] = true;
	}
	return 0;
}

/**
 * splice_handler() - an event on either socket of a spliced connection
 * @c:		execution context
 * @ref:	epoll reference: flow index and socket
 * @events:	epoll events
 */
void splice_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	struct splice_flow *sf = &flowtab[ref.index].splice;
	unsigned int side;

	if (sf->f.type != FLOW_SPLICE || sf->f.closing ||
	    (sf->s[0] != ref.fd && sf->s[1] != ref.fd))
		return;		/* closed earlier in this batch */
	if (events & EPOLLERR) {
		splice_abort(sf);
		return;
	}
	if (!sf->connected) {
		/* A failed connect() comes with EPOLLERR, seen above */
		if (ref.fd != sf->s[1] || !(events & EPOLLOUT))
			return;
		sf->connected = true;	/* EPOLLOUT: what the client sent */
	}
	side = ref.fd == sf->s[1];
	/* Readable: that socket's direction; writable: the other one's */
	if (((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) &&
	     splice_move(sf, side)) ||
	    ((events & EPOLLOUT) && splice_move(sf, !side))) {
		splice_abort(sf);
		return;
	}
	if (sf->shut[0] && sf->shut[1]) {
		flow_close(ref.index);
		return;
	}
	splice_events_set(c, sf);
}

/**
 * splice_flow_new() - join an accepted socket to one to the other side
 * @c:		execution context
 * @s:		accepted socket
 * @peer:	new socket, on the other side, not connected yet (or -1)
 * @to_addr:	address to connect to on the other side
 * @to:		port to connect to there
 */
static void splice_flow_new(struct ctx *c, int s, int peer,
			    const union inany_addr *to_addr, uint16_t to)
{
	struct splice_flow *sf;
	union sockaddr_inany dst;
	socklen_t sl;
	int idx;

	idx = flow_alloc(c, FLOW_BUDGET_TCP);
	if (idx < 0) {
		err_ratelimit("splice: flow table full, refusing a connection");
		close(s);
		if (peer >= 0)
			close(peer);
		return;
	}
	sf = &flowtab[idx].splice;
	sf->f.type = FLOW_SPLICE;
	sf->s[0] = s;
	sf->s[1] = peer;
	sf->pipe[0][0] = sf->pipe[1][0] = -1;
	if (sf->s[1] < 0 || splice_pipe_get(sf->pipe[0]) ||
	    splice_pipe_get(sf->pipe[1])) {
		err_ratelimit("splice: %s", strerror(errno));
		flow_close(idx);
		return;
	}
	sl = sockaddr_from_inany(&dst, to_addr, to, 0);
	if (connect(sf->s[1], &dst.sa, sl) && errno != EINPROGRESS) {
		debug("splice: connect to port %u: %s", to, strerror(errno));
		splice_abort(sf);
		return;
	}
	epoll_ref_add(c, sf->s[0], EPOLL_TYPE_SPLICE, idx, EPOLLRDHUP);
	epoll_ref_add(c, sf->s[1], EPOLL_TYPE_SPLICE, idx, EPOLLOUT);
	sf->events[0] = EPOLLRDHUP;
	sf->events[1] = EPOLLOUT;
}

/**
 * splice_listen_handler() - accept connections on a -T port
 * @c:		execution context
 * @ref:	epoll reference, index is the listener
 * @events:	epoll events
 */
void splice_listen_handler(struct ctx *c, union epoll_ref ref,
			   uint32_t events)
{
	const struct fwd_listener *l = fwd_listener_at(ref.index);
	int i;

	(void)events;
	for (i = 0; i < SPLICE_ACCEPT_BATCH && l->fd == ref.fd; i++) {
		union sockaddr_inany sa;
		socklen_t sl = sizeof(sa);
		int s = accept4(ref.fd, &sa.sa, &sl,
				SOCK_NONBLOCK | SOCK_CLOEXEC);
		union inany_addr lo;

		if (s < 0) {
			fwd_accept_error(c, l, errno);
			return;
		}
		inany_loopback(&lo, sa.sa.sa_family);
		splice_flow_new(c, s, socket(sa.sa.sa_family, SOCK_STREAM |
					     SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
				&lo, l->to);
	}
}

/**
 * splice_inbound() - should a client of a -t or -u port be spliced, where to
 * @c:		execution context
 * @client:	client's address
 * @local:	the address it connected or sent to
 * @dst:	where in the namespace, set if spliced
 *
 * As upstream: a client on the host's loopback reaches the namespace's own
 * address; with --host-lo-to-ns-lo, a client of a loopback address reaches
 * that address in the namespace, whatever its source. Not with
 * --no-splice, nor for passt.
 *
 * Return: true to splice
 */
bool splice_inbound(const struct ctx *c, const union inany_addr *client,
		    const union inany_addr *local, union inany_addr *dst)
{
	if (c->mode != MODE_PASTA || c->no_splice)
		return false;
	if (c->host_lo_to_ns_lo) {
		*dst = *local;
		return inany_is_loopback(local);
	}
	return inany_is_loopback(client) &&
	       ip_guest_addr(inany_family(client), dst) &&
	       !inany_is_linklocal6(dst);
}

/**
 * splice_from_host() - take a -t connection from the host's loopback into
 *			the namespace
 * @c:		execution context
 * @s:		accepted socket
 * @dst:	where in the namespace, from splice_inbound()
 * @to:		port in the namespace
 */
void splice_from_host(struct ctx *c, int s, const union inany_addr *dst,
		      uint16_t to)
{
	splice_flow_new(c, s, pasta_ns_socket(c, inany_family(dst),
					      SOCK_STREAM), dst, to);
}

/**
 * splice_flow_free() - release a closed flow's sockets and pipes
 * @c:		execution context
 * @idx:	flow index
 */
static void splice_flow_free(struct ctx *c, int idx)
{
	struct splice_flow *sf = &flowtab[idx].splice;
	unsigned int i;

	(void)c;
	/* Each socket has this descriptor alone: close() takes it out of the
	 * epoll set as well
	 */
	for (i = 0; i < 2; i++) {
		if (sf->s[i] >= 0)
			close(sf->s[i]);
		if (sf->pipe[i][0] >= 0)
			splice_pipe_put(sf->pipe[i], !sf->pending[i]);
	}
}

/* Never evicted: spliced TCP shares TCP's budget, but isn't half-open */
static const struct flow_type_ops splice_flow_ops = {
	.free		= splice_flow_free,
	.loopback	= true,
};

/**
 * splice_init() - register spliced connections with the flow table
 */
void splice_init(void)
{
	flow_type_register(FLOW_SPLICE, &splice_flow_ops);
}
