// SPDX-License-Identifier: GPL-2.0-or-later
/* vhost_user.c - link backend: passt on the guest's own virtio rings
 *
 * Theory of operation: with --vhost-user, the front-end (QEMU) connects to
 * passt's socket (stream.c listens) and speaks the vhost-user protocol on
 * it: we tell it the virtio-net features we take, it hands us the guest's
 * memory (memfd regions, mapped here: virtq.c translates every address
 * through them), the two rings of the device, and an eventfd per ring each
 * way: kick (the guest made buffers available) and call (we used some).
 * Frames then never cross that socket: the guest's transmit ring (1) holds
 * its frames, its receive ring (0) the buffers we write ours into, each
 * behind a virtio-net header (with num_buffers: mergeable receive
 * buffers, VERSION_1's layout).
 *
 * Offloads: we offer the guest checksum and TCP segmentation offload both
 * ways, as pasta's tap device has them: it may send us 64 KiB TCP frames
 * with a partial checksum, and takes ours, whose header tells it the
 * segment size. What it negotiated decides our side (link_caps_update()).
 *
 * A guest frame is copied into a receive slot (link.c) and its chain given
 * back at once; ours are copied into the guest's buffers, and the chains
 * published, with one notification, per batch. A ring that makes no sense
 * (virtq.c) stops that ring until the front-end sets it up again; a chain
 * that can't be taken is given back unused and counted.
 *
 * Migration: we offer what QEMU needs to move the guest elsewhere while it
 * runs. Our writes to guest memory are logged in the front-end's dirty
 * page log (VHOST_F_LOG_ALL, the log in shared memory: virtq.c marks the
 * pages), and our own state rides in QEMU's migration stream
 * (DEVICE_STATE): asked for it, we take the pipe and the main loop runs
 * the transfer once the request is answered (migrate.c). On the target,
 * SEND_RARP tells us the guest's MAC address.
 *
 * The front-end closing its socket (QEMU quits or restarts) ends the
 * session: memory unmapped, eventfds closed, and passt waits for the next
 * connection (stream.c), unless it was the only one (--one-off, --fd).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/ip.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"
#include "pcap.h"
#include "pkt.h"
#include "stream.h"
#include "vhost_user.h"
#include "virtq.h"

#define VU_RX			0	/* ring of the guest's receive buffers */
#define VU_TX			1	/* ring of the guest's frames */
#define VU_QUEUES		2
#define VU_HDR_LEN		sizeof(struct virtio_net_hdr_mrg_rxbuf)
#define VU_RX_HEAD		256	/* of a frame read in place: copied, with
					 * all its headers (Linux: 54 to 86)
					 */
#define VU_PAYLOAD_MAX		4096	/* of a message: a memory table fits */

/* Message flags */
#define VU_VERSION		0x1
#define VU_REPLY		0x4
#define VU_NEED_REPLY		0x8

/* Features: ours, and the protocol's own */
#define VU_F_LOG_ALL		26	/* we log our writes (migration) */
#define VU_F_PROTOCOL_FEATURES	30
#define VU_PROTOCOL_F_LOG_SHMFD	1	/* the log comes as shared memory */
#define VU_PROTOCOL_F_RARP	2	/* told the guest's MAC after a move */
#define VU_PROTOCOL_F_REPLY_ACK	3
#define VU_PROTOCOL_F_DEVICE_STATE 19	/* our state rides in QEMU's stream */
#define VU_FEATURES							\
	((1ULL << VIRTIO_F_VERSION_1) | (1ULL << VIRTIO_NET_F_MRG_RXBUF) |\
	 (1ULL << VIRTIO_RING_F_EVENT_IDX) | (1ULL << VU_F_PROTOCOL_FEATURES) |\
	 (1ULL << VIRTIO_NET_F_CSUM) | (1ULL << VIRTIO_NET_F_GUEST_CSUM) | \
	 (1ULL << VIRTIO_NET_F_GUEST_TSO4) |				\
	 (1ULL << VIRTIO_NET_F_GUEST_TSO6) |				\
	 (1ULL << VIRTIO_NET_F_HOST_TSO4) | (1ULL << VIRTIO_NET_F_HOST_TSO6) |\
	 (1ULL << VU_F_LOG_ALL))
#define VU_PROTOCOL_FEATURES						\
	((1ULL << VU_PROTOCOL_F_REPLY_ACK) |				\
	 (1ULL << VU_PROTOCOL_F_LOG_SHMFD) |				\
	 (1ULL << VU_PROTOCOL_F_RARP) |					\
	 (1ULL << VU_PROTOCOL_F_DEVICE_STATE))

/* Requests we take, the protocol's numbers */
enum vu_request {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SEND_RARP = 19,
	VU_NET_SET_MTU = 20,
	VU_SET_DEVICE_STATE_FD = 42,
	VU_CHECK_DEVICE_STATE = 43,
	VU_REQUESTS,
};

#define VU_VRING_NOFD		(1U << 8)	/* kick/call: no descriptor */
#define VU_VRING_IDX_MASK	0xff
#define VU_VRING_F_LOG		(1U << 0)	/* addr: log used ring writes */
#define VU_STATE_SAVE		0		/* direction: we write it */
#define VU_STATE_LOAD		1		/* we read it */
#define VU_STATE_STOPPED	0		/* phase: rings stopped */
#define VU_STATE_NOFD		(1ULL << 8)	/* reply: the front-end's fd */

/**
 * struct vu_msg - a message: its header and, aligned, its payload (on the
 *		   wire the payload follows the 12 bytes of header at once)
 * @request:	enum vu_request
 * @flags:	VU_VERSION, VU_REPLY, VU_NEED_REPLY
 * @size:	payload length
 * @payload:	what the request carries
 */
struct vu_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		struct {
			uint32_t index;
			uint32_t num;
		} state;
		struct {
			uint32_t index;
			uint32_t flags;
			uint64_t desc;
			uint64_t used;
			uint64_t avail;
			uint64_t log;
		} addr;
		struct {
			uint64_t size;
			uint64_t offset;
		} log;
		struct {
			uint32_t direction;
			uint32_t phase;
		} transfer;
		struct {
			uint32_t nregions;
			uint32_t padding;
			struct {
				uint64_t gpa;
				uint64_t size;
				uint64_t uva;
				uint64_t mmap_offset;
			} r[VQ_MEM_REGIONS_MAX];
		} mem;
		uint8_t raw[VU_PAYLOAD_MAX];
	} payload;
};

