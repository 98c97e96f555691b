// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit.c - unit tests: checksums, frame checks, flow table
 *
 * Fragments are fed to frag_add() as ip4_parse() or ip6_parse() describe
 * them. Frames are fed to input_frame() directly, as if read from the tap device,
 * with no tap attached (fd_tap = -1): replies go nowhere. Each malformed
 * frame must bump exactly its own drop counter and create no flow. The
 * stream backend is read through link_recv() from a socketpair.
 * Prints TAP.
 */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../checksum.h"
#include "../flow.h"
#include "../flow_table.h"
#include "../frag.h"
#include "../fwd.h"
#include "../icmp.h"
#include "../link.h"
#include "../passt.h"
#include "../pkt.h"
#include "../input.h"
#include "../ip.h"
#include "../splice.h"
#include "../stream.h"
#include "../tcp.h"
#include "../udp.h"
#include "unit_lib.h"

static struct ctx c;

static void test_checksum(void)
{
	static const uint8_t rfc1071[] = { 0x00, 0x01, 0xf2, 0x03,
					   0xf4, 0xf5, 0xf6, 0xf7 };
	static uint8_t big[65536];
	uint8_t buf[300];
	uint16_t r;
	int len, off, bad = 0;

	r = csum(rfc1071, sizeof(rfc1071), 0);
	ok(((uint8_t *)&r)[0] == 0x22 && ((uint8_t *)&r)[1] == 0x0d,
	   "checksum of the RFC 1071 example is 0x220d");

	srand(1);
	for (len = 0; len < 260; len++) {
		for (off = 0; off < 4; off++) {
			int i;

			for (i = 0; i < len; i++)
				buf[off + i] = rand();
			r = ntohs(csum(buf + off, len, 0));
			if (r != csum_ref(buf + off, len))
				bad++;
		}
	}
	ok(!bad, "checksum matches the reference for lengths 0-259, offsets 0-3");

	/* Lanes near their largest sums; an initial sum that carries when
	 * folded (0xffffffff: zero, in one's complement)
	 */
	memset(big, 0xff, sizeof(big));
	for (len = 65519, bad = 0; len <= 65521; len++) {
		if (ntohs(csum(big + 1, len, 0)) != csum_ref(big + 1, len))
			bad++;
	}
	for (len = 0; len < (int)sizeof(big); len++)
		big[len] = rand();
	for (len = 65519; len <= 65521; len++) {
		if (ntohs(csum(big + 1, len, 0xffffffff)) !=
		    csum_ref(big + 1, len))
			bad++;
	}
	ok(!bad, "checksum of 64 KiB: all 0xff; random, initial sum carrying");
}

/* Frame builder for tests: Ethernet + IPv4 + L4, valid unless broken later */
static uint8_t frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/* build_eth() - Ethernet header from the guest, the rest of @l3_len zeroed */
static uint8_t *build_eth(uint16_t proto, size_t l3_len)
{
	uint8_t *f = frame + FRAME_PAD;
	struct ethhdr *eh = (struct ethhdr *)f;

	memset(f, 0, sizeof(*eh) + l3_len);
	memcpy(eh->h_dest, c.mac_ours, 6);
	memcpy(eh->h_source, "\x02\x00\x00\x00\x00\x07", 6);
	eh->h_proto = htons(proto);
	return f;
}

static size_t build_ip4(uint8_t proto, const void *l4, size_t l4_len,
			const char *dst)
{
	uint8_t *f = build_eth(ETH_P_IP, 20);
	struct iphdr *ih = (struct iphdr *)(f + sizeof(struct ethhdr));

	ih->version = 4;
	ih->ihl = 5;
	ih->tot_len = htons(20 + l4_len);
	ih->ttl = 64;
	ih->protocol = proto;
	ih->saddr = c.net.addr4.s_addr;
	inet_pton(AF_INET, dst, &ih->daddr);
	ih->check = csum(ih, 20, 0);
	memcpy(f + 34, l4, l4_len);
	return 34 + l4_len;
}

static struct iphdr *frame_ip(void)
{
	return (struct iphdr *)(frame + FRAME_PAD + 14);
}

static void frame_ip_recsum(void)
{
	frame_ip()->check = 0;
	frame_ip()->check = csum(frame_ip(), 20, 0);
}

/**
 * expect_drop() - feed the frame, check one counter moved and no flow came
 */
static void expect_drop(size_t len, enum pkt_drop_reason reason,
			const char *desc)
{
	uint64_t before[DROP_REASONS];
	unsigned int flows = flow_count();
	int i, others = 0;

	memcpy(before, pkt_drops, sizeof(before));
	input_frame(&c, frame + FRAME_PAD, len, NULL);
	flow_defer_free(&c);
	for (i = 0; i < DROP_REASONS; i++)
		if (i != (int)reason && pkt_drops[i] != before[i])
			others++;
	ok(pkt_drops[reason] == before[reason] + 1 && !others &&
	   flow_count() == flows, desc);
}

