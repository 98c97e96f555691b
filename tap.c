// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - frame I/O with the guest, Ethernet and IPv4 input checks
 *
 * Theory of operation: pasta reads frames from a tap device, one frame per
 * read(), as many as are queued (up to TAP_BATCH) per wake-up; each is checked
 * and dispatched at once, and the protocol handlers defer their ACKs to the
 * end of the batch (tap_batch_end hook in passt.c), so that a burst of
 * segments costs one ACK. Every header is read through a struct pkt_view and
 * checked once, completely (IHL against total length against frame length,
 * header checksum), then trusted by the L4 handlers. Whatever fails a check
 * is dropped through pkt_drop() with a reason.
 *
 * Output: callers build frames in their own buffers at FRAME_PAD offset, with
 * tap_ip4_hdr_fill() for the L2 and L3 headers, and hand them to tap_send().
 */

#include <errno.h>
#include <sys/epoll.h>
#include <linux/if_ether.h>
#include <net/if_arp.h>
#include <netinet/ip.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "arp.h"
#include "checksum.h"
#include "log.h"
#include "passt.h"
#include "pcap.h"
#include "tap.h"
#include "tcp.h"
#include "udp.h"

#define TAP_BATCH		128

uint64_t pkt_drops[DROP_REASONS];
const char *const pkt_drop_names[DROP_REASONS] = {
	[DROP_ETH_SHORT]	= "eth_short",
	[DROP_ETH_TYPE]		= "eth_type",
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
	[DROP_FLOW_TABLE_FULL]	= "flow_table_full",
};

static uint64_t tap_frames_in, tap_frames_out, tap_send_errors;

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
 * tap_send_raw() - send one complete Ethernet frame to the guest
 * @c:		execution context
 * @eth:	frame, from the destination MAC address on
 * @len:	frame length
 *
 * A full tap queue drops the frame, like a lossy link: TCP recovers.
 */
void tap_send_raw(struct ctx *c, const uint8_t *eth, size_t len)
{
	if (c->fd_tap < 0)
		return;

	pcap_frame(eth, len);
	if (write(c->fd_tap, eth, len) < 0) {
		tap_send_errors++;
		if (errno != EAGAIN && errno != ENOBUFS)
			err_ratelimit("tap write: %s", strerror(errno));
		return;
	}
	tap_frames_out++;
}

/**
 * tap_send() - send a frame built with tap_ip4_hdr_fill()
 * @c:		execution context
 * @buf:	frame buffer (FRAME_PAD bytes before the Ethernet header)
 * @l4_len:	L4 header and payload length
 */
void tap_send(struct ctx *c, const uint8_t *buf, size_t l4_len)
{
	tap_send_raw(c, buf + FRAME_ETH_OFF,
		     FRAME_L4_OFF - FRAME_ETH_OFF + l4_len);
}

/**
 * tap_handler() - read and handle queued frames from the tap device
 * @c:		execution context
 * @events:	epoll events
 */
void tap_handler(struct ctx *c, uint32_t events)
{
	static uint8_t buf[FRAME_BUF_SIZE] __attribute__((aligned(8)));
	int i;

	if (events & (EPOLLHUP | EPOLLERR)) {
		err("tap device closed");
		c->quit = true;
		return;
	}

	for (i = 0; i < TAP_BATCH; i++) {
		ssize_t n = read(c->fd_tap, buf + FRAME_PAD,
				 sizeof(buf) - FRAME_PAD);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				err_ratelimit("tap read: %s", strerror(errno));
			break;
		}
		tap_input(c, buf + FRAME_PAD, n);
	}
}

/**
 * tap_stats() - log frame counters and drop reasons
 * @c:		execution context
 */
void tap_stats(const struct ctx *c)
{
	int i;

	(void)c;
	info("tap: frames in %llu, out %llu, send errors %llu",
	     (unsigned long long)tap_frames_in,
	     (unsigned long long)tap_frames_out,
	     (unsigned long long)tap_send_errors);
	for (i = 0; i < DROP_REASONS; i++) {
		if (pkt_drops[i])
			info("drop %s: %llu", pkt_drop_names[i],
			     (unsigned long long)pkt_drops[i]);
	}
}
