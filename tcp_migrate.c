// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_migrate.c - a guest's TCP connections in its migration's state
 *
 * Theory of operation: our side of a connection (the guest's sequence
 * numbers, windows, scales, what it was sent and acknowledged) goes into
 * the state as one MIG_TCP section (struct mig_tcp), beside the position
 * of its host socket among those migrate.c hands over. The host socket
 * itself moves whole: on the same host, the target takes the source's
 * very socket (a descriptor passed over a UNIX socket, migrate.c), kernel
 * state, queues, peek offset and all, so neither the guest nor the host
 * peer can tell. The source freezes its connections (tcp_conn_freeze()):
 * they resume if the move fails, and are closed without a word otherwise.
 * The target keeps what it took frozen, too, until the guest runs there:
 * a move that fails after our state was loaded leaves the source's
 * connections untouched.
 *
 * Only established connections move; one still in its handshake is left
 * behind, the guest's SYN retries do the rest. A connection whose socket
 * the target can't get is reset towards the guest, at once, rather than
 * left to hang.
 *
 * Everything loaded is checked: the phase, every flag and scale in range,
 * sequence numbers and windows consistent with each other, the guest's
 * address one it uses, the flow new, and the socket a connected TCP socket
 * whose peer is the one the source had.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "flow.h"
#include "flow_table.h"
#include "inany.h"
#include "ip.h"
#include "log.h"
#include "mig_handover.h"
#include "mig_io.h"
#include "passt.h"
#include "tcp.h"
#include "tcp_conn.h"
#include "tcp_migrate.h"
#include "tcp_repair.h"
#include "repair.h"

#define MIG_TCP_SEQ_SPAN	(1U << 30)	/* sent, unacknowledged: at most */
#define MIG_TCP_WND_MAX		(0xffffU << 14)
#define MIG_TCP_MSS_MIN		536
#define MIG_TCP_RTO_MAX_MS	120000
#define MIG_TCP_EVENTS		(EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)
#define MIG_TCP_CLOSE_BITS	0x1f

/**
 * struct mig_tcp - MIG_TCP: one connection, integers in network order
 * @gaddr:	the guest's address (flow key)
 * @paddr:	the peer's, as the guest sees it
 * @gport:	the guest's port
 * @pport:	the peer's
 * @phase:	enum tcp_phase: TCP_PHASE_ESTABLISHED
 * @close:	TCP_SOCK_EOF ... bits
 * @ws_from_tap: the guest's window scale
 * @ws_to_tap:	ours
 * @mss_to_tap:	largest segment we send the guest
 * @pad:	0
 * @epoll_events: what the socket waits for
 * @seq_to_tap:	...and the rest as struct tcp_conn has them
 * @seq_max_to_tap:	see there
 * @seq_ack_from_tap:	see there
 * @seq_from_tap:	see there
 * @seq_ack_to_tap:	see there
 * @wnd_from_tap:	see there
 * @wnd_to_tap:		see there
 * @rto_ms:	retransmission timeout
 * @discard:	bytes the guest acknowledged, still in the socket
 * @sock:	position of its socket in the handover
 * @peer:	the socket's peer, to check the one handed over
 * @peer_port:	its port
 * @pad2:	0
 */
struct mig_tcp {
	struct in6_addr gaddr;
	struct in6_addr paddr;
	uint16_t gport;
	uint16_t pport;
	uint8_t phase;
	uint8_t close;
	uint8_t ws_from_tap;
	uint8_t ws_to_tap;
	uint16_t mss_to_tap;
	uint16_t pad;
	uint32_t epoll_events;
	uint32_t seq_to_tap;
	uint32_t seq_max_to_tap;
	uint32_t seq_ack_from_tap;
	uint32_t seq_from_tap;
	uint32_t seq_ack_to_tap;
	uint32_t wnd_from_tap;
	uint32_t wnd_to_tap;
	uint32_t rto_ms;
	uint32_t discard;
	uint32_t sock;
	struct in6_addr peer;
	uint16_t peer_port;
	uint16_t pad2;
};

static_assert(sizeof(struct mig_tcp) == 108, "mig_tcp: no padding");