#define VU_MSG_HDR_LEN		(3 * sizeof(uint32_t))

/**
 * struct vu_queue - one ring of the device, and its eventfds
 * @vq:		the ring in guest memory
 * @num:	size the front-end set, for the ring's set-up
 * @desc:	the front-end's address of the descriptor table, 0 if none
 * @avail:	of the available ring
 * @used:	of the used ring
 * @kick:	eventfd the guest kicks, -1 if none
 * @call:	eventfd we signal, -1 if none
 * @enabled:	the front-end enabled the ring
 * @started:	its kick eventfd came, and it is set up
 */
struct vu_queue {
	struct virtq vq;
	unsigned int num;
	uint64_t desc;
	uint64_t avail;
	uint64_t used;
	int kick;
	int call;
	bool enabled;
	bool started;
};

/* The session with the front-end, and migration's part of it: the dirty
 * page log (mapped here), the descriptor of a device state transfer it
 * asked for, until the main loop runs it (vu_state_take()), and how that
 * went, for its check. Owner: this file.
 */
static struct {
	uint64_t features;
	uint64_t protocol;
	struct vq_mem mem;
	struct vu_queue q[VU_QUEUES];
	struct vq_log log;
	void *log_map;
	size_t log_map_len;
	int state_fd;
	bool state_save;
	bool state_ok;
} vu = { .q = { { .kick = -1, .call = -1 }, { .kick = -1, .call = -1 } },
	 .state_fd = -1 };

static struct vu_msg vu_msg;
static struct vq_elem vu_elem;

/**
 * struct vu_tx_chain - a receive chain that vu_tx_reserve() took
 * @hdr:	its first buffer, where the frame starts, if it's the first
 *		chain of a frame, else NULL
 * @head:	its head, to give it back
 * @cap:	bytes of its buffers that frame may fill
 */
struct vu_tx_chain {
	uint8_t *hdr;
	uint16_t head;
	uint32_t cap;
};

/* The room the last vu_tx_reserve() took, in order, until vu_tx_commit() */
static struct {
	uint16_t start;		/* the receive ring's last_avail before */
	unsigned int chains;
	struct vu_tx_chain c[LINK_TX_CHAINS_MAX];
} vu_tx;
/* The guest's frames whose payload is read where it is: their chains, given
 * back at the end of the input batch (vu_rx_done()), and the payload past
 * each one's head, by receive slot
 */
static struct {
	unsigned int n;
	uint16_t head[LINK_RX_MAX];
	struct iovec tail[LINK_RX_MAX][VQ_IOV_MAX];
} vu_rx_held;
static uint64_t vu_bad_chains, vu_no_buffers, vu_frames_copied, vu_frames_direct;
static uint64_t vu_rx_frames_copied, vu_rx_frames_in_place;
static unsigned int vu_reads;	/* in this wake-up */

/**
 * vu_has() - did the guest take this feature?
 * @bit:	feature bit
 *
 * Return: true if negotiated
 */
static bool vu_has(unsigned int bit)
{
	return vu.features & (1ULL << bit);
}

/**
 * vu_ready() - may a ring carry frames?
 * @q:		ring
 *
 * Return: true once it is set up, started and enabled
 */
static bool vu_ready(const struct vu_queue *q)
{
	return q->started && q->enabled && q->vq.desc;
}

/**
 * vu_notify() - publish what we gave back, and signal if the guest wants it
 * @q:		ring
 */
static void vu_notify(struct vu_queue *q)
{
	static const uint64_t one = 1;

	vq_publish(&q->vq);
	if (vq_notify_due(&q->vq) && q->call >= 0 &&
	    write(q->call, &one, sizeof(one)) < 0)
		debug("vhost-user: call eventfd: %s", strerror(errno));
}

/**
 * vu_kick_self() - kick a ring ourselves: the loop comes back to it
 * @q:		ring, with a kick eventfd
 */
static void vu_kick_self(const struct vu_queue *q)
{
	static const uint64_t one = 1;

	if (write(q->kick, &one, sizeof(one)) < 0)
		debug("vhost-user: kick eventfd: %s", strerror(errno));
}

/**
 * vu_ring_stop() - stop a ring that makes no sense, until set up again
 * @q:		ring
 * @idx:	its index
 */
static void vu_ring_stop(struct vu_queue *q, unsigned int idx)
{
	err_ratelimit("vhost-user: ring %u is broken: stopped until the "
		      "front-end sets it up again", idx);
	q->started = false;
}

/**
 * vu_caps() - what the guest negotiated to take from us
 * @c:		execution context
 *
 * Return: checksum offload with GUEST_CSUM, segmentation with both TSOs
 */
static struct link_caps vu_caps(const struct ctx *c)
{
	(void)c;
	return (struct link_caps){
		.csum = vu_has(VIRTIO_NET_F_GUEST_CSUM),
		.tso = vu_has(VIRTIO_NET_F_GUEST_CSUM) &&
		       vu_has(VIRTIO_NET_F_GUEST_TSO4) &&
		       vu_has(VIRTIO_NET_F_GUEST_TSO6),
		/* Payload written in place is never read back to be summed */
		.tx_direct = vu_has(VIRTIO_NET_F_GUEST_CSUM),
	};
}

/**
 * vu_hdr_out() - read a chain's virtio-net header
 * @e:		element
 * @hdr:	header, set
 *
 * Return: frame length past the header, -1 if the chain is shorter than one
 */
static ssize_t vu_hdr_out(const struct vq_elem *e,
			  struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	size_t off = 0, len = 0;
	unsigned int i;

	for (i = 0; i < e->n_out; i++) {
		size_t h = off < VU_HDR_LEN ? MIN(e->out[i].iov_len,
						  VU_HDR_LEN - off) : 0;

		memcpy((uint8_t *)hdr + off, e->out[i].iov_base, h);
		off += h;
		len += e->out[i].iov_len - h;
	}
	return off < VU_HDR_LEN ? -1 : (ssize_t)len;
}

/**
 * vu_frame_out() - a chain's frame: its first bytes copied out, the rest
 *		    left where it is
 * @e:		element, with a whole virtio-net header (vu_hdr_out())
 * @buf:	where the first bytes go
 * @copy:	how many to copy (all: the frame's length)
 * @tail:	the rest, in guest memory, set; room for VQ_IOV_MAX buffers
 *
 * Return: the tail's buffers
 */
