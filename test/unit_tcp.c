// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_tcp.c - TCP unit tests on a virtual clock
 *
 * The real tcp.c, whole: segments from the guest go in through input_frame(),
 * the host sockets are real ones, on the loopback of the network namespace
 * the test runs in (test/06-unit-tcp.t: unshare -rn), connected to
 * listeners of the test's own, and what tcp.c hands to the tap is read
 * from the socketpair of unit_lib.c. The event loop is the daemon's, in
 * small: socket events to tcp_sock_handler(), then the post-batch hooks.
 *
 * Time is virtual: c.now moves only when the test moves it, so that a rule
 * of minutes (ten retransmissions, 222 s) or hours (keepalive, 7200 s)
 * takes microseconds, and each deadline is checked to the millisecond:
 * nothing a millisecond before, the segment at it. Only the host side is
 * waited for, in real time, at most a second per event: on loopback, the
 * kernel's events come at once.
 *
 * The figures the rules must give are written here as the RFCs and the
 * theory of operation in tcp.c state them, not taken from tcp.c. Prints
 * TAP.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <poll.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../flow.h"
#include "../flow_table.h"
#include "../fwd.h"
#include "../inany.h"
#include "../passt.h"
#include "../input.h"
#include "../ip.h"
#include "../tcp.h"
#include "../tcp_conn.h"
#include "../util.h"
#include "unit_lib.h"

/* The rules, as tcp.c's theory of operation and the RFCs give them */
#define RTO_INIT_MS	200	/* one local hop */
#define RTO_MAX_MS	60000	/* RFC 6298, 2.5 */
#define RETRIES_MAX	10	/* unanswered RTOs in a row, then a reset */
#define SYN_RETRIES_MAX	5	/* SYN-ACK resent, then a reset */
#define WS_OURS		8	/* our window scale */
#define WS_GUEST	7
#define MSS		1460	/* MTU 1500, IPv4 */
#define BURST		16	/* segments from the guest per batch */
#define T0		1000000	/* virtual start (ms): 0 means "not armed" */

#define GUEST_ADDR	"203.0.113.1"
#define GW_ADDR		"203.0.113.2"	/* the host's loopback, mapped */

static struct ctx c;
static uint8_t frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));
static char line[512];		/* figures for one TAP line */

/**
 * struct guest - the guest's end of one connection, as the test plays it
 * @port:	guest's source port
 * @dport:	port it connects to: a listener of the test on 127.0.0.1
 * @seq:	next sequence number the guest sends
 * @ack:	what it acknowledges: next sequence number it expects
 * @peer:	accepted host socket, the host peer, -1 before accept()
 */
struct guest {
	uint16_t port, dport;
	uint32_t seq, ack;
	int peer;
};

/* --- setup ---------------------------------------------------------------- */

/* lo_up() - bring up the loopback of the test's namespace */
static void lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr)) {
		perror("lo");
		exit(1);
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr)) {
		perror("lo up (run in a namespace of its own: unshare -rn)");
		exit(1);
	}
	close(s);
}

/**
 * listener() - a listening socket on 127.0.0.1, any port
 * @rcvbuf:	SO_RCVBUF of the connections it accepts, 0 for the default
 * @port:	its port, set
 *
 * Return: socket; exits on failure
 */
static int listener(int rcvbuf, uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || (rcvbuf && setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
					   sizeof(rcvbuf))) ||
	    bind(s, (struct sockaddr *)&sa, sl) || listen(s, 16) ||
	    getsockname(s, (struct sockaddr *)&sa, &sl)) {
		perror("listener");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return s;
}

/* sysctl_ms() - a net.ipv4 setting of the namespace, in seconds, as ms */
static int64_t sysctl_ms(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return v * MS_PER_S;
}

/* setup() - a pasta context on the socketpair tap, tcp.c started */
static void setup(void)
{
	lo_up();
	tap_peer_open(&c);
	c.mtu = 1500;
	c.epollfd = epoll_create1(EPOLL_CLOEXEC);
	inet_pton(AF_INET, GUEST_ADDR, &c.net.addr4);
	inet_pton(AF_INET, GW_ADDR, &c.net.gw4);
	c.net.prefix4 = 24;
	inany_from_v4(&c.net.map_host_lo[INANY_V4], c.net.gw4);
	ip_net_init(&c);
	memcpy(c.mac_ours, "\x02\x70\x61\x73\x74\x61", 6);
	c.now = T0;
	flow_init();
	tcp_init();
}

/* --- the event loop, in small --------------------------------------------- */

/* batch_end() - the main loop's hooks after a batch of events */
static void batch_end(void)
{
	tcp_batch_end(&c);
	tcp_timer(&c);
	flow_defer_free(&c);
}

