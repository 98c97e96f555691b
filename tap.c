// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - frame I/O with the guest, Ethernet and IPv4 input checks
 *
 * Theory of operation: pasta reads frames from a tap device, one frame per
 * read(), as many as are queued (up to TAP_BATCH) per wake-up; each is checked
 * and dispatched at once, and the protocol handlers defer their ACKs to the
 * end of the batch (tcp_batch_end() in passt.c), so that a burst of segments
 * costs one ACK. Frames are read into TAP_RX_SLOTS buffers in turn, and TCP
 * queues in-sequence payload there, to write a run of segments with one
 * sendmsg() when the slots run out or the batch ends (tcp_tx_flush()).
 * Every header is read through a struct pkt_view and checked once,
 * completely (IHL against total length against frame length, header
 * checksum), then trusted by the L4 handlers. Whatever fails a check is
 * dropped through pkt_drop() with a reason.
 *
 * Output: callers build frames in their own buffers at FRAME_PAD offset, with
 * tap_ip4_hdr_fill() for the L2 and L3 headers, and hand them to tap_send(),
 * or a run of them to tap_send_frames(): a passt guest then gets the run
 * with one sendmsg(), so QEMU wakes up once for it.
 *
 * Checksums: pasta's tap device carries a virtio-net header in front of each
 * frame, with checksum offload on. The guest then hands us TCP and UDP
 * segments without computing their checksums (we never check them: the
 * payload goes to a socket, and the host kernel checksums it on its way out),
 * and ours carry only the pseudo-header sum, marked partial: the kernel
 * takes such a packet as verified on local delivery (as between veth
 * peers), and completes the sum only if the guest forwards it. So neither
 * we nor the guest pass over the payload of a frame only to checksum it: at
 * 64 KiB frames that was a fifth of our CPU time on downloads. Frames that
 * are captured (--pcap) and those to a passt guest, which has no such
 * header, carry complete checksums: see tap_l4_csum().
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <linux/if_ether.h>
#include <linux/virtio_net.h>
#include <net/if_arp.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "arp.h"
#include "flow.h"
#include "icmp.h"
#include "checksum.h"
#include "log.h"
#include "passt.h"
#include "pcap.h"
#include "tap.h"
#include "tcp.h"
#include "udp.h"

#define TAP_BATCH		128
#define TAP_FRAME_MAX		(ETH_HLEN + MTU_MAX)
#define TAP_STREAM_WAIT_MS	1000	/* for the rest of a cut frame */
#define TAP_STREAM_SNDBUF	(8 << 20)
#define TAP_SOCK_PATH_FMT	"/tmp/passt_%d.socket"
#define TAP_SOCK_PATH_MAX_N	64

/* Frames from the guest stay here until the batch's TCP payload is written
 * to the sockets (tcp_tx_flush()): one sendmsg() per run of segments
 */
static uint8_t tap_rx[TAP_RX_SLOTS][ROUND_UP(FRAME_BUF_SIZE, 8)]
	__attribute__((aligned(8)));
static unsigned int tap_rx_used;
static uint8_t tap_stream[(TAP_FRAME_MAX + sizeof(uint32_t)) * 4];
static size_t tap_stream_len;

uint64_t pkt_drops[DROP_REASONS];
const char *const pkt_drop_names[DROP_REASONS] = {
	[DROP_ETH_SHORT]	= "eth_short",
	[DROP_ETH_TYPE]		= "eth_type",
	[DROP_TAP_GSO]		= "tap_gso",
	[DROP_ARP_MALFORMED]	= "arp_malformed",
	[DROP_IP4_MALFORMED]	= "ip4_malformed",
	[DROP_IP4_CSUM]		= "ip4_checksum",
	[DROP_IP4_FRAG]		= "ip4_fragment",
	[DROP_IP4_ADDR]		= "ip4_address",
	[DROP_IP4_PROTO]	= "ip4_protocol",
	[DROP_TCP_MALFORMED]	= "tcp_malformed",
	[DROP_TCP_FLAGS]	= "tcp_flags",
	[DROP_TCP_OPTS]		= "tcp_options",
	[DROP_TCP_NOFLOW]	= "tcp_no_flow",
	[DROP_TCP_SEQ]		= "tcp_sequence",
	[DROP_UDP_MALFORMED]	= "udp_malformed",
	[DROP_ICMP_MALFORMED]	= "icmp_malformed",
	[DROP_DHCP_MALFORMED]	= "dhcp_malformed",
	[DROP_FLOW_TABLE_FULL]	= "flow_table_full",
};

