// SPDX-License-Identifier: GPL-2.0-or-later
/* link.c - the link to the guest: one interface over its backends
 *
 * Theory of operation: a backend (struct link_ops) is one way of reaching
 * the guest: pasta's tap device (tap.c), passt's UNIX stream socket
 * (stream.c), passt's vhost-user rings (vhost_user.c). It reads frames
 * into the receive slots below and writes the frames it is handed; it
 * knows nothing of the layers above, which see only this file:
 * link_recv() for the input layer (input.c), link_send() for the
 * protocols' frames, built by ip_frame() with a descriptor that says where
 * the L4 checksum is and what segment size a large TCP frame stands for, so
 * a backend never parses a frame it sends.
 *
 * What a backend offloads (checksums, segmentation) is decided
 * once, by link_init(), from the backend and the way the guest was set up:
 * ip_frame() reads it through link_caps(). A capture (--pcap) records
 * complete checksums, so checksum offload is off while one runs.
 *
 * A guest without room for more frames (a full stream socket, no receive
 * buffers in its ring) turns them away: link_send() says how many it took,
 * the caller takes the rest back, and the backend says when room comes
 * back (link_room_back()), which the main loop hands on once per event
 * batch (link_room_returned()). The tap device gives no such event: there,
 * a full queue only drops.
 *
 * A guest gone (passt: its socket closed, failed, or sent nonsense) is only
 * marked (link_guest_gone()): sending and reading stop, and the main loop,
 * once the event batch is over, closes the flows and lets the guest go
 * (link_guest_detach()). So no send, from whichever protocol, ends flows
 * under its caller's feet.
 */

#include <string.h>
#include <arpa/inet.h>
#include <linux/virtio_net.h>

#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"
#include "pcap.h"
#include "pkt.h"

/* Frames from the guest. Owner: the link layer. A backend's recv() fills
 * slots 0 to n - 1 of one batch; the layers above may keep pointers into
 * them (TCP queues the in-sequence payload of a run of segments, to write it
 * with one sendmsg()) until the input layer ends the batch (input.c:
 * tcp_tx_flush()), before it asks for the next one. So payload iovecs live
 * until their batch ends; afterwards nothing points here.
 */
static uint8_t link_rx_buf[LINK_RX_MAX][ROUND_UP(FRAME_BUF_SIZE, 8)]
	__attribute__((aligned(8)));

static const struct link_ops *link_backend;
static struct link_caps link_caps_set;
static bool link_lost;		/* until link_guest_detach() */
static bool link_rx_more;	/* the last recv() filled every slot */
static bool link_full;		/* a send found no room: want_room() asked */
static bool link_room;		/* since, the guest made room */