/**
 * host_events() - handle the host sockets' events, then end the batch
 * @wait_ms:	how long to wait for one, in real time
 *
 * Return: number of events
 */
static int host_events(int wait_ms)
{
	struct epoll_event ev[16];
	int i, n = epoll_wait(c.epollfd, ev, 16, wait_ms);

	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		if (ref.type == EPOLL_TYPE_TCP)
			tcp_sock_handler(&c, ref, ev[i].events);
	}
	batch_end();
	return n > 0 ? n : 0;
}

/**
 * host_wait() - wait, a second at most, for the host side to send a frame
 *
 * Return: 1 if one is waiting
 */
static int host_wait(void)
{
	int i;

	for (i = 0; i < 100 && !frame_waiting(); i++)
		host_events(10);
	return frame_waiting();
}

/* clock_to() - move the virtual clock, run what is due */
static void clock_to(int64_t t)
{
	c.now = t;
	host_events(0);
}

/* --- the guest ------------------------------------------------------------ */

/* key_of() - the flow key of a guest connection */
static struct flow_key key_of(const struct guest *g)
{
	struct flow_key k = { .proto = IPPROTO_TCP,
			      .gport = g->port, .pport = g->dport };
	struct in_addr a;

	inet_pton(AF_INET, GUEST_ADDR, &a);
	inany_from_v4(&k.gaddr, a);
	inany_from_v4(&k.paddr, c.net.gw4);
	return k;
}

/* conn_of() - tcp.c's connection for @g, NULL if there is none */
static struct tcp_conn *conn_of(const struct guest *g)
{
	struct flow_key k = key_of(g);
	int idx = flow_lookup(&k);

	return idx < 0 ? NULL : &flowtab[idx].tcp;
}

/**
 * guest_frame_split() - a segment from the guest, to input_frame(), as in a
 *			 batch: its payload past @head left in two pieces where
 *			 it is, as vhost-user leaves a TCP frame's (link_rx)
 * @g:		guest connection, @seq advanced
 * @flags:	TCP flags; SYN adds MSS and window scale options
 * @wnd:	window field
 * @data:	payload, may be NULL
 * @len:	payload length
 * @head:	bytes of the payload in the frame itself
 */