static size_t build_tcp(uint8_t flags, const uint8_t *opts, size_t opt_len,
			size_t data_len)
{
	uint8_t l4[sizeof(struct tcphdr) + 40 + 64] = { 0 };
	struct tcphdr *th = (struct tcphdr *)l4;

	th->source = htons(40000);
	th->dest = htons(1);
	th->seq = htonl(1000);
	th->doff = (sizeof(*th) + opt_len) / 4;
	th->th_flags = flags;
	th->window = htons(65535);
	if (opt_len)
		memcpy(l4 + sizeof(*th), opts, opt_len);
	return build_ip4(IPPROTO_TCP, l4, sizeof(*th) + opt_len + data_len,
			 "203.0.113.2");
}

/**
 * test_addr_policy4() - IPv4 addresses and ports the guest may not use
 */
static void test_addr_policy4(void)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4 };
	uint8_t udp[12] = { 0x9c, 0x40, 0, 53, 0, 12 };	/* 40000 -> 53 */
	uint8_t dhcp[8] = { 0, 68, 0, 67, 0, 8 };
	static const struct {
		const char *src, *dst;
		uint8_t proto;
		enum pkt_drop_reason reason;
		const char *desc;
	} cases[] = {
		{ NULL, "127.0.0.1", IPPROTO_TCP, DROP_DST_ADDR,
		  "SYN to the host's 127.0.0.1 dropped, no flow" },
		{ NULL, "127.1.2.3", IPPROTO_UDP, DROP_DST_ADDR,
		  "UDP to 127.1.2.3 dropped" },
		{ NULL, "0.0.0.0", IPPROTO_TCP, DROP_DST_ADDR,
		  "SYN to 0.0.0.0 dropped" },
		{ "127.0.0.1", "203.0.113.2", IPPROTO_TCP, DROP_SRC_ADDR,
		  "SYN from 127.0.0.1 dropped" },
		{ "0.0.0.0", "203.0.113.2", IPPROTO_UDP, DROP_SRC_ADDR,
		  "UDP from 0.0.0.0 (not DHCP) dropped" },
		{ "224.0.0.1", "203.0.113.2", IPPROTO_UDP, DROP_SRC_ADDR,
		  "UDP from a multicast address dropped" },
		{ NULL, "224.0.0.251", IPPROTO_UDP, DROP_MULTICAST_DST,
		  "UDP to 224.0.0.251 (mDNS) dropped" },
		{ NULL, "255.255.255.255", IPPROTO_UDP, DROP_MULTICAST_DST,
		  "UDP to 255.255.255.255 (not DHCP) dropped" },
		{ NULL, "203.0.113.255", IPPROTO_UDP, DROP_MULTICAST_DST,
		  "UDP to the subnet's broadcast 203.0.113.255 dropped" },
		{ NULL, "203.0.113.255", IPPROTO_ICMP, DROP_MULTICAST_DST,
		  "ping to the subnet's broadcast dropped" },
	};
	unsigned int i;
	size_t len;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].proto == IPPROTO_TCP)
			len = build_tcp(TH_SYN, mss, sizeof(mss), 0);
		else if (cases[i].proto == IPPROTO_UDP)
			len = build_ip4(IPPROTO_UDP, udp, sizeof(udp), "0.0.0.0");
		else
			len = build_ip4(IPPROTO_ICMP, "\x08\0\xf7\xff\0\0\0\0",
					8, "0.0.0.0");
		inet_pton(AF_INET, cases[i].dst, &frame_ip()->daddr);
		if (cases[i].src)
			inet_pton(AF_INET, cases[i].src, &frame_ip()->saddr);
		frame_ip_recsum();
		expect_drop(len, cases[i].reason, cases[i].desc);
	}

	len = build_tcp(TH_SYN, mss, sizeof(mss), 0);
	((struct tcphdr *)(frame_ip() + 1))->dest = 0;
	expect_drop(len, DROP_PORT_ZERO, "SYN to port 0 dropped");
	udp[0] = udp[1] = 0;
	len = build_ip4(IPPROTO_UDP, udp, sizeof(udp), "203.0.113.2");
	expect_drop(len, DROP_PORT_ZERO, "UDP from port 0 dropped");

	/* DHCP from 0.0.0.0 to the broadcast passes, on to the server */
	len = build_ip4(IPPROTO_UDP, dhcp, sizeof(dhcp), "255.255.255.255");
	frame_ip()->saddr = 0;
	frame_ip_recsum();
	expect_drop(len, DROP_DHCP_MALFORMED,
		    "DHCP from 0.0.0.0 to 255.255.255.255 reaches the server");
}