static uint64_t tap_frames_in, tap_frames_out, tap_send_errors, tap_wakeups;

/**
 * pkt_drop() - account for a frame from the guest that we discard
 * @reason:	why
 */
void pkt_drop(enum pkt_drop_reason reason)
{
	pkt_drops[reason]++;
	debug("dropped frame: %s", pkt_drop_names[reason]);
}

/**
 * ip4_input() - check an IPv4 packet completely, then hand it to L4
 * @c:		execution context
 * @v:		view from the start of the IPv4 header to the end of the frame
 */
static void ip4_input(struct ctx *c, struct pkt_view v)
{
	const struct iphdr *ih;
	struct pkt_view l4;
	size_t hlen, tot;

	ih = pkt_pull(&v, sizeof(*ih));
	if (!ih || ih->version != 4 || ih->ihl < 5) {
		pkt_drop(DROP_IP4_MALFORMED);
		return;
	}
	hlen = ih->ihl * 4;
	tot = ntohs(ih->tot_len);
	/* Total length covers the header and fits in the frame; anything
	 * past it is Ethernet padding and is trimmed.
	 */
	if (tot < hlen || tot > v.len + sizeof(*ih) ||
	    !pkt_pull(&v, hlen - sizeof(*ih))) {
		pkt_drop(DROP_IP4_MALFORMED);
		return;
	}
	if (csum(ih, hlen, 0)) {
		pkt_drop(DROP_IP4_CSUM);
		return;
	}
	if (ntohs(ih->frag_off) & (IP_MF | IP_OFFMASK)) {
		pkt_drop(DROP_IP4_FRAG);
		return;
	}
	if (!pkt_sub(&v, tot - hlen, &l4)) {
		pkt_drop(DROP_IP4_MALFORMED);
		return;
	}

	switch (ih->protocol) {
	case IPPROTO_TCP:
		tcp_tap_input(c, ih, l4);
		break;
	case IPPROTO_UDP:
		udp_tap_input(c, ih, l4);
		break;
	case IPPROTO_ICMP:
		icmp_tap_input(c, ih, l4);
		break;
	default:
		pkt_drop(DROP_IP4_PROTO);
	}
}

/**
 * tap_input() - handle one Ethernet frame from the guest
 * @c:		execution context
 * @frame:	frame, from the destination MAC address on
 * @len:	frame length
 */
void tap_input(struct ctx *c, const uint8_t *frame, size_t len)
{
	struct pkt_view v = { frame, len };
	const struct ethhdr *eh;

	tap_frames_in++;
	pcap_frame(frame, len);

	eh = pkt_pull(&v, sizeof(*eh));
	if (!eh) {
		pkt_drop(DROP_ETH_SHORT);
		return;
	}

	if (!(eh->h_source[0] & 1) &&
	    memcmp(c->mac_guest, eh->h_source, ETH_ADDR_LEN)) {
		memcpy(c->mac_guest, eh->h_source, ETH_ADDR_LEN);
		c->mac_guest_known = true;
	}

	switch (ntohs(eh->h_proto)) {
	case ETH_P_ARP:
		arp_input(c, v);
		break;
	case ETH_P_IP:
		ip4_input(c, v);
		break;
	default:
		pkt_drop(DROP_ETH_TYPE);
	}
}

/**
 * tap_ip4_hdr_fill() - write Ethernet and IPv4 headers of a frame to the guest
 * @c:		execution context
 * @buf:	frame buffer (FRAME_PAD bytes before the Ethernet header)
 * @src:	source address
 * @dst:	destination address
 * @proto:	L4 protocol
 * @l4_len:	L4 header and payload length
 *
 * Return: pointer to the L4 header in @buf
 */
