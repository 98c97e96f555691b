// SPDX-License-Identifier: GPL-2.0-or-later
/* input.c - the input layer: frames from the guest, checked and dispatched
 *
 * Theory of operation: the top of the frame path from the guest. We ask the
 * link (link.c) for a batch of frames, run the pure parsers on each
 * (Ethernet here, IPv4 and IPv6 with the address policy in ip.c: they return
 * a view or a drop reason and send nothing), put fragmented datagrams back
 * together (frag.c), and hand the result to its
 * handler: TCP, UDP, ICMP, or one of the services we answer on the link
 * ourselves (ARP, NDP, DHCP, DHCPv6). Whatever fails a check is dropped
 * through pkt_drop() with a reason.
 *
 * The handlers may keep pointers into the frames of a batch (TCP queues the
 * in-sequence payload of a run of segments, to write it with one sendmsg()):
 * the batch ends here, with tcp_tx_flush(), before the next one reuses the
 * link's receive slots. TCP's ACKs wait for the end of the whole event batch
 * (tcp_batch_end() in passt.c), so that a burst of segments costs one ACK.
 *
 * Calls go down only: nothing below calls this file.
 */

#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/udp.h>

#include "arp.h"
#include "dhcp.h"
#include "dhcpv6.h"
#include "frag.h"
#include "fwd.h"
#include "icmp.h"
#include "input.h"
#include "ip.h"
#include "link.h"
#include "ndp.h"
#include "passt.h"
#include "tcp.h"
#include "udp.h"

/**
 * input_udp() - a UDP datagram: to our DHCP or DHCPv6 server, or relayed
 * @c:		execution context
 * @l3:		addresses, checked
 * @l4:		the UDP header and payload
 */
static void input_udp(struct ctx *c, const struct l3_info *l3,
		      struct pkt_view l4)
{
	const struct guest_net *net = ip_net();
	const struct udphdr *uh = pkt_pull(&l4, sizeof(*uh));
	uint16_t sport, dport;

	if (!uh || ntohs(uh->len) < sizeof(*uh) ||
	    ntohs(uh->len) - sizeof(*uh) > l4.len) {
		pkt_drop(DROP_UDP_MALFORMED);
		return;
	}
	l4.len = ntohs(uh->len) - sizeof(*uh);	/* trim to UDP length */
	sport = ntohs(uh->source);
	dport = ntohs(uh->dest);

	/* DHCP from the guest, broadcast or to us, is ours to answer */
	if (!c->no_dhcp && dport == DHCP_SERVER_PORT &&
	    sport == DHCP_CLIENT_PORT &&
	    (inany_equals4(&l3->dst,
			   (struct in_addr){ htonl(INADDR_BROADCAST) }) ||
	     inany_equals4(&l3->dst, net->gw4))) {
		dhcp_input(c, l4);
		return;
	}
	/* DHCPv6, to all servers on the link or to us (RFC 8415, 7.1) */
	if (!c->no_dhcpv6 && dport == DHCPV6_SERVER_PORT &&
	    sport == DHCPV6_CLIENT_PORT &&
	    (inany_equals6(&l3->dst, &dhcpv6_all_servers) ||
	     inany_equals6(&l3->dst, &net->ll6_ours))) {
		dhcpv6_input(c, l3, l4);
		return;
	}
	udp_tap_input(c, l3, sport, dport, l4);
}

/**
 * input_l4() - hand a checked packet to its protocol or link service
 * @c:		execution context
 * @l3:		addresses and protocol
 * @l4:		exactly the L4 header and payload, or its first part
 * @tail:	TCP: the rest of the payload, where the link left it
 * @noproto:	drop reason for a protocol we don't handle in this family
 */
static void input_l4(struct ctx *c, const struct l3_info *l3,
		     struct pkt_view l4, const struct pkt_tail *tail,
		     enum pkt_drop_reason noproto)
{
	bool v4 = inany_is_v4(&l3->src);
	int ret = ip_l4_policy(c, l3, l4);

