// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp.c - guest TCP connections translated onto host sockets
 *
 * Theory of operation
 *
 * We are not a TCP stack: the host kernel's TCP talks to the real peer, and we
 * only keep a thin TCP endpoint facing the guest, one per host socket.
 *
 * Guest to host: in-sequence payload is written to the socket with send(); we
 * acknowledge exactly what send() accepted, so whatever the socket refuses is
 * never lost: the guest still has it and retransmits it. The window we
 * advertise is what the socket can take now (SO_SNDBUF minus what is queued,
 * overhead included, from SO_MEMINFO), a
 * window below one MSS is advertised as zero (RFC 813, silly window
 * avoidance), and EPOLLOUT on the socket, the kernel's own wake-up when space
 * frees, triggers the window update. Out-of-order segments are dropped with a
 * duplicate ACK: the guest is one hop away, fast retransmit repairs it.
 *
 * Host to guest: data stays in the socket until the guest acknowledges it. We
 * read it with MSG_PEEK, the socket's SO_PEEK_OFF remembering how far we have
 * sent; an ACK from the guest discards the acknowledged bytes with MSG_TRUNC.
 * Retransmission (three duplicate ACKs, or the RTO, RFC 6298 with back-off)
 * rewinds the peek offset to the oldest unacknowledged byte. We never send
 * beyond the guest's advertised window; a zero window is probed.
 *
 * Timers: each way of waiting has a bound, and none ends a connection for
 * being idle alone, as the host's own TCP doesn't:
 * - handshake: the host peer has TCP_CONNECT_TIMEOUT_MS to answer our
 *   connect(), then the guest gets a reset; our SYN-ACK or SYN to the guest
 *   is retransmitted with back-off TCP_SYN_RETRIES_MAX times (12.6 s in
 *   all), then the guest gets a reset;
 * - retransmission (@rto_at): RFC 6298's RTO, doubling up to TCP_RTO_MAX_MS,
 *   and a reset after TCP_RETRIES_MAX of them in a row without an answer;
 * - zero window: probed on the RTO for as long as the guest answers (only
 *   unanswered probes count towards TCP_RETRIES_MAX);
 * - keepalive, with the host's settings (net.ipv4.tcp_keepalive_time,
 *   _intvl, _probes, read at start-up): the host kernel probes the host peer
 *   (SO_KEEPALIVE), and its error resets the guest; we probe the guest alike
 *   (@idle_at) once it has sent nothing for keepalive_time, while nothing is
 *   in flight (the RTO watches that), and reset both sides once the probes
 *   go unanswered. The guest answers a probe, an old ACK, with a duplicate
 *   ACK, which is not counted as one;
 * - half-closed: once either side has sent its FIN, both sides are probed
 *   after net.ipv4.tcp_fin_timeout (read at start-up too) of silence
 *   instead: a side that closed its socket altogether is gone soon after
 *   (an orphan in FIN-WAIT-2 lives that long), and its kernel answers the
 *   probes with a reset, or not at all, which ends the connection; one that
 *   only shut its writing side answers, and keeps it, however long the
 *   other side takes, as on the host. The last ACK, once both FINs are out,
 *   is the RTO's.
 *
 * Host sockets are edge-triggered: reading stops when the guest's window is
 * full and resumes from the guest's ACK, not from epoll.
 *
 * Each connection has one phase (enum tcp_phase, changed by tcp_phase_set()),
 * closing-progress bits (@close) and pending-work bits (@pending), see
 * tcp_conn.h. Work is batched per event batch: the guest's in-sequence
 * payload is queued (tcp_tx) and written with one sendmsg() per run of
 * segments; ACKs to the guest, the discard of what the guest acknowledged
 * and the look for more data to send it wait for the batch's end.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "flow.h"
#include "flow_table.h"
#include "icmp_err.h"
#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "splice.h"
#include "link.h"
#include "tcp.h"

#define TCP_FRAMES		LINK_SEND_MAX	/* data frames per recvmsg() */
#define TCP_RCVWND_START	(1 << 20)	/* see tcp_rcvbuf_open() */
#define TCP_FRAME_STRIDE	ROUND_UP(FRAME_BUF_SIZE, 8)
#define TCP_HDR_LEN		20
#define TCP_SYN_OPT_LEN		8	/* MSS (4), NOP (1), window scale (3) */
#define TCP_WS_OURS		8	/* window up to 16 MiB */
#define TCP_MSS_NO_OPT		536	/* RFC 879, when the guest sends none */
#define TCP_GSO_DATA_MAX	(IP_MAXPACKET - 40 - TCP_HDR_LEN) /* any IP */
#define TCP_RTO_INIT_MS		200	/* one local hop: RTT is microseconds */
#define TCP_RTO_MAX_MS		60000	/* RFC 6298, 2.5 */
#define TCP_CONNECT_TIMEOUT_MS	10000	/* host peer's handshake, ours */
#define TCP_RETRIES_MAX		10
#define TCP_SYN_RETRIES_MAX	5	/* RFC 6298 back-off from 200 ms */
#define TCP_DUP_ACK_THRESH	3	/* RFC 5681, 3.2 */
#define TCP_TOUCHED_MAX		256
#define TCP_LINK_WAIT_MAX	256	/* past these, the RTO resends */
#define TCP_DISCARD_MAX		(8 << 20)
#define TCP_WND_CHECK_MIN_MS	1
#define TCP_WND_CHECK_MAX_MS	50
#define TCP_WND_CHECKS_PER_RTT	8	/* see tcp_wnd_check_arm() */
#define TCP_SNDBUF_OVERHEAD_DIV	16	/* overhead of new data, at most */
#define TCP_SYSCTL_PATH		"/proc/sys/net/ipv4/"
/* Linux's defaults and limits for the settings we read (include/net/tcp.h) */
#define TCP_KA_TIME_S		7200
#define TCP_KA_INTVL_S		75
#define TCP_KA_PROBES		9
#define TCP_SYSCTL_S_MAX	32767	/* MAX_TCP_KEEPIDLE, for all times */
#define TCP_KA_PROBES_MAX	127	/* MAX_TCP_KEEPCNT */
#define TCP_FIN_TIMEOUT_S	60	/* TCP_FIN_TIMEOUT, the same file */

static uint8_t tcp_frames[TCP_FRAMES][TCP_FRAME_STRIDE]
	__attribute__((aligned(8)));
static int tcp_touched[TCP_TOUCHED_MAX];
static unsigned int tcp_touched_n;
/* Connections with TCP_LINK_HELD, in the order the link turned them away */
static int tcp_link_wait[TCP_LINK_WAIT_MAX];
static unsigned int tcp_link_wait_n;

/* In-sequence payload from the guest, for one connection at a time: written
 * with one sendmsg() by tcp_tx_flush(). The iovecs borrow the link's receive
 * slots (link.c), and the guest's own buffers where the link left a frame's
 * payload there (vhost-user): the input layer calls tcp_tx_flush() when its
 * batch ends, before the slots are reused and the buffers given back
 * (link_rx_done()), so none outlives the batch.
 */
#define TCP_TX_IOV_MAX		256
static struct {
	int idx;		/* flow index, -1 if nothing is queued */
	unsigned int n;		/* iovecs */
	size_t len;		/* bytes */
	struct iovec iov[TCP_TX_IOV_MAX];
	bool seg_start[TCP_TX_IOV_MAX];	/* a segment's first iovec */
} tcp_tx = { .idx = -1 };
static int64_t tcp_deadline = INT64_MAX;

/* Per flow, no later than its earliest timer (ms), 0 if none is armed: one
 * dense array, so that tcp_timer() passes over thousands of flows waiting
 * for nothing soon (a SYN flood's) without touching their entries
 */
static int64_t tcp_due[FLOW_MAX];

/* TCP sockets have SO_PEEK_OFF since Linux 6.10: without it, in-flight data
 * is peeked again each time, into this, which also bounds what is in flight
 */
static bool tcp_peek_off_ok;
static uint8_t tcp_discard[TCP_DISCARD_MAX];

/* The host's own TCP settings (net.ipv4.*), for the guest's side too: read
 * at start-up, the sandbox has no /proc afterwards
 */
static struct {
	int64_t ka_time_ms;	/* tcp_keepalive_time: silence, then probes */
	int64_t ka_intvl_ms;	/* tcp_keepalive_intvl: between probes */
	unsigned int ka_probes;	/* tcp_keepalive_probes: unanswered, reset */
	int64_t fin_ms;		/* tcp_fin_timeout: half-closed, no data */
} tcp_host;

static const char *const tcp_phase_names[TCP_PHASES] = {
	[TCP_PHASE_NONE]	= "NONE",
	[TCP_PHASE_CONNECTING]	= "CONNECTING",
	[TCP_PHASE_SYN_ACK_SENT]	= "SYN_ACK_SENT",
	[TCP_PHASE_SYN_SENT]	= "SYN_SENT",
	[TCP_PHASE_ESTABLISHED]	= "ESTABLISHED",
};

/**
 * struct tcp_opts - what we use of the guest's SYN options
 * @mss:	maximum segment size, 0 if absent
 * @ws:		window scale shift, -1 if absent
 */
struct tcp_opts {
	uint16_t mss;
	int ws;
};

/**
 * struct tcp_seg - a checked segment from the guest
 * @th:		TCP header
 * @opts:	options bytes
 * @data:	payload, or its first part
 * @tail:	the rest of it, where the link left it (vhost-user): @tail.len
 *		bytes of its buffers
 * @len:	payload length in all
 * @seq:	sequence number, host order
 * @ack:	acknowledgement number, host order
 * @wnd:	window field, host order, not scaled
 */
struct tcp_seg {
	const struct tcphdr *th;
	struct pkt_view opts;
	struct pkt_view data;
	struct pkt_tail tail;
	size_t len;
	uint32_t seq;
	uint32_t ack;
	uint16_t wnd;
};

static void tcp_conn_str(const struct tcp_conn *conn, char *buf)
{
	flow_str(&conn->f.key, buf, FLOW_STRLEN);
}

/**
 * tcp_phase_set() - change a connection's phase, logging it
 * @conn:	connection
 * @phase:	new phase
 */
static void tcp_phase_set(struct tcp_conn *conn, enum tcp_phase phase)
{
	char s[FLOW_STRLEN];

	if (log_debug_enabled()) {
		tcp_conn_str(conn, s);
		debug("%s: %s -> %s", s, tcp_phase_names[conn->phase],
		      tcp_phase_names[phase]);
	}
	conn->phase = phase;
}

static int tcp_idx(const struct tcp_conn *conn)
{
	return (const union flow *)conn - flowtab;
}

/**
 * tcp_due_at() - a timer of a connection is armed for @at
 * @conn:	connection
 * @at:		deadline (ms)
 */
static void tcp_due_at(const struct tcp_conn *conn, int64_t at)
{
	int64_t *due = &tcp_due[tcp_idx(conn)];

	if (!*due || at < *due)
		*due = at;
	if (at < tcp_deadline)
		tcp_deadline = at;
}

/**
 * tcp_idle_arm() - look at keepalive and half-close by @at at the latest
 * @conn:	connection
 * @at:		deadline (ms)
 */
static void tcp_idle_arm(struct tcp_conn *conn, int64_t at)
{
	if (conn->idle_at && conn->idle_at <= at)
		return;
	conn->idle_at = at;
	tcp_due_at(conn, at);
}

/**
 * tcp_close_set() - record a closing event, logging it
 * @conn:	connection
 * @bit:	TCP_SOCK_EOF ... bit
 */