static unsigned int vu_frame_out(const struct vq_elem *e, uint8_t *buf,
				 size_t copy, struct iovec *tail)
{
	size_t skip = VU_HDR_LEN;
	unsigned int i, n = 0;

	for (i = 0; i < e->n_out; i++) {
		const uint8_t *p = e->out[i].iov_base;
		size_t len = e->out[i].iov_len, h = MIN(len, skip), c;

		skip -= h;
		c = MIN(len - h, copy);
		memcpy(buf, p + h, c);
		buf += c;
		copy -= c;
		if (len - h - c)
			tail[n++] = (struct iovec){ (void *)(p + h + c),
						    len - h - c };
	}
	return n;
}

/**
 * vu_frame_is_tcp() - is a frame a TCP segment, by its first bytes?
 * @frame:	frame, at least VU_RX_HEAD bytes of it
 *
 * Return: true for IPv4 or IPv6 carrying TCP right after its header
 */
static bool vu_frame_is_tcp(const uint8_t *frame)
{
	uint16_t type = frame[12] << 8 | frame[13];

	return (type == ETH_P_IP &&
		frame[ETH_HLEN + offsetof(struct iphdr, protocol)] ==
		IPPROTO_TCP) ||
	       (type == ETH_P_IPV6 &&
		frame[ETH_HLEN + offsetof(struct ipv6hdr, nexthdr)] ==
		IPPROTO_TCP);
}

/**
 * vu_rx_in_place() - take a frame: its payload left in the guest's buffers,
 *		      or copied whole
 * @e:		element, with a whole virtio-net header (vu_hdr_out())
 * @buf:	where the frame, or its first VU_RX_HEAD bytes, go
 * @len:	frame length
 * @slot:	receive slot of @buf
 * @rx:		frame, set
 *
 * A TCP segment's headers are copied (VU_RX_HEAD bytes: checked once, where
 * the guest can't change them, aligned), and TCP writes its payload to the
 * socket from where it is, before the chain goes back (vu_rx_done()). Not
 * under --pcap, whose frames are whole.
 *
 * Return: true if the payload was left in place: the chain is held
 */
static bool vu_rx_in_place(const struct vq_elem *e, uint8_t *buf, size_t len,
			   unsigned int slot, struct link_rx *rx)
{
	struct iovec *tail = vu_rx_held.tail[slot];
	unsigned int n;

	if (len > VU_RX_HEAD && !pcap_active()) {
		n = vu_frame_out(e, buf, VU_RX_HEAD, tail);
		if (vu_frame_is_tcp(buf)) {
			rx->len = VU_RX_HEAD;
			rx->tail = (struct pkt_tail){ tail, n,
						      len - VU_RX_HEAD };
			return true;
		}
	}
	vu_frame_out(e, buf, len, tail);	/* whole, then */
	return false;
}

/**
 * vu_frame_len() - the length of a transmit chain's frame, its virtio-net
 *		    header checked
 * @e:		element
 * @hdr:	the header, set
 *
 * Return: length, or -1 if the frame can't be taken (counted as dropped)
 */
static ssize_t vu_frame_len(const struct vq_elem *e,
			    struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	ssize_t len = vu_hdr_out(e, hdr);

	if (len < 0 || len > FRAME_BUF_SIZE - FRAME_PAD) {
		pkt_drop(DROP_ETH_SHORT);
		return -1;
	}
	if (!link_vnet_gso_ok(&hdr->hdr, vu_has(VIRTIO_NET_F_HOST_TSO4) ||
					 vu_has(VIRTIO_NET_F_HOST_TSO6))) {
		pkt_drop(DROP_TAP_GSO);
		return -1;
	}
	return len;
}

/**
 * vu_recv() - take the guest's frames from its transmit ring
 * @c:		execution context
 * @events:	epoll events (of the kick eventfd)
 * @rx:		frames, set
 * @first:	first receive slot
 * @max:	at most this many
 *
 * Return: frames taken, fewer than @max once none is left this wake-up
 */
static unsigned int vu_recv(struct ctx *c, uint32_t events,
			    struct link_rx *rx, unsigned int first,
			    unsigned int max)
{
	struct vu_queue *q = &vu.q[VU_TX];
	unsigned int n = 0, given = 0;

	(void)c;
	(void)events;
	while (vu_ready(q) && n < max && vu_reads < LINK_READS_MAX) {
		uint8_t *buf = link_rx_slot(first + n) + FRAME_PAD;
		struct virtio_net_hdr_mrg_rxbuf hdr;
		int ret = vq_pop(&q->vq, &vu.mem, &vu_elem);
		ssize_t len;

		if (ret == VQ_BROKEN) {
			vu_ring_stop(q, VU_TX);
			break;
		}
		if (!ret) {
			if (!vq_kicks_wanted(&q->vq))
				break;
			continue;
		}
		vu_reads++;
		given++;
		if (ret == VQ_BAD_CHAIN) {
			vu_bad_chains++;
			vq_push(&q->vq, vu_elem.head, 0);
			continue;
		}
		if ((len = vu_frame_len(&vu_elem, &hdr)) < 0) {
			vq_push(&q->vq, vu_elem.head, 0);
			continue;
		}
		rx[n] = (struct link_rx){ .data = buf, .len = len,
					  .gso_size = hdr.hdr.gso_type ?
						      hdr.hdr.gso_size : 0 };
		if (vu_rx_in_place(&vu_elem, buf, len, first + n, &rx[n])) {
			vu_rx_held.head[vu_rx_held.n++] = vu_elem.head;
			vu_rx_frames_in_place++;
		} else {
			vq_push(&q->vq, vu_elem.head, 0);
			vu_rx_frames_copied++;
		}
		n++;
	}
	if (given)
		vu_notify(q);
	if (n < max) {
		/* This wake-up's share read: frames left, or added since we
		 * ask for the guest's next kick (its share may have emptied
		 * the ring, and the guest kicks only past the index we last
		 * asked for), bring a kick of our own, as a readable tap
		 * device would
		 */
		if (vu_reads >= LINK_READS_MAX && vu_ready(q) &&
		    (!vq_empty(&q->vq) || vq_kicks_wanted(&q->vq)))
			vu_kick_self(q);
		vu_reads = 0;
	}
	return n;
}

/**
 * vu_rx_done() - the input batch is over: give back the chains whose
 *		  payload was read in place (TCP wrote it, tcp_tx_flush())
 * @c:		execution context
 */