uint8_t *tap_ip4_hdr_fill(const struct ctx *c, uint8_t *buf,
			  struct in_addr src, struct in_addr dst,
			  uint8_t proto, size_t l4_len)
{
	struct ethhdr *eh = (struct ethhdr *)(buf + FRAME_ETH_OFF);
	struct iphdr *ih = (struct iphdr *)(buf + FRAME_IP4_OFF);

	memcpy(eh->h_dest, c->mac_guest, ETH_ADDR_LEN);
	memcpy(eh->h_source, c->mac_ours, ETH_ADDR_LEN);
	eh->h_proto = htons(ETH_P_IP);

	ih->version = 4;
	ih->ihl = 5;
	ih->tos = 0;
	ih->tot_len = htons(sizeof(*ih) + l4_len);
	ih->id = 0;
	ih->frag_off = htons(IP_DF);
	ih->ttl = 64;
	ih->protocol = proto;
	ih->check = 0;
	ih->saddr = src.s_addr;
	ih->daddr = dst.s_addr;
	ih->check = csum(ih, sizeof(*ih), 0);

	return buf + FRAME_L4_OFF;
}

/**
 * tap_stream_finish() - write the rest of a frame the socket took part of
 * @c:		execution context
 * @iov:	the frame's length prefix and the frame, as given to sendmsg()
 * @done:	bytes of the two that the socket took
 *
 * A frame is never cut, or the stream would be out of step: wait (bounded)
 * for room for the rest.
 *
 * Return: 0 on success, -1 if the guest must be disconnected
 */
