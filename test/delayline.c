// SPDX-License-Identifier: GPL-2.0-or-later
/* delayline.c - user-space WAN emulator between two tap devices
 *
 * Build: gcc -Wall -Wextra -Werror -O2 -g -o test/delayline test/delayline.c
 *        (with test/tool_lib.h)
 *
 * Theory of operation
 * ===================
 *
 * The kernel of the test machines has no netem, so this tool plays the
 * part of a long, optionally slow and lossy link.  It opens one tap device
 * in each of two network namespaces and forwards Ethernet frames between
 * them.  Each direction is an independent "link":
 *
 *   tap (in) --read--> loss --> drop-tail queue --> serialiser --> delay
 *                                                         --write--> tap (out)
 *
 * Frames are read as soon as they are readable, timestamped with
 * CLOCK_MONOTONIC and given a due time:
 *
 *   due = max(now, link_free) + wire_bits / rate + delay
 *
 * where link_free is when the serialiser finishes the previous frame (no
 * rate cap: due = now + delay).  Due times are monotonic per direction, so
 * a FIFO is enough: the head of each queue decides when a timerfd
 * (TFD_TIMER_ABSTIME, hrtimer precision, no timer slack) fires next.
 *
 * Timer precision: on the virtual machines we run on, waking up from a
 * timer takes 60 to 300 us (interrupt delivery through the hypervisor),
 * which would add most of a millisecond to each round trip.  So the timer
 * is armed a margin ahead of the due time, and the last stretch is spun
 * with epoll_wait() and a zero timeout, which keeps serving the taps.  The
 * margin is the 90th percentile of the last WAKE_WIN timer wake-up
 * latencies (from sleep only), capped by --spin-us: spinning costs CPU only
 * for the part of the margin the wake-up did not use.  Percentiles, not a
 * mean: steal time gives the occasional wake-up of several milliseconds,
 * which no margin can cover and which must not drag the estimate along.
 * Under load, frames are due every few hundred microseconds and spinning
 * for each would take most of a core, so spinning draws on a budget of 5%
 * of wall-clock time (SPIN_SHARE_DIV, bursts up to SPIN_BURST_NS): when it
 * runs out, timers are armed for the due time itself.  A wake-up latency
 * of ~100 us is noise for a bulk transfer, and a lone ping still spins.
 *
 * The same latency hits the other end: a frame that wakes us up was queued
 * on the tap a wake-up latency before we read it.  The first frame read
 * after a blocking epoll_wait() is therefore timed at read time minus the
 * median wake-up latency (never before we went to sleep), so that the
 * one-way delay is the configured one (--no-wake-comp disables this).
 *
 * GSO: both taps are opened with IFF_VNET_HDR and offloads (TUN_F_TSO4/6,
 * optionally USO), so the sending kernel hands us TCP super-frames of up to
 * 64 KiB which we forward unchanged, header included: at 1 Gbit/s that is
 * ~2000 frames a second instead of ~83000.  The receiving kernel accepts
 * them as it would a GRO packet.  Everything that models the wire (rate,
 * queue limit, counters) uses the size of the segments the super-frame
 * stands for: each carries its own copy of the headers (hdrlen), and
 * gso_size bytes of payload.
 *
 * Drops happen per wire packet, not per super-frame: a lost or overflowing
 * segment is cut out by splitting the super-frame into runs of kept
 * segments, each rewritten as its own (GSO or plain) frame: IP length, IPv4
 * ID and header checksum, TCP sequence and flags (CWR on the first segment
 * only, FIN/PSH on the last only, as tcp_gso_segment() does), UDP length and
 * the pseudo-header checksum seed that NEEDS_CSUM frames carry.  Frames we
 * cannot parse are dropped or kept whole.
 *
 * Memory: one preallocated byte ring per direction, sized from the queue
 * limit, holds the frames (vnet header included) behind a small entry
 * header.  Frames are read straight into the ring; only split frames and
 * frames read while the ring had no room for a maximum-size frame go
 * through a per-direction scratch buffer.  Nothing is allocated once the
 * loop runs.
 *
 * The queue limit (--queue-bytes) counts wire bytes of everything held in a
 * direction, waiting for the serialiser or in flight, like netem's limit.
 *
 * Counters (per direction, printed on SIGUSR1 and at exit): frames written
 * to the tap, wire packets and bytes delivered, wire packets dropped by
 * queue overflow, random loss and write errors, and frames delivered more
 * than --late-us after their due time, which flags a run disturbed by steal
 * time or a starved CPU.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* also given by the Makefile: -D_GNU_SOURCE */
#endif
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#define TOOL_NAME		"delayline"
#include "tool_lib.h"		/* die(), now_ns(), NS_PER_* */

/* Newer than the headers shipped with gcc 12 on Debian 12 (Linux 6.1) */
#ifndef TUN_F_USO4
#define TUN_F_USO4		0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6		0x40
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define ROUND_UP(x, a)		(((x) + (a) - 1) / (a) * (a))
#define DIV_ROUND_UP(x, a)	(((x) + (a) - 1) / (a))

/* virtio 1.0 layout (12 bytes), little-endian (TUNSETVNETLE), both taps */
#define VNET_LEN		((int)sizeof(struct virtio_net_hdr_v1))
/* The first 10 bytes, the legacy layout: everything we read or change */
#define VNET_FIELDS		sizeof(struct virtio_net_hdr)

/* 64 KiB IP datagram, Ethernet header with two VLAN tags, vnet header */
#define FRAME_MAX		(VNET_LEN + 14 + 8 + 65535)
#define ETH_MIN_LEN		60	/* without FCS: shorter frames are padded */

#define SPIN_DEFAULT_US		1000	/* cap for the learnt spin margin */
#define SPIN_SHARE_DIV		20	/* spin at most 1/20 of the time */
#define SPIN_BURST_NS		(5 * 1000 * 1000)	/* ...in bursts of 5 ms */
#define WAKE_WIN		32	/* wake-up latencies kept */
#define WAKE_MIN		8	/* ...before they are used */
#define RX_BATCH		32	/* frames read per wakeup, bounds latency */
#define EV_MAX			16

#define QUEUE_FLOOR		(1ULL << 20)	/* default queue-bytes floor */
#define QUEUE_DEFAULT_MAX	(64ULL << 20)	/* ...and default ceiling */
#define BYTES_PER_US_1G		125ULL		/* 1 Gbit/s */
#define QUEUE_MAX		(1ULL << 30)	/* --queue-bytes: memory bound */

/* Offsets in the headers we touch (RFC 791, RFC 8200, RFC 9293, RFC 768) */
#define ETH_TYPE_OFF		12
#define ETH_HLEN		14
#define ETHERTYPE_IPV4		0x0800
#define ETHERTYPE_IPV6		0x86dd
#define ETHERTYPE_VLAN		0x8100
#define ETHERTYPE_QINQ		0x88a8
#define IP4_TOTLEN_OFF		2
#define IP4_ID_OFF		4
#define IP4_PROTO_OFF		9
#define IP4_CSUM_OFF		10
#define IP6_PLEN_OFF		4
#define IP6_HLEN		40
#define TCP_SEQ_OFF		4
#define TCP_DOFF_OFF		12
#define TCP_FLAGS_OFF		13
#define TCP_FIN			0x01
#define TCP_PSH			0x08
#define TCP_CWR			0x80
#define TCP_CSUM_OFF		16
#define TCP_HLEN_MIN		20
#define UDP_LEN_OFF		4
#define UDP_CSUM_OFF		6
#define UDP_HLEN		8
#define IPPROTO_TCP_		6
#define IPPROTO_UDP_		17

/* ---------------------------------------------------------------------- */
/* Logging: die() (tool_lib.h) before the loop, err_ratelimit() in it     */
/* ---------------------------------------------------------------------- */