static void vu_rx_done(struct ctx *c)
{
	struct vu_queue *q = &vu.q[VU_TX];
	unsigned int i;

	(void)c;
	if (!vu_rx_held.n)
		return;
	if (vu_ready(q)) {
		for (i = 0; i < vu_rx_held.n; i++)
			vq_push(&q->vq, vu_rx_held.head[i], 0);
		vu_notify(q);
	}
	vu_rx_held.n = 0;
}

/**
 * vu_copy_in() - write part of a frame into a chain's writable buffers
 * @e:		element
 * @skip:	bytes of its buffers already written
 * @data:	what to write
 * @len:	its length
 *
 * Return: bytes written, less than @len if the chain is full
 */
static size_t vu_copy_in(const struct vq_elem *e, size_t skip,
			 const uint8_t *data, size_t len)
{
	size_t done = 0;
	unsigned int i;

	for (i = 0; i < e->n_in && done < len; i++) {
		size_t n = e->in[i].iov_len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n = MIN(n - skip, len - done);
		memcpy((uint8_t *)e->in[i].iov_base + skip, data + done, n);
		done += n;
		skip = 0;
	}
	return done;
}

/**
 * vu_send_frame() - write one frame into the guest's receive buffers
 * @q:		receive ring, ready
 * @f:		frame
 *
 * The header goes first, in the first chain; with mergeable buffers the
 * frame continues in as many chains as it needs, and the header says how
 * many. Without enough buffers, the chains taken are put back.
 *
 * Return: 0 on success, -1 if the guest has no room for it now
 */
static int vu_send_frame(struct vu_queue *q, const struct link_frame *f)
{
	struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = 0 };
	uint16_t start = q->vq.last_avail, heads = q->vq.used_idx;
	size_t done = 0, len = f->iov.iov_len;
	const uint8_t *data = f->iov.iov_base;
	uint8_t *hdr_at = NULL;

	link_vnet_hdr_fill(&hdr.hdr, f);
	while (done < len || !hdr_at) {
		int ret = vq_pop(&q->vq, &vu.mem, &vu_elem);
		size_t skip = 0, n;

		if (ret == VQ_BAD_CHAIN) {
			vu_bad_chains++;
			vq_push(&q->vq, vu_elem.head, 0);
			continue;
		}
		if (ret != 1 || (hdr_at && !vu_has(VIRTIO_NET_F_MRG_RXBUF)) ||
		    (!hdr_at && (!vu_elem.n_in ||
				 vu_elem.in[0].iov_len < VU_HDR_LEN))) {
			q->vq.last_avail = start;	/* put back */
			q->vq.used_idx = heads;
			if (ret == VQ_BROKEN)
				vu_ring_stop(q, VU_RX);
			return -1;
		}
		if (!hdr_at) {
			hdr_at = vu_elem.in[0].iov_base;
			skip = VU_HDR_LEN;
		}
		n = vu_copy_in(&vu_elem, skip, data + done, len - done);
		done += n;
		hdr.num_buffers++;
		vq_push(&q->vq, vu_elem.head, skip + n);
	}
	memcpy(hdr_at, &hdr, VU_HDR_LEN);
	return 0;
}

/**
 * vu_send() - write frames into the guest's receive ring
 * @c:		execution context
 * @f:		frames
 * @n:		how many
 *
 * Return: frames written: without buffers the rest is dropped, like a
 *	   full queue, unless the caller takes it back (vu_want_room())
 */
static int vu_send(struct ctx *c, const struct link_frame *f, unsigned int n)
{
	struct vu_queue *q = &vu.q[VU_RX];
	unsigned int i;

	(void)c;
	if (!vu_ready(q))
		return 0;
	for (i = 0; i < n && !vu_send_frame(q, &f[i]); i++)
		;
	vu_frames_copied += i;
	vu_no_buffers += n - i;
	if (i)
		vu_notify(q);
	return i;
}

/**
 * vu_tx_frame() - take receive chains for one frame, its payload buffers
 * @q:		receive ring, ready
 * @tx:		payload buffers so far, added to
 * @head_room:	bytes before the payload: the virtio-net header, then the
 *		frame's own headers, in its first buffer
 *
 * Return: 0 on success, -1 if the guest has no room for one now (or a
 *	   chain the copy path must deal with comes first)
 */
static int vu_tx_frame(struct vu_queue *q, struct link_tx *tx,
		       size_t head_room)
{
	size_t need = head_room + tx->data_max, have = 0;

	while (have < need) {
		struct vu_tx_chain *ch;
		unsigned int i;

		if (vu_tx.chains == LINK_TX_CHAINS_MAX ||
		    (have && !vu_has(VIRTIO_NET_F_MRG_RXBUF)) ||
		    vq_pop(&q->vq, &vu.mem, &vu_elem) != 1 || !vu_elem.n_in ||
		    (!have && vu_elem.in[0].iov_len < head_room))
			return -1;
		ch = &vu_tx.c[vu_tx.chains++];
		*ch = (struct vu_tx_chain){ .head = vu_elem.head };
		for (i = 0; i < vu_elem.n_in && have < need; i++) {
			uint8_t *p = vu_elem.in[i].iov_base;
			size_t len = vu_elem.in[i].iov_len;

			if (!have) {
				ch->hdr = p;
				p += head_room;
				len -= head_room;
				have = ch->cap = head_room;
			}
			len = MIN(len, need - have);
			if (!len)
				continue;
			if (tx->iovcnt == LINK_TX_IOV_MAX)
				return -1;
			tx->iov[tx->iovcnt++] = (struct iovec){ p, len };
			have += len;
			ch->cap += len;
		}
	}
	return 0;
}

/**
 * vu_tx_reserve() - room for frames in the guest's receive buffers
 * @c:		execution context
 * @tx:		frames wanted, their sizes; set: payload buffers, frames
 *
 * Each frame takes whole chains, as many as it needs with mergeable
 * buffers, else one; a frame there's no room for is put back, and so is
 * a chain that makes no sense (the copy path gives it back, counted).
 *
 * Return: frames there is room for
 */
static unsigned int vu_tx_reserve(struct ctx *c, struct link_tx *tx)
{
	struct vu_queue *q = &vu.q[VU_RX];
	size_t head_room = VU_HDR_LEN + tx->hdr_len;
	unsigned int f;

	(void)c;
	tx->iovcnt = 0;
	vu_tx.start = q->vq.last_avail;
	vu_tx.chains = 0;
	if (!vu_ready(q))
		return tx->frames = 0;
	for (f = 0; f < tx->frames; f++) {
		uint16_t avail = q->vq.last_avail;
		unsigned int chains = vu_tx.chains, iovcnt = tx->iovcnt;

		if (vu_tx_frame(q, tx, head_room)) {
			q->vq.last_avail = avail;
			vu_tx.chains = chains;
			tx->iovcnt = iovcnt;
			break;
		}
	}
	return tx->frames = f;
}