	if (ret) {
		pkt_drop(ret);
		return;
	}
	switch (l3->proto) {
	case IPPROTO_TCP:
		tcp_tap_input(c, l3, l4, tail);
		return;
	case IPPROTO_UDP:
		input_udp(c, l3, l4);
		return;
	case IPPROTO_ICMP:
		if (v4) {
			icmp_tap_input(c, l3, l4);
			return;
		}
		break;
	case IPPROTO_ICMPV6:
		if (v4)
			break;
		if (!ip_is_ndp(l3, l4))
			icmp_tap_input(c, l3, l4);
		else if (!c->no_ndp)
			ndp_input(c, l3, l4);
		return;
	}
	pkt_drop(noproto);
}

/**
 * input_ip() - check an IPv4 or IPv6 packet completely, then dispatch it
 * @c:		execution context
 * @v:		view from the start of the IP header to the end of the frame,
 *		or of its first part
 * @v6:		IPv6, not IPv4
 * @tail:	the rest of the frame, where the link left it
 */
static void input_ip(struct ctx *c, struct pkt_view v, bool v6,
		     const struct pkt_tail *tail)
{
	struct pkt_tail l4_tail = *tail;
	struct pkt_view l4;
	struct l3_info l3;
	int ret;

	ret = v6 ? ip6_parse(v, &l4_tail.len, &l3, &l4) :
		   ip4_parse(v, &l4_tail.len, &l3, &l4);
	if (ret) {
		pkt_drop(ret);
		return;
	}
	/* Only a TCP segment's payload is ever left where the link has it
	 * (vhost-user: frames of the guest's segmentation offload)
	 */
	if (l4_tail.len && (l3.proto != IPPROTO_TCP || l3.frag)) {
		pkt_drop(DROP_TAP_GSO);
		return;
	}
	if (l3.frag && !frag_add(&l3, &l4, c->now))
		return;
	if (!fwd_is_target(&l3.src))
		ip_guest_seen(&l3.src);
	input_l4(c, &l3, l4, &l4_tail, v6 ? DROP_IP6_PROTO : DROP_IP4_PROTO);
}

/**
 * input_frame() - check and dispatch one Ethernet frame from the guest
 * @c:		execution context
 * @frame:	frame, from the destination MAC address on, or its first part
 * @len:	its length
 * @tail:	the rest of the frame, where the link left it; NULL if none
 *
 * A large TCP frame of the tap device's segmentation offload is handled as
 * it is: one segment with a lot of payload, which is what it means.
 */
void input_frame(struct ctx *c, const uint8_t *frame, size_t len,
		 const struct pkt_tail *tail)
{
	static const struct pkt_tail no_tail;
	struct pkt_view v = { frame, len };
	const struct ethhdr *eh = pkt_pull(&v, sizeof(*eh));

	if (!eh) {
		pkt_drop(DROP_ETH_SHORT);
		return;
	}
	if (!(eh->h_source[0] & 1))
		link_guest_mac_seen(eh->h_source);

	switch (ntohs(eh->h_proto)) {
	case ETH_P_ARP:
		if (tail && tail->len)
			pkt_drop(DROP_TAP_GSO);
		else
			arp_input(c, v);
		break;
	case ETH_P_IP:
		input_ip(c, v, false, tail ? tail : &no_tail);
		break;
	case ETH_P_IPV6:
		input_ip(c, v, true, tail ? tail : &no_tail);
		break;
	default:
		pkt_drop(DROP_ETH_TYPE);
	}
}

/**
 * input_handler() - the guest's link is ready: read, check and dispatch
 * @c:		execution context
 * @events:	epoll events of its descriptor
 */
void input_handler(struct ctx *c, uint32_t events)
{
	struct link_rx rx;
	unsigned int n;

	/* A frame at a time into the batch's slots: what the guest answers
	 * while we handle one is read in this same wake-up, where a batch
	 * read up front made it wait for the next (one wake-up more per
	 * outbound connection: 7% of their rate)
	 */
	do {
		for (n = 0; n < LINK_RX_MAX && !link_guest_lost(); n++) {
			if (!link_recv(c, events, &rx, n, 1))
				break;
			input_frame(c, rx.data, rx.len, &rx.tail);
		}
		tcp_tx_flush(c);	/* nothing points into the slots now */
		link_rx_done(c);	/* nor into the guest's buffers */
	} while (n == LINK_RX_MAX);
}
