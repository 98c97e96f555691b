// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - link backend: pasta's tap device
 *
 * Theory of operation: one frame per read(), as many as are queued (up to
 * LINK_READS_MAX per wake-up), and one write() per frame, each behind a
 * virtio-net header (IFF_VNET_HDR, see pasta.c).
 *
 * Checksums: the header comes with checksum offload on. The guest then
 * hands us TCP and UDP segments without computing their checksums (we never
 * check them: the payload goes to a socket, and the host kernel checksums it
 * on its way out), and ours carry only the pseudo-header sum, marked
 * partial: the kernel takes such a packet as verified on local delivery (as
 * between veth peers), and completes the sum only if the guest forwards it.
 * So neither we nor the guest pass over the payload of a frame only to
 * checksum it: at 64 KiB frames that was a fifth of our CPU time on
 * downloads.
 *
 * Segmentation: the same header carries TCP segmentation offload, both
 * ways (pasta.c offers TSO). The guest hands us TCP frames of up to 64 KiB
 * whatever its MTU, joined by its kernel: one read() and, for their
 * payload, part of one sendmsg(). We hand it frames of as many whole
 * segments of its MSS as an IP packet holds (tcp_frame_data_max()), whose
 * header tells the kernel the segment size: delivered locally, they are
 * never even cut. At MTU 1500 this is what makes pasta as fast as at 65520.
 */

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/virtio_net.h>

#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"
#include "tap.h"

static unsigned int tap_reads;	/* in this wake-up */

/**
 * tap_caps() - what the tap device offloads
 * @c:		execution context, tap device open
 *
 * Return: checksums and segmentation with the virtio-net header
 */
static struct link_caps tap_caps(const struct ctx *c)
{
	return (struct link_caps){ .csum = c->tap_vnet_hdr,
				   .tso = c->tap_vnet_hdr };
}

/**
 * tap_recv() - read queued frames from the tap device
 * @c:		execution context
 * @events:	epoll events
 * @rx:		frames, set
 * @max:	at most this many
 *
 * Return: frames read, fewer than @max once it has no more this wake-up
 */
static unsigned int tap_recv(struct ctx *c, uint32_t events,
			     struct link_rx *rx, unsigned int first,
			     unsigned int max)
{
	size_t hlen = c->tap_vnet_hdr ? sizeof(struct virtio_net_hdr) : 0;
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) } };
	unsigned int n = 0;

	if (events & (EPOLLHUP | EPOLLERR)) {
		err("tap device closed");
		c->quit = true;
		return 0;
	}
	while (n < max && tap_reads < LINK_READS_MAX) {
		uint8_t *buf = link_rx_slot(first + n) + FRAME_PAD;
		ssize_t len;

		tap_reads++;
		iov[1] = (struct iovec){ buf, FRAME_BUF_SIZE - FRAME_PAD };
		len = readv(c->fd_tap, iov + !hlen, 1 + !!hlen);
		if (len < 0) {
			if (errno != EAGAIN && errno != EINTR)
				err_ratelimit("tap read: %s", strerror(errno));
			break;
		}
		if ((size_t)len < hlen) {
			pkt_drop(DROP_ETH_SHORT);
			continue;
		}
		if (hlen && !link_vnet_gso_ok(&vh, c->tap_tso)) {
			pkt_drop(DROP_TAP_GSO);
			continue;
		}
		rx[n++] = (struct link_rx){ .data = buf, .len = len - hlen,
					    .gso_size = hlen && vh.gso_type ?
							vh.gso_size : 0 };
	}
	if (n < max)
		tap_reads = 0;
	return n;
}

/**
 * tap_send() - write frames to the tap device, one write() each
 * @c:		execution context
 * @f:		frames
 * @n:		how many
 *
 * Return: frames written: a full queue drops the rest, like a lossy link
 */
static int tap_send(struct ctx *c, const struct link_frame *f, unsigned int n)
{
	unsigned int i, sent = 0;

	for (i = 0; i < n; i++) {
		struct virtio_net_hdr vh;
		struct iovec iov[2] = { { &vh, sizeof(vh) }, f[i].iov };
		ssize_t ret;

		if (c->tap_vnet_hdr) {
			link_vnet_hdr_fill(&vh, &f[i]);
			ret = writev(c->fd_tap, iov, 2);
		} else {
			ret = writev(c->fd_tap, iov + 1, 1);
		}
		if (ret >= 0)
			sent++;
		else if (errno != EAGAIN && errno != ENOBUFS)
			err_ratelimit("tap write: %s", strerror(errno));
	}
	return sent;
}

const struct link_ops tap_link = {
	.name = "tap device",
	.caps = tap_caps,
	.recv = tap_recv,
	.send = tap_send,
};
