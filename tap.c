// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - frame I/O with the guest: the tap device or passt's UNIX socket
 *
 * Theory of operation: pasta reads frames from a tap device, one frame per
 * read(), as many as are queued (up to TAP_BATCH) per wake-up; each is checked
 * and dispatched at once, and the protocol handlers defer their ACKs to the
 * end of the batch (tcp_batch_end() in passt.c), so that a burst of segments
 * costs one ACK. Frames are read into TAP_RX_SLOTS buffers in turn, and TCP
 * queues in-sequence payload there, to write a run of segments with one
 * sendmsg() when the slots run out or the batch ends: see tap_rx below.
 * We only look at the Ethernet header: ARP goes to arp.c, IPv4 and IPv6 to
 * the IP layer (ip.c), which checks and dispatches them; whatever fails a
 * check is dropped through pkt_drop() with a reason.
 *
 * Output: callers build frames in their own buffers with ip_frame() and hand
 * them, or a run of them, to tap_send_frames(): a passt guest then gets the
 * run with one sendmsg(), so QEMU wakes up once for it.
 *
 * A guest gone (passt: its socket closed, failed or sent nonsense) is only
 * marked here (tap_guest_lost()): sending and reading stop, and the main
 * loop, once the event batch is over, closes the flows and lets the socket
 * go (tap_guest_detach()). So no send, from whichever protocol, ends flows
 * under its caller's feet.
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
 * header, carry complete checksums: see ip_l4_csum().
 *
 * Segmentation: the same header carries TCP segmentation offload, both
 * ways (pasta.c offers TSO). The guest hands us TCP frames of up to 64 KiB
 * whatever its MTU, joined by its kernel: one read() and, for their
 * payload, part of one sendmsg(). We hand it frames of as many whole
 * segments of its MSS as an IP packet holds (tcp_frame_data_max()), whose
 * header tells the kernel the segment size: delivered locally, they are
 * never even cut. At MTU 1500 this is what makes pasta as fast as at 65520.
 * --pcap records such frames as the segments they stand for.
 */

#include <errno.h>
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
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "pcap.h"
#include "tap.h"

#define TAP_BATCH		128
#define TAP_FRAME_MAX		(ETH_HLEN + MTU_MAX)
#define TAP_CTL_FRAME_MAX	256	/* ARP, NDP: see tap_is_ctl() */
#define TAP_CTL_OWED_MAX	16	/* of those, queued behind a cut frame */
#define TAP_STREAM_SNDBUF	(8 << 20)
#define TAP_SOCK_PATH_FMT	"/tmp/passt_%d.socket"
#define TAP_SOCK_PATH_MAX_N	64

/* Frames from the guest, read by tap_handler(). Owner: tap.c. The layers
 * above may keep pointers into a frame past tap_input() (TCP queues the
 * in-sequence payload of a run of segments, to write it with one sendmsg())
 * until the holder's release callback returns (tap_rx_holder_set()): it is
 * called before the slots are reused, when all TAP_RX_SLOTS are taken, and
 * when tap_handler() ends. So payload iovecs live until the read batch ends
 * at the latest; afterwards nothing points here.
 */
static uint8_t tap_rx[TAP_RX_SLOTS][ROUND_UP(FRAME_BUF_SIZE, 8)]
	__attribute__((aligned(8)));
static unsigned int tap_rx_used;
static void (*tap_rx_release)(struct ctx *c);
static uint8_t tap_stream[(TAP_FRAME_MAX + sizeof(uint32_t)) * 4];
static size_t tap_stream_len;

/* What we owe a passt guest's socket, sent in order on EPOLLOUT: the rest of
 * a frame it took part of, then ARP and NDP replies it had no room for
 */
static uint8_t tap_owed[sizeof(uint32_t) + TAP_FRAME_MAX +
		       TAP_CTL_OWED_MAX * (sizeof(uint32_t) + TAP_CTL_FRAME_MAX)];
static size_t tap_owed_len, tap_owed_off;