static void tcp_close_set(struct tcp_conn *conn, uint8_t bit)
{
	char s[FLOW_STRLEN];

	if (conn->close & bit)
		return;
	conn->close |= bit;
	if (log_debug_enabled()) {
		tcp_conn_str(conn, s);
		debug("%s: close events 0x%02x", s, conn->close);
	}
	if (bit & (TCP_SOCK_EOF | TCP_TAP_EOF)) {
		int idle_s = (int)(tcp_host.fin_ms / MS_PER_S);

		/* Half-closed: probe both sides sooner, see tcp_ka_quiet_ms() */
		if (setsockopt(conn->sock, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s,
			       sizeof(idle_s)))
			debug("TCP: TCP_KEEPIDLE: %s", strerror(errno));
		tcp_idle_arm(conn, conn->tap_seen_at + tcp_host.fin_ms);
	}
}

/**
 * tcp_touch() - remember a connection for the end-of-batch ACK flush
 * @c:		execution context
 * @conn:	connection
 * @bits:	pending bits to set (TCP_ACK_DUE, TCP_ACK_NOW)
 */
static void tcp_touch(struct ctx *c, struct tcp_conn *conn, uint8_t bits)
{
	if (!(conn->pending & TCP_BATCH_BITS)) {
		if (tcp_touched_n == TCP_TOUCHED_MAX)
			tcp_batch_end(c);
		tcp_touched[tcp_touched_n++] = tcp_idx(conn);
	}
	conn->pending |= bits;
}

/**
 * tcp_rto_arm() - set the retransmission deadline
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_rto_arm(const struct ctx *c, struct tcp_conn *conn)
{
	conn->rto_at = c->now + conn->rto_ms;
	tcp_due_at(conn, conn->rto_at);
}

/**
 * tcp_established() - enter the established phase: the keepalive clock runs
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_established(const struct ctx *c, struct tcp_conn *conn)
{
	tcp_phase_set(conn, TCP_PHASE_ESTABLISHED);
	conn->tap_seen_at = c->now;
	tcp_idle_arm(conn, c->now + tcp_host.ka_time_ms);
}

/**
 * tcp_epoll_set() - register the socket for the given events, if changed
 * @c:		execution context
 * @conn:	connection
 * @events:	epoll events, EPOLLET is added
 */
static void tcp_epoll_set(const struct ctx *c, struct tcp_conn *conn,
			  uint32_t events)
{
	events |= EPOLLET;
	if (conn->epoll_events == events)
		return;
	epoll_ref_mod(c, conn->sock, EPOLL_TYPE_TCP, tcp_idx(conn), events);
	conn->epoll_events = events;
}

/* How full the host socket is, for what will tell us when it drains */
enum tcp_sndbuf_fill {
	SNDBUF_ROOMY,	/* at least half of it free */
	SNDBUF_LOW,	/* less than half free, but still writable */
	SNDBUF_FULL,	/* not writable: poll() waits for a third free */
};

/**
 * tcp_wnd_from_sndbuf() - window the host socket can honour right now
 * @conn:	connection
 * @fill:	how full the socket is
 *
 * SO_SNDBUF limits sk_wmem_queued, which counts the buffers' overhead
 * (truesize) too. SO_MEMINFO gives both, so the room is exact, whatever
 * the overhead of what is queued: payload counts (SIOCOUTQ) were not, when
 * the kernel split queued buffers after losses (at 170 ms, send() took
 * 62544 bytes of the 64512 a window of 84736 had let in). New data costs
 * overhead too, about 1/16 at the smallest buffers the kernel builds for a
 * paced flow: keep that in reserve. Promising more makes send() take less
 * than the guest sent, the rest of its burst then arrives out of sequence,
 * and the guest has to retransmit. Less than min(MSS, buffer/4) is no
 * window (RFC 1122, 4.2.3.3 has buffer/2), and neither is what the window
 * scale would round down below it. Not buffer/2: the kernel grows SO_SNDBUF
 * only once the writer has found the socket full (SOCK_NOSPACE, set by
 * poll() when the room is less than a third), and a zero window at half
 * kept the guest from ever filling it: at 10 ms, a 10 MB upload then took
 * 0.45 s instead of the host's 0.23 s. A quarter is past that point, so a
 * zero window always comes with EPOLLOUT, and the wake-up that ends it.
 *
 * Return: window in bytes, already clamped to what we can advertise
 */
static uint32_t tcp_wnd_from_sndbuf(const struct tcp_conn *conn,
				    enum tcp_sndbuf_fill *fill)
{
	uint32_t mem[SK_MEMINFO_VARS], sndbuf, queued, room, wnd;
	uint32_t max = 0xffffU << conn->ws_to_tap;
	socklen_t sl = sizeof(mem);

	*fill = SNDBUF_ROOMY;
	if (getsockopt(conn->sock, SOL_SOCKET, SO_MEMINFO, mem, &sl) ||
	    sl < sizeof(mem))
		return conn->wnd_to_tap;

	sndbuf = mem[SK_MEMINFO_SNDBUF];
	queued = mem[SK_MEMINFO_WMEM_QUEUED];
	room = queued < sndbuf ? sndbuf - queued : 0;
	/* As sk_stream_is_writeable(): the room is half of what is queued */
	if (room < queued / 2)
		*fill = SNDBUF_FULL;
	else if (room < sndbuf / 2)
		*fill = SNDBUF_LOW;

	wnd = room - room / TCP_SNDBUF_OVERHEAD_DIV;
	wnd = MIN(wnd, max) >> conn->ws_to_tap << conn->ws_to_tap;
	if (wnd < MIN((uint32_t)conn->mss_to_tap, sndbuf / 4)) {
		if (*fill == SNDBUF_ROOMY)	/* tiny buffer, after rounding */
			*fill = SNDBUF_LOW;
		return 0;
	}
	return wnd;
}

/**
 * tcp_wnd_check_arm() - look at the socket again in a fraction of its RTT
 * @c:		execution context
 * @conn:	connection
 *
 * The socket drains as the peer acknowledges, within about one RTT: check
 * TCP_WND_CHECKS_PER_RTT times per RTT (TCP_INFO), within
 * [TCP_WND_CHECK_MIN_MS, TCP_WND_CHECK_MAX_MS]. Where SO_SNDBUF limits
 * the path, what drains between two checks is missing from the pipe: four
 * checks per RTT left it an eighth short on average (0.90x the host at
 * 50 ms), eight give 1.0x.
 */
