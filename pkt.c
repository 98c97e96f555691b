// SPDX-License-Identifier: GPL-2.0-or-later
/* pkt.c - drop counters: every frame from the guest we discard, by reason
 *
 * One counter per reason (enum pkt_drop_reason), logged by SIGUSR1 with
 * link_stats() and read by the unit tests.
 */

#include "log.h"
#include "pkt.h"

uint64_t pkt_drops[DROP_REASONS];
const char *const pkt_drop_names[DROP_REASONS] = {
	[DROP_ETH_SHORT]	= "eth_short",
	[DROP_ETH_TYPE]		= "eth_type",
	[DROP_TAP_GSO]		= "tap_gso",
	[DROP_ARP_MALFORMED]	= "arp_malformed",
	[DROP_IP4_MALFORMED]	= "ip4_malformed",
	[DROP_IP4_CSUM]		= "ip4_checksum",
	[DROP_IP4_FRAG]		= "ip4_fragment",
	[DROP_IP4_PROTO]	= "ip4_protocol",
	[DROP_IP6_MALFORMED]	= "ip6_malformed",
	[DROP_IP6_JUMBO]	= "ip6_jumbogram",
	[DROP_IP6_EXTHDR]	= "ip6_extension_header",
	[DROP_IP6_FRAG]		= "ip6_fragment",
	[DROP_FRAG_MALFORMED]	= "fragment_malformed",
	[DROP_FRAG_DUPLICATE]	= "fragment_duplicate",
	[DROP_FRAG_EXPIRED]	= "fragments_incomplete",
	[DROP_IP6_ADDR]		= "ip6_address",
	[DROP_IP6_PROTO]	= "ip6_protocol",
	[DROP_IP_FAMILY_OFF]	= "ip_family_disabled",
	[DROP_SRC_ADDR]		= "source_address",
	[DROP_DST_ADDR]		= "destination_address",
	[DROP_MULTICAST_DST]	= "multicast_or_broadcast_destination",
	[DROP_PORT_ZERO]	= "port_zero",
	[DROP_L4_DISABLED]	= "protocol_disabled",
	[DROP_TCP_MALFORMED]	= "tcp_malformed",
	[DROP_TCP_FLAGS]	= "tcp_flags",
	[DROP_TCP_OPTS]		= "tcp_options",
	[DROP_TCP_NOFLOW]	= "tcp_no_flow",
	[DROP_TCP_SEQ]		= "tcp_sequence",
	[DROP_UDP_MALFORMED]	= "udp_malformed",
	[DROP_ICMP_MALFORMED]	= "icmp_malformed",
	[DROP_NDP_MALFORMED]	= "ndp_malformed",
	[DROP_DHCP_MALFORMED]	= "dhcp_malformed",
	[DROP_DHCP6_MALFORMED]	= "dhcpv6_malformed",
	[DROP_FLOW_TABLE_FULL]	= "flow_table_full",
};

/**
 * pkt_drop() - account for a frame from the guest that we discard
 * @reason:	why
 */
void pkt_drop(enum pkt_drop_reason reason)
{
	pkt_drops[reason]++;
	debug("dropped frame: %s", pkt_drop_names[reason]);
}

