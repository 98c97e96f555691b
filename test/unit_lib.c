// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_lib.c - what the unit tests share
 *
 * TAP output; the "tap": one end of a datagram socketpair, as in pasta mode
 * the daemon writes one Ethernet frame per call to fd_tap, so that each frame
 * is one datagram read, without waiting, from the other end; and a parser of
 * our own for those frames (Ethernet, IPv4 or IPv6, then the UDP, TCP or
 * ICMPv6 checksum over the pseudo-header, RFC 768, RFC 9293, 3.1 and
 * RFC 8200, 8.1), with reference checksums of its own rather than those of
 * checksum.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../link.h"
#include "../passt.h"
#include "../pkt.h"
#include "../tap.h"
#include "unit_lib.h"

static int test_n, test_failed;
static int peer_fd = -1;	/* the other end of c->fd_tap */

/* --- TAP ------------------------------------------------------------------ */

/**
 * okf() - report one TAP test result
 * @cond:	whether the test passed
 * @fmt:	description, printf-style
 */
void okf(int cond, const char *fmt, ...)
{
	va_list ap;

	test_n++;
	if (!cond)
		test_failed++;
	printf("%sok %d - ", cond ? "" : "not ", test_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/**
 * ok() - report one TAP test result
 * @cond:	whether the test passed
 * @desc:	description
 */
void ok(int cond, const char *desc)
{
	okf(cond, "%s", desc);
}

/**
 * tests_done() - print the plan, after the tests
 *
 * Return: exit status, 1 if any test failed
 */
int tests_done(void)
{
	printf("1..%d\n", test_n);
	return test_failed ? 1 : 0;
}

/* --- the tap -------------------------------------------------------------- */

/**
 * tap_peer_open() - connect the context to a socketpair, in pasta mode
 * @c:		execution context: mode and fd_tap set
 *
 * Return: c->fd_tap; exits if the socketpair can't be made
 */
int tap_peer_open(struct ctx *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		perror("socketpair");
		exit(1);
	}
	c->mode = MODE_PASTA;	/* one write() per frame */
	c->fd_tap = sv[0];
	link_init(c, &tap_link);
	peer_fd = sv[1];
	return sv[0];
}

/**
 * frame_waiting() - check whether a frame is waiting, leaving it there
 *
 * Return: 1 if one is
 */
int frame_waiting(void)
{
	uint8_t f[64];

	return recv(peer_fd, f, sizeof(f), MSG_DONTWAIT | MSG_PEEK) >= 0;
}

/**
 * no_reply() - check that no frame was sent (one that was is thrown away)
 *
 * Return: 1 if none was waiting
 */
int no_reply(void)
{
	uint8_t f[64];

	return recv(peer_fd, f, sizeof(f), MSG_DONTWAIT) < 0 &&
	       errno == EAGAIN;
}

/**
 * drain() - throw away every frame waiting
 *
 * Return: how many there were
 */
int drain(void)
{
	uint8_t f[64];
	int n = 0;

	while (recv(peer_fd, f, sizeof(f), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/**
 * replies_ok() - after one message from the guest, drain its replies
 * @dropped:	the message was counted as a drop
 * @answered:	incremented by the number of replies
 *
 * Return: 1 if there was at most one reply, and none to a dropped message
 */
int replies_ok(int dropped, int *answered)
{
	int replies = drain();

	*answered += replies;
	return replies <= 1 && !(replies && dropped);
}

/**
 * dropped_silently() - check that a message got no reply and counted @drops
 * @reason:	drop counter (enum pkt_drop_reason) the message may bump
 * @before:	the counter before the message
 * @drops:	how much it must have moved: 1 if dropped, 0 if ignored
 *
 * Return: 1 if it moved by @drops and no frame was sent
 */
int dropped_silently(int reason, uint64_t before, int drops)
{
	return pkt_drops[reason] == before + drops && no_reply();
}

/* --- reference checksums -------------------------------------------------- */

/**
 * sum16() - add up big-endian 16-bit words, RFC 1071 as written
 * @buf:	data
 * @len:	length of @buf, an odd last byte padded with zero
 * @sum:	sum to start from
 *
 * Return: the sum, not folded
 */
uint32_t sum16(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

/**
 * sum_fold() - fold a sum to 16 bits, carries added back
 * @sum:	sum from sum16()
 *
 * Return: the folded sum, 0xffff over data with a right checksum in it
 */
uint16_t sum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/**
 * csum_ref() - Internet checksum of a buffer, as it goes in a header
 * @buf:	data
 * @len:	length of @buf
 *
 * Return: the checksum, host order
 */
uint16_t csum_ref(const void *buf, size_t len)
{
	return ~sum_fold(sum16(buf, len, 0)) & 0xffff;
}

/* Sum of a pseudo-header: @addr_sum, the addresses, already summed */
static uint32_t pseudo_sum(uint32_t addr_sum, uint8_t proto, size_t len)
{
	return addr_sum + (len >> 16) + (len & 0xffff) + proto;
}

/**
 * l4_sum6() - folded sum of an IPv6 upper-layer packet and pseudo-header
 * @src:	IPv6 source
 * @dst:	IPv6 destination
 * @proto:	next header: IPPROTO_UDP, IPPROTO_ICMPV6
 * @l4:		upper-layer header and data
 * @len:	length of @l4
 *
 * Return: 0xffff if the checksum in @l4 is right (RFC 8200, 8.1)
 */
uint16_t l4_sum6(const struct in6_addr *src, const struct in6_addr *dst,
		 uint8_t proto, const void *l4, size_t len)
{
	uint32_t addr_sum = sum16(dst, 16, sum16(src, 16, 0));

	return sum_fold(sum16(l4, len, pseudo_sum(addr_sum, proto, len)));
}

/* --- frames to the guest -------------------------------------------------- */

/**
 * frame_parse() - split up and check one frame
 * @f:		frame from the destination MAC address on
 * @len:	frame length
 * @fr:		the frame, split up, valid if all checks passed
 *
 * Checks: IPv4 (header without options, header checksum, total length) or
 * IPv6 (version, payload length), then UDP (length; checksum, not zero over
 * IPv6), TCP (data offset; checksum) or ICMPv6 (checksum) over the
 * pseudo-header. No other protocol is valid. Which addresses and ports
 * they should be is for the caller.
 */
void frame_parse(const uint8_t *f, size_t len, struct frame *fr)
{
	size_t hlen, alen, l4_len;
	const uint8_t *ip, *l4;
	uint32_t ps;
	int v4;

	memset(fr, 0, sizeof(*fr));
	fr->len = len;
	if (len < ETH_HLEN)
		return;
	memcpy(fr->eth_dst, f, 6);
	memcpy(fr->eth_src, f + 6, 6);
	fr->eth_type = be16(f + 12);
	ip = f + ETH_HLEN;
	len -= ETH_HLEN;

	/* Both headers end with the source, then the destination address */
	v4 = fr->eth_type == ETH_P_IP;
	hlen = v4 ? 20 : 40;
	alen = v4 ? 4 : 16;
	if ((!v4 && fr->eth_type != ETH_P_IPV6) || len < hlen)
		return;
	if (v4 ? ip[0] != 0x45 || sum_fold(sum16(ip, 20, 0)) != 0xffff ||
		 be16(ip + 2) != len
	       : (ip[0] >> 4) != 6 || be16(ip + 4) != len - 40)
		return;
	memcpy(v4 ? (void *)&fr->src4 : (void *)&fr->src6,
	       ip + hlen - 2 * alen, alen);
	memcpy(v4 ? (void *)&fr->dst4 : (void *)&fr->dst6,
	       ip + hlen - alen, alen);
	fr->ttl = ip[v4 ? 8 : 7];
	fr->proto = ip[v4 ? 9 : 6];
	l4 = ip + hlen;
	l4_len = len - hlen;
	ps = pseudo_sum(sum16(ip + hlen - 2 * alen, 2 * alen, 0), fr->proto,
			l4_len);

	if (fr->proto == IPPROTO_UDP) {
		if (l4_len < 8 || be16(l4 + 4) != l4_len ||
		    (!v4 && !be16(l4 + 6)))
			return;
		fr->sport = be16(l4);
		fr->dport = be16(l4 + 2);
		fr->data = l4 + 8;
		fr->data_len = l4_len - 8;
	} else if (fr->proto == IPPROTO_TCP) {
		size_t doff = l4_len < 20 ? 0 : (size_t)(l4[12] >> 4) * 4;

		if (doff < 20 || doff > l4_len)
			return;
		fr->sport = be16(l4);
		fr->dport = be16(l4 + 2);
		fr->seq = be32(l4 + 4);
		fr->ack = be32(l4 + 8);
		fr->tcp_flags = l4[13];
		fr->wnd = be16(l4 + 14);
		fr->opts = l4 + 20;
		fr->opts_len = doff - 20;
		fr->data = l4 + doff;
		fr->data_len = l4_len - doff;
	} else if (fr->proto == IPPROTO_ICMPV6 && !v4) {
		if (l4_len < 4)
			return;
		fr->data = l4;
		fr->data_len = l4_len;
	} else {
		return;
	}
	fr->valid = sum_fold(sum16(l4, l4_len, ps)) == 0xffff;
}

/**
 * frame_read() - read one frame from the tap, if any, without waiting
 * @fr:		the frame, split up and checked by frame_parse()
 *
 * Return: 1 if there was one, 0 if none (then @fr is zeroed)
 */
int frame_read(struct frame *fr)
{
	static uint8_t f[65536 + 64];
	ssize_t n = recv(peer_fd, f, sizeof(f), MSG_DONTWAIT);

	if (n < 0) {
		memset(fr, 0, sizeof(*fr));
		return 0;
	}
	frame_parse(f, n, fr);
	return 1;
}

/**
 * frame_one() - read the one reply to a message: nothing more may wait
 * @fr:		the frame, split up and checked by frame_parse()
 *
 * Return: 1 if there was exactly one frame, 0 otherwise
 */
int frame_one(struct frame *fr)
{
	return frame_read(fr) && !frame_waiting();
}

/* --- configuration ------------------------------------------------------- */

/* The search list of search_list_set(), in wire format (RFC 1035, 3.1) */
const uint8_t search_wire[] = "\x07" "example" "\x03" "com" "\x00"
			      "\x03" "lab" "\x07" "example" "\x03" "org" "\x00";

/**
 * search_list_set() - configure the search list as -S would: example.com,
 *		       then lab.example.org, with a trailing dot to be dropped
 * @c:		execution context
 *
 * Then resolv_conf_file(c, NULL) takes it, as conf() does.
 */
void search_list_set(struct ctx *c)
{
	c->dns_opt.search_n = 2;
	strcpy(c->dns_opt.search[0], "example.com");
	strcpy(c->dns_opt.search[1], "lab.example.org.");
}

/* --- addresses ------------------------------------------------------------ */

/* Address from text, for @af: exits if it isn't one */
static void addr_pton(int af, const char *s, void *a)
{
	if (inet_pton(af, s, a) != 1) {
		fprintf(stderr, "bad address in test: %s\n", s);
		exit(1);
	}
}

/**
 * a6() - IPv6 address from text, exits if it isn't one
 * @s:		address in RFC 4291 notation
 *
 * Return: the address
 */
struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	addr_pton(AF_INET6, s, &a);
	return a;
}

/**
 * addr4_is() - compare an IPv4 address with one in text
 * @a:		address
 * @s:		address in dotted-decimal notation
 *
 * Return: 1 if the same
 */
int addr4_is(struct in_addr a, const char *s)
{
	struct in_addr b;

	addr_pton(AF_INET, s, &b);
	return a.s_addr == b.s_addr;
}

/**
 * addr6_is() - compare 16 bytes, maybe unaligned, with an IPv6 address
 * @a:		address
 * @s:		address in RFC 4291 notation
 *
 * Return: 1 if the same
 */
int addr6_is(const void *a, const char *s)
{
	struct in6_addr b = a6(s);

	return !memcmp(a, &b, sizeof(b));
}