static int tap_stream_finish(struct ctx *c, const struct iovec *iov,
			     size_t done)
{
	size_t total = iov[0].iov_len + iov[1].iov_len;

	while (done < total) {
		struct pollfd pfd = { .fd = c->fd_tap, .events = POLLOUT };
		bool in_prefix = done < iov[0].iov_len;
		const struct iovec *v = &iov[!in_prefix];
		size_t off = in_prefix ? done : done - iov[0].iov_len;
		ssize_t n;

		if (poll(&pfd, 1, TAP_STREAM_WAIT_MS) <= 0)
			return -1;
		n = send(c->fd_tap, (const uint8_t *)v->iov_base + off,
			 v->iov_len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (n > 0)
			done += n;
	}
	return 0;
}

/**
 * tap_send_stream() - write length-prefixed frames to the guest's socket
 * @c:		execution context
 * @frames:	frames, from the destination MAC address on
 * @n:		number of frames, at most TAP_SEND_BATCH
 *
 * One sendmsg() for all of them: one wake-up for QEMU, however many frames.
 * What the socket doesn't take is dropped, like a full tap queue, except the
 * rest of a frame it took part of.
 *
 * Return: frames written, -1 if the guest must be disconnected
 */
static int tap_send_stream(struct ctx *c, const struct iovec *frames,
			   unsigned int n)
{
	struct iovec iov[TAP_SEND_BATCH * 2];
	uint32_t prefix[TAP_SEND_BATCH];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n * 2 };
	unsigned int i;
	ssize_t left;

	for (i = 0; i < n; i++) {
		prefix[i] = htonl(frames[i].iov_len);
		iov[i * 2] = (struct iovec){ &prefix[i], sizeof(prefix[i]) };
		iov[i * 2 + 1] = frames[i];
	}
	left = sendmsg(c->fd_tap, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (left < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;

	for (i = 0; i < n; i++) {
		size_t len = sizeof(prefix[i]) + frames[i].iov_len;

		if ((size_t)left < len)
			break;
		left -= len;
	}
	if (!left)
		return i;
	if (tap_stream_finish(c, &iov[i * 2], left))
		return -1;
	return i + 1;
}

/**
 * tap_l4_csum_needed() - must TCP and UDP frames to the guest be checksummed?
 * @c:		execution context
 *
 * Return: false if the guest's kernel takes them as partial (see above)
 */
static bool tap_l4_csum_needed(const struct ctx *c)
{
	return !c->tap_vnet_hdr || pcap_active();
}

/**
 * tap_l4_csum() - checksum field of a TCP or UDP segment to the guest
 * @c:		execution context
 * @l4:		L4 header, checksum field zero, and payload
 * @l4_len:	L4 header and payload length
 * @src:	source address
 * @dst:	destination address
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: complete checksum, or the pseudo-header sum alone, not
 *	   complemented, for the kernel to complete (CHECKSUM_PARTIAL)
 */
uint16_t tap_l4_csum(const struct ctx *c, const void *l4, size_t l4_len,
		     struct in_addr src, struct in_addr dst, uint8_t proto)
{
	uint32_t pseudo = csum_pseudo4(src, dst, proto, l4_len);
	uint16_t sum;

	if (!tap_l4_csum_needed(c))
		return (uint16_t)~csum_fold(pseudo);
	sum = csum(l4, l4_len, pseudo);
	if (proto == IPPROTO_UDP && !sum)
		return 0xffff;		/* RFC 768: zero means no checksum */
	return sum;
}

/**
 * tap_vnet_hdr_fill() - virtio-net header for one of our frames
 * @c:		execution context
 * @vh:		header to fill
 * @eth:	frame, as built by tap_ip4_hdr_fill()
 * @len:	frame length
 *
 * TCP and UDP frames carry a partial checksum (see tap_l4_csum()): tell the
 * kernel where the sum starts and where it goes.
 */
static void tap_vnet_hdr_fill(const struct ctx *c, struct virtio_net_hdr *vh,
			      const uint8_t *eth, size_t len)
{
	const struct ethhdr *eh = (const struct ethhdr *)eth;
	const struct iphdr *ih = (const struct iphdr *)(eth + ETH_HLEN);
	uint16_t off;

	memset(vh, 0, sizeof(*vh));
	if (tap_l4_csum_needed(c) || len < ETH_HLEN + sizeof(*ih) ||
	    eh->h_proto != htons(ETH_P_IP))
		return;
	if (ih->protocol == IPPROTO_TCP)
		off = offsetof(struct tcphdr, check);
	else if (ih->protocol == IPPROTO_UDP)
		off = offsetof(struct udphdr, check);
	else
		return;
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = ETH_HLEN + ih->ihl * 4;
	vh->csum_offset = off;
}

/**
 * tap_write_vnet() - write one frame to the tap device
 * @c:		execution context
 * @eth:	frame, from the destination MAC address on
 * @len:	frame length
 *
 * Return: write() result
 */
static ssize_t tap_write_vnet(const struct ctx *c, const uint8_t *eth,
			      size_t len)
{
	struct virtio_net_hdr vh;
	struct iovec iov[2] = {
		{ &vh, sizeof(vh) }, { (void *)eth, len },
	};

	if (!c->tap_vnet_hdr)
		return write(c->fd_tap, eth, len);
	tap_vnet_hdr_fill(c, &vh, eth, len);
	return writev(c->fd_tap, iov, 2);
}

/**
 * tap_send_frames() - send complete Ethernet frames to the guest, in order
 * @c:		execution context
 * @frames:	frames, from the destination MAC address on
 * @n:		number of frames, at most TAP_SEND_BATCH
 *
 * A full tap queue drops frames, like a lossy link: TCP recovers.
 */
void tap_send_frames(struct ctx *c, const struct iovec *frames,
		     unsigned int n)
{
	unsigned int i, sent = 0;

	if (c->fd_tap < 0)
		return;

	for (i = 0; i < n; i++)
		pcap_frame(frames[i].iov_base, frames[i].iov_len);

	if (c->mode == MODE_PASST) {
		int ret = tap_send_stream(c, frames, n);

		if (ret < 0) {
			err("guest socket write: %s", strerror(errno));
			tap_guest_gone(c);
			return;
		}
		sent = ret;
	} else {
		for (i = 0; i < n; i++) {
			if (tap_write_vnet(c, frames[i].iov_base,
					   frames[i].iov_len) >= 0)
				sent++;
			else if (errno != EAGAIN && errno != ENOBUFS)
				err_ratelimit("tap write: %s",
					      strerror(errno));
		}
	}
	tap_frames_out += sent;
	tap_send_errors += n - sent;
}

/**
 * tap_send_raw() - send one complete Ethernet frame to the guest
 * @c:		execution context
 * @eth:	frame, from the destination MAC address on
 * @len:	frame length
 */
void tap_send_raw(struct ctx *c, const uint8_t *eth, size_t len)
{
	struct iovec frame = { (void *)eth, len };

	tap_send_frames(c, &frame, 1);
}

/**
 * tap_send() - send a frame built with tap_ip4_hdr_fill()
 * @c:		execution context
 * @buf:	frame buffer (FRAME_PAD bytes before the Ethernet header)
 * @l4_len:	L4 header and payload length
 */
void tap_send(struct ctx *c, const uint8_t *buf, size_t l4_len)
{
	struct iovec frame = tap_frame(buf, l4_len);

	tap_send_frames(c, &frame, 1);
}

/**
 * tap_rx_slot() - a free frame buffer, flushing queued TCP payload if none
 * @c:		execution context
 *
 * Return: buffer, FRAME_PAD bytes before the frame, FRAME_BUF_SIZE long
 */
static uint8_t *tap_rx_slot(struct ctx *c)
{
	if (tap_rx_used == TAP_RX_SLOTS) {
		tcp_tx_flush(c);
		tap_rx_used = 0;
	}
	return tap_rx[tap_rx_used++];
}

/**
 * tap_rx_done() - the batch is handled: write queued TCP payload out
 * @c:		execution context
 */
static void tap_rx_done(struct ctx *c)
{
	tcp_tx_flush(c);
	tap_rx_used = 0;
}

/**
 * tap_handler_pasta() - read and handle queued frames from the tap device
 * @c:		execution context
 */
static void tap_handler_pasta(struct ctx *c)
{
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) } };
	int i;

	for (i = 0; i < TAP_BATCH; i++) {
		size_t hlen = c->tap_vnet_hdr ? sizeof(vh) : 0;
		uint8_t *buf = tap_rx_slot(c);
		ssize_t n;

		iov[1] = (struct iovec){ buf + FRAME_PAD,
					 FRAME_BUF_SIZE - FRAME_PAD };
		n = readv(c->fd_tap, iov + !hlen, 1 + !!hlen);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				err_ratelimit("tap read: %s", strerror(errno));
			break;
		}
		if ((size_t)n < hlen) {
			pkt_drop(DROP_ETH_SHORT);
			continue;
		}
		/* Without segmentation offloads, the kernel sends none */
		if (hlen && vh.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
			pkt_drop(DROP_TAP_GSO);
			continue;
		}
		tap_input(c, buf + FRAME_PAD, n - hlen);
	}
}