/* At most one line a second per call site: a broken tap must not flood */
#define err_ratelimit(...)						\
	do {								\
		static int64_t last_;					\
		int64_t now_ = now_ns() / NS_PER_S;			\
		if (now_ != last_) {					\
			last_ = now_;					\
			fputs("delayline: ", stderr);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

/* ---------------------------------------------------------------------- */
/* Bounds-checked access to frame bytes                                   */
/* ---------------------------------------------------------------------- */

/**
 * struct view - a frame, or a part of it, with its length
 * @p:		first byte
 * @len:	bytes available at @p
 *
 * Every header read or write goes through view_get()/view_put(): values
 * are copied, never read through a cast pointer, and never past @len.
 */
struct view {
	uint8_t *p;
	size_t len;
};

static bool view_get(const struct view *v, size_t off, void *dst, size_t n)
{
	if (off > v->len || n > v->len - off)
		return false;
	memcpy(dst, v->p + off, n);
	return true;
}

static bool view_put(const struct view *v, size_t off, const void *src,
		     size_t n)
{
	if (off > v->len || n > v->len - off)
		return false;
	memcpy(v->p + off, src, n);
	return true;
}

static bool view_get_u8(const struct view *v, size_t off, uint8_t *x)
{
	return view_get(v, off, x, 1);
}

static bool view_get_be16(const struct view *v, size_t off, uint16_t *x)
{
	uint16_t n;

	if (!view_get(v, off, &n, 2))
		return false;
	*x = be16toh(n);
	return true;
}

static bool view_put_be16(const struct view *v, size_t off, uint16_t x)
{
	uint16_t n = htobe16(x);

	return view_put(v, off, &n, 2);
}

/* ---------------------------------------------------------------------- */
/* Frame parsing and wire size                                            */
/* ---------------------------------------------------------------------- */

/**
 * struct frame_info - what we need to know about a frame, checked once
 * @vh:		vnet header fields, host order
 * @len:	Ethernet frame length, without vnet header
 * @l3_off:	offset of the IP header in the Ethernet frame
 * @l4_off:	offset of the TCP or UDP header (csum_start)
 * @hdrlen:	bytes of headers each segment of a super-frame repeats
 * @ipv4:	IP header is IPv4 (else IPv6)
 * @tcp:	L4 is TCP (else UDP)
 * @gso_size:	payload bytes per segment, 0 if not a super-frame
 * @nseg:	wire packets this frame stands for
 * @splittable:	headers understood: segments can be cut out
 */
struct frame_info {
	struct virtio_net_hdr vh;
	size_t len;
	size_t l3_off;
	size_t l4_off;
	size_t hdrlen;
	bool ipv4;
	bool tcp;
	size_t gso_size;
	size_t nseg;
	bool splittable;
};

/**
 * frame_l3() - find and check the IP header matching a super-frame's L4
 * @eth:	Ethernet frame
 * @fi:		frame info, with @l4_off set; @l3_off and @ipv4 filled in
 *
 * Return: true if the IP header is consistent with @fi->l4_off
 */
static bool frame_l3(const struct view *eth, struct frame_info *fi)
{
	size_t off = ETH_TYPE_OFF;
	uint16_t type;
	uint8_t b;
	int tags;

	for (tags = 0; tags <= 2; tags++) {
		if (!view_get_be16(eth, off, &type))
			return false;
		if (type != ETHERTYPE_VLAN && type != ETHERTYPE_QINQ)
			break;
		off += 4;
	}
	fi->l3_off = off + 2;
	if (!view_get_u8(eth, fi->l3_off, &b))
		return false;

	/* Lengths must match the frame: no padding, nothing truncated */
	if (type == ETHERTYPE_IPV4 && (b >> 4) == 4) {
		uint16_t totlen;
		uint8_t proto;

		fi->ipv4 = true;
		if (!view_get_u8(eth, fi->l3_off + IP4_PROTO_OFF, &proto) ||
		    !view_get_be16(eth, fi->l3_off + IP4_TOTLEN_OFF, &totlen))
			return false;
		return (b & 0xf) >= 5 &&
		       fi->l3_off + (b & 0xf) * 4U == fi->l4_off &&
		       proto == (fi->tcp ? IPPROTO_TCP_ : IPPROTO_UDP_) &&
		       fi->l3_off + totlen == fi->len;
	}
	if (type == ETHERTYPE_IPV6 && (b >> 4) == 6) {
		uint16_t plen;

		fi->ipv4 = false;
		if (!view_get_be16(eth, fi->l3_off + IP6_PLEN_OFF, &plen))
			return false;
		/* Extension headers may sit in between: csum_start says */
		return fi->l4_off >= fi->l3_off + IP6_HLEN &&
		       fi->l3_off + IP6_HLEN + plen == fi->len;
	}
	return false;
}

/**
 * frame_gso() - fill in segment geometry of a super-frame
 * @eth:	Ethernet frame
 * @fi:		frame info with @vh and @len set
 *
 * Return: true if @fi describes segments, false to treat the frame as one
 */
static bool frame_gso(const struct view *eth, struct frame_info *fi)
{
	uint8_t type = fi->vh.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	size_t csum_off;
	uint8_t doff;

	if (!(fi->vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || !fi->vh.gso_size)
		return false;

	fi->l4_off = fi->vh.csum_start;
	if (type == VIRTIO_NET_HDR_GSO_TCPV4 ||
	    type == VIRTIO_NET_HDR_GSO_TCPV6) {
		if (!view_get_u8(eth, fi->l4_off + TCP_DOFF_OFF, &doff) ||
		    (doff >> 4) * 4U < TCP_HLEN_MIN)
			return false;
		fi->tcp = true;
		fi->hdrlen = fi->l4_off + (doff >> 4) * 4U;
		csum_off = TCP_CSUM_OFF;
	} else if (type == VIRTIO_NET_HDR_GSO_UDP_L4) {
		fi->tcp = false;
		fi->hdrlen = fi->l4_off + UDP_HLEN;
		csum_off = UDP_CSUM_OFF;
	} else {
		return false;
	}
	if (fi->hdrlen >= fi->len)
		return false;

	fi->gso_size = fi->vh.gso_size;
	fi->nseg = DIV_ROUND_UP(fi->len - fi->hdrlen, fi->gso_size);
	/* Splitting rewrites headers: they must be exactly what we think */
	fi->splittable = fi->nseg > 1 && fi->vh.csum_offset == csum_off &&
			 frame_l3(eth, fi);
	return true;
}

/**
 * frame_parse() - read the vnet header and segment geometry of a frame
 * @buf:	vnet header and Ethernet frame as read from the tap
 * @n:		bytes in @buf
 * @fi:		filled in
 *
 * Anything we cannot make sense of is one wire packet of its own length:
 * the receiving kernel is the judge of its validity, not us.
 */
static void frame_parse(uint8_t *buf, size_t n, struct frame_info *fi)
{
	struct view v = { buf, n };
	struct view eth;

	memset(fi, 0, sizeof(*fi));
	fi->nseg = 1;
	if (n < (size_t)VNET_LEN) {
		fi->len = 0;
		return;
	}
	fi->len = n - VNET_LEN;

	view_get(&v, 0, &fi->vh, VNET_FIELDS);
	fi->vh.hdr_len = le16toh(fi->vh.hdr_len);
	fi->vh.gso_size = le16toh(fi->vh.gso_size);
	fi->vh.csum_start = le16toh(fi->vh.csum_start);
	fi->vh.csum_offset = le16toh(fi->vh.csum_offset);

	eth = (struct view){ buf + VNET_LEN, fi->len };
	if (fi->vh.gso_type != VIRTIO_NET_HDR_GSO_NONE && !frame_gso(&eth, fi)) {
		fi->nseg = 1;
		fi->gso_size = 0;
		fi->splittable = false;
	}
}

/**
 * seg_payload() - payload bytes of segment @i of a super-frame
 * @fi:		frame info
 * @i:		segment index, < @fi->nseg
 *
 * Return: payload length, gso_size except for a short last segment
 */
static size_t seg_payload(const struct frame_info *fi, size_t i)
{
	size_t done = i * fi->gso_size;

	return MIN(fi->gso_size, fi->len - fi->hdrlen - done);
}

/**
 * seg_wire() - bytes segment @i takes on the wire
 * @fi:		frame info
 * @i:		segment index
 * @overhead:	per-packet extra (preamble, FCS, gap), bytes
 *
 * Return: wire bytes
 */
static uint64_t seg_wire(const struct frame_info *fi, size_t i,
			 unsigned overhead)
{
	size_t len = fi->gso_size ? fi->hdrlen + seg_payload(fi, i) : fi->len;

	return MAX(len, (size_t)ETH_MIN_LEN) + overhead;
}

/**
 * run_wire() - wire bytes of segments [@first, @end) of a frame
 * @fi:		frame info
 * @first:	first segment
 * @end:	one past the last segment
 * @overhead:	per-packet extra, bytes
 *
 * Return: wire bytes, in closed form: only the last segment may differ
 */
static uint64_t run_wire(const struct frame_info *fi, size_t first,
			 size_t end, unsigned overhead)
{
	uint64_t full;

	if (end - first == 1)
		return seg_wire(fi, first, overhead);
	full = seg_wire(fi, first, overhead);
	return full * (end - 1 - first) + seg_wire(fi, end - 1, overhead);
}

/* ---------------------------------------------------------------------- */
/* Checksums (RFC 1071, incremental update as in RFC 1624)                */
/* ---------------------------------------------------------------------- */

static uint16_t csum_fold32(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/**
 * ip4_csum_fix() - recompute the IPv4 header checksum in place
 * @eth:	Ethernet frame
 * @l3_off:	IPv4 header offset
 * @ihl:	header length, bytes
 */
static void ip4_csum_fix(const struct view *eth, size_t l3_off, size_t ihl)
{
	uint32_t sum = 0;
	uint16_t w = 0;
	size_t i;

	view_put_be16(eth, l3_off + IP4_CSUM_OFF, 0);
	for (i = 0; i < ihl; i += 2) {
		view_get_be16(eth, l3_off + i, &w);
		sum += w;
	}
	view_put_be16(eth, l3_off + IP4_CSUM_OFF, ~csum_fold32(sum));
}

/**
 * l4_pseudo_fix() - change the L4 length in a NEEDS_CSUM checksum seed
 * @eth:	Ethernet frame
 * @at:		offset of the L4 checksum field
 * @old_len:	L4 length the seed was computed for
 * @new_len:	L4 length of the rewritten frame
 *
 * With NEEDS_CSUM, the checksum field holds the (uncomplemented) folded
 * pseudo-header sum, which includes the L4 length: the receiver or its
 * segmentation code completes it from there.  Adjusting it incrementally
 * keeps whatever else the sender put in (e.g. a routing header address).
 */
static void l4_pseudo_fix(const struct view *eth, size_t at, uint16_t old_len,
			  uint16_t new_len)
{
	uint16_t seed;

	if (!view_get_be16(eth, at, &seed))
		return;
	seed = csum_fold32((uint32_t)seed + (uint16_t)~old_len + new_len);
	view_put_be16(eth, at, seed);
}

/* ---------------------------------------------------------------------- */
/* Byte ring of delayed frames                                            */
/* ---------------------------------------------------------------------- */

/**
 * struct entry - header in front of each frame in a ring
 * @due:	CLOCK_MONOTONIC time the frame leaves, ns
 * @len:	bytes of frame data (vnet header included), 0: wrap marker
 * @pkts:	wire packets this frame stands for
 * @wire:	wire bytes this frame stands for
 */
struct entry {
	int64_t due;
	uint32_t len;
	uint32_t pkts;
	uint64_t wire;
};

#define ENTRY_ALIGN		8
static_assert(sizeof(struct entry) % ENTRY_ALIGN == 0, "entry alignment");

/**
 * struct ring - FIFO of variable-size entries in one contiguous buffer
 * @buf:	memory, mapped once at start
 * @size:	bytes in @buf, multiple of ENTRY_ALIGN
 * @head:	offset of the oldest entry
 * @tail:	offset where the next entry goes
 * @used:	bytes from @head to @tail, including skipped space at the end
 * @count:	entries held
 *
 * An entry never wraps: if it does not fit before the end, the producer
 * leaves a wrap marker (or less than a header of space, which means the
 * same) and starts again at offset zero.
 */
struct ring {
	uint8_t *buf;
	size_t size;
	size_t head;
	size_t tail;
	size_t used;
	size_t count;
};

static size_t entry_stride(size_t len)
{
	return ROUND_UP(sizeof(struct entry) + len, ENTRY_ALIGN);
}

static struct entry *ring_at(const struct ring *r, size_t off)
{
	return (struct entry *)(r->buf + off);
}

static uint8_t *entry_data(struct entry *e)
{
	return (uint8_t *)(e + 1);
}

/**
 * ring_reserve() - find room for an entry with @len bytes of data
 * @r:		ring
 * @len:	data bytes
 *
 * Nothing changes until ring_commit(), so a reservation can be dropped.
 *
 * Return: offset of the room, or -1 if there is none
 */
static ssize_t ring_reserve(struct ring *r, size_t len)
{
	size_t n = entry_stride(len);

	if (!r->count) {
		r->head = r->tail = r->used = 0;
		return n <= r->size ? 0 : -1;
	}
	if (r->tail > r->head || (r->tail == r->head && !r->used)) {
		if (r->size - r->tail >= n)
			return r->tail;
		return n <= r->head ? 0 : -1;
	}
	return r->head - r->tail >= n ? (ssize_t)r->tail : -1;
}

/**
 * ring_commit() - make a reserved entry part of the queue
 * @r:		ring
 * @off:	offset returned by ring_reserve()
 * @len:	data bytes actually used, not more than reserved
 */
static void ring_commit(struct ring *r, size_t off, size_t len)
{
	size_t n = entry_stride(len);

	if (off != r->tail) {
		/* Wrapped: mark the skipped end if a header fits there */
		assert(off == 0);
		if (r->size - r->tail >= sizeof(struct entry))
			ring_at(r, r->tail)->len = 0;
		r->used += r->size - r->tail;
	}
	r->tail = off + n;
	r->used += n;
	r->count++;
	assert(r->used <= r->size);
}

/**
 * ring_head() - oldest entry
 * @r:		ring
 *
 * Return: entry, NULL if empty
 */
static struct entry *ring_head(const struct ring *r)
{
	return r->count ? ring_at(r, r->head) : NULL;
}

/**
 * ring_pop() - drop the oldest entry, skipping a wrap marker after it
 * @r:		ring, not empty
 */
static void ring_pop(struct ring *r)
{
	size_t n = entry_stride(ring_head(r)->len);

	r->head += n;
	r->used -= n;
	if (!--r->count) {
		r->head = r->tail = r->used = 0;
		return;
	}
	if (r->size - r->head < sizeof(struct entry) ||
	    !ring_at(r, r->head)->len) {
		r->used -= r->size - r->head;
		r->head = 0;
	}
}

/* ---------------------------------------------------------------------- */
/* Configuration and state                                                */
/* ---------------------------------------------------------------------- */

/**
 * struct stats - counters of one direction
 * @frames:	frames written to the output tap
 * @pkts:	wire packets in those frames
 * @bytes:	wire bytes in those frames
 * @qdrop:	wire packets dropped: queue limit or ring memory exceeded
 * @lossdrop:	wire packets dropped by random loss
 * @txerr:	wire packets the output tap refused
 * @rxerr:	frames from the input tap too short to be Ethernet frames
 * @late:	frames written more than late_ns after their due time
 * @maxlate_ns:	worst delivery delay past due time
 * @qpeak:	most wire bytes held at once
 */
struct stats {
	uint64_t frames;
	uint64_t pkts;
	uint64_t bytes;
	uint64_t qdrop;
	uint64_t lossdrop;
	uint64_t txerr;
	uint64_t rxerr;
	uint64_t late;
	int64_t maxlate_ns;
	uint64_t qpeak;
};

/**
 * struct dir - one direction of the link
 * @name:	"a->b" or "b->a"
 * @in_fd:	tap frames come from
 * @out_fd:	tap frames go to
 * @timer_fd:	timerfd for the head-of-queue due time
 * @timer_at:	absolute time @timer_fd is armed for, 0 if disarmed: then
 *		a non-empty, unblocked queue is due within the spin margin
 * @blocked:	@out_fd returned EAGAIN: wait for EPOLLOUT
 * @ring:	delayed frames
 * @scratch:	FRAME_MAX bytes for frames that cannot be read into @ring
 * @held_wire:	wire bytes in @ring
 * @link_free:	when the serialiser finishes the last queued frame, ns
 * @ser_rem:	remainder of serialisation time, in ns * Mbit/s
 * @rng:	xorshift64* state for loss, per direction: reproducible
 * @st:		counters
 */
struct dir {
	const char *name;
	int in_fd;
	int out_fd;
	int timer_fd;
	int64_t timer_at;
	bool blocked;
	struct ring ring;
	uint8_t *scratch;
	uint64_t held_wire;
	int64_t link_free;
	uint64_t ser_rem;
	uint64_t rng;
	struct stats st;
};

/**
 * struct ctx - options and state of the tool
 */
struct ctx {
	const char *ns[2];
	const char *ifname[2];
	int64_t delay_ns;
	uint64_t rate_mbit;
	unsigned loss_permille;
	uint64_t seed;
	uint64_t queue_bytes;
	unsigned overhead;
	int64_t late_ns;
	const char *stats_path;
	const char *pidfile;
	bool foreground;
	bool offload;
	int64_t spin_max_ns;
	bool spin_auto;

	bool wake_comp;

	int64_t margin_ns;
	int64_t spin_tokens;
	int64_t spin_refill;
	int64_t wake_win[WAKE_WIN];
	uint64_t wake_n;
	int64_t wake_med_ns;
	int64_t wake_p90_ns;
	int64_t slept_from;

	int tap_fd[2];
	unsigned offload_flags;
	int epoll_fd;
	int signal_fd;
	bool quit;
	struct dir dir[2];
};

/**
 * union epoll_ref - what an epoll event is about
 * @type:	EV_* type
 * @idx:	tap or direction index
 * @u64:	as stored in epoll_data
 */
union epoll_ref {
	struct {
		uint32_t type;
		uint32_t idx;
	};
	uint64_t u64;
};
static_assert(sizeof(union epoll_ref) == sizeof(uint64_t), "epoll_ref size");

enum ev_type {
	EV_TAP = 1,	/* idx: tap; EPOLLIN feeds dir idx, EPOLLOUT dir !idx */
	EV_TIMER,	/* idx: direction */
	EV_SIGNAL,
};

/* ---------------------------------------------------------------------- */
/* Per-direction data path                                                */
/* ---------------------------------------------------------------------- */

/**
 * rng_permille() - draw against a per-mille probability
 * @d:		direction, its generator advances
 * @permille:	probability of true, per mille
 *
 * Return: true with probability @permille / 1000
 */
static bool rng_permille(struct dir *d, unsigned permille)
{
	uint64_t x = d->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	d->rng = x;
	x *= 0x2545f4914f6cdd1dULL;
	return ((x >> 32) * 1000) >> 32 < permille;
}

/**
 * dir_due() - pass @wire bytes through the serialiser and the delay
 * @c:		context
 * @d:		direction
 * @now:	arrival time, ns
 * @wire:	wire bytes
 *
 * Return: due time, ns
 */
static int64_t dir_due(const struct ctx *c, struct dir *d, int64_t now,
		       uint64_t wire)
{
	uint64_t num;

	if (!c->rate_mbit)
		return now + c->delay_ns;

	if (d->link_free <= now) {
		d->link_free = now;
		d->ser_rem = 0;
	}
	/* rate Mbit/s is rate bits/us: wire * 8 * 1000 / rate ns */
	num = wire * 8000 + d->ser_rem;
	d->ser_rem = num % c->rate_mbit;
	d->link_free += num / c->rate_mbit;
	return d->link_free + c->delay_ns;
}

/**
 * dir_enqueue() - commit a frame already in the ring at @off
 * @c:		context
 * @d:		direction
 * @off:	from ring_reserve()
 * @len:	data bytes
 * @pkts:	wire packets
 * @wire:	wire bytes
 * @now:	arrival time, ns
 */
static void dir_enqueue(const struct ctx *c, struct dir *d, size_t off,
			size_t len, size_t pkts, uint64_t wire, int64_t now)
{
	struct entry *e = ring_at(&d->ring, off);

	e->due = dir_due(c, d, now, wire);
	e->len = len;
	e->pkts = pkts;
	e->wire = wire;
	ring_commit(&d->ring, off, len);
	d->held_wire += wire;
	d->st.qpeak = MAX(d->st.qpeak, d->held_wire);
}

/**
 * run_fix_headers() - rewrite copied headers for segments [@first, @end)
 * @eth:	Ethernet frame of the run, headers already copied
 * @fi:		frame info of the original super-frame
 * @first:	first segment
 * @end:	one past the last segment
 */
static void run_fix_headers(const struct view *eth,
			    const struct frame_info *fi, size_t first,
			    size_t end)
{
	uint16_t l4_old = fi->len - fi->l4_off, l4_new = eth->len - fi->l4_off;
	size_t l3_len = eth->len - fi->l3_off;
	uint32_t seq = 0;
	uint16_t id = 0;
	uint8_t b = 0;

	if (fi->ipv4) {
		view_get_u8(eth, fi->l3_off, &b);
		view_put_be16(eth, fi->l3_off + IP4_TOTLEN_OFF, l3_len);
		/* Segmentation gives each segment the next ID */
		view_get_be16(eth, fi->l3_off + IP4_ID_OFF, &id);
		view_put_be16(eth, fi->l3_off + IP4_ID_OFF, id + first);
		ip4_csum_fix(eth, fi->l3_off, (b & 0xf) * 4U);
	} else {
		view_put_be16(eth, fi->l3_off + IP6_PLEN_OFF,
			      l3_len - IP6_HLEN);
	}

	l4_pseudo_fix(eth, fi->l4_off + fi->vh.csum_offset, l4_old, l4_new);

	if (!fi->tcp) {
		view_put_be16(eth, fi->l4_off + UDP_LEN_OFF, l4_new);
		return;
	}

	view_get(eth, fi->l4_off + TCP_SEQ_OFF, &seq, 4);
	seq = htobe32(be32toh(seq) + first * fi->gso_size);
	view_put(eth, fi->l4_off + TCP_SEQ_OFF, &seq, 4);

	view_get_u8(eth, fi->l4_off + TCP_FLAGS_OFF, &b);
	if (first)
		b &= ~TCP_CWR;
	if (end < fi->nseg)
		b &= ~(TCP_FIN | TCP_PSH);
	view_put(eth, fi->l4_off + TCP_FLAGS_OFF, &b, 1);
}

/**
 * dir_emit_run() - queue segments [@first, @end) of a super-frame
 * @c:		context
 * @d:		direction
 * @src:	original frame (vnet header first), not in the ring
 * @fi:		its frame info, splittable
 * @first:	first segment
 * @end:	one past the last segment
 * @now:	arrival time, ns
 */
static void dir_emit_run(const struct ctx *c, struct dir *d,
			 const uint8_t *src, const struct frame_info *fi,
			 size_t first, size_t end, int64_t now)
{
	size_t pay_off = fi->hdrlen + first * fi->gso_size;
	size_t pay_len = MIN(end * fi->gso_size, fi->len - fi->hdrlen) -
			 first * fi->gso_size;
	size_t len = VNET_LEN + fi->hdrlen + pay_len;
	struct virtio_net_hdr vh;
	struct view eth;
	ssize_t off;
	uint8_t *p;

	off = ring_reserve(&d->ring, len);
	if (off < 0) {
		d->st.qdrop += end - first;
		return;
	}
	p = entry_data(ring_at(&d->ring, off));
	memcpy(p, src, VNET_LEN + fi->hdrlen);
	memcpy(p + VNET_LEN + fi->hdrlen, src + VNET_LEN + pay_off, pay_len);

	memcpy(&vh, p, VNET_FIELDS);
	if (end - first == 1) {
		vh.gso_type = VIRTIO_NET_HDR_GSO_NONE;
		vh.gso_size = 0;
	}
	vh.hdr_len = htole16(fi->hdrlen);
	memcpy(p, &vh, VNET_FIELDS);

	eth = (struct view){ p + VNET_LEN, len - VNET_LEN };
	run_fix_headers(&eth, fi, first, end);

	dir_enqueue(c, d, off, len, end - first,
		    run_wire(fi, first, end, c->overhead), now);
}

enum verdict {
	KEEP,
	DROP_LOSS,
	DROP_QUEUE,
};

/**
 * seg_verdict() - decide the fate of one wire packet
 * @c:		context
 * @d:		direction
 * @wire:	its wire bytes
 * @pending:	wire bytes kept from this frame but not yet queued
 *
 * Return: KEEP, DROP_LOSS or DROP_QUEUE
 */
static enum verdict seg_verdict(const struct ctx *c, struct dir *d,
				uint64_t wire, uint64_t pending)
{
	if (c->loss_permille && rng_permille(d, c->loss_permille))
		return DROP_LOSS;
	if (d->held_wire + pending + wire > c->queue_bytes)
		return DROP_QUEUE;
	return KEEP;
}

static void stats_drop(struct stats *st, enum verdict v, size_t pkts)
{
	if (v == DROP_LOSS)
		st->lossdrop += pkts;
	else
		st->qdrop += pkts;
}

/**
 * dir_split() - queue the kept segments of a super-frame, as runs
 * @c:		context
 * @d:		direction
 * @src:	frame, in scratch memory
 * @fi:		frame info, splittable
 * @first_drop:	index of the first segment not kept
 * @v:		verdict for it
 * @now:	arrival time, ns
 */
static void dir_split(const struct ctx *c, struct dir *d, const uint8_t *src,
		      const struct frame_info *fi, size_t first_drop,
		      enum verdict v, int64_t now)
{
	size_t i, start = 0;
	uint64_t pending = 0;

	for (i = 0; i < fi->nseg; i++) {
		uint64_t w = seg_wire(fi, i, c->overhead);

		if (i > first_drop)
			v = seg_verdict(c, d, w, pending);
		if (i < first_drop || v == KEEP) {
			pending += w;
			continue;
		}
		stats_drop(&d->st, v, 1);
		if (i > start)
			dir_emit_run(c, d, src, fi, start, i, now);
		start = i + 1;
		pending = 0;
	}
	if (start < fi->nseg)
		dir_emit_run(c, d, src, fi, start, fi->nseg, now);
}

/**
 * dir_admit() - apply loss and queue limit to a frame just read
 * @c:		context
 * @d:		direction
 * @buf:	frame, in the ring at @off or in scratch memory if @off < 0
 * @n:		bytes read
 * @off:	ring offset reserved for the frame, or -1
 * @now:	arrival time, ns
 */
static void dir_admit(const struct ctx *c, struct dir *d, uint8_t *buf,
		      size_t n, ssize_t off, int64_t now)
{
	enum verdict v = KEEP;
	struct frame_info fi;
	uint64_t wire = 0;
	size_t i;

	frame_parse(buf, n, &fi);

	/* Common case: nothing to draw, and all of it fits */
	wire = run_wire(&fi, 0, fi.nseg, c->overhead);
	if (c->loss_permille || d->held_wire + wire > c->queue_bytes) {
		/* Walk segments until the first one we do not keep */
		for (wire = 0, i = 0; i < fi.nseg; i++) {
			uint64_t w = seg_wire(&fi, i, c->overhead);

			v = seg_verdict(c, d, w, wire);
			if (v != KEEP)
				break;
			wire += w;
		}
	}

	if (v == KEEP) {
		if (off < 0)
			off = ring_reserve(&d->ring, n);
		if (off < 0) {
			d->st.qdrop += fi.nseg;
			return;
		}
		if (buf != entry_data(ring_at(&d->ring, off)))
			memcpy(entry_data(ring_at(&d->ring, off)), buf, n);
		dir_enqueue(c, d, off, n, fi.nseg, wire, now);
		return;
	}

	if (!fi.splittable) {
		/* Segments share one fate: the whole frame goes */
		stats_drop(&d->st, v, fi.nseg);
		return;
	}
	if (buf != d->scratch)
		memcpy(d->scratch, buf, n);
	dir_split(c, d, d->scratch, &fi, i, v, now);
}

/**
 * dir_timer_set() - arm the direction's timer for @at, or disarm it
 * @d:		direction
 * @at:		absolute CLOCK_MONOTONIC time, ns, 0 to disarm
 */
static void dir_timer_set(struct dir *d, int64_t at)
{
	struct itimerspec it = { 0 };

	if (at == d->timer_at)
		return;
	it.it_value.tv_sec = at / NS_PER_S;
	it.it_value.tv_nsec = at % NS_PER_S;
	if (timerfd_settime(d->timer_fd, TFD_TIMER_ABSTIME, &it, NULL))
		err_ratelimit("%s: timerfd_settime: %s", d->name,
			      strerror(errno));
	d->timer_at = at;
}

/**
 * dir_epollout() - ask for EPOLLOUT on the output tap, or stop asking
 * @c:		context
 * @d:		direction
 * @on:		true to wait for EPOLLOUT
 */
static void dir_epollout(struct ctx *c, struct dir *d, bool on)
{
	int tap = d == &c->dir[0] ? 1 : 0;
	union epoll_ref ref = { .type = EV_TAP, .idx = tap };
	struct epoll_event ev = { .data.u64 = ref.u64 };

	ev.events = EPOLLIN | (on ? EPOLLOUT : 0);
	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_MOD, d->out_fd, &ev))
		err_ratelimit("%s: epoll_ctl: %s", d->name, strerror(errno));
	d->blocked = on;
}

/**
 * dir_delivered() - account for a frame leaving at @now
 * @c:		context
 * @d:		direction
 * @e:		its entry
 * @now:	time the write started, ns
 * @ok:		the tap took it
 */
static void dir_delivered(const struct ctx *c, struct dir *d,
			  const struct entry *e, int64_t now, bool ok)
{
	int64_t late = now - e->due;

	if (!ok) {
		d->st.txerr += e->pkts;
	} else {
		d->st.frames++;
		d->st.pkts += e->pkts;
		d->st.bytes += e->wire;
	}
	if (late > c->late_ns)
		d->st.late++;
	d->st.maxlate_ns = MAX(d->st.maxlate_ns, late);
	d->held_wire -= e->wire;
}

/**
 * spin_margin() - how early to wake up, given the spin budget left
 * @c:		context
 * @now:	current time, ns
 *
 * Return: learnt margin if the budget covers it, else zero
 */
static int64_t spin_margin(struct ctx *c, int64_t now)
{
	c->spin_tokens += (now - c->spin_refill) / SPIN_SHARE_DIV;
	c->spin_tokens = MIN(c->spin_tokens, SPIN_BURST_NS);
	c->spin_refill = now;
	return c->spin_tokens >= c->margin_ns ? c->margin_ns : 0;
}

/**
 * dir_tx() - write every frame that is due, then arm the timer for the next
 * @c:		context
 * @d:		direction
 */
static void dir_tx(struct ctx *c, struct dir *d)
{
	struct entry *e;

	if (d->blocked)
		return;

	while ((e = ring_head(&d->ring))) {
		int64_t now = now_ns();
		ssize_t n;

		if (e->due > now) {
			/* Within the margin: the main loop spins for it */
			int64_t wake = e->due - spin_margin(c, now);

			dir_timer_set(d, wake > now ? wake : 0);
			return;
		}
		n = write(d->out_fd, entry_data(e), e->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			dir_timer_set(d, 0);
			dir_epollout(c, d, true);
			return;
		}
		if (n < 0)
			err_ratelimit("%s: write to tap: %s", d->name,
				      strerror(errno));
		dir_delivered(c, d, e, now, n >= 0);
		ring_pop(&d->ring);
	}
	dir_timer_set(d, 0);
}

/**
 * rx_arrival() - best estimate of when a frame reached the input tap
 * @c:		context
 * @first:	first frame read in this event batch
 *
 * Return: arrival time, ns
 */
static int64_t rx_arrival(const struct ctx *c, bool first)
{
	int64_t now = now_ns();

	if (!first || !c->slept_from || !c->wake_comp)
		return now;
	/* It waited for us to wake up, but not since before we slept */
	return MAX(now - c->wake_med_ns, c->slept_from);
}

/**
 * dir_rx() - read a batch of frames from the input tap and queue them
 * @c:		context
 * @d:		direction
 */
static void dir_rx(struct ctx *c, struct dir *d)
{
	bool was_empty = !d->ring.count;
	int i;

	for (i = 0; i < RX_BATCH; i++) {
		ssize_t off = ring_reserve(&d->ring, FRAME_MAX);
		uint8_t *buf = off < 0 ? d->scratch :
				 entry_data(ring_at(&d->ring, off));
		ssize_t n = read(d->in_fd, buf, FRAME_MAX);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				err_ratelimit("%s: read from tap: %s",
					      d->name, strerror(errno));
			break;
		}
		/* An empty entry would read as a wrap marker, too */
		if (n < VNET_LEN + ETH_HLEN) {
			d->st.rxerr++;
			continue;
		}
		dir_admit(c, d, buf, n, off, rx_arrival(c, !i));
	}

	/* Head unchanged unless the queue was empty: timer already right */
	if (was_empty && d->ring.count)
		dir_tx(c, d);
}

/* ---------------------------------------------------------------------- */
/* Counters                                                               */
/* ---------------------------------------------------------------------- */

static void stats_print(FILE *f, const struct dir *d)
{
	const struct stats *st = &d->st;

	fprintf(f, "delayline: %s frames=%" PRIu64 " pkts=%" PRIu64
		" bytes=%" PRIu64 " qdrop=%" PRIu64 " lossdrop=%" PRIu64
		" txerr=%" PRIu64 " rxerr=%" PRIu64 " late=%" PRIu64
		" maxlate_us=%" PRId64 " qpeak=%" PRIu64 "\n",
		d->name, st->frames, st->pkts, st->bytes, st->qdrop,
		st->lossdrop, st->txerr, st->rxerr, st->late,
		MAX(st->maxlate_ns, 0) / NS_PER_US, st->qpeak);
}

static void stats_dump(const struct ctx *c)
{
	stats_print(stderr, &c->dir[0]);
	stats_print(stderr, &c->dir[1]);
	fprintf(stderr, "delayline: timing wakeups=%" PRIu64 " wake_med_us=%"
		PRId64 " wake_p90_us=%" PRId64 " margin_us=%" PRId64 "\n",
		c->wake_n, c->wake_med_ns / NS_PER_US,
		c->wake_p90_ns / NS_PER_US, c->margin_ns / NS_PER_US);
	fflush(stderr);
}

/**
 * stats_write() - write the counters to --stats, atomically
 * @c:		context
 */
static void stats_write(const struct ctx *c)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (!c->stats_path)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", c->stats_path) >=
	    (int)sizeof(tmp))
		return;
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "delayline: %s: %s\n", tmp, strerror(errno));
		return;
	}
	stats_print(f, &c->dir[0]);
	stats_print(f, &c->dir[1]);
	if (fclose(f) || rename(tmp, c->stats_path))
		fprintf(stderr, "delayline: %s: %s\n", c->stats_path,
			strerror(errno));
}