static void test_frames(void)
{
	static const uint8_t mss_ws[] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7 };
	static const uint8_t opt_zero_len[] = { 2, 0, 0, 0 };
	static const uint8_t opt_past_end[] = { 1, 1, 8, 10 };
	static const uint8_t opt_bad_mss_len[] = { 2, 3, 0, 1 };
	uint8_t udp[16] = { 0 };
	struct udphdr *uh = (struct udphdr *)udp;
	size_t len;

	expect_drop(10, DROP_ETH_SHORT, "truncated Ethernet header dropped");

	len = build_ip4(IPPROTO_TCP, "", 0, "203.0.113.2");
	((struct ethhdr *)(frame + FRAME_PAD))->h_proto = htons(0x88b5);
	expect_drop(len, DROP_ETH_TYPE, "unknown EtherType dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	expect_drop(14 + 19, DROP_IP4_MALFORMED, "truncated IPv4 header dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->ihl = 4;
	frame_ip_recsum();
	expect_drop(len, DROP_IP4_MALFORMED, "IHL below 5 dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->tot_len = htons(ntohs(frame_ip()->tot_len) + 1);
	frame_ip_recsum();
	expect_drop(len, DROP_IP4_MALFORMED, "total length past frame end dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->ihl = 15;
	frame_ip()->tot_len = htons(50);
	frame_ip_recsum();
	expect_drop(len, DROP_IP4_MALFORMED, "IHL past total length dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->check ^= 0x0100;
	expect_drop(len, DROP_IP4_CSUM, "bad IPv4 header checksum dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->frag_off = htons(IP_MF);
	frame_ip_recsum();
	expect_drop(len, DROP_IP4_FRAG, "IPv4 fragment dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	frame_ip()->protocol = 132;
	frame_ip_recsum();
	expect_drop(len, DROP_IP4_PROTO, "unsupported protocol dropped");

	len = build_ip4(IPPROTO_TCP, "abcdefghij", 10, "203.0.113.2");
	expect_drop(len, DROP_TCP_MALFORMED, "truncated TCP header dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	((struct tcphdr *)(frame_ip() + 1))->doff = 4;
	expect_drop(len, DROP_TCP_MALFORMED, "TCP data offset below 5 dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	((struct tcphdr *)(frame_ip() + 1))->doff = 15;
	expect_drop(len, DROP_TCP_MALFORMED, "TCP data offset past the end dropped");

	len = build_tcp(TH_SYN | TH_FIN, mss_ws, sizeof(mss_ws), 0);
	expect_drop(len, DROP_TCP_FLAGS, "SYN+FIN dropped");

	len = build_tcp(TH_SYN | TH_RST, mss_ws, sizeof(mss_ws), 0);
	expect_drop(len, DROP_TCP_FLAGS, "SYN+RST dropped");

	len = build_tcp(0, NULL, 0, 0);
	expect_drop(len, DROP_TCP_FLAGS, "segment without flags dropped");

	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 8);
	expect_drop(len, DROP_TCP_FLAGS, "SYN with data dropped");

	len = build_tcp(TH_SYN, opt_zero_len, sizeof(opt_zero_len), 0);
	expect_drop(len, DROP_TCP_OPTS, "TCP option of length 0 dropped");

	len = build_tcp(TH_SYN, opt_past_end, sizeof(opt_past_end), 0);
	expect_drop(len, DROP_TCP_OPTS, "TCP option past the header dropped");

	len = build_tcp(TH_SYN, opt_bad_mss_len, sizeof(opt_bad_mss_len), 0);
	expect_drop(len, DROP_TCP_OPTS, "MSS option of wrong length dropped");

	len = build_tcp(TH_ACK, NULL, 0, 0);
	expect_drop(len, DROP_TCP_NOFLOW, "ACK for no connection dropped");

	uh->source = htons(40000);
	uh->dest = htons(53);
	uh->len = htons(17);
	len = build_ip4(IPPROTO_UDP, udp, 16, "203.0.113.2");
	expect_drop(len, DROP_UDP_MALFORMED, "UDP length past the end dropped");

	uh->len = htons(7);
	len = build_ip4(IPPROTO_UDP, udp, 16, "203.0.113.2");
	expect_drop(len, DROP_UDP_MALFORMED, "UDP length below header dropped");

	len = build_ip4(IPPROTO_UDP, udp, 4, "203.0.113.2");
	expect_drop(len, DROP_UDP_MALFORMED, "truncated UDP header dropped");

	len = build_ip4(IPPROTO_ICMP, "\x08\x00\x00", 3, "203.0.113.2");
	expect_drop(len, DROP_ICMP_MALFORMED, "truncated ICMP echo dropped");

	len = build_ip4(0, "", 0, "203.0.113.2");
	((struct ethhdr *)(frame + FRAME_PAD))->h_proto = htons(ETH_P_ARP);
	expect_drop(14 + 20, DROP_ARP_MALFORMED, "truncated ARP dropped");

	test_addr_policy4();

	/* A good SYN creates a flow; padding after the IP packet is trimmed */
	len = build_tcp(TH_SYN, mss_ws, sizeof(mss_ws), 0);
	input_frame(&c, frame + FRAME_PAD, len + 6, NULL);
	ok(flow_count() == 1, "good SYN with Ethernet padding creates a flow");
}

static struct flow_key test_key(unsigned int i)
{
	struct flow_key k = { .proto = IPPROTO_UDP };

	inany_from_v4(&k.gaddr, c.net.addr4);
	inany_from_v4(&k.paddr,
		      (struct in_addr){ htonl(0xc6336400 | (i & 0xff)) });
	k.gport = 1024 + i;
	k.pport = 53;
	return k;
}

/* IPv6 frames: Ethernet + IPv6 + extension headers @ext + L4 */
static size_t build_ip6(uint8_t nexthdr, const void *ext, size_t ext_len,
			const void *l4, size_t l4_len)
{
	uint8_t *f = build_eth(ETH_P_IPV6, 40);
	struct ipv6hdr *ip6h = (struct ipv6hdr *)(f + sizeof(struct ethhdr));

	ip6h->version = 6;
	ip6h->payload_len = htons(ext_len + l4_len);
	ip6h->nexthdr = nexthdr;
	ip6h->hop_limit = 64;
	inet_pton(AF_INET6, "2001:db8::1", &ip6h->saddr);
	inet_pton(AF_INET6, "2001:db8::2", &ip6h->daddr);
	if (ext_len)
		memcpy(f + 54, ext, ext_len);
	if (l4_len)
		memcpy(f + 54 + ext_len, l4, l4_len);
	return 54 + ext_len + l4_len;
}

static struct ipv6hdr *frame_ip6(void)
{
	return (struct ipv6hdr *)(frame + FRAME_PAD + 14);
}

/* An 8-byte options header (hop-by-hop or destination): PadN to the end */
#define OPTS8(next)	(next), 0, 1, 4, 0, 0, 0, 0

static void test_frames6(void)
{
	static const uint8_t syn[20] = { 0x9c, 0x40, 0, 1, [12] = 5 << 4,
					 [13] = TH_SYN, [14] = 0xff };
	static const uint8_t hbh_dst[] = { OPTS8(IPPROTO_DSTOPTS),
					   OPTS8(IPPROTO_TCP) };
	static const uint8_t dst_hbh[] = { OPTS8(IPPROTO_HOPOPTS),
					   OPTS8(IPPROTO_TCP) };
	static const uint8_t frag[] = { IPPROTO_TCP, 0, 0, 1, 0, 0, 0, 1 };
	static const uint8_t routing_segs[] = { IPPROTO_TCP, 0, 0, 1,
						0, 0, 0, 0 };
	static const uint8_t hbh_long[] = { IPPROTO_TCP, 4, 1, 4 };
	static const struct {
		bool src;
		const char *addr;
		enum pkt_drop_reason reason;
		const char *desc;
	} addr6_cases[] = {
		{ true, "ff02::1", DROP_IP6_ADDR, "multicast source dropped" },
		{ true, "::ffff:192.0.2.1", DROP_IP6_ADDR,
		  "IPv4-mapped source dropped" },
		{ false, "ff0e::1", DROP_MULTICAST_DST,
		  "TCP SYN to multicast dropped" },
		{ false, "::1", DROP_DST_ADDR, "SYN to the host's ::1 dropped" },
		{ false, "::", DROP_DST_ADDR, "SYN to :: dropped" },
		{ true, "::1", DROP_SRC_ADDR, "SYN from ::1 dropped" },
		{ true, "::", DROP_SRC_ADDR, "SYN from :: dropped" },
	};
	uint8_t chain[8 * 9];
	unsigned int i, flows;
	size_t len;

	len = build_ip6(IPPROTO_TCP, NULL, 0, syn, sizeof(syn));
	expect_drop(14 + 39, DROP_IP6_MALFORMED, "truncated IPv6 header dropped");

	len = build_ip6(IPPROTO_TCP, NULL, 0, syn, sizeof(syn));
	frame_ip6()->payload_len = htons(sizeof(syn) + 1);
	expect_drop(len, DROP_IP6_MALFORMED,
		    "IPv6 payload length past the frame end dropped");

	len = build_ip6(IPPROTO_TCP, NULL, 0, syn, sizeof(syn));
	frame_ip6()->payload_len = 0;
	expect_drop(len, DROP_IP6_JUMBO, "jumbogram (payload length 0) dropped");

	len = build_ip6(IPPROTO_FRAGMENT, frag, sizeof(frag), syn, sizeof(syn));
	expect_drop(len, DROP_IP6_FRAG, "IPv6 fragment dropped");

	len = build_ip6(IPPROTO_HOPOPTS, hbh_long, sizeof(hbh_long), NULL, 0);
	expect_drop(len, DROP_IP6_EXTHDR,
		    "hop-by-hop header longer than the payload dropped");

	len = build_ip6(IPPROTO_DSTOPTS, dst_hbh, sizeof(dst_hbh),
			syn, sizeof(syn));
	expect_drop(len, DROP_IP6_EXTHDR,
		    "hop-by-hop header not first dropped");

	for (i = 0; i < 9; i++) {
		uint8_t h[] = { OPTS8(i < 8 ? IPPROTO_DSTOPTS : IPPROTO_TCP) };

		memcpy(chain + i * 8, h, 8);
	}
	len = build_ip6(IPPROTO_DSTOPTS, chain, sizeof(chain), syn,
			sizeof(syn));
	expect_drop(len, DROP_IP6_EXTHDR,
		    "chain of nine extension headers dropped");

	len = build_ip6(IPPROTO_ROUTING, routing_segs, sizeof(routing_segs),
			syn, sizeof(syn));
	expect_drop(len, DROP_IP6_EXTHDR,
		    "routing header with segments left dropped");

	len = build_ip6(132, NULL, 0, syn, sizeof(syn));
	expect_drop(len, DROP_IP6_PROTO, "unsupported protocol over IPv6 dropped");

	len = build_ip6(IPPROTO_ICMP, NULL, 0, "\x08\0\0\0\0\0\0\0", 8);
	expect_drop(len, DROP_IP6_PROTO, "ICMP (for IPv4) over IPv6 dropped");

	for (i = 0; i < ARRAY_SIZE(addr6_cases); i++) {
		len = build_ip6(IPPROTO_TCP, NULL, 0, syn, sizeof(syn));
		inet_pton(AF_INET6, addr6_cases[i].addr,
			  addr6_cases[i].src ? &frame_ip6()->saddr :
					       &frame_ip6()->daddr);
		expect_drop(len, addr6_cases[i].reason, addr6_cases[i].desc);
	}

	len = build_ip6(IPPROTO_UDP, NULL, 0, "\x9c\x40\x14\xe9\0\x0c\0\0abcd",
			12);
	inet_pton(AF_INET6, "ff02::fb", &frame_ip6()->daddr);
	expect_drop(len, DROP_MULTICAST_DST, "UDP to ff02::fb (mDNS) dropped");

	len = build_ip6(IPPROTO_UDP, NULL, 0, "\x02\x22\x02\x23\0\x08\0\0", 8);
	inet_pton(AF_INET6, "fe80::7", &frame_ip6()->saddr);
	inet_pton(AF_INET6, "ff02::1:2", &frame_ip6()->daddr);
	expect_drop(len, DROP_DHCP6_MALFORMED,
		    "DHCPv6 to ff02::1:2 reaches the server");

	len = build_ip6(IPPROTO_TCP, NULL, 0, syn, sizeof(syn));
	c.net.ip6_off = true;
	ip_net_init(&c);
	expect_drop(len, DROP_IP_FAMILY_OFF, "IPv6 with -4 dropped");
	c.net.ip6_off = false;
	ip_net_init(&c);

	flows = flow_count();
	len = build_ip6(IPPROTO_HOPOPTS, hbh_dst, sizeof(hbh_dst), syn,
			sizeof(syn));
	input_frame(&c, frame + FRAME_PAD, len + 6, NULL);
	ok(flow_count() == flows + 1,
	   "SYN after hop-by-hop and destination options creates a flow");
	flow_close_all(&c);
	flow_defer_free(&c);
}

/* test_udp_flow() - make an allocated entry a UDP flow without a socket */
static void test_udp_flow(int idx, struct flow_key key, int64_t now)
{
	flowtab[idx].udp.f.type = FLOW_UDP;
	flowtab[idx].udp.f.key = key;
	flowtab[idx].udp.sock = -1;	/* no socket to close */
	flowtab[idx].udp.f.active_at = now;
	flow_hash_insert(idx);
}

static void test_flow_table(void)
{
	unsigned int i, found = 0, wrong = 0;
	int idx;

	flow_defer_free(&c);
	for (i = 0; i < FLOW_MAX; i++) {
		if (flow_at(i)->type != FLOW_FREE)
			flow_close(i);
	}
	flow_defer_free(&c);
	ok(flow_count() == 0, "flow table empty after closing everything");

	/* The TCP and outbound UDP shares together make up the table */
	for (i = 0; i < FLOW_MAX; i++) {
		idx = flow_alloc(&c, i < FLOW_MAX / 4 * 3 ? FLOW_BUDGET_TCP :
				 FLOW_BUDGET_UDP_OUT);
		if (idx < 0)
			break;
		test_udp_flow(idx, test_key(i), c.now);
	}
	ok(i == FLOW_MAX && flow_count() == FLOW_MAX, "table fills to capacity");
	ok(flow_alloc(&c, FLOW_BUDGET_ICMP) < 0,
	   "allocation fails when full");

	for (i = 0; i < FLOW_MAX; i++) {
		struct flow_key k = test_key(i);

		idx = flow_lookup(&k);
		if (idx >= 0)
			found++;
		if (idx >= 0 && memcmp(&flowtab[idx].f.key, &k, sizeof(k)))
			wrong++;
	}
	ok(found == FLOW_MAX && !wrong, "every flow found by its key at capacity");

	for (i = 0; i < FLOW_MAX; i += 2) {
		struct flow_key k = test_key(i);

		flow_close(flow_lookup(&k));
	}
	flow_defer_free(&c);
	found = 0;
	for (i = 0; i < FLOW_MAX; i++) {
		struct flow_key k = test_key(i);

		if ((flow_lookup(&k) >= 0) != (i % 2))
			wrong++;
		else
			found++;
	}
	ok(!wrong && flow_count() == FLOW_MAX / 2,
	   "after closing half, exactly the other half is found");

	c.now += UDP_IDLE_TIMEOUT_MS + 1;
	flow_timer(&c);
	flow_defer_free(&c);
	ok(flow_count() == 0, "idle UDP flows expire after the timeout");
	ok(flow_alloc(&c, FLOW_BUDGET_TCP) >= 0,
	   "entries are reusable after expiry");
	flow_close_all(&c);
	flow_defer_free(&c);
}

/**
 * test_flow_budgets() - a flood of one kind can't take the whole table
 */
static void test_flow_budgets(void)
{
	unsigned int i, n = 0;
	int oldest[3], idx;

	for (i = 0; i < FLOW_MAX; i++) {
		idx = flow_alloc(&c, FLOW_BUDGET_UDP_IN);
		if (idx < 0)
			break;
		test_udp_flow(idx, test_key(i), c.now);
		if (n < ARRAY_SIZE(oldest))
			oldest[n] = idx;
		n++;
	}
	ok(n == FLOW_MAX / 8 && flow_budget_used(FLOW_BUDGET_UDP_IN) == n,
	   "inbound UDP stops at its share, an eighth of the table, while "
	   "all are active");
	ok(flow_alloc(&c, FLOW_BUDGET_TCP) >= 0 &&
	   flow_alloc(&c, FLOW_BUDGET_UDP_OUT) >= 0,
	   "TCP and the guest's UDP still get flows");

	c.now += 2000;
	idx = flow_alloc(&c, FLOW_BUDGET_UDP_IN);
	ok(idx >= 0 && flow_at(oldest[0])->closing,
	   "once idle, the oldest inbound UDP flow makes room for a new one");
	test_udp_flow(idx, test_key(FLOW_MAX + 1), c.now);
	flow_at(oldest[1])->active_at = c.now;	/* the next one is active */
	idx = flow_alloc(&c, FLOW_BUDGET_UDP_IN);
	ok(idx >= 0 && !flow_at(oldest[1])->closing &&
	   flow_at(oldest[2])->closing,
	   "an active one is passed over: the next oldest idle one goes");
	flow_close_all(&c);
	flow_defer_free(&c);
}

/**
 * test_flow_evict_half_open() - a full TCP share evicts half-open flows only
 */
static void test_flow_evict_half_open(void)
{
	unsigned int i, n, established_closed = 0;
	int half = -1, idx;

	/* Earlier tests may leave entries of their own */
	n = FLOW_MAX / 4 * 3 - flow_budget_used(FLOW_BUDGET_TCP);
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn;

		idx = flow_alloc(&c, FLOW_BUDGET_TCP);
		if (idx < 0)
			break;
		conn = &flowtab[idx].tcp;
		conn->f.type = FLOW_TCP;
		conn->f.key = test_key(i);
		conn->sock = -1;
		conn->phase = TCP_PHASE_ESTABLISHED;
		if (i == 100) {
			conn->phase = TCP_PHASE_CONNECTING;
			half = idx;
		}
		flow_hash_insert(idx);
	}
	idx = flow_alloc(&c, FLOW_BUDGET_TCP);
	ok(half >= 0 && idx >= 0 && flow_at(half)->closing,
	   "TCP's share full: the half-open connection makes room");
	idx = flow_alloc(&c, FLOW_BUDGET_TCP);
	for (i = 0; i < flow_high_water(); i++)
		established_closed += (int)i != half &&
				      flow_at(i)->type == FLOW_TCP &&
				      flow_at(i)->closing;
	ok(idx < 0 && !established_closed,
	   "none half-open left: refused, no established one evicted");
	flow_close_all(&c);
	flow_defer_free(&c);
}

/**
 * test_flow_lifetimes() - unanswered datagram flows go sooner than answered
 */
static void test_flow_lifetimes(void)
{
	int quiet = flow_alloc(&c, FLOW_BUDGET_UDP_OUT), both;

	test_udp_flow(quiet, test_key(1), c.now);
	both = flow_alloc(&c, FLOW_BUDGET_UDP_OUT);
	test_udp_flow(both, test_key(2), c.now);
	flow_dgram_seen(flow_at(both), c.now, true);

	c.now += 30 * 1000;
	flow_timer(&c);
	ok(flow_at(quiet)->closing && !flow_at(both)->closing,
	   "an unanswered UDP flow expires after 30 s, an answered one not");
	flow_defer_free(&c);
	c.now += UDP_IDLE_TIMEOUT_MS - 30 * 1000 - 1000;
	flow_timer(&c);
	ok(!flow_at(both)->closing, "the answered one is still there at 179 s");
	c.now += 1000;
	flow_timer(&c);
	ok(flow_at(both)->closing, "and expires at 180 s");
	flow_defer_free(&c);
}

/**
 * test_stream_batch() - a batch of frames from several reads of passt's
 *			 socket: each frame whole, in its own slot
 *
 * Frames of 60000 bytes: the stream buffer takes four at a time, so one
 * batch is made of several reads.
 */
static void test_stream_batch(void)
{
	enum { N = 12, LEN = 60000 };
	static uint8_t frame[sizeof(uint32_t) + LEN];
	struct link_rx rx[LINK_RX_MAX];
	int sndbuf = 4 << 20, sv[2], i, bad = 0;
	uint32_t prefix = htonl(LEN);
	unsigned int n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) ||
	    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
		       sizeof(sndbuf))) {
		perror("socketpair");
		exit(1);
	}
	c.mode = MODE_PASST;
	c.fd_tap_listen = -1;
	link_init(&c, &stream_link);
	link_attach(&c, sv[0]);
	memcpy(frame, &prefix, sizeof(prefix));
	for (i = 0; i < N; i++) {
		memset(frame + sizeof(prefix), i + 1, LEN);
		if (write(sv[1], frame, sizeof(frame)) != sizeof(frame))
			bad++;
	}
	/* As input_handler() asks: a frame at a time, each into the next slot,
	 * while the earlier ones must keep their data to the batch's end
	 */
	for (n = 0; n < LINK_RX_MAX && link_recv(&c, EPOLLIN, &rx[n], n, 1);)
		n++;
	for (i = 0; i < (int)n; i++) {
		if (rx[i].len != LEN || rx[i].data[0] != i + 1 ||
		    rx[i].data[LEN - 1] != i + 1)
			bad++;
	}
	ok(n == N && !bad, "passt's socket: 12 frames of 60000 bytes from "
	   "several reads, one at a time into one batch's slots, each whole "
	   "and in order to the end");

	link_guest_gone();
	link_guest_detach(&c);		/* closes sv[0] */
	close(sv[1]);
	c.mode = MODE_PASTA;
	c.quit = false;
}

/**
 * frag_feed() - give frag_add() a part of a test datagram
 * @l3:		addresses, protocol and identification
 * @dgram:	the whole datagram
 * @off:	where the part starts
 * @len:	its length
 * @more:	more fragments follow
 * @now:	now, milliseconds
 * @whole:	set to the datagram, if this completes it
 *
 * Return: true if it completes the datagram
 */
static bool frag_feed(const struct l3_info *l3, const uint8_t *dgram,
		      size_t off, size_t len, bool more, int64_t now,
		      struct pkt_view *whole)
{
	struct l3_info f = *l3;

	f.frag = true;
	f.frag_off = off;
	f.frag_more = more;
	f.hop_limit = 60 + off / 8;
	*whole = (struct pkt_view){ dgram + off, len };
	if (!frag_add(&f, whole, now))
		return false;
	return f.hop_limit == 60 && !f.frag && !f.df && f.proto == l3->proto;
}

/**
 * frag_counted() - did a drop counter move by one, and no other?
 * @before:	counters before
 * @reason:	the one that should have
 *
 * Return: true if so
 */
static bool frag_counted(const uint64_t *before, enum pkt_drop_reason reason)
{
	int i;

	for (i = 0; i < DROP_REASONS; i++)
		if (pkt_drops[i] != before[i] + (i == (int)reason))
			return false;
	return true;
}

/**
 * test_frag() - the guest's fragments put back together, or dropped
 */
static void test_frag(void)
{
	struct l3_info l3 = { .proto = IPPROTO_UDP, .frag_id = 7 };
	uint64_t before[DROP_REASONS];
	static uint8_t dgram[65536];
	struct pkt_view v;
	bool done;
	size_t i;

	for (i = 0; i < sizeof(dgram); i++)
		dgram[i] = i * 7 + i / 251;
	inany_from_v4(&l3.src, (struct in_addr){ htonl(0xcb007101) });
	inany_from_v4(&l3.dst, (struct in_addr){ htonl(0xc0000202) });

	/* Out of order: last, first, middle */
	done = frag_feed(&l3, dgram, 2960, 40, false, c.now, &v) ||
	       frag_feed(&l3, dgram, 0, 1480, true, c.now, &v);
	ok(!done && frag_feed(&l3, dgram, 1480, 1480, true, c.now, &v) &&
	   v.len == 3000 && !memcmp(v.data, dgram, 3000),
	   "fragments out of order: one datagram, the first one's TTL");

	/* A whole 64 KiB IPv6 datagram, and an atomic fragment */
	inany_from_v4(&l3.src, (struct in_addr){ 0 });
	inet_pton(AF_INET6, "2001:db8:1::1", &l3.src.a6);
	inet_pton(AF_INET6, "2001:db8:3::2", &l3.dst.a6);
	for (i = 0, done = false; i + 1232 < 65535; i += 1232)
		done |= frag_feed(&l3, dgram, i, 1232, true, c.now, &v);
	ok(!done && frag_feed(&l3, dgram, i, 65535 - i, false, c.now, &v) &&
	   v.len == 65535 && !memcmp(v.data, dgram, 65535),
	   "IPv6: 65535 bytes in 54 fragments");
	ok(frag_feed(&l3, dgram, 0, 100, false, c.now, &v) && v.len == 100,
	   "IPv6: an atomic fragment is a datagram");

	memcpy(before, pkt_drops, sizeof(before));
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	ok(frag_counted(before, DROP_FRAG_DUPLICATE) &&
	   frag_feed(&l3, dgram, 1000, 8, false, c.now, &v) && v.len == 1008,
	   "a duplicate is dropped alone");

	memcpy(before, pkt_drops, sizeof(before));
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	frag_feed(&l3, dgram, 992, 16, true, c.now, &v);
	ok(frag_counted(before, DROP_FRAG_MALFORMED) &&
	   !frag_feed(&l3, dgram, 1000, 8, false, c.now, &v),
	   "an overlap drops the datagram");

	memcpy(before, pkt_drops, sizeof(before));
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	frag_feed(&l3, dgram, 2000, 100, false, c.now, &v);
	frag_feed(&l3, dgram, 1000, 1000, false, c.now, &v);
	ok(frag_counted(before, DROP_FRAG_MALFORMED), "two ends: dropped");

	memcpy(before, pkt_drops, sizeof(before));
	frag_feed(&l3, dgram, 0, 1001, true, c.now, &v);
	frag_feed(&l3, dgram, 65528, 16, false, c.now, &v);
	frag_feed(&l3, dgram, 0, 0, false, c.now, &v);
	ok(pkt_drops[DROP_FRAG_MALFORMED] == before[DROP_FRAG_MALFORMED] + 3,
	   "not a multiple of 8, past 64 KiB, empty: dropped");

	memcpy(before, pkt_drops, sizeof(before));
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	ok(!frag_feed(&l3, dgram, 1000, 8, false, c.now + 5000, &v) &&
	   pkt_drops[DROP_FRAG_EXPIRED] == before[DROP_FRAG_EXPIRED] + 1,
	   "after 5 s, a datagram's fragments are gone");
	frag_feed(&l3, dgram, 0, 1000, true, c.now + 5000, &v);

	/* Nine datagrams at a time: the oldest goes */
	memcpy(before, pkt_drops, sizeof(before));
	for (i = 0; i < 9; i++) {
		l3.frag_id = 100 + i;
		frag_feed(&l3, dgram, 0, 1000, true, c.now + 6000 + i, &v);
	}
	l3.frag_id = 100;
	done = frag_feed(&l3, dgram, 1000, 8, false, c.now + 6010, &v);
	l3.frag_id = 108;
	ok(!done && frag_feed(&l3, dgram, 1000, 8, false, c.now + 6010, &v) &&
	   pkt_drops[DROP_FRAG_EXPIRED] == before[DROP_FRAG_EXPIRED] + 2,
	   "a ninth datagram at once takes the oldest one's place");

	memcpy(before, pkt_drops, sizeof(before));
	l3.proto = IPPROTO_TCP;
	frag_feed(&l3, dgram, 0, 1000, true, c.now, &v);
	ok(frag_counted(before, DROP_IP6_FRAG), "TCP fragments: dropped");
}

int main(void)
{
	c.mode = MODE_PASTA;
	c.fd_tap = -1;
	c.mtu = 65520;
	c.epollfd = epoll_create1(0);
	inet_pton(AF_INET, "203.0.113.1", &c.net.addr4);
	inet_pton(AF_INET, "203.0.113.2", &c.net.gw4);
	c.net.prefix4 = 24;
	ip_net_init(&c);
	memcpy(c.mac_ours, "\x02\x70\x61\x73\x74\x61", 6);
	c.now = now_ms();
	flow_init();
	/* Flow types and the tap's receive slots: no ports to listen on */
	tcp_init();
	udp_init();
	icmp_init();
	splice_init();

	test_checksum();
	test_frames();
	test_frames6();
	test_frag();
	test_flow_table();
	test_flow_budgets();
	test_flow_lifetimes();
	test_flow_evict_half_open();
	test_stream_batch();

	return tests_done();
}