/**
 * tap_stream_frames() - handle the complete frames at the start of the
 *			 stream buffer, keep a partial one for later
 * @c:		execution context
 *
 * Return: 0 on success, -1 on a bad length prefix
 */
static int tap_stream_frames(struct ctx *c)
{
	size_t off = 0;

	while (tap_stream_len - off >= sizeof(uint32_t)) {
		uint8_t *buf;
		uint32_t len;

		memcpy(&len, tap_stream + off, sizeof(len));
		len = ntohl(len);
		if (!len || len > TAP_FRAME_MAX) {
			err("guest sent a frame length of %u (largest %u): "
			    "disconnecting it", len, TAP_FRAME_MAX);
			return -1;
		}
		if (tap_stream_len - off - sizeof(len) < len)
			break;
		/* Copy to an aligned buffer: headers are read as structs */
		buf = tap_rx_slot(c);
		memcpy(buf + FRAME_PAD, tap_stream + off + sizeof(len), len);
		tap_input(c, buf + FRAME_PAD, len);
		off += sizeof(len) + len;
		if (c->fd_tap < 0)
			return 0;
	}
	memmove(tap_stream, tap_stream + off, tap_stream_len - off);
	tap_stream_len -= off;
	return 0;
}

/**
 * tap_handler_passt() - read frames from the guest's stream socket
 * @c:		execution context
 * @events:	epoll events
 */
static void tap_handler_passt(struct ctx *c, uint32_t events)
{
	int i;

	for (i = 0; i < TAP_BATCH && c->fd_tap >= 0; i++) {
		ssize_t n = recv(c->fd_tap, tap_stream + tap_stream_len,
				 sizeof(tap_stream) - tap_stream_len,
				 MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			info("guest disconnected");
			tap_guest_gone(c);
			return;
		}
		if (n < 0)
			break;
		tap_stream_len += n;
		if (tap_stream_frames(c)) {
			tap_guest_gone(c);
			return;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR) && c->fd_tap >= 0) {
		info("guest disconnected");
		tap_guest_gone(c);
	}
}

/**
 * tap_handler() - frames from the guest are ready
 * @c:		execution context
 * @events:	epoll events
 */
void tap_handler(struct ctx *c, uint32_t events)
{
	tap_wakeups++;
	if (c->mode == MODE_PASST) {
		tap_handler_passt(c, events);
	} else if (events & (EPOLLHUP | EPOLLERR)) {
		err("tap device closed");
		c->quit = true;
	} else {
		tap_handler_pasta(c);
	}
	tap_rx_done(c);
}

/**
 * tap_guest_gone() - the guest's socket closed: reset flows, wait or quit
 * @c:		execution context
 */