/* The guest's MAC address, from the frames it sends: where ours go */
static uint8_t link_mac_guest[ETH_ADDR_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

static uint64_t link_frames_in, link_frames_out, link_no_room;
static uint64_t link_wakeups;

/**
 * link_init() - take this backend for the guest, decide its offloads
 * @c:		execution context, with the guest's link set up
 * @ops:	backend
 */
void link_init(struct ctx *c, const struct link_ops *ops)
{
	link_backend = ops;
	link_caps_set = ops->caps(c);
	if (pcap_active())	/* a capture has whole frames, summed */
		link_caps_set.csum = link_caps_set.tx_direct = false;
	link_lost = link_rx_more = link_full = link_room = false;
	debug("link: %s, checksum offload %s, segmentation offload %s",
	      ops->name, link_caps_set.csum ? "on" : "off",
	      link_caps_set.tso ? "on" : "off");
}

/**
 * link_caps_update() - decide the offloads again: the guest negotiated
 * @c:		execution context
 *
 * For a backend whose guest says what it takes once it is there
 * (vhost-user's features), not at start-up.
 */
void link_caps_update(const struct ctx *c)
{
	link_caps_set = link_backend->caps(c);
	if (pcap_active())
		link_caps_set.csum = link_caps_set.tx_direct = false;
	debug("link: checksum offload %s, segmentation offload %s",
	      link_caps_set.csum ? "on" : "off",
	      link_caps_set.tso ? "on" : "off");
}

/**
 * link_attach() - start serving a guest on a connected socket
 * @c:		execution context
 * @fd:		socket, passt's (accepted, or --fd)
 */
void link_attach(struct ctx *c, int fd)
{
	link_backend->attach(c, fd);
}

/**
 * link_vnet_gso_ok() - is a guest frame's segmentation one we asked for?
 * @vh:		its virtio-net header
 * @tso:	we offered the guest TCP segmentation offload
 *
 * Return: true for none, and for TCP with a segment size if we offered it
 */
bool link_vnet_gso_ok(const struct virtio_net_hdr *vh, bool tso)
{
	switch (vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return tso && vh->gso_size;
	default:
		return false;
	}
}

/**
 * link_vnet_hdr_fill() - virtio-net header for one of our frames
 * @vh:		header to fill
 * @f:		frame, as ip_frame() described it
 *
 * A partial checksum needs completing; a TCP frame with a segment size,
 * cutting.
 */
void link_vnet_hdr_fill(struct virtio_net_hdr *vh, const struct link_frame *f)
{
	const struct ethhdr *eh = f->iov.iov_base;

	memset(vh, 0, sizeof(*vh));
	if (!f->csum_off)
		return;
	if (f->gso_size) {
		vh->gso_type = eh->h_proto == htons(ETH_P_IP) ?
			       VIRTIO_NET_HDR_GSO_TCPV4 :
			       VIRTIO_NET_HDR_GSO_TCPV6;
		vh->gso_size = f->gso_size;
		vh->hdr_len = f->hdr_len;
	}
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = f->l4_off;
	vh->csum_offset = f->csum_off;
}

/**
 * link_caps() - what the link does for us
 *
 * Return: its offloads, as link_init() decided them
 */
const struct link_caps *link_caps(void)
{
	return &link_caps_set;
}

/**
 * link_rx_slot() - buffer for one frame of a receive batch
 * @i:		index in the batch, below LINK_RX_MAX
 *
 * Return: buffer, FRAME_PAD bytes before the frame, FRAME_BUF_SIZE long
 */
uint8_t *link_rx_slot(unsigned int i)
{
	return link_rx_buf[i];
}

/**
 * link_recv() - read frames from the guest into slots of a batch
 * @c:		execution context
 * @events:	epoll events of the guest's descriptor
 * @rx:		frames, set
 * @first:	first slot to fill: 0 starts a batch
 * @max:	at most this many, up to LINK_RX_MAX - @first
 *
 * The slots of the last batch are reused: whatever pointed into them must
 * be done with them.
 *
 * Return: frames read, fewer than @max once nothing is left this wake-up
 */
unsigned int link_recv(struct ctx *c, uint32_t events, struct link_rx *rx,
		       unsigned int first, unsigned int max)
{
	unsigned int i, n;

	if (!link_rx_more)
		link_wakeups++;
	if (link_lost) {
		link_rx_more = false;
		return 0;	/* the end of the batch lets it go */
	}
	n = link_backend->recv(c, events, rx, first, max);
	link_rx_more = n == max;
	for (i = 0; i < n; i++)
		pcap_frame_gso(rx[i].data, rx[i].len, rx[i].gso_size);
	link_frames_in += n;
	return n;
}

/**
 * link_rx_done() - the frames of a batch are handled: their tails may go
 * @c:		execution context
 *
 * The input layer calls it when the batch ends, after TCP wrote what it
 * queued (tcp_tx_flush()).
 */
void link_rx_done(struct ctx *c)
{
	if (link_backend->rx_done)
		link_backend->rx_done(c);
}

/**
 * link_send() - send complete frames to the guest, in order
 * @c:		execution context
 * @f:		frames, from ip_frame()
 * @n:		number of frames, at most LINK_SEND_MAX
 *
 * A full queue drops frames, like a lossy link: TCP recovers. Where the
 * backend can say when the guest has room again, the caller learns how
 * many frames went: it may take the rest back and send them once
 * link_room_returned() says so, instead of waiting for its retransmission.
 *
 * Return: frames the guest took, @n where the rest is only lost (a guest
 *	   gone, a backend without want_room())
 */
unsigned int link_send(struct ctx *c, const struct link_frame *f,
		       unsigned int n)
{
	unsigned int i;
	int sent;

	if (c->fd_tap < 0 || link_lost)
		return n;

	for (i = 0; i < n; i++)
		pcap_frame_gso(f[i].iov.iov_base, f[i].iov.iov_len,
			       f[i].gso_size);
	sent = link_backend->send(c, f, n);
	if (sent < 0) {
		link_lost = true;
		return n;
	}
	link_frames_out += sent;
	link_no_room += n - sent;
	if ((unsigned int)sent == n || !link_backend->want_room)
		return n;
	link_full = true;
	link_backend->want_room(c);
	return sent;
}

/**
 * link_tx_reserve() - room for frames in the guest's own buffers
 * @c:		execution context
 * @tx:		set: payload buffers, frames
 * @frames:	frames wanted, at most
 * @data_max:	payload bytes of each frame but the last
 * @hdr_len:	header bytes of each frame, Ethernet to L4
 * @bytes_max:	payload bytes wanted in all, at most
 *
 * Where the link gives such room (link_caps()->tx_direct), a socket's data
 * can be read straight into it, and no copy is made. Nothing else may be
 * sent to the guest until link_tx_commit().
 *
 * Return: frames there is room for (their payload buffers in @tx->iov,
 *	   @bytes_max at most in all), 0 if none: send copies then
 */
unsigned int link_tx_reserve(struct ctx *c, struct link_tx *tx,
			     unsigned int frames, size_t data_max,
			     size_t hdr_len, size_t bytes_max)
{
	size_t room = 0;
	unsigned int i;

	if (!link_caps_set.tx_direct || c->fd_tap < 0 || link_lost)
		return 0;
	tx->frames = frames;
	tx->data_max = data_max;
	tx->hdr_len = hdr_len;
	if (!link_backend->tx_reserve(c, tx))
		return 0;
	for (i = 0; i < tx->iovcnt && room < bytes_max; i++) {
		tx->iov[i].iov_len = MIN(tx->iov[i].iov_len, bytes_max - room);
		room += tx->iov[i].iov_len;
	}
	tx->iovcnt = i;
	return tx->frames;
}

/**
 * link_tx_commit() - give the guest the frames written in reserved room
 * @c:		execution context
 * @tx:		from link_tx_reserve()
 * @f:		frames' headers, the first @tx->hdr_len bytes of each
 *		(ip_frame(), as if with their payload)
 * @n:		frames written, 0 to give all the room back
 * @bytes:	payload bytes written, in all
 */
void link_tx_commit(struct ctx *c, const struct link_tx *tx,
		    const struct link_frame *f, unsigned int n, size_t bytes)
{
	link_backend->tx_commit(c, tx, f, n, bytes);
	link_frames_out += n;
}

/**
 * link_room_back() - for a backend: the guest can take frames again
 */
void link_room_back(void)
{
	if (link_full)
		link_room = true;
	link_full = false;
}

/**
 * link_room_returned() - did the guest make room since a send found none?
 *
 * Once per event batch, for the main loop: who took frames back sends them.
 *
 * Return: true once for each time room came back
 */
bool link_room_returned(void)
{
	bool room = link_room;

	link_room = false;
	return room;
}

/**
 * link_send_raw() - send one frame that isn't IP (ARP) to the guest
 * @c:		execution context
 * @eth:	frame, from the destination MAC address on
 * @len:	frame length
 */
void link_send_raw(struct ctx *c, const uint8_t *eth, size_t len)
{
	struct link_frame f = { .iov = { (void *)eth, len } };

	link_send(c, &f, 1);
}

/**
 * link_guest_mac_seen() - the guest sends from this (unicast) MAC address
 * @mac:	MAC address
 */
void link_guest_mac_seen(const uint8_t *mac)
{
	memcpy(link_mac_guest, mac, ETH_ADDR_LEN);
}

/**
 * link_guest_mac() - the guest's MAC address, where our frames go
 *
 * Return: the last one it sent from, broadcast until then
 */
const uint8_t *link_guest_mac(void)
{
	return link_mac_guest;
}

/**
 * link_guest_gone() - the guest went away: stop, let the batch end go
 */
void link_guest_gone(void)
{
	link_lost = true;
}

/**
 * link_guest_lost() - is the guest gone, still to be let go?
 *
 * Return: true from a hard error, end of stream or bad framing on the
 *	   guest's link until link_guest_detach()
 */
bool link_guest_lost(void)
{
	return link_lost;
}

/**
 * link_guest_detach() - let a lost guest go: wait for another, or quit
 * @c:		execution context
 *
 * For the end of the batch in which the guest was lost: the caller closes
 * its flows.
 */
void link_guest_detach(struct ctx *c)
{
	link_lost = link_rx_more = link_full = link_room = false;
	memset(link_mac_guest, 0xff, ETH_ADDR_LEN);
	if (link_backend->detach)
		link_backend->detach(c);
}

/**
 * link_stats() - log frame counters and drop reasons
 */
void link_stats(void)
{
	int i;

	info("tap: frames in %llu (in %llu wake-ups), out %llu, "
	     "no room for %llu",
	     (unsigned long long)link_frames_in,
	     (unsigned long long)link_wakeups,
	     (unsigned long long)link_frames_out,
	     (unsigned long long)link_no_room);
	for (i = 0; i < DROP_REASONS; i++) {
		if (pkt_drops[i])
			info("drop %s: %llu", pkt_drop_names[i],
			     (unsigned long long)pkt_drops[i]);
	}
}