/**
 * vu_tx_commit() - give the guest the frames written in reserved chains
 * @c:		execution context
 * @tx:		from vu_tx_reserve()
 * @f:		frames' headers, the first @tx->hdr_len bytes of each
 * @n:		frames written
 * @bytes:	payload bytes written, in all: each frame but the last is full
 *
 * The chains past the last frame's payload go back to the ring, unused.
 */
static void vu_tx_commit(struct ctx *c, const struct link_tx *tx,
			 const struct link_frame *f, unsigned int n,
			 size_t bytes)
{
	struct vu_queue *q = &vu.q[VU_RX];
	unsigned int ch = 0, k;

	(void)c;
	for (k = 0; k < n && ch < vu_tx.chains; k++) {
		size_t data = MIN(bytes, tx->data_max);
		size_t left = VU_HDR_LEN + tx->hdr_len + data;
		struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = 0 };
		uint8_t *at = vu_tx.c[ch].hdr;

		bytes -= data;
		link_vnet_hdr_fill(&hdr.hdr, &f[k]);
		memcpy(at + VU_HDR_LEN, f[k].iov.iov_base, tx->hdr_len);
		do {
			size_t len = MIN(vu_tx.c[ch].cap, left);

			vq_push(&q->vq, vu_tx.c[ch++].head, len);
			hdr.num_buffers++;
			left -= len;
		} while (left && ch < vu_tx.chains && !vu_tx.c[ch].hdr);
		memcpy(at, &hdr, VU_HDR_LEN);
	}
	vu_frames_direct += k;
	q->vq.last_avail = vu_tx.start + ch;	/* the rest back */
	vu_tx.chains = 0;
	if (n)
		vu_notify(q);
}

/**
 * vu_want_room() - tell the link layer when the guest adds receive buffers
 * @c:		execution context
 *
 * Its kick on the receive ring says so (vu_kick_handler()); buffers it
 * added before it was asked to kick bring none: those count at once.
 */
static void vu_want_room(struct ctx *c)
{
	struct vu_queue *q = &vu.q[VU_RX];

	(void)c;
	if (vu_ready(q) && vq_kicks_wanted(&q->vq))
		link_room_back();
}

/**
 * vu_mem_unmap() - forget the guest's memory
 */
static void vu_mem_unmap(void)
{
	unsigned int i;

	for (i = 0; i < vu.mem.n; i++)
		munmap(vu.mem.r[i].map, vu.mem.r[i].map_len);
	vu.mem.n = 0;
}

/**
 * vu_log_apply() - log the rings' writes to guest memory, or stop: while
 *		    the front-end negotiated VHOST_F_LOG_ALL and gave a log
 */
static void vu_log_apply(void)
{
	const struct vq_log *log = vu_has(VU_F_LOG_ALL) && vu.log.bits ?
				   &vu.log : NULL;
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++)
		vu.q[i].vq.log = log;
}

/**
 * vu_log_unmap() - forget the dirty page log
 */
static void vu_log_unmap(void)
{
	if (vu.log_map)
		munmap(vu.log_map, vu.log_map_len);
	vu.log_map = NULL;
	vu.log = (struct vq_log){ NULL, 0 };
	vu_log_apply();
}

/**
 * vu_log_base() - SET_LOG_BASE: map the log of the pages we write
 * @m:		message: size and offset of the log in the descriptor, a
 *		reply in it
 * @fds:	the log's descriptor
 * @nfds:	how many came
 *
 * Return: 1 to reply with @m (the front-end waits for one), -1 if the log
 *	   can't be mapped
 */
static int vu_log_base(struct vu_msg *m, const int *fds, unsigned int nfds)
{
	uint64_t size = m->payload.log.size, off = m->payload.log.offset;
	size_t len = size + off;
	void *p;

	if (nfds != 1 || m->size < sizeof(m->payload.log) || !size ||
	    len < size || len > SIZE_MAX / 2)
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 fds[0], 0);
	if (p == MAP_FAILED) {
		err("vhost-user: can't map the dirty page log: %s",
		    strerror(errno));
		return -1;
	}
	vu_log_unmap();
	vu.log_map = p;
	vu.log_map_len = len;
	vu.log = (struct vq_log){ (uint8_t *)p + off, size };
	vu_log_apply();
	m->payload.u64 = 0;
	m->size = sizeof(m->payload.u64);
	return 1;
}

/**
 * vu_state_fd() - SET_DEVICE_STATE_FD: the front-end migrates the guest
 *		   and wants our state written to, or read from, a pipe
 * @m:		message, the reply in it
 * @fds:	descriptors that came with it: the one taken is set to -1
 * @nfds:	how many
 *
 * The transfer runs once this message is answered (vu_state_take()): the
 * front-end reads or writes the other end after our reply. We use its
 * pipe, and give none of ours.
 *
 * Return: 1, to reply with @m: success, or an error code
 */
static int vu_state_fd(struct vu_msg *m, int *fds, unsigned int nfds)
{
	uint32_t dir = m->payload.transfer.direction;
	bool ok = nfds == 1 && fds[0] >= 0 &&
		  m->size >= sizeof(m->payload.transfer) &&
		  (vu.protocol & (1ULL << VU_PROTOCOL_F_DEVICE_STATE)) &&
		  (dir == VU_STATE_SAVE || dir == VU_STATE_LOAD) &&
		  m->payload.transfer.phase == VU_STATE_STOPPED;

	if (ok) {
		if (vu.state_fd >= 0)
			close(vu.state_fd);
		vu.state_fd = fds[0];
		fds[0] = -1;
		vu.state_save = dir == VU_STATE_SAVE;
		vu.state_ok = false;
	} else {
		err("vhost-user: device state transfer refused (direction %u,"
		    " phase %u)", dir, m->payload.transfer.phase);
	}
	m->payload.u64 = VU_STATE_NOFD | (ok ? 0 : 1);
	m->size = sizeof(m->payload.u64);
	return 1;
}

/**
 * vu_state_take() - a device state transfer the front-end asked for
 * @save:	set: true if we write our state, false if we read it
 *
 * Return: the pipe's descriptor, now the caller's, -1 if none is due
 */