/* ---------------------------------------------------------------------- */
/* Main loop                                                              */
/* ---------------------------------------------------------------------- */

static void signal_event(struct ctx *c)
{
	struct signalfd_siginfo si;

	while (read(c->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			stats_dump(c);
		else
			c->quit = true;
	}
}

/**
 * wake_learn() - add a timer wake-up latency, update median and margin
 * @c:		context
 * @late:	time from expiry to the timer event being handled, ns
 *
 * Until WAKE_MIN samples are in, no compensation and the largest margin.
 */
static void wake_learn(struct ctx *c, int64_t late)
{
	int64_t sorted[WAKE_WIN];
	size_t i, j, n;

	c->wake_win[c->wake_n++ % WAKE_WIN] = late;
	n = MIN(c->wake_n, (uint64_t)WAKE_WIN);
	if (n < WAKE_MIN)
		return;

	/* Insertion sort: a few hundred comparisons, once per wake-up */
	for (i = 0; i < n; i++) {
		int64_t x = c->wake_win[i];

		for (j = i; j > 0 && sorted[j - 1] > x; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = x;
	}
	c->wake_med_ns = sorted[n / 2];
	c->wake_p90_ns = sorted[n * 9 / 10];
	if (c->spin_auto)
		c->margin_ns = MIN(c->wake_p90_ns, c->spin_max_ns);
}

static void timer_event(struct ctx *c, unsigned idx)
{
	struct dir *d = &c->dir[idx];
	uint64_t expirations;
	ssize_t n;

	n = read(d->timer_fd, &expirations, sizeof(expirations));
	/* Nothing to read: re-armed by an earlier event of this batch */
	if (n < 0 && errno == EAGAIN)
		return;
	if (n < 0)
		err_ratelimit("%s: timerfd read: %s", d->name, strerror(errno));
	else if (d->timer_at && c->slept_from && d->timer_at >= c->slept_from)
		wake_learn(c, now_ns() - d->timer_at);	/* woke us from sleep */
	d->timer_at = 0;
	dir_tx(c, d);
}

/**
 * spin_due() - is some direction due within the margin, without a timer?
 * @c:		context
 *
 * Return: true if the loop must poll instead of sleeping
 */
static bool spin_due(const struct ctx *c)
{
	int i;

	for (i = 0; i < 2; i++) {
		const struct dir *d = &c->dir[i];

		if (d->ring.count && !d->blocked && !d->timer_at)
			return true;
	}
	return false;
}

static void tap_event(struct ctx *c, unsigned idx, uint32_t events)
{
	if (events & EPOLLOUT) {
		struct dir *d = &c->dir[!idx];

		dir_epollout(c, d, false);
		dir_tx(c, d);
	}
	if (events & EPOLLIN)
		dir_rx(c, &c->dir[idx]);
	if (events & (EPOLLERR | EPOLLHUP))
		err_ratelimit("tap %s: error or hangup", c->ifname[idx]);
}

/**
 * loop() - wait for events and dispatch them, until SIGTERM or SIGINT
 * @c:		context
 */
static void loop(struct ctx *c)
{
	struct epoll_event ev[EV_MAX];

	while (!c->quit) {
		bool spin = spin_due(c);
		int64_t t_spin = now_ns();
		int i, n = epoll_wait(c->epoll_fd, ev, EV_MAX, spin ? 0 : -1);

		c->slept_from = spin ? 0 : t_spin;

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "delayline: epoll_wait: %s\n",
				strerror(errno));
			return;
		}
		for (i = 0; i < n; i++) {
			union epoll_ref ref = { .u64 = ev[i].data.u64 };

			switch (ref.type) {
			case EV_TAP:
				tap_event(c, ref.idx, ev[i].events);
				break;
			case EV_TIMER:
				timer_event(c, ref.idx);
				break;
			case EV_SIGNAL:
				signal_event(c);
				break;
			default:
				assert(0);
			}
		}

		/* Post-batch: deliver what came due while spinning */
		for (i = 0; spin && i < 2; i++) {
			if (!c->dir[i].timer_at)
				dir_tx(c, &c->dir[i]);
		}
		if (spin)
			c->spin_tokens -= now_ns() - t_spin;
	}
}

