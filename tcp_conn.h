/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TCP_CONN_H
#define TCP_CONN_H

#include <stdint.h>

#include "flow.h"

/* Connection phase: exactly one at a time, changed only by tcp_phase_set() */
enum tcp_phase {
	TCP_PHASE_NONE = 0,
	TCP_PHASE_CONNECTING,	/* guest sent SYN, host connect() in progress */
	TCP_PHASE_SYN_ACK_SENT,	/* host connected, SYN-ACK sent to guest */
	TCP_PHASE_SYN_SENT,	/* host accepted a connection, SYN sent to guest */
	TCP_PHASE_ESTABLISHED,	/* data both ways; see close flags below */
	TCP_PHASES,
};

/* Closing progress, one bit per event, each set once */
#define TCP_SOCK_EOF		(1U << 0)	/* host peer's FIN: read 0 */
#define TCP_TAP_FIN_SENT	(1U << 1)	/* our FIN to guest sent */
#define TCP_TAP_FIN_ACKED	(1U << 2)	/* guest acknowledged our FIN */
#define TCP_TAP_EOF		(1U << 3)	/* guest's FIN, in sequence */
#define TCP_SOCK_SHUT_WR	(1U << 4)	/* shutdown(SHUT_WR) on socket */

/* Pending work, cleared when done */
#define TCP_ACK_DUE		(1U << 0)	/* ACK guest at end of batch */
#define TCP_ACK_NOW		(1U << 1)	/* ACK guest even if unchanged */
#define TCP_WANT_EPOLLOUT	(1U << 2)	/* window update on EPOLLOUT */
#define TCP_SOCK_RDHUP		(1U << 3)	/* EPOLLRDHUP seen: peer's FIN */
#define TCP_DATA_DUE		(1U << 4)	/* send data at end of batch */
#define TCP_WND_HELD		(1U << 5)	/* socket data waits for window */
#define TCP_LINK_HELD		(1U << 6)	/* socket data waits for the link */
/* Bits that put a connection on the end-of-batch list */
#define TCP_BATCH_BITS		(TCP_ACK_DUE | TCP_ACK_NOW | TCP_DATA_DUE)

/**
 * struct tcp_conn - one guest TCP connection mapped onto a host socket
 * @f:			common flow header, key as the guest sees the flow
 * @sock:		host socket
 * @phase:		enum tcp_phase
 * @close:		TCP_SOCK_EOF ... bits
 * @pending:		TCP_ACK_DUE ... bits
 * @ws_from_tap:	guest's window scale shift
 * @ws_to_tap:		our window scale shift
 * @dup_acks:		duplicate ACKs seen from guest in a row
 * @retries:		retransmission timeouts in a row
 * @ka_sent:		keepalive probes sent to the guest, not yet answered
 * @syn_ttl:		TTL of the guest's SYN if below the default: the
 *			connect carries it, its ICMP errors are the guest's
 *			(traceroute -T), until connected; else 0
 * @mss_to_tap:		largest segment we send to the guest
 * @seq_to_tap:		next sequence number we send to the guest
 * @seq_max_to_tap:	past the last byte of data the guest was sent, before
 *			any rewind (what its ACKs may cover)
 * @seq_ack_from_tap:	highest ACK from the guest (oldest unacked)
 * @seq_from_tap:	next sequence number expected from the guest
 * @seq_ack_to_tap:	last ACK we sent to the guest
 * @wnd_from_tap:	guest's receive window, bytes, from @seq_ack_from_tap
 * @wnd_to_tap:		last window we advertised, bytes
 * @rto_ms:		current retransmission timeout
 * @keepalives:		keepalive probes sent to the guest (here: no padding)
 * @rto_at:		retransmission deadline (ms), 0 if none armed
 * @wnd_check_at:	when to look again whether the socket drained enough
 *			for a window update (ms), 0 if not armed
 * @tap_seen_at:	last segment from the guest (ms)
 * @idle_at:		when to look at the connection's silence again (ms), see
 *			tcp_idle_timeout(), 0 if not armed
 * @epoll_events:	events currently registered for @sock
 * @discard:		bytes the guest acknowledged, still in the socket
 * @bytes_from_tap:	payload bytes written to the socket
 * @bytes_to_tap:	payload bytes acknowledged by the guest
 * @retrans:		segments retransmitted to the guest
 */
struct tcp_conn {
	struct flow_common f;
	int sock;
	uint8_t phase;
	uint8_t close;
	uint8_t pending;
	uint8_t ws_from_tap;
	uint8_t ws_to_tap;
	uint8_t dup_acks;
	uint8_t retries;
	uint8_t ka_sent;
	uint8_t syn_ttl;
	uint16_t mss_to_tap;
	uint32_t seq_to_tap;
	uint32_t seq_max_to_tap;
	uint32_t seq_ack_from_tap;
	uint32_t seq_from_tap;
	uint32_t seq_ack_to_tap;
	uint32_t wnd_from_tap;
	uint32_t wnd_to_tap;
	uint32_t rto_ms;
	uint32_t keepalives;
	int64_t rto_at;
	int64_t wnd_check_at;
	int64_t tap_seen_at;
	int64_t idle_at;
	uint32_t epoll_events;
	uint32_t discard;
	uint64_t bytes_from_tap;
	uint64_t bytes_to_tap;
	uint64_t retrans;
};

#endif /* TCP_CONN_H */