static uint64_t tap_frames_in, tap_frames_out, tap_send_errors, tap_wakeups;

/* passt's guest is gone: nothing more is sent or read, until the end of the
 * batch lets it go (tap_guest_detach())
 */
static bool tap_lost;

/**
 * tap_input_gso() - handle one frame from the guest, maybe a large TCP one
 * @c:		execution context
 * @frame:	frame, from the destination MAC address on
 * @len:	frame length
 * @gso_size:	for the capture: the segments it stands for, 0 if none
 *
 * A large TCP frame of the tap device's segmentation offload is handled as
 * it is: one segment with a lot of payload, which is what it means.
 */
static void tap_input_gso(struct ctx *c, const uint8_t *frame, size_t len,
			  size_t gso_size)
{
	struct pkt_view v = { frame, len };
	const struct ethhdr *eh;

	tap_frames_in++;
	pcap_frame_gso(frame, len, gso_size);

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
	case ETH_P_IPV6:
		ip6_input(c, v);
		break;
	default:
		pkt_drop(DROP_ETH_TYPE);
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
	tap_input_gso(c, frame, len, 0);
}

/**
 * tap_owe() - keep bytes the guest's socket did not take, for EPOLLOUT
 * @c:		execution context
 * @iov:	a frame's length prefix and the frame
 * @skip:	bytes of the two the socket took already
 *
 * Return: true if they fit (they always do for the first frame)
 */
static bool tap_owe(const struct ctx *c, const struct iovec *iov, size_t skip)
{
	size_t len = iov[0].iov_len + iov[1].iov_len - skip;
	unsigned int i;

	if (tap_owed_len + len > sizeof(tap_owed))
		return false;
	if (!tap_owed_len)
		epoll_ref_mod(c, c->fd_tap, EPOLL_TYPE_TAP, 0,
			      EPOLLIN | EPOLLRDHUP | EPOLLOUT);
	for (i = 0; i < 2; i++) {
		size_t off = MIN(skip, iov[i].iov_len);

		memcpy(tap_owed + tap_owed_len,
		       (const uint8_t *)iov[i].iov_base + off,
		       iov[i].iov_len - off);
		tap_owed_len += iov[i].iov_len - off;
		skip -= off;
	}
	return true;
}

/**
 * tap_owed_flush() - send what we owe the guest's socket, as far as it takes
 * @c:		execution context
 *
 * Return: 0, even if some is still owed, -1 if the guest must be
 *	   disconnected
 */