/* ---------------------------------------------------------------------- */
/* Set-up: taps in namespaces, memory, event sources                      */
/* ---------------------------------------------------------------------- */

/**
 * tap_open() - create or attach to tap @name in the current namespace
 * @name:	interface name
 *
 * Return: file descriptor, non-blocking, with a 12-byte LE vnet header
 */
static int tap_open(const char *name)
{
	struct ifreq ifr = { 0 };
	int hdrsz = VNET_LEN, le = 1;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("/dev/net/tun: %s", strerror(errno));

	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr))
		die("TUNSETIFF %s: %s", name, strerror(errno));
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdrsz))
		die("TUNSETVNETHDRSZ %s: %s", name, strerror(errno));
	if (ioctl(fd, TUNSETVNETLE, &le))
		die("TUNSETVNETLE %s: %s", name, strerror(errno));
	return fd;
}

/**
 * tap_open_in_ns() - open a tap inside the network namespace at @ns_path
 * @ns_path:	e.g. /run/netns/A, NULL for the current namespace
 * @name:	interface name
 * @orig_ns:	our own namespace, to return to
 *
 * The tap stays in the namespace it was created in, wherever its file
 * descriptor goes afterwards.
 *
 * Return: file descriptor
 */
static int tap_open_in_ns(const char *ns_path, const char *name, int orig_ns)
{
	int ns_fd, fd;

	if (!ns_path)
		return tap_open(name);

	ns_fd = open(ns_path, O_RDONLY | O_CLOEXEC);
	if (ns_fd < 0)
		die("%s: %s", ns_path, strerror(errno));
	if (setns(ns_fd, CLONE_NEWNET))
		die("setns %s: %s", ns_path, strerror(errno));
	close(ns_fd);

	fd = tap_open(name);

	if (setns(orig_ns, CLONE_NEWNET))
		die("setns back to original namespace: %s", strerror(errno));
	return fd;
}

