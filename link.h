/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LINK_H
#define LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/if_ether.h>

#include "pkt.h"

struct ctx;
struct virtio_net_hdr;

#define LINK_RX_MAX		32	/* frames per receive batch */
#define LINK_SEND_MAX		32	/* frames per link_send() */
#define LINK_READS_MAX		128	/* reads from the guest per wake-up */
#define LINK_FRAME_MAX		(ETH_HLEN + MTU_MAX)	/* MTU_MAX: passt.h */

/**
 * struct link_rx - one frame from the guest, in a receive slot
 * @data:	frame, from the destination MAC address on
 * @len:	frame length
 * @gso_size:	for a TCP frame the guest's kernel joined from segments of
 *		this size (segmentation offload), 0 for a plain frame
 * @tail:	the rest of the frame, where the guest left it (vhost-user:
 *		a TCP frame's payload, read in place), empty if none:
 *		valid until link_rx_done()
 */
struct link_rx {
	const uint8_t *data;
	size_t len;
	size_t gso_size;
	struct pkt_tail tail;
};

/**
 * struct link_frame - one frame to the guest, as ip_frame() built it
 * @iov:	frame, from the destination MAC address to the payload's end
 * @l4_off:	offset of the L4 header from the start of the frame
 * @csum_off:	offset of the checksum field in the L4 header if the sum
 *		there is partial (pseudo-header only), for the link to
 *		complete; 0 if the checksum is complete, or there is none
 * @gso_size:	segment size the link cuts this TCP frame into, 0 if it is
 *		one segment already
 * @hdr_len:	with @gso_size: length of the headers, TCP's included, that
 *		each segment repeats
 */
struct link_frame {
	struct iovec iov;
	uint16_t l4_off;
	uint16_t csum_off;
	uint16_t gso_size;
	uint16_t hdr_len;
};

#define LINK_TX_IOV_MAX		1024	/* IOV_MAX: one recvmsg() fills them */
#define LINK_TX_CHAINS_MAX	1024	/* guest buffer chains, all frames */

/**
 * struct link_tx - room for frames in the guest's own receive buffers
 * @iov:	payload buffers of all frames, in order: @data_max bytes for
 *		each frame, the last maybe fewer (what the caller asked for)
 * @iovcnt:	entries in @iov
 * @frames:	frames there is room for
 * @data_max:	payload bytes of each but the last
 * @hdr_len:	header bytes each frame has before its payload (Ethernet to
 *		L4, without the link's own)
 *
 * The backend keeps which of its buffers these are until
 * link_tx_commit(): nothing may be sent to the guest in between.
 */
struct link_tx {
	struct iovec iov[LINK_TX_IOV_MAX];
	unsigned int iovcnt;
	unsigned int frames;
	size_t data_max;
	size_t hdr_len;
};

/**
 * struct link_caps - what a link does for us, decided once at start-up
 * @csum:	completes TCP and UDP checksums of frames to the guest, so
 *		they may carry the pseudo-header sum alone
 * @tso:	cuts TCP frames to the guest into segments (@gso_size)
 * @tx_direct:	gives room in the guest's own buffers (link_tx_reserve()),
 *		where payload can go straight from a socket
 */
struct link_caps {
	bool csum;
	bool tso;
	bool tx_direct;
};

/**
 * struct link_ops - a way of reaching the guest: a link backend
 * @name:	for messages
 * @caps:	what it offloads, given the way the guest was set up
 * @recv:	read queued frames into link_rx_slot(@first ..), at most @max,
 *		@events from epoll; return how many, fewer than @max only
 *		once nothing is left for this wake-up (at most LINK_READS_MAX
 *		reads in one)
 * @rx_done:	the frames read since the last call are handled: what
 *		their tails point to may go back to the guest; NULL if
 *		frames never have tails
 * @send:	write @n frames in order; return how many went, a full queue
 *		drops the rest; -1 if the guest is gone
 * @tx_reserve: room for up to @tx->frames frames of @tx->hdr_len header and
 *		@tx->data_max payload bytes, in the guest's buffers; set
 *		@tx, return the frames there is room for (0: send copies)
 * @tx_commit:	the first @n frames of the last tx_reserve() are written,
 *		@bytes of payload in all, headers as @f has them (from
 *		ip_frame(), without payload): give them to the guest, and
 *		the rest of the room back
 * @want_room:	the guest took fewer frames than it was sent: call
 *		link_room_back() once it can take more (asked again at each
 *		such send: it may be at once); NULL if a full queue
 *		only drops (the tap device: no event says it has room)
 * @detach:	let a guest that's gone go, NULL if it never goes
 * @attach:	start serving a guest on a connected socket (passt), NULL
 *		for a link that's there from the start
 */
struct link_ops {
	const char *name;
	struct link_caps (*caps)(const struct ctx *c);
	unsigned int (*recv)(struct ctx *c, uint32_t events,
			     struct link_rx *rx, unsigned int first,
			     unsigned int max);
	void (*rx_done)(struct ctx *c);
	int (*send)(struct ctx *c, const struct link_frame *f, unsigned int n);
	unsigned int (*tx_reserve)(struct ctx *c, struct link_tx *tx);
	void (*tx_commit)(struct ctx *c, const struct link_tx *tx,
			  const struct link_frame *f, unsigned int n,
			  size_t bytes);
	void (*want_room)(struct ctx *c);
	void (*detach)(struct ctx *c);
	void (*attach)(struct ctx *c, int fd);
};

void link_init(struct ctx *c, const struct link_ops *ops);
void link_caps_update(const struct ctx *c);
void link_attach(struct ctx *c, int fd);
bool link_vnet_gso_ok(const struct virtio_net_hdr *vh, bool tso);
void link_vnet_hdr_fill(struct virtio_net_hdr *vh, const struct link_frame *f);
const struct link_caps *link_caps(void);
uint8_t *link_rx_slot(unsigned int i);
unsigned int link_recv(struct ctx *c, uint32_t events, struct link_rx *rx,
		       unsigned int first, unsigned int max);
void link_rx_done(struct ctx *c);
unsigned int link_send(struct ctx *c, const struct link_frame *f,
		       unsigned int n);
unsigned int link_tx_reserve(struct ctx *c, struct link_tx *tx,
			     unsigned int frames, size_t data_max,
			     size_t hdr_len, size_t bytes_max);
void link_tx_commit(struct ctx *c, const struct link_tx *tx,
		    const struct link_frame *f, unsigned int n, size_t bytes);
void link_room_back(void);
bool link_room_returned(void);
void link_send_raw(struct ctx *c, const uint8_t *eth, size_t len);
void link_guest_mac_seen(const uint8_t *mac);
const uint8_t *link_guest_mac(void);
void link_guest_gone(void);
bool link_guest_lost(void);
void link_guest_detach(struct ctx *c);
void link_stats(void);

#endif /* LINK_H */
