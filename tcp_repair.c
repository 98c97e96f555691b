// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_repair.c - a TCP socket's kernel state, out of one socket and into
 *		  another on another host (TCP_REPAIR)
 *
 * Theory of operation: on one host, migration hands the very sockets over
 * (mig_handover.c). A target elsewhere needs a new socket with the same
 * state, or the host peer would see a stranger: the source's socket, in
 * repair mode (repair.c: passt-repair sets it for us), gives its sequence
 * numbers, queues, window, MSS, window scales, SACK and timestamp options;
 * the target builds a socket in repair mode, sets the same, "connects"
 * (no handshake in repair mode), fills its queues, and leaves repair mode:
 * the kernel then goes on where the source's stopped. The state travels
 * after the connection's MIG_TCP section (struct mig_tcp_repair, then the
 * receive queue, then the send queue, what the peer was sent first).
 *
 * Queues: what the peer sent and the kernel acknowledged, not yet read by
 * us, is the receive queue (our peek offset is rebuilt on the target from
 * the connection's own state); the send queue holds what we wrote and the
 * peer hasn't acknowledged. Its sent part is written in repair mode (the
 * kernel takes it as sent: retransmitted at the first timeout, or
 * acknowledged by the peer's answer to the window probe repair mode's end
 * sends), its unsent part after, as ordinary data. A FIN we sent goes again
 * with shutdown(SHUT_WR) at its sequence number; the peer's FIN, already
 * acknowledged, becomes shutdown(SHUT_RD): we read its end of stream after
 * the data, as the source would have.
 *
 * Limits: a send queue of at most TCP_REPAIR_SNDQ_MAX bytes (it is read
 * whole: the kernel has no peek offset for it), a receive queue of at most
 * TCP_REPAIR_RCVQ_MAX; a connection past them, or on a kernel without
 * SO_PEEK_OFF for TCP (Linux < 6.10), isn't dumped, and the target resets
 * it. The target's socket takes at most its buffer sizes in queues: a
 * connection whose queues don't fit is reset, never left with a hole.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "inany.h"
#include "log.h"
#include "mig_io.h"
#include "passt.h"
#include "repair.h"
#include "tcp_repair.h"
#include "util.h"

#define TCP_REPAIR_SNDQ_MAX	(8U << 20)
#define TCP_REPAIR_RCVQ_MAX	(16U << 20)
#define TCP_REPAIR_CHUNK	(64U << 10)

#define TCP_REPAIR_F_SACK	(1U << 0)	/* SACK permitted */
#define TCP_REPAIR_F_TS		(1U << 1)	/* timestamps */
#define TCP_REPAIR_F_WSCALE	(1U << 2)	/* window scaling */
#define TCP_REPAIR_F_FIN_IN	(1U << 3)	/* the peer's FIN came */
#define TCP_REPAIR_F_FIN_OUT	(1U << 4)	/* we sent ours */
#define TCP_REPAIR_F_ALL	0x1f

/* The send queue of the socket being saved (read whole), and one chunk of
 * a receive queue or of a queue being loaded. Owner: this file, during a
 * transfer only.
 */
static uint8_t tcp_repair_sndq[TCP_REPAIR_SNDQ_MAX];
static uint8_t tcp_repair_chunk[TCP_REPAIR_CHUNK];

/**
 * tcp_repair_queue() - which queue TCP_QUEUE_SEQ and reads and writes mean
 * @s:		socket, in repair mode
 * @q:		TCP_RECV_QUEUE, TCP_SEND_QUEUE or TCP_NO_QUEUE
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_repair_queue(int s, int q)
{
	return setsockopt(s, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q));
}

/**
 * tcp_repair_seq() - a queue's sequence number: the next byte it takes
 * @s:		socket, in repair mode
 * @q:		TCP_RECV_QUEUE or TCP_SEND_QUEUE
 * @seq:	set
 * @ioc:	ioctl() counting the queue's bytes (SIOCINQ, SIOCOUTQ)
 * @bytes:	its result, set
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_repair_seq(int s, int q, uint32_t *seq, unsigned long ioc,
			  int *bytes)
{
	socklen_t sl = sizeof(*seq);

	return tcp_repair_queue(s, q) ||
	       getsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &sl) ||
	       ioctl(s, ioc, bytes) || *bytes < 0 ? -1 : 0;
}

/**
 * tcp_repair_fins() - which FINs the socket's state says were sent, came
 * @state:	tcpi_state
 *
 * Return: TCP_REPAIR_F_FIN_IN, _FIN_OUT bits, or -1 for a state we don't
 *	   move (not connected, or closed)
 */