/**
 * taps_offload() - enable the same offloads on both taps
 * @c:		context, tap_fd[] open; offload_flags set
 *
 * USO is newer (Linux 6.2): try with it, then without, so that both taps
 * always agree and never hand each other what the other cannot take.
 */
static void taps_offload(struct ctx *c)
{
	static const unsigned sets[] = {
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN |
		TUN_F_USO4 | TUN_F_USO6,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
	};
	unsigned i;
	int t;

	c->offload_flags = 0;
	if (!c->offload)
		return;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		for (t = 0; t < 2; t++) {
			if (ioctl(c->tap_fd[t], TUNSETOFFLOAD, sets[i]))
				break;
		}
		if (t == 2) {
			c->offload_flags = sets[i];
			return;
		}
	}
	die("TUNSETOFFLOAD: %s", strerror(errno));
}

static void taps_setup(struct ctx *c)
{
	int orig_ns, t;

	orig_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (orig_ns < 0)
		die("/proc/self/ns/net: %s", strerror(errno));
	for (t = 0; t < 2; t++)
		c->tap_fd[t] = tap_open_in_ns(c->ns[t], c->ifname[t], orig_ns);
	close(orig_ns);

	taps_offload(c);
}

/**
 * ring_setup() - map memory for a direction's ring, once
 * @r:		ring
 * @queue_bytes: queue limit in wire bytes
 *
 * Frame bytes in memory are at most the wire bytes of the segments they
 * stand for, plus the entry and vnet headers.  A quarter more than the
 * limit covers those for frames of a few hundred bytes; below that, the
 * ring fills before the limit is reached and drops count as qdrop anyway.
 * Two maximum-size frames of slack let reads go straight into the ring.
 */