static void tcp_wnd_check_arm(const struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_info ti = { 0 };
	socklen_t sl = sizeof(ti);
	int64_t ms = TCP_WND_CHECK_MAX_MS;

	if (conn->wnd_check_at)
		return;
	if (!getsockopt(conn->sock, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		ms = (int64_t)ti.tcpi_rtt / TCP_WND_CHECKS_PER_RTT / 1000;
	ms = MAX(MIN(ms, TCP_WND_CHECK_MAX_MS), TCP_WND_CHECK_MIN_MS);
	conn->wnd_check_at = c->now + ms;
	tcp_due_at(conn, conn->wnd_check_at);
}

/**
 * tcp_wnd_watch() - the window now, and a way to learn when it grows
 * @c:		execution context
 * @conn:	connection
 *
 * The window must grow again as the host socket drains, or the guest stops:
 * a small window left after a burst stays small (Linux caps its MSS at half
 * the largest window seen, so its segments no longer fit), and only its
 * zero window probes trickle through, with back-off.
 *
 * A socket that is not writable gets EPOLLOUT: registering it makes
 * tcp_poll() set SOCK_NOSPACE, which lets the kernel grow SO_SNDBUF on the
 * peer's next ACKs, as for an application blocked in send(), and the
 * kernel's wake-up when two thirds are free sends the window update. A
 * socket still writable gives no such wake-up: look again after a fraction
 * of its RTT. Every path that sizes the window goes through here, so that
 * no state is left without one of the two.
 *
 * Return: window in bytes
 */
static uint32_t tcp_wnd_watch(const struct ctx *c, struct tcp_conn *conn)
{
	enum tcp_sndbuf_fill fill;
	uint32_t wnd = tcp_wnd_from_sndbuf(conn, &fill);

	if (fill == SNDBUF_FULL && !(conn->pending & TCP_WANT_EPOLLOUT)) {
		conn->pending |= TCP_WANT_EPOLLOUT;
		tcp_epoll_set(c, conn, conn->epoll_events | EPOLLOUT);
	} else if (fill == SNDBUF_LOW) {
		tcp_wnd_check_arm(c, conn);
	}
	return wnd;
}

/**
 * tcp_wnd_update() - size the window for our next segment to the guest
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_wnd_update(const struct ctx *c, struct tcp_conn *conn)
{
	conn->wnd_to_tap = tcp_wnd_watch(c, conn);
}

/**
 * tcp_mss_max() - largest segment the guest's MTU takes in this family
 * @c:		execution context
 * @key:	flow key
 *
 * Return: MTU less the IP and TCP headers
 */
static uint16_t tcp_mss_max(const struct ctx *c, const struct flow_key *key)
{
	size_t ip_hlen = inany_is_v4(&key->gaddr) ? sizeof(struct iphdr) :
						    sizeof(struct ipv6hdr);

	return c->mtu - ip_hlen - TCP_HDR_LEN;
}

/**
 * tcp_hdr_fill() - build the headers of a segment to the guest
 * @c:		execution context
 * @conn:	connection
 * @buf:	frame buffer
 * @seq:	sequence number
 * @flags:	TCP flags byte (TH_SYN ...)
 * @opt_len:	options length, options already written after the header
 * @data_len:	payload length, payload already in place
 *
 * Return: the frame
 */
static struct link_frame tcp_hdr_fill(const struct ctx *c,
				      struct tcp_conn *conn, uint8_t *buf,
				      uint32_t seq, uint8_t flags,
				      size_t opt_len, size_t data_len)
{
	size_t l4_len = TCP_HDR_LEN + opt_len + data_len;
	struct tcphdr *th = (struct tcphdr *)(buf + FRAME_L4_OFF);
	uint32_t wnd;

	memset(th, 0, TCP_HDR_LEN);
	th->source = htons(conn->f.key.pport);
	th->dest = htons(conn->f.key.gport);
	th->seq = htonl(seq);
	th->doff = (TCP_HDR_LEN + opt_len) / 4;
	th->th_flags = flags;
	if (flags & TH_ACK) {
		th->ack_seq = htonl(conn->seq_from_tap);
		conn->seq_ack_to_tap = conn->seq_from_tap;
	}
	if (flags & TH_SYN) {
		wnd = MIN(conn->wnd_to_tap, 0xffffU);
	} else {
		wnd = conn->wnd_to_tap >> conn->ws_to_tap;
		/* Don't shrink to a non-zero window of zero after scaling */
		wnd = MIN(wnd, 0xffffU);
	}
	th->window = htons(wnd);
	/* Larger than a segment: the link cuts it (tcp_frame_data_max()) */
	return ip_frame_gso(c, buf, &conn->f.key.paddr, &conn->f.key.gaddr,
			    IPPROTO_TCP, l4_len,
			    data_len > conn->mss_to_tap ? conn->mss_to_tap : 0);
}

/**
 * tcp_send_ctl() - send a segment without payload to the guest
 * @c:		execution context
 * @conn:	connection
 * @flags:	TCP flags; SYN adds our MSS and window scale options
 */
static void tcp_send_ctl(struct ctx *c, struct tcp_conn *conn, uint8_t flags)
{
	uint8_t buf[FRAME_L4_OFF + TCP_HDR_LEN + TCP_SYN_OPT_LEN]
		__attribute__((aligned(8)));
	uint8_t *opt = buf + FRAME_L4_OFF + TCP_HDR_LEN;
	size_t opt_len = 0;
	uint32_t seq = conn->seq_to_tap;
	struct link_frame frame;

	if (flags & TH_SYN) {
		uint16_t mss = htons(tcp_mss_max(c, &conn->f.key));

		opt[0] = TCPOPT_MAXSEG;
		opt[1] = TCPOLEN_MAXSEG;
		memcpy(opt + 2, &mss, 2);
		opt[4] = TCPOPT_NOP;
		opt[5] = TCPOPT_WINDOW;
		opt[6] = TCPOLEN_WINDOW;
		opt[7] = TCP_WS_OURS;
		opt_len = TCP_SYN_OPT_LEN;
		seq--;		/* seq_to_tap already counts the SYN */
	} else if (flags & TH_FIN) {
		seq--;		/* and the FIN */
	}
	if (flags & TH_ACK)
		tcp_wnd_update(c, conn);

	frame = tcp_hdr_fill(c, conn, buf, seq, flags, opt_len, 0);
	link_send(c, &frame, 1);
	conn->pending &= ~(TCP_ACK_DUE | TCP_ACK_NOW);
}

/**
 * tcp_send_probe() - send an old ACK, which a live guest answers at once
 * @c:		execution context
 * @conn:	connection, nothing in flight
 *
 * One below the next sequence number: the guest's TCP finds it out of its
 * window and sends its current ACK (RFC 9293, 3.10.7.4), the keepalive of
 * RFC 1122, 4.2.3.6, and a zero window probe carrying no data.
 */
static void tcp_send_probe(struct ctx *c, struct tcp_conn *conn)
{
	conn->seq_to_tap--;
	tcp_send_ctl(c, conn, TH_ACK);
	conn->seq_to_tap++;
}

/**
 * tcp_send_dup_ack() - repeat our last ACK and window exactly
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_send_dup_ack(struct ctx *c, struct tcp_conn *conn)
{
	uint8_t buf[FRAME_L4_OFF + TCP_HDR_LEN] __attribute__((aligned(8)));
	struct link_frame frame;

	frame = tcp_hdr_fill(c, conn, buf, conn->seq_to_tap, TH_ACK, 0, 0);
	link_send(c, &frame, 1);
}

/**
 * tcp_rst_guest() - reset the guest's side, wherever its sequence is
 * @c:		execution context
 * @conn:	connection
 *
 * The guest takes an RST only at the exact sequence it expects next (RFC
 * 5961, 3.2), anywhere from its last ACK to our next byte: beyond that if
 * it dropped segments (a full receive buffer). It answers an RST within its
 * window with a challenge ACK, which our stateless RST answers exactly, but
 * drops one past its window silently, and a closed window is all of that.
 * So a second RST at its last ACK, when the two differ.
 */
static void tcp_rst_guest(struct ctx *c, struct tcp_conn *conn)
{
	tcp_send_ctl(c, conn, TH_RST | TH_ACK);
	if (conn->phase != TCP_PHASE_ESTABLISHED ||
	    conn->seq_ack_from_tap == conn->seq_to_tap)
		return;
	conn->seq_to_tap = conn->seq_ack_from_tap;
	tcp_send_ctl(c, conn, TH_RST | TH_ACK);
}

/**
 * tcp_rst() - reset both sides of a connection and close it
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_rst(struct ctx *c, struct tcp_conn *conn)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	char s[FLOW_STRLEN];

	if (conn->f.closing)
		return;
	if (log_debug_enabled()) {
		tcp_conn_str(conn, s);
		debug("%s: reset", s);
	}
	if (conn->phase != TCP_PHASE_SYN_SENT)
		tcp_rst_guest(c, conn);
	/* Closing with a zero linger time sends an RST to the host peer */
	setsockopt(conn->sock, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	flow_close(tcp_idx(conn));
}

/**
 * tcp_check_done() - close the connection once both directions are closed
 * @c:		execution context
 * @conn:	connection
 *
 * A closing flow gets no end-of-batch ACK: acknowledge the guest's FIN now.
 */
static void tcp_check_done(struct ctx *c, struct tcp_conn *conn)
{
	if (!(conn->close & TCP_TAP_FIN_ACKED) || !(conn->close & TCP_TAP_EOF))
		return;
	if (conn->pending & (TCP_ACK_DUE | TCP_ACK_NOW))
		tcp_send_ctl(c, conn, TH_ACK);
	flow_close(tcp_idx(conn));
}

/**
 * tcp_send_fin() - send our FIN once the host peer's data is all sent
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_send_fin(struct ctx *c, struct tcp_conn *conn)
{
	conn->seq_to_tap++;
	tcp_close_set(conn, TCP_TAP_FIN_SENT);
	tcp_send_ctl(c, conn, TH_FIN | TH_ACK);
	if (!conn->rto_at)
		tcp_rto_arm(c, conn);
}

/**
 * tcp_frame_data_max() - payload of one data frame to the guest
 * @conn:	connection
 *
 * Where the link cuts large frames into segments (link_caps()),
 * as many whole segments as an IP packet holds: one frame and one write()
 * for up to 64 KiB, whatever the guest's MTU. Elsewhere, one segment.
 *
 * Return: bytes
 */
static size_t tcp_frame_data_max(const struct tcp_conn *conn)
{
	size_t mss = conn->mss_to_tap;

	if (!link_caps()->tso || mss > TCP_GSO_DATA_MAX / 2)
		return mss;
	return TCP_GSO_DATA_MAX / mss * mss;
}

/**
 * tcp_peek_frames() - peek socket data into frame payload slots
 * @conn:	connection
 * @space:	bytes the guest's window allows
 * @want:	set to the bytes asked for: a result below it means the socket
 *		had no more
 *
 * Return: recvmsg() result
 */
static ssize_t tcp_peek_frames(struct tcp_conn *conn, uint32_t space,
			       size_t *want)
{
	size_t frame_max = tcp_frame_data_max(conn);
	struct iovec all[TCP_FRAMES + 1];
	struct msghdr mh = { .msg_iov = all };
	size_t skip = 0;
	unsigned int i;
	ssize_t n;

	/* Without SO_PEEK_OFF, what is in flight is peeked again, and thrown
	 * away into a scratch buffer
	 */
	*want = 0;
	if (!tcp_peek_off_ok)
		skip = conn->seq_to_tap - conn->seq_ack_from_tap;
	all[0] = (struct iovec){ tcp_discard, skip };

	for (i = 0; i < TCP_FRAMES && space; i++) {
		size_t len = MIN(space, frame_max);

		all[i + 1] = (struct iovec){
			tcp_frames[i] + FRAME_L4_OFF + TCP_HDR_LEN, len
		};
		space -= len;
		*want += len;
	}
	mh.msg_iov = skip ? all : all + 1;
	mh.msg_iovlen = skip ? i + 1 : i;
	n = recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 || !skip)
		return n;
	if ((size_t)n > skip)
		return n - skip;
	/* Nothing new: end of stream only if the peer's FIN came */
	if (conn->pending & TCP_SOCK_RDHUP)
		return 0;
	errno = EAGAIN;
	return -1;
}

/**
 * tcp_peek_direct() - peek socket data straight into the guest's buffers
 * @c:		execution context
 * @conn:	connection
 * @space:	bytes the guest's window allows
 * @tx:		set: the room the link gave, for tcp_frames_send()
 * @want:	set to the bytes asked for
 *
 * Where the link gives room in the guest's own memory (vhost-user), the
 * payload goes there from the socket and nowhere else: one copy, the
 * kernel's, where the frame buffers cost a second one.
 *
 * Return: recvmsg() result, or -2 if the link has no such room now (then
 *	   tcp_peek_frames())
 */
static ssize_t tcp_peek_direct(struct ctx *c, struct tcp_conn *conn,
			       uint32_t space, struct link_tx *tx,
			       size_t *want)
{
	size_t frame_max = tcp_frame_data_max(conn), hdr_len;
	struct msghdr mh = { .msg_iov = tx->iov };
	unsigned int i;
	ssize_t n;

	if (!tcp_peek_off_ok || !link_caps()->tx_direct)
		return -2;
	hdr_len = ETH_HLEN + TCP_HDR_LEN +
		  (inany_v4(&conn->f.key.gaddr) ? sizeof(struct iphdr) :
						  sizeof(struct ipv6hdr));
	if (!link_tx_reserve(c, tx, MIN(TCP_FRAMES,
					(space + frame_max - 1) / frame_max),
			     frame_max, hdr_len, space))
		return -2;
	for (*want = 0, i = 0; i < tx->iovcnt; i++)
		*want += tx->iov[i].iov_len;
	mh.msg_iovlen = tx->iovcnt;
	n = recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n <= 0)
		link_tx_commit(c, tx, NULL, 0, 0);	/* all of it back */
	return n;
}

/**
 * tcp_peek_failed() - the socket had nothing for the guest: why?
 * @c:		execution context
 * @conn:	connection
 * @n:		tcp_peek_frames() result, 0 (end of stream) or -1
 */
static void tcp_peek_failed(struct ctx *c, struct tcp_conn *conn, ssize_t n)
{
	conn->pending &= ~TCP_WND_HELD;
	if (n == 0) {
		tcp_close_set(conn, TCP_SOCK_EOF);
		tcp_send_fin(c, conn);
	} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
		tcp_rst(c, conn);
	}
}

/**
 * tcp_send_from() - send from this sequence number on: go back, or ahead
 * @c:		execution context
 * @conn:	connection
 * @seq:	next sequence number to send, in the socket still
 *
 * The data is only peeked: the peek offset follows (what the guest
 * acknowledged and we haven't discarded yet is still ahead of it).
 *
 * Return: 0, -1 if the connection was reset
 */
static int tcp_send_from(struct ctx *c, struct tcp_conn *conn, uint32_t seq)
{
	int off = conn->discard + (seq - conn->seq_ack_from_tap);

	conn->seq_to_tap = seq;
	if (tcp_peek_off_ok &&
	    setsockopt(conn->sock, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off))) {
		tcp_rst(c, conn);
		return -1;
	}
	return 0;
}

/**
 * tcp_link_held() - the link took only some frames: take the rest back
 * @c:		execution context
 * @conn:	connection
 * @unsent:	payload bytes of the frames it turned away
 *
 * They were only peeked: the socket still has them. Going back to the
 * first of them, sequence and peek offset, and sending again once the
 * guest has room (tcp_link_room()) costs a wake-up; leaving them lost
 * cost the RTO: a vhost-user guest whose receive ring a download filled
 * stalled for 200 ms each time.
 *
 * Return: 0, -1 if the connection was reset
 */
static int tcp_link_held(struct ctx *c, struct tcp_conn *conn, size_t unsent)
{
	if (tcp_link_wait_n == TCP_LINK_WAIT_MAX)
		return 0;	/* lost, for the RTO */
	if (tcp_send_from(c, conn, conn->seq_to_tap - unsent))
		return -1;
	conn->pending |= TCP_LINK_HELD;
	tcp_link_wait[tcp_link_wait_n++] = tcp_idx(conn);
	return 0;
}

/**
 * tcp_frames_send() - send peeked socket data to the guest as data frames
 * @c:		execution context
 * @conn:	connection
 * @n:		bytes peeked: in tcp_frames' payload slots, or in the guest's
 *		buffers
 * @tx:		the room the guest's buffers gave (tcp_peek_direct()), NULL
 *		if the payload is in tcp_frames
 *
 * Return: 0, -1 if the link turned some away (or the connection was reset)
 */