static void guest_frame_split(struct guest *g, uint8_t flags, uint16_t wnd,
			      const void *data, size_t len, size_t head)
{
	struct iovec pieces[2] = {
		{ (uint8_t *)data + head, (len - head) / 2 },
		{ (uint8_t *)data + head + (len - head) / 2,
		  len - head - (len - head) / 2 },
	};
	struct pkt_tail tail = { pieces, 2, len - head };

	static const uint8_t syn_opts[] = { 2, 4, MSS >> 8, MSS & 0xff,
					    1, 3, 3, WS_GUEST };
	uint8_t *f = frame + FRAME_PAD, *ip = f + ETH_HLEN, *l4 = ip + 20;
	size_t opt_len = (flags & TH_SYN) ? sizeof(syn_opts) : 0;
	size_t l4_len = 20 + opt_len + len;
	struct tcphdr *th = (struct tcphdr *)l4;
	struct iphdr *ih = (struct iphdr *)ip;
	uint32_t ps;

	memset(f, 0, ETH_HLEN + 20 + 20);
	memcpy(f, c.mac_ours, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x07", 6);
	f[12] = ETH_P_IP >> 8;
	f[13] = ETH_P_IP & 0xff;
	ih->version = 4;
	ih->ihl = 5;
	ih->tot_len = htons(20 + l4_len);
	ih->ttl = 64;
	ih->protocol = IPPROTO_TCP;
	ih->saddr = c.net.addr4.s_addr;
	ih->daddr = c.net.gw4.s_addr;
	ih->check = htons(csum_ref(ih, 20));

	th->source = htons(g->port);
	th->dest = htons(g->dport);
	th->seq = htonl(g->seq);
	th->ack_seq = htonl(flags & TH_ACK ? g->ack : 0);
	th->doff = (20 + opt_len) / 4;
	th->th_flags = flags;
	th->window = htons(wnd);
	memcpy(l4 + 20, syn_opts, opt_len);
	if (len)
		memcpy(l4 + 20 + opt_len, data, len);
	ps = sum16(ip + 12, 8, 0) + IPPROTO_TCP + l4_len;
	th->check = htons(~sum_fold(sum16(l4, l4_len, ps)) & 0xffff);

	g->seq += len + !!(flags & TH_SYN) + !!(flags & TH_FIN);
	input_frame(&c, f, ETH_HLEN + 20 + l4_len - (len - head),
		    head < len ? &tail : NULL);
}

/* guest_frame() - a segment from the guest, whole, as in a batch */
static void guest_frame(struct guest *g, uint8_t flags, uint16_t wnd,
			const void *data, size_t len)
{
	guest_frame_split(g, flags, wnd, data, len, len);
}

/* guest_send() - one segment from the guest, a batch of its own */
static void guest_send(struct guest *g, uint8_t flags, uint16_t wnd,
		       const void *data, size_t len)
{
	guest_frame(g, flags, wnd, data, len);
	batch_end();
}

/* guest_ack() - the guest acknowledges what it has, with window @wnd */
static void guest_ack(struct guest *g, uint16_t wnd)
{
	guest_send(g, TH_ACK, wnd, NULL, 0);
}

/**
 * seg_read() - read one TCP segment of @g to the guest, checked
 * @g:		guest connection: ports checked
 * @fr:		the frame
 *
 * Return: 1 if there was one, valid (checksums), for @g
 */
static int seg_read(const struct guest *g, struct frame *fr)
{
	return frame_read(fr) && fr->valid && fr->proto == IPPROTO_TCP &&
	       fr->sport == g->dport && fr->dport == g->port &&
	       addr4_is(fr->dst4, GUEST_ADDR) && addr4_is(fr->src4, GW_ADDR);
}

/* is_probe() - an old ACK, one below @next, no data: keepalive or ZWP */
static int is_probe(const struct frame *fr, uint32_t next)
{
	return fr->tcp_flags == TH_ACK && fr->seq == next - 1 &&
	       !fr->data_len;
}

/**
 * expect_at() - step the clock to @at: nothing before, then one segment
 * @g:		guest connection
 * @at:		virtual time (ms) the segment is due
 * @fr:		the segment
 *
 * Return: 1 if nothing came at @at - 1 and exactly one segment at @at
 */
static int expect_at(const struct guest *g, int64_t at, struct frame *fr)
{
	clock_to(at - 1);
	if (frame_waiting()) {
		drain();
		return 0;
	}
	clock_to(at);
	return seg_read(g, fr) && !frame_waiting();
}

/**
 * expect_rsts_at() - step the clock to @at: then our RST at @next, and one
 *		      at @acked if that's another sequence, nothing else
 * @g:		guest connection
 * @at:		virtual time (ms) the reset is due
 * @next:	our next sequence
 * @acked:	the guest's last ACK
 *
 * Return: 1 if so
 */
static int expect_rsts_at(const struct guest *g, int64_t at, uint32_t next,
			  uint32_t acked)
{
	struct frame fr;

	if (next == acked)
		return expect_at(g, at, &fr) && (fr.tcp_flags & TH_RST) &&
		       fr.seq == next;
	clock_to(at - 1);
	if (frame_waiting()) {
		drain();
		return 0;
	}
	clock_to(at);
	return seg_read(g, &fr) && (fr.tcp_flags & TH_RST) &&
	       fr.seq == next && seg_read(g, &fr) &&
	       (fr.tcp_flags & TH_RST) && fr.seq == acked && !frame_waiting();
}

/**
 * peer_reset() - did the host peer get a reset?
 * @g:		guest connection
 *
 * Not from recv(): after the peer's FIN, in CLOSE_WAIT, a reset leaves
 * recv() nothing to report. Without one, no peer here closes its socket.
 *
 * Return: 1 if its socket is closed (TCP_CLOSE)
 */
static int peer_reset(const struct guest *g)
{
	struct tcp_info ti = { 0 };
	socklen_t sl = sizeof(ti);

	return !getsockopt(g->peer, IPPROTO_TCP, TCP_INFO, &ti, &sl) &&
	       ti.tcpi_state == TCP_CLOSE;
}

/* note() - append figures to the line of the next TAP result */
static void note(const char *fmt, long long v)
{
	size_t n = strlen(line);

	if (n < sizeof(line) - 32)
		snprintf(line + n, sizeof(line) - n, fmt, v);
}

/* --- the window we advertise ---------------------------------------------- */

/**
 * wnd_expected() - the window for a host socket, by the rule of tcp.c
 * @s:		socket
 * @sndbuf:	its SO_SNDBUF, set
 * @queued:	what is queued, overhead included, set
 *
 * The room SO_SNDBUF leaves over what is queued (SO_MEMINFO), less 1/16
 * for the overhead of new data, in units of our window scale; none below
 * min(MSS, SO_SNDBUF / 4) (RFC 1122, 4.2.3.3, silly window avoidance).
 *
 * Return: window in bytes
 */
static uint32_t wnd_expected(int s, uint32_t *sndbuf, uint32_t *queued)
{
	uint32_t mem[SK_MEMINFO_VARS], room, wnd;
	socklen_t sl = sizeof(mem);

	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mem, &sl)) {
		perror("SO_MEMINFO");
		exit(1);
	}
	*sndbuf = mem[SK_MEMINFO_SNDBUF];
	*queued = mem[SK_MEMINFO_WMEM_QUEUED];
	room = *queued < *sndbuf ? *sndbuf - *queued : 0;
	wnd = room - room / 16;
	wnd = MIN(wnd, 0xffffU << WS_OURS) >> WS_OURS << WS_OURS;
	return wnd < MIN((uint32_t)MSS, *sndbuf / 4) ? 0 : wnd;
}