int vu_state_take(bool *save)
{
	int fd = vu.state_fd;

	vu.state_fd = -1;
	*save = vu.state_save;
	return fd;
}

/**
 * vu_running() - are both rings started? After a migration's device state
 *		  was saved, the guest runs here again: the move failed
 *
 * Return: true if so
 */
bool vu_running(void)
{
	return vu_ready(&vu.q[VU_RX]) && vu_ready(&vu.q[VU_TX]);
}

/**
 * vu_state_done() - how the transfer went, for CHECK_DEVICE_STATE
 * @ok:		it did, whole
 */
void vu_state_done(bool ok)
{
	vu.state_ok = ok;
}

/**
 * vu_queue_reset() - a ring back to nothing, its eventfds closed
 * @c:		execution context
 * @q:		ring
 */
static void vu_queue_reset(struct ctx *c, struct vu_queue *q)
{
	if (q->kick >= 0) {
		epoll_ref_del(c, q->kick);
		close(q->kick);
	}
	if (q->call >= 0)
		close(q->call);
	memset(q, 0, sizeof(*q));
	q->kick = q->call = -1;
	if (q == &vu.q[VU_TX])
		vu_rx_held.n = 0;	/* chains of a ring that's gone */
}

/**
 * vu_reset() - end the session's state: rings, memory, features
 * @c:		execution context
 */
static void vu_reset(struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++)
		vu_queue_reset(c, &vu.q[i]);
	vu_mem_unmap();
	vu_log_unmap();
	if (vu.state_fd >= 0)
		close(vu.state_fd);
	vu.state_fd = -1;
	vu.features = vu.protocol = 0;
}

/**
 * vu_ring_setup() - find a ring in guest memory, from what the front-end
 *		     said
 * @q:		ring
 *
 * Return: 0 on success, or if its addresses aren't there yet; -1 if they
 *	   are wrong
 */
static int vu_ring_setup(struct vu_queue *q)
{
	q->vq.desc = NULL;
	if (!q->desc)
		return 0;
	q->vq.event_idx = vu_has(VIRTIO_RING_F_EVENT_IDX);
	vu_log_apply();
	return vq_setup(&q->vq, &vu.mem, q->num, q->desc, q->avail, q->used) ?
	       -1 : 0;
}

/**
 * vu_queue_of() - the ring a message names
 * @index:	ring index from the message
 *
 * Return: ring, NULL if there's no such ring
 */
static struct vu_queue *vu_queue_of(uint32_t index)
{
	return index < VU_QUEUES ? &vu.q[index] : NULL;
}

/**
 * vu_mem_table() - SET_MEM_TABLE: map the guest's memory regions
 * @m:		message
 * @fds:	one descriptor per region
 * @nfds:	how many came
 *
 * Rings already set up are found again in the new memory: one that isn't
 * there any more stays unusable until the front-end sets it up again.
 *
 * Return: 0 on success, -1 if the table is wrong or can't be mapped
 */
static int vu_mem_table(const struct vu_msg *m, const int *fds,
			unsigned int nfds)
{
	unsigned int i, n = m->payload.mem.nregions;
	int ret = 0;

	if (!n || n > VQ_MEM_REGIONS_MAX || n != nfds ||
	    m->size < 8 + n * sizeof(m->payload.mem.r[0]))
		return -1;
	vu_mem_unmap();
	for (i = 0; i < n; i++) {
		const typeof(m->payload.mem.r[0]) *w = &m->payload.mem.r[i];
		struct vq_region *r = &vu.mem.r[i];
		size_t len = w->size + w->mmap_offset;
		void *p;

		if (!w->size || len < w->size || len > SIZE_MAX / 2) {
			ret = -1;
			break;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_NORESERVE, fds[i], 0);
		if (p == MAP_FAILED) {
			err("vhost-user: can't map guest memory: %s",
			    strerror(errno));
			ret = -1;
			break;
		}
		*r = (struct vq_region){ w->gpa, w->size, w->uva,
					 (uint8_t *)p + w->mmap_offset, p,
					 len };
		vu.mem.n++;
	}
	for (i = 0; i < VU_QUEUES; i++)
		vu_ring_setup(&vu.q[i]);
	return ret;
}

/**
 * vu_ring_started() - a ring may work now: interrupt the guest once, and
 *		       what waits for room on the receive ring tries again
 * @q:		ring that changed
 *
 * After a migration, the guest may wait for an interrupt the source's
 * QEMU never delivered (for chains we used just before it stopped): with
 * event indices, none would come until the guest asks again, which it
 * doesn't while it waits. One more interrupt than needed is harmless. And
 * a guest whose receive buffers are there already won't kick for them: the
 * target's receive ring starts full of them.
 */
static void vu_ring_started(const struct vu_queue *q)
{
	static const uint64_t one = 1;
	char str[200];

	if (!vu_ready(q))
		return;
	if (log_debug_enabled()) {
		vq_state_str(&q->vq, str, sizeof(str));
		debug("vhost-user: %s ring started: %s, call %d",
		      q == &vu.q[VU_RX] ? "receive" : "transmit", str, q->call);
	}
	if (q->call >= 0 && write(q->call, &one, sizeof(one)) < 0)
		debug("vhost-user: call eventfd: %s", strerror(errno));
	if (q == &vu.q[VU_RX])
		link_room_back();
}

/**
 * vu_vring_fd() - SET_VRING_KICK or SET_VRING_CALL: a ring's eventfd
 * @c:		execution context
 * @m:		message
 * @fds:	descriptors that came with it: the one taken is set to -1
 * @nfds:	how many
 *
 * A kick eventfd starts the ring (and enables it, without the protocol
 * features, which otherwise do that with SET_VRING_ENABLE).
 *
 * Return: 0 on success, -1 if the ring or the descriptor is wrong
 */
static int vu_vring_fd(struct ctx *c, const struct vu_msg *m, int *fds,
		       unsigned int nfds)
{
	struct vu_queue *q = vu_queue_of(m->payload.u64 & VU_VRING_IDX_MASK);
	bool nofd = m->payload.u64 & VU_VRING_NOFD;
	int fd = nofd || nfds != 1 ? -1 : fds[0], *slot;

	if (!q || (!nofd && fd < 0))
		return -1;
	slot = m->request == VU_SET_VRING_KICK ? &q->kick : &q->call;
	if (*slot >= 0) {
		if (slot == &q->kick)
			epoll_ref_del(c, *slot);
		close(*slot);
	}
	*slot = fd;
	if (fd >= 0)
		fds[0] = -1;
	if (slot != &q->kick) {
		/* A new call eventfd (the front-end masked or unmasked the
		 * guest's interrupt, or started the ring): what we signalled
		 * on the old one may be lost, signal again
		 */
		q->vq.signalled_unknown = true;
		vu_ring_started(q);
		return 0;
	}
	q->started = fd >= 0;
	if (!vu_has(VU_F_PROTOCOL_FEATURES))
		q->enabled = true;
	if (fd >= 0)
		epoll_ref_add(c, fd, EPOLL_TYPE_VHOST_KICK, q - vu.q, EPOLLIN);
	vu_ring_started(q);
	return 0;
}