static int tcp_frames_send(struct ctx *c, struct tcp_conn *conn, size_t n,
			   const struct link_tx *tx)
{
	size_t frame_max = tcp_frame_data_max(conn), sent = 0;
	struct link_frame frames[TCP_FRAMES];
	unsigned int i, went;

	for (i = 0; sent < n; i++) {
		size_t len = MIN(n - sent, frame_max);
		uint8_t flags = TH_ACK | (sent + len == n ? TH_PUSH : 0);

		conn->seq_to_tap += len;
		frames[i] = tcp_hdr_fill(c, conn, tcp_frames[i],
					 conn->seq_to_tap - len, flags, 0, len);
		sent += len;
	}
	if (tx) {
		link_tx_commit(c, tx, frames, i, n);
		went = i;
	} else {
		went = link_send(c, frames, i);
	}
	if (went)
		conn->pending &= ~(TCP_ACK_DUE | TCP_ACK_NOW);
	if (went < i && tcp_link_held(c, conn, n - went * frame_max))
		return -1;
	if (SEQ_GT(conn->seq_to_tap, conn->seq_max_to_tap))
		conn->seq_max_to_tap = conn->seq_to_tap;
	if (conn->seq_to_tap != conn->seq_ack_from_tap && !conn->rto_at)
		tcp_rto_arm(c, conn);
	return went < i ? -1 : 0;
}

/**
 * tcp_data_to_tap() - send what the guest's window allows from the socket
 * @c:		execution context
 * @conn:	connection
 *
 * Stops when the socket has no more, or sets TCP_WND_HELD when the window
 * (or, without SO_PEEK_OFF, the scratch buffer) keeps the rest back: only
 * then can the guest's ACKs alone bring something to send (tcp_batch_end()).
 * Other new data, and the peer's FIN, come with an epoll event of their own.
 */
static void tcp_data_to_tap(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->phase != TCP_PHASE_ESTABLISHED ||
	    (conn->close & TCP_TAP_FIN_SENT) || conn->f.closing ||
	    (conn->pending & TCP_LINK_HELD))
		return;

	tcp_wnd_update(c, conn);
	conn->pending |= TCP_WND_HELD;

	for (;;) {
		uint32_t in_flight = conn->seq_to_tap - conn->seq_ack_from_tap;
		static struct link_tx tx;	/* 16 KiB: not on the stack */
		const struct link_tx *direct = &tx;
		uint32_t space;
		size_t want;
		ssize_t n;

		if (in_flight >= conn->wnd_from_tap) {
			/* Zero window: the RTO timer probes it */
			if (!conn->rto_at)
				tcp_rto_arm(c, conn);
			return;
		}
		space = conn->wnd_from_tap - in_flight;
		if (!tcp_peek_off_ok)
			space = MIN(space, sizeof(tcp_discard) - in_flight);
		if (!space)
			return;

		n = tcp_peek_direct(c, conn, space, &tx, &want);
		if (n == -2) {
			direct = NULL;
			n = tcp_peek_frames(conn, space, &want);
		}
		if (n <= 0) {
			tcp_peek_failed(c, conn, n);
			return;
		}
		if (tcp_frames_send(c, conn, n, direct))
			return;
		/* Less than asked: the socket is empty, and what arrives
		 * next wakes us (edge-triggered), saving a peek that could
		 * only fail. Unless the FIN came with this data: it gives
		 * no further wake-up, and the next peek reads it.
		 */
		if ((size_t)n < want && !(conn->pending & TCP_SOCK_RDHUP)) {
			conn->pending &= ~TCP_WND_HELD;
			return;
		}
	}
}

/**
 * tcp_link_room() - the guest has room again: send what the link turned away
 * @c:		execution context
 *
 * In the order the connections were turned away; those the link turns
 * away again wait for the next time, still in order.
 */
void tcp_link_room(struct ctx *c)
{
	int waiting[TCP_LINK_WAIT_MAX];
	unsigned int i, n = tcp_link_wait_n;

	memcpy(waiting, tcp_link_wait, n * sizeof(waiting[0]));
	tcp_link_wait_n = 0;
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn = &flowtab[waiting[i]].tcp;

		if (conn->f.type != FLOW_TCP || conn->f.closing ||
		    !(conn->pending & TCP_LINK_HELD))
			continue;
		/* Turned away again: the rest keeps its order, behind the
		 * one held (never more entries than taken out)
		 */
		if (tcp_link_wait_n) {
			tcp_link_wait[tcp_link_wait_n++] = waiting[i];
			continue;
		}
		conn->pending &= ~TCP_LINK_HELD;
		tcp_data_to_tap(c, conn);
	}
}

/**
 * tcp_discard_acked() - drop what the guest acknowledged from the socket
 * @c:		execution context
 * @conn:	connection
 *
 * With SO_PEEK_OFF, the peek offset follows the socket's head, so this can
 * wait for the end of the batch; without, the head is where peeking starts.
 *
 * Return: 0 on success, -1 if the connection was reset
 */
static int tcp_discard_acked(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->discard && recv(conn->sock, NULL, conn->discard,
				  MSG_TRUNC | MSG_DONTWAIT) < 0) {
		tcp_rst(c, conn);
		return -1;
	}
	conn->discard = 0;
	return 0;
}

/**
 * tcp_back_to_acked() - next, send from the oldest unacknowledged byte
 * @c:		execution context
 * @conn:	connection
 *
 * Return: 0, -1 if the connection was reset
 */
static int tcp_back_to_acked(struct ctx *c, struct tcp_conn *conn)
{
	if (tcp_discard_acked(c, conn))
		return -1;
	if ((conn->close & TCP_TAP_FIN_SENT) &&
	    !(conn->close & TCP_TAP_FIN_ACKED))
		conn->close &= ~TCP_TAP_FIN_SENT;
	return tcp_send_from(c, conn, conn->seq_ack_from_tap);
}

/**
 * tcp_rewind() - go back to the oldest unacknowledged byte and resend
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_rewind(struct ctx *c, struct tcp_conn *conn)
{
	conn->retrans++;
	conn->dup_acks = 0;
	if (!tcp_back_to_acked(c, conn))
		tcp_data_to_tap(c, conn);
}

/**
 * tcp_conn_rewind() - a connection on a socket rebuilt by migration: what
 *		       the guest hasn't acknowledged goes again, once it runs
 * @c:		execution context
 * @idx:	flow index, frozen
 *
 * The new socket's receive queue starts where the old one's did, at what
 * the guest acknowledged and we didn't discard yet; its peek offset is
 * ours to set.
 */
void tcp_conn_rewind(struct ctx *c, int idx)
{
	tcp_back_to_acked(c, &flowtab[idx].tcp);
}

/**
 * tcp_opts_parse() - read MSS and window scale from SYN options
 * @v:		options bytes
 * @o:		parsed options
 *
 * Options match on exact (kind, length) pairs; values are copied out.
 *
 * Return: 0 on success, -1 if the option list is malformed
 */
static int tcp_opts_parse(struct pkt_view v, struct tcp_opts *o)
{
	o->mss = 0;
	o->ws = -1;

	while (v.len) {
		const uint8_t *kind = pkt_pull(&v, 1), *len;
		const uint8_t *val;

		if (*kind == TCPOPT_EOL)
			break;
		if (*kind == TCPOPT_NOP)
			continue;
		len = pkt_pull(&v, 1);
		if (!len || *len < 2 || !(val = pkt_pull(&v, *len - 2)))
			return -1;
		if (*kind == TCPOPT_MAXSEG && *len == TCPOLEN_MAXSEG) {
			uint16_t mss;

			memcpy(&mss, val, sizeof(mss));
			o->mss = ntohs(mss);
		} else if (*kind == TCPOPT_WINDOW && *len == TCPOLEN_WINDOW) {
			o->ws = MIN(*val, 14);	/* RFC 7323, 2.3 */
		} else if (*kind == TCPOPT_MAXSEG || *kind == TCPOPT_WINDOW) {
			return -1;
		}
	}
	return 0;
}

/**
 * tcp_syn_opts_apply() - take MSS and window scaling from the guest's SYN
 * @c:		execution context
 * @conn:	connection
 * @o:		guest's options
 * @wnd:	window field of the SYN, never scaled (RFC 7323, 2.2)
 */
static void tcp_syn_opts_apply(const struct ctx *c, struct tcp_conn *conn,
			       const struct tcp_opts *o, uint16_t wnd)
{
	conn->mss_to_tap = o->mss ? o->mss : TCP_MSS_NO_OPT;
	conn->mss_to_tap = MIN(conn->mss_to_tap, tcp_mss_max(c, &conn->f.key));
	conn->mss_to_tap = MAX(conn->mss_to_tap, 64);
	if (o->ws >= 0) {
		conn->ws_from_tap = o->ws;
		conn->ws_to_tap = TCP_WS_OURS;
	} else {
		/* Scaling is on only if both sides offer it */
		conn->ws_from_tap = conn->ws_to_tap = 0;
	}
	conn->wnd_from_tap = wnd;
}

/**
 * tcp_isn() - initial sequence number for a connection towards the guest
 *
 * Return: random 32-bit value (RFC 6528 asks for unpredictability)
 */
static uint32_t tcp_isn(void)
{
	return (uint32_t)random_u64();
}

/**
 * tcp_rcvbuf_open() - let the receive window grow from the first RTTs on
 * @s:		socket
 *
 * The kernel grows a receive window only while the receive queue is nearly
 * empty as segments arrive, and grows the buffer from what the reader took
 * in the last RTT. We keep data queued until the guest acknowledges it, so
 * a sender's slow-start burst is still queued as its tail arrives: at 170
 * ms, the window stayed at 54 KiB (3 Mbit/s) for up to 5 s, while the
 * sender's cwnd was 100 times larger. A raised SO_RCVLOWAT raises the
 * buffer and window clamp without locking them (unlike SO_RCVBUF, which
 * would stop auto-tuning): set it once, then back to 1 byte, so that every
 * byte still wakes us up.
 */
static void tcp_rcvbuf_open(int s)
{
	int start = TCP_RCVWND_START, one = 1;

	if (setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &start, sizeof(start)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof(one)))
		debug("TCP: SO_RCVLOWAT: %s", strerror(errno));
}

/**
 * tcp_sock_register() - set up a flow's socket and add it to epoll
 * @c:		execution context
 * @s:		socket
 * @idx:	flow index for the epoll reference
 * @events:	initial epoll events, EPOLLET is added
 *
 * Return: 0, or -errno
 */
static int tcp_sock_register(const struct ctx *c, int s, int idx,
			     uint32_t events)
{
	int zero = 0, one = 1;

	if (tcp_peek_off_ok &&
	    setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero))) {
		int ret = -errno;

		err_ratelimit("TCP: SO_PEEK_OFF: %s", strerror(errno));
		return ret;
	}
	/* A host peer that vanishes is found by the host kernel, with the
	 * host's own settings (net.ipv4.tcp_keepalive_*): its error then
	 * resets the guest's side
	 */
	if (setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)))
		debug("TCP: SO_KEEPALIVE: %s", strerror(errno));
	tcp_rcvbuf_open(s);
	epoll_ref_add(c, s, EPOLL_TYPE_TCP, idx, events | EPOLLET);
	flowtab[idx].tcp.epoll_events = events | EPOLLET;
	return 0;
}

/**
 * tcp_rst_stateless() - answer a segment that matches no connection
 * @c:		execution context
 * @key:	flow key of the segment
 * @seg:	segment, not RST
 */
static void tcp_rst_stateless(struct ctx *c, const struct flow_key *key,
			      const struct tcp_seg *seg)
{
	uint8_t buf[FRAME_L4_OFF + TCP_HDR_LEN] __attribute__((aligned(8)));
	struct tcp_conn tmp = { .f.key = *key };
	uint8_t flags = TH_RST;
	struct link_frame frame;

	/* RFC 793, 3.4, "Reset Generation", case 1 */
	if (seg->th->ack) {
		tmp.seq_to_tap = seg->ack;
	} else {
		tmp.seq_from_tap = seg->seq + seg->len +
				   seg->th->syn + seg->th->fin;
		flags |= TH_ACK;
	}
	frame = tcp_hdr_fill(c, &tmp, buf, tmp.seq_to_tap, flags, 0, 0);
	link_send(c, &frame, 1);
}