/* --- connections ---------------------------------------------------------- */

/**
 * syn() - the guest's SYN, and the SYN-ACK once the host connected
 * @g:		guest connection, ports set
 * @lsn:	listener @g->dport is on: the host peer is accepted from it
 * @fr:		the SYN-ACK
 *
 * Return: 1 if nothing came before the host's connect() completed, then
 *	   one SYN-ACK acknowledging the SYN; @g->ack set from it
 */
static int syn(struct guest *g, int lsn, struct frame *fr)
{
	int early;

	g->seq = 1000 * g->port;
	g->peer = -1;
	guest_send(g, TH_SYN, 65535, NULL, 0);
	early = frame_waiting();
	if (!host_wait() || !seg_read(g, fr))
		return 0;
	g->peer = accept4(lsn, NULL, NULL, SOCK_CLOEXEC);
	g->ack = fr->seq + 1;
	return !early && g->peer >= 0 && fr->tcp_flags == (TH_SYN | TH_ACK) &&
	       fr->ack == g->seq;
}

/* conn_open() - a connection through the handshake, established */
static int conn_open(struct guest *g, uint16_t port, uint16_t dport, int lsn)
{
	struct frame fr;

	g->port = port;
	g->dport = dport;
	if (!syn(g, lsn, &fr))
		return 0;
	guest_ack(g, 65535);
	return conn_of(g) && conn_of(g)->phase == TCP_PHASE_ESTABLISHED &&
	       !frame_waiting();
}

/**
 * peer_data() - the host peer sends @len bytes: the first segment to the
 *		 guest, with the data it carries
 * @g:		guest connection
 * @len:	bytes, at most an MSS
 * @fr:		the segment
 *
 * Return: 1 if it came, at @g->ack, with the bytes the peer sent
 */
static int peer_data(struct guest *g, size_t len, struct frame *fr)
{
	static uint8_t buf[MSS];
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + g->port);
	if (send(g->peer, buf, len, 0) != (ssize_t)len || !host_wait() ||
	    !seg_read(g, fr))
		return 0;
	return fr->seq == g->ack && fr->data_len == len &&
	       !memcmp(fr->data, buf, len);
}

/* conn_done() - close what is left of a connection, both ends */
static void conn_done(struct guest *g)
{
	struct tcp_conn *conn = conn_of(g);

	if (conn)
		flow_close((int)((union flow *)conn - flowtab));
	flow_defer_free(&c);
	if (g->peer >= 0)
		close(g->peer);
	g->peer = -1;
	drain();
}

/**
 * peer_recv() - what the host peer reads, waiting for it in real time
 * @g:		guest connection
 * @buf:	buffer
 * @len:	its size
 * @wait_ms:	how long to wait at most
 *
 * Return: recv() result, -1 on time-out
 */
static ssize_t peer_recv(const struct guest *g, void *buf, size_t len,
			 int wait_ms)
{
	struct pollfd pfd = { .fd = g->peer, .events = POLLIN };

	if (poll(&pfd, 1, wait_ms) != 1)
		return -1;
	return recv(g->peer, buf, len, MSG_DONTWAIT);
}

/* tcp_opt() - value of a one- or two-byte TCP option, -1 if absent */
static int tcp_opt(const struct frame *fr, uint8_t kind)
{
	size_t i = 0;

	while (i < fr->opts_len && fr->opts[i] != TCPOPT_EOL) {
		uint8_t len = fr->opts[i] == TCPOPT_NOP ? 1 :
			      i + 1 < fr->opts_len ? fr->opts[i + 1] : 0;

		if (len < 1 || i + len > fr->opts_len)
			return -1;
		if (fr->opts[i] == kind)
			return len == 4 ? be16(fr->opts + i + 2) :
			       len == 3 ? fr->opts[i + 2] : -1;
		i += len;
	}
	return -1;
}

/* --- the tests ------------------------------------------------------------ */

/**
 * test_handshake() - guest SYN, host connect(), SYN-ACK, data both ways
 * @lsn:	listener
 * @port:	its port
 */