static void ring_setup(struct ring *r, uint64_t queue_bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = queue_bytes + queue_bytes / 4 +
			2 * entry_stride(FRAME_MAX);

	size = ROUND_UP(size, (uint64_t)page);
	/* Populate now: no page faults on the forwarding path */
	r->buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (r->buf == MAP_FAILED)
		die("mmap %" PRIu64 " bytes: %s", size, strerror(errno));
	r->size = size;
}

static void epoll_add(struct ctx *c, int fd, uint32_t events,
		      enum ev_type type, unsigned idx)
{
	union epoll_ref ref = { .type = type, .idx = idx };
	struct epoll_event ev = { .events = events, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_ctl: %s", strerror(errno));
}

/**
 * splitmix64() - expand a seed into well-mixed, non-zero generator state
 * @x:		seed
 *
 * Return: mixed value
 */
static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;
}

static void dirs_setup(struct ctx *c)
{
	static const char *names[2] = { "a->b", "b->a" };
	int i;

	for (i = 0; i < 2; i++) {
		struct dir *d = &c->dir[i];

		d->name = names[i];
		d->in_fd = c->tap_fd[i];
		d->out_fd = c->tap_fd[!i];
		d->timer_fd = timerfd_create(CLOCK_MONOTONIC,
					     TFD_NONBLOCK | TFD_CLOEXEC);
		if (d->timer_fd < 0)
			die("timerfd_create: %s", strerror(errno));
		ring_setup(&d->ring, c->queue_bytes);
		d->scratch = mmap(NULL, FRAME_MAX, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				  -1, 0);
		if (d->scratch == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		d->rng = splitmix64(c->seed + i);
	}
}

static void events_setup(struct ctx *c)
{
	sigset_t mask;
	int i;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		die("sigprocmask: %s", strerror(errno));
	c->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->signal_fd < 0)
		die("signalfd: %s", strerror(errno));

	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epoll_fd < 0)
		die("epoll_create1: %s", strerror(errno));
	epoll_add(c, c->signal_fd, EPOLLIN, EV_SIGNAL, 0);
	for (i = 0; i < 2; i++) {
		epoll_add(c, c->tap_fd[i], EPOLLIN, EV_TAP, i);
		epoll_add(c, c->dir[i].timer_fd, EPOLLIN, EV_TIMER, i);
	}
}