/**
 * tcp_conn_new() - a flow for a connection on a host socket, not yet in
 *		    the hash table
 * @c:		execution context
 * @key:	flow key, not in the table
 * @s:		host socket, closed if there's no flow for it
 *
 * Return: flow index, FLOW_TCP, its socket set, or -1 if the table is full
 */
int tcp_conn_new(struct ctx *c, const struct flow_key *key, int s)
{
	int idx = flow_alloc(c, FLOW_BUDGET_TCP);
	char str[FLOW_STRLEN];
	struct tcp_conn *conn;

	if (idx < 0) {
		err_ratelimit("TCP: flow table full, refusing %s",
			      flow_str(key, str, sizeof(str)));
		close(s);
		return -1;
	}
	conn = &flowtab[idx].tcp;
	conn->f.type = FLOW_TCP;
	conn->f.key = *key;
	conn->sock = s;
	conn->rto_ms = TCP_RTO_INIT_MS;
	return idx;
}

/**
 * tcp_conn_alloc() - a flow for a guest's SYN, its host socket open
 * @c:		execution context
 * @key:	flow key
 * @seg:	the SYN
 * @o:		its options
 * @s:		host socket, closed if there's no flow for it
 *
 * Return: flow index, in the hash table, or -1 if the table is full
 */
static int tcp_conn_alloc(struct ctx *c, const struct flow_key *key,
			  const struct tcp_seg *seg, const struct tcp_opts *o,
			  int s)
{
	int idx = tcp_conn_new(c, key, s);
	struct tcp_conn *conn;

	if (idx < 0) {
		pkt_drop(DROP_FLOW_TABLE_FULL);
		return -1;
	}
	conn = &flowtab[idx].tcp;
	conn->seq_from_tap = seg->seq + 1;
	conn->seq_to_tap = conn->seq_max_to_tap = tcp_isn() + 1;
	conn->seq_ack_from_tap = conn->seq_to_tap - 1;
	tcp_syn_opts_apply(c, conn, o, seg->wnd);
	flow_hash_insert(idx);
	return idx;
}

/**
 * tcp_conn_from_tap() - open a host connection for a guest's SYN
 * @c:		execution context
 * @key:	flow key
 * @seg:	the SYN
 */
static void tcp_conn_from_tap(struct ctx *c, const struct flow_key *key,
			      const struct tcp_seg *seg, uint8_t ttl)
{
	union sockaddr_inany sa;
	struct tcp_conn *conn;
	struct tcp_opts o;
	char str[FLOW_STRLEN];
	socklen_t sl;
	int idx, s;

	if (tcp_opts_parse(seg->opts, &o)) {
		pkt_drop(DROP_TCP_OPTS);
		return;
	}
	/* The socket first: out of descriptors, ip_flow_sock() evicts the
	 * oldest half-open connection, never this one
	 */
	s = ip_flow_sock(c, SOCK_STREAM, IPPROTO_TCP, &key->paddr, key->pport,
			 0, &sa, &sl);
	if (s < 0) {
		err_ratelimit("TCP: socket for %s: %s",
			      flow_str(key, str, sizeof(str)), strerror(-s));
		tcp_rst_stateless(c, key, seg);
		return;
	}
	idx = tcp_conn_alloc(c, key, seg, &o, s);
	if (idx < 0)
		return;
	conn = &flowtab[idx].tcp;

	if (tcp_sock_register(c, s, idx, EPOLLOUT | EPOLLRDHUP)) {
		tcp_rst(c, conn);
		return;
	}
	tcp_phase_set(conn, TCP_PHASE_CONNECTING);
	if (ttl && ttl < IPDEFTTL) {	/* a probe: traceroute -T */
		conn->syn_ttl = icmp_err_ttl_set(s, key, IPDEFTTL, ttl);
		icmp_err_watch(s, key);
	}
	/* A peer that never answers would hold the flow for the kernel's
	 * ~127 s of SYN retries (a SYN flood's flows, all of them)
	 */
	conn->rto_ms = TCP_CONNECT_TIMEOUT_MS;
	tcp_rto_arm(c, conn);

	if (connect(s, &sa.sa, sl) &&
	    errno != EINPROGRESS) {
		debug("TCP: connect for %s: %s",
		      flow_str(key, str, sizeof(str)), strerror(errno));
		tcp_rst(c, conn);
	}
}

/**
 * tcp_connected() - host connect() completed: answer the guest's SYN
 * @c:		execution context
 * @conn:	connection
 * @events:	epoll events of the socket
 *
 * A failed connect() comes with EPOLLERR (and EPOLLHUP): only then is
 * SO_ERROR worth a system call, for the message.
 */
static void tcp_connected(struct ctx *c, struct tcp_conn *conn,
			  uint32_t events)
{
	int i;

	/* A probe's ICMP error (time exceeded) is the guest's, and then all
	 * it hears of the attempt: no RST after it, as from a real path
	 */
	for (i = 0; conn->syn_ttl && (events & EPOLLERR) &&
		    i < ICMP_ERR_BATCH &&
		    !icmp_err_to_tap(c, conn->sock, &conn->f.key,
				     conn->seq_from_tap - 1); i++)
		;
	if (events & (EPOLLERR | EPOLLHUP)) {
		socklen_t sl = sizeof(int);
		char s[FLOW_STRLEN];
		int err = 0;

		getsockopt(conn->sock, SOL_SOCKET, SO_ERROR, &err, &sl);
		if (!err && !(events & EPOLLHUP))
			return;
		debug("%s: connect: %s",
		      flow_str(&conn->f.key, s, sizeof(s)), strerror(err));
		if (i)
			flow_close(tcp_idx(conn));
		else
			tcp_rst(c, conn);
		return;
	}
	if (!(events & EPOLLOUT))
		return;
	if (conn->syn_ttl)
		icmp_err_unwatch(conn->sock, &conn->f.key);
	tcp_phase_set(conn, TCP_PHASE_SYN_ACK_SENT);
	tcp_epoll_set(c, conn, EPOLLIN | EPOLLRDHUP);
	tcp_send_ctl(c, conn, TH_SYN | TH_ACK);
	conn->rto_ms = TCP_RTO_INIT_MS;
	tcp_rto_arm(c, conn);
}

/**
 * tcp_ack_advance() - the guest acknowledged new data: drop it, reset timers
 * @c:		execution context
 * @conn:	connection
 * @ack:	acknowledged sequence number
 * @acked:	bytes of socket data it acknowledges (without our FIN)
 *
 * Return: 0, or -1 if dropping the data failed and reset the connection
 */
static int tcp_ack_advance(struct ctx *c, struct tcp_conn *conn, uint32_t ack,
			   uint32_t acked)
{
	conn->discard += acked;
	if (!tcp_peek_off_ok && tcp_discard_acked(c, conn))
		return -1;
	conn->bytes_to_tap += acked;
	conn->seq_ack_from_tap = ack;
	conn->dup_acks = 0;
	conn->retries = 0;
	conn->rto_ms = TCP_RTO_INIT_MS;
	if (conn->seq_to_tap == conn->seq_ack_from_tap)
		conn->rto_at = 0;
	else
		tcp_rto_arm(c, conn);
	return 0;
}

/**
 * tcp_dup_ack() - count a duplicate ACK, fast retransmit on the third
 * @c:		execution context
 * @conn:	connection
 *
 * One fast retransmit until an ACK moves (RFC 6582, 3.2): we resend the
 * whole flight, and each segment of the old one still draws a duplicate.
 * Rewinding on those again, three at a time, went on for as long as the
 * transfer lasted, the guest's tap queue full of its duplicates and its
 * real ACKs lost among them.
 *
 * Return: true if this one rewound the flight
 */
static bool tcp_dup_ack(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->dup_acks >= TCP_DUP_ACK_THRESH ||
	    ++conn->dup_acks != TCP_DUP_ACK_THRESH)
		return false;
	tcp_rewind(c, conn);
	conn->dup_acks = TCP_DUP_ACK_THRESH;
	return true;
}

/**
 * tcp_ack_past_rewind() - the guest acknowledges more than we resent so far
 * @c:		execution context
 * @conn:	connection
 * @ack:	its ACK, past @conn->seq_to_tap
 *
 * After a rewind (RTO, fast retransmit), what the guest had in its queue
 * still arrives, and its ACKs cover it: resending it all again, while such
 * ACKs were ignored, stalled a slow guest's downloads for seconds. Data it
 * has needn't go again: go on from there.
 *
 * Return: 0 if @ack is for data we sent, now sent from there, -1 if not
 *	   (or the connection was reset)
 */
static int tcp_ack_past_rewind(struct ctx *c, struct tcp_conn *conn,
			       uint32_t ack)
{
	if (SEQ_GT(ack, conn->seq_max_to_tap))
		return -1;
	return tcp_send_from(c, conn, ack);
}

/**
 * tcp_ack_from_tap() - process the guest's ACK and window
 * @c:		execution context
 * @conn:	connection
 * @seg:	segment
 */
static void tcp_ack_from_tap(struct ctx *c, struct tcp_conn *conn,
			     const struct tcp_seg *seg)
{
	uint32_t wnd = (uint32_t)seg->wnd << conn->ws_from_tap;
	uint32_t acked, old_wnd = conn->wnd_from_tap;
	bool dup;

	if (SEQ_LT(seg->ack, conn->seq_ack_from_tap) ||
	    (SEQ_GT(seg->ack, conn->seq_to_tap) &&
	     tcp_ack_past_rewind(c, conn, seg->ack)))
		return;		/* old, or not for data we sent */

	acked = seg->ack - conn->seq_ack_from_tap;
	/* The answer to a keepalive probe repeats the ACK too, but it is no
	 * sign of a loss, even if data went out after the probe
	 */
	dup = !acked && !seg->len && wnd == conn->wnd_from_tap &&
	      conn->seq_to_tap != conn->seq_ack_from_tap && !conn->ka_sent;
	conn->wnd_from_tap = wnd;

	if (acked) {
		if ((conn->close & TCP_TAP_FIN_SENT) &&
		    seg->ack == conn->seq_to_tap) {
			tcp_close_set(conn, TCP_TAP_FIN_ACKED);
			acked--;	/* the FIN is not socket data */
		}
		if (tcp_ack_advance(c, conn, seg->ack, acked))
			return;
	} else if (dup && tcp_dup_ack(c, conn)) {
		return;
	} else if (!wnd && conn->seq_to_tap == conn->seq_ack_from_tap) {
		/* It answers our zero window probes: it is alive, and may
		 * keep its window closed as long as it likes (RFC 1122,
		 * 4.2.2.17). Only probes without an answer count.
		 */
		conn->retries = 0;
	}
	/* Otherwise, what stopped the last tcp_data_to_tap() still holds:
	 * the window, or an empty socket, whose EPOLLIN will tell. And a
	 * burst of ACKs needs one discard and one look at the socket, at the
	 * end of the batch: on downloads, 85 ACKs came in one batch.
	 */
	if (acked || wnd != old_wnd)
		tcp_touch(c, conn, TCP_DATA_DUE);
}

/**
 * tcp_seq_queued() - next sequence number from the guest, counting queued data
 * @conn:	connection
 *
 * Return: @seq_from_tap, plus what tcp_tx holds for @conn
 */
static uint32_t tcp_seq_queued(const struct tcp_conn *conn)
{
	if (tcp_tx.idx != tcp_idx(conn))
		return conn->seq_from_tap;
	return conn->seq_from_tap + (uint32_t)tcp_tx.len;
}