static void test_handshake(int lsn, uint16_t port)
{
	struct guest g = { .port = 40001, .dport = port };
	uint32_t sndbuf, queued, wnd;
	struct tcp_conn *conn;
	struct frame fr;
	char b[16];
	int ok_syn;

	ok_syn = syn(&g, lsn, &fr);
	conn = conn_of(&g);
	okf(ok_syn && conn, "guest SYN to %s:%u: connect() to 127.0.0.1:%u, "
	    "then the SYN-ACK, ack %u", GW_ADDR, port, port, fr.ack);
	wnd = conn ? wnd_expected(conn->sock, &sndbuf, &queued) : 0;
	okf(tcp_opt(&fr, TCPOPT_MAXSEG) == MSS &&
	    tcp_opt(&fr, TCPOPT_WINDOW) == WS_OURS &&
	    fr.wnd == MIN(wnd, 0xffffU),
	    "SYN-ACK: MSS %d (MTU 1500), window scale %d, window %u unscaled "
	    "(RFC 7323, 2.2; SO_SNDBUF %u, nothing queued)",
	    tcp_opt(&fr, TCPOPT_MAXSEG), tcp_opt(&fr, TCPOPT_WINDOW), fr.wnd,
	    sndbuf);

	guest_ack(&g, 65535);
	okf(conn && conn->phase == TCP_PHASE_ESTABLISHED && !frame_waiting(),
	    "guest's ACK: established, nothing to send");

	guest_send(&g, TH_ACK | TH_PUSH, 65535, "hello", 5);
	ok(peer_recv(&g, b, sizeof(b), 1000) == 5 && !memcmp(b, "hello", 5) &&
	   seg_read(&g, &fr) && fr.tcp_flags == TH_ACK && fr.ack == g.seq &&
	   !frame_waiting(),
	   "5 bytes from the guest: the host peer reads them, one ACK for them");

	ok(peer_data(&g, 1000, &fr) && (fr.tcp_flags & TH_PUSH) &&
	   !frame_waiting(), "1000 bytes from the host peer: one segment");
	g.ack += 1000;
	guest_ack(&g, 65535);
	ok(conn && !conn->rto_at && !frame_waiting(),
	   "acknowledged: no retransmission timer left");
	conn_done(&g);
}

/**
 * test_syn_ack_retries() - an unanswered SYN-ACK: back-off, then a reset
 * @lsn:	listener
 * @port:	its port
 */
static void test_syn_ack_retries(int lsn, uint16_t port)
{
	struct guest g = { .port = 40002, .dport = port };
	int64_t t0, t, rto = RTO_INIT_MS;
	int i, good;
	struct frame fr;
	uint32_t isn;

	good = syn(&g, lsn, &fr);
	isn = fr.seq;
	t = t0 = c.now;
	line[0] = '\0';
	for (i = 0; i < SYN_RETRIES_MAX; i++) {
		t += rto;
		good &= expect_at(&g, t, &fr) &&
			fr.tcp_flags == (TH_SYN | TH_ACK) && fr.seq == isn;
		note(" %lld", t - t0);
		rto *= 2;
	}
	t += rto;
	good &= expect_at(&g, t, &fr) && (fr.tcp_flags & TH_RST);
	okf(good && !conn_of(&g) && peer_reset(&g),
	    "SYN-ACK never acknowledged: resent at%s ms, then both sides "
	    "reset at %lld ms", line, (long long)(t - t0));
	conn_done(&g);
}

/**
 * test_retransmit() - data the guest doesn't acknowledge: RTO, back-off,
 *		       reset after RETRIES_MAX; an ACK starts the RTO afresh
 * @lsn:	listener
 * @port:	its port
 */
static void test_retransmit(int lsn, uint16_t port)
{
	struct guest g = { .port = 40003, .dport = port };
	int64_t t0, t, rto = RTO_INIT_MS;
	struct frame fr;
	int i, good;

	good = conn_open(&g, 40003, port, lsn) && peer_data(&g, 1000, &fr);
	t = c.now;
	for (i = 0; i < 3; i++) {
		t += rto;
		good &= expect_at(&g, t, &fr) && fr.seq == g.ack &&
			fr.data_len == 1000;
		rto *= 2;
	}
	okf(good, "1000 bytes unacknowledged: resent whole at 200, 600, "
	    "1400 ms (RTO 200 ms, doubling, RFC 6298, 5.5)");

	g.ack += 1000;
	guest_ack(&g, 65535);
	good = !frame_waiting() && peer_data(&g, 500, &fr);
	t = t0 = c.now;
	rto = RTO_INIT_MS;
	line[0] = '\0';
	for (i = 0; i < RETRIES_MAX; i++) {
		t += rto;
		good &= expect_at(&g, t, &fr) && fr.seq == g.ack &&
			fr.data_len == 500;
		note(" %lld", t - t0);
		rto = MIN(rto * 2, RTO_MAX_MS);
	}
	t += rto;
	good &= expect_rsts_at(&g, t, g.ack + 500, g.ack);
	okf(good && !conn_of(&g) && peer_reset(&g),
	    "after an ACK, 500 new bytes: RTO from 200 ms again, resent "
	    "at%s ms (back-off capped at 60 s), both sides reset at %lld ms, "
	    "the %dth timeout: RSTs at our next sequence and at the guest's "
	    "last ACK (its receive buffer may have dropped the rest)", line,
	    (long long)(t - t0), RETRIES_MAX + 1);
	conn_done(&g);
}