static int tcp_repair_fins(uint8_t state)
{
	switch (state) {
	case TCP_ESTABLISHED:
		return 0;
	case TCP_FIN_WAIT1:
	case TCP_FIN_WAIT2:
		return TCP_REPAIR_F_FIN_OUT;
	case TCP_CLOSE_WAIT:
		return TCP_REPAIR_F_FIN_IN;
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		return TCP_REPAIR_F_FIN_IN | TCP_REPAIR_F_FIN_OUT;
	default:
		return -1;
	}
}

/**
 * tcp_repair_opts() - options, scales, MSS and timestamp clock
 * @s:		socket, in repair mode
 * @r:		state, in host order, flags and options set
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_repair_opts(int s, struct mig_tcp_repair *r)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	int fins, mss;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &sl) ||
	    (fins = tcp_repair_fins(ti.tcpi_state)) < 0)
		return -1;
	r->flags = fins;
	if (ti.tcpi_options & TCPI_OPT_SACK)
		r->flags |= TCP_REPAIR_F_SACK;
	if (ti.tcpi_options & TCPI_OPT_WSCALE) {
		r->flags |= TCP_REPAIR_F_WSCALE;
		r->snd_wscale = ti.tcpi_snd_wscale;
		r->rcv_wscale = ti.tcpi_rcv_wscale;
	}
	sl = sizeof(mss);
	if (getsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl) || mss <= 0 ||
	    mss > UINT16_MAX)
		return -1;
	r->mss = mss;
	if (ti.tcpi_options & TCPI_OPT_TIMESTAMPS) {
		r->flags |= TCP_REPAIR_F_TS;
		sl = sizeof(r->tsval);
		if (getsockopt(s, IPPROTO_TCP, TCP_TIMESTAMP, &r->tsval, &sl))
			return -1;
	}
	return 0;
}

/**
 * tcp_repair_sndq_dump() - the send queue: its start, length, unsent part
 * @s:		socket, in repair mode
 * @r:		state, in host order, FIN flags set; queue fields set
 *
 * The queue is read whole into tcp_repair_sndq. A FIN we sent has a
 * sequence number of its own, counted by the kernel, with no data.
 *
 * Return: 0 on success, -1 on failure, or if the queue is too long
 */
static int tcp_repair_sndq_dump(int s, struct mig_tcp_repair *r)
{
	unsigned int fin = !!(r->flags & TCP_REPAIR_F_FIN_OUT);
	int outq, nsd;
	uint32_t seq;

	if (tcp_repair_seq(s, TCP_SEND_QUEUE, &seq, SIOCOUTQ, &outq) ||
	    ioctl(s, SIOCOUTQNSD, &nsd) || nsd < 0 || nsd > outq)
		return -1;
	r->sndq = outq - (fin && outq);		/* an unacknowledged FIN */
	r->notsent = MIN((uint32_t)(nsd - (fin && nsd)), r->sndq);
	r->snd_seq = seq - fin - r->sndq;
	if (r->sndq > TCP_REPAIR_SNDQ_MAX)
		return -1;
	return r->sndq && recv(s, tcp_repair_sndq, r->sndq,
			       MSG_PEEK | MSG_DONTWAIT) != (ssize_t)r->sndq ?
	       -1 : 0;
}

/**
 * tcp_repair_dump() - read a socket's state, in repair mode
 * @s:		socket, in repair mode
 * @r:		state, set in host order (tcp_repair_write() converts)
 *
 * Return: 0 on success, -1 if it can't be moved this way
 */