/**
 * tcp_tx_refused() - the socket took less than the queued segments
 * @c:		execution context
 * @conn:	connection
 * @segs:	segments not taken completely
 *
 * Nothing is lost: what was not taken is not acknowledged, and the guest
 * resends it. Unbatched, each of those segments after the first would have
 * come out of sequence and drawn a duplicate ACK: send as many, so that the
 * guest retransmits at once rather than on its RTO. EPOLLOUT brings the
 * window update.
 */
static void tcp_tx_refused(struct ctx *c, struct tcp_conn *conn,
			   unsigned int segs)
{
	conn->pending |= TCP_WANT_EPOLLOUT;
	tcp_epoll_set(c, conn, conn->epoll_events | EPOLLOUT);
	tcp_send_ctl(c, conn, TH_ACK);
	while (--segs)
		tcp_send_dup_ack(c, conn);
}

/**
 * tcp_tx_flush() - write the queued guest payload to its socket
 * @c:		execution context
 *
 * Called by the input layer when its batch of frames ends (see tcp_tx), and
 * here before anything that needs the socket up to date.
 */
void tcp_tx_flush(struct ctx *c)
{
	struct msghdr mh = { .msg_iov = tcp_tx.iov, .msg_iovlen = tcp_tx.n };
	unsigned int i, segs;
	struct tcp_conn *conn;
	size_t len = tcp_tx.len;
	ssize_t n;

	if (tcp_tx.idx < 0)
		return;
	conn = &flowtab[tcp_tx.idx].tcp;
	tcp_tx.idx = -1;
	tcp_tx.n = tcp_tx.len = 0;
	if (conn->f.type != FLOW_TCP || conn->f.closing)
		return;

	n = sendmsg(conn->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			tcp_rst(c, conn);
			return;
		}
		n = 0;
	}
	conn->seq_from_tap += n;
	conn->bytes_from_tap += n;
	if ((size_t)n == len)
		return;
	for (i = 0; (size_t)n >= mh.msg_iov[i].iov_len; i++)
		n -= mh.msg_iov[i].iov_len;
	/* The segment of the first iovec not written whole, and those after */
	for (segs = 1, i++; i < mh.msg_iovlen; i++)
		segs += tcp_tx.seg_start[i];
	tcp_tx_refused(c, conn, segs);
}

/**
 * tcp_tx_queue_iov() - queue a piece of the guest's payload, past a skip
 * @base:	piece
 * @len:	its length
 * @skip:	bytes to leave out before it starts, updated
 * @start:	the first piece of a segment queued: set, false once queued
 */
static void tcp_tx_queue_iov(const void *base, size_t len, size_t *skip,
			     bool *start)
{
	size_t s = MIN(*skip, len);

	*skip -= s;
	if (len == s)
		return;
	tcp_tx.seg_start[tcp_tx.n] = *start;
	tcp_tx.iov[tcp_tx.n++] = (struct iovec){ (uint8_t *)base + s, len - s };
	tcp_tx.len += len - s;
	*start = false;
}

/**
 * tcp_tx_queue() - queue a segment's in-sequence payload for the socket
 * @c:		execution context
 * @conn:	connection
 * @seg:	segment
 * @skip:	bytes of its payload we had already
 */
static void tcp_tx_queue(struct ctx *c, struct tcp_conn *conn,
			 const struct tcp_seg *seg, size_t skip)
{
	size_t left = seg->tail.len;
	bool start = true;
	unsigned int i;

	if ((tcp_tx.idx >= 0 && tcp_tx.idx != tcp_idx(conn)) ||
	    tcp_tx.n + 1 + seg->tail.n > TCP_TX_IOV_MAX)
		tcp_tx_flush(c);
	tcp_tx.idx = tcp_idx(conn);
	tcp_tx_queue_iov(seg->data.data, seg->data.len, &skip, &start);
	for (i = 0; i < seg->tail.n && left; i++) {
		size_t n = MIN(seg->tail.iov[i].iov_len, left);

		tcp_tx_queue_iov(seg->tail.iov[i].iov_base, n, &skip, &start);
		left -= n;
	}
}

/**
 * tcp_data_from_tap() - write the guest's in-sequence payload to the socket
 * @c:		execution context
 * @conn:	connection
 * @seg:	segment
 */
static void tcp_data_from_tap(struct ctx *c, struct tcp_conn *conn,
			      const struct tcp_seg *seg)
{
	uint32_t skip, len = seg->len, next = tcp_seq_queued(conn);
	bool fin = seg->th->fin;

	if (!len && !fin) {
		/* Keep-alive or zero window probe: answer with our window */
		if (SEQ_LT(seg->seq, next))
			tcp_touch(c, conn, TCP_ACK_NOW);
		return;
	}
	if (conn->close & TCP_TAP_EOF) {
		tcp_touch(c, conn, TCP_ACK_NOW);
		return;
	}
	if (SEQ_GT(seg->seq, next)) {
		/* A gap: drop, and send a duplicate ACK at once, with the
		 * window unchanged so that it counts as one: three make the
		 * guest retransmit the missing data (RFC 5681, 3.2 and 4.2).
		 */
		pkt_drop(DROP_TCP_SEQ);
		tcp_tx_flush(c);
		if (!conn->f.closing)
			tcp_send_dup_ack(c, conn);
		return;
	}
	skip = next - seg->seq;
	if (skip > len || (skip == len && !fin)) {
		tcp_touch(c, conn, TCP_ACK_NOW);	/* old duplicate */
		return;
	}

	if (len - skip)
		tcp_tx_queue(c, conn, seg, skip);

	if (fin) {
		tcp_tx_flush(c);
		if (conn->f.closing)
			return;
		if (conn->seq_from_tap != seg->seq + len)
			return;		/* refused: the guest resends, FIN too */
		conn->seq_from_tap++;
		tcp_close_set(conn, TCP_TAP_EOF);
		if (!shutdown(conn->sock, SHUT_WR))
			tcp_close_set(conn, TCP_SOCK_SHUT_WR);
		tcp_touch(c, conn, TCP_ACK_NOW);
		return;
	}
	tcp_touch(c, conn, TCP_ACK_DUE);
}

/**
 * tcp_handshake_from_tap() - segment for a connection not yet established
 * @c:		execution context
 * @conn:	connection
 * @seg:	segment, not RST
 *
 * Return: true if the segment should be processed further as established
 */
static bool tcp_handshake_from_tap(struct ctx *c, struct tcp_conn *conn,
				   const struct tcp_seg *seg)
{
	const struct tcphdr *th = seg->th;
	struct tcp_opts o;

	switch (conn->phase) {
	case TCP_PHASE_CONNECTING:
		return false;	/* SYN retransmission: still connecting */
	case TCP_PHASE_SYN_ACK_SENT:
		if (th->syn && !th->ack) {
			tcp_send_ctl(c, conn, TH_SYN | TH_ACK);
			return false;
		}
		if (!th->ack || seg->ack != conn->seq_to_tap)
			return false;
		tcp_established(c, conn);
		conn->rto_at = 0;
		conn->seq_ack_from_tap = seg->ack;
		tcp_data_to_tap(c, conn);	/* what the peer sent already */
		return true;
	case TCP_PHASE_SYN_SENT:
		if (!th->syn || !th->ack || seg->ack != conn->seq_to_tap)
			return false;
		if (tcp_opts_parse(seg->opts, &o)) {
			pkt_drop(DROP_TCP_OPTS);
			return false;
		}
		tcp_syn_opts_apply(c, conn, &o, seg->wnd);
		conn->seq_from_tap = seg->seq + 1;
		conn->seq_ack_from_tap = seg->ack;
		conn->rto_at = 0;
		conn->retries = 0;
		tcp_established(c, conn);
		tcp_epoll_set(c, conn, EPOLLIN | EPOLLRDHUP);
		tcp_send_ctl(c, conn, TH_ACK);
		tcp_data_to_tap(c, conn);
		return false;
	default:
		return !th->syn;
	}
}

/**
 * tcp_segment() - handle a segment for an existing connection
 * @c:		execution context
 * @conn:	connection
 * @seg:	segment
 */
static void tcp_segment(struct ctx *c, struct tcp_conn *conn,
			const struct tcp_seg *seg)
{
	if (seg->th->rst) {
		struct linger lin = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(conn->sock, SOL_SOCKET, SO_LINGER, &lin,
			   sizeof(lin));
		flow_close(tcp_idx(conn));
		return;
	}
	if (!tcp_handshake_from_tap(c, conn, seg) || !seg->th->ack)
		return;

	conn->tap_seen_at = c->now;
	tcp_data_from_tap(c, conn, seg);
	if (conn->f.closing)
		return;
	tcp_ack_from_tap(c, conn, seg);
	conn->ka_sent = 0;	/* only now: see tcp_ack_from_tap() */
	if (!conn->f.closing)
		tcp_check_done(c, conn);
}

/**
 * tcp_seg_parse() - check a TCP header and split the segment
 * @l4:		L4 view, the IP payload, or its first part
 * @tail:	the rest of the IP payload, where the link left it
 * @seg:	parsed segment
 *
 * Return: 0 if well-formed, or the drop reason
 */
static int tcp_seg_parse(struct pkt_view l4, const struct pkt_tail *tail,
			 struct tcp_seg *seg)
{
	const struct tcphdr *th = pkt_pull(&l4, sizeof(*th));
	size_t doff;

	if (!th)
		return DROP_TCP_MALFORMED;
	doff = th->doff * 4;
	if (doff < sizeof(*th) ||
	    !pkt_sub(&l4, doff - sizeof(*th), &seg->opts))
		return DROP_TCP_MALFORMED;

	/* Nonsense combinations (RFC 9293 has no use for them) */
	if ((th->syn && (th->fin || th->rst)) || (th->rst && th->fin) ||
	    (!th->ack && !th->syn && !th->rst))
		return DROP_TCP_FLAGS;
	if (th->syn && (l4.len || tail->len))
		return DROP_TCP_FLAGS;	/* no data on SYN: we never use TFO */

	seg->th = th;
	seg->data = l4;
	seg->tail = *tail;
	seg->len = l4.len + tail->len;
	seg->seq = ntohl(th->seq);
	seg->ack = ntohl(th->ack_seq);
	seg->wnd = ntohs(th->window);
	return 0;
}

/**
 * tcp_tap_input() - handle a TCP segment from the guest
 * @c:		execution context
 * @l3:		addresses, checked
 * @l4:		view of the IP payload, or of its first part
 * @tail:	the rest of the IP payload, where the link left it: valid
 *		until the end of the input batch (tcp_tx_flush())
 */
void tcp_tap_input(struct ctx *c, const struct l3_info *l3,
		   struct pkt_view l4, const struct pkt_tail *tail)
{
	struct flow_key key = { .proto = IPPROTO_TCP };
	struct tcp_seg seg;
	int ret, idx;

	ret = tcp_seg_parse(l4, tail, &seg);
	if (ret) {
		pkt_drop(ret);
		return;
	}
	key.gaddr = l3->src;
	key.paddr = l3->dst;
	key.gport = ntohs(seg.th->source);
	key.pport = ntohs(seg.th->dest);

	idx = flow_lookup(&key);
	if (idx >= 0) {
		tcp_segment(c, &flowtab[idx].tcp, &seg);
		return;
	}
	if (seg.th->syn && !seg.th->ack) {
		tcp_conn_from_tap(c, &key, &seg, l3->hop_limit);
		return;
	}
	pkt_drop(DROP_TCP_NOFLOW);
	if (!seg.th->rst)
		tcp_rst_stateless(c, &key, &seg);
}