/**
 * pidfile_write() - write @pid to --pidfile, atomically: the caller's
 *		     readiness signal
 * @c:		context
 * @pid:	process ID of the forwarding process
 */
static void pidfile_write(const struct ctx *c, pid_t pid)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (!c->pidfile)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", c->pidfile) >=
	    (int)sizeof(tmp))
		die("--pidfile: path too long: %s", c->pidfile);
	f = fopen(tmp, "w");
	if (!f)
		die("--pidfile: %s: %s", tmp, strerror(errno));
	fprintf(f, "%d\n", (int)pid);
	if (fclose(f) || rename(tmp, c->pidfile))
		die("--pidfile: %s: %s", c->pidfile, strerror(errno));
}

/**
 * daemonise() - go to the background unless -f
 * @c:		context
 *
 * Before anything else is set up: memory mapped before fork() would take a
 * copy-on-write fault per page on the forwarding path, and a signalfd
 * added to epoll before fork() keeps waking the parent, not us.  The
 * parent stays until the child is ready, so that its exit status says
 * whether the delay line runs, and the pidfile exists when it returns.
 *
 * stderr stays open: the counters go there.
 *
 * Return: write end of the readiness pipe for ready(), or -1 with -f
 */
static int daemonise(const struct ctx *c)
{
	int pipefd[2], null;
	char ok;
	pid_t pid;

	if (c->foreground)
		return -1;

	if (pipe2(pipefd, O_CLOEXEC))
		die("pipe2: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0) {
		ssize_t n;

		close(pipefd[1]);
		/* EOF without a byte: the child died during set-up */
		do
			n = read(pipefd[0], &ok, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && ok == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	close(pipefd[0]);
	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return pipefd[1];
}

/**
 * ready() - write the pidfile, release a waiting parent
 * @c:		context
 * @notify_fd:	from daemonise(), -1 if none
 */
static void ready(const struct ctx *c, int notify_fd)
{
	char ok = 1;

	pidfile_write(c, getpid());
	if (notify_fd < 0)
		return;
	if (write(notify_fd, &ok, 1) != 1)
		die("readiness pipe: %s", strerror(errno));
	close(notify_fd);
}

/* ---------------------------------------------------------------------- */
/* Options                                                                */
/* ---------------------------------------------------------------------- */

static void usage(const char *name, int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f,
"Usage: %s --if-a NAME --if-b NAME [OPTIONS]\n"
"Forward frames between two tap devices as a long, slow or lossy link.\n"
"\n"
"  --ns-a PATH            network namespace of tap A (e.g. /run/netns/A)\n"
"  --if-a NAME            tap A, created if missing\n"
"  --ns-b PATH            network namespace of tap B\n"
"  --if-b NAME            tap B, created if missing\n"
"  --delay-us N           one-way delay, microseconds (default 0)\n"
"  --rate-mbit N          rate cap per direction, Mbit/s (default 0: none)\n"
"  --loss-permille N      random loss per wire packet, per mille (0)\n"
"  --seed S               loss generator seed (default 1)\n"
"  --queue-bytes N        drop-tail limit per direction, wire bytes held\n"
"                         (default: 2 x 1 Gbit/s x delay, 1 to 64 MiB)\n"
"  --overhead-bytes N     extra wire bytes per packet, e.g. 24 for\n"
"                         preamble, FCS and gap of Ethernet (default 0)\n"
"  --late-us N            count frames this late as late (default 1000)\n"
"  --spin-us N            wake up at most this early and spin to the due\n"
"                         time; default: learnt, up to 1000; 0: never spin\n"
"  --no-wake-comp         time frames as read, not as queued on the tap\n"
"  --no-offload           no TSO/USO: forward frame by frame\n"
"  --stats FILE           write counters to FILE on exit\n"
"  --pidfile FILE         write PID to FILE once ready (taps open),\n"
"                         remove it on exit\n"
"  -f, --foreground       do not daemonise\n"
"  -h, --help             this help\n"
"\n"
"SIGUSR1 prints counters to stderr; SIGTERM or SIGINT print them and exit.\n",
		name);
	exit(status);
}

/**
 * opt_u64() - parse a decimal option value, or die naming it
 * @opt:	option name, for the message
 * @s:		value
 * @min:	smallest accepted value
 * @max:	largest accepted value
 *
 * Return: value
 */
static uint64_t opt_u64(const char *opt, const char *s, uint64_t min,
			uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		die("--%s: invalid value '%s' (%" PRIu64 " to %" PRIu64 ")",
		    opt, s, min, max);
	return v;
}

static const char *opt_ifname(const char *opt, const char *s)
{
	if (!*s || strlen(s) >= IFNAMSIZ || strchr(s, '/'))
		die("--%s: invalid interface name '%s'", opt, s);
	return s;
}

enum {
	OPT_NS_A = 256, OPT_IF_A, OPT_NS_B, OPT_IF_B, OPT_DELAY, OPT_RATE,
	OPT_LOSS, OPT_SEED, OPT_QUEUE, OPT_OVERHEAD, OPT_LATE, OPT_NO_OFFLOAD,
	OPT_STATS, OPT_PIDFILE, OPT_SPIN, OPT_NO_WAKE_COMP,
};

static void parse_opts(struct ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ns-a",		required_argument, 0, OPT_NS_A },
		{ "if-a",		required_argument, 0, OPT_IF_A },
		{ "ns-b",		required_argument, 0, OPT_NS_B },
		{ "if-b",		required_argument, 0, OPT_IF_B },
		{ "delay-us",		required_argument, 0, OPT_DELAY },
		{ "rate-mbit",		required_argument, 0, OPT_RATE },
		{ "loss-permille",	required_argument, 0, OPT_LOSS },
		{ "seed",		required_argument, 0, OPT_SEED },
		{ "queue-bytes",	required_argument, 0, OPT_QUEUE },
		{ "overhead-bytes",	required_argument, 0, OPT_OVERHEAD },
		{ "late-us",		required_argument, 0, OPT_LATE },
		{ "no-offload",		no_argument,	   0, OPT_NO_OFFLOAD },
		{ "stats",		required_argument, 0, OPT_STATS },
		{ "pidfile",		required_argument, 0, OPT_PIDFILE },
		{ "spin-us",		required_argument, 0, OPT_SPIN },
		{ "no-wake-comp",	no_argument,	   0, OPT_NO_WAKE_COMP },
		{ "foreground",		no_argument,	   0, 'f' },
		{ "help",		no_argument,	   0, 'h' },
		{ 0 },
	};
	uint64_t delay_us = 0, late_us = 1000, spin_us = SPIN_DEFAULT_US;
	int o, idx;

	c->seed = 1;
	c->offload = true;
	c->spin_auto = true;
	c->wake_comp = true;

	while ((o = getopt_long(argc, argv, "fh", opts, &idx)) != -1) {
		const char *name = o >= OPT_NS_A ? opts[idx].name : "";

		switch (o) {
		case OPT_NS_A:
			c->ns[0] = optarg;
			break;
		case OPT_NS_B:
			c->ns[1] = optarg;
			break;
		case OPT_IF_A:
			c->ifname[0] = opt_ifname(name, optarg);
			break;
		case OPT_IF_B:
			c->ifname[1] = opt_ifname(name, optarg);
			break;
		case OPT_DELAY:
			delay_us = opt_u64(name, optarg, 0, 10000000);
			break;
		case OPT_RATE:
			c->rate_mbit = opt_u64(name, optarg, 0, 1000000);
			break;
		case OPT_LOSS:
			c->loss_permille = opt_u64(name, optarg, 0, 1000);
			break;
		case OPT_SEED:
			c->seed = opt_u64(name, optarg, 0, UINT64_MAX);
			break;
		case OPT_QUEUE:
			c->queue_bytes = opt_u64(name, optarg, ETH_MIN_LEN,
						 QUEUE_MAX);
			break;
		case OPT_OVERHEAD:
			c->overhead = opt_u64(name, optarg, 0, 1000);
			break;
		case OPT_LATE:
			late_us = opt_u64(name, optarg, 1, 10000000);
			break;
		case OPT_NO_OFFLOAD:
			c->offload = false;
			break;
		case OPT_STATS:
			c->stats_path = optarg;
			break;
		case OPT_PIDFILE:
			c->pidfile = optarg;
			break;
		case OPT_SPIN:
			spin_us = opt_u64(name, optarg, 0, 100000);
			c->spin_auto = false;
			break;
		case OPT_NO_WAKE_COMP:
			c->wake_comp = false;
			break;
		case 'f':
			c->foreground = true;
			break;
		case 'h':
			usage(argv[0], EXIT_SUCCESS);
			break;
		default:
			usage(argv[0], EXIT_FAILURE);
			break;
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (!c->ifname[0] || !c->ifname[1])
		die("--if-a and --if-b are required");
	if (!c->ns[0] && !c->ns[1] && !strcmp(c->ifname[0], c->ifname[1]))
		die("--if-a and --if-b name the same tap in one namespace");

	c->delay_ns = delay_us * NS_PER_US;
	c->late_ns = late_us * NS_PER_US;
	c->spin_max_ns = spin_us * NS_PER_US;
	/* Learning starts from the cap, and a fixed value is the margin */
	c->margin_ns = c->spin_max_ns;
	if (!c->queue_bytes) {
		/* Twice the bandwidth-delay product of 1 Gbit/s */
		c->queue_bytes = 2 * BYTES_PER_US_1G * delay_us;
		c->queue_bytes = MAX(c->queue_bytes, QUEUE_FLOOR);
		c->queue_bytes = MIN(c->queue_bytes, QUEUE_DEFAULT_MAX);
	}
}

int main(int argc, char **argv)
{
	static struct ctx c;
	int notify_fd;

	parse_opts(&c, argc, argv);
	taps_setup(&c);
	notify_fd = daemonise(&c);
	dirs_setup(&c);
	events_setup(&c);

	fprintf(stderr, "delayline: %s <-> %s delay_us=%" PRId64
		" rate_mbit=%" PRIu64 " loss_permille=%u queue_bytes=%" PRIu64
		" offload=0x%x\n", c.ifname[0], c.ifname[1],
		c.delay_ns / NS_PER_US, c.rate_mbit, c.loss_permille,
		c.queue_bytes, c.offload_flags);

	ready(&c, notify_fd);
	loop(&c);

	stats_dump(&c);
	stats_write(&c);
	if (c.pidfile)
		unlink(c.pidfile);
	return EXIT_SUCCESS;
}