/**
 * tcp_mig_conn_save() - one connection's section
 * @io:		transfer
 * @conn:	connection, established, frozen
 * @pos:	position of its socket in the handover
 * @repair:	its socket is in repair mode: its state goes too
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_mig_conn_save(struct mig_io *io, const struct tcp_conn *conn,
			     uint32_t pos, bool repair)
{
	struct mig_tcp t = {
		.gaddr = conn->f.key.gaddr.a6, .paddr = conn->f.key.paddr.a6,
		.gport = htons(conn->f.key.gport),
		.pport = htons(conn->f.key.pport),
		.phase = conn->phase, .close = conn->close,
		.ws_from_tap = conn->ws_from_tap, .ws_to_tap = conn->ws_to_tap,
		.mss_to_tap = htons(conn->mss_to_tap),
		.epoll_events = htonl(conn->epoll_events),
		.seq_to_tap = htonl(conn->seq_to_tap),
		.seq_max_to_tap = htonl(conn->seq_max_to_tap),
		.seq_ack_from_tap = htonl(conn->seq_ack_from_tap),
		.seq_from_tap = htonl(conn->seq_from_tap),
		.seq_ack_to_tap = htonl(conn->seq_ack_to_tap),
		.wnd_from_tap = htonl(conn->wnd_from_tap),
		.wnd_to_tap = htonl(conn->wnd_to_tap),
		.rto_ms = htonl(conn->rto_ms), .discard = htonl(conn->discard),
		.sock = htonl(pos),
	};
	uint32_t len = sizeof(t);
	struct mig_tcp_repair r;
	union inany_addr peer;
	char str[FLOW_STRLEN];
	uint16_t port;

	if (mig_sock_peer(conn->sock, &peer, &port))
		return 0;	/* gone meanwhile: the target resets it */
	t.peer = peer.a6;
	t.peer_port = htons(port);
	if (repair && tcp_repair_dump(conn->sock, &r)) {
		warn("migration: %s: no TCP_REPAIR state, only for this host",
		     flow_str(&conn->f.key, str, sizeof(str)));
		repair = false;
	}
	if (repair)
		len += tcp_repair_len(&r);
	if (mig_section_start(io, MIG_TCP, len) || mig_write(io, &t, sizeof(t)))
		return -1;
	return repair ? tcp_repair_write(io, conn->sock, &r) : 0;
}

/**
 * tcp_mig_save() - every established connection: frozen, its socket
 *		    handed over, and its kernel state if passt-repair is here
 * @c:		execution context
 * @io:		transfer
 *
 * Return: 0 on success, -1 on failure
 */
int tcp_mig_save(struct ctx *c, struct mig_io *io)
{
	unsigned int i, hwm = flow_high_water(), first = mig_handover_count();
	union inany_addr peer;
	bool repair;
	uint16_t port;

	for (i = 0; i < hwm; i++) {
		struct tcp_conn *conn = &flowtab[i].tcp;

		if (conn->f.type != FLOW_TCP || conn->f.closing ||
		    conn->phase != TCP_PHASE_ESTABLISHED || conn->sock < 0 ||
		    mig_sock_peer(conn->sock, &peer, &port))
			continue;	/* no peer any more: not worth moving */
		mig_handover_add(i);
		tcp_conn_freeze(c, i);
	}
	repair = !mig_handover_repair(c, REPAIR_ON);
	for (i = first; i < mig_handover_count(); i++) {
		if (tcp_mig_conn_save(io, &flowtab[mig_handover_flow(i)].tcp,
				      i, repair))
			return -1;
	}
	return 0;
}

/**
 * tcp_mig_check() - does a loaded connection make sense?
 * @t:		section, as read
 * @key:	its flow key, set
 *
 * Return: NULL if it does, else what doesn't
 */
static const char *tcp_mig_check(const struct mig_tcp *t,
				 struct flow_key *key)
{
	/* Our FIN takes a sequence number past the data */
	uint32_t end = ntohl(t->seq_max_to_tap) + !!(t->close & TCP_TAP_FIN_SENT);
	uint32_t una = ntohl(t->seq_ack_from_tap);
	uint32_t sent = ntohl(t->seq_to_tap) - una;
	uint32_t max = end - una;

	memset(key, 0, sizeof(*key));
	key->gaddr.a6 = t->gaddr;
	key->paddr.a6 = t->paddr;
	key->gport = ntohs(t->gport);
	key->pport = ntohs(t->pport);
	key->proto = IPPROTO_TCP;
	if (t->phase != TCP_PHASE_ESTABLISHED)
		return "phase";
	if ((t->close & ~MIG_TCP_CLOSE_BITS) || t->pad || t->pad2)
		return "flags";
	if (t->ws_from_tap > 14 || t->ws_to_tap > 14)
		return "window scale";
	if (ntohs(t->mss_to_tap) < MIG_TCP_MSS_MIN)
		return "MSS";
	if (ntohl(t->epoll_events) & ~MIG_TCP_EVENTS)
		return "events";
	if (sent > max || max > MIG_TCP_SEQ_SPAN ||
	    ntohl(t->discard) > MIG_TCP_SEQ_SPAN)
		return "sequence numbers";
	if (ntohl(t->wnd_from_tap) > MIG_TCP_WND_MAX ||
	    ntohl(t->wnd_to_tap) > MIG_TCP_WND_MAX)
		return "window";
	if (!ntohl(t->rto_ms) || ntohl(t->rto_ms) > MIG_TCP_RTO_MAX_MS)
		return "retransmission timeout";
	if (!t->peer_port)
		return "the socket's peer";
	return ip_flow_key_check(key);
}