int tcp_repair_dump(int s, struct mig_tcp_repair *r)
{
	struct tcp_repair_window w;
	socklen_t sl = sizeof(w);
	union inany_addr local;
	union sockaddr_inany sa;
	int inq, peek_off;

	memset(r, 0, sizeof(*r));
	sl = sizeof(sa);
	if (getsockname(s, &sa.sa, &sl) ||
	    inany_from_sockaddr(&local, &r->local_port, &sa))
		return -1;
	r->local = local.a6;
	if (tcp_repair_opts(s, r) || tcp_repair_sndq_dump(s, r) ||
	    tcp_repair_seq(s, TCP_RECV_QUEUE, &r->rcv_seq, SIOCINQ, &inq) ||
	    (uint32_t)inq > TCP_REPAIR_RCVQ_MAX)
		return -1;
	/* After the peer's FIN, the kernel's next byte is past it: the data
	 * ends one earlier, and the target's receive queue, one later
	 */
	r->rcvq = inq;
	r->rcv_seq -= r->rcvq;
	sl = sizeof(w);
	if (getsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &sl))
		return -1;
	r->snd_wl1 = w.snd_wl1;
	r->snd_wnd = w.snd_wnd;
	r->max_window = w.max_window;
	r->rcv_wnd = w.rcv_wnd;
	r->rcv_wup = w.rcv_wup;
	/* The receive queue is read in chunks at our peek offset: there
	 * must be one (Linux 6.10)
	 */
	sl = sizeof(peek_off);
	return getsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &peek_off, &sl) ? -1 : 0;
}

/**
 * tcp_repair_len() - bytes the state takes in a section
 * @r:		state, in host order
 *
 * Return: length
 */
uint32_t tcp_repair_len(const struct mig_tcp_repair *r)
{
	return sizeof(*r) + r->rcvq + r->sndq;
}

/**
 * tcp_repair_order() - the integers of a state from one byte order to
 *			the other
 * @r:		state, converted in place
 */
static void tcp_repair_order(struct mig_tcp_repair *r)
{
	uint32_t *u32[] = { &r->snd_seq, &r->rcv_seq, &r->sndq, &r->notsent,
			    &r->rcvq, &r->tsval, &r->snd_wl1, &r->snd_wnd,
			    &r->max_window, &r->rcv_wnd, &r->rcv_wup };
	unsigned int i;

	r->local_port = htons(r->local_port);
	r->mss = htons(r->mss);
	for (i = 0; i < ARRAY_SIZE(u32); i++)
		*u32[i] = htonl(*u32[i]);
}

/**
 * tcp_repair_rcvq_write() - the receive queue into the state, peeked in
 *			     chunks from its start
 * @io:		transfer
 * @s:		socket, in repair mode
 * @len:	bytes in the queue
 *
 * Our own peek offset is put back: if the move fails, we go on from it.
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_repair_rcvq_write(struct mig_io *io, int s, uint32_t len)
{
	int off, zero = 0, ret = 0;
	socklen_t sl = sizeof(off);

	if (getsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off, &sl) ||
	    tcp_repair_queue(s, TCP_RECV_QUEUE) ||
	    setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)))
		return -1;
	while (len && !ret) {
		ssize_t n = recv(s, tcp_repair_chunk,
				 MIN(len, sizeof(tcp_repair_chunk)),
				 MSG_PEEK | MSG_DONTWAIT);

		if (n <= 0)
			ret = -1;
		else if (!(ret = mig_write(io, tcp_repair_chunk, n)))
			len -= n;
	}
	if (setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)))
		ret = -1;
	return ret;
}

/**
 * tcp_repair_write() - a dumped state into a section: the state, the
 *			receive queue, the send queue
 * @io:		transfer
 * @s:		socket, in repair mode, just dumped
 * @r:		its state, in host order, as tcp_repair_dump() left it
 *
 * Return: 0 on success, -1 on failure
 */
int tcp_repair_write(struct mig_io *io, int s, const struct mig_tcp_repair *r)
{
	struct mig_tcp_repair w = *r;

	tcp_repair_order(&w);
	return mig_write(io, &w, sizeof(w)) ||
	       tcp_repair_rcvq_write(io, s, r->rcvq) ||
	       mig_write(io, tcp_repair_sndq, r->sndq) ? -1 : 0;
}

/**
 * tcp_repair_check() - does a loaded state make sense?
 * @r:		state, in host order
 * @len:	bytes of the section it came in, from the state on
 * @peer:	the connection's peer
 *
 * Return: NULL if it does, else what doesn't
 */