/**
 * zero_window() - the guest closes its window, the host peer sends @len
 * @g:		guest connection, established
 * @len:	bytes the host peer sends
 *
 * Return: 1 if nothing went to the guest: the window is closed
 */
static int zero_window(struct guest *g, size_t len)
{
	static uint8_t buf[4096];

	guest_ack(g, 0);
	if (send(g->peer, buf, len, 0) != (ssize_t)len)
		return 0;
	host_events(1000);
	return !frame_waiting();
}

/**
 * probes() - zero window probes on the RTO, with back-off
 * @g:		guest connection, window closed
 * @n:		probes expected
 * @answer:	the guest answers each, its window still closed
 * @t:		time the RTO was armed, updated to the last probe's
 * @rto:	RTO, updated
 *
 * Return: 1 if each came on time, and nothing but probes
 */
static int probes(struct guest *g, int n, int answer, int64_t *t,
		  int64_t *rto)
{
	struct frame fr;
	int i, good = 1;

	for (i = 0; i < n; i++) {
		*t += *rto;
		good &= expect_at(g, *t, &fr) && is_probe(&fr, g->ack);
		if (answer)
			guest_ack(g, 0);
		good &= !frame_waiting();
		*rto = MIN(*rto * 2, RTO_MAX_MS);
	}
	return good;
}

/**
 * test_zero_window() - answered probes don't count toward the retry limit
 * @lsn:	listener
 * @port:	its port
 */
static void test_zero_window(int lsn, uint16_t port)
{
	struct guest g = { .port = 40004, .dport = port };
	int64_t t0, t, rto = RTO_INIT_MS;
	uint8_t want[3000];
	struct frame fr;
	size_t got = 0;
	int good, i;

	good = conn_open(&g, 40004, port, lsn) && zero_window(&g, 3000);
	t = t0 = c.now;
	good &= probes(&g, RETRIES_MAX + 2, 1, &t, &rto);
	okf(good && conn_of(&g), "window closed, 3000 bytes waiting: %d zero "
	    "window probes, each answered, the last at %lld s (back-off to "
	    "60 s): no reset, though the limit is %d unanswered",
	    RETRIES_MAX + 2, (long long)(t - t0) / MS_PER_S, RETRIES_MAX);

	guest_ack(&g, 65535);
	memset(want, 0, sizeof(want));
	for (good = 1, i = 0; i < 3 && seg_read(&g, &fr); i++) {
		good &= fr.seq == g.ack + got &&
			!memcmp(fr.data, want, fr.data_len);
		got += fr.data_len;
	}
	okf(good && got == 3000 && !frame_waiting(),
	    "window open again: the 3000 bytes in %d segments, in sequence",
	    i);
	g.ack += got;
	guest_ack(&g, 65535);
	conn_done(&g);

	g.port = 40005;
	rto = RTO_INIT_MS;
	good = conn_open(&g, 40005, port, lsn) && zero_window(&g, 100);
	t = t0 = c.now;
	good &= probes(&g, 5, 1, &t, &rto);
	good &= probes(&g, RETRIES_MAX, 0, &t, &rto);
	t += rto;
	good &= expect_at(&g, t, &fr) && (fr.tcp_flags & TH_RST);
	okf(good && !conn_of(&g) && peer_reset(&g),
	    "5 probes answered, then %d unanswered: reset at the next "
	    "timeout, %lld s after the window closed, %d probes in all",
	    RETRIES_MAX, (long long)(t - t0) / MS_PER_S, 5 + RETRIES_MAX);
	conn_done(&g);
}

/**
 * ka_run() - keepalive probes to a silent guest, as the host's settings say
 * @g:		guest connection, nothing in flight
 * @first:	when the first probe is due
 * @quiet:	silence before probing: keepalive_time, or tcp_fin_timeout
 * @t_reset:	when the reset came, set
 *
 * One probe answered; the next once @quiet passed since the answer, no
 * sooner than keepalive_intvl (Linux's keepalive timer does the same);
 * then unanswered, one every keepalive_intvl, until keepalive_probes went
 * unanswered: the reset.
 *
 * Return: 1 if all came on time, the reset to both sides
 */
