/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CHECKSUM_H
#define CHECKSUM_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);
uint16_t csum_fold(uint32_t sum);
uint16_t csum(const void *buf, size_t len, uint32_t init);
uint32_t csum_pseudo4(struct in_addr src, struct in_addr dst, uint8_t proto,
		      uint16_t l4_len);
uint32_t csum_pseudo6(const struct in6_addr *src, const struct in6_addr *dst,
		      uint8_t proto, uint16_t l4_len);

#endif /* CHECKSUM_H */