static const char *tcp_repair_check(const struct mig_tcp_repair *r,
				    uint32_t len, const union inany_addr *peer)
{
	union inany_addr local = { .a6 = r->local };

	if ((r->flags & ~TCP_REPAIR_F_ALL) || r->pad)
		return "repair flags";
	if (r->snd_wscale > 14 || r->rcv_wscale > 14)
		return "repair window scale";
	if (r->mss < 536)
		return "repair MSS";
	if (r->sndq > TCP_REPAIR_SNDQ_MAX || r->notsent > r->sndq ||
	    r->rcvq > TCP_REPAIR_RCVQ_MAX || len != tcp_repair_len(r))
		return "repair queue lengths";
	if (!r->local_port || !inany_v4(&local) != !inany_v4(peer) ||
	    inany_is_unspecified(&local) || inany_is_multicast(&local))
		return "repair local address";
	return NULL;
}

/**
 * tcp_repair_fill() - bytes of the state into a socket's queue
 * @io:		transfer
 * @s:		socket, -1 once it failed: the bytes are read and dropped
 * @len:	how many
 *
 * Return: 0 on success, -1 if the socket didn't take them all (all read
 *	   anyway), -2 if the transfer failed
 */
static int tcp_repair_fill(struct mig_io *io, int s, uint32_t len)
{
	int ret = s < 0 ? -1 : 0;

	while (len) {
		size_t n = MIN(len, sizeof(tcp_repair_chunk));

		if (mig_read(io, tcp_repair_chunk, n))
			return -2;
		if (!ret && send(s, tcp_repair_chunk, n,
				 MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)n)
			ret = -1;
		len -= n;
	}
	return ret;
}

/**
 * tcp_repair_room() - make a buffer big enough for a queue: the kernel's
 *		       own sizing starts small, what it grew to at the
 *		       source isn't ours to know
 * @s:		socket
 * @opt:	SO_SNDBUF or SO_RCVBUF
 * @bytes:	the queue's data
 *
 * The size is fixed from then on (no autotuning): only where needed. The
 * kernel doubles what it is given, for its own overhead.
 */
static void tcp_repair_room(int s, int opt, uint32_t bytes)
{
	int have, want = MIN(bytes, INT_MAX / 2);
	socklen_t sl = sizeof(have);

	if (bytes && !getsockopt(s, SOL_SOCKET, opt, &have, &sl) &&
	    have < 2 * want)
		setsockopt(s, SOL_SOCKET, opt, &want, sizeof(want));
}

/**
 * tcp_repair_connect() - a socket in repair mode, connected with the
 *			  source's sequence numbers and options
 * @c:		execution context
 * @r:		state, in host order, checked
 * @peer:	the connection's peer
 * @peer_port:	its port
 *
 * Return: the socket, still in repair mode, or -1 on failure
 */
static int tcp_repair_connect(const struct ctx *c,
			      const struct mig_tcp_repair *r,
			      const union inany_addr *peer, uint16_t peer_port)
{
	struct tcp_repair_opt opts[4];
	union inany_addr local = { .a6 = r->local };
	union sockaddr_inany sa;
	unsigned int n = 0;
	int s;
	socklen_t sl;

	s = socket(inany_family(peer), SOCK_STREAM | SOCK_NONBLOCK |
		   SOCK_CLOEXEC, IPPROTO_TCP);
	if (s < 0)
		return -1;
	opts[n++] = (struct tcp_repair_opt){ TCPOPT_MAXSEG, r->mss };
	if (r->flags & TCP_REPAIR_F_WSCALE)
		opts[n++] = (struct tcp_repair_opt){
			TCPOPT_WINDOW, r->snd_wscale | (r->rcv_wscale << 16) };
	if (r->flags & TCP_REPAIR_F_SACK)
		opts[n++] = (struct tcp_repair_opt){ TCPOPT_SACK_PERMITTED, 0 };
	if (r->flags & TCP_REPAIR_F_TS)
		opts[n++] = (struct tcp_repair_opt){ TCPOPT_TIMESTAMP, 0 };
	/* Repair mode binds where a listener is (a -t port): no SO_REUSEADDR,
	 * which would take that back
	 */
	if (repair_set(c, &s, 1, REPAIR_ON) ||
	    tcp_repair_queue(s, TCP_SEND_QUEUE) ||
	    setsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &r->snd_seq,
		       sizeof(r->snd_seq)) ||
	    tcp_repair_queue(s, TCP_RECV_QUEUE) ||
	    setsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &r->rcv_seq,
		       sizeof(r->rcv_seq)))
		goto fail;
	sl = sockaddr_from_inany(&sa, &local, r->local_port, 0);
	if (bind(s, &sa.sa, sl))
		goto fail;
	sl = sockaddr_from_inany(&sa, peer, peer_port, 0);
	if (connect(s, &sa.sa, sl) ||
	    setsockopt(s, IPPROTO_TCP, TCP_REPAIR_OPTIONS, opts,
		       n * sizeof(opts[0])) ||
	    ((r->flags & TCP_REPAIR_F_TS) &&
	     setsockopt(s, IPPROTO_TCP, TCP_TIMESTAMP, &r->tsval,
			sizeof(r->tsval))))
		goto fail;
	tcp_repair_room(s, SO_SNDBUF, r->sndq);
	tcp_repair_room(s, SO_RCVBUF, r->rcvq);
	return s;