static int ka_run(struct guest *g, int64_t first, int64_t quiet,
		  int64_t *t_reset)
{
	int64_t intvl = sysctl_ms("tcp_keepalive_intvl"), t = first;
	int n = sysctl_ms("tcp_keepalive_probes") / MS_PER_S, i, good;
	struct frame fr;

	good = expect_at(g, t, &fr) && is_probe(&fr, g->ack);
	guest_ack(g, 65535);
	good &= !frame_waiting();
	t += MAX(quiet, intvl);
	for (i = 0; i < n; i++) {
		good &= expect_at(g, t, &fr) && is_probe(&fr, g->ack);
		t += intvl;
	}
	good &= expect_at(g, t, &fr) && (fr.tcp_flags & TH_RST);
	*t_reset = t;
	return good && !conn_of(g) && peer_reset(g);
}

/**
 * test_keepalive() - an idle guest is probed after keepalive_time
 * @lsn:	listener
 * @port:	its port
 */
static void test_keepalive(int lsn, uint16_t port)
{
	int64_t ka = sysctl_ms("tcp_keepalive_time"), t0, t;
	struct guest g;
	int good;

	good = conn_open(&g, 40006, port, lsn);
	t0 = c.now;
	good &= ka_run(&g, t0 + ka, ka, &t);
	okf(good, "idle: a probe after %lld s (keepalive_time), answered; "
	    "the next %lld s later, then %lld unanswered %lld s apart: both "
	    "sides reset at %lld s", (long long)ka / MS_PER_S,
	    (long long)ka / MS_PER_S,
	    (long long)sysctl_ms("tcp_keepalive_probes") / MS_PER_S,
	    (long long)sysctl_ms("tcp_keepalive_intvl") / MS_PER_S,
	    (long long)(t - t0) / MS_PER_S);
	conn_done(&g);
}

/**
 * test_fin_timeouts() - half-closed either way: probed after tcp_fin_timeout
 * @lsn:	listener
 * @port:	its port
 */
static void test_fin_timeouts(int lsn, uint16_t port)
{
	int64_t fin = sysctl_ms("tcp_fin_timeout"), t0, t;
	struct guest g;
	struct frame fr;
	int good;
	char b;

	good = conn_open(&g, 40007, port, lsn);
	guest_send(&g, TH_FIN | TH_ACK, 65535, NULL, 0);
	t0 = c.now;
	good &= seg_read(&g, &fr) && fr.tcp_flags == TH_ACK &&
		fr.ack == g.seq && peer_recv(&g, &b, 1, 1000) == 0;
	good &= ka_run(&g, t0 + fin, fin, &t);
	okf(good, "guest's FIN: ACKed, the host peer reads EOF; silent, a "
	    "probe after %lld s (tcp_fin_timeout), answered, then %lld "
	    "unanswered: reset at %lld s",
	    (long long)fin / MS_PER_S,
	    (long long)sysctl_ms("tcp_keepalive_probes") / MS_PER_S,
	    (long long)(t - t0) / MS_PER_S);
	conn_done(&g);

	good = conn_open(&g, 40008, port, lsn);
	shutdown(g.peer, SHUT_WR);
	good &= host_wait() && seg_read(&g, &fr) &&
		fr.tcp_flags == (TH_FIN | TH_ACK) && fr.seq == g.ack;
	t0 = c.now;
	good &= expect_at(&g, t0 + RTO_INIT_MS, &fr) &&
		fr.tcp_flags == (TH_FIN | TH_ACK) && fr.seq == g.ack;
	g.ack++;
	guest_ack(&g, 65535);
	t0 = c.now;
	good &= !frame_waiting() && conn_of(&g) && !conn_of(&g)->rto_at;
	good &= ka_run(&g, t0 + fin, fin, &t);
	okf(good, "host peer's FIN: our FIN, resent after 200 ms, ACKed; "
	    "silent, a probe %lld s after that ACK, answered, then reset at "
	    "%lld s", (long long)fin / MS_PER_S,
	    (long long)(t - t0) / MS_PER_S);
	conn_done(&g);
}

/**
 * test_window() - the window we advertise follows the host socket's room
 * @lsn:	listener, accepting with a small SO_RCVBUF: the host peer's
 *		window closes soon, and what we send stays in our socket
 * @port:	its port
 */