/**
 * vu_vring_state() - the messages on a ring's size, base and enabling
 * @m:		message: GET_VRING_BASE gets its reply in it
 *
 * Return: 1 to reply with @m, 0 on success, -1 if the ring or value is
 *	   wrong
 */
static int vu_vring_state(struct vu_msg *m)
{
	struct vu_queue *q = vu_queue_of(m->payload.state.index);
	uint32_t num = m->payload.state.num;

	if (!q)
		return -1;
	switch (m->request) {
	case VU_SET_VRING_NUM:
		if (!num || num > VQ_SIZE_MAX || (num & (num - 1)))
			return -1;
		q->num = num;
		return 0;
	case VU_SET_VRING_BASE:
		q->vq.last_avail = q->vq.used_idx = q->vq.signalled = num;
		q->vq.signalled_unknown = true;
		return 0;
	case VU_GET_VRING_BASE:
		q->started = false;	/* the front-end stops the ring */
		m->payload.state.num = q->vq.last_avail;
		m->size = sizeof(m->payload.state);
		return 1;
	default:
		q->enabled = num;
		vu_ring_started(q);
		return 0;
	}
}

/**
 * vu_vring_addr() - SET_VRING_ADDR: where a ring is
 * @m:		message
 *
 * Return: 0 on success, -1 if the ring or its addresses are wrong
 */
static int vu_vring_addr(const struct vu_msg *m)
{
	struct vu_queue *q = vu_queue_of(m->payload.addr.index);

	if (!q || m->size < sizeof(m->payload.addr))
		return -1;
	q->desc = m->payload.addr.desc;
	q->avail = m->payload.addr.avail;
	q->used = m->payload.addr.used;
	q->vq.used_logged = m->payload.addr.flags & VU_VRING_F_LOG;
	q->vq.used_log = m->payload.addr.log;
	if (!vu_ring_setup(q))
		return 0;
	q->desc = 0;	/* wrong: forgotten, not tried again */
	return -1;
}

/**
 * vu_features() - GET_FEATURES, SET_FEATURES and their protocol twins
 * @c:		execution context
 * @m:		message, a reply in it for the GET_ ones
 *
 * Return: 1 to reply with @m, 0 on success, -1 for features we didn't offer
 */
static int vu_features(const struct ctx *c, struct vu_msg *m)
{
	unsigned int i;

	switch (m->request) {
	case VU_GET_FEATURES:
	case VU_GET_PROTOCOL_FEATURES:
		m->payload.u64 = m->request == VU_GET_FEATURES ?
				 VU_FEATURES : VU_PROTOCOL_FEATURES;
		m->size = sizeof(m->payload.u64);
		return 1;
	case VU_SET_PROTOCOL_FEATURES:
		if (m->payload.u64 & ~VU_PROTOCOL_FEATURES)
			return -1;
		vu.protocol = m->payload.u64;
		return 0;
	default:
		if (m->payload.u64 & ~VU_FEATURES)
			return -1;
		vu.features = m->payload.u64;
		for (i = 0; i < VU_QUEUES; i++)
			vu.q[i].vq.event_idx = vu_has(VIRTIO_RING_F_EVENT_IDX);
		vu_log_apply();
		link_caps_update(c);
		return 0;
	}
}

/**
 * vu_guest_moved() - SEND_RARP: the guest arrived here by migration, its
 *		      MAC address is this
 * @m:		message: the address, in the first bytes of the payload
 *
 * Our link has nothing to announce the guest to: its MAC is where our
 * frames go, from now on, if it is a unicast one.
 *
 * Return: 0 on success, -1 if the message is short
 */
static int vu_guest_moved(const struct vu_msg *m)
{
	const uint8_t *mac = m->payload.raw;
	static const uint8_t none[ETH_ADDR_LEN];

	if (m->size < ETH_ADDR_LEN)
		return -1;
	if (!(mac[0] & 1) && memcmp(mac, none, ETH_ADDR_LEN))
		link_guest_mac_seen(mac);
	return 0;
}

/**
 * vu_handle() - act on one message
 * @c:		execution context
 * @m:		message, a reply in it where one is due
 * @fds:	descriptors that came with it, -1 for those kept
 * @nfds:	how many
 *
 * Return: 1 to reply with @m, 0 on success, -1 on failure
 */
static int vu_handle(struct ctx *c, struct vu_msg *m, int *fds,
		     unsigned int nfds)
{
	switch (m->request) {
	case VU_GET_FEATURES:
	case VU_SET_FEATURES:
	case VU_GET_PROTOCOL_FEATURES:
	case VU_SET_PROTOCOL_FEATURES:
		return vu_features(c, m);
	case VU_SET_MEM_TABLE:
		return vu_mem_table(m, fds, nfds);
	case VU_SET_LOG_BASE:
		return vu_log_base(m, fds, nfds);
	case VU_SET_DEVICE_STATE_FD:
		return vu_state_fd(m, fds, nfds);
	case VU_CHECK_DEVICE_STATE:
		m->payload.u64 = vu.state_ok ? 0 : 1;
		m->size = sizeof(m->payload.u64);
		return 1;
	case VU_SET_VRING_NUM:
	case VU_SET_VRING_BASE:
	case VU_GET_VRING_BASE:
	case VU_SET_VRING_ENABLE:
		return vu_vring_state(m);
	case VU_SET_VRING_ADDR:
		return vu_vring_addr(m);
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
		return vu_vring_fd(c, m, fds, nfds);
	case VU_GET_QUEUE_NUM:
		m->payload.u64 = 1;	/* one pair */
		m->size = sizeof(m->payload.u64);
		return 1;
	case VU_RESET_OWNER:
		vu_reset(c);
		return 0;
	case VU_SEND_RARP:
		return vu_guest_moved(m);
	case VU_SET_OWNER:
	case VU_SET_LOG_FD:	/* the front-end reads the log when it wants */
	case VU_SET_VRING_ERR:	/* we report no ring errors */
	case VU_NET_SET_MTU:
		return 0;
	default:
		debug("vhost-user: request %u not supported", m->request);
		return -1;
	}
}