/**
 * tcp_sock_handler() - event on a connection's host socket
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 */
void tcp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	struct tcp_conn *conn = &flowtab[ref.index].tcp;

	if (conn->f.type != FLOW_TCP || conn->f.closing ||
	    conn->sock != ref.fd)
		return;		/* closed earlier in this batch */

	if (conn->phase == TCP_PHASE_CONNECTING) {
		tcp_connected(c, conn, events);
		return;
	}
	if (events & EPOLLRDHUP)
		conn->pending |= TCP_SOCK_RDHUP;
	if (events & EPOLLERR) {
		tcp_rst(c, conn);
		return;
	}
	if ((events & EPOLLOUT) && (conn->pending & TCP_WANT_EPOLLOUT)) {
		conn->pending &= ~TCP_WANT_EPOLLOUT;
		tcp_epoll_set(c, conn, conn->epoll_events & ~EPOLLOUT);
		tcp_touch(c, conn, TCP_ACK_NOW);
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))
		tcp_data_to_tap(c, conn);
	if (!conn->f.closing)
		tcp_check_done(c, conn);
}

/**
 * tcp_conn_from_sock() - start a connection to the guest for an accept()ed one
 * @c:		execution context
 * @s:		accepted socket
 * @l:		the forwarded port's listener: target port and address
 * @sa:		client address
 */
static void tcp_conn_from_sock(struct ctx *c, int s,
			       const struct fwd_listener *l,
			       const union sockaddr_inany *sa)
{
	struct flow_key key = { .proto = IPPROTO_TCP };
	struct tcp_conn *conn;
	char str[FLOW_STRLEN];
	int idx;

	if (inany_from_sockaddr(&key.paddr, &key.pport, sa) ||
	    !fwd_guest_dest(l, inany_family(&key.paddr), &key.gaddr)) {
		close(s);
		return;
	}
	key.gport = l->to;
	ip_inbound_peer(c, &key.paddr);

	if (flow_lookup(&key) >= 0) {
		err_ratelimit("TCP: can't add %s: a duplicate",
			      flow_str(&key, str, sizeof(str)));
		close(s);
		return;
	}
	idx = tcp_conn_new(c, &key, s);
	if (idx < 0)
		return;
	conn = &flowtab[idx].tcp;
	conn->seq_to_tap = conn->seq_max_to_tap = tcp_isn() + 1;
	conn->seq_ack_from_tap = conn->seq_to_tap - 1;
	conn->mss_to_tap = tcp_mss_max(c, &key);
	conn->ws_to_tap = TCP_WS_OURS;
	flow_hash_insert(idx);
	if (tcp_sock_register(c, s, idx, EPOLLRDHUP)) {
		flow_close(idx);
		return;
	}
	tcp_wnd_update(c, conn);
	tcp_phase_set(conn, TCP_PHASE_SYN_SENT);
	tcp_send_ctl(c, conn, TH_SYN);
	tcp_rto_arm(c, conn);
}

/**
 * tcp_splice_dst() - should an accepted connection be spliced, and where to
 * @c:		execution context
 * @s:		accepted socket
 * @sa:		its client
 * @dst:	where in the namespace, set if spliced
 *
 * Return: true to splice, see splice_inbound()
 */
static bool tcp_splice_dst(const struct ctx *c, int s,
			   const union sockaddr_inany *sa,
			   union inany_addr *dst)
{
	union inany_addr client, local;
	uint16_t port;

	if (c->mode != MODE_PASTA || inany_from_sockaddr(&client, &port, sa))
		return false;
	/* The address connected to decides only with --host-lo-to-ns-lo:
	 * no getsockname() per connection otherwise
	 */
	local = client;
	if (c->host_lo_to_ns_lo && inany_sock_local(s, &local))
		return false;
	return splice_inbound(c, &client, &local, dst);
}

/**
 * tcp_listen_handler() - accept connections to a forwarded port
 * @c:		execution context
 * @ref:	epoll reference, index is the forwarded port's listener
 * @events:	epoll events
 */
void tcp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	const struct fwd_listener *l = fwd_listener_at(ref.index);
	int i;

	(void)events;
	if (l->fd != ref.fd)
		return;		/* closed earlier in this batch */
	for (i = 0; i < 64; i++) {
		union inany_addr dst;
		union sockaddr_inany sa;
		socklen_t sl = sizeof(sa);
		int s;

		s = accept4(ref.fd, &sa.sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (s < 0) {
			fwd_accept_error(c, l, errno);
			return;
		}
		/* A target address is behind the guest: it's reached
		 * through the tap even from the host's loopback
		 */
		if (!inany_is_set(&l->taddr) && tcp_splice_dst(c, s, &sa, &dst))
			splice_from_host(c, s, &dst, l->to);
		else
			tcp_conn_from_sock(c, s, l, &sa);
	}
}

/**
 * tcp_batch_end() - send the ACKs deferred during an event batch
 * @c:		execution context
 */
void tcp_batch_end(struct ctx *c)
{
	unsigned int i;

	tcp_tx_flush(c);

	for (i = 0; i < tcp_touched_n; i++) {
		struct tcp_conn *conn = &flowtab[tcp_touched[i]].tcp;
		uint32_t wnd;

		if (conn->f.type != FLOW_TCP || conn->f.closing ||
		    conn->f.frozen)
			continue;
		if (conn->pending & TCP_DATA_DUE) {
			conn->pending &= ~TCP_DATA_DUE;
			if (tcp_discard_acked(c, conn))
				continue;
			/* Data just forwarded may have its answer in the
			 * socket already: sent now, it carries our ACK, and
			 * the guest gets one frame, not two (1-connection
			 * request rates: 9,000/s, without: 3,600/s)
			 */
			if (conn->pending & (TCP_WND_HELD | TCP_ACK_DUE))
				tcp_data_to_tap(c, conn);
			if (conn->f.closing)
				continue;
		}
		if (!(conn->pending & (TCP_ACK_DUE | TCP_ACK_NOW)))
			continue;
		wnd = tcp_wnd_watch(c, conn);
		if ((conn->pending & TCP_ACK_NOW) ||
		    conn->seq_ack_to_tap != conn->seq_from_tap ||
		    wnd != conn->wnd_to_tap)
			tcp_send_ctl(c, conn, TH_ACK);
		conn->pending &= ~(TCP_ACK_DUE | TCP_ACK_NOW);
	}
	tcp_touched_n = 0;
}

/**
 * tcp_timeout() - retransmission timer expired for a connection
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_timeout(struct ctx *c, struct tcp_conn *conn)
{
	char s[FLOW_STRLEN];

	conn->rto_at = 0;
	if (conn->phase == TCP_PHASE_CONNECTING) {
		debug("%s: no answer from the peer in %u s, resetting",
		      flow_str(&conn->f.key, s, sizeof(s)),
		      TCP_CONNECT_TIMEOUT_MS / 1000);
		tcp_rst(c, conn);
		return;
	}
	/* A SYN-ACK to a source the guest does not own (spoofed, in its
	 * subnet) goes unanswered: ten retries, 222 s, held a flood's flows
	 * and sockets for minutes
	 */
	if (conn->phase != TCP_PHASE_ESTABLISHED &&
	    ++conn->retries > TCP_SYN_RETRIES_MAX) {
		debug("%s: no answer to our SYN in %u tries, resetting",
		      flow_str(&conn->f.key, s, sizeof(s)), conn->retries);
		tcp_rst(c, conn);
		return;
	}
	if (conn->phase == TCP_PHASE_ESTABLISHED &&
	    ++conn->retries > TCP_RETRIES_MAX) {
		warn("%s: guest unresponsive, resetting",
		     flow_str(&conn->f.key, s, sizeof(s)));
		tcp_rst(c, conn);
		return;
	}
	conn->rto_ms = MIN(conn->rto_ms * 2, TCP_RTO_MAX_MS);

	switch (conn->phase) {
	case TCP_PHASE_SYN_SENT:
		tcp_send_ctl(c, conn, TH_SYN);
		tcp_rto_arm(c, conn);
		break;
	case TCP_PHASE_SYN_ACK_SENT:
		tcp_send_ctl(c, conn, TH_SYN | TH_ACK);
		tcp_rto_arm(c, conn);
		break;
	case TCP_PHASE_ESTABLISHED:
		if (conn->seq_to_tap == conn->seq_ack_from_tap &&
		    !conn->wnd_from_tap) {
			tcp_send_probe(c, conn);	/* zero window */
			tcp_rto_arm(c, conn);
		} else if (conn->seq_to_tap != conn->seq_ack_from_tap) {
			tcp_rewind(c, conn);
			if (!conn->f.closing && !conn->rto_at)
				tcp_rto_arm(c, conn);
		}
		break;
	default:
		break;
	}
}

/**
 * tcp_ka_quiet_ms() - silence from the guest before we probe it
 * @conn:	connection
 *
 * Return: keepalive_time, or tcp_fin_timeout once half-closed
 */
static int64_t tcp_ka_quiet_ms(const struct tcp_conn *conn)
{
	if (conn->close & (TCP_SOCK_EOF | TCP_TAP_EOF))
		return tcp_host.fin_ms;
	return tcp_host.ka_time_ms;
}

/**
 * tcp_ka_check() - probe a silent guest, reset the connection if it stays so
 * @c:		execution context
 * @conn:	connection, established
 *
 * As the host's TCP does with SO_KEEPALIVE, with its settings: after
 * keepalive_time without a segment from the guest, a probe every
 * keepalive_intvl, and the reset once keepalive_probes went unanswered.
 * Any segment from the guest clears the count (tcp_segment()).
 *
 * Return: when to look again (ms), INT64_MAX if the connection was reset
 */
static int64_t tcp_ka_check(struct ctx *c, struct tcp_conn *conn)
{
	char s[FLOW_STRLEN];

	/* Retransmissions and zero window probes have their own limit */
	if (conn->rto_at) {
		conn->ka_sent = 0;
		return c->now + tcp_ka_quiet_ms(conn);
	}
	if (!conn->ka_sent && c->now - conn->tap_seen_at < tcp_ka_quiet_ms(conn))
		return conn->tap_seen_at + tcp_ka_quiet_ms(conn);
	if (conn->ka_sent >= tcp_host.ka_probes) {
		debug("%s: no answer to %u keepalive probes, resetting",
		      flow_str(&conn->f.key, s, sizeof(s)), conn->ka_sent);
		tcp_rst(c, conn);
		return INT64_MAX;
	}
	tcp_send_probe(c, conn);
	conn->ka_sent++;
	conn->keepalives++;
	return c->now + tcp_host.ka_intvl_ms;
}

/**
 * tcp_idle_timeout() - idle timer expired: keepalive and half-close
 * @c:		execution context
 * @conn:	connection, established
 */
static void tcp_idle_timeout(struct ctx *c, struct tcp_conn *conn)
{
	int64_t next;

	conn->idle_at = 0;
	next = tcp_ka_check(c, conn);
	if (!conn->f.closing)
		tcp_idle_arm(conn, next);
}

/**
 * tcp_wnd_check() - window check timer: update the guest if it grew
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_wnd_check(struct ctx *c, struct tcp_conn *conn)
{
	conn->wnd_check_at = 0;
	if (tcp_wnd_watch(c, conn) > conn->wnd_to_tap)
		tcp_send_ctl(c, conn, TH_ACK);
}

/**
 * tcp_timer() - run expired connection timers
 * @c:		execution context
 *
 * Return: next deadline (ms), INT64_MAX if none
 */
