/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit_lib.h - what the unit tests share: TAP output, the socketpair
 * that stands for the tap device, and a parser of our own for the frames
 * the daemon sends, with reference checksums (RFC 1071 as written)
 */
#ifndef TEST_UNIT_LIB_H
#define TEST_UNIT_LIB_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

/* --- TAP ------------------------------------------------------------------ */

void ok(int cond, const char *desc);
void okf(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tests_done(void);

/* --- the tap: one end of a datagram socketpair ---------------------------- */

int tap_peer_open(struct ctx *c);
int frame_waiting(void);
int no_reply(void);
int drain(void);
int replies_ok(int dropped, int *answered);
int dropped_silently(int reason, uint64_t before, int drops);

/* --- reference checksums -------------------------------------------------- */

uint32_t sum16(const void *buf, size_t len, uint32_t sum);
uint16_t sum_fold(uint32_t sum);
uint16_t csum_ref(const void *buf, size_t len);
uint16_t l4_sum6(const struct in6_addr *src, const struct in6_addr *dst,
		 uint8_t proto, const void *l4, size_t len);

/* --- frames to the guest -------------------------------------------------- */

/**
 * struct frame - a frame read from the tap, checked and split up
 * @valid:	Ethernet, IPv4 or IPv6 header, UDP, TCP or ICMPv6 checksum all
 *		fine
 * @len:	length of the whole frame
 * @eth_dst:	destination MAC address
 * @eth_src:	source MAC address
 * @eth_type:	EtherType
 * @proto:	IPv4 protocol, or IPv6 next header
 * @ttl:	IPv4 TTL, or IPv6 hop limit
 * @src4:	IPv4 source
 * @dst4:	IPv4 destination
 * @src6:	IPv6 source
 * @dst6:	IPv6 destination
 * @sport:	UDP or TCP source port
 * @dport:	UDP or TCP destination port
 * @seq:	TCP sequence number
 * @ack:	TCP acknowledgement number
 * @tcp_flags:	TCP flags byte (TH_SYN ...)
 * @wnd:	TCP window field, not scaled
 * @opts:	TCP options, until the next read
 * @opts_len:	length of @opts
 * @data:	UDP or TCP payload, or the whole ICMPv6 message, until the next
 *		read
 * @data_len:	length of @data
 */
struct frame {
	int valid;
	size_t len;
	uint8_t eth_dst[6], eth_src[6];
	uint16_t eth_type;
	uint8_t proto, ttl;
	struct in_addr src4, dst4;
	struct in6_addr src6, dst6;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tcp_flags;
	uint16_t wnd;
	const uint8_t *opts;
	size_t opts_len;
	const uint8_t *data;
	size_t data_len;
};

void frame_parse(const uint8_t *f, size_t len, struct frame *fr);
int frame_read(struct frame *fr);
int frame_one(struct frame *fr);

/* --- configuration ------------------------------------------------------- */

/* The search list of search_list_set(), in wire format: its length */
#define SEARCH_WIRE_LEN		30

extern const uint8_t search_wire[SEARCH_WIRE_LEN + 1];
void search_list_set(struct ctx *c);

/* --- addresses and big-endian fields -------------------------------------- */

struct in6_addr a6(const char *s);
int addr4_is(struct in_addr a, const char *s);
int addr6_is(const void *a, const char *s);

static inline uint16_t be16(const uint8_t *p)
{
	return (p[0] << 8) | p[1];
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

#endif /* TEST_UNIT_LIB_H */