void tap_guest_gone(struct ctx *c)
{
	if (c->fd_tap < 0)
		return;
	epoll_ref_del(c, c->fd_tap);
	close(c->fd_tap);
	c->fd_tap = -1;
	tap_stream_len = 0;
	c->mac_guest_known = false;
	memset(c->mac_guest, 0xff, ETH_ADDR_LEN);
	flow_close_all(c);

	if (c->one_off || c->fd_tap_listen < 0) {
		info("guest gone: exiting");
		c->quit = true;
	}
}

/**
 * tap_listen_handler() - a guest connects to our UNIX socket
 * @c:		execution context
 * @events:	epoll events
 */
void tap_listen_handler(struct ctx *c, uint32_t events)
{
	int fd;

	(void)events;
	fd = accept4(c->fd_tap_listen, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (c->fd_tap >= 0) {
		info("refusing a second guest: one is connected already");
		close(fd);
		return;
	}
	tap_guest_attach(c, fd);
}

/**
 * tap_guest_attach() - start serving a guest on a connected socket
 * @c:		execution context
 * @fd:		stream socket
 */
void tap_guest_attach(struct ctx *c, int fd)
{
	int sndbuf = TAP_STREAM_SNDBUF;

	/* Room for a burst of frames: what doesn't fit is dropped */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	c->fd_tap = fd;
	tap_stream_len = 0;
	epoll_ref_add(c, fd, EPOLL_TYPE_TAP, 0, EPOLLIN | EPOLLRDHUP);
	info("guest connected");
}

/**
 * tap_sock_bind() - bind -s PATH, or the first free /tmp/passt_N.socket
 * @c:		execution context, sock_path filled in
 *
 * Return: listening socket
 */
static int tap_sock_bind(struct ctx *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i, fd;

	for (i = 1; i <= TAP_SOCK_PATH_MAX_N; i++) {
		if (!c->sock_path_given)
			snprintf(c->sock_path, sizeof(c->sock_path),
				 TAP_SOCK_PATH_FMT, i);
		if (strlen(c->sock_path) >= sizeof(sa.sun_path))
			die("Socket path too long for -s: %s", c->sock_path);
		strcpy(sa.sun_path, c->sock_path);

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("UNIX socket: %s", strerror(errno));
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		if (errno == EADDRINUSE &&
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
		    errno == ECONNREFUSED) {
			/* Stale: nobody listens there any more */
			unlink(sa.sun_path);
			close(fd);
			i--;
			continue;
		}
		close(fd);
		if (c->sock_path_given)
			die("Can't bind -s %s: %s", c->sock_path,
			    strerror(errno));
	}
	die("No free socket path among " TAP_SOCK_PATH_FMT " ... %d: use -s",
	    1, TAP_SOCK_PATH_MAX_N);
}

/**
 * tap_init_passt() - listen on the UNIX socket, or take the -F socket
 * @c:		execution context
 */
void tap_init_passt(struct ctx *c)
{
	if (c->fd_given >= 0) {
		tap_guest_attach(c, c->fd_given);
		return;
	}
	c->fd_tap_listen = tap_sock_bind(c);
	if (listen(c->fd_tap_listen, 1))
		die("listen on %s: %s", c->sock_path, strerror(errno));
	epoll_ref_add(c, c->fd_tap_listen, EPOLL_TYPE_TAP_LISTEN, 0, EPOLLIN);
	info("UNIX socket: %s", c->sock_path);
	if (c->foreground)
		printf("You can now start qemu (7.2 or later) with:\n"
		       "    qemu-system-x86_64 ... -device virtio-net-pci,netdev=s"
		       " -netdev stream,id=s,server=off,addr.type=unix,"
		       "addr.path=%s\n", c->sock_path);
	fflush(stdout);
}

/**
 * tap_stats() - log frame counters and drop reasons
 * @c:		execution context
 */
void tap_stats(const struct ctx *c)
{
	int i;

	(void)c;
	info("tap: frames in %llu (in %llu wake-ups), out %llu, "
	     "send errors %llu",
	     (unsigned long long)tap_frames_in,
	     (unsigned long long)tap_wakeups,
	     (unsigned long long)tap_frames_out,
	     (unsigned long long)tap_send_errors);
	for (i = 0; i < DROP_REASONS; i++) {
		if (pkt_drops[i])
			info("drop %s: %llu", pkt_drop_names[i],
			     (unsigned long long)pkt_drops[i]);
	}
}