/**
 * tcp_mig_conn_take() - the connection, ours now, on its socket
 * @c:		execution context
 * @t:		section, checked
 * @key:	its flow key
 * @s:		its socket, checked
 *
 * Return: flow index, -1 if the flow table is full (@s closed)
 */
static int tcp_mig_conn_take(struct ctx *c, const struct mig_tcp *t,
			     const struct flow_key *key, int s)
{
	int idx = tcp_conn_new(c, key, s);
	struct tcp_conn *conn;

	if (idx < 0)
		return -1;
	conn = &flowtab[idx].tcp;
	conn->phase = t->phase;
	conn->close = t->close;
	conn->ws_from_tap = t->ws_from_tap;
	conn->ws_to_tap = t->ws_to_tap;
	conn->mss_to_tap = ntohs(t->mss_to_tap);
	conn->epoll_events = ntohl(t->epoll_events) | EPOLLET;
	conn->seq_to_tap = ntohl(t->seq_to_tap);
	conn->seq_max_to_tap = ntohl(t->seq_max_to_tap);
	conn->seq_ack_from_tap = ntohl(t->seq_ack_from_tap);
	conn->seq_from_tap = ntohl(t->seq_from_tap);
	conn->seq_ack_to_tap = ntohl(t->seq_ack_to_tap);
	conn->wnd_from_tap = ntohl(t->wnd_from_tap);
	conn->wnd_to_tap = ntohl(t->wnd_to_tap);
	conn->rto_ms = ntohl(t->rto_ms);
	conn->discard = ntohl(t->discard);
	flow_hash_insert(idx);
	/* Frozen until the guest runs here (flow_thaw_all()): if the move
	 * fails first, the source's connection must not hear from us
	 */
	conn->f.frozen = true;
	return idx;
}

/**
 * tcp_mig_sock() - the connection's socket: handed over, or rebuilt from
 *		    the state that follows its section
 * @c:		execution context
 * @io:		transfer, past the section's struct mig_tcp
 * @t:		that, checked
 * @tail:	bytes of the section left: its TCP_REPAIR state, if any
 * @rebuilt:	set if the socket was rebuilt (our peek offset wasn't)
 *
 * Return: the socket, -1 if there's none, -2 if the section is wrong
 */
static int tcp_mig_sock(const struct ctx *c, struct mig_io *io,
			const struct mig_tcp *t, uint32_t tail, bool *rebuilt)
{
	union inany_addr peer = { .a6 = t->peer };
	int s = mig_handover_take(ntohl(t->sock)), r;

	*rebuilt = false;
	if (s >= 0 && !mig_sock_check(s, SOCK_STREAM, IPPROTO_TCP, &t->peer,
				     ntohs(t->peer_port))) {
		err("migration: the socket handed over isn't the connection's");
		close(s);
		return -2;
	}
	if (!tail)
		return s;
	r = tcp_repair_load(c, io, tail, &peer, ntohs(t->peer_port), s < 0);
	if (r == -2 || s >= 0) {
		if (r == -2 && s >= 0)
			close(s);
		return r == -2 ? -2 : s;
	}
	*rebuilt = r >= 0;
	return r;
}

/**
 * tcp_mig_load() - MIG_TCP: take one connection
 * @c:		execution context
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, also for a connection reset for want of its
 *	   socket; -1 if the section is wrong
 */
int tcp_mig_load(struct ctx *c, struct mig_io *io, uint32_t len)
{
	char str[FLOW_STRLEN];
	const char *wrong;
	struct flow_key key;
	struct mig_tcp t;
	bool rebuilt;
	int s, idx;

	if (len < sizeof(t) || mig_read(io, &t, sizeof(t))) {
		err("migration: TCP section of %u bytes", len);
		return -1;
	}
	wrong = tcp_mig_check(&t, &key);
	if (wrong) {
		err("migration: TCP connection %s: %s",
		    flow_str(&key, str, sizeof(str)), wrong);
		return -1;
	}
	s = tcp_mig_sock(c, io, &t, len - sizeof(t), &rebuilt);
	if (s == -2) {
		err("migration: %s: refused", flow_str(&key, str, sizeof(str)));
		return -1;
	}
	if (s < 0 || (idx = tcp_mig_conn_take(c, &t, &key, s)) < 0) {
		warn("migration: %s: no socket for it here, reset",
		     flow_str(&key, str, sizeof(str)));
		tcp_rst_to_guest(c, &key, ntohl(t.seq_max_to_tap));
		return 0;
	}
	if (rebuilt) {
		debug("migration: %s: socket rebuilt (TCP_REPAIR)",
		      flow_str(&key, str, sizeof(str)));
		tcp_conn_rewind(c, idx);
	}
	return 0;
}