fail:
	debug("TCP repair: building the socket: %s", strerror(errno));
	close(s);	/* in repair mode, or never connected: not a word */
	return -1;
}

/**
 * tcp_repair_finish() - the connection back to work on its new socket
 * @c:		execution context
 * @s:		socket, in repair mode, queues filled
 * @r:		state, in host order
 *
 * Return: 0 on success, -1 on failure (the socket still in repair mode)
 */
static int tcp_repair_finish(const struct ctx *c, int s,
			     const struct mig_tcp_repair *r)
{
	struct tcp_repair_window w = {
		.snd_wl1 = r->snd_wl1, .snd_wnd = r->snd_wnd,
		.max_window = r->max_window, .rcv_wnd = r->rcv_wnd,
		.rcv_wup = r->rcv_wup,
	};

	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)) ||
	    tcp_repair_queue(s, TCP_NO_QUEUE)) {
		debug("TCP repair: window: %s", strerror(errno));
		return -1;
	}
	return repair_set(c, &s, 1, REPAIR_OFF);
}

/**
 * tcp_repair_abort() - a socket out of repair mode whose state didn't all
 *			go in: the peer gets a reset, not a hole
 * @s:		socket, closed
 */
static void tcp_repair_abort(int s)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(s);
}

/**
 * tcp_repair_load() - a connection's socket from the state, as the source
 *		       had it
 * @c:		execution context
 * @io:		transfer, at the state
 * @len:	bytes of the section from there
 * @peer:	the connection's peer, checked by the caller
 * @peer_port:	its port
 * @build:	build the socket; else read the state and drop it
 *
 * Return: the socket, connected, out of repair mode; -1 if there's none
 *	   (the state was read); -2 if the state is wrong or the transfer
 *	   failed
 */
int tcp_repair_load(const struct ctx *c, struct mig_io *io, uint32_t len,
		    const union inany_addr *peer, uint16_t peer_port,
		    bool build)
{
	struct mig_tcp_repair r;
	const char *wrong;
	int s = -1, ret;
	bool bad;

	if (len < sizeof(r) || mig_read(io, &r, sizeof(r)))
		return -2;
	tcp_repair_order(&r);
	if ((wrong = tcp_repair_check(&r, len, peer))) {
		err("migration: TCP connection state: %s", wrong);
		return -2;
	}
	debug("TCP repair: %u bytes to receive, %u to send (%u not sent)",
	      r.rcvq, r.sndq, r.notsent);
	if (build && repair_helper())
		s = tcp_repair_connect(c, &r, peer, peer_port);
	bad = s < 0 || tcp_repair_queue(s, TCP_RECV_QUEUE);
	if ((ret = tcp_repair_fill(io, bad ? -1 : s, r.rcvq)) == -2)
		goto fail;
	bad = bad || ret || tcp_repair_queue(s, TCP_SEND_QUEUE);
	ret = tcp_repair_fill(io, bad ? -1 : s, r.sndq - r.notsent);
	if (ret == -2)
		goto fail;
	if (s >= 0 && (bad || ret || tcp_repair_finish(c, s, &r))) {
		close(s);		/* still in repair mode: silent */
		s = -1;
	}
	if ((ret = tcp_repair_fill(io, s, r.notsent)) == -2)
		goto fail;
	if (s < 0)
		return -1;
	if (ret ||
	    ((r.flags & TCP_REPAIR_F_FIN_OUT) && shutdown(s, SHUT_WR)) ||
	    ((r.flags & TCP_REPAIR_F_FIN_IN) && shutdown(s, SHUT_RD))) {
		warn("TCP repair: queues didn't fit in the new socket");
		tcp_repair_abort(s);
		return -1;
	}
	return s;
fail:
	if (s >= 0)
		close(s);
	return -2;
}