int64_t tcp_timer(struct ctx *c)
{
	unsigned int i, hwm = flow_high_water();
	int64_t next = INT64_MAX;

	if (c->now < tcp_deadline)
		return tcp_deadline;
	tcp_deadline = INT64_MAX;	/* what timers fire re-arm lowers it */

	for (i = 0; i < hwm; i++) {
		struct tcp_conn *conn = &flowtab[i].tcp;

		if (!tcp_due[i])
			continue;
		if (tcp_due[i] > c->now) {
			next = MIN(next, tcp_due[i]);
			continue;
		}
		tcp_due[i] = 0;
		if (conn->f.type != FLOW_TCP || conn->f.closing ||
		    conn->f.frozen)
			continue;
		if (conn->rto_at && conn->rto_at <= c->now)
			tcp_timeout(c, conn);
		if (conn->wnd_check_at && conn->wnd_check_at <= c->now &&
		    !conn->f.closing)
			tcp_wnd_check(c, conn);
		if (conn->idle_at && conn->idle_at <= c->now &&
		    !conn->f.closing)
			tcp_idle_timeout(c, conn);
		if (conn->f.closing)
			continue;
		if (conn->rto_at)
			tcp_due_at(conn, conn->rto_at);
		if (conn->wnd_check_at)
			tcp_due_at(conn, conn->wnd_check_at);
		if (conn->idle_at)
			tcp_due_at(conn, conn->idle_at);
		if (tcp_due[i])
			next = MIN(next, tcp_due[i]);
	}
	tcp_deadline = MIN(tcp_deadline, next);
	return tcp_deadline;
}

/**
 * tcp_conn_log() - one line with a connection's counters and windows
 * @pri:	syslog priority
 * @conn:	connection
 */
static void tcp_conn_log(int pri, const struct tcp_conn *conn)
{
	struct tcp_info ti = { 0 };
	socklen_t sl = sizeof(ti);
	char s[FLOW_STRLEN];

	if (conn->sock >= 0)
		getsockopt(conn->sock, IPPROTO_TCP, TCP_INFO, &ti, &sl);
	logmsg(pri, "%s: %s close 0x%02x, bytes from guest %llu, to guest %llu,"
	       " retrans to guest %llu, keepalives %u, wnd to guest %u,"
	       " from guest %u, mss %u, host rtt %u us, host retrans %u",
	       flow_str(&conn->f.key, s, sizeof(s)),
	       tcp_phase_names[conn->phase], conn->close,
	       (unsigned long long)conn->bytes_from_tap,
	       (unsigned long long)conn->bytes_to_tap,
	       (unsigned long long)conn->retrans, conn->keepalives,
	       conn->wnd_to_tap, conn->wnd_from_tap, conn->mss_to_tap,
	       ti.tcpi_rtt, ti.tcpi_total_retrans);
}

/**
 * tcp_stats() - log every connection's counters (SIGUSR1)
 * @c:		execution context
 */
void tcp_stats(const struct ctx *c)
{
	unsigned int i, hwm = flow_high_water();

	(void)c;
	for (i = 0; i < hwm; i++) {
		if (flowtab[i].f.type == FLOW_TCP)
			tcp_conn_log(LOG_INFO, &flowtab[i].tcp);
	}
}

/**
 * tcp_flow_free() - release a closed connection's socket
 * @c:		execution context
 * @idx:	flow index
 */
static void tcp_flow_free(struct ctx *c, int idx)
{
	struct tcp_conn *conn = &flowtab[idx].tcp;

	(void)c;
	if (log_debug_enabled())
		tcp_conn_log(LOG_DEBUG, conn);
	if (conn->sock >= 0)
		close(conn->sock);	/* and out of the epoll set: no dup() */
}

/**
 * tcp_flow_abort() - reset the host side of a connection, the guest is gone
 * @c:		execution context
 * @idx:	flow index
 */
static void tcp_flow_abort(struct ctx *c, int idx)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };

	(void)c;
	setsockopt(flowtab[idx].tcp.sock, SOL_SOCKET, SO_LINGER, &lin,
		   sizeof(lin));
	flow_close(idx);
}

/**
 * tcp_flow_evictable() - only a connection whose handshake isn't done may
 *			  make room
 * @idx:	flow index, FLOW_TCP
 * @now:	current time (ms), unused
 *
 * Half-open: the host peer or the guest has yet to answer. Past the
 * handshake, a connection is never half-open again.
 *
 * Return: FLOW_EVICT_NOW while half-open, FLOW_EVICT_NEVER after that
 */
static enum flow_evict_verdict tcp_flow_evictable(int idx, int64_t now)
{
	enum tcp_phase phase = flowtab[idx].tcp.phase;

	(void)now;
	return phase == TCP_PHASE_CONNECTING ||
	       phase == TCP_PHASE_SYN_ACK_SENT ? FLOW_EVICT_NOW :
						 FLOW_EVICT_NEVER;
}

/**
 * tcp_flow_evict() - end a half-open connection for room (flow_evict())
 * @c:		execution context
 * @idx:	flow index
 *
 * Both sides get a reset, and the socket is closed now, not after the
 * event batch: whoever needed room may be out of descriptors.
 */
static void tcp_flow_evict(struct ctx *c, int idx)
{
	struct tcp_conn *conn = &flowtab[idx].tcp;

	tcp_rst(c, conn);
	close(conn->sock);
	conn->sock = -1;
}

/**
 * tcp_flow_reset() - reset a connection both ways: its address went away
 * @c:		execution context
 * @idx:	flow index
 */
static void tcp_flow_reset(struct ctx *c, int idx)
{
	tcp_rst(c, &flowtab[idx].tcp);
}

/**
 * tcp_flow_sock() - a connection's socket
 * @idx:	flow index
 *
 * Return: socket, -1 once evicted
 */
static int tcp_flow_sock(int idx)
{
	return flowtab[idx].tcp.sock;
}

/**
 * tcp_conn_freeze() - stop a connection that migration moves: another
 *		       passt takes its socket, this one keeps it only to
 *		       resume if the move fails
 * @c:		execution context
 * @idx:	flow index, established
 *
 * Nothing here touches the socket from now on: no events, no timers, no
 * pending work (tcp_batch_end() ran before the state was taken).
 */
void tcp_conn_freeze(struct ctx *c, int idx)
{
	struct tcp_conn *conn = &flowtab[idx].tcp;

	epoll_ref_del(c, conn->sock);
	conn->f.frozen = true;
	conn->pending = 0;
	tcp_due[idx] = 0;
}

/**
 * tcp_conn_resume() - put a connection to work: one that migration brought
 *		       here, or one it froze and gave back
 * @c:		execution context
 * @idx:	flow index, its socket set
 *
 * As if the guest had just been heard from: the keepalive clock starts
 * again, unacknowledged data gets a retransmission timer, and the end of
 * the batch sends what the socket holds, or an ACK with our window.
 */
void tcp_conn_resume(struct ctx *c, int idx)
{
	struct tcp_conn *conn = &flowtab[idx].tcp;

	conn->f.frozen = false;
	epoll_ref_add(c, conn->sock, EPOLL_TYPE_TCP, idx, conn->epoll_events);
	conn->tap_seen_at = c->now;
	conn->rto_at = conn->wnd_check_at = conn->idle_at = 0;
	tcp_idle_arm(conn, c->now + tcp_host.ka_time_ms);
	if (conn->seq_to_tap != conn->seq_ack_from_tap)
		tcp_rto_arm(c, conn);
	tcp_touch(c, conn, TCP_ACK_NOW | TCP_DATA_DUE);
}

/**
 * tcp_rst_to_guest() - reset a guest's connection we have no socket for
 * @c:		execution context
 * @key:	flow key
 * @seq:	our sequence number, where the guest expects the next byte
 */
void tcp_rst_to_guest(struct ctx *c, const struct flow_key *key, uint32_t seq)
{
	uint8_t buf[FRAME_L4_OFF + TCP_HDR_LEN] __attribute__((aligned(8)));
	struct tcp_conn tmp = { .f.key = *key, .seq_to_tap = seq };
	struct link_frame frame;

	frame = tcp_hdr_fill(c, &tmp, buf, seq, TH_RST, 0, 0);
	link_send(c, &frame, 1);
}

static const struct flow_type_ops tcp_flow_ops = {
	.free		= tcp_flow_free,
	.abort		= tcp_flow_abort,
	.reset		= tcp_flow_reset,
	.evictable	= tcp_flow_evictable,
	.evict		= tcp_flow_evict,
	.sock		= tcp_flow_sock,
	.resume		= tcp_conn_resume,
};

/**
 * tcp_peek_off_probe() - does this kernel have SO_PEEK_OFF for TCP?
 *
 * PASST_TEST_NO_PEEK_OFF=1 in the environment pretends it doesn't, so that
 * the tests cover the fallback on kernels that have it.
 */
static void tcp_peek_off_probe(void)
{
	const char *test = getenv("PASST_TEST_NO_PEEK_OFF");
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	int zero = 0;

	tcp_peek_off_ok = s >= 0 && (!test || strcmp(test, "1")) &&
			  !setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero,
				      sizeof(zero));
	if (s >= 0)
		close(s);
	if (!tcp_peek_off_ok)
		info("TCP: no SO_PEEK_OFF (Linux < 6.10): in-flight data to "
		     "the guest is peeked again, at most %d MiB",
		     TCP_DISCARD_MAX >> 20);
}

/**
 * tcp_sysctl() - one of the host's TCP settings, from /proc/sys/net/ipv4
 * @name:	setting, the file's name
 * @dflt:	Linux's default, if the file can't be read or is out of range
 * @min:	smallest value taken
 * @max:	largest value taken
 *
 * The values are the host's network namespace's, where our sockets are.
 *
 * Return: the setting, or @dflt
 */
static long tcp_sysctl(const char *name, long dflt, long min, long max)
{
	char path[sizeof(TCP_SYSCTL_PATH) + 32], buf[32], *end;
	ssize_t n;
	long v;
	int fd;

	snprintf(path, sizeof(path), TCP_SYSCTL_PATH "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		debug("TCP: %s: %s, using %ld", path, strerror(errno), dflt);
		return dflt;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v < min ||
	    v > max) {
		debug("TCP: %s: '%.*s' out of range, using %ld", path,
		      (int)strcspn(buf, "\n"), buf, dflt);
		return dflt;
	}
	return v;
}

/**
 * tcp_host_settings() - read the host's keepalive and FIN timeouts, once
 */
static void tcp_host_settings(void)
{
	tcp_host.ka_time_ms = tcp_sysctl("tcp_keepalive_time", TCP_KA_TIME_S,
					 1, TCP_SYSCTL_S_MAX) * MS_PER_S;
	tcp_host.ka_intvl_ms = tcp_sysctl("tcp_keepalive_intvl",
					  TCP_KA_INTVL_S, 1,
					  TCP_SYSCTL_S_MAX) * MS_PER_S;
	tcp_host.ka_probes = tcp_sysctl("tcp_keepalive_probes", TCP_KA_PROBES,
					0, TCP_KA_PROBES_MAX);
	tcp_host.fin_ms = tcp_sysctl("tcp_fin_timeout", TCP_FIN_TIMEOUT_S, 1,
				     TCP_SYSCTL_S_MAX) * MS_PER_S;
	debug("TCP: a silent guest is probed after %lld s, every %lld s, "
	      "and reset after %u probes; half-closed connections without "
	      "data are reset after %lld s", tcp_host.ka_time_ms / MS_PER_S,
	      tcp_host.ka_intvl_ms / MS_PER_S, tcp_host.ka_probes,
	      tcp_host.fin_ms / MS_PER_S);
}

/**
 * tcp_init() - register with the flow table, probe the kernel, read the
 *		host's settings
 */
void tcp_init(void)
{
	flow_type_register(FLOW_TCP, &tcp_flow_ops);
	tcp_peek_off_probe();
	tcp_host_settings();
}
