// SPDX-License-Identifier: GPL-2.0-or-later
/* checksum.c - Internet checksum (RFC 1071)
 *
 * One's complement sums are associative and byte-order independent (RFC 1071,
 * 2.(B)), so we add native 32-bit words into a 64-bit accumulator, which
 * cannot overflow for any frame we handle, and fold at the end. Big frames
 * (MTU 65520) make this the hottest loop in the daemon: the compiler
 * vectorises the plain word loop.
 */

#include <string.h>

#include "checksum.h"

/**
 * csum_fold() - fold a 32-bit partial sum into 16 bits and complement it
 * @sum:	partial sum
 *
 * Return: checksum, in network order if the sum was of network-order data
 */
uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * csum_partial() - add a buffer to a partial one's complement sum
 * @buf:	data, any alignment
 * @len:	length of @buf
 * @sum:	partial sum to start from
 *
 * Return: 32-bit partial sum, not folded nor complemented
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const unsigned char *p = buf;
	uint64_t acc = sum;
	size_t i, words = len / 4;

	for (i = 0; i < words; i++) {
		uint32_t w;

		memcpy(&w, p + i * 4, sizeof(w));
		acc += w;
	}
	p += words * 4;
	len -= words * 4;

	if (len >= 2) {
		uint16_t w;

		memcpy(&w, p, sizeof(w));
		acc += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* Odd trailing byte: pad with zero, in memory order */
		uint16_t w = 0;

		memcpy(&w, p, 1);
		acc += w;
	}

	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (uint32_t)acc;
}

/**
 * csum() - checksum of a buffer
 * @buf:	data
 * @len:	length of @buf
 * @init:	partial sum to start from (e.g. a pseudo-header)
 *
 * Return: 16-bit checksum, in network order
 */
uint16_t csum(const void *buf, size_t len, uint32_t init)
{
	return csum_fold(csum_partial(buf, len, init));
}

/**
 * csum_pseudo4() - partial sum of the IPv4 pseudo-header (RFC 793, 3.1)
 * @src:	source address
 * @dst:	destination address
 * @proto:	L4 protocol number
 * @l4_len:	length of L4 header and payload, host order
 *
 * Return: 32-bit partial sum of network-order words
 */
uint32_t csum_pseudo4(struct in_addr src, struct in_addr dst, uint8_t proto,
		      uint16_t l4_len)
{
	uint32_t sum = 0;

	sum += (src.s_addr >> 16) + (src.s_addr & 0xffff);
	sum += (dst.s_addr >> 16) + (dst.s_addr & 0xffff);
	sum += htons(proto);
	sum += htons(l4_len);
	return sum;
}