static int tap_owed_flush(const struct ctx *c)
{
	while (tap_owed_off < tap_owed_len) {
		ssize_t n = send(c->fd_tap, tap_owed + tap_owed_off,
				 tap_owed_len - tap_owed_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0
									: -1;
		tap_owed_off += n;
	}
	tap_owed_len = tap_owed_off = 0;
	epoll_ref_mod(c, c->fd_tap, EPOLL_TYPE_TAP, 0, EPOLLIN | EPOLLRDHUP);
	return 0;
}

/**
 * tap_is_ctl() - is this a lone ARP or NDP frame?
 * @frames:	frames
 * @n:		how many
 *
 * A full socket drops what it can't take, as a full tap queue would: TCP
 * recovers. But an ARP or NDP reply dropped while a download fills the
 * socket leaves the guest without its gateway's address, so it can't
 * acknowledge, which stalls the download until neighbour discovery tries
 * again: such a frame is owed instead (tap_owe()).
 *
 * Return: true if it is
 */
static bool tap_is_ctl(const struct iovec *frames, unsigned int n)
{
	const uint8_t *eth = frames[0].iov_base;
	uint16_t type;

	if (n != 1 || frames[0].iov_len > TAP_CTL_FRAME_MAX ||
	    frames[0].iov_len < ETH_HLEN)
		return false;
	memcpy(&type, eth + offsetof(struct ethhdr, h_proto), sizeof(type));
	return type == htons(ETH_P_ARP) ||
	       (type == htons(ETH_P_IPV6) &&
		frames[0].iov_len >= ETH_HLEN + sizeof(struct ipv6hdr) &&
		eth[ETH_HLEN + offsetof(struct ipv6hdr, nexthdr)] ==
		IPPROTO_ICMPV6);
}

/**
 * tap_send_stream() - write length-prefixed frames to the guest's socket
 * @c:		execution context
 * @frames:	frames, from the destination MAC address on
 * @n:		number of frames, at most TAP_SEND_BATCH
 *
 * One sendmsg() for all of them: one wake-up for QEMU, however many frames.
 * What the socket doesn't take is dropped, like a full tap queue, except
 * the rest of a frame it took part of (a cut frame would put the stream out
 * of step) and lone ARP and NDP frames: those are owed, and sent on
 * EPOLLOUT, before anything else. Nothing here waits: a guest that doesn't
 * read loses frames, as on a full link, never its connection.
 *
 * Return: frames written or owed, -1 if the guest must be disconnected
 */
static int tap_send_stream(struct ctx *c, const struct iovec *frames,
			   unsigned int n)
{
	struct iovec iov[TAP_SEND_BATCH * 2];
	uint32_t prefix[TAP_SEND_BATCH];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n * 2 };
	bool ctl = tap_is_ctl(frames, n);
	unsigned int i;
	ssize_t left;

	for (i = 0; i < n; i++) {
		prefix[i] = htonl(frames[i].iov_len);
		iov[i * 2] = (struct iovec){ &prefix[i], sizeof(prefix[i]) };
		iov[i * 2 + 1] = frames[i];
	}
	if (tap_owed_len && tap_owed_flush(c))
		return -1;
	if (tap_owed_len)	/* in order: only behind what is owed */
		return ctl && tap_owe(c, iov, 0);

	left = sendmsg(c->fd_tap, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (left < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return ctl && tap_owe(c, iov, 0);
	if (left < 0)
		return -1;

	for (i = 0; i < n; i++) {
		size_t len = sizeof(prefix[i]) + frames[i].iov_len;

		if ((size_t)left < len)
			break;
		left -= len;
	}
	if (!left)
		return i;
	tap_owe(c, &iov[i * 2], left);
	return i + 1;
}

/**
 * tap_csum_partial_ok() - may TCP and UDP frames to the guest carry only
 *			   the pseudo-header sum?
 * @c:		execution context
 *
 * Return: true if the guest's kernel takes them as partial (see above)
 */
bool tap_csum_partial_ok(const struct ctx *c)
{
	return c->tap_vnet_hdr && !pcap_active();
}

/**
 * tap_vnet_hdr_fill() - virtio-net header for one of our frames
 * @c:		execution context
 * @vh:		header to fill
 * @eth:	frame, as built by ip_frame()
 * @len:	frame length
 * @gso_size:	for a TCP frame with more payload than that, the segment size
 *		the kernel cuts it into (its checksum is partial), 0 for none
 *
 * TCP and UDP frames carry a partial checksum (see tap_l4_csum()): tell the
 * kernel where the sum starts and where it goes.
 */
static void tap_vnet_hdr_fill(const struct ctx *c, struct virtio_net_hdr *vh,
			      const uint8_t *eth, size_t len, size_t gso_size)
{
	const struct ethhdr *eh = (const struct ethhdr *)eth;
	const struct tcphdr *th;
	uint16_t start, off;
	size_t hdrs;

	memset(vh, 0, sizeof(*vh));
	if (!ip_frame_csum_partial(eth, len, &start, &off))
		return;
	th = (const struct tcphdr *)(eth + start);
	hdrs = start + th->doff * 4;
	if (gso_size && off == offsetof(struct tcphdr, check) &&
	    len > hdrs + gso_size) {
		vh->gso_type = eh->h_proto == htons(ETH_P_IP) ?
			       VIRTIO_NET_HDR_GSO_TCPV4 :
			       VIRTIO_NET_HDR_GSO_TCPV6;
		vh->gso_size = (uint16_t)gso_size;
		vh->hdr_len = (uint16_t)hdrs;
	} else if (!tap_csum_partial_ok(c)) {
		return;
	}
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = start;
	vh->csum_offset = off;
}

/**
 * tap_write_vnet() - write one frame to the tap device
 * @c:		execution context
 * @eth:	frame, from the destination MAC address on
 * @len:	frame length
 * @gso_size:	see tap_vnet_hdr_fill()
 *
 * Return: write() result
 */
static ssize_t tap_write_vnet(const struct ctx *c, const uint8_t *eth,
			      size_t len, size_t gso_size)
{
	struct virtio_net_hdr vh;
	struct iovec iov[2] = {
		{ &vh, sizeof(vh) }, { (void *)eth, len },
	};

	if (!c->tap_vnet_hdr)
		return write(c->fd_tap, eth, len);
	tap_vnet_hdr_fill(c, &vh, eth, len, gso_size);
	return writev(c->fd_tap, iov, 2);
}

/**
 * tap_gso_size() - segment size for large TCP frames to the guest
 * @c:		execution context
 * @mss:	the connection's maximum segment size toward the guest
 *
 * Return: @mss where the tap device cuts frames for us (pasta, with the
 *	   virtio-net header), 0 where every frame must be a segment already
 */
size_t tap_gso_size(const struct ctx *c, size_t mss)
{
	return c->mode == MODE_PASTA && c->tap_vnet_hdr ? mss : 0;
}

/**
 * tap_write_failed() - a write to passt's guest failed: it's gone
 *
 * A guest that closed its end (EPIPE, ECONNRESET) quit, as QEMU does: not
 * an error. Marked only: see tap_guest_lost().
 */
static void tap_write_failed(void)
{
	if (errno == EPIPE || errno == ECONNRESET)
		info("guest disconnected");
	else
		err("guest socket write: %s", strerror(errno));
	tap_lost = true;
}

/**
 * tap_send_frames_gso() - send complete Ethernet frames to the guest, in
 *			   order, TCP ones maybe larger than a segment
 * @c:		execution context
 * @frames:	frames, from the destination MAC address on
 * @n:		number of frames, at most TAP_SEND_BATCH
 * @gso_size:	see tap_vnet_hdr_fill(), from tap_gso_size()
 *
 * A full tap queue drops frames, like a lossy link: TCP recovers.
 */
void tap_send_frames_gso(struct ctx *c, const struct iovec *frames,
			 unsigned int n, size_t gso_size)
{
	unsigned int i, sent = 0;

	if (c->fd_tap < 0 || tap_lost)
		return;

	for (i = 0; i < n; i++)
		pcap_frame_gso(frames[i].iov_base, frames[i].iov_len,
			       gso_size);

	if (c->mode == MODE_PASST) {
		int ret = tap_send_stream(c, frames, n);

		if (ret < 0) {
			tap_write_failed();
			return;
		}
		sent = ret;
	} else {
		for (i = 0; i < n; i++) {
			if (tap_write_vnet(c, frames[i].iov_base,
					   frames[i].iov_len, gso_size) >= 0)
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
 * tap_send_frames() - send complete Ethernet frames to the guest, in order
 * @c:		execution context
 * @frames:	frames, from the destination MAC address on
 * @n:		number of frames, at most TAP_SEND_BATCH
 */
void tap_send_frames(struct ctx *c, const struct iovec *frames,
		     unsigned int n)
{
	tap_send_frames_gso(c, frames, n, 0);
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
 * tap_rx_holder_set() - who keeps pointers into received frames, to be told
 *			 before their buffers are reused
 * @release:	drops every pointer into tap_rx (TCP: writes its queued
 *		payload out), NULL if nobody keeps any
 */
void tap_rx_holder_set(void (*release)(struct ctx *c))
{
	tap_rx_release = release;
}

/**
 * tap_rx_done() - let the holder release the frames, all slots are free
 * @c:		execution context
 */
static void tap_rx_done(struct ctx *c)
{
	if (tap_rx_release)
		tap_rx_release(c);
	tap_rx_used = 0;
}

/**
 * tap_rx_slot() - a free frame buffer, released first if none is left
 * @c:		execution context
 *
 * Return: buffer, FRAME_PAD bytes before the frame, FRAME_BUF_SIZE long
 */
static uint8_t *tap_rx_slot(struct ctx *c)
{
	if (tap_rx_used == TAP_RX_SLOTS)
		tap_rx_done(c);
	return tap_rx[tap_rx_used++];
}

/**
 * tap_gso_in_ok() - is a frame's segmentation offload one we asked for?
 * @c:		execution context
 * @vh:		its virtio-net header
 *
 * Return: true for none, and for TCP if we offered TSO (see pasta.c)
 */
static bool tap_gso_in_ok(const struct ctx *c, const struct virtio_net_hdr *vh)
{
	switch (vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return c->tap_tso && vh->gso_size;
	default:
		return false;
	}
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
		if (hlen && !tap_gso_in_ok(c, &vh)) {
			pkt_drop(DROP_TAP_GSO);
			continue;
		}
		tap_input_gso(c, buf + FRAME_PAD, n - hlen,
			      hlen && vh.gso_type ? vh.gso_size : 0);
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
		if (tap_lost)
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

	if (tap_lost)
		return;		/* the end of the batch lets it go */
	if ((events & EPOLLOUT) && tap_owed_flush(c)) {
		tap_write_failed();
		return;
	}

	for (i = 0; i < TAP_BATCH && !tap_lost; i++) {
		ssize_t n = recv(c->fd_tap, tap_stream + tap_stream_len,
				 sizeof(tap_stream) - tap_stream_len,
				 MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			info("guest disconnected");
			tap_lost = true;
			return;
		}
		if (n < 0)
			break;
		tap_stream_len += n;
		if (tap_stream_frames(c)) {
			tap_lost = true;
			return;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR) && !tap_lost) {
		info("guest disconnected");
		tap_lost = true;
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
 * tap_guest_lost() - is passt's guest gone, its socket still to be let go?
 *
 * Return: true from a hard error, end of stream or bad framing on the
 *	   guest's socket until tap_guest_detach()
 */
bool tap_guest_lost(void)
{
	return tap_lost;
}

/**
 * tap_guest_detach() - let the guest's socket go: wait for another or quit
 * @c:		execution context
 *
 * For the end of the batch in which the guest was lost: the caller closes
 * its flows.
 */
void tap_guest_detach(struct ctx *c)
{
	tap_lost = false;
	if (c->fd_tap < 0)
		return;
	epoll_ref_del(c, c->fd_tap);
	close(c->fd_tap);
	c->fd_tap = -1;
	tap_stream_len = 0;
	tap_owed_len = tap_owed_off = 0;
	c->mac_guest_known = false;
	memset(c->mac_guest, 0xff, ETH_ADDR_LEN);

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
	if (tap_lost)
		return;	/* level-triggered: accepted once the old one is gone */
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
		    errno == ECONNREFUSED && !unlink(sa.sun_path)) {
			/* Stale, nobody listens there any more: take it. One
			 * we can't remove (another user's, say a root passt
			 * that continued as nobody) is skipped instead.
			 */
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
	c->fd_sock_dir = path_dir_open(c->sock_path, &c->sock_name);
	epoll_ref_add(c, c->fd_tap_listen, EPOLL_TYPE_TAP_LISTEN, 0, EPOLLIN);
	info("UNIX domain socket bound at %s", c->sock_path);
	info("\nYou can now start qemu (7.2 or later), for example:");
	info("    qemu-system-x86_64 ... -device virtio-net-pci,netdev=s "
	     "-netdev stream,id=s,server=off,addr.type=unix,addr.path=%s",
	     c->sock_path);
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