/**
 * vu_read() - read one message and its descriptors
 * @fd:		the front-end's socket
 * @m:		message, set
 * @fds:	descriptors, set
 * @nfds:	how many, set
 *
 * Return: 1 for a message, 0 if none is there, -1 if the front-end is gone
 *	   or broke the protocol
 */
static int vu_read(int fd, struct vu_msg *m, int *fds, unsigned int *nfds)
{
	char cbuf[CMSG_SPACE(VQ_MEM_REGIONS_MAX * sizeof(int))];
	struct iovec iov = { m, VU_MSG_HDR_LEN };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	*nfds = 0;
	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			*nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(cm), *nfds * sizeof(int));
		}
	}
	if (n != (ssize_t)VU_MSG_HDR_LEN || (mh.msg_flags & MSG_CTRUNC) ||
	    (m->flags & 0x3) != VU_VERSION ||
	    m->size > sizeof(m->payload))
		return -1;
	/* The payload follows at once: SO_RCVTIMEO bounds the wait */
	if (m->size && recv(fd, &m->payload, m->size, MSG_WAITALL) !=
	    (ssize_t)m->size)
		return -1;
	return 1;
}

/**
 * vu_reply() - send a reply, or the ack the front-end asked for
 * @fd:		the front-end's socket
 * @m:		message: its payload for a reply, the request otherwise
 * @ret:	what vu_handle() said
 */
static void vu_reply(int fd, struct vu_msg *m, int ret)
{
	if (ret != 1) {
		if (!(m->flags & VU_NEED_REPLY) ||
		    !(vu.protocol & (1ULL << VU_PROTOCOL_F_REPLY_ACK)))
			return;
		m->payload.u64 = ret ? 1 : 0;
		m->size = sizeof(m->payload.u64);
	}
	m->flags = VU_VERSION | VU_REPLY;
	if (sendmsg(fd, &(struct msghdr){ .msg_iov = (struct iovec[]){
			{ m, VU_MSG_HDR_LEN }, { &m->payload, m->size } },
			.msg_iovlen = 2 }, MSG_NOSIGNAL) < 0)
		debug("vhost-user: reply: %s", strerror(errno));
}

/**
 * vu_sock_handler() - a message from the front-end, or its end
 * @c:		execution context
 * @events:	epoll events of its socket
 */
void vu_sock_handler(struct ctx *c, uint32_t events)
{
	int fds[VQ_MEM_REGIONS_MAX], ret;
	unsigned int nfds, i;

	if (link_guest_lost())
		return;
	ret = vu_read(c->fd_tap, &vu_msg, fds, &nfds);
	if (ret > 0) {
		int done = vu_handle(c, &vu_msg, fds, nfds);

		if (done < 0)
			debug("vhost-user: request %u refused",
			      vu_msg.request);
		vu_reply(c->fd_tap, &vu_msg, done);
	}
	/* mmap() keeps the memory: only the rings' eventfds are kept */
	for (i = 0; i < nfds; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	if (ret < 0 || (!ret && (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)))) {
		info("vhost-user: front-end gone");
		link_guest_gone();
	}
}

/**
 * vu_kick_handler() - the guest kicked a ring
 * @c:		execution context
 * @idx:	ring index
 *
 * Return: true if the transmit ring has frames to take (the caller runs
 *	   the input layer), false for the receive ring: new buffers, for
 *	   what waits for room (link_room_back())
 */
bool vu_kick_handler(struct ctx *c, uint32_t idx)
{
	struct vu_queue *q = vu_queue_of(idx);
	uint64_t kicks;

	(void)c;
	if (!q || q->kick < 0)
		return false;
	if (read(q->kick, &kicks, sizeof(kicks)) < 0 && errno != EAGAIN)
		debug("vhost-user: kick eventfd: %s", strerror(errno));
	if (idx == VU_RX)
		link_room_back();
	return idx == VU_TX;
}

/**
 * vu_attach() - a front-end connected: start a session
 * @c:		execution context
 * @fd:		its socket
 */
static void vu_attach(struct ctx *c, int fd)
{
	struct timeval tv = { .tv_sec = 1 };

	/* A message's payload follows its header at once: bound the wait */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	vu_reset(c);
	c->fd_tap = fd;
	epoll_ref_add(c, fd, EPOLL_TYPE_TAP, 0, EPOLLIN | EPOLLRDHUP);
	info("vhost-user: front-end connected");
}

/**
 * vu_detach() - end the session: the front-end is gone
 * @c:		execution context
 */
static void vu_detach(struct ctx *c)
{
	vu_reset(c);
	link_caps_update(c);
	stream_guest_close(c);
}

/**
 * vu_stats() - log the rings' own counters
 */
void vu_stats(void)
{
	unsigned int i;

	info("vhost-user: frames to the guest written in place %llu, copied "
	     "%llu; from the guest read in place %llu, copied %llu; chains "
	     "refused %llu, frames without guest buffers %llu",
	     (unsigned long long)vu_frames_direct,
	     (unsigned long long)vu_frames_copied,
	     (unsigned long long)vu_rx_frames_in_place,
	     (unsigned long long)vu_rx_frames_copied,
	     (unsigned long long)vu_bad_chains,
	     (unsigned long long)vu_no_buffers);
	for (i = 0; i < VU_QUEUES; i++) {
		char s[200];

		if (!vu_ready(&vu.q[i]))
			continue;
		vq_state_str(&vu.q[i].vq, s, sizeof(s));
		info("vhost-user: %s ring: %s%s", i == VU_RX ? "receive" :
		     "transmit", s, i == VU_TX && vu_rx_held.n ?
		     ", chains held" : "");
	}
}

/**
 * vu_print_capabilities() - what libvirt asks a vhost-user back-end, and exit
 */
void vu_print_capabilities(void)
{
	printf("{\n  \"type\": \"net\"\n}\n");
	exit(EXIT_SUCCESS);
}

const struct link_ops vu_link = {
	.name = "vhost-user",
	.caps = vu_caps,
	.recv = vu_recv,
	.rx_done = vu_rx_done,
	.send = vu_send,
	.tx_reserve = vu_tx_reserve,
	.tx_commit = vu_tx_commit,
	.want_room = vu_want_room,
	.detach = vu_detach,
	.attach = vu_attach,
};