static void test_window(int lsn, uint16_t port)
{
	uint32_t sndbuf, queued, wnd, first = 0, last = 0, isn;
	static uint8_t buf[MSS], drained[1 << 16];
	unsigned int acks = 0, bad = 0, i;
	struct tcp_conn *conn;
	int good;
	struct frame fr, next;
	ssize_t n, got = 0;
	struct guest g;

	if (!conn_open(&g, 40009, port, lsn)) {
		ok(0, "connection for the window checks");
		return;
	}
	conn = conn_of(&g);
	isn = g.seq;
	for (i = 0; i < 1000 && (!acks || last); i++) {
		int frames = 0, j;

		for (j = 0; j < BURST; j++)
			guest_frame(&g, TH_ACK, 65535, buf, sizeof(buf));
		batch_end();
		while (seg_read(&g, &next)) {
			fr = next;
			frames++;
		}
		if (!frames || fr.tcp_flags != TH_ACK) {
			bad++;
			break;
		}
		g.seq = fr.ack;		/* the rest is resent from there */
		wnd = wnd_expected(conn->sock, &sndbuf, &queued);
		last = (uint32_t)fr.wnd << WS_OURS;
		if (!acks++)
			first = last;
		if (last != wnd) {
			printf("# ACK %u: window %u, SO_MEMINFO: sndbuf %u, "
			       "queued %u: %u\n", acks, last, sndbuf, queued,
			       wnd);
			bad++;
		}
	}
	okf(acks > 1 && !bad && !last,
	    "%u ACKs to bursts of %d segments into a socket whose peer doesn't "
	    "read: each window as SO_MEMINFO gives it, (SO_SNDBUF - queued) "
	    "less 1/16, from %u down to 0 at %u of %u bytes queued", acks,
	    BURST, first, queued, sndbuf);

	while ((n = peer_recv(&g, drained, sizeof(drained), 100)) > 0)
		got += n;
	okf((uint32_t)got == g.seq - isn,
	    "the host peer reads %zd bytes: exactly what we acknowledged",
	    got);

	for (i = 0; i < 100 && !frame_waiting(); i++) {
		c.now += 10;
		host_events(10);
	}
	wnd = wnd_expected(conn->sock, &sndbuf, &queued);
	good = seg_read(&g, &fr) && fr.tcp_flags == TH_ACK &&
	       fr.ack == g.seq && (uint32_t)fr.wnd << WS_OURS == wnd && wnd;
	okf(good, "socket drained: a window update after %u ms, %u bytes "
	    "(SO_SNDBUF %u, %u queued)", i * 10, (uint32_t)fr.wnd << WS_OURS,
	    sndbuf, queued);
	conn_done(&g);
}

/**
 * test_payload_in_place() - segments whose payload is partly where the link
 *			     left it: written whole, overlaps skipped
 * @lsn:	listener
 * @port:	its port
 */
static void test_payload_in_place(int lsn, uint16_t port)
{
	static uint8_t data[4000], got[8000];
	struct frame fr, next;
	struct guest g;
	ssize_t n;
	size_t i;

	if (!conn_open(&g, 40010, port, lsn)) {
		ok(0, "connection for the payload in place");
		return;
	}
	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 13 + i / 256;

	/* A batch each: the frames of one would share the test's buffer */
	guest_frame_split(&g, TH_ACK, 65535, data, 1500, 100);
	batch_end();
	guest_frame_split(&g, TH_ACK, 65535, data + 1500, 1500, 200);
	batch_end();
	for (n = 0, i = 0; i < 10 && n < 3000; i++) {
		ssize_t r = peer_recv(&g, got + n, sizeof(got) - n, 1000);

		if (r <= 0)
			break;
		n += r;
	}
	fr.ack = 0;
	while (seg_read(&g, &next))
		fr = next;
	ok(n == 3000 && !memcmp(got, data, 3000) && fr.ack == g.seq,
	   "2 segments, 100 and 200 of 1500 bytes in the frame, the rest in 2 "
	   "pieces each: the host peer reads 3000 bytes, in order");

	/* Resent from 1000 bytes back: the skip ends in the second piece */
	g.seq -= 1000;
	guest_frame_split(&g, TH_ACK, 65535, data + 2000, 2000, 300);
	batch_end();
	n = peer_recv(&g, got, sizeof(got), 1000);
	ok(n == 1000 && !memcmp(got, data + 3000, 1000) &&
	   seg_read(&g, &fr) && fr.ack == g.seq,
	   "2000 bytes, the first 1000 old: the new 1000 written, once");
	conn_done(&g);
}

int main(void)
{
	uint16_t port, port_small;
	int lsn, lsn_small;

	setup();
	lsn = listener(0, &port);
	lsn_small = listener(4096, &port_small);

	test_handshake(lsn, port);
	test_syn_ack_retries(lsn, port);
	test_retransmit(lsn, port);
	test_zero_window(lsn, port);
	test_keepalive(lsn, port);
	test_fin_timeouts(lsn, port);
	test_window(lsn_small, port_small);
	test_payload_in_place(lsn, port);

	flow_close_all(&c);
	flow_defer_free(&c);
	return tests_done();
}
